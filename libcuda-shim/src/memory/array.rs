//! CUDA arrays and mipmapped arrays (cuArrayCreate, cuArray3DCreate, cuMipmappedArrayCreate and
//! their queries). No texture or surface unit is emulated, so an array's layout is ours: only
//! copies (`copy`: the array forms of every memcpy) see it.
//!
//! Layout: one device allocation per array, row-major and dense. Element `(x, y, z)` of an array
//! of `W x H x D` elements of `E` bytes (`E` = the format's component size times the channel
//! count, or the packed element size) is at byte `((z * max(H, 1) + y) * W + x) * E`; layers of a
//! layered array and the faces of a cubemap are the `z` slices, in the order the driver documents
//! (`CUarray_cubemap_face`). The 1D copies (`cuMemcpyHtoA` ...) address this storage as bytes
//! from offset 0. A mipmapped array is one such array per level, each level halving every
//! dimension (not the layer count) down to 1.
//!
//! Formats: the integer, half, float and normalised-integer formats with 1, 2 or 4 channels, and
//! the packed video formats (one element per pixel). The planar and semi-planar video formats
//! (which need `cuArrayGetPlane`) return CUDA_ERROR_NOT_SUPPORTED, as do sparse arrays.
//!
//! Block-compressed formats (BC1 to BC7): the extent is in texels, the storage in 4 x 4 blocks
//! of 8 or 16 bytes (the element size): a row is a row of blocks, the rows a slice has are its
//! block rows (a partial block at the edge counts whole), so the copies move blocks, as the
//! driver's do (a 2-D copy's width in bytes of a block row, its height in block rows).

use crate::config;
use crate::context;
use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE, NOT_SUPPORTED};
use abi::*;
use engine::mem as dmem;
use once_cell::sync::Lazy;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::ffi::c_uint;
use std::sync::Arc;

/// One CUDA array (or one level of a mipmapped array).
#[derive(Debug)]
pub struct Array {
    /// Device address of the storage.
    pub base: u64,
    /// The descriptor as created (Height/Depth 0 for the missing dimensions).
    pub desc: CUDA_ARRAY3D_DESCRIPTOR,
    /// Bytes per element.
    pub elem: usize,
    /// Bytes of storage.
    pub size: usize,
    /// Levels belong to their mipmapped array: cuArrayDestroy refuses them.
    is_level: bool,
    /// A block-compressed format: `elem` is a 4 x 4 block.
    pub block: bool,
}

impl Array {
    /// Bytes per row.
    pub fn row_bytes(&self) -> usize {
        if self.block {
            self.desc.Width.div_ceil(4) * self.elem
        } else {
            self.desc.Width * self.elem
        }
    }

    /// Rows per slice (1 for a 1D array; block rows of a block-compressed array).
    pub fn rows(&self) -> usize {
        if self.block {
            self.desc.Height.max(1).div_ceil(4)
        } else {
            self.desc.Height.max(1)
        }
    }

    /// Slices: depth, layers or cubemap faces (1 for 1D and 2D arrays).
    pub fn slices(&self) -> usize {
        self.desc.Depth.max(1)
    }
}

/// A mipmapped array: the handles of its levels, most detailed first.
#[derive(Debug)]
struct Mipmap {
    desc: CUDA_ARRAY3D_DESCRIPTOR,
    levels: Vec<usize>,
}

/// Live arrays by handle. Handles are the addresses of the `Arc`s (unique while registered),
/// so a stale or garbage handle is a map miss, never a dereference.
static ARRAYS: Lazy<RwLock<HashMap<usize, Arc<Array>>>> = Lazy::new(Default::default);
static MIPMAPS: Lazy<RwLock<HashMap<usize, Arc<Mipmap>>>> = Lazy::new(Default::default);

/// The array behind a handle (CUDA_ERROR_INVALID_HANDLE for anything else).
pub(crate) fn get(h: CUarray) -> CuResult<Arc<Array>> {
    ARRAYS
        .read()
        .get(&(h as usize))
        .cloned()
        .ok_or(INVALID_HANDLE)
}

