//! Dynamic parallelism: the device runtime's functions (`__cudaCDP2*`, CUDA 12 semantics) as
//! system calls, and the grids they launch.
//!
//! A launch from device code is recorded, not run: the child grids of a grid, and the copies
//! and memsets its threads queue, run after the grid's last CTA, in the order the CTAs (by
//! index) and, within a CTA, its threads queued them; each child's own children run before
//! the next of its siblings; tail launches (`cudaStreamTailLaunch`) run after all the other
//! work of their grid. That is one of the schedules CUDA 12 allows: a parent cannot wait for
//! its children (device-side `cudaDeviceSynchronize` is gone), work in one stream runs in
//! order, a child sees every write its parent made before the launch, the host sees the launch
//! complete when the whole tree has, and a tail launch starts once its parent and the rest of
//! the parent's work are done. A parent that spins on a flag its child sets waits forever
//! here (as it may on a GPU, which guarantees children no concurrency either); the kernel
//! time limit (`CUDA_SHIM_KERNEL_TIMEOUT`) ends it. A fault in any grid of the tree fails the
//! host's launch with that fault, and its report names the child kernel.
//!
//! Device code sees the device runtime's own codes (`cudaError_t`) and the calling thread's
//! last error (`cudaGetLastError`).

use super::cta::Fault;
use super::sys::{self, Lane};
use crate::ir::{DevrtCall, MSpace, SysArg};
use crate::{mem, ExecError, ExecErrorKind, Kernel, LaunchConfig};
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

// The device runtime's codes (`cudaError_t`, driver_types.h).
const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const MEMORY_ALLOCATION: u32 = 2;
const INVALID_CONFIGURATION: u32 = 9;
const INVALID_PITCH_VALUE: u32 = 12;
const INVALID_MEMCPY_DIRECTION: u32 = 21;
const LAUNCH_MAX_DEPTH_EXCEEDED: u32 = 65;
const LAUNCH_PENDING_COUNT_EXCEEDED: u32 = 69;
const INVALID_DEVICE_FUNCTION: u32 = 98;
const INVALID_DEVICE: u32 = 101;
const UNSUPPORTED_LIMIT: u32 = 215;
const INVALID_RESOURCE_HANDLE: u32 = 400;
const NOT_SUPPORTED: u32 = 801;

/// `cudaDevAttrMaxSharedMemoryPerBlockOptin`.
const MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: i32 = 97;

/// `cudaDevAttrMultiProcessorCount`.
const MULTIPROCESSOR_COUNT: i32 = 16;

/// Launches a tree may hold queued at once, whatever the pending-launch limit says (see
/// [`launch`]): this bound only keeps a runaway program from exhausting host memory. An H200
/// accepted 5,000 launches from one thread of one grid
/// (scripts/ground-truth/results/cdp-h200.txt), which may all still be queued here.
const MAX_PENDING: usize = 1 << 20;

// Stream handles with a meaning of their own (cuda_device_runtime_api.h, driver_types.h).
const STREAM_NULL: u64 = 0;
const STREAM_LEGACY: u64 = 1;
const STREAM_PER_THREAD: u64 = 2;
const STREAM_TAIL_LAUNCH: u64 = 3;
const STREAM_FIRE_AND_FORGET: u64 = 4;

/// Handles of device-created streams and events: a non-canonical window, never an address.
const HANDLE_BASE: u64 = 0x5000_0000_0000_0000;

/// What the device runtime asks of the driver: device attributes, the device count and the
/// version, answered as the host's calls answer them ([`set_device_info`]).
#[derive(Clone, Copy)]
pub struct DeviceInfo {
    /// `(attribute, device)` to the value of `cuDeviceGetAttribute`, if it has one.
    pub attribute: fn(i32, i32) -> Option<i32>,
    pub device_count: fn() -> i32,
    /// What `cudaRuntimeGetVersion` answers on the device.
    pub version: i32,
}

static DEVICE_INFO: Mutex<Option<DeviceInfo>> = Mutex::new(None);
/// `cudaLimitDevRuntimePendingLaunchCount` as last set (2048 by default, as an H200 reads it
/// on the device, cdp-h200.txt).
static PENDING_COUNT: AtomicU64 = AtomicU64::new(2048);

