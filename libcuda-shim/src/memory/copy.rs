//! Copies and memsets (1D, 2D, 3D, peer), submitted to streams in order, with the host
//! synchronisation the driver documents ("API synchronization behavior"):
//! - synchronous copies go to the default stream (legacy, or per-thread in `_ptds` calls); one
//!   with host memory on either side returns once the copy has completed; device to device
//!   returns at once;
//! - asynchronous copies return at once, except that a source in pageable host memory is staged
//!   (copied aside at the call, as the driver stages into pinned memory), a destination in
//!   pageable memory makes the call wait, and host to host is fully synchronous;
//! - memsets are asynchronous unless their target is host or managed memory.
//!
//! Every range is validated at the call: a copy from or to unallocated device memory, or from or
//! to host memory that is not mapped, is CUDA_ERROR_INVALID_VALUE, never a segfault.

use crate::context::CONTEXTS;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::{self, bulk};
use crate::stream::{self, Target};
use abi::*;
use engine::mem as dmem;
use std::ffi::{c_uchar, c_uint, c_ushort, c_void};

/// Where one side of a copy lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Device,
    Managed,
    /// Page-locked: allocated by cuMemHostAlloc or registered.
    Pinned,
    Pageable,
}

impl Side {
    fn of(p: u64) -> Side {
        if memory::host_range(p as usize).is_some() {
            Side::Pinned
        } else if let Some(a) = dmem::find(p) {
            if memory::is_managed(a.base) {
                Side::Managed
            } else {
                Side::Device
            }
        } else if crate::memory::vmm::reservation_at(p).is_some() || dmem::in_device_region(p) {
            // Reserved device address space without an accessible mapping, or device memory
            // that is not (or no longer) allocated: the device range check refuses it.
            Side::Device
        } else {
            Side::Pageable
        }
    }

    fn host(self) -> bool {
        matches!(self, Side::Pinned | Side::Pageable)
    }
}

/// One contiguous piece of a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    dst: u64,
    src: u64,
    len: usize,
}

/// Checks one side of a row: device memory must hold the whole range; pageable host memory
/// must be mapped (a wild host pointer is CUDA_ERROR_INVALID_VALUE, not a crash).
fn check_side(p: u64, len: usize, side: Side) -> CuResult {
    if p == 0 {
        return Err(INVALID_VALUE);
    }
    match side {
        Side::Device | Side::Managed => memory::check_device(p, len),
        Side::Pinned => Ok(()),
        Side::Pageable if host_mapped(p, len) => Ok(()),
        Side::Pageable => {
            crate::trace::trace!(
                "host range {p:#x}+{len} is not mapped in this process: CUDA_ERROR_INVALID_VALUE"
            );
            Err(INVALID_VALUE)
        }
    }
}

/// Whether every page of the host range `[p, p + len)` is mapped, asked of the kernel
/// (`mincore` fails with ENOMEM on a range with an unmapped page). One system call, so a copy
/// with a wild host pointer fails instead of crashing the process. (A mapped page without the
/// needed permission, e.g. a read-only page as a copy's destination, still faults.)
fn host_mapped(p: u64, len: usize) -> bool {
    const PAGE: u64 = 4096;
    let Some(end) = p.checked_add(len.max(1) as u64) else {
        return false;
    };
    let start = p / PAGE * PAGE;
    let span = end.div_ceil(PAGE) * PAGE - start;
    let mut vec = vec![0u8; (span / PAGE) as usize];
    // SAFETY: mincore only reads the page tables for the range and writes one byte per page
    // into `vec`, which holds exactly that many; the range itself is never accessed.
    let r = unsafe {
        libc::mincore(
            start as *mut libc::c_void,
            span as usize,
            vec.as_mut_ptr() as *mut libc::c_uchar,
        )
    };
    r == 0
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// cuMemcpy*, cuMemset* without `Async`.
    Sync,
    Async,
}

/// Whether device memory at `p` has CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set, which makes
/// synchronous operations on it synchronise.
fn sync_memops(p: u64) -> bool {
    memory::pointer::sync_memops(p)
}