type F = CUarray_format;

/// Whether `format` is block-compressed (BC1 to BC7).
pub(crate) fn is_block_compressed(format: F) -> bool {
    (0x91..=0x9e).contains(&format.0)
}

/// The bytes of a 4 x 4 block of a block-compressed format and the channels the driver
/// documents for it (`cuda.h`: BC1-BC3 and BC7 4, BC4 1, BC5 2, BC6H 3).
fn block_format(format: F) -> (usize, c_uint) {
    match format.0 {
        0x91 | 0x92 => (8, 4),
        0x97 | 0x98 => (8, 1),
        0x99 | 0x9a => (16, 2),
        0x9b | 0x9c => (16, 3),
        _ => (16, 4),
    }
}

/// Bytes per element of `format` with `channels` channels, or the error cuArray3DCreate gives.
pub(crate) fn element_size(format: F, channels: c_uint) -> CuResult<usize> {
    if is_block_compressed(format) {
        // The element is a block; the channel count is the format's.
        let (bytes, n) = block_format(format);
        return if channels == n {
            Ok(bytes)
        } else {
            Err(INVALID_VALUE)
        };
    }
    if !matches!(channels, 1 | 2 | 4) {
        return Err(INVALID_VALUE);
    }
    let per_channel = |bytes: usize| Ok(bytes * channels as usize);
    // Formats whose name fixes the channel count: NumChannels must agree.
    let fixed = |n: c_uint, component: usize| {
        if channels == n {
            Ok(component * n as usize)
        } else {
            Err(INVALID_VALUE)
        }
    };
    match format {
        F::CU_AD_FORMAT_UNSIGNED_INT8 | F::CU_AD_FORMAT_SIGNED_INT8 => per_channel(1),
        F::CU_AD_FORMAT_UNSIGNED_INT16 | F::CU_AD_FORMAT_SIGNED_INT16 | F::CU_AD_FORMAT_HALF => {
            per_channel(2)
        }
        F::CU_AD_FORMAT_UNSIGNED_INT32 | F::CU_AD_FORMAT_SIGNED_INT32 | F::CU_AD_FORMAT_FLOAT => {
            per_channel(4)
        }
        F::CU_AD_FORMAT_UNORM_INT8X1 | F::CU_AD_FORMAT_SNORM_INT8X1 => fixed(1, 1),
        F::CU_AD_FORMAT_UNORM_INT8X2 | F::CU_AD_FORMAT_SNORM_INT8X2 => fixed(2, 1),
        F::CU_AD_FORMAT_UNORM_INT8X4 | F::CU_AD_FORMAT_SNORM_INT8X4 => fixed(4, 1),
        F::CU_AD_FORMAT_UNORM_INT16X1 | F::CU_AD_FORMAT_SNORM_INT16X1 => fixed(1, 2),
        F::CU_AD_FORMAT_UNORM_INT16X2 | F::CU_AD_FORMAT_SNORM_INT16X2 => fixed(2, 2),
        F::CU_AD_FORMAT_UNORM_INT16X4 | F::CU_AD_FORMAT_SNORM_INT16X4 => fixed(4, 2),
        // Packed formats: one 32-bit word holds the whole element (10:10:10:2), or one element
        // per pixel of the packed YUV layouts (4:2:2 shares chroma between two pixels: 2 bytes
        // per pixel at 8 bits, 4 at 10/16 bits).
        F::CU_AD_FORMAT_UNORM_INT_101010_2 => Ok(4),
        F::CU_AD_FORMAT_UINT8_PACKED_422 | F::CU_AD_FORMAT_YUY2 => Ok(2),
        F::CU_AD_FORMAT_Y210 | F::CU_AD_FORMAT_Y216 => Ok(4),
        F::CU_AD_FORMAT_UINT8_PACKED_444 | F::CU_AD_FORMAT_AYUV | F::CU_AD_FORMAT_Y410 => Ok(4),
        F::CU_AD_FORMAT_Y416 => Ok(8),
        // Planar / semi-planar video formats (several planes: cuArrayGetPlane): not emulated.
        F::CU_AD_FORMAT_NV12
        | F::CU_AD_FORMAT_NV16
        | F::CU_AD_FORMAT_P010
        | F::CU_AD_FORMAT_P016
        | F::CU_AD_FORMAT_P210
        | F::CU_AD_FORMAT_P216
        | F::CU_AD_FORMAT_Y444_PLANAR8
        | F::CU_AD_FORMAT_Y444_PLANAR10
        | F::CU_AD_FORMAT_YUV444_8bit_SemiPlanar
        | F::CU_AD_FORMAT_YUV444_16bit_SemiPlanar => Err(NOT_SUPPORTED),
        f if (0x53..=0x5e).contains(&f.0) => Err(NOT_SUPPORTED),
        _ => Err(INVALID_VALUE),
    }
}

