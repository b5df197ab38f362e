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
