//! Tables of the opaque objects kernels name by a 64-bit handle (texture and surface objects):
//! the driver registers each under the handle it chose, instructions look it up per lane, and a
//! handle that was never registered or is gone finds nothing. The module-scope `.texref` and
//! `.surfref` variables are kept here too, by address, for indirect access.

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

/// What a module-scope opaque variable is a reference to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    /// A `.texref`.
    Texture,
    /// A `.surfref`.
    Surface,
}

/// The `.texref` and `.surfref` variables of the loaded modules, by device address. Each holds
/// the handle of what the driver bound to it; a register holding a variable's address (`mov.u64
/// r, var`) names it indirectly (PTX ISA 5.3, indirect access).
static REF_VARIABLES: Lazy<RwLock<HashMap<u64, RefKind>>> = Lazy::new(Default::default);

/// Records that the variable at `address` is a `kind` reference, until [`forget_ref_variable`].
pub(crate) fn add_ref_variable(address: u64, kind: RefKind) {
    REF_VARIABLES.write().insert(address, kind);
}

pub(crate) fn forget_ref_variable(address: u64) {
    REF_VARIABLES.write().remove(&address);
}

/// The handle a `kind` reference variable at `address` holds now, if `address` is one's (the
/// indirect access of a `tex`, `txq` or surface instruction through a register). A handle is
/// never such an address: the driver's handles are small counters, device addresses lie in the
/// device region.
pub fn through_ref_variable(address: u64, kind: RefKind) -> Option<u64> {
    if REF_VARIABLES.read().get(&address) != Some(&kind) || !crate::mem::contains(address, 8) {
        return None;
    }
    // SAFETY: eight bytes of live device memory, the variable the driver writes the handle to.
    Some(unsafe { (address as *const u64).read_unaligned() })
}
