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
use crate::graph::GRAPHS;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_uint, c_void};
use std::sync::Arc;

use abi::*;

pub struct UserObject {
    ptr: usize,
    destroy: unsafe extern "C" fn(*mut c_void),
    /// References of every owner together; the object dies at zero.
    refs: Mutex<u64>,
}

/// Live user objects by handle (the address of the [`UserObject`]).
static OBJECTS: Lazy<Mutex<HashMap<usize, Arc<UserObject>>>> = Lazy::new(Default::default);

/// The largest count one call may pass ("not larger than INT_MAX").
const MAX_COUNT: u32 = i32::MAX as u32;

impl UserObject {
    fn handle(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }

    fn retain(&self, n: u64) {
        *self.refs.lock() += n;
    }

    /// Drops `n` references; the last one unregisters the object and runs its destructor.
    fn release(self: &Arc<Self>, n: u64) {
        let dead = {
            let mut r = self.refs.lock();
            *r = r.saturating_sub(n);
            *r == 0
        };
        if dead {
            OBJECTS.lock().remove(&self.handle());
            // SAFETY: the program registered this destructor for this pointer; no lock of ours
            // is held while it runs.
            unsafe { (self.destroy)(self.ptr as *mut c_void) };
        }
    }
}

fn object(h: CUuserObject) -> CuResult<Arc<UserObject>> {
    OBJECTS
        .lock()
        .get(&(h as usize))
        .cloned()
        .ok_or(INVALID_VALUE)
}

/// References owned by a graph or an executable graph: (object, count) pairs, released when
/// dropped.
#[derive(Default)]
pub struct Refs(Vec<(Arc<UserObject>, u64)>);

impl Refs {
    fn add(&mut self, o: &Arc<UserObject>, n: u64) {
        match self.0.iter_mut().find(|(x, _)| Arc::ptr_eq(x, o)) {
            Some(slot) => slot.1 += n,
            None => self.0.push((o.clone(), n)),
        }
    }

    /// Takes `n` of this owner's references to `o` away (without releasing them); false when
    /// it owns fewer.
    fn take(&mut self, o: &Arc<UserObject>, n: u64) -> bool {
        let Some(k) = self.0.iter().position(|(x, _)| Arc::ptr_eq(x, o)) else {
            return false;
        };
        if self.0[k].1 < n {
            return false;
        }
        self.0[k].1 -= n;
        if self.0[k].1 == 0 {
            self.0.swap_remove(k);
        }
        true
    }

    /// A second owner of as many references (a clone of a graph, an instantiation).
    pub fn duplicate(&self) -> Refs {
        for (o, n) in &self.0 {
            o.retain(*n);
        }
        Refs(self.0.clone())
    }

    /// Moves `other`'s references into this owner.
    pub fn absorb(&mut self, mut other: Refs) {
        for (o, n) in std::mem::take(&mut other.0) {
            self.add(&o, n);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Drop for Refs {
    fn drop(&mut self) {
        for (o, n) in std::mem::take(&mut self.0) {
            o.release(n);
        }
    }
}

// ---- Entry points.

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
