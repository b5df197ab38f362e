//! The stream calls: `cuStreamCreate*`, destroy, synchronize and query, waits on events,
//! the stream's properties and attributes, stream callbacks and host functions.

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::stream::capture;
use crate::stream::{
    lookup, per_thread_call, stream_object, submit, submit_unless_faulted, target, Stream, LEGACY,
    PER_THREAD, STREAMS,
};
use crate::stream_attrs::{self, clamp_priority, StreamAttrs};
use crate::work::Kind;
use abi::*;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const NON_BLOCKING: u32 = 0x1;

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
    if stream.is_null() || flags & !NON_BLOCKING != 0 {
        return Err(INVALID_VALUE);
    }
    let ctx = context::active()?;
    let queue = ctx.new_queue(flags & NON_BLOCKING == 0);
    *queue.attrs.lock() = StreamAttrs::new(clamp_priority(priority));
    let s = Arc::new(Stream {
        id: next_id(),
        flags,
        ctx,
        queue,
    });
    let h = STREAMS.insert(s);
    // SAFETY: checked non-null.
    unsafe { *stream = h as CUstream };
    Ok(())
}

pub(crate) unsafe fn create(stream: *mut CUstream, flags: c_uint) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { create_with_priority(stream, flags, 0) }
}

/// The handle dies now; work already queued still runs (the worker holds the queue), as the
/// driver documents for a stream destroyed while busy.
pub(crate) unsafe fn destroy(stream: CUstream) -> CuResult {
    stream_object(stream)?;
    STREAMS.remove(stream as usize);
    Ok(())
}

pub(crate) unsafe fn synchronize(stream: CUstream) -> CuResult {
    let t = lookup(stream)?;
    capture::check_sync(&t)?;
    t.queue.wait_all();
    crate::printf::flush();
    t.ctx.check()
}

pub(crate) unsafe fn query(stream: CUstream) -> CuResult {
    let t = target(stream)?;
    capture::check_sync(&t)?;
    if t.queue.idle() {
        Ok(())
    } else {
        Err(CUresult::CUDA_ERROR_NOT_READY)
    }
}

pub(crate) unsafe fn wait_event(stream: CUstream, event: CUevent, flags: c_uint) -> CuResult {
    let t = target(stream)?;
    let e = crate::stream::event::event_object(event)?;
    if flags > 1 {
        return Err(INVALID_VALUE);
    }
    // Events recorded in a capture join or extend captures instead.
    if capture::wait_event(&t, event, flags)? {
        return Ok(());
    }
    // Waiting for a never-recorded event is a no-op; otherwise later work of the stream waits
    // for the work the event's latest record captured.
    if let Some(dep) = e.captured() {
        submit(&t, vec![dep], Box::new(|_| {}));
    }
    Ok(())
}

pub(crate) unsafe fn get_priority(stream: CUstream, priority: *mut c_int) -> CuResult {
    if priority.is_null() {
        return Err(INVALID_VALUE);
    }
    // cuStreamSetAttribute(CU_STREAM_ATTRIBUTE_PRIORITY) changes it.
    let p = lookup(stream)?.queue.attrs.lock().priority();
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
        _ => stream_object(stream)?.flags,
    };
    // SAFETY: checked non-null.
    unsafe { *flags = f };
    Ok(())
}

pub(crate) unsafe fn get_ctx(stream: CUstream, pctx: *mut CUcontext) -> CuResult {
    if pctx.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = lookup(stream)?.ctx;
    // SAFETY: checked non-null.
    unsafe { *pctx = ctx.handle() };
    Ok(())
}

pub(crate) unsafe fn get_id(stream: CUstream, id: *mut c_ulonglong) -> CuResult {
    if id.is_null() {
        return Err(INVALID_VALUE);
    }
    let per_thread = per_thread_call();
    let v = match stream as usize {
        0 if per_thread => 2,
        0 | LEGACY => 1,
        PER_THREAD => 2,
        _ => stream_object(stream)?.id,
    };
    // SAFETY: checked non-null.
    unsafe { *id = v };
    Ok(())
}