const KNOWN_FLAGS: u32 = CUDA_ARRAY3D_LAYERED
    | CUDA_ARRAY3D_SURFACE_LDST
    | CUDA_ARRAY3D_CUBEMAP
    | CUDA_ARRAY3D_TEXTURE_GATHER
    | CUDA_ARRAY3D_DEPTH_TEXTURE
    | CUDA_ARRAY3D_COLOR_ATTACHMENT
    | CUDA_ARRAY3D_SPARSE
    | CUDA_ARRAY3D_DEFERRED_MAPPING
    | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;

/// The device limit named by `attr`.
pub(crate) fn limit(attr: CUdevice_attribute) -> usize {
    config::profile().attribute(attr).unwrap_or(0).max(0) as usize
}

/// Checks a descriptor against the table in cuArray3DCreate's documentation (array kinds and
/// their extents, texture limits or, with CUDA_ARRAY3D_SURFACE_LDST, surface limits) and returns
/// the element size.
pub(crate) fn validate(d: &CUDA_ARRAY3D_DESCRIPTOR) -> CuResult<usize> {
    use CUdevice_attribute as A;
    if d.Flags & !KNOWN_FLAGS != 0 {
        return Err(INVALID_VALUE);
    }
    let elem = element_size(d.Format, d.NumChannels)?;
    if d.Flags & CUDA_ARRAY3D_SPARSE != 0 {
        // Sparse arrays need cuMemMapArrayAsync's tile mappings.
        return Err(NOT_SUPPORTED);
    }
    let (w, h, depth) = (d.Width, d.Height, d.Depth);
    let layered = d.Flags & CUDA_ARRAY3D_LAYERED != 0;
    let cubemap = d.Flags & CUDA_ARRAY3D_CUBEMAP != 0;
    let surface = d.Flags & CUDA_ARRAY3D_SURFACE_LDST != 0;
    let pick = |texture: A, surf: A| limit(if surface { surf } else { texture });
    if w == 0 {
        return Err(INVALID_VALUE);
    }
    // Each kind: the ranges of width, height and depth (or layers).
    let fits = if cubemap {
        let faces_ok = if layered {
            depth > 0 && depth.is_multiple_of(6)
        } else {
            depth == 6
        };
        let (max_w, max_layers) = if layered {
            (
                pick(
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH,
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH,
                ),
                pick(
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS,
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS,
                ),
            )
        } else {
            (
                pick(
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH,
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH,
                ),
                6,
            )
        };
        w == h && faces_ok && w <= max_w && depth <= max_layers
    } else if layered {
        if depth == 0 {
            false
        } else if h == 0 {
            w <= pick(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH,
            ) && depth
                <= pick(
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS,
                )
        } else {
            w <= pick(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH,
            ) && h
                <= pick(
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
                    A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT,
                )
                && depth
                    <= pick(
                        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
                        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS,
                    )
        }
    } else if h == 0 {
        // 1D: a depth without a height names no array kind.
        depth == 0
            && w <= pick(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH,
            )
    } else if depth == 0 {
        w <= pick(
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
            A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH,
        ) && h
            <= pick(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT,
            )
    } else {
        let within = |a: A, b: A, c: A| w <= limit(a) && h <= limit(b) && depth <= limit(c);
        if surface {
            within(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH,
            )
        } else {
            within(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH,
            ) || within(
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE,
                A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE,
            )
        }
    };
    // Texture gather is only defined on 2D arrays.
    let gather_ok =
        d.Flags & CUDA_ARRAY3D_TEXTURE_GATHER == 0 || (h > 0 && depth == 0 && !layered && !cubemap);
    if !fits || !gather_ok {
        return Err(INVALID_VALUE);
    }
    Ok(elem)
}

