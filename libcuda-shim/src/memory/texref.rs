//! Texture references, the legacy texture API (cuModuleGetTexRef and the cuTexRef* calls): a
//! module's `.texref` variable is an 8-byte global the engine reads as a texture handle (see
//! `engine::lower::tex`). Each reference keeps the binding and sampler state the calls set;
//! after every change it is rebuilt as a texture (validated as a texture object would be, by
//! `memory::texture::build`), registered with the engine under a fresh handle, and that handle
//! is written into the variable, so the next launch samples the new state. A reference whose
//! state does not form a texture yet (no binding, no format) holds handle 0, which a fetch
//! reports as no live texture.

use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE};
use crate::memory::{array, texture};
use abi::*;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a reference reads.
#[derive(Clone, Copy)]
enum Binding {
    None,
    Array(CUarray),
    Mipmap(CUmipmappedArray),
    Linear {
        ptr: u64,
        bytes: usize,
    },
    Pitch2D {
        ptr: u64,
        width: usize,
        height: usize,
        pitch: usize,
    },
}

struct TexRef {
    /// The module whose `.texref` variable this is (its handle) and the variable's device
    /// address; 0 for cuTexRefCreate's.
    module: usize,
    var: u64,
    binding: Binding,
    format: CUarray_format,
    channels: c_uint,
    /// The sampler state, as a texture object's descriptor carries it.
    desc: CUDA_TEXTURE_DESC,
    /// The engine handle the variable holds now (0: none).
    handle: u64,
}

// SAFETY: the array handles inside are plain values (keys of the array tables), never
// dereferenced through this copy.
unsafe impl Send for TexRef {}

impl TexRef {
    fn new(module: usize, var: u64) -> TexRef {
        // SAFETY: CUDA_TEXTURE_DESC is plain old data; all zeros is wrap, point, no flags.
        let desc: CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
        TexRef {
            module,
            var,
            binding: Binding::None,
            format: CUarray_format(0),
            channels: 0,
            desc,
            handle: 0,
        }
    }

    /// The resource descriptor of the binding, if there is one.
    fn resource(&self) -> Option<CUDA_RESOURCE_DESC> {
        // SAFETY: plain old data; the union member written is the one resType names.
        let mut r: CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        match self.binding {
            Binding::None => return None,
            Binding::Array(a) => {
                r.resType = CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
                r.res.array.hArray = a;
            }
            Binding::Mipmap(m) => {
                r.resType = CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
                r.res.mipmap.hMipmappedArray = m;
            }
            Binding::Linear { ptr, bytes } => {
                r.resType = CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
                // SAFETY: as above.
                let l = unsafe { &mut r.res.linear };
                l.devPtr = ptr;
                l.format = self.format;
                l.numChannels = self.channels;
                l.sizeInBytes = bytes;
            }
            Binding::Pitch2D {
                ptr,
                width,
                height,
                pitch,
            } => {
                r.resType = CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
                // SAFETY: as above.
                let p = unsafe { &mut r.res.pitch2D };
                p.devPtr = ptr;
                p.format = self.format;
                p.numChannels = self.channels;
                p.width = width;
                p.height = height;
                p.pitchInBytes = pitch;
            }
        }
        Some(r)
    }

    /// Registers the current state as a texture under a fresh handle and writes the handle
    /// into the variable (0 when the state forms no texture); the previous handle is dropped.
    fn rebind(&mut self) {
        let texture = self
            .resource()
            .and_then(|r| texture::build(&r, &self.desc, None).ok());
        let old = std::mem::replace(&mut self.handle, 0);
        if let Some(t) = texture {
            self.handle = texture::new_handle();
            engine::tex::TEXTURES.register(self.handle, t);
        }
        if self.var != 0 && engine::mem::contains(self.var, 8) {
            // SAFETY: eight bytes of live device memory, which the shim maps in this process.
            unsafe { (self.var as *mut u64).write_unaligned(self.handle) };
        }
        if old != 0 {
            engine::tex::TEXTURES.unregister(old);
        }
    }
}

