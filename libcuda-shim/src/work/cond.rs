//! Conditional handles: the 32-bit condition variable a conditional node reads (see
//! `crate::graph::conditional`), kept by value so that a handle the program passes can be
//! checked.

use crate::errors::{CuResult, INVALID_VALUE};
use abi::CUgraphConditionalHandle;
use engine::mem as dmem;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

pub struct CondHandle {
    /// The condition variable's device address, which is also the handle.
    pub cell: u64,
    pub default: u32,
    pub assign_default: bool,
}

impl CondHandle {
    pub fn get(&self) -> u32 {
        // SAFETY: `cell` is a live 4-byte device allocation of this handle (device memory is
        // host-addressable); kernels write it with 32-bit stores.
        unsafe { std::ptr::read_volatile(self.cell as *const u32) }
    }

    pub fn set(&self, v: u32) {
        // SAFETY: as for get.
        unsafe { std::ptr::write_volatile(self.cell as *mut u32, v) }
    }
}

impl Drop for CondHandle {
    fn drop(&mut self) {
        let _ = dmem::free(self.cell);
    }
}

/// Live handles by value (conditional handles are plain integers to programs).
static HANDLES: Lazy<Mutex<HashMap<u64, Arc<CondHandle>>>> = Lazy::new(Default::default);

pub fn lookup(h: CUgraphConditionalHandle) -> CuResult<Arc<CondHandle>> {
    HANDLES.lock().get(&h).cloned().ok_or(INVALID_VALUE)
}

/// Forgets the handles a destroyed graph created (executable graphs keep theirs alive).
pub fn forget(list: &[Arc<CondHandle>]) {
    let mut m = HANDLES.lock();
    for c in list {
        m.remove(&c.cell);
    }
}

/// Makes `c` known to [`lookup`] (cuGraphConditionalHandleCreate).
pub fn register(c: &Arc<CondHandle>) {
    HANDLES.lock().insert(c.cell, c.clone());
}