/// Allocates and registers an array for a validated descriptor.
fn create(d: &CUDA_ARRAY3D_DESCRIPTOR, elem: usize, is_level: bool) -> CuResult<usize> {
    let block = is_block_compressed(d.Format);
    let (w, h) = if block {
        (d.Width.div_ceil(4), d.Height.max(1).div_ceil(4))
    } else {
        (d.Width, d.Height.max(1))
    };
    let size = w
        .checked_mul(elem)
        .and_then(|r| r.checked_mul(h))
        .and_then(|s| s.checked_mul(d.Depth.max(1)))
        .ok_or(CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
    // An array is memory of the current context's device.
    let dev = crate::context::current().map_or(0, |c| c.device as usize);
    let base = dmem::alloc_on(dev, size as u64).map_err(|_| CUresult::CUDA_ERROR_OUT_OF_MEMORY)?;
    let array = Arc::new(Array {
        base,
        desc: *d,
        elem,
        size,
        is_level,
        block,
    });
    let h = Arc::as_ptr(&array) as usize;
    ARRAYS.write().insert(h, array);
    Ok(h)
}

/// Frees an array's storage once the context's queued work (which may still copy from or to it)
/// has drained, as cuMemFree does.
fn release(a: &Array) -> CuResult {
    let ctx = context::active()?;
    ctx.wait_idle();
    dmem::free(a.base).map_err(|_| INVALID_VALUE)?;
    Ok(())
}

pub(crate) unsafe fn create_3d(
    out: *mut CUarray,
    desc: *const CUDA_ARRAY3D_DESCRIPTOR,
) -> CuResult {
    if out.is_null() || desc.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    // SAFETY: checked non-null; the caller passes a CUDA_ARRAY3D_DESCRIPTOR.
    let d = unsafe { *desc };
    let elem = validate(&d)?;
    let h = create(&d, elem, false)?;
    // SAFETY: checked non-null.
    unsafe { *out = h as CUarray };
    Ok(())
}

pub(crate) unsafe fn create_2d(out: *mut CUarray, desc: *const CUDA_ARRAY_DESCRIPTOR) -> CuResult {
    if out.is_null() || desc.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller passes a CUDA_ARRAY_DESCRIPTOR.
    let d = unsafe { *desc };
    let d3 = CUDA_ARRAY3D_DESCRIPTOR {
        Width: d.Width,
        Height: d.Height,
        Depth: 0,
        Format: d.Format,
        NumChannels: d.NumChannels,
        Flags: 0,
    };
    // SAFETY: `out` checked non-null; `d3` is a local.
    unsafe { create_3d(out, &d3) }
}

pub(crate) unsafe fn destroy(h: CUarray) -> CuResult {
    let a = get(h)?;
    if a.is_level {
        // A level lives and dies with its mipmapped array.
        return Err(INVALID_HANDLE);
    }
    release(&a)?;
    ARRAYS.write().remove(&(h as usize));
    Ok(())
}

pub(crate) unsafe fn get_descriptor_3d(out: *mut CUDA_ARRAY3D_DESCRIPTOR, h: CUarray) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let a = get(h)?;
    // SAFETY: checked non-null.
    unsafe { *out = a.desc };
    Ok(())
}