/// Live references by handle (a counter's value, never dereferenced).
static REFS: Lazy<Mutex<HashMap<usize, TexRef>>> = Lazy::new(Default::default);
static NEXT: AtomicUsize = AtomicUsize::new(0x7e57_0000);

fn new_ref(r: TexRef) -> usize {
    let h = NEXT.fetch_add(16, Ordering::Relaxed);
    REFS.lock().insert(h, r);
    h
}

/// Runs `f` on the reference `h` (CUDA_ERROR_INVALID_VALUE for anything else, as the driver
/// answers a null reference).
fn with<T>(h: CUtexref, f: impl FnOnce(&mut TexRef) -> CuResult<T>) -> CuResult<T> {
    let mut refs = REFS.lock();
    let r = refs.get_mut(&(h as usize)).ok_or(INVALID_VALUE)?;
    f(r)
}

/// Changes the state of `h` and rebinds it. Kernels launched before read the old binding, as
/// with the driver: the work queued so far finishes first.
fn set(h: CUtexref, f: impl FnOnce(&mut TexRef) -> CuResult) -> CuResult {
    let ctx = crate::context::active()?;
    with(h, |r| {
        f(r)?;
        if r.var != 0 {
            ctx.wait_idle();
        }
        r.rebind();
        Ok(())
    })
}

/// Writes `v` through the out-pointer `out` (CUDA_ERROR_INVALID_VALUE when null).
fn put<T>(out: *mut T, v: T) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller's out-parameter.
    unsafe { out.write(v) };
    Ok(())
}

/// The reference of the `.texref` variable at device address `var` of module `module` (its
/// handle), made at the first call: the same variable gives the same reference.
pub(crate) fn for_variable(module: usize, var: u64) -> usize {
    let existing = REFS
        .lock()
        .iter()
        .find(|(_, r)| r.module == module && r.var == var)
        .map(|(h, _)| *h);
    existing.unwrap_or_else(|| new_ref(TexRef::new(module, var)))
}

pub(crate) unsafe fn create(out: *mut CUtexref) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let h = new_ref(TexRef::new(0, 0));
    put(out, h as CUtexref)
}

pub(crate) unsafe fn destroy(h: CUtexref) -> CuResult {
    let r = REFS.lock().remove(&(h as usize)).ok_or(INVALID_VALUE)?;
    if r.handle != 0 {
        engine::tex::TEXTURES.unregister(r.handle);
    }
    Ok(())
}

/// Whether `h` is a live reference (CUDA_ERROR_INVALID_VALUE if not).
pub(crate) fn check(h: CUtexref) -> CuResult {
    with(h, |_| Ok(()))
}

pub(crate) unsafe fn set_array(h: CUtexref, a: CUarray, flags: c_uint) -> CuResult {
    if flags != CU_TRSA_OVERRIDE_FORMAT {
        return Err(INVALID_VALUE);
    }
    let arr = array::get(a).map_err(|_| INVALID_HANDLE)?;
    set(h, |r| {
        r.binding = Binding::Array(a);
        r.format = arr.desc.Format;
        r.channels = arr.desc.NumChannels;
        Ok(())
    })
}

pub(crate) unsafe fn set_mipmapped_array(
    h: CUtexref,
    m: CUmipmappedArray,
    flags: c_uint,
) -> CuResult {
    if flags != CU_TRSA_OVERRIDE_FORMAT {
        return Err(INVALID_VALUE);
    }
    let levels = array::mipmap_levels(m).map_err(|_| INVALID_HANDLE)?;
    let d = levels.first().ok_or(INVALID_HANDLE)?.desc;
    set(h, |r| {
        r.binding = Binding::Mipmap(m);
        r.format = d.Format;
        r.channels = d.NumChannels;
        Ok(())
    })
}

/// The texture base alignment the driver applies to a linear binding: the address is rounded
/// down to it and the difference handed back as the byte offset fetches must add.
const ALIGN: u64 = 256;