/// Submits validated rows to `t` and synchronises the host as the rules above say. In a
/// capturing stream the copy becomes a memcpy node described by `desc` instead.
/// With `stage`, an asynchronous copy reads its source at the call whatever its kind
/// (`CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL`).
fn submit_copy(
    t: &Target,
    desc: impl FnOnce() -> CUDA_MEMCPY3D,
    rows: Vec<Row>,
    dst: Side,
    src: Side,
    mode: Mode,
    stage: bool,
) -> CuResult {
    if rows.is_empty() {
        return Ok(());
    }
    if crate::stream::capture::intercept(t, || crate::work::Kind::Memcpy(desc()))? {
        return Ok(());
    }
    let wait = match mode {
        Mode::Sync => {
            dst.host()
                || src.host()
                || dst == Side::Managed
                || src == Side::Managed
                || rows
                    .first()
                    .is_some_and(|r| sync_memops(r.dst) || sync_memops(r.src))
        }
        Mode::Async => dst == Side::Pageable || (dst.host() && src.host()),
    };
    let total: usize = rows.iter().map(|r| r.len).sum();
    crate::stats::copied(direction(dst, src), total);
    // Run here and now what a waiting call waits for, what staging a pageable source must read
    // at the call anyway, and a small copy (cheaper than queueing it).
    if wait || src == Side::Pageable || stage || total <= bulk::INLINE_UP_TO {
        // SAFETY: as for the queued copy below.
        if let Some(r) = run_if_idle(t, wait, || unsafe { copy_rows(&rows) }) {
            return r;
        }
    }
    let dep = if !wait && (src == Side::Pageable || stage) {
        // SAFETY: each source row was checked (non-null, the program's readable memory for
        // `len` bytes by the API contract); it is read now, before the call returns.
        let staged: Vec<(u64, Vec<u8>)> = rows
            .iter()
            .map(|r| {
                let bytes = unsafe { std::slice::from_raw_parts(r.src as *const u8, r.len) };
                (r.dst, bytes.to_vec())
            })
            .collect();
        stream::submit_unless_faulted(t, move |_| {
            for (dst, bytes) in staged {
                // SAFETY: the destination range was validated as device memory at the call.
                unsafe { bulk::copy_part(dst as *mut u8, bytes.as_ptr(), bytes.len(), total) };
            }
        })
    } else {
        // SAFETY: device ranges were validated at the call; host ranges are the program's,
        // valid until the copy completes (the API's contract for asynchronous copies).
        stream::submit_unless_faulted(t, move |_| unsafe { copy_rows(&rows) })
    };
    if wait {
        stream::wait(t, &dep)
    } else {
        Ok(())
    }
}

/// Copies every row as one copy: its whole size decides how the bytes move
/// (`bulk::copy_part`); rows may overlap their own source.
///
/// # Safety
/// Every row's ranges must be valid: device ranges validated, host ranges the program's.
unsafe fn copy_rows(rows: &[Row]) {
    let total = rows.iter().map(|r| r.len).sum();
    for r in rows {
        // SAFETY: the caller's.
        unsafe { bulk::copy_part(r.dst as *mut u8, r.src as *const u8, r.len, total) };
    }
}

/// Runs `work` on the calling thread when `t` has nothing queued (`stream::idle`, which keeps
/// it in stream order), with the sticky-error check and, for a call that waits, the printf
/// flush of a synchronisation; `None` when the work must be queued instead.
fn run_if_idle(t: &Target, wait: bool, work: impl FnOnce()) -> Option<CuResult> {
    let _order = stream::idle(t)?;
    Some(t.ctx.check().map(|()| {
        work();
        if wait {
            crate::printf::flush();
        }
    }))
}

/// Which way a copy goes, for `--stats` (managed memory counts as device memory).
fn direction(dst: Side, src: Side) -> crate::stats::Direction {
    use crate::stats::Direction::*;
    match (dst.host(), src.host()) {
        (false, true) => HtoD,
        (true, false) => DtoH,
        (false, false) => DtoD,
        (true, true) => HtoH,
    }
}

/// A 1D copy between pointers of known or inferred kinds.
fn copy_1d(
    t: &Target,
    dst: u64,
    src: u64,
    n: usize,
    dst_side: Option<Side>,
    src_side: Option<Side>,
    mode: Mode,
) -> CuResult {
    if n == 0 {
        return Ok(());
    }
    let dst_side = dst_side.unwrap_or_else(|| Side::of(dst));
    let src_side = src_side.unwrap_or_else(|| Side::of(src));
    check_side(dst, n, dst_side)?;
    check_side(src, n, src_side)?;
    let desc = || desc_1d(dst, dst_side, src, src_side, n);
    submit_copy(
        t,
        desc,
        vec![Row { dst, src, len: n }],
        dst_side,
        src_side,
        mode,
        false,
    )
}

/// A 1D copy as the CUDA_MEMCPY3D a memcpy node reports for it.
fn desc_1d(dst: u64, dst_side: Side, src: u64, src_side: Side, n: usize) -> CUDA_MEMCPY3D {
    let mut d = CUDA_MEMCPY3D::default();
    if src_side.host() {
        d.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        d.srcHost = src as *const c_void;
    } else {
        d.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        d.srcDevice = src;
    }
    if dst_side.host() {
        d.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        d.dstHost = dst as *mut c_void;
    } else {
        d.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        d.dstDevice = dst;
    }
    d.WidthInBytes = n;
    d.Height = 1;
    d.Depth = 1;
    d
}

/// One validated copy of a batch (cuMemcpyBatchAsync and its relatives): checked in full
/// before any copy of the batch is queued.
pub(crate) struct Prepared {
    desc: CUDA_MEMCPY3D,
    rows: Vec<Row>,
    dst: Side,
    src: Side,
}