/// The 2D descriptor: width, height (0 for 1D), format and channels. For a 3D or layered array
/// the depth is not representable and is left out.
pub(crate) unsafe fn get_descriptor(out: *mut CUDA_ARRAY_DESCRIPTOR, h: CUarray) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let a = get(h)?;
    // SAFETY: checked non-null.
    unsafe {
        *out = CUDA_ARRAY_DESCRIPTOR {
            Width: a.desc.Width,
            Height: a.desc.Height,
            Format: a.desc.Format,
            NumChannels: a.desc.NumChannels,
        }
    };
    Ok(())
}

/// Memory requirements of deferred-mapping arrays: the size rounded up to the alignment a
/// mapping needs (the VMM granularity). The emulator backs such arrays at creation anyway.
fn requirements(
    out: *mut CUDA_ARRAY_MEMORY_REQUIREMENTS,
    flags: u32,
    size: usize,
    dev: CUdevice,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    crate::device::check(dev)?;
    if flags & CUDA_ARRAY3D_DEFERRED_MAPPING == 0 {
        return Err(INVALID_VALUE);
    }
    let align = crate::memory::vmm::GRANULARITY as usize;
    // SAFETY: checked non-null.
    unsafe {
        *out = CUDA_ARRAY_MEMORY_REQUIREMENTS {
            size: size.div_ceil(align) * align,
            alignment: align,
            reserved: [0; 4],
        }
    };
    Ok(())
}

pub(crate) unsafe fn get_memory_requirements(
    out: *mut CUDA_ARRAY_MEMORY_REQUIREMENTS,
    h: CUarray,
    dev: CUdevice,
) -> CuResult {
    let a = get(h)?;
    requirements(out, a.desc.Flags, a.size, dev)
}

/// No array here has several planes (planar formats are refused at creation): the documented
/// answer for such an array is CUDA_ERROR_INVALID_VALUE.
pub(crate) unsafe fn get_plane(out: *mut CUarray, h: CUarray, _plane: c_uint) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    get(h)?;
    Err(INVALID_VALUE)
}

/// No array is sparse (refused at creation): CUDA_ERROR_INVALID_VALUE, as documented for a
/// non-sparse array.
pub(crate) unsafe fn get_sparse_properties(
    out: *mut CUDA_ARRAY_SPARSE_PROPERTIES,
    h: CUarray,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    get(h)?;
    Err(INVALID_VALUE)
}

/// cuDeviceGetTexture1DLinearMaxWidth: the profile's 1D linear texture limit (in elements) for
/// any valid format and channel count.
pub(crate) unsafe fn get_texture_1d_linear_max_width(
    out: *mut usize,
    format: CUarray_format,
    channels: c_uint,
    dev: CUdevice,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    crate::device::check(dev)?;
    element_size(format, channels).map_err(|_| INVALID_VALUE)?;
    let max = config::profile()
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH)
        .unwrap_or(0);
    // SAFETY: checked non-null.
    unsafe { *out = max.max(0) as usize };
    Ok(())
}

// ---- Mipmapped arrays.

fn mipmap(h: CUmipmappedArray) -> CuResult<Arc<Mipmap>> {
    MIPMAPS
        .read()
        .get(&(h as usize))
        .cloned()
        .ok_or(INVALID_HANDLE)
}

/// The descriptor of level `level`: each present dimension halved (floor, at least 1); the layer
/// count of layered and cubemap arrays stays.
fn level_desc(d: &CUDA_ARRAY3D_DESCRIPTOR, level: u32) -> CUDA_ARRAY3D_DESCRIPTOR {
    let shrink = |v: usize| if v == 0 { 0 } else { (v >> level).max(1) };
    let layers = d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP) != 0;
    CUDA_ARRAY3D_DESCRIPTOR {
        Width: shrink(d.Width),
        Height: shrink(d.Height),
        Depth: if layers { d.Depth } else { shrink(d.Depth) },
        ..*d
    }
}

