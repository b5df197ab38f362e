//! Events. Work runs at enqueue, so recording an event timestamps the moment every earlier
//! piece of work of its stream has completed, which is what the GPU records.

use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE};
use crate::handles::{self, Object};
use crate::{context, stream};
use abi::*;
use parking_lot::Mutex;
use std::ffi::c_uint;
use std::sync::Arc;
use std::time::Instant;

pub struct Event {
    pub flags: u32,
    pub recorded: Mutex<Option<Instant>>,
}

const DISABLE_TIMING: u32 = 0x2;

pub(crate) unsafe fn create(event: *mut CUevent, flags: c_uint) -> CuResult {
    if event.is_null() || flags & !0xf != 0 {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let e = Arc::new(Event {
        flags,
        recorded: Mutex::new(None),
    });
    let h = handles::insert(Object::Event(e));
    // SAFETY: checked non-null.
    unsafe { *event = h as CUevent };
    Ok(())
}

pub(crate) unsafe fn destroy(event: CUevent) -> CuResult {
    handles::event(event)?;
    handles::remove(event as usize);
    Ok(())
}

pub(crate) unsafe fn record(event: CUevent, s: CUstream) -> CuResult {
    let e = handles::event(event)?;
    stream::resolve(s)?;
    *e.recorded.lock() = Some(Instant::now());
    Ok(())
}

pub(crate) unsafe fn record_with_flags(event: CUevent, s: CUstream, flags: c_uint) -> CuResult {
    if flags > 1 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { record(event, s) }
}

pub(crate) unsafe fn synchronize(event: CUevent) -> CuResult {
    handles::event(event)?;
    context::active().map(|_| ())
}

pub(crate) unsafe fn query(event: CUevent) -> CuResult {
    handles::event(event)?;
    context::active().map(|_| ())
}

pub(crate) unsafe fn elapsed_time(ms: *mut f32, start: CUevent, end: CUevent) -> CuResult {
    if ms.is_null() {
        return Err(INVALID_VALUE);
    }
    let (s, e) = (handles::event(start)?, handles::event(end)?);
    if (s.flags | e.flags) & DISABLE_TIMING != 0 {
        return Err(INVALID_HANDLE);
    }
    let (Some(t0), Some(t1)) = (*s.recorded.lock(), *e.recorded.lock()) else {
        return Err(INVALID_HANDLE);
    };
    let v = if t1 >= t0 {
        (t1 - t0).as_secs_f64() * 1e3
    } else {
        -((t0 - t1).as_secs_f64() * 1e3)
    };
    // SAFETY: checked non-null.
    unsafe { *ms = v as f32 };
    Ok(())
}
