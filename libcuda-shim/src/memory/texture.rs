//! Texture objects (cuTexObjectCreate and its queries): each is validated as the driver
//! documents, then registered with the engine (`engine::tex`) under its handle, which `tex` and
//! `tld4` in kernels name. Resources: 1D, 2D and 3D CUDA arrays, linear memory and pitched 2D
//! memory, in the 8/16/32-bit integer, half and float formats (and the UNORM/SNORM 8/16-bit
//! ones). Refused with CUDA_ERROR_NOT_SUPPORTED, loudly: mipmapped, layered and cubemap arrays,
//! resource views, sRGB, and the packed formats (the sampler has none of them yet).

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE, NOT_SUPPORTED};
use crate::memory::array::{self, limit};
use abi::*;
use engine::tex::{AddressMode, Channel, Filter, Texture};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The descriptors a texture object was created from, for the queries, and the context it
/// belongs to (its handle), which takes it along when destroyed or reset.
#[derive(Clone, Copy)]
struct Descs(CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC, usize);
// SAFETY: the array handles inside are plain values (keys of the array table), never
// dereferenced through this copy.
unsafe impl Send for Descs {}

/// What each live handle was created from.
static OBJECTS: Lazy<Mutex<HashMap<CUtexObject, Descs>>> = Lazy::new(Default::default);
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The engine's channel type of `format`, and whether its integers always read normalised
/// (the UNORM/SNORM formats).
fn channel(format: CUarray_format) -> CuResult<(Channel, bool)> {
    use CUarray_format as F;
    Ok(match format {
        F::CU_AD_FORMAT_UNSIGNED_INT8 => (Channel::U8, false),
        F::CU_AD_FORMAT_SIGNED_INT8 => (Channel::S8, false),
        F::CU_AD_FORMAT_UNSIGNED_INT16 => (Channel::U16, false),
        F::CU_AD_FORMAT_SIGNED_INT16 => (Channel::S16, false),
        F::CU_AD_FORMAT_UNSIGNED_INT32 => (Channel::U32, false),
        F::CU_AD_FORMAT_SIGNED_INT32 => (Channel::S32, false),
        F::CU_AD_FORMAT_HALF => (Channel::F16, false),
        F::CU_AD_FORMAT_FLOAT => (Channel::F32, false),
        F::CU_AD_FORMAT_UNORM_INT8X1
        | F::CU_AD_FORMAT_UNORM_INT8X2
        | F::CU_AD_FORMAT_UNORM_INT8X4 => (Channel::U8, true),
        F::CU_AD_FORMAT_SNORM_INT8X1
        | F::CU_AD_FORMAT_SNORM_INT8X2
        | F::CU_AD_FORMAT_SNORM_INT8X4 => (Channel::S8, true),
        F::CU_AD_FORMAT_UNORM_INT16X1
        | F::CU_AD_FORMAT_UNORM_INT16X2
        | F::CU_AD_FORMAT_UNORM_INT16X4 => (Channel::U16, true),
        F::CU_AD_FORMAT_SNORM_INT16X1
        | F::CU_AD_FORMAT_SNORM_INT16X2
        | F::CU_AD_FORMAT_SNORM_INT16X4 => (Channel::S16, true),
        // Valid array formats the sampler does not decode yet (packed, video, compressed).
        f if array::element_size(f, 1).is_ok() || array::element_size(f, 4).is_ok() => {
            return Err(NOT_SUPPORTED)
        }
        _ => return Err(INVALID_VALUE),
    })
}