/// Validates a pointer-to-pointer copy of `n` bytes, either side of any kind.
pub(crate) fn prepare_1d(dst: u64, src: u64, n: usize) -> CuResult<Prepared> {
    let (dst_side, src_side) = (Side::of(dst), Side::of(src));
    check_side(dst, n, dst_side)?;
    check_side(src, n, src_side)?;
    Ok(Prepared {
        desc: desc_1d(dst, dst_side, src, src_side, n),
        rows: vec![Row { dst, src, len: n }],
        dst: dst_side,
        src: src_side,
    })
}

/// Validates a 3D copy as cuMemcpy3DAsync does.
pub(crate) fn prepare_3d(c: &CUDA_MEMCPY3D) -> CuResult<Prepared> {
    let (src, dst) = regions_3d(c);
    let (rows, dside, sside) = plan(&src, &dst, c.WidthInBytes, c.Height, c.Depth)?;
    Ok(Prepared {
        desc: *c,
        rows,
        dst: dside,
        src: sside,
    })
}

/// Queues a prepared copy as an asynchronous one; `stage` reads the source at the call.
pub(crate) fn submit_prepared(t: &Target, p: Prepared, stage: bool) -> CuResult {
    let desc = p.desc;
    submit_copy(t, || desc, p.rows, p.dst, p.src, Mode::Async, stage)
}

/// A validated copy, ready to run (graph memcpy nodes), and which way it goes.
pub(crate) struct CopyPlan(Vec<Row>, crate::stats::Direction);

/// Validates a CUDA_MEMCPY3D as cuMemcpy3D does and lists its rows.
pub(crate) fn plan_3d(c: &CUDA_MEMCPY3D) -> CuResult<CopyPlan> {
    // Mipmap levels only apply to arrays; the reserved fields must be zero.
    if !c.reserved0.is_null() || !c.reserved1.is_null() || c.srcLOD != 0 || c.dstLOD != 0 {
        return Err(INVALID_VALUE);
    }
    let (src, dst) = regions_3d(c);
    let (rows, dside, sside) = plan(&src, &dst, c.WidthInBytes, c.Height, c.Depth)?;
    Ok(CopyPlan(rows, direction(dside, sside)))
}

/// Queues a planned copy; host memory is read when it runs (graph semantics: no staging).
pub(crate) fn submit_plan(t: &Target, p: CopyPlan) {
    stream::submit_unless_faulted(t, move |_| p.run());
}

impl CopyPlan {
    /// Copies now, on the calling thread (a stream worker).
    pub(crate) fn run(&self) {
        crate::stats::copied(self.1, self.0.iter().map(|r| r.len).sum());
        // SAFETY: the rows were validated when the launch was prepared; host ranges are the
        // program's, valid while the graph runs (the API's contract).
        unsafe { copy_rows(&self.0) };
    }
}

/// The default stream of a synchronous call (legacy, or per-thread in a `_ptds` call).
/// Synchronous copies and memsets are potentially unsafe during stream capture.
fn default_stream() -> CuResult<Target> {
    crate::stream::capture::check_unsafe_call()?;
    stream::target(std::ptr::null_mut())
}

/// A device-memory side: the pointer must lie in a device allocation (not host memory).
fn device_side(p: u64) -> Side {
    match Side::of(p) {
        Side::Managed => Side::Managed,
        // Checked by check_side: a host pointer fails the device range check.
        _ => Side::Device,
    }
}

/// A host-memory side (pinned or pageable), as the HtoD/DtoH forms declare.
fn host_side(p: u64) -> Side {
    if memory::host_range(p as usize).is_some() {
        Side::Pinned
    } else {
        Side::Pageable
    }
}

pub(crate) unsafe fn copy(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CuResult {
    copy_1d(&default_stream()?, dst, src, n, None, None, Mode::Sync)
}

pub(crate) unsafe fn copy_async(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: CUstream,
) -> CuResult {
    copy_1d(&stream::target(s)?, dst, src, n, None, None, Mode::Async)
}

unsafe fn htod(t: &Target, dst: CUdeviceptr, src: *const c_void, n: usize, m: Mode) -> CuResult {
    let src = src as u64;
    copy_1d(
        t,
        dst,
        src,
        n,
        Some(device_side(dst)),
        Some(host_side(src)),
        m,
    )
}

unsafe fn dtoh(t: &Target, dst: *mut c_void, src: CUdeviceptr, n: usize, m: Mode) -> CuResult {
    let dst = dst as u64;
    copy_1d(
        t,
        dst,
        src,
        n,
        Some(host_side(dst)),
        Some(device_side(src)),
        m,
    )
}

pub(crate) unsafe fn copy_htod(dst: CUdeviceptr, src: *const c_void, n: usize) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { htod(&default_stream()?, dst, src, n, Mode::Sync) }
}

