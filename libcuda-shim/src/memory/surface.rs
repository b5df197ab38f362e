//! Surface objects (cuSurfObjectCreate and its query): each is validated as the driver
//! documents (a CUDA array made with CUDA_ARRAY3D_SURFACE_LDST, flags zero), then registered
//! with the engine (`engine::surf`) under its handle, which `suld`, `sust`, `sured` and `suq`
//! in kernels name. Every array kind is accepted: 1D, 2D, 3D, layered and cubemap (whose faces
//! are layers, as the surface instructions address them). Formats: the 8/16/32-bit integer,
//! half, float and normalised-integer ones with 1, 2 or 4 channels; the packed and video
//! formats are CUDA_ERROR_NOT_SUPPORTED (their formatted stores are not modelled).

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::array;
use abi::*;
use engine::surf::{Format, Surface};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The descriptor a surface object was created from, for the query, and the context it belongs
/// to (its handle), which takes it along when destroyed or reset.
#[derive(Clone, Copy)]
struct Desc(CUDA_RESOURCE_DESC, usize);
// SAFETY: the array handle inside is a plain value (a key of the array table), never
// dereferenced through this copy.
unsafe impl Send for Desc {}

/// What each live handle was created from.
static OBJECTS: Lazy<Mutex<HashMap<CUsurfObject, Desc>>> = Lazy::new(Default::default);
/// Surface handles start far above the texture objects' (which count from 1), so that a
/// texture handle passed to a surface instruction names no surface and faults.
const FIRST: u64 = 1 << 40;
static NEXT: AtomicU64 = AtomicU64::new(FIRST);

/// The engine's channel format of `f`: the texture unit's decoding of a `CUarray_format`
/// (NOT_SUPPORTED for the packed and video formats, INVALID_VALUE for values that are no
/// format).
fn format(f: CUarray_format) -> CuResult<Format> {
    let (channel, normalized) = crate::memory::texture::channel(f)?;
    Ok(Format::of(channel, normalized))
}

/// The surface a resource descriptor names, as the engine addresses it.
pub(super) fn resource(r: &CUDA_RESOURCE_DESC) -> CuResult<Surface> {
    if r.resType != CUresourcetype::CU_RESOURCE_TYPE_ARRAY || r.flags != 0 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: the union member resType names.
    let a = array::get(unsafe { r.res.array.hArray }).map_err(|_| INVALID_VALUE)?;
    let d = a.desc;
    if d.Flags & CUDA_ARRAY3D_SURFACE_LDST == 0 {
        return Err(INVALID_VALUE);
    }
    let fmt = format(d.Format)?;
    if !matches!(d.NumChannels, 1 | 2 | 4) {
        return Err(INVALID_VALUE);
    }
    let row = a.row_bytes() as u64;
    Ok(Surface {
        base: a.base,
        size: [d.Width as u32, a.rows() as u32, a.slices() as u32],
        layered: d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP) != 0,
        row_pitch: row,
        slice_pitch: row * a.rows() as u64,
        format: fmt,
        channels: d.NumChannels as u8,
        // No CUDA enumeration combines them: suq answers the array's CUarray_format and its
        // channel count (README, surfaces).
    })
}

pub(crate) unsafe fn create(handle: *mut CUsurfObject, res: *const CUDA_RESOURCE_DESC) -> CuResult {
    let ctx = context::active()?;
    if handle.is_null() || res.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller's descriptor.
    let r = unsafe { *res };
    let s = resource(&r)?;
    let h = NEXT.fetch_add(1, Ordering::Relaxed);
    engine::surf::SURFACES.register(h, s);
    OBJECTS.lock().insert(h, Desc(r, ctx.handle() as usize));
    // SAFETY: checked non-null.
    unsafe { *handle = h };
    Ok(())
}

pub(crate) unsafe fn destroy(h: CUsurfObject) -> CuResult {
    OBJECTS.lock().remove(&h).ok_or(INVALID_VALUE)?;
    engine::surf::SURFACES.unregister(h);
    Ok(())
}

pub(crate) unsafe fn get_resource_desc(out: *mut CUDA_RESOURCE_DESC, h: CUsurfObject) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let Desc(r, _) = *OBJECTS.lock().get(&h).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = r };
    Ok(())
}

/// Destroys the surface objects made in context `ctx` (its handle): what destroying or
/// resetting the context does to them, as to its modules and memory.
pub(crate) fn release_context(ctx: usize) {
    OBJECTS.lock().retain(|&h, d| {
        if d.1 == ctx {
            engine::surf::SURFACES.unregister(h);
        }
        d.1 != ctx
    });
}
