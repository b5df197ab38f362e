//! User objects (`cuUserObjectCreate`, `cuUserObjectRetain`/`Release`,
//! `cuGraphRetainUserObject`/`cuGraphReleaseUserObject`): a program's pointer with a
//! destructor and a reference count, whose references may be owned by the program, by graphs
//! and by the executable graphs made from them. The destructor runs when the last reference
//! goes, as the programming guide's "CUDA User Objects" says:
//! - a graph owns its references until it is destroyed; a clone (and the copy a child graph
//!   node makes) owns as many again; an executable graph takes the references of the graph and
//!   of its child graphs at instantiation and holds them until it is destroyed and its last
//!   launch has completed (the launch's work keeps them);
//! - the destructor may not call CUDA (`CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`, the one flag, is
//!   required): it runs on whichever thread drops the last reference, the program's own in a
//!   release call or a stream worker after a launch, never with a lock of this driver held.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::work::user_objects::{object, UserObject, OBJECTS};
use crate::work::GRAPHS;
use abi::*;
use parking_lot::Mutex;
use std::ffi::{c_uint, c_void};
use std::sync::Arc;

/// The largest count one call may pass ("not larger than INT_MAX").
const MAX_COUNT: u32 = i32::MAX as u32;

pub(crate) unsafe fn create(
    out: *mut CUuserObject,
    ptr: *mut c_void,
    destroy: CUhostFn,
    initial: c_uint,
    flags: c_uint,
) -> CuResult {
    let no_sync = CUuserObject_flags::CU_USER_OBJECT_NO_DESTRUCTOR_SYNC.0;
    if out.is_null() || initial == 0 || initial > MAX_COUNT || flags != no_sync {
        return Err(INVALID_VALUE);
    }
    let destroy = destroy.ok_or(INVALID_VALUE)?;
    let o = Arc::new(UserObject {
        ptr: ptr as usize,
        destroy,
        refs: Mutex::new(initial as u64),
    });
    OBJECTS.lock().insert(o.handle(), o.clone());
    // SAFETY: checked non-null.
    unsafe { *out = o.handle() as CUuserObject };
    Ok(())
}

pub(crate) unsafe fn retain(h: CUuserObject, count: c_uint) -> CuResult {
    if count == 0 || count > MAX_COUNT {
        return Err(INVALID_VALUE);
    }
    object(h)?.retain(count as u64);
    Ok(())
}

pub(crate) unsafe fn release(h: CUuserObject, count: c_uint) -> CuResult {
    if count == 0 || count > MAX_COUNT {
        return Err(INVALID_VALUE);
    }
    object(h)?.release(count as u64);
    Ok(())
}

pub(crate) unsafe fn graph_retain(
    g: CUgraph,
    h: CUuserObject,
    count: c_uint,
    flags: c_uint,
) -> CuResult {
    let mv = CUuserObjectRetain_flags::CU_GRAPH_USER_OBJECT_MOVE.0;
    if count == 0 || count > MAX_COUNT || flags & !mv != 0 {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(g)?;
    let o = object(h)?;
    // A move takes the caller's references over; otherwise new ones are made.
    if flags & mv == 0 {
        o.retain(count as u64);
    }
    g.user_objects.lock().add(&o, count as u64);
    Ok(())
}

pub(crate) unsafe fn graph_release(g: CUgraph, h: CUuserObject, count: c_uint) -> CuResult {
    if count == 0 || count > MAX_COUNT {
        return Err(INVALID_VALUE);
    }
    let g = GRAPHS.get(g)?;
    let o = object(h)?;
    // Only references the graph owns can be released through it.
    if !g.user_objects.lock().take(&o, count as u64) {
        return Err(INVALID_VALUE);
    }
    o.release(count as u64);
    Ok(())
}