pub(crate) unsafe fn copy_htod_async(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { htod(&stream::target(s)?, dst, src, n, Mode::Async) }
}

pub(crate) unsafe fn copy_dtoh(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { dtoh(&default_stream()?, dst, src, n, Mode::Sync) }
}

pub(crate) unsafe fn copy_dtoh_async(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { dtoh(&stream::target(s)?, dst, src, n, Mode::Async) }
}

pub(crate) unsafe fn copy_dtod(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CuResult {
    let t = default_stream()?;
    copy_1d(
        &t,
        dst,
        src,
        n,
        Some(device_side(dst)),
        Some(device_side(src)),
        Mode::Sync,
    )
}

pub(crate) unsafe fn copy_dtod_async(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    n: usize,
    s: CUstream,
) -> CuResult {
    let t = stream::target(s)?;
    copy_1d(
        &t,
        dst,
        src,
        n,
        Some(device_side(dst)),
        Some(device_side(src)),
        Mode::Async,
    )
}

/// Peer copies: with one device both contexts are on it, so this is a device-to-device copy;
/// the contexts must be valid.
unsafe fn peer(
    t: &Target,
    dst: CUdeviceptr,
    dst_ctx: CUcontext,
    src: CUdeviceptr,
    src_ctx: CUcontext,
    n: usize,
    mode: Mode,
) -> CuResult {
    CONTEXTS.get(dst_ctx)?;
    CONTEXTS.get(src_ctx)?;
    copy_1d(
        t,
        dst,
        src,
        n,
        Some(device_side(dst)),
        Some(device_side(src)),
        mode,
    )
}

pub(crate) unsafe fn copy_peer(
    dst: CUdeviceptr,
    dst_ctx: CUcontext,
    src: CUdeviceptr,
    src_ctx: CUcontext,
    n: usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        peer(
            &default_stream()?,
            dst,
            dst_ctx,
            src,
            src_ctx,
            n,
            Mode::Sync,
        )
    }
}

pub(crate) unsafe fn copy_peer_async(
    dst: CUdeviceptr,
    dst_ctx: CUcontext,
    src: CUdeviceptr,
    src_ctx: CUcontext,
    n: usize,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        peer(
            &stream::target(s)?,
            dst,
            dst_ctx,
            src,
            src_ctx,
            n,
            Mode::Async,
        )
    }
}

// ---- 2D and 3D copies.

/// One side of a 2D/3D copy, from the descriptor.
struct Region {
    memory_type: CUmemorytype,
    host: u64,
    device: u64,
    array: CUarray,
    x: usize,
    y: usize,
    z: usize,
    pitch: usize,
    /// Rows per slice (3D only).
    height: usize,
}

impl Region {
    /// The base pointer and its side, as the memory type says.
    fn base(&self) -> CuResult<(u64, Option<Side>)> {
        use CUmemorytype as M;
        match self.memory_type {
            M::CU_MEMORYTYPE_HOST => Ok((self.host, Some(host_side(self.host)))),
            M::CU_MEMORYTYPE_DEVICE => Ok((self.device, Some(device_side(self.device)))),
            // Unified addressing: the pointer is in the device field and tells its own kind.
            M::CU_MEMORYTYPE_UNIFIED => Ok((self.device, None)),
            // Resolved to their storage by `resolve_array` before this.
            M::CU_MEMORYTYPE_ARRAY => Ok((self.device, Some(Side::Device))),
            _ => Err(INVALID_VALUE),
        }
    }
}

/// A CUDA array side becomes its storage (see `array` for the layout): device memory with the
/// array's row pitch and height. The region must lie inside the array and start on an element
/// ("srcXInBytes must be evenly divisible by the array element size"); otherwise
/// CUDA_ERROR_INVALID_VALUE.
fn resolve_array(r: &Region, width: usize, height: usize, depth: usize) -> CuResult<Region> {
    let a = crate::memory::array::get(r.array).map_err(|_| INVALID_VALUE)?;
    let inside = |start: usize, len: usize, extent: usize| {
        start.checked_add(len).is_some_and(|end| end <= extent)
    };
    if !r.x.is_multiple_of(a.elem)
        || !inside(r.x, width, a.row_bytes())
        || !inside(r.y, height, a.rows())
        || !inside(r.z, depth, a.slices())
    {
        return Err(INVALID_VALUE);
    }
    Ok(Region {
        memory_type: CUmemorytype::CU_MEMORYTYPE_ARRAY,
        host: 0,
        device: a.base,
        array: r.array,
        x: r.x,
        y: r.y,
        z: r.z,
        pitch: a.row_bytes(),
        height: a.rows(),
    })
}

