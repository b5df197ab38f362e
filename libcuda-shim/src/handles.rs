//! Registries of live handles. Every `CUcontext`, `CUmodule`, `CUfunction`, `CUlibrary`,
//! `CUkernel`, `CUstream`, `CUevent`, `CUgraph`, `CUgraphNode` and `CUgraphExec` handed out is
//! the address of an object kept alive in the [`Registry`] of its type, so a dangling or garbage
//! handle is detected by a map lookup (the error the driver gives for that kind of handle)
//! instead of being dereferenced. Each object's module owns its registry; this one knows no
//! object type, so it sits below all of them.

use crate::errors::CuResult;
use abi::CUresult;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

/// The live objects of one type, by handle (the object's address: unique while it lives, and it
/// lives at least as long as it is registered).
pub struct Registry<T> {
    objects: RwLock<Option<HashMap<usize, Arc<T>>>>,
    /// What looking up a handle that is not here gives (CUDA_ERROR_INVALID_HANDLE for most
    /// objects, CUDA_ERROR_INVALID_CONTEXT for contexts, CUDA_ERROR_INVALID_VALUE for graphs).
    missing: CUresult,
}

impl<T> Registry<T> {
    /// An empty registry; `missing` is the error for a handle it does not hold.
    pub const fn new(missing: CUresult) -> Registry<T> {
        Registry {
            objects: RwLock::new(None),
            missing,
        }
    }

    /// Registers an object and returns its handle.
    pub fn insert(&self, object: Arc<T>) -> usize {
        let h = Arc::as_ptr(&object) as usize;
        self.objects
            .write()
            .get_or_insert_with(HashMap::new)
            .insert(h, object);
        h
    }

    /// Unregisters a handle, returning the object.
    pub fn remove(&self, handle: usize) -> Option<Arc<T>> {
        self.objects.write().as_mut()?.remove(&handle)
    }

    /// The object a handle names, if it is registered here.
    pub fn find<P>(&self, handle: *mut P) -> Option<Arc<T>> {
        self.objects
            .read()
            .as_ref()?
            .get(&(handle as usize))
            .cloned()
    }

    /// The object a handle names, else the registry's error.
    pub fn get<P>(&self, handle: *mut P) -> CuResult<Arc<T>> {
        self.find(handle).ok_or(self.missing)
    }

    /// The first live handle whose object satisfies `wanted`.
    pub fn position(&self, wanted: impl Fn(&T) -> bool) -> Option<usize> {
        self.objects
            .read()
            .as_ref()?
            .iter()
            .find(|(_, o)| wanted(o))
            .map(|(&h, _)| h)
    }

    /// Unregisters every object for which `doomed` holds (when a module or context goes away).
    pub fn remove_where(&self, doomed: impl Fn(&T) -> bool) {
        if let Some(m) = self.objects.write().as_mut() {
            m.retain(|_, o| !doomed(o));
        }
    }
}