pub fn set_device_info(info: DeviceInfo) {
    *DEVICE_INFO.lock() = Some(info);
}

/// Records `cudaLimitDevRuntimePendingLaunchCount`, which bounds the nesting of device
/// launches (see [`launch`]) and which `cudaDeviceGetLimit` answers in device code.
/// (`cudaLimitDevRuntimeSyncDepth` only served device-side `cudaDeviceSynchronize`, gone since
/// CUDA 12: device code cannot read it.)
pub fn set_limits(pending_count: u64) {
    PENDING_COUNT.store(pending_count, Ordering::Relaxed);
}

/// Work a grid's threads queued, to run after it.
pub(crate) enum Work {
    Launch {
        kernel: Arc<Kernel>,
        cfg: LaunchConfig,
        params: Vec<u8>,
        /// The child's nesting level.
        depth: u32,
    },
    /// A 2-D copy or set (`rows` of `width` bytes); a plain one is one row.
    Copy {
        dst: u64,
        dpitch: u64,
        src: u64,
        spitch: u64,
        width: u64,
        rows: u64,
    },
    Set {
        dst: u64,
        pitch: u64,
        value: u8,
        width: u64,
        rows: u64,
    },
}

/// The device runtime's state for one grid.
pub(crate) struct Grid {
    /// The grid's kernel: a launch names a kernel of its module.
    pub kernel: Arc<Kernel>,
    /// The grid's nesting level (1: launched by the host).
    pub depth: u32,
    /// The device it runs on.
    pub device: u32,
    state: Mutex<State>,
}

/// A parameter buffer handed out and not launched yet: for the V2 call, the launch it is for.
struct Prepared {
    size: u64,
    launch: Option<(Arc<Kernel>, LaunchConfig)>,
}

#[derive(Default)]
struct State {
    /// (CTA index, order of queueing, tail launch, work).
    queued: Vec<(u64, u64, bool, Work)>,
    seq: u64,
    buffers: HashMap<u64, Prepared>,
    /// Each thread's last error, by (CTA index, thread index).
    errors: HashMap<(u64, u32), u32>,
    streams: HashSet<u64>,
    events: HashSet<u64>,
}

static NEXT_HANDLE: AtomicU64 = AtomicU64::new(HANDLE_BASE);

/// Queued launches of every grid not finished yet, against [`MAX_PENDING`].
static PENDING: AtomicU64 = AtomicU64::new(0);

impl Grid {
    pub fn new(kernel: Arc<Kernel>, depth: u32, device: u32) -> Grid {
        Grid {
            kernel,
            depth,
            device,
            state: Mutex::default(),
        }
    }

    /// The work queued, in the order it runs: the other work, then the tail launches, each by
    /// CTA index and then in queueing order. Frees parameter buffers no launch took.
    pub fn finish(&self) -> Vec<Work> {
        let mut st = self.state.lock();
        for (&buf, _) in st.buffers.iter() {
            let _ = mem::free(buf);
        }
        st.buffers.clear();
        let mut q = std::mem::take(&mut st.queued);
        q.sort_by_key(|&(cta, seq, tail, _)| (tail, cta, seq));
        let launches = q
            .iter()
            .filter(|w| matches!(w.3, Work::Launch { .. }))
            .count();
        PENDING.fetch_sub(launches as u64, Ordering::Relaxed);
        q.into_iter().map(|(.., w)| w).collect()
    }
}

impl Drop for Grid {
    fn drop(&mut self) {
        // A grid that failed never hands its work on.
        if !self.state.get_mut().queued.is_empty() || !self.state.get_mut().buffers.is_empty() {
            drop(self.finish());
        }
    }
}