/// Validates a 2D/3D copy and lists its rows; returns the sides.
fn plan(
    src: &Region,
    dst: &Region,
    width: usize,
    height: usize,
    depth: usize,
) -> CuResult<(Vec<Row>, Side, Side)> {
    let is_array = |r: &Region| r.memory_type == CUmemorytype::CU_MEMORYTYPE_ARRAY;
    let (src_storage, dst_storage);
    let src = if is_array(src) {
        src_storage = resolve_array(src, width, height, depth)?;
        &src_storage
    } else {
        src
    };
    let dst = if is_array(dst) {
        dst_storage = resolve_array(dst, width, height, depth)?;
        &dst_storage
    } else {
        dst
    };
    let (sbase, sside) = src.base()?;
    let (dbase, dside) = dst.base()?;
    if width == 0 || height == 0 || depth == 0 {
        return Ok((Vec::new(), Side::Device, Side::Device));
    }
    // Pitches narrower than a row are invalid for more than one row (the driver's rule).
    if (height > 1 || depth > 1) && (src.pitch < src.x + width || dst.pitch < dst.x + width) {
        return Err(INVALID_VALUE);
    }
    if depth > 1 && (src.height < src.y + height || dst.height < dst.y + height) {
        return Err(INVALID_VALUE);
    }
    let offset = |r: &Region, y: usize, z: usize| -> CuResult<u64> {
        let slice = r.pitch.checked_mul(r.height.max(1)).ok_or(INVALID_VALUE)?;
        let off = (r.z + z)
            .checked_mul(slice)
            .and_then(|s| s.checked_add((r.y + y).checked_mul(r.pitch)?))
            .and_then(|s| s.checked_add(r.x))
            .ok_or(INVALID_VALUE)?;
        Ok(off as u64)
    };
    if sbase == 0 || dbase == 0 {
        return Err(INVALID_VALUE);
    }
    let sside = sside.unwrap_or_else(|| Side::of(sbase));
    let dside = dside.unwrap_or_else(|| Side::of(dbase));
    let mut rows = Vec::with_capacity(height * depth);
    for z in 0..depth {
        for y in 0..height {
            let row = Row {
                dst: dbase + offset(dst, y, z)?,
                src: sbase + offset(src, y, z)?,
                len: width,
            };
            check_side(row.dst, width, dside)?;
            check_side(row.src, width, sside)?;
            rows.push(row);
        }
    }
    Ok((rows, dside, sside))
}

fn regions_2d(c: &CUDA_MEMCPY2D) -> (Region, Region) {
    let src = Region {
        memory_type: c.srcMemoryType,
        host: c.srcHost as u64,
        device: c.srcDevice,
        array: c.srcArray,
        x: c.srcXInBytes,
        y: c.srcY,
        z: 0,
        pitch: c.srcPitch,
        height: 0,
    };
    let dst = Region {
        memory_type: c.dstMemoryType,
        host: c.dstHost as u64,
        device: c.dstDevice,
        array: c.dstArray,
        x: c.dstXInBytes,
        y: c.dstY,
        z: 0,
        pitch: c.dstPitch,
        height: 0,
    };
    (src, dst)
}

unsafe fn copy_2d_on(t: &Target, p: *const CUDA_MEMCPY2D, mode: Mode) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUDA_MEMCPY2D.
    let c = unsafe { &*p };
    let (src, dst) = regions_2d(c);
    let (rows, dside, sside) = plan(&src, &dst, c.WidthInBytes, c.Height, 1)?;
    submit_copy(t, || desc_2d(c), rows, dside, sside, mode, false)
}

pub(crate) unsafe fn copy_2d(p: *const CUDA_MEMCPY2D) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy_2d_on(&default_stream()?, p, Mode::Sync) }
}

pub(crate) unsafe fn copy_2d_async(p: *const CUDA_MEMCPY2D, s: CUstream) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy_2d_on(&stream::target(s)?, p, Mode::Async) }
}

unsafe fn copy_3d_on(t: &Target, p: *const CUDA_MEMCPY3D, mode: Mode) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUDA_MEMCPY3D.
    let c = unsafe { &*p };
    // Mipmap levels only apply to arrays; the reserved fields must be zero.
    if !c.reserved0.is_null() || !c.reserved1.is_null() || c.srcLOD != 0 || c.dstLOD != 0 {
        return Err(INVALID_VALUE);
    }
    let (src, dst) = regions_3d(c);
    let (rows, dside, sside) = plan(&src, &dst, c.WidthInBytes, c.Height, c.Depth)?;
    submit_copy(t, || *c, rows, dside, sside, mode, false)
}

/// A 2D copy as the CUDA_MEMCPY3D a memcpy node reports for it.
fn desc_2d(c: &CUDA_MEMCPY2D) -> CUDA_MEMCPY3D {
    CUDA_MEMCPY3D {
        srcXInBytes: c.srcXInBytes,
        srcY: c.srcY,
        srcMemoryType: c.srcMemoryType,
        srcHost: c.srcHost,
        srcDevice: c.srcDevice,
        srcArray: c.srcArray,
        srcPitch: c.srcPitch,
        dstXInBytes: c.dstXInBytes,
        dstY: c.dstY,
        dstMemoryType: c.dstMemoryType,
        dstHost: c.dstHost,
        dstDevice: c.dstDevice,
        dstArray: c.dstArray,
        dstPitch: c.dstPitch,
        WidthInBytes: c.WidthInBytes,
        Height: c.Height,
        Depth: 1,
        ..Default::default()
    }
}

