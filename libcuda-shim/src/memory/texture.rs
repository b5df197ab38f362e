//! Texture objects (cuTexObjectCreate and its queries): each is validated as the driver
//! documents, then registered with the engine (`engine::tex`) under its handle, which `tex`,
//! `tld4` and `txq` in kernels name. Resources: 1D, 2D and 3D CUDA arrays, layered and cubemap
//! arrays, mipmapped arrays, linear memory and pitched 2D memory, in the 8/16/32-bit integer,
//! half and float formats (and the UNORM/SNORM 8/16-bit ones), with resource views over
//! arrays, seamless cubemap filtering, and arrays of the block-compressed formats BC1 to BC7
//! (decoded by `engine::bc`), or block-compressed views of 32-bit unsigned arrays. Refused
//! with CUDA_ERROR_NOT_SUPPORTED, loudly: the packed formats (the sampler has none of them yet).

use crate::context;
use crate::errors::{CuResult, INVALID_VALUE, NOT_SUPPORTED};
use crate::memory::array::{self, limit};
use abi::*;
use engine::bc;
use engine::tex::{AddressMode, Channel, Filter, Level, Mip, Texture};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The descriptors a texture object was created from, for the queries, and the context it
/// belongs to (its handle), which takes it along when destroyed or reset.
#[derive(Clone, Copy)]
struct Descs(
    CUDA_RESOURCE_DESC,
    CUDA_TEXTURE_DESC,
    usize,
    Option<CUDA_RESOURCE_VIEW_DESC>,
);
// SAFETY: the array handles inside are plain values (keys of the array table), never
// dereferenced through this copy.
unsafe impl Send for Descs {}

/// What each live handle was created from.
static OBJECTS: Lazy<Mutex<HashMap<CUtexObject, Descs>>> = Lazy::new(Default::default);
static NEXT: AtomicU64 = AtomicU64::new(1);

/// The engine's channel type of `format`, and whether its integers always read normalised
/// (the UNORM/SNORM formats).
pub(crate) fn channel(format: CUarray_format) -> CuResult<(Channel, bool)> {
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
        // Valid array formats the sampler does not decode as elements (packed, video; the
        // block-compressed ones only as arrays' textures, `block_format`).
        f if array::element_size(f, 1).is_ok()
            || array::element_size(f, 4).is_ok()
            || array::is_block_compressed(f) =>
        {
            return Err(NOT_SUPPORTED)
        }
        _ => return Err(INVALID_VALUE),
    })
}

/// A block-compressed array format: the decoder's format, whether it is sRGB-encoded, and the
/// channel type and count the texture unit returns (8-bit normalised colours for BC1-BC3 and
/// BC7, 16-bit fractions for BC4 and BC5, halves for BC6H; see `engine::bc`).
fn block_format(f: CUarray_format) -> Option<(bc::Format, bool, Channel, u8)> {
    use bc::Format as B;
    Some(match f.0 {
        0x91 => (B::Bc1, false, Channel::U8, 4),
        0x92 => (B::Bc1, true, Channel::U8, 4),
        0x93 => (B::Bc2, false, Channel::U8, 4),
        0x94 => (B::Bc2, true, Channel::U8, 4),
        0x95 => (B::Bc3, false, Channel::U8, 4),
        0x96 => (B::Bc3, true, Channel::U8, 4),
        0x97 => (B::Bc4, false, Channel::U16, 1),
        0x98 => (B::Bc4Signed, false, Channel::S16, 1),
        0x99 => (B::Bc5, false, Channel::U16, 2),
        0x9a => (B::Bc5Signed, false, Channel::S16, 2),
        0x9b => (B::Bc6h, false, Channel::F16, 4),
        0x9c => (B::Bc6hSigned, false, Channel::F16, 4),
        0x9d => (B::Bc7, false, Channel::U8, 4),
        0x9e => (B::Bc7, true, Channel::U8, 4),
        _ => return None,
    })
}

/// The level an array (or one level of a mipmapped array) holds: a layered or cubemap array's
/// layers are its slices, so its depth is 1.
fn array_level(a: &array::Array) -> Level {
    let d = a.desc;
    let layered = d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP) != 0;
    let row = a.row_bytes() as u64;
    let depth = if layered { 1 } else { a.slices() as u32 };
    Level {
        base: a.base,
        // In texels (a block-compressed array's rows are rows of blocks).
        size: [d.Width as u32, d.Height.max(1) as u32, depth],
        row_pitch: row,
        slice_pitch: row * a.rows() as u64,
    }
}