/// Runs one queued copy or set. Both ranges must be device memory, as for a copy in a kernel.
pub(crate) fn run_memory_work(w: &Work, parent: &str) -> Result<(), ExecError> {
    let bad = |what: &str, addr: u64, len: u64| ExecError {
        kind: ExecErrorKind::IllegalAddress,
        message: format!(
            "device-side {what} queued by kernel '{parent}': {len} bytes at {addr:#x} lie outside \
             every allocation"
        ),
        access: None,
    };
    match *w {
        Work::Copy {
            dst,
            dpitch,
            src,
            spitch,
            width,
            rows,
        } => {
            for r in 0..rows {
                let (d, s) = (dst + r * dpitch, src + r * spitch);
                if !mem::contains(s, width) {
                    return Err(bad("cudaMemcpyAsync", s, width));
                }
                if !mem::contains(d, width) {
                    return Err(bad("cudaMemcpyAsync", d, width));
                }
                // SAFETY: both ranges lie in live device allocations (checked); `copy` allows
                // overlap, which CUDA leaves undefined.
                unsafe { std::ptr::copy(s as *const u8, d as *mut u8, width as usize) };
            }
        }
        Work::Set {
            dst,
            pitch,
            value,
            width,
            rows,
        } => {
            for r in 0..rows {
                let d = dst + r * pitch;
                if !mem::contains(d, width) {
                    return Err(bad("cudaMemsetAsync", d, width));
                }
                // SAFETY: the range lies in a live device allocation (checked).
                unsafe { std::ptr::write_bytes(d as *mut u8, value, width as usize) };
            }
        }
        Work::Launch { .. } => {}
    }
    Ok(())
}