fn regions_3d(c: &CUDA_MEMCPY3D) -> (Region, Region) {
    let src = Region {
        memory_type: c.srcMemoryType,
        host: c.srcHost as u64,
        device: c.srcDevice,
        array: c.srcArray,
        x: c.srcXInBytes,
        y: c.srcY,
        z: c.srcZ,
        pitch: c.srcPitch,
        height: c.srcHeight,
    };
    let dst = Region {
        memory_type: c.dstMemoryType,
        host: c.dstHost as u64,
        device: c.dstDevice,
        array: c.dstArray,
        x: c.dstXInBytes,
        y: c.dstY,
        z: c.dstZ,
        pitch: c.dstPitch,
        height: c.dstHeight,
    };
    (src, dst)
}

pub(crate) unsafe fn copy_3d(p: *const CUDA_MEMCPY3D) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy_3d_on(&default_stream()?, p, Mode::Sync) }
}

pub(crate) unsafe fn copy_3d_async(p: *const CUDA_MEMCPY3D, s: CUstream) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy_3d_on(&stream::target(s)?, p, Mode::Async) }
}

/// A 3D peer copy: with one device both contexts are on it, so this is cuMemcpy3D once the
/// contexts are checked.
unsafe fn copy_3d_peer_on(t: &Target, p: *const CUDA_MEMCPY3D_PEER, mode: Mode) -> CuResult {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUDA_MEMCPY3D_PEER.
    let c = unsafe { &*p };
    CONTEXTS.get(c.srcContext)?;
    CONTEXTS.get(c.dstContext)?;
    let d = CUDA_MEMCPY3D {
        srcXInBytes: c.srcXInBytes,
        srcY: c.srcY,
        srcZ: c.srcZ,
        srcLOD: c.srcLOD,
        srcMemoryType: c.srcMemoryType,
        srcHost: c.srcHost,
        srcDevice: c.srcDevice,
        srcArray: c.srcArray,
        srcPitch: c.srcPitch,
        srcHeight: c.srcHeight,
        dstXInBytes: c.dstXInBytes,
        dstY: c.dstY,
        dstZ: c.dstZ,
        dstLOD: c.dstLOD,
        dstMemoryType: c.dstMemoryType,
        dstHost: c.dstHost,
        dstDevice: c.dstDevice,
        dstArray: c.dstArray,
        dstPitch: c.dstPitch,
        dstHeight: c.dstHeight,
        WidthInBytes: c.WidthInBytes,
        Height: c.Height,
        Depth: c.Depth,
        ..Default::default()
    };
    // SAFETY: `d` is a local descriptor.
    unsafe { copy_3d_on(t, &d, mode) }
}

pub(crate) unsafe fn copy_3d_peer(p: *const CUDA_MEMCPY3D_PEER) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy_3d_peer_on(&default_stream()?, p, Mode::Sync) }
}

pub(crate) unsafe fn copy_3d_peer_async(p: *const CUDA_MEMCPY3D_PEER, s: CUstream) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { copy_3d_peer_on(&stream::target(s)?, p, Mode::Async) }
}

// ---- 1D copies from and to CUDA arrays: the array's storage as bytes from offset 0 (the
// layout is described in `array`).

/// The device address of `[offset, offset + n)` of an array's storage; the range must lie in it.
fn array_bytes(a: CUarray, offset: usize, n: usize) -> CuResult<u64> {
    let array = crate::memory::array::get(a)?;
    if offset.checked_add(n).is_none_or(|end| end > array.size) {
        return Err(INVALID_VALUE);
    }
    Ok(array.base + offset as u64)
}

pub(crate) unsafe fn copy_htoa(
    dst: CUarray,
    offset: usize,
    src: *const c_void,
    n: usize,
) -> CuResult {
    let t = default_stream()?;
    let d = array_bytes(dst, offset, n)?;
    let src = src as u64;
    copy_1d(
        &t,
        d,
        src,
        n,
        Some(Side::Device),
        Some(host_side(src)),
        Mode::Sync,
    )
}

pub(crate) unsafe fn copy_htoa_async(
    dst: CUarray,
    offset: usize,
    src: *const c_void,
    n: usize,
    s: CUstream,
) -> CuResult {
    let t = stream::target(s)?;
    let d = array_bytes(dst, offset, n)?;
    let src = src as u64;
    copy_1d(
        &t,
        d,
        src,
        n,
        Some(Side::Device),
        Some(host_side(src)),
        Mode::Async,
    )
}

