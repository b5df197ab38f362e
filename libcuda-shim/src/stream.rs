//! Streams. Work is executed synchronously when it is enqueued, which keeps every stream in
//! order and makes the legacy default stream's implicit synchronisation hold trivially; what
//! stays asynchronous is the error reporting: a kernel fault is recorded as the context's sticky
//! error and returned by the next synchronising call (see `launch`).

use crate::context::{self, Context};
use crate::errors::{CuResult, INVALID_VALUE};
use crate::handles::{self, Object};
use abi::*;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct Stream {
    pub id: u64,
    pub flags: u32,
    pub priority: i32,
    pub ctx: Arc<Context>,
}

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`, the special handles.
const LEGACY: usize = 0x1;
const PER_THREAD: usize = 0x2;

/// Validates a stream argument and returns its context (the current one for the default
/// streams), failing with the sticky error if its work has faulted.
pub fn resolve(s: CUstream) -> CuResult<Arc<Context>> {
    let ctx = match s as usize {
        0 | LEGACY | PER_THREAD => context::current()?,
        _ => handles::stream(s)?.ctx.clone(),
    };
    ctx.check()?;
    Ok(ctx)
}

fn next_id() -> u64 {
    // Ids 0..=2 are the default streams'.
    static NEXT: AtomicU64 = AtomicU64::new(3);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

pub(crate) unsafe fn create_with_priority(
    stream: *mut CUstream,
    flags: c_uint,
    priority: c_int,
) -> CuResult {
    if stream.is_null() || flags > 1 {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    // Clamped to the range cuCtxGetStreamPriorityRange reports, as the driver does.
    let s = Arc::new(Stream {
        id: next_id(),
        flags,
        priority: priority.clamp(-5, 0),
        ctx,
    });
    let h = handles::insert(Object::Stream(s));
    // SAFETY: checked non-null.
    unsafe { *stream = h as CUstream };
    Ok(())
}

pub(crate) unsafe fn create(stream: *mut CUstream, flags: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { create_with_priority(stream, flags, 0) }
}

pub(crate) unsafe fn destroy(stream: CUstream) -> CuResult {
    handles::stream(stream)?;
    handles::remove(stream as usize);
    Ok(())
}

pub(crate) unsafe fn synchronize(stream: CUstream) -> CuResult {
    resolve(stream).map(|_| ())
}

pub(crate) unsafe fn query(stream: CUstream) -> CuResult {
    // Everything enqueued has already run.
    resolve(stream).map(|_| ())
}

pub(crate) unsafe fn wait_event(stream: CUstream, event: CUevent, flags: c_uint) -> CuResult {
    resolve(stream)?;
    handles::event(event)?;
    if flags > 1 {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

pub(crate) unsafe fn get_priority(stream: CUstream, priority: *mut c_int) -> CuResult {
    if priority.is_null() {
        return Err(INVALID_VALUE);
    }
    let p = match stream as usize {
        0 | LEGACY | PER_THREAD => 0,
        _ => handles::stream(stream)?.priority,
    };
    // SAFETY: checked non-null.
    unsafe { *priority = p };
    Ok(())
}

pub(crate) unsafe fn get_flags(stream: CUstream, flags: *mut c_uint) -> CuResult {
    if flags.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = match stream as usize {
        0 | LEGACY | PER_THREAD => 0,
        _ => handles::stream(stream)?.flags,
    };
    // SAFETY: checked non-null.
    unsafe { *flags = f };
    Ok(())
}

pub(crate) unsafe fn get_ctx(stream: CUstream, pctx: *mut CUcontext) -> CuResult {
    if pctx.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = match stream as usize {
        0 | LEGACY | PER_THREAD => context::current()?,
        _ => handles::stream(stream)?.ctx.clone(),
    };
    // SAFETY: checked non-null.
    unsafe { *pctx = ctx.handle() };
    Ok(())
}

pub(crate) unsafe fn get_id(stream: CUstream, id: *mut c_ulonglong) -> CuResult {
    if id.is_null() {
        return Err(INVALID_VALUE);
    }
    let v = match stream as usize {
        0 | LEGACY => 1,
        PER_THREAD => 2,
        _ => handles::stream(stream)?.id,
    };
    // SAFETY: checked non-null.
    unsafe { *id = v };
    Ok(())
}

pub(crate) unsafe fn get_device(stream: CUstream, device: *mut CUdevice) -> CuResult {
    if device.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = match stream as usize {
        0 | LEGACY | PER_THREAD => context::current()?,
        _ => handles::stream(stream)?.ctx.clone(),
    };
    // SAFETY: checked non-null.
    unsafe { *device = ctx.device };
    Ok(())
}

pub(crate) unsafe fn add_callback(
    stream: CUstream,
    callback: CUstreamCallback,
    user_data: *mut c_void,
    flags: c_uint,
) -> CuResult {
    let callback = callback.ok_or(INVALID_VALUE)?;
    if flags != 0 {
        return Err(INVALID_VALUE);
    }
    // The callback learns about a fault of earlier work through its status argument.
    let status = match stream as usize {
        0 | LEGACY | PER_THREAD => context::current()?,
        _ => handles::stream(stream)?.ctx.clone(),
    }
    .check()
    .err()
    .unwrap_or(CUresult::CUDA_SUCCESS);
    // SAFETY: the program registered this callback for this stream with this user data;
    // earlier work of the stream is complete.
    unsafe { callback(stream, status, user_data) };
    Ok(())
}

pub(crate) unsafe fn launch_host_func(
    stream: CUstream,
    func: CUhostFn,
    user_data: *mut c_void,
) -> CuResult {
    let func = func.ok_or(INVALID_VALUE)?;
    resolve(stream)?;
    // SAFETY: as for add_callback: earlier work of the stream is complete.
    unsafe { func(user_data) };
    Ok(())
}

pub(crate) unsafe fn launch_host_func_v2(
    stream: CUstream,
    func: CUhostFn,
    user_data: *mut c_void,
    sync_mode: c_uint,
) -> CuResult {
    let _ = sync_mode;
    // SAFETY: forwarded contract.
    unsafe { launch_host_func(stream, func, user_data) }
}

pub(crate) unsafe fn is_capturing(
    stream: CUstream,
    status: *mut CUstreamCaptureStatus,
) -> CuResult {
    if status.is_null() {
        return Err(INVALID_VALUE);
    }
    resolve(stream)?;
    // Stream capture is not supported, so no stream is ever capturing.
    // SAFETY: checked non-null.
    unsafe { *status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE };
    Ok(())
}

pub(crate) unsafe fn exchange_capture_mode(mode: *mut CUstreamCaptureMode) -> CuResult {
    if mode.is_null() {
        return Err(INVALID_VALUE);
    }
    thread_local!(static MODE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) });
    // SAFETY: checked non-null; swaps the caller's mode with this thread's.
    unsafe {
        let new = (*mode).0;
        if new > 2 {
            return Err(INVALID_VALUE);
        }
        (*mode).0 = MODE.with(|m| m.replace(new));
    }
    Ok(())
}
