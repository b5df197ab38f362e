//! Tables of the opaque objects kernels name by a 64-bit handle (texture and surface objects):
//! the driver registers each under the handle it chose, instructions look it up per lane, and a
//! handle that was never registered or is gone finds nothing.

use once_cell::sync::Lazy;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

pub struct Handles<T>(Lazy<RwLock<HashMap<u64, Arc<T>>>>);

impl<T> Handles<T> {
    pub const fn new() -> Handles<T> {
        Handles(Lazy::new(Default::default))
    }

    /// Makes `handle` name `object`.
    pub fn register(&self, handle: u64, object: T) {
        self.0.write().insert(handle, Arc::new(object));
    }

    /// Forgets `handle`; instructions through it fault from now on.
    pub fn unregister(&self, handle: u64) {
        self.0.write().remove(&handle);
    }

    /// The object named `handle`, if it exists.
    pub fn lookup(&self, handle: u64) -> Option<Arc<T>> {
        self.0.read().get(&handle).cloned()
    }
}

impl<T> Default for Handles<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The object of the last handle an instruction looked up, kept while the next lanes name the
/// same one (lanes of a warp almost always share one handle).
pub struct LastLookup<T>(Option<(u64, Arc<T>)>);

impl<T> LastLookup<T> {
    pub fn new() -> LastLookup<T> {
        LastLookup(None)
    }

    /// The object of `handle`: the cached one, or `find`'s answer, cached.
    pub fn get<E>(
        &mut self,
        handle: u64,
        find: impl FnOnce() -> Result<Arc<T>, E>,
    ) -> Result<Arc<T>, E> {
        if let Some((h, o)) = &self.0 {
            if *h == handle {
                return Ok(o.clone());
            }
        }
        let o = find()?;
        self.0 = Some((handle, o.clone()));
        Ok(o)
    }
}

impl<T> Default for LastLookup<T> {
    fn default() -> Self {
        Self::new()
    }
}