/// A texture over `levels` of the arrays `a` (one, or a mipmapped array's), level 0 first.
fn array_texture(arrays: &[std::sync::Arc<array::Array>], mipmapped: bool) -> CuResult<Texture> {
    let d = arrays.first().ok_or(INVALID_VALUE)?.desc;
    let block = block_format(d.Format);
    let (channel, normalized, channels) = match block {
        // Block-compressed texels always read as floats.
        Some((_, _, channel, n)) => (channel, channel != Channel::F16, n),
        None => {
            let (channel, normalized) = channel(d.Format)?;
            if !matches!(d.NumChannels, 1 | 2 | 4) {
                return Err(INVALID_VALUE);
            }
            (channel, normalized, d.NumChannels as u8)
        }
    };
    let mut levels = arrays.iter().map(|a| array_level(a));
    let mut t = Texture::new(levels.next().ok_or(INVALID_VALUE)?, channel, channels);
    t.bc = block.map(|b| b.0);
    t.levels.extend(levels);
    t.mipmapped = mipmapped;
    t.read_normalized = normalized;
    t.cubemap = d.Flags & CUDA_ARRAY3D_CUBEMAP != 0;
    if d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP) != 0 {
        t.layers = arrays[0].slices() as u32;
    }
    Ok(t)
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
        let level = Level {
            base,
            size,
            row_pitch,
            slice_pitch,
        };
        let mut t = Texture::new(level, channel, channels as u8);
        t.read_normalized = normalized;
        Ok(t)
    };
    // The driver asks for CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT (512) and its allocations
    // always have it; this allocator guarantees 256 (the CUDA documentation's minimum), so
    // that is what is checked: every pointer cudaMalloc returns here must be usable.
    let aligned = |p: u64| p != 0 && p.is_multiple_of(256);
    match r.resType {
        CUresourcetype::CU_RESOURCE_TYPE_ARRAY => {
            // SAFETY: the union member resType names.
            let a = array::get(unsafe { r.res.array.hArray }).map_err(|_| INVALID_VALUE)?;
            array_texture(&[a], false)
        }
        CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY => {
            // SAFETY: as above.
            let h = unsafe { r.res.mipmap.hMipmappedArray };
            let levels = array::mipmap_levels(h).map_err(|_| INVALID_VALUE)?;
            array_texture(&levels, true)
        }
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

/// A block-compressed resource view format (CU_RES_VIEW_FORMAT_*_BC*): the decoder's format,
/// the channel type and count its texels read as (as `block_format`'s), and the channels of
/// the 32-bit unsigned array it views (cuTexObjectCreate's documentation: 2 for BC1 and BC4,
/// one element per block of 8 bytes; 4 for the others, 16 bytes).
fn view_block_format(f: CUresourceViewFormat) -> Option<(bc::Format, Channel, u8, u8)> {
    use bc::Format as B;
    Some(match f.0 {
        0x19 => (B::Bc1, Channel::U8, 4, 2),
        0x1a => (B::Bc2, Channel::U8, 4, 4),
        0x1b => (B::Bc3, Channel::U8, 4, 4),
        0x1c => (B::Bc4, Channel::U16, 1, 2),
        0x1d => (B::Bc4Signed, Channel::S16, 1, 2),
        0x1e => (B::Bc5, Channel::U16, 2, 4),
        0x1f => (B::Bc5Signed, Channel::S16, 2, 4),
        0x20 => (B::Bc6h, Channel::F16, 4, 4),
        0x21 => (B::Bc6hSigned, Channel::F16, 4, 4),
        0x22 => (B::Bc7, Channel::U8, 4, 4),
        _ => return None,
    })
}

/// The channel type and count of a resource view format; `None` for
/// CU_RES_VIEW_FORMAT_NONE (the resource's own) and for the block-compressed formats
/// (`view_block_format`).
fn view_format(f: CUresourceViewFormat) -> CuResult<Option<(Channel, u8)>> {
    let v = f.0 as usize;
    if v == 0 {
        return Ok(None);
    }
    let kinds = [
        Channel::U8,
        Channel::S8,
        Channel::U16,
        Channel::S16,
        Channel::U32,
        Channel::S32,
        Channel::F16,
        Channel::F32,
    ];
    match v {
        1..=24 => Ok(Some((kinds[(v - 1) / 3], [1, 2, 4][(v - 1) % 3]))),
        25..=34 => Ok(None),
        _ => Err(INVALID_VALUE),
    }
}

/// A resource view (`CUDA_RESOURCE_VIEW_DESC`) applied to the texture of an array or a
/// mipmapped array: its format reinterprets texels of the same size, its extent must be the
/// resource's, its level range picks levels (from the resource's levels) and its layer range
/// picks layers (a range of whole cubemaps for a cubemap array).
fn apply_view(t: &mut Texture, r: &CUDA_RESOURCE_DESC, v: &CUDA_RESOURCE_VIEW_DESC) -> CuResult {
    let arrays = matches!(
        r.resType,
        CUresourcetype::CU_RESOURCE_TYPE_ARRAY | CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
    );
    if !arrays || v.reserved.iter().any(|&x| x != 0) {
        return Err(INVALID_VALUE);
    }
    if let Some((channel, channels)) = view_format(v.format)? {
        // A block-compressed array's texels have no element to reinterpret.
        if t.bc.is_some() {
            return Err(INVALID_VALUE);
        }
        if channel.bytes() * channels as usize != t.texel_bytes() as usize {
            return Err(INVALID_VALUE);
        }
        t.channel = channel;
        t.channels = channels;
        t.read_normalized = false;
    }
    // A block-compressed view of a 32-bit unsigned array: each element is a block, the
    // view's extent in texels four times the array's (cuTexObjectCreate's documentation).
    let block = view_block_format(v.format);
    let scale = if let Some((_, _, _, elements)) = block {
        if t.bc.is_some() || t.channel != Channel::U32 || t.channels != elements {
            return Err(INVALID_VALUE);
        }
        4
    } else {
        1
    };
    let (first, last) = (v.firstMipmapLevel as usize, v.lastMipmapLevel as usize);
    let (l0, l1) = (v.firstLayer, v.lastLayer);
    // The extent is the resource's (a missing dimension may be given as 0 or 1), a layered
    // resource's depth its number of layers, not the view's (measured on an H200,
    // scripts/ground-truth/results/tex3-h200.txt: layers 1-2 of 3 with depth 3 are accepted,
    // with depth 2 refused).
    let base = &t.levels[0];
    let dim_ok = |given: usize, have: u32| given == have as usize || (have == 1 && given == 0);
    let depth_ok = if t.layers > 0 {
        v.depth == t.layers as usize
    } else {
        dim_ok(v.depth, base.size[2])
    };
    let size_ok = if scale == 1 {
        v.width == base.size[0] as usize && dim_ok(v.height, base.size[1]) && depth_ok
    } else {
        v.width == 4 * base.size[0] as usize && v.height == 4 * base.size[1] as usize && depth_ok
    };
    // The last layer may be one past the resource's last (measured on an H200: layers 0-3 of
    // a 3-layer array are accepted; what is further out was not asked). The view then holds
    // the layers there are.
    let layers_ok = if t.layers == 0 {
        l0 == 0 && l1 == 0
    } else if t.cubemap {
        l0 % 6 == 0 && l1 % 6 == 5 && l1 < t.layers
    } else {
        l0 < t.layers && l1 <= t.layers
    };
    if !size_ok || first > last || last >= t.levels.len() || l0 > l1 || !layers_ok {
        return Err(INVALID_VALUE);
    }
    t.levels = t.levels[first..=last].to_vec();
    if let Some((f, channel, channels, _)) = block {
        for lv in t.levels.iter_mut() {
            lv.size[0] *= 4;
            lv.size[1] *= 4;
        }
        t.bc = Some(f);
        t.channel = channel;
        t.channels = channels;
        t.read_normalized = channel != Channel::F16;
    }
    if t.layers > 0 {
        for lv in t.levels.iter_mut() {
            lv.base += l0 as u64 * lv.slice_pitch;
        }
        t.layers = l1.min(t.layers - 1) - l0 + 1;
    }
    Ok(())
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
    // Linear filtering reaches across a cubemap's edges (point sampling clamps, as without).
    t.seamless = t.cubemap && d.flags & CU_TRSF_SEAMLESS_CUBEMAP != 0;
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
    t.mip = Mip {
        filter: match d.mipmapFilterMode {
            CUfilter_mode::CU_TR_FILTER_MODE_POINT => Filter::Point,
            CUfilter_mode::CU_TR_FILTER_MODE_LINEAR => Filter::Linear,
            _ => return Err(INVALID_VALUE),
        },
        bias: d.mipmapLevelBias,
        min: d.minMipmapLevelClamp,
        max: d.maxMipmapLevelClamp,
        max_anisotropy: d.maxAnisotropy,
    };
    // sRGB decoding applies to 8-bit unsigned colour channels read as normalised floats.
    t.srgb = d.flags & CU_TRSF_SRGB != 0 && t.channel == Channel::U8 && t.read_normalized;
    Ok(())
}

/// The engine's texture for a resource, a texture descriptor and an optional resource view,
/// validated.
pub(crate) fn build(
    r: &CUDA_RESOURCE_DESC,
    d: &CUDA_TEXTURE_DESC,
    v: Option<&CUDA_RESOURCE_VIEW_DESC>,
) -> CuResult<Texture> {
    let mut t = resource(r)?;
    if let Some(v) = v {
        apply_view(&mut t, r, v)?;
    }
    // An sRGB-encoded block-compressed array needs the sRGB flag (cudaErrorInvalidValue without
    // it on an H200, as issue 15 reports; tex_probe7.cu always sets it, so tex7-h200.txt does
    // not show it); its texels decode through the curve.
    if srgb_array(r) && d.flags & CU_TRSF_SRGB == 0 {
        return Err(INVALID_VALUE);
    }
    sampler(
        &mut t,
        d,
        r.resType == CUresourcetype::CU_RESOURCE_TYPE_LINEAR,
    )?;
    Ok(t)
}

/// Whether the resource is an array (or mipmapped array) of an sRGB block-compressed format.
fn srgb_array(r: &CUDA_RESOURCE_DESC) -> bool {
    let format = match r.resType {
        // SAFETY: the union member resType names.
        CUresourcetype::CU_RESOURCE_TYPE_ARRAY => array::get(unsafe { r.res.array.hArray })
            .map(|a| a.desc.Format)
            .ok(),
        CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY => {
            // SAFETY: as above.
            array::mipmap_levels(unsafe { r.res.mipmap.hMipmappedArray })
                .ok()
                .and_then(|l| l.first().map(|a| a.desc.Format))
        }
        _ => None,
    };
    format.and_then(block_format).is_some_and(|b| b.1)
}

/// A handle no texture has had: texture objects and texture references share the numbering.
pub(crate) fn new_handle() -> u64 {
    NEXT.fetch_add(1, Ordering::Relaxed)
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
    // SAFETY: checked non-null; the caller's descriptors (the view is optional).
    let (r, d, v) = unsafe { (*res, *tex, view.as_ref().copied()) };
    let t = build(&r, &d, v.as_ref())?;
    let h = new_handle();
    engine::tex::TEXTURES.register(h, t);
    OBJECTS
        .lock()
        .insert(h, Descs(r, d, ctx.handle() as usize, v));
    // SAFETY: checked non-null.
    unsafe { *handle = h };
    Ok(())
}

pub(crate) unsafe fn destroy(h: CUtexObject) -> CuResult {
    OBJECTS.lock().remove(&h).ok_or(INVALID_VALUE)?;
    engine::tex::TEXTURES.unregister(h);
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

/// The resource view a texture object was created with (CUDA_ERROR_INVALID_VALUE when it has
/// none, as the runtime documents for cudaGetTextureObjectResourceViewDesc).
pub(crate) unsafe fn get_resource_view_desc(
    out: *mut CUDA_RESOURCE_VIEW_DESC,
    h: CUtexObject,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let Descs(.., v) = *OBJECTS.lock().get(&h).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = v.ok_or(INVALID_VALUE)? };
    Ok(())
}

pub(crate) unsafe fn get_texture_desc(out: *mut CUDA_TEXTURE_DESC, h: CUtexObject) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let Descs(_, d, ..) = *OBJECTS.lock().get(&h).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = d };
    Ok(())
}

/// Destroys the texture objects made in context `ctx` (its handle): what destroying or
/// resetting the context does to them, as to its modules and memory.
pub(crate) fn release_context(ctx: usize) {
    OBJECTS.lock().retain(|&h, d| {
        if d.2 == ctx {
            engine::tex::TEXTURES.unregister(h);
        }
        d.2 != ctx
    });
}
