//! Graph allocations: the memory behind a memory allocation node, its lifetime and the
//! device's graph memory counters. The rules are those `crate::graph::mem` states.

use crate::errors::CuResult;
use crate::{context, memory};
use abi::*;
use engine::mem as dmem;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

pub struct GraphAlloc {
    pub dptr: u64,
    pub size: u64,
    pub props: CUmemPoolProps,
    pub access: Vec<CUmemAccessDesc>,
    /// Whether the graph allocator holds memory for it (counted in RESERVED_MEM_CURRENT).
    pub(crate) reserved: AtomicBool,
}

// SAFETY: the pool properties' raw pointer (`win32SecurityAttributes`) is never dereferenced.
unsafe impl Send for GraphAlloc {}

// SAFETY: as above; the mutable state is atomic.
unsafe impl Sync for GraphAlloc {}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) used: AtomicU64,
    pub(crate) used_high: AtomicU64,
    pub(crate) reserved: AtomicU64,
    pub(crate) reserved_high: AtomicU64,
}

pub(crate) static COUNTERS: Lazy<Counters> = Lazy::new(Default::default);

/// Every graph allocation by address, and the ones allocated now (kept alive by that).
pub(crate) static ALL: Lazy<Mutex<HashMap<u64, Weak<GraphAlloc>>>> = Lazy::new(Default::default);

pub(crate) static LIVE: Lazy<Mutex<HashMap<u64, Arc<GraphAlloc>>>> = Lazy::new(Default::default);

fn add(c: &AtomicU64, high: &AtomicU64, n: u64) {
    let v = c.fetch_add(n, Ordering::AcqRel) + n;
    high.fetch_max(v, Ordering::AcqRel);
}

impl GraphAlloc {
    /// A new allocation node's memory.
    pub fn new(
        size: u64,
        props: CUmemPoolProps,
        access: Vec<CUmemAccessDesc>,
    ) -> CuResult<Arc<GraphAlloc>> {
        let ctx = context::active()?;
        // Reachable from every device: the node's access descriptors, not peer access, say
        // which devices may, and are not checked.
        let dptr = dmem::alloc_shared_on(ctx.device as usize, size)
            .map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
        memory::new_buffer(dptr, &ctx);
        let a = Arc::new(GraphAlloc {
            dptr,
            size,
            props,
            access,
            reserved: AtomicBool::new(false),
        });
        ALL.lock().insert(dptr, Arc::downgrade(&a));
        Ok(a)
    }

    pub fn live(&self) -> bool {
        LIVE.lock().contains_key(&self.dptr)
    }

    /// A launch runs the allocation node.
    pub fn allocate(self: &Arc<Self>) {
        if !self.reserved.swap(true, Ordering::AcqRel) {
            add(&COUNTERS.reserved, &COUNTERS.reserved_high, self.size);
        }
        if LIVE.lock().insert(self.dptr, self.clone()).is_none() {
            add(&COUNTERS.used, &COUNTERS.used_high, self.size);
        }
    }
}

impl Drop for GraphAlloc {
    fn drop(&mut self) {
        if *self.reserved.get_mut() {
            COUNTERS.reserved.fetch_sub(self.size, Ordering::AcqRel);
        }
        ALL.lock().remove(&self.dptr);
        memory::forget_buffer(self.dptr);
        let _ = dmem::free(self.dptr);
    }
}

/// The graph allocation at `dptr` (its base address), allocated or not.
pub fn find(dptr: u64) -> Option<Arc<GraphAlloc>> {
    ALL.lock().get(&dptr).and_then(Weak::upgrade)
}

/// Ends the allocation at `dptr`: true if it was a graph allocation that was allocated.
pub fn free(dptr: u64) -> bool {
    let gone = LIVE.lock().remove(&dptr);
    match gone {
        Some(a) => {
            COUNTERS.used.fetch_sub(a.size, Ordering::AcqRel);
            // Dropped outside the lock: the last reference frees the memory.
            drop(a);
            true
        }
        None => false,
    }
}