pub(crate) unsafe fn set_address(
    offset: *mut usize,
    h: CUtexref,
    ptr: CUdeviceptr,
    bytes: usize,
) -> CuResult {
    crate::memory::check_device(ptr, bytes).map_err(|_| INVALID_VALUE)?;
    let base = ptr & !(ALIGN - 1);
    let off = (ptr - base) as usize;
    set(h, |r| {
        r.binding = Binding::Linear {
            ptr: base,
            bytes: bytes + off,
        };
        Ok(())
    })?;
    if !offset.is_null() {
        put(offset, off)?;
    }
    Ok(())
}

pub(crate) unsafe fn set_address_2d(
    h: CUtexref,
    desc: *const CUDA_ARRAY_DESCRIPTOR,
    ptr: CUdeviceptr,
    pitch: usize,
) -> CuResult {
    if desc.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller's descriptor.
    let d = unsafe { *desc };
    // The rows must lie in device memory, as a linear binding's bytes must (a pointer the
    // 32-bit ABI of cuTexRefSetAddress2D names never does).
    let bytes = pitch.checked_mul(d.Height).ok_or(INVALID_VALUE)?;
    crate::memory::check_device(ptr, bytes).map_err(|_| INVALID_VALUE)?;
    set(h, |r| {
        r.binding = Binding::Pitch2D {
            ptr,
            width: d.Width,
            height: d.Height,
            pitch,
        };
        r.format = d.Format;
        r.channels = d.NumChannels;
        Ok(())
    })
}

pub(crate) unsafe fn set_format(h: CUtexref, format: CUarray_format, channels: c_int) -> CuResult {
    array::element_size(format, channels as c_uint)?;
    set(h, |r| {
        r.format = format;
        r.channels = channels as c_uint;
        Ok(())
    })
}

pub(crate) unsafe fn set_address_mode(h: CUtexref, dim: c_int, mode: CUaddress_mode) -> CuResult {
    if !(0..3).contains(&dim) || mode.0 > CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER.0 {
        return Err(INVALID_VALUE);
    }
    set(h, |r| {
        r.desc.addressMode[dim as usize] = mode;
        Ok(())
    })
}

