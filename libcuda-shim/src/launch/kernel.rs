//! Kernel launches: validation against the profile (the real driver's error codes), the
//! parameter block (from `kernelParams` or the `extra` buffer), execution on the engine, and the
//! sticky error a fault leaves in the context. Occupancy queries are in `occupancy`.

use crate::config;
use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE};
use crate::module;
use crate::module::Function;
use crate::work::{KernelNode, Kind, LaunchAttrs};
use crate::{launch::occupancy, stream, trace};
use abi::*;
use engine::{ExecErrorKind, LaunchConfig};
use std::ffi::{c_uint, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const PARAM_END: usize = 0;
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;

/// Checks the launch shape and resources, in the order the driver reports them.
pub(crate) fn validate(f: &Function, grid: [u32; 3], block: [u32; 3], shared: u32) -> CuResult {
    let p = config::profile();
    let max_grid = [i32::MAX as u32, 65535, 65535];
    let max_block = [1024, 1024, 64];
    if grid.contains(&0) || block.contains(&0) {
        return Err(INVALID_VALUE);
    }
    if grid.iter().zip(max_grid).any(|(&g, m)| g > m)
        || block.iter().zip(max_block).any(|(&b, m)| b > m)
    {
        return Err(INVALID_VALUE);
    }
    let threads = block.iter().map(|&b| b as u64).product::<u64>();
    let k = &f.kernel;
    if threads > p.max_threads_per_block as u64 {
        return Err(INVALID_VALUE);
    }
    if k.max_threads_per_block > 0 && threads > k.max_threads_per_block as u64 {
        return Err(INVALID_VALUE);
    }
    // A `.local` frame past the per-thread bound loads but never launches (the real driver
    // answers INVALID_VALUE for any grid). The engine itself has no such bound: it reserves
    // local memory lazily, so the driver is where the GPU's limit is kept.
    if k.local_bytes_per_thread as u64 > crate::profile::MAX_LOCAL_PER_THREAD {
        return Err(INVALID_VALUE);
    }
    if shared as i64 > f.max_dynamic_shared.load(Ordering::Acquire) as i64
        || shared as u64 + k.static_shared_bytes as u64 > p.shared_per_block_optin as u64
    {
        return Err(INVALID_VALUE);
    }
    if !p.regs_fit(f.num_regs, threads) {
        return Err(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    }
    Ok(())
}

/// The parameter block: each `kernelParams[i]` points to parameter i's bytes; or the `extra`
/// list carries one packed buffer and its size.
pub(crate) unsafe fn param_block(
    f: &Function,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult<Vec<u8>> {
    let k = &f.kernel;
    let mut block = vec![0u8; k.param_bytes];
    if !params.is_null() && !extra.is_null() {
        return Err(INVALID_VALUE);
    }
    if !params.is_null() {
        for (i, p) in k.params.iter().enumerate() {
            // SAFETY: kernelParams has one pointer per kernel parameter (API contract).
            let src = unsafe { *params.add(i) } as *const u8;
            if src.is_null() {
                return Err(INVALID_VALUE);
            }
            // SAFETY: src points to the parameter's `size` bytes (API contract); the offset and
            // size come from the kernel's layout, within `block`.
            unsafe { std::ptr::copy_nonoverlapping(src, block.as_mut_ptr().add(p.offset), p.size) };
        }
        return Ok(block);
    }
    if !extra.is_null() {
        let (mut buf, mut size): (*const u8, Option<usize>) = (std::ptr::null(), None);
        let mut i = 0;
        loop {
            // SAFETY: `extra` is a key/value list ending with CU_LAUNCH_PARAM_END.
            let key = unsafe { *extra.add(i) } as usize;
            match key {
                PARAM_END => break,
                // SAFETY: each key is followed by its value.
                PARAM_BUFFER_POINTER => buf = unsafe { *extra.add(i + 1) } as *const u8,
                PARAM_BUFFER_SIZE => {
                    // SAFETY: the value points to a size_t.
                    let sp = unsafe { *extra.add(i + 1) } as *const usize;
                    if sp.is_null() {
                        return Err(INVALID_VALUE);
                    }
                    // SAFETY: checked non-null.
                    size = Some(unsafe { *sp });
                }
                _ => return Err(INVALID_VALUE),
            }
            i += 2;
        }
        if k.param_bytes == 0 {
            return Ok(block);
        }
        let size = size.ok_or(INVALID_VALUE)?;
        if buf.is_null() || size < k.param_bytes {
            return Err(INVALID_VALUE);
        }
        // SAFETY: the buffer holds `size` >= param_bytes bytes.
        unsafe { std::ptr::copy_nonoverlapping(buf, block.as_mut_ptr(), k.param_bytes) };
        return Ok(block);
    }
    if k.params.is_empty() {
        Ok(block)
    } else {
        Err(INVALID_VALUE)
    }
}

/// The sticky error a fault of a running kernel leaves in its context.
fn fault_code(kind: ExecErrorKind) -> CUresult {
    match kind {
        ExecErrorKind::IllegalAddress => CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
        ExecErrorKind::MisalignedAddress => CUresult::CUDA_ERROR_MISALIGNED_ADDRESS,
        ExecErrorKind::Trap => CUresult::CUDA_ERROR_LAUNCH_FAILED,
        ExecErrorKind::Assert => CUresult::CUDA_ERROR_ASSERT,
        ExecErrorKind::Unsupported => CUresult::CUDA_ERROR_NOT_SUPPORTED,
        // `validate` rejects bad shapes at enqueue, so these mean the engine found a limit
        // the driver did not check: the launch fails on the device.
        ExecErrorKind::InvalidLaunch => CUresult::CUDA_ERROR_LAUNCH_FAILED,
        ExecErrorKind::OutOfResources => CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        ExecErrorKind::Timeout => CUresult::CUDA_ERROR_LAUNCH_TIMEOUT,
        ExecErrorKind::IllegalInstruction => CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION,
    }
}

/// A cooperative launch must fit on the device at once: at most the occupancy limit (active
/// blocks per SM for this block size and dynamic shared memory) times the SM count, as
/// `cuLaunchCooperativeKernel` documents; beyond it CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE.
pub(crate) fn validate_cooperative(
    f: &Function,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
) -> CuResult {
    let p = config::profile();
    let threads = block.iter().map(|&b| b as i64).product::<i64>();
    let per_sm = occupancy::active_blocks(p, &occupancy::FuncUsage::of(f), threads, shared as i64);
    let blocks = grid.iter().map(|&g| g as i64).product::<i64>();
    if blocks > per_sm.saturating_mul(p.sm_count as i64) {
        trace::trace!(
            "  cooperative launch of {} too large: {blocks} blocks, {per_sm} per SM x {} SMs",
            f.kernel.name,
            p.sm_count
        );
        return Err(CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }
    Ok(())
}

/// The cluster shape a launch runs with: the configuration's (`requested`, from
/// `cuLaunchKernelEx`), else the function's required one (compile-time `__cluster_dims__` or
/// `CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_*`), else single-CTA clusters; checked against the
/// profile as the driver does ([`occupancy::check_cluster`]). A requested shape other than
/// the required one, or a required one partly zero, is CUDA_ERROR_INVALID_CLUSTER_SIZE.
/// Also says whether the shape is explicit (requested or required, `%is_explicit_cluster`):
/// a launch naming none runs implicit single-CTA clusters.
pub(crate) fn cluster_shape(
    f: &Function,
    requested: Option<[u32; 3]>,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
) -> CuResult<([u32; 3], bool)> {
    let bad = Err(CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE);
    let required = f.cluster_dims.each_ref().map(|d| d.load(Ordering::Acquire));
    let required = match required {
        [0, 0, 0] => None,
        r if r.iter().all(|&d| d > 0) => Some(r.map(|d| d as u32)),
        _ => return bad,
    };
    let dims = match (requested, required) {
        (Some(r), Some(q)) if r != q => return bad,
        (Some(r), _) | (None, Some(r)) => r,
        // A `.explicitcluster` kernel must be given a shape; the engine would fail the launch
        // later, as a sticky error, so it is refused here with the cluster launch error.
        (None, None) if f.kernel.explicit_cluster => return bad,
        (None, None) => return Ok(([1, 1, 1], false)),
    };
    let threads = block.iter().map(|&b| b as i64).product::<i64>();
    let non_portable = f.non_portable_cluster.load(Ordering::Acquire) != 0;
    let usage = occupancy::FuncUsage::of(f);
    let p = config::profile();
    occupancy::check_cluster(p, &usage, non_portable, dims, grid, threads, shared as i64)
        .inspect_err(|_| {
            trace::trace!(
                "  launch of {}: clusters of {dims:?} invalid for grid {grid:?}",
                f.kernel.name
            )
        })?;
    Ok((dims, true))
}

/// The checks of a launch of `f` (its shape, cluster shape and, for a cooperative one,
/// co-residency) and what it runs with: its configuration and its parameter block, copied from
/// `params`/`extra`.
///
/// # Safety
/// `params` and `extra` as `cuLaunchKernel` documents them.
#[allow(clippy::too_many_arguments)]
unsafe fn checked_config(
    f: &Function,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    cluster: Option<[u32; 3]>,
    cooperative: bool,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult<(LaunchConfig, Vec<u8>)> {
    validate(f, grid, block, shared)?;
    let (cluster, explicit_cluster) = cluster_shape(f, cluster, grid, block, shared)?;
    if cooperative {
        validate_cooperative(f, grid, block, shared)?;
    }
    // SAFETY: forwarded contract.
    let bytes = unsafe { param_block(f, params, extra) }?;
    let config = LaunchConfig {
        grid,
        block,
        dynamic_shared_bytes: shared,
        cluster,
        explicit_cluster,
    };
    Ok((config, bytes))
}

/// Validates a launch and submits it to its stream. The parameter block is copied now (the
/// caller's argument storage may be gone when the kernel runs). A fault while running becomes
/// the context's sticky error, reported by the next synchronising call, as on a GPU.
/// `cooperative`: all CTAs co-resident with a grid workspace (see `engine::launch_cooperative`).
/// `attrs`: the kernel-node attributes of a `cuLaunchKernelEx` configuration, the cluster
/// shape among them (see [`cluster_shape`]); a capture records them on the node.
#[allow(clippy::too_many_arguments)]
unsafe fn launch(
    func: CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    s: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    cooperative: bool,
    attrs: LaunchAttrs,
) -> CuResult {
    let target = stream::target(s)?;
    let f: Arc<Function> = module::function(func)?;
    // SAFETY: forwarded contract.
    let (config, bytes) = unsafe {
        checked_config(
            &f,
            grid,
            block,
            shared,
            attrs.cluster(),
            cooperative,
            params,
            extra,
        )
    }?;
    let cluster = config.cluster;
    trace::trace!(
        "  launch {} grid {grid:?} block {block:?} cluster {cluster:?} shared {shared} params {} \
         bytes",
        f.kernel.name,
        bytes.len()
    );
    if cooperative {
        // Kernel nodes carry no cooperative flag yet: capturing one would replay it as an
        // ordinary launch, whose grid.sync() traps. Refused (and the capture invalidated)
        // rather than recorded wrongly.
        crate::stream::capture::refuse(&target)?;
        let done = submit(&target, f, config, bytes, true);
        return finish_launch(&target, done);
    }
    // In a capturing stream the launch becomes a kernel node with the same (copied) arguments
    // and the configuration's node attributes (the cluster shape among them), so that a replay
    // runs as this launch would have.
    let captured = crate::stream::capture::intercept(&target, || {
        Kind::Kernel(KernelNode {
            handle: func as usize,
            via_kernel: false,
            function: f.clone(),
            grid,
            block,
            shared,
            params: bytes.clone(),
            attrs,
        })
    })?;
    if !captured {
        let done = submit_kernel(&target, f, config, bytes);
        return finish_launch(&target, done);
    }
    Ok(())
}

/// Queues a validated launch; a fault while running becomes the context's sticky error.
pub(crate) fn submit_kernel(
    target: &stream::Target,
    f: Arc<Function>,
    config: LaunchConfig,
    bytes: Vec<u8>,
) -> crate::context::Dep {
    submit(target, f, config, bytes, false)
}

fn submit(
    target: &stream::Target,
    f: Arc<Function>,
    config: LaunchConfig,
    bytes: Vec<u8>,
    cooperative: bool,
) -> crate::context::Dep {
    stream::submit_unless_faulted(target, move |ctx| {
        run_now(ctx, &f, &config, &bytes, cooperative)
    })
}

/// `CUDA_LAUNCH_BLOCKING=1`: the launch call waits for its kernel and returns the error the
/// kernel left (sticky), so a fault is reported by the launch that caused it.
fn finish_launch(target: &stream::Target, done: crate::context::Dep) -> CuResult {
    if crate::config::launch_blocking() {
        stream::wait(target, &done)
    } else {
        Ok(())
    }
}

/// Runs a validated launch on the calling thread (a stream worker): the body of a queued
/// launch, and of a kernel node in a conditional node's body. A fault, real or injected
/// (`CUDA_SHIM_INJECT`), becomes `ctx`'s sticky error.
pub(crate) fn run_now(
    ctx: &crate::context::Context,
    f: &Function,
    config: &LaunchConfig,
    bytes: &[u8],
    cooperative: bool,
) {
    if let Some(fault) = crate::inject::on_launch(&f.kernel.name, config) {
        if ctx.check().is_ok() {
            trace::warn(&format!(
                "kernel {} failed: {}",
                f.kernel.name, fault.report
            ));
        }
        ctx.set_sticky(fault.code);
        return;
    }
    let start = std::time::Instant::now();
    let device = ctx.device as u32;
    let r = engine::launch_within(&f.kernel, config, bytes, cooperative, reach(ctx), device);
    crate::stats::launched(&f.kernel, config, start.elapsed());
    crate::sanitizer::after_launch(&f.kernel.name);
    if let Err(e) = r {
        // Under the sanitizer its report says it (and the error count keeps it).
        if !crate::sanitizer::kernel_fault(&f.kernel.name, &e) && ctx.check().is_ok() {
            trace::warn(&format!("kernel {} failed: {e}", f.kernel.name));
        }
        ctx.set_sticky(fault_code(e.kind));
    }
}

/// The devices whose memory a kernel of `ctx` may touch: its own and those of the contexts it
/// enabled peer access to (cuCtxEnablePeerAccess), as on a GPU, where another device's memory
/// is an illegal address otherwise. Managed and host memory are reachable from every device.
fn reach(ctx: &crate::context::Context) -> engine::mem::Reach {
    if crate::device::count() == 1 {
        return engine::mem::EVERY_DEVICE;
    }
    // A copy, so that the context registry is never locked under the peer list (`peer::forget`
    // locks them the other way round).
    let peers = ctx.peers.lock().clone();
    peers
        .iter()
        .filter_map(|&h| crate::context::CONTEXTS.find(h as *mut std::ffi::c_void))
        .fold(1 << ctx.device, |r, peer| r | 1 << peer.device)
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn launch_kernel(
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    s: CUstream,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        launch(
            f,
            [gx, gy, gz],
            [bx, by, bz],
            shared,
            s,
            params,
            extra,
            false,
            LaunchAttrs::default(),
        )
    }
}

/// `cuLaunchCooperativeKernel` (and `_ptsz`): parameters through `kernelParams` only.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn launch_cooperative_kernel(
    f: CUfunction,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    s: CUstream,
    params: *mut *mut c_void,
) -> CuResult {
    let extra = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe {
        launch(
            f,
            [gx, gy, gz],
            [bx, by, bz],
            shared,
            s,
            params,
            extra,
            true,
            LaunchAttrs::default(),
        )
    }
}

/// `CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC`: each kernel waits only for its
/// own stream's earlier work.
const MULTI_NO_PRE_LAUNCH_SYNC: u32 = 0x1;
/// `CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC`: later work of a stream waits only
/// for that stream's kernel.
const MULTI_NO_POST_LAUNCH_SYNC: u32 = 0x2;

/// One validated entry of a multi-device launch.
struct MultiEntry {
    target: stream::Target,
    f: Arc<Function>,
    config: LaunchConfig,
    bytes: Vec<u8>,
}

/// `cuLaunchCooperativeKernelMultiDevice` (deprecated, still declared by CUDA 13's `cuda.h`):
/// each entry is a cooperative launch on its own device's stream, as `cuLaunchCooperativeKernel`
/// makes one. The argument checks answer what an H200 answered
/// (scripts/ground-truth/results/coop-multi-h200.txt): flags other than the two below, a NULL
/// list, zero entries and two entries on one device are CUDA_ERROR_INVALID_VALUE; a NULL
/// stream or function CUDA_ERROR_INVALID_HANDLE; a bad shape CUDA_ERROR_INVALID_VALUE and a
/// grid past co-residency CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, as for one device. Shapes
/// and kernels that differ between entries, which the documentation says must match, are
/// CUDA_ERROR_INVALID_VALUE too (not measured: one device has no second entry). Nothing is
/// queued unless every entry is valid.
///
/// The synchronisation the documentation describes: by default each kernel waits for the
/// earlier work of every listed stream (not only its own), and later work of every listed
/// stream waits for all the kernels; `MULTI_NO_PRE_LAUNCH_SYNC` and
/// `MULTI_NO_POST_LAUNCH_SYNC` drop the other streams from either side. The kernels of
/// different devices run on their streams' workers at the same time.
pub(crate) unsafe fn launch_cooperative_multi_device(
    list: *mut CUDA_LAUNCH_PARAMS,
    num_devices: c_uint,
    flags: c_uint,
) -> CuResult {
    if flags & !(MULTI_NO_PRE_LAUNCH_SYNC | MULTI_NO_POST_LAUNCH_SYNC) != 0
        || list.is_null()
        || num_devices == 0
    {
        return Err(INVALID_VALUE);
    }
    // More entries than devices necessarily name one device twice.
    if num_devices as usize > crate::device::count().max(1) {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the list holds `num_devices` entries (API contract), at most
    // the device count.
    let list = unsafe { std::slice::from_raw_parts(list, num_devices as usize) };
    let mut entries: Vec<MultiEntry> = Vec::with_capacity(list.len());
    for p in list {
        // The NULL stream, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD "cannot be used": NULL was
        // measured CUDA_ERROR_INVALID_HANDLE, and the two special handles are taken as NULL is.
        if matches!(p.hStream as usize, 0 | stream::LEGACY | stream::PER_THREAD) {
            return Err(INVALID_HANDLE);
        }
        let target = stream::target(p.hStream)?;
        let f: Arc<Function> = module::function(p.function)?;
        if entries
            .iter()
            .any(|e| e.target.ctx.device == target.ctx.device)
        {
            return Err(INVALID_VALUE);
        }
        let grid = [p.gridDimX, p.gridDimY, p.gridDimZ];
        let block = [p.blockDimX, p.blockDimY, p.blockDimZ];
        let shared = p.sharedMemBytes;
        // SAFETY: kernelParams as the documentation gives it (one pointer per parameter).
        let (config, bytes) = unsafe {
            checked_config(
                &f,
                grid,
                block,
                shared,
                None,
                true,
                p.kernelParams,
                std::ptr::null_mut(),
            )
        }?;
        if let Some(first) = entries.first() {
            let c = &first.config;
            if c.grid != grid
                || c.block != block
                || c.dynamic_shared_bytes != shared
                || first.f.kernel.name != f.kernel.name
            {
                return Err(INVALID_VALUE);
            }
        }
        entries.push(MultiEntry {
            target,
            f,
            config,
            bytes,
        });
    }
    // Like a single cooperative launch, it cannot be captured (no kernel node carries the
    // cooperative flag).
    for e in &entries {
        crate::stream::capture::refuse(&e.target)?;
    }
    // Each stream's last queued item, before any kernel is queued: the earlier work the other
    // streams' kernels wait for (a queue runs in order, so its last item stands for all).
    let before: Vec<Option<crate::context::Dep>> = entries
        .iter()
        .map(|e| match flags & MULTI_NO_PRE_LAUNCH_SYNC {
            0 => e.target.queue.pending(),
            _ => None,
        })
        .collect();
    let mut kernels = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let deps: Vec<_> = (before.iter().enumerate())
            .filter(|&(j, _)| j != i)
            .filter_map(|(_, d)| d.clone())
            .collect();
        trace::trace!(
            "  multi-device launch {} on device {} grid {:?} block {:?} after {} other streams' \
             work",
            e.f.kernel.name,
            e.target.ctx.device,
            e.config.grid,
            e.config.block,
            deps.len()
        );
        let (f, config, bytes) = (e.f.clone(), e.config, e.bytes.clone());
        let work: crate::context::Work = Box::new(move |ctx| {
            if ctx.check().is_ok() {
                run_now(ctx, &f, &config, &bytes, true)
            }
        });
        kernels.push(stream::submit(&e.target, deps, work));
    }
    // Later work of each stream waits for the other devices' kernels too: an empty item after
    // them in the stream.
    let mut last = kernels.clone();
    if flags & MULTI_NO_POST_LAUNCH_SYNC == 0 && entries.len() > 1 {
        for (i, e) in entries.iter().enumerate() {
            let deps: Vec<_> = (kernels.iter().enumerate())
                .filter(|&(j, _)| j != i)
                .map(|(_, d)| d.clone())
                .collect();
            last[i] = stream::submit(&e.target, deps, Box::new(|_| {}));
        }
    }
    for (e, done) in entries.iter().zip(last) {
        finish_launch(&e.target, done)?;
    }
    Ok(())
}

pub(crate) unsafe fn launch_kernel_ex(
    config: *const CUlaunchConfig,
    f: CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CuResult {
    if config.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null.
    let c = unsafe { &*config };
    if c.numAttrs > 0 && c.attrs.is_null() {
        return Err(INVALID_VALUE);
    }
    let mut cooperative = false;
    for i in 0..c.numAttrs as usize {
        // SAFETY: `attrs` holds numAttrs entries.
        let a = unsafe { &*c.attrs.add(i) };
        // Every attribute cuda.h defines is accepted; a cooperative launch (all CTAs resident,
        // a grid workspace) and the cluster dimension change how the grid runs, the others are
        // scheduling properties here.
        if a.id.0 == 0 || a.id.0 > 64 {
            return Err(INVALID_VALUE);
        }
        if a.id == CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE {
            // SAFETY: the value union's `cooperative` member is the one this id selects.
            cooperative = unsafe { a.value.cooperative } != 0;
        }
    }
    let grid = [c.gridDimX, c.gridDimY, c.gridDimZ];
    let block = [c.blockDimX, c.blockDimY, c.blockDimZ];
    let attrs = if c.numAttrs == 0 {
        &[][..]
    } else {
        // SAFETY: checked non-null above; `attrs` holds numAttrs entries.
        unsafe { std::slice::from_raw_parts(c.attrs, c.numAttrs as usize) }
    };
    let attrs = LaunchAttrs::from_launch(attrs);
    // SAFETY: forwarded contract.
    unsafe {
        launch(
            f,
            grid,
            block,
            c.sharedMemBytes,
            c.hStream,
            params,
            extra,
            cooperative,
            attrs,
        )
    }
}