pub(crate) unsafe fn copy_atoh(
    dst: *mut c_void,
    src: CUarray,
    offset: usize,
    n: usize,
) -> CuResult {
    let t = default_stream()?;
    let s = array_bytes(src, offset, n)?;
    let dst = dst as u64;
    copy_1d(
        &t,
        dst,
        s,
        n,
        Some(host_side(dst)),
        Some(Side::Device),
        Mode::Sync,
    )
}

pub(crate) unsafe fn copy_atoh_async(
    dst: *mut c_void,
    src: CUarray,
    offset: usize,
    n: usize,
    st: CUstream,
) -> CuResult {
    let t = stream::target(st)?;
    let s = array_bytes(src, offset, n)?;
    let dst = dst as u64;
    copy_1d(
        &t,
        dst,
        s,
        n,
        Some(host_side(dst)),
        Some(Side::Device),
        Mode::Async,
    )
}

pub(crate) unsafe fn copy_dtoa(
    dst: CUarray,
    offset: usize,
    src: CUdeviceptr,
    n: usize,
) -> CuResult {
    let t = default_stream()?;
    let d = array_bytes(dst, offset, n)?;
    copy_1d(
        &t,
        d,
        src,
        n,
        Some(Side::Device),
        Some(device_side(src)),
        Mode::Sync,
    )
}

pub(crate) unsafe fn copy_atod(
    dst: CUdeviceptr,
    src: CUarray,
    offset: usize,
    n: usize,
) -> CuResult {
    let t = default_stream()?;
    let s = array_bytes(src, offset, n)?;
    copy_1d(
        &t,
        dst,
        s,
        n,
        Some(device_side(dst)),
        Some(Side::Device),
        Mode::Sync,
    )
}

pub(crate) unsafe fn copy_atoa(
    dst: CUarray,
    dst_offset: usize,
    src: CUarray,
    src_offset: usize,
    n: usize,
) -> CuResult {
    let t = default_stream()?;
    let d = array_bytes(dst, dst_offset, n)?;
    let s = array_bytes(src, src_offset, n)?;
    copy_1d(
        &t,
        d,
        s,
        n,
        Some(Side::Device),
        Some(Side::Device),
        Mode::Sync,
    )
}

// ---- Memsets.

/// A validated memset, ready to run: rows of `width` elements of `size` bytes.
pub(crate) struct FillPlan {
    rows: Vec<u64>,
    pattern: u32,
    size: usize,
    width: usize,
    side: Side,
}

/// Validates a memset of `height` rows of `width` elements of `size` bytes, `pitch` bytes
/// apart, with `pattern` (little-endian).
fn plan_fill(
    dst: CUdeviceptr,
    pitch: usize,
    pattern: u32,
    size: usize,
    width: usize,
    height: usize,
) -> CuResult<FillPlan> {
    if dst == 0 || !dst.is_multiple_of(size as u64) {
        return Err(INVALID_VALUE);
    }
    let row = width.checked_mul(size).ok_or(INVALID_VALUE)?;
    if height > 1 && (pitch < row || !pitch.is_multiple_of(size)) {
        return Err(INVALID_VALUE);
    }
    let side = Side::of(dst);
    let mut rows = Vec::with_capacity(height);
    for y in 0..height {
        let start = (y as u64)
            .checked_mul(pitch as u64)
            .and_then(|o| dst.checked_add(o))
            .ok_or(INVALID_VALUE)?;
        check_side(start, row, side)?;
        rows.push(start);
    }
    Ok(FillPlan {
        rows,
        pattern,
        size,
        width,
        side,
    })
}

/// Validates a memset node's parameters as cuMemsetD2D* does.
pub(crate) fn plan_memset(p: &CUDA_MEMSET_NODE_PARAMS) -> CuResult<FillPlan> {
    if !matches!(p.elementSize, 1 | 2 | 4) || p.width == 0 || p.height == 0 {
        return Err(INVALID_VALUE);
    }
    plan_fill(
        p.dst,
        p.pitch,
        p.value,
        p.elementSize as usize,
        p.width,
        p.height,
    )
}

/// Queues a planned memset.
pub(crate) fn submit_fill(t: &Target, p: FillPlan) -> crate::context::Dep {
    stream::submit_unless_faulted(t, move |_| p.run())
}

impl FillPlan {
    /// Bytes the memset sets.
    fn bytes(&self) -> usize {
        self.rows.len() * self.width * self.size
    }

    /// Fills now, on the calling thread (a stream worker).
    pub(crate) fn run(&self) {
        crate::stats::set(self.bytes());
        for &start in &self.rows {
            // SAFETY: each row was validated (device allocation, or host memory the program
            // owns) and is aligned to `size`.
            unsafe {
                match self.size {
                    1 => std::ptr::write_bytes(start as *mut u8, self.pattern as u8, self.width),
                    2 => std::slice::from_raw_parts_mut(start as *mut u16, self.width)
                        .fill(self.pattern as u16),
                    _ => std::slice::from_raw_parts_mut(start as *mut u32, self.width)
                        .fill(self.pattern),
                }
            }
        }
    }
}

