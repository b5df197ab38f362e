//! Surface references, the independent mode (cuModuleGetSurfRef, cuSurfRefSetArray,
//! cuSurfRefGetArray): a `.surfref` module variable is 8 bytes of the module's global memory;
//! binding an array registers a surface with the engine, as cuSurfObjectCreate does, and
//! writes its handle into the variable, which `suld`/`sust`/`sured`/`suq` on the variable read
//! (engine/src/lower/surf.rs). An unbound reference holds 0, which names no surface: an access
//! through it faults. `module::get_surf_ref` finds the variable.

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::surface::resource;
use abi::*;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_uint;
use std::sync::atomic::{AtomicU64, Ordering};

/// One reference: its module (handle) and variable, and what is bound to it.
struct SurfRef {
    module: usize,
    /// The variable's device address.
    var: u64,
    /// The bound array's handle and the surface registered for it.
    bound: Option<(usize, u64)>,
}

/// References by handle (small integers from 1, never dereferenced).
static REFS: Lazy<Mutex<HashMap<usize, SurfRef>>> = Lazy::new(Default::default);
/// Handles of the surfaces bound to references: above the surface objects' range.
static NEXT_SURFACE: AtomicU64 = AtomicU64::new(1 << 41);

/// The reference of the `.surfref` variable at device address `var` of module `module` (its
/// handle), made at the first call: the same variable gives the same reference, as the
/// driver's does.
pub(crate) fn for_variable(module: usize, var: u64) -> usize {
    let mut refs = REFS.lock();
    if let Some((&h, _)) = refs
        .iter()
        .find(|(_, r)| r.module == module && r.var == var)
    {
        return h;
    }
    let h = refs.keys().max().map_or(1, |m| m + 1);
    refs.insert(
        h,
        SurfRef {
            module,
            var,
            bound: None,
        },
    );
    h
}

pub(crate) unsafe fn set_array(r: CUsurfref, array: CUarray, flags: c_uint) -> CuResult {
    let ctx = context::active()?;
    if flags != 0 {
        return Err(INVALID_VALUE);
    }
    let mut refs = REFS.lock();
    let sr = refs.get_mut(&(r as usize)).ok_or(INVALID_VALUE)?;
    let var = sr.var;
    // The checks of cuSurfObjectCreate: an array made with CUDA_ARRAY3D_SURFACE_LDST.
    // SAFETY: an all-zero CUDA_RESOURCE_DESC is valid (plain integers and handles).
    let mut desc: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
    desc.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
    desc.res.array.hArray = array;
    let s = resource(&desc)?;
    if !engine::mem::contains(var, 8) {
        return Err(INVALID_VALUE);
    }
    // Kernels launched before read the old binding, as with the driver.
    ctx.wait_idle();
    let h = NEXT_SURFACE.fetch_add(1, Ordering::Relaxed);
    engine::surf::SURFACES.register(h, s);
    // SAFETY: the variable's 8 bytes, checked to be live device memory (a host address).
    unsafe { (var as *mut u64).write_unaligned(h) };
    if let Some((_, old)) = sr.bound.replace((array as usize, h)) {
        engine::surf::SURFACES.unregister(old);
    }
    Ok(())
}

pub(crate) unsafe fn get_array(out: *mut CUarray, r: CUsurfref) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let refs = REFS.lock();
    let sr = refs.get(&(r as usize)).ok_or(INVALID_VALUE)?;
    // Unbound: CUDA_ERROR_INVALID_VALUE (the driver's documented answer).
    let (array, _) = sr.bound.ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = array as CUarray };
    Ok(())
}

/// Forgets the references of a module being unloaded (`module`: its handle), with the
/// surfaces bound through them.
pub(crate) fn release(module: usize) {
    REFS.lock().retain(|_, r| {
        let doomed = r.module == module;
        if let (true, Some((_, h))) = (doomed, r.bound) {
            engine::surf::SURFACES.unregister(h);
        }
        !doomed
    });
}