pub(crate) unsafe fn mipmap_create(
    out: *mut CUmipmappedArray,
    desc: *const CUDA_ARRAY3D_DESCRIPTOR,
    levels: c_uint,
) -> CuResult {
    if out.is_null() || desc.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    // SAFETY: checked non-null; the caller passes a CUDA_ARRAY3D_DESCRIPTOR.
    let d = unsafe { *desc };
    let elem = validate(&d)?;
    // Clamped to [1, 1 + floor(log2(max extent))], as documented.
    let layers = d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP) != 0;
    let extent = d.Width.max(d.Height).max(if layers { 0 } else { d.Depth });
    let most = 1 + extent.max(1).ilog2();
    let n = levels.clamp(1, most);
    let mut handles = Vec::with_capacity(n as usize);
    for level in 0..n {
        match create(&level_desc(&d, level), elem, true) {
            Ok(h) => handles.push(h),
            Err(e) => {
                // Undo the levels made so far.
                for h in handles {
                    if let Some(a) = ARRAYS.write().remove(&h) {
                        let _ = dmem::free(a.base);
                    }
                }
                return Err(e);
            }
        }
    }
    let m = Arc::new(Mipmap {
        desc: d,
        levels: handles,
    });
    let h = Arc::as_ptr(&m) as usize;
    MIPMAPS.write().insert(h, m);
    // SAFETY: checked non-null.
    unsafe { *out = h as CUmipmappedArray };
    Ok(())
}

/// The levels of a mipmapped array, level 0 first (CUDA_ERROR_INVALID_HANDLE for anything
/// else).
pub(crate) fn mipmap_levels(h: CUmipmappedArray) -> CuResult<Vec<Arc<Array>>> {
    mipmap(h)?
        .levels
        .iter()
        .map(|&l| get(l as CUarray))
        .collect()
}

pub(crate) unsafe fn mipmap_get_level(
    out: *mut CUarray,
    h: CUmipmappedArray,
    level: c_uint,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let m = mipmap(h)?;
    let l = *m.levels.get(level as usize).ok_or(INVALID_VALUE)?;
    // SAFETY: checked non-null.
    unsafe { *out = l as CUarray };
    Ok(())
}

pub(crate) unsafe fn mipmap_destroy(h: CUmipmappedArray) -> CuResult {
    let m = mipmap(h)?;
    for l in &m.levels {
        let a = get(*l as CUarray)?;
        release(&a)?;
        ARRAYS.write().remove(l);
    }
    MIPMAPS.write().remove(&(h as usize));
    Ok(())
}

pub(crate) unsafe fn mipmap_get_memory_requirements(
    out: *mut CUDA_ARRAY_MEMORY_REQUIREMENTS,
    h: CUmipmappedArray,
    dev: CUdevice,
) -> CuResult {
    let m = mipmap(h)?;
    let mut size = 0usize;
    for l in &m.levels {
        size += get(*l as CUarray)?.size;
    }
    requirements(out, m.desc.Flags, size, dev)
}