/// The texels a resource descriptor names, as the engine addresses them (sampler fields unset).
fn resource(r: &CUDA_RESOURCE_DESC) -> CuResult<Texture> {
    if r.flags != 0 {
        return Err(INVALID_VALUE);
    }
    let texture = |base, size, row_pitch, slice_pitch, format, channels: u32| -> CuResult<_> {
        let (channel, normalized) = channel(format)?;
        if !matches!(channels, 1 | 2 | 4) {
            return Err(INVALID_VALUE);
        }
        Ok(Texture {
            base,
            size,
            row_pitch,
            slice_pitch,
            channel,
            channels: channels as u8,
            address: [AddressMode::Clamp; 3],
            filter: Filter::Point,
            normalized_coords: false,
            read_normalized: normalized,
            border: [0.0; 4],
        })
    };
    // The driver asks for CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT (512) and its allocations
    // always have it; this allocator guarantees 256 (the CUDA documentation's minimum), so
    // that is what is checked: every pointer cudaMalloc returns here must be usable.
    let aligned = |p: u64| p != 0 && p.is_multiple_of(256);
    match r.resType {
        CUresourcetype::CU_RESOURCE_TYPE_ARRAY => {
            // SAFETY: the union member resType names.
            let a = array::get(unsafe { r.res.array.hArray }).map_err(|_| INVALID_VALUE)?;
            let d = a.desc;
            if d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP) != 0 {
                return Err(NOT_SUPPORTED);
            }
            let row = a.row_bytes() as u64;
            let size = [d.Width as u32, a.rows() as u32, a.slices() as u32];
            texture(
                a.base,
                size,
                row,
                row * a.rows() as u64,
                d.Format,
                d.NumChannels,
            )
        }
        CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY => Err(NOT_SUPPORTED),
        CUresourcetype::CU_RESOURCE_TYPE_LINEAR => {
            // SAFETY: as above.
            let l = unsafe { r.res.linear };
            let elem = array::element_size(l.format, l.numChannels).map_err(|_| INVALID_VALUE)?;
            let n = l.sizeInBytes / elem;
            let max = limit(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
            if !aligned(l.devPtr) || n == 0 || n > max {
                return Err(INVALID_VALUE);
            }
            crate::memory::check_device(l.devPtr, n * elem).map_err(|_| INVALID_VALUE)?;
            let bytes = (n * elem) as u64;
            let mut t = texture(
                l.devPtr,
                [n as u32, 1, 1],
                bytes,
                bytes,
                l.format,
                l.numChannels,
            )?;
            // Linear memory ignores the sampler's address mode and filter: point fetches, and
            // an index outside the range reads zero.
            t.address = [AddressMode::Border; 3];
            Ok(t)
        }
        CUresourcetype::CU_RESOURCE_TYPE_PITCH2D => {
            // SAFETY: as above.
            let p = unsafe { r.res.pitch2D };
            let elem = array::element_size(p.format, p.numChannels).map_err(|_| INVALID_VALUE)?;
            let pitch_align =
                limit(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
            let ok = aligned(p.devPtr)
                && p.width > 0
                && p.height > 0
                && p.width
                    <= limit(
                        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
                    )
                && p.height
                    <= limit(
                        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
                    )
                && p.pitchInBytes.is_multiple_of(pitch_align)
                && p.pitchInBytes >= p.width * elem
                && p.pitchInBytes
                    <= limit(
                        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
                    );
            if !ok {
                return Err(INVALID_VALUE);
            }
            let bytes = (p.height - 1) * p.pitchInBytes + p.width * elem;
            crate::memory::check_device(p.devPtr, bytes).map_err(|_| INVALID_VALUE)?;
            let pitch = p.pitchInBytes as u64;
            let size = [p.width as u32, p.height as u32, 1];
            texture(
                p.devPtr,
                size,
                pitch,
                pitch * p.height as u64,
                p.format,
                p.numChannels,
            )
        }
        _ => Err(INVALID_VALUE),
    }
}

/// The sampler of a texture descriptor applied to `t`.
fn sampler(t: &mut Texture, d: &CUDA_TEXTURE_DESC, linear_memory: bool) -> CuResult {
    let known = CU_TRSF_READ_AS_INTEGER
        | CU_TRSF_NORMALIZED_COORDINATES
        | CU_TRSF_SRGB
        | CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION
        | CU_TRSF_SEAMLESS_CUBEMAP;
    if d.flags & !known != 0 {
        return Err(INVALID_VALUE);
    }
    if d.flags & CU_TRSF_SRGB != 0 {
        return Err(NOT_SUPPORTED);
    }
    // A 32-bit integer texture is never promoted; 8- and 16-bit ones are unless read as
    // integers (and the UNORM/SNORM formats always are).
    let small_int = matches!(
        t.channel,
        Channel::U8 | Channel::S8 | Channel::U16 | Channel::S16
    );
    t.read_normalized |= small_int && d.flags & CU_TRSF_READ_AS_INTEGER == 0;
    if linear_memory {
        return Ok(());
    }
    for (k, m) in d.addressMode.iter().enumerate() {
        t.address[k] = match *m {
            CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP => AddressMode::Wrap,
            CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP => AddressMode::Clamp,
            CUaddress_mode::CU_TR_ADDRESS_MODE_MIRROR => AddressMode::Mirror,
            CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER => AddressMode::Border,
            _ => return Err(INVALID_VALUE),
        };
    }
    t.filter = match d.filterMode {
        CUfilter_mode::CU_TR_FILTER_MODE_POINT => Filter::Point,
        CUfilter_mode::CU_TR_FILTER_MODE_LINEAR => Filter::Linear,
        _ => return Err(INVALID_VALUE),
    };
    t.normalized_coords = d.flags & CU_TRSF_NORMALIZED_COORDINATES != 0;
    t.border = d.borderColor;
    Ok(())
}

pub(crate) unsafe fn create(
    handle: *mut CUtexObject,
    res: *const CUDA_RESOURCE_DESC,
    tex: *const CUDA_TEXTURE_DESC,
    view: *const CUDA_RESOURCE_VIEW_DESC,
) -> CuResult {
    let ctx = context::active()?;
    if handle.is_null() || res.is_null() || tex.is_null() {
        return Err(INVALID_VALUE);
    }
    if !view.is_null() {
        return Err(NOT_SUPPORTED);
    }
    // SAFETY: checked non-null; the caller's descriptors.
    let (r, d) = unsafe { (*res, *tex) };
    let mut t = resource(&r)?;
    sampler(
        &mut t,
        &d,
        r.resType == CUresourcetype::CU_RESOURCE_TYPE_LINEAR,
    )?;
    let h = NEXT.fetch_add(1, Ordering::Relaxed);
    engine::tex::register(h, t);
    OBJECTS.lock().insert(h, Descs(r, d, ctx.handle() as usize));
    // SAFETY: checked non-null.
    unsafe { *handle = h };
    Ok(())
}

pub(crate) unsafe fn destroy(h: CUtexObject) -> CuResult {
    OBJECTS.lock().remove(&h).ok_or(INVALID_VALUE)?;
    engine::tex::unregister(h);
    Ok(())
}

pub(crate) unsafe fn get_resource_desc(out: *mut CUDA_RESOURCE_DESC, h: CUtexObject) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let Descs(r, ..) = *OBJECTS.lock().get(&h).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = r };
    Ok(())
}

pub(crate) unsafe fn get_texture_desc(out: *mut CUDA_TEXTURE_DESC, h: CUtexObject) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let Descs(_, d, _) = *OBJECTS.lock().get(&h).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = d };
    Ok(())
}

/// Destroys the texture objects made in context `ctx` (its handle): what destroying or
/// resetting the context does to them, as to its modules and memory.
pub(crate) fn release_context(ctx: usize) {
    OBJECTS.lock().retain(|&h, d| {
        if d.2 == ctx {
            engine::tex::unregister(h);
        }
        d.2 != ctx
    });
}