/// One lane's call of a device-runtime function: the value it returns. `a` holds the scalar
/// value of each argument; `args` gives the structures passed by value (`dim3`).
#[inline(never)]
pub(super) fn call(
    ln: &mut Lane,
    regs: &[u64],
    d: DevrtCall,
    args: &[SysArg],
    a: &[u64; 8],
) -> Result<u64, Fault> {
    let cta = cta_index(ln);
    let tid = thread_index(ln);
    let grid = ln.cta.devrt;
    use DevrtCall as D;
    // Calls returning a pointer answer 0 on failure and set the thread's last error.
    let code = match d {
        D::GetParameterBuffer => {
            return Ok(prepare(grid, cta, tid, a[1], None));
        }
        D::GetParameterBufferV2 => {
            let g = dim3(&ln.arg_bytes(regs, args[1])?);
            let b = dim3(&ln.arg_bytes(regs, args[2])?);
            return Ok(match launch_of(grid, a[0], g, b, a[3] as u32) {
                Ok((k, cfg)) => {
                    let size = k.param_bytes as u64;
                    prepare(grid, cta, tid, size, Some((k, cfg)))
                }
                Err(e) => {
                    set_error(grid, cta, tid, e);
                    0
                }
            });
        }
        D::LaunchDeviceV2 => launch(grid, cta, a[0], None, a[1]),
        D::LaunchDevice => {
            let g = dim3(&ln.arg_bytes(regs, args[2])?);
            let b = dim3(&ln.arg_bytes(regs, args[3])?);
            match launch_of(grid, a[0], g, b, a[4] as u32) {
                Ok(l) => launch(grid, cta, a[1], Some(l), a[5]),
                Err(e) => e,
            }
        }
        D::Malloc => {
            let p = sys::malloc(a[1]);
            if p == 0 && a[1] != 0 {
                MEMORY_ALLOCATION
            } else {
                ln.write(MSpace::Generic, a[0], 8, p)?;
                SUCCESS
            }
        }
        D::Free => {
            sys::free(a[0]);
            SUCCESS
        }
        D::GetLastError => {
            return Ok(grid.state.lock().errors.remove(&(cta, tid)).unwrap_or(0) as u64);
        }
        D::PeekAtLastError => {
            return Ok(grid
                .state
                .lock()
                .errors
                .get(&(cta, tid))
                .copied()
                .unwrap_or(0) as u64);
        }
        D::GetErrorString => return Ok(error_text(a[0] as u32, false)),
        D::GetErrorName => return Ok(error_text(a[0] as u32, true)),
        D::GetDeviceCount => {
            let n = DEVICE_INFO.lock().map_or(1, |i| (i.device_count)());
            ln.write(MSpace::Generic, a[0], 4, n as u32 as u64)?;
            SUCCESS
        }
        D::GetDevice => {
            ln.write(MSpace::Generic, a[0], 4, grid.device as u64)?;
            SUCCESS
        }
        D::DeviceGetAttribute => {
            let info = *DEVICE_INFO.lock();
            let count = info.map_or(1, |i| (i.device_count)());
            let (attr, dev) = (a[1] as i32, a[2] as i32);
            if dev < 0 || dev >= count {
                INVALID_DEVICE
            } else {
                match info.and_then(|i| (i.attribute)(attr, dev)) {
                    Some(v) => {
                        ln.write(MSpace::Generic, a[0], 4, v as u32 as u64)?;
                        SUCCESS
                    }
                    None => INVALID_VALUE,
                }
            }
        }
        D::DeviceGetLimit => {
            // What an H200 read on the device (cdp-h200.txt): the stack, heap and pending-launch
            // limits as the host set them, the printf FIFO as the device holds it
            // ([`device_printf_fifo`]), and cudaLimitDevRuntimeSyncDepth refused with
            // cudaErrorUnsupportedLimit (the one code the five calls ORed to, 215), with ~0
            // written (the value it read back).
            let v = match a[1] as u32 {
                0 => Ok(super::stack_size() as u64),
                1 => Ok(device_printf_fifo(grid.device)),
                2 => Ok(sys::heap_size() as u64),
                3 => Err(Some(u64::MAX)),
                4 => Ok(PENDING_COUNT.load(Ordering::Relaxed)),
                _ => Err(None),
            };
            match v {
                Ok(v) => {
                    ln.write(MSpace::Generic, a[0], 8, v)?;
                    SUCCESS
                }
                Err(written) => {
                    if let Some(w) = written {
                        ln.write(MSpace::Generic, a[0], 8, w)?;
                    }
                    UNSUPPORTED_LIMIT
                }
            }
        }
        D::DeviceGetCacheConfig => {
            // cudaFuncCachePreferNone: the cache configuration is only a preference.
            ln.write(MSpace::Generic, a[0], 4, 0)?;
            SUCCESS
        }
        D::DeviceGetSharedMemConfig => {
            // cudaSharedMemBankSizeFourByte.
            ln.write(MSpace::Generic, a[0], 4, 1)?;
            SUCCESS
        }
        D::StreamCreateWithFlags => {
            // The documentation asks for cudaStreamNonBlocking, but an H200 also created a
            // stream with flags 0 (cdp-h200.txt); a device stream never synchronises with the
            // NULL stream either way. Other flags are refused (not measured).
            if a[1] > 1 {
                INVALID_VALUE
            } else {
                new_handle(ln, a[0], |st| &mut st.streams)?
            }
        }
        D::StreamDestroy => {
            if grid.state.lock().streams.remove(&a[0]) {
                SUCCESS
            } else {
                INVALID_RESOURCE_HANDLE
            }
        }
        D::StreamWaitEvent => {
            // Queued work runs in order, so whatever an event recorded is done by then.
            let st = grid.state.lock();
            if !st.events.contains(&a[1]) || stream_kind(&st, a[0]).is_none() {
                INVALID_RESOURCE_HANDLE
            } else {
                SUCCESS
            }
        }
        D::EventCreateWithFlags => {
            // Device events carry no timing: cudaEventDisableTiming (2) is required; an H200
            // refused flags 0 with cudaErrorInvalidValue and took DisableTiming|BlockingSync
            // (cdp-h200.txt). Other flags are refused (not measured).
            if a[1] & 2 == 0 || a[1] & !3 != 0 {
                INVALID_VALUE
            } else {
                new_handle(ln, a[0], |st| &mut st.events)?
            }
        }
        D::EventRecord | D::EventRecordWithFlags => {
            let st = grid.state.lock();
            if !st.events.contains(&a[0]) || stream_kind(&st, a[1]).is_none() {
                INVALID_RESOURCE_HANDLE
            } else {
                SUCCESS
            }
        }
        D::EventDestroy => {
            if grid.state.lock().events.remove(&a[0]) {
                SUCCESS
            } else {
                INVALID_RESOURCE_HANDLE
            }
        }
        D::MemcpyAsync => {
            // Device code copies device memory only: cudaMemcpyDeviceToDevice or Default.
            if !matches!(a[3], 3 | 4) {
                INVALID_MEMCPY_DIRECTION
            } else {
                let w = Work::Copy {
                    dst: a[0],
                    dpitch: 0,
                    src: a[1],
                    spitch: 0,
                    width: a[2],
                    rows: 1,
                };
                queue(grid, cta, a[4], w)
            }
        }
        D::Memcpy2DAsync => {
            let (dst, dpitch, src, spitch, width, height) = (a[0], a[1], a[2], a[3], a[4], a[5]);
            if !matches!(a[6], 3 | 4) {
                INVALID_MEMCPY_DIRECTION
            } else if width > dpitch || width > spitch {
                INVALID_PITCH_VALUE
            } else {
                let w = Work::Copy {
                    dst,
                    dpitch,
                    src,
                    spitch,
                    width,
                    rows: height,
                };
                queue(grid, cta, a[7], w)
            }
        }
        D::MemsetAsync => {
            let w = Work::Set {
                dst: a[0],
                pitch: 0,
                value: a[1] as u8,
                width: a[2],
                rows: 1,
            };
            queue(grid, cta, a[3], w)
        }
        D::Memset2DAsync => {
            if a[3] > a[1] {
                INVALID_PITCH_VALUE
            } else {
                let w = Work::Set {
                    dst: a[0],
                    pitch: a[1],
                    value: a[2] as u8,
                    width: a[3],
                    rows: a[4],
                };
                queue(grid, cta, a[5], w)
            }
        }
        D::RuntimeGetVersion => {
            let v = DEVICE_INFO.lock().map_or(0, |i| i.version);
            ln.write(MSpace::Generic, a[0], 4, v as u32 as u64)?;
            SUCCESS
        }
        // Not implemented: the 3-D copies and sets, a kernel's attributes and the occupancy
        // calculator (both need the driver's tables). They answer cudaErrorNotSupported.
        D::Memcpy3DAsync
        | D::Memset3DAsync
        | D::FuncGetAttributes
        | D::OccupancyMaxActiveBlocksPerMultiprocessor
        | D::OccupancyMaxActiveBlocksPerMultiprocessorWithFlags => NOT_SUPPORTED,
    };
    set_error(grid, cta, tid, code);
    Ok(code as u64)
}