pub(crate) unsafe fn mipmap_get_sparse_properties(
    out: *mut CUDA_ARRAY_SPARSE_PROPERTIES,
    h: CUmipmappedArray,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    mipmap(h)?;
    Err(INVALID_VALUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(w: usize, h: usize, d: usize, flags: u32) -> CUDA_ARRAY3D_DESCRIPTOR {
        CUDA_ARRAY3D_DESCRIPTOR {
            Width: w,
            Height: h,
            Depth: d,
            Format: F::CU_AD_FORMAT_FLOAT,
            NumChannels: 1,
            Flags: flags,
        }
    }

    #[test]
    fn element_sizes_follow_the_formats() {
        assert_eq!(element_size(F::CU_AD_FORMAT_UNSIGNED_INT8, 4), Ok(4));
        assert_eq!(element_size(F::CU_AD_FORMAT_HALF, 2), Ok(4));
        assert_eq!(element_size(F::CU_AD_FORMAT_FLOAT, 4), Ok(16));
        assert_eq!(element_size(F::CU_AD_FORMAT_SIGNED_INT16, 1), Ok(2));
        assert_eq!(element_size(F::CU_AD_FORMAT_UNORM_INT16X4, 4), Ok(8));
        assert_eq!(
            element_size(F::CU_AD_FORMAT_UNORM_INT16X4, 1),
            Err(INVALID_VALUE)
        );
        assert_eq!(element_size(F::CU_AD_FORMAT_FLOAT, 3), Err(INVALID_VALUE));
        assert_eq!(element_size(F::CU_AD_FORMAT_NV12, 1), Err(NOT_SUPPORTED));
        assert_eq!(element_size(F::CU_AD_FORMAT_BC1_UNORM, 4), Ok(8));
        assert_eq!(element_size(F::CU_AD_FORMAT_BC7_UNORM, 4), Ok(16));
        assert_eq!(element_size(F::CU_AD_FORMAT_BC6H_UF16, 3), Ok(16));
        assert_eq!(element_size(F::CU_AD_FORMAT_BC4_SNORM, 1), Ok(8));
        assert_eq!(
            element_size(F::CU_AD_FORMAT_BC5_UNORM, 4),
            Err(INVALID_VALUE)
        );
        assert_eq!(element_size(CUarray_format(0x77), 1), Err(INVALID_VALUE));
    }

    #[test]
    fn array_kinds_follow_the_documented_table() {
        let ok = |d: CUDA_ARRAY3D_DESCRIPTOR| validate(&d).is_ok();
        assert!(ok(desc(7, 0, 0, 0)));
        assert!(ok(desc(7, 5, 0, 0)));
        assert!(ok(desc(7, 5, 3, 0)));
        assert!(!ok(desc(0, 5, 0, 0)));
        assert!(!ok(desc(7, 0, 3, 0)), "a depth without a height");
        assert!(ok(desc(7, 0, 3, CUDA_ARRAY3D_LAYERED)));
        assert!(!ok(desc(7, 5, 0, CUDA_ARRAY3D_LAYERED)), "no layers");
        assert!(ok(desc(8, 8, 6, CUDA_ARRAY3D_CUBEMAP)));
        assert!(!ok(desc(8, 8, 12, CUDA_ARRAY3D_CUBEMAP)));
        assert!(!ok(desc(8, 4, 6, CUDA_ARRAY3D_CUBEMAP)));
        assert!(ok(desc(
            8,
            8,
            12,
            CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED
        )));
        assert!(ok(desc(8, 8, 0, CUDA_ARRAY3D_TEXTURE_GATHER)));
        assert!(!ok(desc(8, 8, 2, CUDA_ARRAY3D_TEXTURE_GATHER)));
        assert!(ok(desc(8, 8, 2, CUDA_ARRAY3D_SURFACE_LDST)));
        assert!(!ok(desc(200_000, 0, 0, 0)), "over the 1D texture limit");
        assert!(!ok(desc(8, 0, 0, 1 << 20)), "unknown flag");
        assert_eq!(
            validate(&desc(8, 8, 0, CUDA_ARRAY3D_SPARSE)),
            Err(NOT_SUPPORTED)
        );
    }

    #[test]
    fn mipmap_levels_halve_each_extent() {
        let d = desc(17, 8, 0, 0);
        let l = level_desc(&d, 3);
        assert_eq!((l.Width, l.Height, l.Depth), (2, 1, 0));
        let l = level_desc(&desc(16, 16, 6, CUDA_ARRAY3D_CUBEMAP), 2);
        assert_eq!((l.Width, l.Height, l.Depth), (4, 4, 6));
    }
}