fn filter_ok(f: CUfilter_mode) -> CuResult {
    match f {
        CUfilter_mode::CU_TR_FILTER_MODE_POINT | CUfilter_mode::CU_TR_FILTER_MODE_LINEAR => Ok(()),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) unsafe fn set_filter_mode(h: CUtexref, f: CUfilter_mode) -> CuResult {
    filter_ok(f)?;
    set(h, |r| {
        r.desc.filterMode = f;
        Ok(())
    })
}

pub(crate) unsafe fn set_mipmap_filter_mode(h: CUtexref, f: CUfilter_mode) -> CuResult {
    filter_ok(f)?;
    set(h, |r| {
        r.desc.mipmapFilterMode = f;
        Ok(())
    })
}

pub(crate) unsafe fn set_mipmap_level_bias(h: CUtexref, bias: f32) -> CuResult {
    set(h, |r| {
        r.desc.mipmapLevelBias = bias;
        Ok(())
    })
}

pub(crate) unsafe fn set_mipmap_level_clamp(h: CUtexref, min: f32, max: f32) -> CuResult {
    set(h, |r| {
        r.desc.minMipmapLevelClamp = min;
        r.desc.maxMipmapLevelClamp = max;
        Ok(())
    })
}

pub(crate) unsafe fn set_max_anisotropy(h: CUtexref, n: c_uint) -> CuResult {
    set(h, |r| {
        r.desc.maxAnisotropy = n;
        Ok(())
    })
}

pub(crate) unsafe fn set_border_color(h: CUtexref, color: *mut f32) -> CuResult {
    if color.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the API passes four floats.
    let c = unsafe { std::slice::from_raw_parts(color, 4) };
    set(h, |r| {
        r.desc.borderColor.copy_from_slice(c);
        Ok(())
    })
}

pub(crate) unsafe fn set_flags(h: CUtexref, flags: c_uint) -> CuResult {
    set(h, |r| {
        r.desc.flags = flags;
        Ok(())
    })
}

pub(crate) unsafe fn get_address(out: *mut CUdeviceptr, h: CUtexref) -> CuResult {
    let p = with(h, |r| match r.binding {
        Binding::Linear { ptr, .. } | Binding::Pitch2D { ptr, .. } => Ok(ptr),
        _ => Err(INVALID_VALUE),
    })?;
    put(out, p)
}

pub(crate) unsafe fn get_array(out: *mut CUarray, h: CUtexref) -> CuResult {
    let a = with(h, |r| match r.binding {
        Binding::Array(a) => Ok(a),
        _ => Err(INVALID_VALUE),
    })?;
    put(out, a)
}

pub(crate) unsafe fn get_mipmapped_array(out: *mut CUmipmappedArray, h: CUtexref) -> CuResult {
    let m = with(h, |r| match r.binding {
        Binding::Mipmap(m) => Ok(m),
        _ => Err(INVALID_VALUE),
    })?;
    put(out, m)
}

pub(crate) unsafe fn get_address_mode(
    out: *mut CUaddress_mode,
    h: CUtexref,
    dim: c_int,
) -> CuResult {
    if !(0..3).contains(&dim) {
        return Err(INVALID_VALUE);
    }
    let m = with(h, |r| Ok(r.desc.addressMode[dim as usize]))?;
    put(out, m)
}

pub(crate) unsafe fn get_filter_mode(out: *mut CUfilter_mode, h: CUtexref) -> CuResult {
    let f = with(h, |r| Ok(r.desc.filterMode))?;
    put(out, f)
}

pub(crate) unsafe fn get_mipmap_filter_mode(out: *mut CUfilter_mode, h: CUtexref) -> CuResult {
    let f = with(h, |r| Ok(r.desc.mipmapFilterMode))?;
    put(out, f)
}

pub(crate) unsafe fn get_mipmap_level_bias(out: *mut f32, h: CUtexref) -> CuResult {
    let b = with(h, |r| Ok(r.desc.mipmapLevelBias))?;
    put(out, b)
}

pub(crate) unsafe fn get_mipmap_level_clamp(min: *mut f32, max: *mut f32, h: CUtexref) -> CuResult {
    let (lo, hi) = with(h, |r| {
        Ok((r.desc.minMipmapLevelClamp, r.desc.maxMipmapLevelClamp))
    })?;
    if max.is_null() {
        return Err(INVALID_VALUE);
    }
    put(min, lo)?;
    put(max, hi)
}

pub(crate) unsafe fn get_max_anisotropy(out: *mut c_int, h: CUtexref) -> CuResult {
    let n = with(h, |r| Ok(r.desc.maxAnisotropy as c_int))?;
    put(out, n)
}

pub(crate) unsafe fn get_border_color(out: *mut f32, h: CUtexref) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let c = with(h, |r| Ok(r.desc.borderColor))?;
    // SAFETY: checked non-null; the API passes room for four floats.
    unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), out, 4) };
    Ok(())
}

pub(crate) unsafe fn get_flags(out: *mut c_uint, h: CUtexref) -> CuResult {
    let f = with(h, |r| Ok(r.desc.flags))?;
    put(out, f)
}

pub(crate) unsafe fn get_format(
    format: *mut CUarray_format,
    channels: *mut c_int,
    h: CUtexref,
) -> CuResult {
    let (f, n) = with(h, |r| Ok((r.format, r.channels as c_int)))?;
    if !format.is_null() {
        put(format, f)?;
    }
    if !channels.is_null() {
        put(channels, n)?;
    }
    Ok(())
}

/// Forgets the references of a module being unloaded (`module`: its handle), with their
/// engine textures.
pub(crate) fn release(module: usize) {
    REFS.lock().retain(|_, r| {
        let doomed = r.module == module;
        if doomed && r.handle != 0 {
            engine::tex::TEXTURES.unregister(r.handle);
        }
        !doomed
    });
}
