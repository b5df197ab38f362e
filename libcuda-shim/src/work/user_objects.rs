//! User objects: a program's pointer with a destructor and a reference count, and the
//! references graphs and executable graphs own ([`Refs`]). The rules, and the calls, are in
//! `crate::graph::user_object`.

use crate::errors::{CuResult, INVALID_VALUE};
use abi::CUuserObject;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;

pub struct UserObject {
    pub(crate) ptr: usize,
    pub(crate) destroy: unsafe extern "C" fn(*mut c_void),
    /// References of every owner together; the object dies at zero.
    pub(crate) refs: Mutex<u64>,
}

/// Live user objects by handle (the address of the [`UserObject`]).
pub(crate) static OBJECTS: Lazy<Mutex<HashMap<usize, Arc<UserObject>>>> =
    Lazy::new(Default::default);

impl UserObject {
    pub(crate) fn handle(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }

    pub(crate) fn retain(&self, n: u64) {
        *self.refs.lock() += n;
    }

    /// Drops `n` references; the last one unregisters the object and runs its destructor.
    pub(crate) fn release(self: &Arc<Self>, n: u64) {
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

pub(crate) fn object(h: CUuserObject) -> CuResult<Arc<UserObject>> {
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
    pub(crate) fn add(&mut self, o: &Arc<UserObject>, n: u64) {
        match self.0.iter_mut().find(|(x, _)| Arc::ptr_eq(x, o)) {
            Some(slot) => slot.1 += n,
            None => self.0.push((o.clone(), n)),
        }
    }

    /// Takes `n` of this owner's references to `o` away (without releasing them); false when
    /// it owns fewer.
    pub(crate) fn take(&mut self, o: &Arc<UserObject>, n: u64) -> bool {
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