/// A new stream or event handle, written to `out` and kept in the set `live` picks.
fn new_handle(
    ln: &mut Lane,
    out: u64,
    live: impl FnOnce(&mut State) -> &mut HashSet<u64>,
) -> Result<u32, Fault> {
    let h = NEXT_HANDLE.fetch_add(16, Ordering::Relaxed);
    ln.write(MSpace::Generic, out, 8, h)?;
    live(&mut ln.cta.devrt.state.lock()).insert(h);
    Ok(SUCCESS)
}

fn cta_index(ln: &Lane) -> u64 {
    let (c, n) = (ln.cta.ctaid, ln.cta.nctaid);
    c[0] as u64 + n[0] as u64 * (c[1] as u64 + n[1] as u64 * c[2] as u64)
}

fn thread_index(ln: &Lane) -> u32 {
    let t = ln.cta.tid_pub(ln.warp.id, ln.lane as u32);
    let n = ln.cta.ntid;
    t[0] + n[0] * (t[1] + n[1] * t[2])
}

fn set_error(grid: &Grid, cta: u64, tid: u32, code: u32) {
    if code != SUCCESS {
        grid.state.lock().errors.insert((cta, tid), code);
    }
}

fn dim3(b: &[u8]) -> [u32; 3] {
    let w = |k: usize| {
        b.get(4 * k..4 * k + 4)
            .map_or(1, |s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
    };
    [w(0), w(1), w(2)]
}

/// The kernel `func` names and the launch's configuration, or the code refusing it.
fn launch_of(
    grid: &Grid,
    func: u64,
    g: [u32; 3],
    b: [u32; 3],
    shared: u32,
) -> Result<(Arc<Kernel>, LaunchConfig), u32> {
    let kernel = grid.kernel.sibling(func).ok_or(INVALID_DEVICE_FUNCTION)?;
    let threads = b.iter().map(|&x| x as u64).product::<u64>();
    let max_threads = match kernel.max_threads_per_block {
        0 => 1024,
        n => n.min(1024) as u64,
    };
    if g.contains(&0)
        || b.contains(&0)
        || g[0] > i32::MAX as u32
        || g[1] > 65535
        || g[2] > 65535
        || b[0] > 1024
        || b[1] > 1024
        || b[2] > 64
        || threads > max_threads
    {
        return Err(INVALID_CONFIGURATION);
    }
    // Shared memory past the device's opt-in limit per block is a bad configuration on the
    // device: an H200 answered 1 MiB of dynamic shared memory with
    // cudaErrorInvalidConfiguration (cdp-h200.txt; the host's launch says cudaErrorInvalidValue).
    // The kernel's own dynamic limit (cudaFuncAttributeMaxDynamicSharedMemorySize) is the
    // driver's, not checked here.
    let optin = (*DEVICE_INFO.lock())
        .and_then(|i| (i.attribute)(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, grid.device as i32));
    if let Some(max) = optin {
        if shared as u64 + kernel.static_shared_bytes as u64 > max as u64 {
            return Err(INVALID_CONFIGURATION);
        }
    }
    let cfg = LaunchConfig {
        grid: g,
        block: b,
        dynamic_shared_bytes: shared,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let cfg = crate::cluster_shape(&kernel, &cfg).map_err(|_| INVALID_CONFIGURATION)?;
    Ok((kernel, cfg))
}

/// A parameter buffer of `size` bytes (0 when device memory is exhausted).
fn prepare(
    grid: &Grid,
    cta: u64,
    tid: u32,
    size: u64,
    launch: Option<(Arc<Kernel>, LaunchConfig)>,
) -> u64 {
    let size = size.max(8);
    match mem::alloc(size) {
        Ok(p) => {
            grid.state
                .lock()
                .buffers
                .insert(p, Prepared { size, launch });
            p
        }
        Err(_) => {
            set_error(grid, cta, tid, MEMORY_ALLOCATION);
            0
        }
    }
}

/// Whether `stream` is a tail-launch stream (`Some(true)`), another valid one (`Some(false)`),
/// or no stream of this grid (`None`).
fn stream_kind(st: &State, stream: u64) -> Option<bool> {
    match stream {
        STREAM_TAIL_LAUNCH => Some(true),
        STREAM_NULL | STREAM_LEGACY | STREAM_PER_THREAD | STREAM_FIRE_AND_FORGET => Some(false),
        h if st.streams.contains(&h) => Some(false),
        _ => None,
    }
}

/// Launches the parameter buffer `buf` (filled by the caller) into `stream`.
fn launch(
    grid: &Grid,
    cta: u64,
    buf: u64,
    config: Option<(Arc<Kernel>, LaunchConfig)>,
    stream: u64,
) -> u32 {
    let mut st = grid.state.lock();
    // A stream this grid did not create (one the host created, passed in) is an invalid value
    // for a launch: an H200's answer (cdp-h200.txt).
    let Some(tail) = stream_kind(&st, stream) else {
        return INVALID_VALUE;
    };
    let Some(prepared) = st.buffers.get(&buf) else {
        return INVALID_VALUE;
    };
    let Some((kernel, cfg)) = config.or_else(|| prepared.launch.clone()) else {
        return INVALID_VALUE;
    };
    // A grid is outstanding from its launch until it is known complete, and under CUDA 12 a
    // parent completes only after its children: a grid at nesting level `depth` (the host's
    // grid being level 1) has depth - 1 device-launched grids outstanding on any schedule,
    // itself included, and its launch would make `depth`. Past
    // cudaLimitDevRuntimePendingLaunchCount that launch fails with
    // cudaErrorLaunchPendingCountExceeded; there is no other depth limit. An H200 nested 2,049
    // levels under the default 2,048 and failed there with that code, not at the Programming
    // Guide's 24 levels (cdp-h200.txt). Launches that could have completed on a GPU (siblings
    // queued by one grid, which run only after it here) are not counted, so a grid may queue
    // many more: the H200 took 5,000 from one thread.
    if grid.depth as u64 > PENDING_COUNT.load(Ordering::Relaxed) {
        return LAUNCH_PENDING_COUNT_EXCEEDED;
    }
    if PENDING.load(Ordering::Relaxed) >= MAX_PENDING as u64 {
        return LAUNCH_PENDING_COUNT_EXCEEDED;
    }
    let size = prepared.size;
    st.buffers.remove(&buf);
    // A buffer from cudaGetParameterBuffer may be smaller than the kernel's parameters: the
    // rest reads as zeros.
    let n = (kernel.param_bytes as u64).min(size) as usize;
    // SAFETY: `buf` is a live allocation of `size` bytes that this grid handed out (it was in
    // `buffers`), and n <= size.
    let mut params = unsafe { std::slice::from_raw_parts(buf as *const u8, n) }.to_vec();
    params.resize(kernel.param_bytes, 0);
    let _ = mem::free(buf);
    PENDING.fetch_add(1, Ordering::Relaxed);
    let depth = grid.depth + 1;
    let seq = st.seq;
    st.seq += 1;
    st.queued.push((
        cta,
        seq,
        tail,
        Work::Launch {
            kernel,
            cfg,
            params,
            depth,
        },
    ));
    SUCCESS
}

/// Queues a copy or set into `stream`.
fn queue(grid: &Grid, cta: u64, stream: u64, w: Work) -> u32 {
    let mut st = grid.state.lock();
    let Some(tail) = stream_kind(&st, stream) else {
        return INVALID_RESOURCE_HANDLE;
    };
    let seq = st.seq;
    st.seq += 1;
    st.queued.push((cta, seq, tail, w));
    SUCCESS
}

/// The printf FIFO as device code reads it: at least 64 KiB per multiprocessor, else the
/// host's size. An H200 (132 multiprocessors) read 8,650,752 = 132 x 64 KiB on the device under
/// the default 1 MiB and exactly 16,777,216 under 16 MiB (cdp-h200.txt): a rounding of the
/// host's size to whole shares per multiprocessor would have given 17,301,504 there.
fn device_printf_fifo(device: u32) -> u64 {
    const SHARE: u64 = 64 << 10;
    let host = sys::printf_fifo_size() as u64;
    let sms = (*DEVICE_INFO.lock())
        .and_then(|i| (i.attribute)(MULTIPROCESSOR_COUNT, device as i32))
        .filter(|&n| n > 0)
        .map_or(1, |n| n as u64);
    host.max(SHARE.saturating_mul(sms))
}

/// Device strings of `cudaGetErrorName` / `cudaGetErrorString`, allocated once per code and
/// kept for the life of the process (device code may keep the pointer).
fn error_text(code: u32, name: bool) -> u64 {
    static TEXTS: Mutex<Vec<(u32, bool, u64)>> = Mutex::new(Vec::new());
    let mut texts = TEXTS.lock();
    if let Some(&(.., p)) = texts.iter().find(|t| t.0 == code && t.1 == name) {
        return p;
    }
    let (n, s) = match code {
        SUCCESS => ("cudaSuccess", "no error"),
        INVALID_VALUE => ("cudaErrorInvalidValue", "invalid argument"),
        MEMORY_ALLOCATION => ("cudaErrorMemoryAllocation", "out of memory"),
        INVALID_CONFIGURATION => (
            "cudaErrorInvalidConfiguration",
            "invalid configuration argument",
        ),
        INVALID_PITCH_VALUE => ("cudaErrorInvalidPitchValue", "invalid pitch argument"),
        INVALID_MEMCPY_DIRECTION => (
            "cudaErrorInvalidMemcpyDirection",
            "invalid copy direction for memcpy",
        ),
        LAUNCH_MAX_DEPTH_EXCEEDED => (
            "cudaErrorLaunchMaxDepthExceeded",
            "launch would exceed maximum depth of nested launches",
        ),
        LAUNCH_PENDING_COUNT_EXCEEDED => (
            "cudaErrorLaunchPendingCountExceeded",
            "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount",
        ),
        INVALID_DEVICE_FUNCTION => ("cudaErrorInvalidDeviceFunction", "invalid device function"),
        INVALID_DEVICE => ("cudaErrorInvalidDevice", "invalid device ordinal"),
        UNSUPPORTED_LIMIT => (
            "cudaErrorUnsupportedLimit",
            "limit is not supported on this architecture",
        ),
        INVALID_RESOURCE_HANDLE => ("cudaErrorInvalidResourceHandle", "invalid resource handle"),
        NOT_SUPPORTED => ("cudaErrorNotSupported", "operation not supported"),
        _ => ("cudaErrorUnknown", "unrecognized error code"),
    };
    let text = if name { n } else { s };
    let Ok(p) = mem::alloc(text.len() as u64 + 1) else {
        return 0;
    };
    // SAFETY: a fresh allocation of len + 1 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), p as *mut u8, text.len());
        *(p as *mut u8).add(text.len()) = 0;
    }
    texts.push((code, name, p));
    p
}