pub(crate) unsafe fn get_device(stream: CUstream, device: *mut CUdevice) -> CuResult {
    if device.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = lookup(stream)?.ctx;
    // SAFETY: checked non-null.
    unsafe { *device = ctx.device };
    Ok(())
}

/// A raw pointer handed back to the program's callback on a worker thread.
struct UserData(usize);

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
    let t = lookup(stream)?;
    // Stream callbacks cannot be captured (host functions can).
    capture::refuse(&t)?;
    let (handle, data) = (UserData(stream as usize), UserData(user_data as usize));
    submit(
        &t,
        Vec::new(),
        Box::new(move |ctx| {
            // The callback learns about a fault of earlier work through its status argument.
            let status = ctx.check().err().unwrap_or(CUresult::CUDA_SUCCESS);
            // SAFETY: the program registered this callback for this stream with this user
            // data; every earlier item of the stream has completed.
            unsafe { callback(handle.0 as CUstream, status, data.0 as *mut c_void) };
        }),
    );
    Ok(())
}

pub(crate) unsafe fn launch_host_func(
    stream: CUstream,
    func: CUhostFn,
    user_data: *mut c_void,
) -> CuResult {
    let func = func.ok_or(INVALID_VALUE)?;
    let t = target(stream)?;
    let node = || {
        Kind::Host(CUDA_HOST_NODE_PARAMS {
            fn_: Some(func),
            userData: user_data,
        })
    };
    if capture::intercept(&t, node)? {
        return Ok(());
    }
    let data = UserData(user_data as usize);
    // Unlike a stream callback, a host function is not called once the context has faulted.
    submit_unless_faulted(&t, move |_| {
        // SAFETY: as for add_callback: earlier work of the stream is complete.
        unsafe { func(data.0 as *mut c_void) }
    });
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

/// cuStreamGetCtx_v2: the stream's regular context; there are no green contexts, so
/// `*green` is NULL.
pub(crate) unsafe fn get_ctx_v2(
    stream: CUstream,
    pctx: *mut CUcontext,
    green: *mut CUgreenCtx,
) -> CuResult {
    if green.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { get_ctx(stream, pctx)? };
    // SAFETY: checked non-null.
    unsafe { *green = std::ptr::null_mut() };
    Ok(())
}

// ---- Stream attributes (their values and rules: `stream_attrs`).

pub(crate) unsafe fn get_attribute(
    s: CUstream,
    id: CUstreamAttrID,
    out: *mut CUstreamAttrValue,
) -> CuResult {
    let t = lookup(s)?;
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // Only stream attributes can be read; the value checked is a valid default.
    stream_attrs::check(id, &StreamAttrs::new(0).get(id))?;
    let v = t.queue.attrs.lock().get(id);
    // SAFETY: checked non-null; the caller passes one value.
    unsafe { *out = v };
    Ok(())
}

pub(crate) unsafe fn set_attribute(
    s: CUstream,
    id: CUstreamAttrID,
    value: *const CUstreamAttrValue,
) -> CuResult {
    let t = lookup(s)?;
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes one value.
    let mut v = unsafe { *value };
    stream_attrs::check(id, &v)?;
    if id == CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PRIORITY {
        // SAFETY: the member this attribute uses.
        unsafe { v.priority = clamp_priority(v.priority) };
    }
    t.queue.attrs.lock().set(id, v);
    Ok(())
}

/// `dst` takes every attribute of `src`; both must belong to one context.
pub(crate) unsafe fn copy_attributes(dst: CUstream, src: CUstream) -> CuResult {
    let (d, s) = (lookup(dst)?, lookup(src)?);
    if !std::sync::Arc::ptr_eq(&d.ctx, &s.ctx) {
        return Err(INVALID_VALUE);
    }
    let attrs = s.queue.attrs.lock().clone();
    *d.queue.attrs.lock() = attrs;
    Ok(())
}