/// A memset call: validated, captured or queued, and waited for as the rules above say.
#[allow(clippy::too_many_arguments)] // the 2D memset's own parameters plus stream and mode
fn fill(
    t: &Target,
    dst: CUdeviceptr,
    pitch: usize,
    pattern: u32,
    size: usize,
    width: usize,
    height: usize,
    mode: Mode,
) -> CuResult {
    if width == 0 || height == 0 {
        return Ok(());
    }
    let plan = plan_fill(dst, pitch, pattern, size, width, height)?;
    let node = || {
        crate::work::Kind::Memset(CUDA_MEMSET_NODE_PARAMS {
            dst,
            pitch,
            value: pattern,
            elementSize: size as u32,
            width,
            height,
        })
    };
    if crate::stream::capture::intercept(t, node)? {
        return Ok(());
    }
    let side = plan.side;
    let wait = (side != Side::Device && (mode == Mode::Sync || side == Side::Pageable))
        || (mode == Mode::Sync && sync_memops(dst));
    // As for copies (`submit_copy`): what the caller waits for, or a small memset, runs here.
    if wait || plan.bytes() <= bulk::INLINE_UP_TO {
        if let Some(r) = run_if_idle(t, wait, || plan.run()) {
            return r;
        }
    }
    let dep = submit_fill(t, plan);
    if wait {
        stream::wait(t, &dep)
    } else {
        Ok(())
    }
}

macro_rules! memsets {
    ($( $name:ident $name_async:ident $name2:ident $name2_async:ident $ty:ty, $size:literal; )*) => {
        $(
            pub(crate) unsafe fn $name(dst: CUdeviceptr, value: $ty, n: usize) -> CuResult {
                fill(&default_stream()?, dst, 0, value.into(), $size, n, 1, Mode::Sync)
            }
            pub(crate) unsafe fn $name_async(
                dst: CUdeviceptr,
                value: $ty,
                n: usize,
                s: CUstream,
            ) -> CuResult {
                fill(&stream::target(s)?, dst, 0, value.into(), $size, n, 1, Mode::Async)
            }
            pub(crate) unsafe fn $name2(
                dst: CUdeviceptr,
                pitch: usize,
                value: $ty,
                width: usize,
                height: usize,
            ) -> CuResult {
                fill(&default_stream()?, dst, pitch, value.into(), $size, width, height, Mode::Sync)
            }
            pub(crate) unsafe fn $name2_async(
                dst: CUdeviceptr,
                pitch: usize,
                value: $ty,
                width: usize,
                height: usize,
                s: CUstream,
            ) -> CuResult {
                fill(&stream::target(s)?, dst, pitch, value.into(), $size, width, height, Mode::Async)
            }
        )*
    };
}

memsets! {
    set_d8 set_d8_async set_d2d8 set_d2d8_async c_uchar, 1;
    set_d16 set_d16_async set_d2d16 set_d2d16_async c_ushort, 2;
    set_d32 set_d32_async set_d2d32 set_d2d32_async c_uint, 4;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(pitch: usize, height: usize, x: usize, y: usize, z: usize, p: u64) -> Region {
        Region {
            memory_type: CUmemorytype::CU_MEMORYTYPE_HOST,
            host: p,
            device: 0,
            array: std::ptr::null_mut(),
            x,
            y,
            z,
            pitch,
            height,
        }
    }

    #[test]
    fn plans_rows_of_a_3d_copy() {
        // Host to host so no device memory is needed: 2 slices of 3 rows of 4 bytes. The host
        // ranges must be mapped (a copy checks them), so they are real buffers.
        let (sbuf, dbuf) = (vec![0u8; 3 * 80], vec![0u8; 2 * 24]);
        let (sp, dp) = (sbuf.as_ptr() as u64, dbuf.as_ptr() as u64);
        let src = region(16, 5, 1, 1, 1, sp);
        let dst = region(8, 3, 0, 0, 0, dp);
        let (rows, d, s) = plan(&src, &dst, 4, 3, 2).unwrap();
        assert_eq!((d, s), (Side::Pageable, Side::Pageable));
        assert_eq!(rows.len(), 6);
        // Source: slice (1 + 0) * 80 + row (1 + 0) * 16 + 1.
        assert_eq!(
            rows[0],
            Row {
                dst: dp,
                src: sp + 80 + 16 + 1,
                len: 4
            }
        );
        // Last: slice 2 * 80, row 3 * 16, x 1; destination slice 1 * 24, row 2 * 8.
        assert_eq!(
            rows[5],
            Row {
                dst: dp + 24 + 16,
                src: sp + 160 + 48 + 1,
                len: 4
            }
        );
        // A pitch narrower than the row is invalid.
        let narrow = region(3, 5, 0, 0, 0, sp);
        assert_eq!(plan(&narrow, &dst, 4, 3, 1).err(), Some(INVALID_VALUE));
    }
}
