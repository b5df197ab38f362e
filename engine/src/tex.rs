//! Texture objects and the texture unit's sampling: the driver registers each texture object's
//! resource and sampler under its 64-bit handle (`cuTexObjectCreate`), and `tex`, `tld4` and
//! `txq` look the handle up and sample as the CUDA Programming Guide's "Texture Fetching"
//! appendix says: coordinates scaled to texels when normalised, the address mode applied, point
//! sampling of the texel under the coordinate, or linear filtering between the two (four,
//! eight) neighbours with weights in 9-bit fixed point with 8 fractional bits.
//!
//! Measured on an H100 (scripts/ground-truth/results/tex-h100.txt, matched bit for bit by the
//! tests): a weight rounds to the nearest 1/256, half a step up; an 8-bit normalised texel
//! reads as v/255 and filters as a 16-bit fraction (v * 257), the weighted sum rounded to
//! 16 bits; the border colour is stored in the texel format. Measured on an H200
//! (scripts/ground-truth/results/tex4-h200.txt, fitted line by line): the texels' weights are
//! not the products of the axes' weights but a tree of 1/256 steps (`corner_weights`: z, then
//! x, then y, each split rounded, a mipmap level's share split the same way), with clamp the
//! coordinate is clamped to the edge texels' centres first, and all the weighted texels of a
//! fetch, both levels' included, are added exactly and rounded once, ties away from zero
//! (`weighted_sum`). That reproduces every fetch of tex-h100.txt (2-D filtering over the
//! border included), every 3-D and trilinear fetch of tex2-h100.txt and, with each level's
//! texels first aligned to the largest one's exponent (`align_to_largest`), every one of the
//! 2,320 of tex4-h200.txt.
//!
//! Geometries beyond 1-3 dimensions follow the ISA (9.7.10.3) and the Programming Guide:
//! a layered texture's layer index picks one slice, clamped to the layers there are; a
//! cubemap's direction picks a face by its major axis and projects the other two coordinates
//! onto it (the guide's cubemap table, which is OpenGL's). Mipmapped textures pick their level
//! from an explicit level or from the gradients, as OpenGL's level-of-detail rule does (the
//! guide gives no formula): `lambda = log2(rho) + bias`, rho the longer of the two gradient
//! vectors in texels of level 0, clamped to the sampler's level range. Measured on an H100
//! (scripts/ground-truth/results/tex2-h100.txt, compared line by line by tests/textures.rs):
//! the cube faces and their ties, layer clamping, the nearest level (half rounds up), the
//! level fraction (truncated to 8 bits for an explicit level, rounded for gradients), sRGB in
//! half precision at a point; filtered sRGB as block-compressed sRGB filters on an H200
//! (`srgb_filter`: the H200's table, the texels aligned to the largest one's exponent).

use crate::sem::softfloat::{self, Mode};

/// How a coordinate outside the texture is brought back in (`CUaddress_mode`, and the ISA's
/// `clamp_ogl`, which only a `.samplerref` can name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Clamp,
    Mirror,
    Border,
    /// OpenGL's `GL_CLAMP` (PTX ISA 5.3, Table 10: `clamp_ogl`). The OpenGL compatibility
    /// profile specification (4.6, section 8.14.2 and Table 8.20) clamps the coordinate to
    /// [0, 1] (in texels: [0, size]) and then the texel index: NEAREST clamps it to
    /// [0, size - 1]; LINEAR to [-1, size], where the indices -1 and size are the border, so
    /// a footprint hanging over an edge blends the edge texel with the border colour (at the
    /// very edge half and half). No hardware answer: the CUDA driver refuses modules that use
    /// a `.samplerref` (CUDA_ERROR_NOT_FOUND on an H200, texref-param-h200.txt).
    ClampOgl,
}

/// `CUfilter_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    Point,
    Linear,
}

/// The format of one channel of a texel (`CUarray_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl Channel {
    pub fn bytes(self) -> usize {
        match self {
            Channel::U8 | Channel::S8 => 1,
            Channel::U16 | Channel::S16 | Channel::F16 => 2,
            _ => 4,
        }
    }

    pub fn float(self) -> bool {
        matches!(self, Channel::F16 | Channel::F32)
    }
}

/// The texels of one mipmap level (the only one of a texture without mipmaps).
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Device address of texel (0, 0, 0) of layer 0.
    pub base: u64,
    /// Texels in each dimension (1 for the dimensions the resource lacks; a layered texture's
    /// depth is 1, its layers are [`Texture::layers`]).
    pub size: [u32; 3],
    /// Bytes from one row to the next, and from one slice (3-D) or layer to the next.
    pub row_pitch: u64,
    pub slice_pitch: u64,
}

impl Level {
    /// Bytes of device memory the level spans from `base`, with `slices` slices or layers.
    pub fn extent(&self, texel: u64, slices: u32) -> u64 {
        (slices.max(1) as u64 - 1) * self.slice_pitch
            + (self.size[1] as u64 - 1) * self.row_pitch
            + self.size[0] as u64 * texel
    }
}

/// The geometry a `tex`/`tld4`/`txq` names (ISA 9.7.10.3): how its coordinate vector reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geom {
    D1,
    D2,
    D3,
    /// Layered: the first coordinate is the layer, then 1 or 2 texture coordinates.
    A1,
    A2,
    /// A direction (s, t, r) onto the six faces.
    Cube,
    /// The first coordinate picks a cubemap of the array, then the direction.
    ACube,
}

impl Geom {
    /// The texture coordinates after the layer index (the direction's three for cubes).
    pub fn dims(self) -> usize {
        match self {
            Geom::D1 | Geom::A1 => 1,
            Geom::D2 | Geom::A2 => 2,
            Geom::D3 | Geom::Cube | Geom::ACube => 3,
        }
    }

    /// Whether the coordinate vector starts with an array index.
    pub fn indexed(self) -> bool {
        matches!(self, Geom::A1 | Geom::A2 | Geom::ACube)
    }

    pub fn cube(self) -> bool {
        matches!(self, Geom::Cube | Geom::ACube)
    }
}

/// The level of detail a fetch asks for (ISA 9.7.10.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lod {
    /// `.base`: level 0, whatever the sampler says.
    Base,
    /// `.level`: this level (plus the sampler's bias).
    Level(f32),
    /// `.grad`: the level the partials dP/dx and dP/dy give (in the coordinates' units).
    Grad([f32; 3], [f32; 3]),
}

/// One fetch, as `tex`/`tld4` give it: the raw coordinates of its geometry, after the array
/// index, the index, the integer offset (texels, ISA: -8..7) and the level of detail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fetch {
    pub geom: Geom,
    pub coords: [f32; 3],
    pub index: u32,
    pub offset: [i32; 3],
    pub lod: Lod,
}

impl Fetch {
    /// A fetch of level 0 at `coords` of `dims` dimensions, no offset.
    pub fn at(dims: usize, coords: [f32; 3]) -> Fetch {
        let geom = [Geom::D1, Geom::D2, Geom::D3][dims.clamp(1, 3) - 1];
        Fetch {
            geom,
            coords,
            index: 0,
            offset: [0; 3],
            lod: Lod::Base,
        }
    }
}

/// The sampler's mipmap fields (`CUDA_TEXTURE_DESC`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mip {
    pub filter: Filter,
    pub bias: f32,
    pub min: f32,
    pub max: f32,
    /// `maxAnisotropy`: 0 and 1 sample isotropically (see [`footprint`]).
    pub max_anisotropy: u32,
}

/// One texture object: where its texels are and how it samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Level 0 first; one level unless the resource is a mipmapped array.
    pub levels: Vec<Level>,
    /// Whether the resource is a mipmapped array (`txq.num_mipmap_levels`).
    pub mipmapped: bool,
    /// Layers of a layered resource (a cubemap's faces count, six per cubemap); 0 if none.
    pub layers: u32,
    pub cubemap: bool,
    pub channel: Channel,
    /// Channels per texel: 1, 2 or 4.
    pub channels: u8,
    pub address: [AddressMode; 3],
    pub filter: Filter,
    /// Coordinates in [0, 1) span the texture (else in texels).
    pub normalized_coords: bool,
    /// Integer texels read as floats in [0, 1] ([-1, 1] signed)
    /// (`cudaReadModeNormalizedFloat`); else as the integers themselves.
    pub read_normalized: bool,
    pub border: [f32; 4],
    pub mip: Mip,
    /// 8-bit colour channels (not alpha) are sRGB-encoded: read through the sRGB curve.
    pub srgb: bool,
    /// Linear filtering of a cubemap reaches across the faces' edges
    /// (`CU_TRSF_SEAMLESS_CUBEMAP`, [`seamless_taps`]).
    pub seamless: bool,
    /// Block-compressed texels (`crate::bc`): each level's rows are rows of 4 x 4 blocks;
    /// `channel` and `channels` are what the decoded texels hold.
    pub bc: Option<crate::bc::Format>,
}

impl Texture {
    /// A texture of one level with the default sampler (clamp, point, texel coordinates).
    pub fn new(level: Level, channel: Channel, channels: u8) -> Texture {
        Texture {
            levels: vec![level],
            mipmapped: false,
            layers: 0,
            cubemap: false,
            channel,
            channels,
            address: [AddressMode::Clamp; 3],
            filter: Filter::Point,
            normalized_coords: false,
            read_normalized: false,
            border: [0.0; 4],
            mip: Mip {
                filter: Filter::Point,
                bias: 0.0,
                min: 0.0,
                max: 0.0,
                max_anisotropy: 0,
            },
            srgb: false,
            seamless: false,
            bc: None,
        }
    }

    /// Bytes per texel.
    pub fn texel_bytes(&self) -> u64 {
        (self.channel.bytes() * self.channels as usize) as u64
    }

    /// Every level's texels still lie in live device memory.
    pub fn live(&self) -> bool {
        let slices = |l: &Level| l.size[2].max(self.layers);
        self.levels.iter().all(|l| match self.bc {
            Some(f) => crate::mem::contains(l.base, crate::bc::extent(f, l, slices(l))),
            None => crate::mem::contains(l.base, l.extent(self.texel_bytes(), slices(l))),
        })
    }

    /// Whether fetches return floats (a float format, or integers read normalised).
    pub fn returns_float(&self) -> bool {
        self.channel.float() || self.read_normalized
    }
}

/// The static fields of a `.samplerref` (the independent mode, PTX ISA 5.3.2): they override
/// the texture's own sampler for the fetches that name it; a field its initializer leaves out
/// keeps the texture's setting (the ISA leaves the default to the runtime).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampler {
    pub address: [Option<AddressMode>; 3],
    pub filter: Option<Filter>,
    /// `force_unnormalized_coords = 1`: texel coordinates whatever the texture says.
    pub force_unnormalized: bool,
}

impl Sampler {
    /// `t` sampled through this sampler.
    pub fn apply(&self, t: &Texture) -> Texture {
        let mut t = t.clone();
        for (a, s) in t.address.iter_mut().zip(self.address) {
            *a = s.unwrap_or(*a);
        }
        t.filter = self.filter.unwrap_or(t.filter);
        t.normalized_coords &= !self.force_unnormalized;
        t
    }
}

/// The live texture objects (and texture references' textures), by handle.
pub static TEXTURES: crate::handles::Handles<Texture> = crate::handles::Handles::new();

/// An 8-bit sRGB-encoded value in [0, 1] as linear intensity: the sRGB standard's curve, which
/// the Programming Guide's `sRGB` flag names, rounded to half precision (measured on an H100:
/// point fetches of 64/255 and 128/255 give the f16 of the curve).
fn srgb_to_linear(c: f32) -> f32 {
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    half(l)
}

/// `v` rounded to the nearest f16, as an f32.
fn half(v: f32) -> f32 {
    softfloat::to_f64(softfloat::F16, to_f16(v) as u64) as f32
}

/// One channel value as the fetch returns it: float bits, or the integer.
fn read_channel(t: &Texture, p: *const u8) -> f32 {
    // SAFETY: the caller passes a pointer inside the texture's checked extent.
    unsafe {
        match t.channel {
            Channel::F32 => (p as *const f32).read_unaligned(),
            Channel::F16 => {
                let h = (p as *const u16).read_unaligned();
                softfloat::to_f64(softfloat::F16, h as u64) as f32
            }
            Channel::U8 => {
                let v = p.read() as f32;
                if t.read_normalized {
                    v / 255.0
                } else {
                    v
                }
            }
            Channel::S8 => {
                let v = (p as *const i8).read() as f32;
                if t.read_normalized {
                    (v / 127.0).max(-1.0)
                } else {
                    v
                }
            }
            Channel::U16 => {
                let v = (p as *const u16).read_unaligned() as f32;
                if t.read_normalized {
                    v / 65535.0
                } else {
                    v
                }
            }
            Channel::S16 => {
                let v = (p as *const i16).read_unaligned() as f32;
                if t.read_normalized {
                    (v / 32767.0).max(-1.0)
                } else {
                    v
                }
            }
            Channel::U32 => (p as *const u32).read_unaligned() as f32,
            Channel::S32 => (p as *const i32).read_unaligned() as f32,
        }
    }
}

/// The raw bits of one integer channel (fetches that return integers).
fn read_bits(t: &Texture, p: *const u8) -> u32 {
    // SAFETY: as `read_channel`.
    unsafe {
        match t.channel {
            Channel::U8 => p.read() as u32,
            Channel::S8 => (p as *const i8).read() as i32 as u32,
            Channel::U16 => (p as *const u16).read_unaligned() as u32,
            Channel::S16 => (p as *const i16).read_unaligned() as i32 as u32,
            Channel::F16 => (p as *const u16).read_unaligned() as u32,
            _ => (p as *const u32).read_unaligned(),
        }
    }
}

/// A texel index along one dimension of `n` texels after the address mode; `None`: outside,
/// the border colour.
fn address(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    match mode {
        AddressMode::Clamp => Some(i.clamp(0, n - 1)),
        // Linear filtering's rule for clamp_ogl (nearest sampling clamps first, `point_index`).
        AddressMode::Border | AddressMode::ClampOgl => (0..n).contains(&i).then_some(i),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let p = i.rem_euclid(2 * n);
            Some(if p < n { p } else { 2 * n - 1 - p })
        }
    }
}

/// Where one fetch reads: the level, whether its coordinates are normalised (a cube face's
/// always are), the slice its layer or face is, and the address modes.
#[derive(Clone, Copy)]
struct Site<'t> {
    level: &'t Level,
    normalized: bool,
    slice: i64,
    address: [AddressMode; 3],
}

impl Site<'_> {
    /// A coordinate in texels along dimension `d`, and its address mode. Unnormalised
    /// coordinates only clamp or use the border: wrap and mirror act as clamp (Programming
    /// Guide, texture fetching). clamp_ogl clamps the coordinate to [0, size] texels, OpenGL's
    /// [0, 1] (see [`AddressMode::ClampOgl`]).
    fn texel_coord(&self, x: f32, d: usize) -> (f32, AddressMode) {
        let n = self.level.size[d] as f32;
        let mode = self.address[d];
        if mode == AddressMode::ClampOgl {
            let x = if self.normalized { x * n } else { x };
            // `max` then `min`, not `clamp`: a NaN coordinate reads at 0.
            return (x.max(0.0).min(n), mode);
        }
        if !self.normalized {
            let mode = match mode {
                AddressMode::Wrap | AddressMode::Mirror => AddressMode::Clamp,
                m => m,
            };
            return (x, mode);
        }
        (x * n, mode)
    }

    fn size(&self, d: usize) -> i64 {
        self.level.size[d] as i64
    }

    /// The first `dims` indices `at` are the texel; the others are 0, or the slice along z.
    fn fill(&self, dims: usize) -> [Option<i64>; 3] {
        let mut at = [Some(0); 3];
        if dims < 3 {
            at[2] = Some(self.slice);
        }
        at
    }
}

/// The host address of texel `(i, j, k)` of `lv` (in range; k a slice or layer).
fn texel_addr(t: &Texture, lv: &Level, i: i64, j: i64, k: i64) -> usize {
    (lv.base + k as u64 * lv.slice_pitch + j as u64 * lv.row_pitch) as usize
        + i as usize * t.texel_bytes() as usize
}

/// A border colour channel as the texture holds it: stored in the texel's format, so rounded to
/// the nearest representable value (measured: a border of 0.25 on an 8-bit normalised texture
/// reads 64/255).
fn border_channel(t: &Texture, b: f32) -> f32 {
    if !t.read_normalized {
        return b;
    }
    let q = |max: f32, lo: f32| (b.clamp(lo, 1.0) * max).round() / max;
    match t.channel {
        Channel::U8 => q(255.0, 0.0),
        Channel::U16 => q(65535.0, 0.0),
        Channel::S8 => q(127.0, -1.0),
        Channel::S16 => q(32767.0, -1.0),
        _ => b,
    }
}

/// The four channels of the texel at `at` (after addressing), each read by `read` from its
/// address; a missing channel is `missing`'s, and a texel outside (`None`) is `border()`.
fn channels<V: Copy>(
    t: &Texture,
    lv: &Level,
    at: [Option<i64>; 3],
    missing: [V; 4],
    border: impl FnOnce() -> [V; 4],
    read: impl Fn(*const u8) -> V,
) -> [V; 4] {
    let [Some(i), Some(j), Some(k)] = at else {
        return border();
    };
    let (p, cb) = (texel_addr(t, lv, i, j, k), t.channel.bytes());
    let mut v = missing;
    for (c, v) in v.iter_mut().enumerate().take(t.channels as usize) {
        *v = read((p + c * cb) as *const u8);
    }
    v
}

/// Fetches the texel at `at` (after addressing) as 4 channels; a missing channel reads 0,
/// alpha too (measured on an H200: float1 and float2 textures read as float4, and the `.f16`
/// results of float1 and 8-bit unsigned normalised textures, tex3-h200.txt and tex6-h200.txt).
fn texel(t: &Texture, lv: &Level, at: [Option<i64>; 3]) -> [f32; 4] {
    if let Some(v) = crate::bc::texel_f32(t, lv, at) {
        return v;
    }
    let mut v = channels(
        t,
        lv,
        at,
        [0.0; 4],
        || t.border.map(|b| border_channel(t, b)),
        |p| read_channel(t, p),
    );
    if t.srgb && at.iter().all(Option::is_some) {
        for c in v.iter_mut().take((t.channels as usize).min(3)) {
            *c = srgb_to_linear(*c);
        }
    }
    v
}

/// The filtering weight of `x` (in texels, minus a half) in 9-bit fixed point, in 1/256: the
/// fraction rounded to the nearest step, half a step up (measured, see the module's comment).
fn weight(frac: f32) -> u32 {
    ((frac * 256.0 + 0.5).floor() as u32).min(256)
}

/// How linear filtering splits `total` (in 1/256: all of it, or a mipmap level's share) among
/// the 2^`dims` texels around the fetch, whose per-axis weights (of the upper texel) are `w`;
/// the result is indexed by corner, bit d set for the upper texel along dimension d.
///
/// Measured on an H200 (scripts/ground-truth/results/tex4-h200.txt, every line of which this
/// reproduces; tex_probe4.cu's single texels of 1.0 read each texel's weight): the weights are
/// not the exact products of the axes' weights but a tree of 1/256 steps. The share is split
/// along z first (3-D), then x, then y; each split gives one side `v * w / 256` rounded to the
/// nearest step, half up, and the other side the rest, so the weights always add up to the
/// share (a constant texture reads back exactly). The z and x splits round the upper side; the
/// y split rounds the side on the same side as the texel's x (upper y where x is upper, lower y
/// where x is lower; the ties of the probe show it). A mipmap level's share is split the same
/// way, as if the level were an outer axis.
fn corner_weights(total: u32, w: [u32; 3], dims: usize) -> [u32; 8] {
    let split = |v: u32, w: u32, round_upper: bool| -> (u32, u32) {
        if round_upper {
            let hi = (v * w + 128) >> 8;
            (v - hi, hi)
        } else {
            let lo = (v * (256 - w) + 128) >> 8;
            (lo, v - lo)
        }
    };
    let mut out = [0u32; 8];
    let zs = if dims == 3 {
        let (lo, hi) = split(total, w[2], true);
        [(0usize, lo), (4, hi)]
    } else {
        [(0, total), (4, 0)]
    };
    for (z, vz) in zs {
        if dims < 3 && z == 4 {
            continue;
        }
        let (x0, x1) = split(vz, w[0], true);
        for (x, vx) in [(0usize, x0), (1, x1)] {
            if dims == 1 {
                out[z | x] = vx;
                continue;
            }
            let (y0, y1) = split(vx, w[1], x == 1);
            out[z | x] += y0;
            out[z | x | 2] += y1;
        }
    }
    out
}

/// The sum of `w / 2^unit * v` over `terms` (`unit` 8, or 12 for anisotropic footprints) rounded once to f32: to the nearest, ties away from
/// zero. Measured on an H200 (tex4-h200.txt): the texture unit adds the weighted texels of a
/// footprint, both mipmap levels' included, without rounding in between (ten constant pairs of
/// levels mixed in 1/256 steps are each the correctly rounded sum, ties rounding up; random
/// texels at random coordinates the same, once aligned by `align_to_largest`).
/// Kept exactly in a 128-bit fixed-point sum anchored at the largest term; terms more than 70
/// to 85 binary places (by `unit`) below it (texels of wildly different magnitudes) are truncated there.
fn weighted_sum(terms: &[(u32, f32)], unit: i32) -> f32 {
    if terms.iter().any(|&(w, v)| w != 0 && !v.is_finite()) {
        return terms
            .iter()
            .filter(|&&(w, _)| w != 0)
            .map(|&(w, v)| w as f32 / (1 << unit) as f32 * v)
            .sum();
    }
    // Each term as m * 2^e: v's 24-bit significand times the weight, e its last place / 256.
    let parts = terms
        .iter()
        .filter(|&&(w, v)| w != 0 && v != 0.0)
        .map(|&(w, v)| {
            let bits = v.to_bits();
            let exp = (bits >> 23 & 0xff) as i32;
            let frac = (bits & 0x7f_ffff) as i128;
            let (m, e) = if exp == 0 {
                (frac, -149)
            } else {
                (frac | 0x80_0000, exp - 150)
            };
            let m = m * w as i128;
            (if v < 0.0 { -m } else { m }, e - unit)
        });
    let parts: Vec<(i128, i32)> = parts.collect();
    let Some(top) = parts.iter().map(|&(_, e)| e).max() else {
        return 0.0;
    };
    // Products of 24-bit significands and weights of `unit` + 1 bits, at most 2^8 of them (17
    // anisotropic samples, two levels, four texels): 33 + unit bits above the anchor, and as
    // many below it as leave the 128-bit sum a bit to spare.
    let below = 126 - (33 + unit);
    let base = parts
        .iter()
        .map(|&(_, e)| e)
        .min()
        .unwrap()
        .max(top - below);
    let sum: i128 = parts
        .iter()
        .map(|&(m, e)| {
            if e >= base {
                m << (e - base)
            } else {
                m >> (base - e)
            }
        })
        .sum();
    if sum == 0 {
        return 0.0;
    }
    let mag = sum.unsigned_abs();
    let high = base + (127 - mag.leading_zeros() as i32); // exponent of the leading bit
    let last = (high - 23).max(-149); // exponent of the result's last place
    let shift = last - base;
    let m = if shift <= 0 {
        mag << -shift
    } else {
        (mag + (1u128 << (shift - 1))) >> shift
    };
    let v = m as f64 * f64::from_bits(((1023 + last) as u64) << 52);
    (if sum < 0 { -v } else { v }) as f32
}

/// An unsigned normalised texel as a 16-bit fixed-point fraction (`v / max` scaled to 65535),
/// the precision unsigned normalised texels are filtered in (measured: a filtered 8-bit texture
/// returns k / 65535, k the weighted sum of the texels as 16-bit fractions, rounded).
fn unorm16(t: &Texture, p: *const u8) -> Option<u64> {
    // SAFETY: as `read_channel`.
    unsafe {
        match t.channel {
            Channel::U8 => Some(p.read() as u64 * 257),
            Channel::U16 => Some((p as *const u16).read_unaligned() as u64),
            _ => None,
        }
    }
}

/// [`texel`] of an unsigned normalised texture as 16-bit fractions (the border colour and the
/// missing channels too).
fn texel_fixed(t: &Texture, lv: &Level, at: [Option<i64>; 3]) -> [u64; 4] {
    if let Some(v) = crate::bc::texel(t, lv, at).and_then(|b| b.to_unorm16()) {
        return v;
    }
    let border = || {
        t.border
            .map(|b| (border_channel(t, b).clamp(0.0, 1.0) * 65535.0).round() as u64)
    };
    channels(t, lv, at, [0; 4], border, |p| unorm16(t, p).unwrap_or(0))
}

/// The six faces of a cubemap (the Programming Guide's cubemap table, OpenGL's): for each,
/// the axis of the direction that is major, and the face's s and t before the divide by the
/// major magnitude, as coefficients of (x, y, z).
const FACES: [(usize, [f32; 3], [f32; 3]); 6] = [
    (0, [0.0, 0.0, -1.0], [0.0, -1.0, 0.0]),
    (0, [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]),
    (1, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    (1, [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
    (2, [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
    (2, [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
];

fn dot3(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The face a cubemap direction points at: the major axis picks it in the order +x, -x, +y,
/// -y, +z, -z. Ties go to z, then y (measured on an H100: (1, 1, 1) reads face +z and
/// (-1, -1, 0.999) face -y; the ISA leaves them open).
fn cube_face(d: [f32; 3]) -> usize {
    let [ax, ay, az] = d.map(f32::abs);
    let (axis, v) = if az >= ax && az >= ay {
        (2, d[2])
    } else if ay >= ax {
        (1, d[1])
    } else {
        (0, d[0])
    };
    2 * axis + (v < 0.0) as usize
}

/// The (s, t) in [0, 1] that direction `d` reaches on face `f`: `(sc / |ma| + 1) / 2`.
fn cube_st(f: usize, d: [f32; 3]) -> [f32; 2] {
    let (axis, sc, tc) = FACES[f];
    let ma = d[axis].abs();
    [
        (dot3(sc, d) / ma + 1.0) * 0.5,
        (dot3(tc, d) / ma + 1.0) * 0.5,
    ]
}

/// How (s, t) on face `f` changes when direction `d` changes by `dd` (the derivative of
/// [`cube_st`]), for the level of detail of `tex.grad.cube`.
fn cube_st_grad(f: usize, d: [f32; 3], dd: [f32; 3]) -> [f32; 2] {
    let (axis, sc, tc) = FACES[f];
    let sign = if f.is_multiple_of(2) { 1.0 } else { -1.0 };
    let (ma, dma) = (sign * d[axis], sign * dd[axis]);
    let g = |c: [f32; 3]| 0.5 * (dot3(c, dd) * ma - dot3(c, d) * dma) / (ma * ma);
    [g(sc), g(tc)]
}

/// A fetch placed on the texture: the coordinates on one image of `dims` dimensions, the slice
/// (layer or cube face) it reads, how its coordinates scale, and its gradients in the same
/// units.
#[derive(Clone, Copy)]
struct Placed {
    dims: usize,
    coords: [f32; 3],
    slice: i64,
    normalized: bool,
    address: [AddressMode; 3],
    grad: Option<([f32; 3], [f32; 3])>,
}

/// Places `f` on `t`: a layer index is clamped to the layers there are (the ISA does not say
/// what a larger one reads; OpenGL and Direct3D clamp); a cube direction becomes its face's
/// normalised (s, t), and reads clamp at the face's edges (unless the texture is seamless,
/// [`seamless_taps`]).
fn place(t: &Texture, f: &Fetch) -> Placed {
    let layers = t.layers.max(1) as i64;
    let grad = match f.lod {
        Lod::Grad(dx, dy) => Some((dx, dy)),
        _ => None,
    };
    let plain = |dims: usize, slice: i64| Placed {
        dims,
        coords: f.coords,
        slice,
        normalized: t.normalized_coords,
        address: t.address,
        grad,
    };
    match f.geom {
        Geom::D1 | Geom::D2 | Geom::D3 => plain(f.geom.dims(), 0),
        Geom::A1 | Geom::A2 => plain(f.geom.dims(), (f.index as i64).min(layers - 1)),
        Geom::Cube | Geom::ACube => {
            let cubes = (layers / 6).max(1);
            let cube = if f.geom == Geom::ACube {
                (f.index as i64).min(cubes - 1)
            } else {
                0
            };
            let face = cube_face(f.coords);
            let [s, tt] = cube_st(face, f.coords);
            let grad = grad.map(|(dx, dy)| {
                let g = |d: [f32; 3]| {
                    let [a, b] = cube_st_grad(face, f.coords, d);
                    [a, b, 0.0]
                };
                (g(dx), g(dy))
            });
            Placed {
                dims: 2,
                coords: [s, tt, 0.0],
                slice: cube * 6 + face as i64,
                normalized: true,
                address: [AddressMode::Clamp; 3],
                grad,
            }
        }
    }
}

/// An anisotropic footprint: up to 17 samples along the longer gradient, each at `at[k]`
/// times `major` from the coordinate (`major` in the coordinates' units), weighing
/// `weight[k]` / 1024 of the fetch.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Aniso {
    n: usize,
    at: [f32; 17],
    weight: [u32; 17],
    major: [f32; 3],
}

/// The level of detail before clamping: `None` for level 0 outright (`.base`, or a texture
/// without mipmaps); else the explicit level, or log2 of the gradients' footprint in texels of
/// level 0 ([`footprint`]), plus the sampler's bias.
fn lambda(t: &Texture, p: &Placed, lod: Lod) -> (Option<f32>, Option<Aniso>) {
    if t.levels.len() < 2 {
        return (None, None);
    }
    let (l, aniso) = match lod {
        Lod::Base => return (None, None),
        Lod::Level(l) => (l, None),
        Lod::Grad(..) => {
            let Some((dx, dy)) = p.grad else {
                return (None, None);
            };
            let (len, aniso) = footprint(t, p, dx, dy);
            // In 1/256 steps, rounded up (measured on an H200, tex5-h200.txt: footprints of
            // 1 + j/16 texels, j = 1..15, weigh the coarser level ceil(256 log2) / 256, e.g.
            // 23/256 for 1.0625 where log2 gives 22.4; an explicit level's fraction truncates).
            ((len.log2() * 256.0).ceil() / 256.0, aniso)
        }
    };
    (Some(l + t.mip.bias), aniso)
}

/// The length in texels of level 0 whose log2 is the level of detail of gradients `dx`, `dy`,
/// and the anisotropic footprint, if any.
///
/// Isotropic (`maxAnisotropy` 0 or 1, or a texture of other than two dimensions): the longer
/// gradient. Anisotropic: what an H200 showed (scripts/ground-truth/results/tex5-h200.txt and
/// tex6-h200.txt; tex_probe5.cu and tex_probe6.cu read a texture whose level L holds L, which
/// returns the level of detail, and a single texel of 1.0, which returns the weight each
/// sample gives it). `maxAnisotropy` counts as the power of two at or below it, at most 16
/// (3 answered as 2). With the ratio r of the longer gradient to the shorter:
/// - r at most `maxAnisotropy`: the level comes from the shorter gradient, and the fetch is a
///   box filter along the longer one, sampled every `longer / ceil(r)`: `ceil(r)` equal
///   samples if that is even, else one more with the two at the ends weighing half (the
///   footprint's ends fall in their middles); ratios 2, 3, 4, 5, 6, 7, 8, 9 and 16 matched
///   that sample for sample, the weights to the H200's 1/1024 steps (up to 4/1024 off at the
///   ends of odd counts);
/// - r above it: `maxAnisotropy` equal samples `longer / maxAnisotropy` apart, and the level
///   from that spacing (ratios 3, 5, 6 and 12 under 2 and 4, 16 under 16).
///
/// Not reproduced, so that anisotropic fetches are close to the H200's rather than equal: the
/// mipmap fraction (under anisotropy the H200 narrows the blend between levels: a footprint
/// of 1.5 texels weighs the coarser level 162/256 under `maxAnisotropy` 2, 168 under 4 and
/// 172 under 8 and 16, against 150 without), gradients off the axes (their lengths are not
/// Euclidean there: 2 texels at 45 degrees gave the level of 1.9, at 20 degrees of 2.11), the
/// spacing of ratios below 2 (1.5 put its two samples 0.67 texel apart, not 0.75) and 2.5
/// (1 apart, not 0.83), and ratio 9 under 8 (8 samples 1 apart, not 1.125).
fn footprint(t: &Texture, p: &Placed, dx: [f32; 3], dy: [f32; 3]) -> (f32, Option<Aniso>) {
    let scale = |d: usize| {
        if p.normalized {
            t.levels[0].size[d] as f32
        } else {
            1.0
        }
    };
    let len = |g: [f32; 3]| {
        (0..p.dims)
            .map(|d| (g[d] * scale(d)).powi(2))
            .sum::<f32>()
            .sqrt()
    };
    // Isotropic filtering of a 2-D texture measures a gradient as max + 0.34 * min of its
    // components in texels, not its Euclidean length (measured on an H200, tex8-h200.txt: 1
    // texel at 45 degrees reads as 0.95, at 15 to 25 degrees as 1.056; the constant fits every
    // angle to within 0.005 of the level, the rest not reproduced yet). Anisotropic footprints
    // fit Euclidean lengths better (tex5-h200.txt), so they keep them.
    let approx = |g: [f32; 3]| {
        let (a, b) = ((g[0] * scale(0)).abs(), (g[1] * scale(1)).abs());
        a.max(b) + 0.34 * a.min(b)
    };
    let max = t.mip.max_anisotropy.min(16);
    if p.dims == 2 && max < 2 {
        return (approx(dx).max(approx(dy)), None);
    }
    let (lx, ly) = (len(dx), len(dy));
    let (major, pmax, pmin) = if lx >= ly { (dx, lx, ly) } else { (dy, ly, lx) };
    if max < 2 || p.dims != 2 || !pmax.is_finite() || pmax <= 0.0 {
        return (pmax, None);
    }
    let max = 1u32 << (31 - max.leading_zeros());
    let ratio = if pmin > 0.0 {
        pmax / pmin
    } else {
        f32::INFINITY
    };
    let mut a = Aniso {
        n: 0,
        at: [0.0; 17],
        weight: [0; 17],
        major,
    };
    // (Ratios within a 1/256 of an integer count as that integer: gradients of 3 and 1 texels
    // in normalised coordinates give 3.0000002.)
    let r = (ratio * 256.0).round() / 256.0;
    if r <= 1.0 {
        return (pmax, None);
    }
    let (cells, len) = if r > max as f32 {
        (max, pmax / max as f32)
    } else {
        (r.ceil() as u32, pmin)
    };
    let step = 1.0 / cells as f32;
    if cells % 2 == 0 {
        a.n = cells as usize;
        for k in 0..a.n {
            a.at[k] = (k as f32 + 0.5 - a.n as f32 / 2.0) * step;
        }
    } else {
        a.n = cells as usize + 1;
        for k in 0..a.n {
            a.at[k] = (k as f32 - cells as f32 / 2.0) * step;
        }
    }
    // Weights in 1/1024, the inner ones rounded, the ends taking the rest.
    let inner = (1024 + cells / 2) / cells;
    for w in a.weight.iter_mut().take(a.n - 1).skip(1) {
        *w = inner;
    }
    let ends = 1024 - inner * (a.n as u32 - 2);
    a.weight[0] = ends / 2;
    a.weight[a.n - 1] = ends - ends / 2;
    (len, Some(a))
}

/// The levels a fetch reads and their weights in 1/256: the level of detail clamped to the
/// sampler's range and to the levels there are; the nearest level (half rounds up) with point
/// mipmap filtering or integer results (measured: 0.5 picks the coarser level), else the two
/// around it weighed by the fraction in 8 bits.
fn pick_levels(t: &Texture, lam: Option<f32>, blend: bool) -> [(usize, u64); 2] {
    let Some(l) = lam else {
        return [(0, 256), (0, 0)];
    };
    let top = (t.levels.len() - 1) as f32;
    let l = if l.is_nan() { 0.0 } else { l };
    let l = l.max(t.mip.min).min(t.mip.max).clamp(0.0, top);
    if !blend || t.mip.filter == Filter::Point {
        return [((l + 0.5).floor().min(top) as usize, 256), (0, 0)];
    }
    let lo = l.floor();
    // The fraction in 8 bits, truncated (measured: level of detail 0.999 weighs the coarser
    // level 255/256, and 1.3 weighs it 76/256).
    let w = ((l - lo) * 256.0) as u64;
    if w == 0 || lo >= top {
        return [(lo as usize, 256), (0, 0)];
    }
    [(lo as usize, 256 - w), (lo as usize + 1, w)]
}

/// Which texel index along dimension `d` a point fetch reads.
fn point_index(site: &Site, x: f32, d: usize, offset: i32) -> Option<i64> {
    let (x, mode) = site.texel_coord(x, d);
    // clamp_ogl with NEAREST clamps the index to the texture (OpenGL's Table 8.20): the
    // coordinate may be the far edge itself.
    let mode = match mode {
        AddressMode::ClampOgl => AddressMode::Clamp,
        m => m,
    };
    address(x.floor() as i64 + offset as i64, site.size(d), mode)
}

/// The texel point sampling reads at `p` on `site`'s level, after addressing.
fn point_at(site: &Site, p: &Placed, offset: [i32; 3]) -> [Option<i64>; 3] {
    let mut at = site.fill(p.dims);
    for (d, a) in at.iter_mut().enumerate().take(p.dims) {
        *a = point_index(site, p.coords[d], d, offset[d]);
    }
    at
}

/// Where linear filtering reads along dimension `d` of `site`'s level: the lower texel's index
/// (offset applied), the upper texel's weight in 1/256, and the address mode. With clamp the
/// coordinate is first clamped to the centres of the edge texels, so a footprint hanging over
/// an edge puts all its weight on the edge texel (measured on an H100, tex2-h100.txt: a 3-D
/// fetch at x = 0.3 weighs its y neighbours as the clamped coordinate's rounded weights do,
/// not as the unclamped ones'; with exact weights the two would be the same).
fn linear_axis(site: &Site, x: f32, d: usize, offset: i32) -> (i64, u32, AddressMode) {
    let (x, mode) = site.texel_coord(x, d);
    let xb = x - 0.5;
    let f = xb.floor();
    let (mut base, mut w) = (f as i64 + offset as i64, weight(xb - f));
    let n = site.size(d);
    if mode == AddressMode::Clamp && (base < 0 || base >= n - 1) {
        (base, w) = (base.clamp(0, n - 1), 0);
    }
    (base, w, mode)
}

/// One texel a fetch reads: its weight in 1/256, its level, where it is (after addressing).
type Tap = (u32, usize, [Option<i64>; 3]);

/// The texels a fetch reads on `level` and their weights in 1/256, out of `share`:
/// the texel under the coordinate (point sampling) or the 2^dims neighbours of `x - 0.5`
/// weighed by [`corner_weights`].
fn taps(t: &Texture, p: &Placed, level: usize, offset: [i32; 3], share: u32, out: &mut Vec<Tap>) {
    let site = &site(t, p, level);
    if t.filter == Filter::Point || !t.returns_float() {
        out.push((share, level, point_at(site, p, offset)));
        return;
    }
    if t.seamless && t.cubemap && offset == [0; 3] {
        seamless_taps(site, p, level, share, out);
        return;
    }
    let dims = p.dims;
    let mut axes = [(0i64, 0u32, AddressMode::Clamp); 3];
    for (d, a) in axes.iter_mut().enumerate().take(dims) {
        *a = linear_axis(site, p.coords[d], d, offset[d]);
    }
    let cw = corner_weights(share, axes.map(|a| a.1), dims);
    for (corner, &w) in cw.iter().enumerate().take(1 << dims) {
        let mut at = site.fill(dims);
        for d in 0..dims {
            let (base, _, mode) = axes[d];
            at[d] = address(base + (corner >> d & 1) as i64, site.size(d), mode);
        }
        out.push((w, level, at));
    }
}

/// [`taps`] of linear filtering on a seamless cubemap (`CU_TRSF_SEAMLESS_CUBEMAP`): the
/// footprint on the selected face is weighed as on any 2-D texture ([`corner_weights`]), but
/// texels past an edge are read from the adjacent face, as if the cube were unfolded there
/// ([`across_edge`]). Past a corner of the cube there is no fourth texel: its weight goes to
/// the three that meet there, each of the two off the selected face getting a third of it
/// rounded to the nearest 1/256, the selected face's texel the rest. Measured on an H200
/// (tex7-h200.txt: a 4 x 4 cubemap read in quarter texels over every face, and single texels
/// of 1.0 at the corners: a corner weight of 16/256 went 6, 5, 5; 32/256 went 10, 11, 11;
/// 64/256 went 22, 21, 21, the first to the selected face).
fn seamless_taps(site: &Site, p: &Placed, level: usize, share: u32, out: &mut Vec<Tap>) {
    let n = site.size(0);
    let (face, cube) = (p.slice % 6, p.slice - p.slice % 6);
    let mut base = [0i64; 2];
    let mut w = [0u32; 3];
    for d in 0..2 {
        let x = p.coords[d] * n as f32 - 0.5;
        let f = x.floor();
        base[d] = f as i64;
        w[d] = weight(x - f);
    }
    let cw = corner_weights(share, w, 2);
    let inside = |i: i64| (0..n).contains(&i);
    let first = out.len();
    let (mut home, mut missing) = (None, 0u32);
    for (corner, &wt) in cw.iter().enumerate().take(4) {
        let (i, j) = (
            base[0] + (corner & 1) as i64,
            base[1] + (corner >> 1) as i64,
        );
        match (inside(i), inside(j)) {
            (true, true) => {
                home = Some(out.len());
                out.push((wt, level, [Some(i), Some(j), Some(p.slice)]));
            }
            (false, false) => missing = wt,
            _ => {
                let (f, a, b) = across_edge(face as usize, n, i, j);
                out.push((wt, level, [Some(a), Some(b), Some(cube + f as i64)]));
            }
        }
    }
    if missing > 0 {
        let third = (2 * missing + 3) / 6;
        let mut rest = missing;
        for (k, tap) in out.iter_mut().enumerate().skip(first) {
            if Some(k) != home {
                tap.0 += third;
                rest -= third;
            }
        }
        if let Some(h) = home {
            out[h].0 += rest;
        }
    }
}

/// The texel of the face adjacent to face `f` (of `n` x `n` texels) that texel (`i`, `j`) of
/// face `f`, one step past one of its edges, lands on when the cube is unfolded there: the
/// texel's centre as a direction on `f`'s plane, folded over the edge onto the neighbour's
/// plane (the coordinate past the edge stays at the edge, the distance past it comes off the
/// major axis), then read as any direction is ([`cube_face`], [`cube_st`]).
fn across_edge(f: usize, n: i64, i: i64, j: i64) -> (usize, i64, i64) {
    let (axis, sc, tc) = FACES[f];
    let sign = if f.is_multiple_of(2) { 1.0 } else { -1.0 };
    let a = 2.0 * (i as f32 + 0.5) / n as f32 - 1.0;
    let b = 2.0 * (j as f32 + 0.5) / n as f32 - 1.0;
    let mut d = [0.0f32; 3];
    d[axis] = sign;
    for k in 0..3 {
        d[k] += a * sc[k] + b * tc[k];
    }
    let over = (0..3).find(|&k| k != axis && d[k].abs() > 1.0).unwrap();
    let past = d[over].abs() - 1.0;
    d[over] = d[over].signum();
    d[axis] = sign * (1.0 - past);
    let g = cube_face(d);
    let [s, t] = cube_st(g, d);
    let idx = |x: f32| ((x * n as f32).floor() as i64).clamp(0, n - 1);
    (g, idx(s), idx(t))
}

fn site<'t>(t: &'t Texture, p: &Placed, level: usize) -> Site<'t> {
    Site {
        level: &t.levels[level],
        normalized: p.normalized,
        slice: p.slice,
        address: p.address,
    }
}

/// `tex` with float results: samples `t` as `f` says. Integer textures read as integers
/// return their values converted to float here; [`fetch_bits`] gives their bits. Every texel
/// the fetch reads, on one or two levels, goes into one sum with its weight in 1/256 (the
/// level's share split by [`corner_weights`]), rounded once (see [`weighted_sum`]).
pub fn sample(t: &Texture, f: &Fetch) -> [f32; 4] {
    let p = place(t, f);
    let (lam, aniso) = lambda(t, &p, f.lod);
    let picks = pick_levels(t, lam, t.returns_float());
    let mut reads = Vec::with_capacity(16);
    // Weights in 1/256 of the fetch, or 1/2^18 when an anisotropic footprint splits each
    // level's share among its samples (in 1/1024).
    let unit = if aniso.is_some() { 18 } else { 8 };
    for (level, share) in picks {
        if share == 0 {
            continue;
        }
        match aniso {
            None => taps(t, &p, level, f.offset, share as u32, &mut reads),
            Some(a) => {
                for k in 0..a.n {
                    let mut q = p;
                    for d in 0..q.dims {
                        q.coords[d] += a.at[k] * a.major[d];
                    }
                    taps(
                        t,
                        &q,
                        level,
                        f.offset,
                        share as u32 * a.weight[k],
                        &mut reads,
                    );
                }
            }
        }
    }
    if let [(w, level, at)] = reads[..] {
        if w == 1 << unit {
            return texel(t, &t.levels[level], at);
        }
    }
    let linear = t.filter == Filter::Linear && t.returns_float();
    if let Some(v) = linear
        .then(|| crate::bc::filter(t, &reads, unit as u32))
        .flatten()
    {
        return v;
    }
    // Unsigned normalised texels are filtered as 16-bit fractions (measured on an H100: a
    // filtered 8-bit texture returns k / 65535, k the weighted sum rounded).
    if linear && t.read_normalized && !t.srgb && matches!(t.channel, Channel::U8 | Channel::U16) {
        let mut fixed = [0u64; 4];
        for &(w, level, at) in &reads {
            let v = texel_fixed(t, &t.levels[level], at);
            for c in 0..4 {
                fixed[c] += w as u64 * v[c];
            }
        }
        return fixed.map(|k| ((k + (1 << (unit - 1))) >> unit) as f32 / 65535.0);
    }
    let mut texels: Vec<[f32; 4]> = reads
        .iter()
        .map(|&(_, level, at)| texel(t, &t.levels[level], at))
        .collect();
    align_to_largest(&reads, &mut texels);
    let mut out = [0.0f32; 4];
    let mut terms = Vec::with_capacity(reads.len());
    for (c, o) in out.iter_mut().enumerate() {
        terms.clear();
        terms.extend(reads.iter().zip(&texels).map(|(&(w, ..), v)| (w, v[c])));
        *o = weighted_sum(&terms, unit);
    }
    if t.srgb && linear {
        srgb_filter(t, &reads, unit, &mut out);
    }
    out
}

/// Each channel of a level's texels aligned to the exponent of the largest that weighs
/// anything, 28 significant bits from there down (a float's 24 and 4 more), truncated toward
/// zero, before `weighted_sum` adds them. Fitted to an H200: every one of tex4-h200.txt's
/// 2,320 fetches bit for bit (one, whose random texels on two levels nearly cancel, was 2 ulp
/// off with the texels unaligned); aligning both levels together breaks a point-filtered
/// fetch between two levels, 27 bits break 9 fetches, 29 or more leave that one off. Block-compressed texels align the same
/// way with their own widths (`crate::bc`'s `aligned_sum`).
fn align_to_largest(reads: &[(u32, usize, [Option<i64>; 3])], texels: &mut [[f32; 4]]) {
    const KEEP: i32 = 28;
    // The exponent of a nonzero finite f32, subnormals included (normal as f64).
    let exponent = |v: f32| ((v as f64).to_bits() >> 52 & 0x7ff) as i32 - 1023;
    let counts = |r: &(u32, usize, _), v: f32| r.0 != 0 && v != 0.0 && v.is_finite();
    let mut levels: Vec<usize> = reads.iter().map(|r| r.1).collect();
    levels.sort_unstable();
    levels.dedup();
    for c in 0..4 {
        for &level in &levels {
            let Some(top) = reads
                .iter()
                .zip(texels.iter())
                .filter(|(r, v)| r.1 == level && counts(r, v[c]))
                .map(|(_, v)| exponent(v[c]))
                .max()
            else {
                continue;
            };
            let q = ((top - KEEP + 1) as f64).exp2();
            for (r, v) in reads.iter().zip(texels.iter_mut()) {
                if r.1 == level && v[c].is_finite() {
                    v[c] = ((v[c] as f64 / q).trunc() * q) as f32;
                }
            }
        }
    }
}

/// A linearly filtered 8-bit sRGB texture, over `out`'s plain weighted sums. The colours
/// filter as block-compressed sRGB texels do (`crate::bc::srgb_filtered`, fitted to an H200),
/// alpha as a 16-bit fraction as in other 8-bit textures: that reproduces every filtered sRGB
/// line of tex2-h100.txt (36 lines, within 5e-4 before). A footprint reaching the border keeps
/// the weighted sums, the colours rounded to halves (not measured).
fn srgb_filter(
    t: &Texture,
    reads: &[(u32, usize, [Option<i64>; 3])],
    unit: i32,
    out: &mut [f32; 4],
) {
    let inside = reads.iter().all(|r| r.2.iter().all(Option::is_some));
    let colours = (t.channels as usize).min(3);
    if !(inside && t.channel == Channel::U8 && t.read_normalized) {
        for c in &mut out[..colours] {
            *c = half(*c);
        }
        return;
    }
    let texels: Vec<(u32, [u64; 4])> = reads
        .iter()
        .map(|&(w, level, at)| (w, texel_fixed(t, &t.levels[level], at)))
        .collect();
    for (c, o) in out.iter_mut().enumerate() {
        if c < colours {
            // The 8-bit codes back from their 16-bit fractions (v * 257).
            let terms: Vec<(u32, u8)> = texels
                .iter()
                .map(|&(w, v)| (w, (v[c] / 257) as u8))
                .collect();
            *o = crate::bc::srgb_filtered(&terms, unit as u32);
        } else if c == 3 {
            let k: u64 = texels.iter().map(|&(w, v)| w as u64 * v[3]).sum();
            *o = ((k + (1 << (unit - 1))) >> unit) as f32 / 65535.0;
        }
    }
}

/// `tex` with integer results (an integer texture read as integers): point sampling at the
/// nearest level.
pub fn fetch_bits(t: &Texture, f: &Fetch) -> [u32; 4] {
    let p = place(t, f);
    let level = pick_levels(t, lambda(t, &p, f.lod).0, false)[0].0;
    let s = site(t, &p, level);
    texel_bits(t, s.level, point_at(&s, &p, f.offset))
}

/// The texel at `at` (after addressing) as integer bits; the border colour converted. A
/// missing channel reads 0, alpha too, as in float results (measured on an H200: one- and
/// two-channel 8-, 16- and 32-bit integer textures read as int4, tex7-h200.txt; OpenGL would
/// read an alpha of 1).
fn texel_bits(t: &Texture, lv: &Level, at: [Option<i64>; 3]) -> [u32; 4] {
    if let Some(v) = crate::bc::texel_f32(t, lv, at) {
        return v.map(f32::to_bits);
    }
    let border = || t.border.map(|b| b as i32 as u32);
    channels(t, lv, at, [0; 4], border, |p| read_bits(t, p))
}

/// `tex` with integer coordinates (`tex1Dfetch` and its kind): the texel at `ijk` (the first
/// `geom.dims()`) of layer `index` at `level`, no filtering, out-of-range indices handled by
/// the address mode as unnormalised coordinates; `float`: the float results (integers read
/// normalised, or converted), else the bits.
pub fn fetch_texel(
    t: &Texture,
    geom: Geom,
    ijk: [i32; 3],
    index: u32,
    level: i32,
    float: bool,
) -> [u32; 4] {
    let top = t.levels.len() as i32 - 1;
    let lv = &t.levels[level.clamp(0, top) as usize];
    let dims = geom.dims();
    let mut at = [Some(0i64); 3];
    if geom.indexed() {
        at[2] = Some((index as i64).min(t.layers.max(1) as i64 - 1));
    }
    for (d, a) in at.iter_mut().enumerate().take(dims) {
        let mode = match t.address[d] {
            AddressMode::Border => AddressMode::Border,
            _ => AddressMode::Clamp,
        };
        *a = address(ijk[d] as i64, lv.size[d] as i64, mode);
    }
    if float || t.returns_float() {
        return texel(t, lv, at).map(f32::to_bits);
    }
    texel_bits(t, lv, at)
}

/// `tld4` (`tex2Dgather`): channel `comp` of the four texels bilinear filtering at `f` would
/// weigh on level 0, in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
pub fn gather(t: &Texture, comp: usize, f: &Fetch) -> [f32; 4] {
    let p = place(t, f);
    let s = site(t, &p, 0);
    let (x, mx) = s.texel_coord(p.coords[0], 0);
    let (y, my) = s.texel_coord(p.coords[1], 1);
    let i = (x - 0.5).floor() as i64 + f.offset[0] as i64;
    let j = (y - 0.5).floor() as i64 + f.offset[1] as i64;
    let (w, h) = (s.size(0), s.size(1));
    let at = |di: i64, dj: i64| {
        let at = [
            address(i + di, w, mx),
            address(j + dj, h, my),
            Some(p.slice),
        ];
        texel(t, s.level, at)[comp]
    };
    [at(0, 1), at(1, 1), at(1, 0), at(0, 0)]
}

/// The channel data type of `channel` texels in OpenCL's enumeration (PTX ISA 5.3.3, Table
/// 12: "currently, OpenCL is the only source language that defines these fields"):
/// normalised integers are the UNORM/SNORM values.
pub fn opencl_data_type(channel: Channel, normalized: bool) -> u32 {
    match (channel, normalized) {
        (Channel::S8, true) => 0x10D0,
        (Channel::S16, true) => 0x10D1,
        (Channel::U8, true) => 0x10D2,
        (Channel::U16, true) => 0x10D3,
        (Channel::S8, false) => 0x10D7,
        (Channel::S16, false) => 0x10D8,
        (Channel::S32, _) => 0x10D9,
        (Channel::U8, false) => 0x10DA,
        (Channel::U16, false) => 0x10DB,
        (Channel::U32, _) => 0x10DC,
        (Channel::F16, _) => 0x10DD,
        (Channel::F32, _) => 0x10DE,
    }
}

/// The channel order of texels of `channels` channels in OpenCL's enumeration (PTX ISA 5.3.3,
/// Table 13): CL_R, CL_RG, CL_RGBA.
pub fn opencl_channel_order(channels: u8) -> u32 {
    match channels {
        1 => 0x10B0,
        2 => 0x10B2,
        _ => 0x10B5,
    }
}

/// A `txq` query (ISA 9.7.10.5) that a texture object answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoords,
    ArraySize,
    NumMipmapLevels,
    NumSamples,
    FilterMode,
    AddrMode(u8),
}

/// `txq` on `t`, of mipmap level `level` for the sizes (`txq.level`; a level past the last
/// answers 0, as an absent level has no texels).
pub fn query(t: &Texture, q: Query, level: u32) -> u32 {
    let size = |d: usize| t.levels.get(level as usize).map_or(0, |l| l.size[d]);
    match q {
        Query::Width => size(0),
        Query::Height => size(1),
        Query::Depth => size(2),
        Query::ChannelDataType => opencl_data_type(t.channel, t.read_normalized),
        Query::ChannelOrder => opencl_channel_order(t.channels),
        Query::NormalizedCoords => t.normalized_coords as u32,
        // The number of textures in an array: of cubemaps for a cubemap array.
        Query::ArraySize => {
            if t.cubemap {
                if t.layers > 6 {
                    t.layers / 6
                } else {
                    0
                }
            } else {
                t.layers
            }
        }
        Query::NumMipmapLevels => {
            if t.mipmapped {
                t.levels.len() as u32
            } else {
                0
            }
        }
        Query::NumSamples => 0,
        Query::FilterMode => (t.filter == Filter::Linear) as u32,
        // The ISA's enumeration { wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border }:
        // CUDA's clamp is clamp_to_edge.
        Query::AddrMode(d) => match t.address[d as usize % 3] {
            AddressMode::Wrap => 0,
            AddressMode::Mirror => 1,
            AddressMode::ClampOgl => 2,
            AddressMode::Clamp => 3,
            AddressMode::Border => 4,
        },
    }
}

/// A half-precision result: the f32 result rounded to nearest even (`tex.*.f16`).
pub fn to_f16(v: f32) -> u16 {
    softfloat::convert(softfloat::F32, softfloat::F16, v.to_bits() as u64, Mode::Rn) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A C99 hex float (`%a`): `[-]0xH.HHHp[+-]E`.
    fn hex(s: &str) -> f32 {
        let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
        let s = s.strip_prefix("0x").expect("hex float");
        let (mant, exp) = s.split_once('p').expect("exponent");
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let mut v = u64::from_str_radix(int, 16).unwrap() as f64;
        for (k, c) in frac.chars().enumerate() {
            v += c.to_digit(16).unwrap() as f64 / 16f64.powi(k as i32 + 1);
        }
        let v = v * 2f64.powi(exp.parse().unwrap());
        (if neg { -v } else { v }) as f32
    }

    fn texture(base: u64, size: [u32; 3], channel: Channel, row_pitch: u64) -> Texture {
        let level = Level {
            base,
            size,
            row_pitch,
            slice_pitch: row_pitch * size[1] as u64,
        };
        let mut t = Texture::new(level, channel, 1);
        t.border = [0.25, 0.0, 0.0, 0.0];
        t
    }

    /// Every fetch of scripts/ground-truth/tex_probe.cu as an H100 returned it
    /// (scripts/ground-truth/results/tex-h100.txt, driver 580.159): the same textures sampled
    /// here give the same bits.
    #[test]
    fn fetches_match_an_h100() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/ground-truth/results/tex-h100.txt"
        ))
        .unwrap();
        let t1: [f32; 4] = [0.0, 1.0, 10.0, 100.0];
        let mut t2 = [0u8; 16];
        for y in 0..4 {
            for x in 0..4 {
                t2[y * 4 + x] = (16 * 3 * y + 5 * x + 7) as u8;
            }
        }
        let (mut checked, mut wrong) = (0, Vec::new());
        for line in text.lines() {
            let Some((what, got)) = line.split_once(" -> ") else {
                continue;
            };
            let words: Vec<&str> = what.split_whitespace().collect();
            let want: Vec<f32> = got.split_whitespace().map(hex).collect();
            let filter = |w: &str| {
                if w == "linear" {
                    Filter::Linear
                } else {
                    Filter::Point
                }
            };
            let mode = |w: &str| match w {
                "wrap" => AddressMode::Wrap,
                "clamp" => AddressMode::Clamp,
                "mirror" => AddressMode::Mirror,
                _ => AddressMode::Border,
            };
            let point = |w: &str| -> Vec<f32> {
                let w = w
                    .trim_start_matches("x=")
                    .trim_matches(|c| c == '(' || c == ')');
                w.split(',').map(hex).collect()
            };
            let mut t2d = texture(t2.as_ptr() as u64, [4, 4, 1], Channel::U8, 4);
            t2d.read_normalized = true;
            t2d.normalized_coords = true;
            let got: Vec<f32> = match words[0] {
                "tex1D" => {
                    let mut t = texture(t1.as_ptr() as u64, [4, 1, 1], Channel::F32, 16);
                    t.filter = filter(words[1]);
                    let x = point(words[5])[0];
                    vec![sample(&t, &Fetch::at(1, [x, 0.0, 0.0]))[0]]
                }
                "tex2D" => {
                    t2d.address = [mode(words[2]); 3];
                    t2d.filter = filter(words[3]);
                    let p = point(words[5]);
                    vec![sample(&t2d, &Fetch::at(2, [p[0], p[1], 0.0]))[0]]
                }
                "tex2Dgather" => {
                    let p = point(words[4]);
                    gather(&t2d, 0, &Fetch::at(2, [p[0], p[1], 0.0])).to_vec()
                }
                _ => continue,
            };
            checked += 1;
            if got
                .iter()
                .map(|v| v.to_bits())
                .eq(want.iter().map(|v| v.to_bits()))
            {
                continue;
            }
            wrong.push(format!("{line}\n    here: {got:?} want {want:?}"));
        }
        assert_eq!(checked, 488);
        assert!(
            wrong.is_empty(),
            "{} of {checked} differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    /// Trilinear filtering of a 4x4x4 float texture (x + 10y + 100z, texel coordinates,
    /// clamp) against what an H100 returned (scripts/ground-truth/results/tex2-h100.txt, from
    /// tex_probe2.cu): all 24 fetches bit for bit. With exact products of the axes' weights
    /// six of them differed (one y step, 10/256, or the last bit): the weights are rounded
    /// (`corner_weights`, fitted to an H200's tex4-h200.txt), and the fetch at x = 0.3 needs
    /// the coordinate clamped to the edge texel's centre before they are computed.
    #[test]
    fn trilinear_fetches_match_an_h100() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/ground-truth/results/tex2-h100.txt"
        ))
        .unwrap();
        let mut v = [0f32; 64];
        for z in 0..4 {
            for y in 0..4 {
                for x in 0..4 {
                    v[(z * 4 + y) * 4 + x] = (x + 10 * y + 100 * z) as f32;
                }
            }
        }
        let mut t = texture(v.as_ptr() as u64, [4, 4, 4], Channel::F32, 16);
        t.filter = Filter::Linear;
        let (mut checked, mut exact) = (0, 0);
        for line in text
            .lines()
            .filter(|l| l.starts_with("tex3D linear clamp unnorm"))
        {
            let (what, want) = line.split_once(" -> ").unwrap();
            let p: Vec<f32> = what
                .rsplit_once(' ')
                .unwrap()
                .1
                .trim_matches(|c| c == '(' || c == ')')
                .split(',')
                .map(hex)
                .collect();
            let (got, want) = (sample(&t, &Fetch::at(3, [p[0], p[1], p[2]]))[0], hex(want));
            checked += 1;
            if got.to_bits() == want.to_bits() {
                exact += 1;
            } else {
                eprintln!("{line}: here {got}");
            }
        }
        assert_eq!(
            (checked, exact),
            (24, 24),
            "trilinear fetches differ from the H100's"
        );
    }

    /// Every fetch of scripts/ground-truth/tex_probe4.cu as an H200 returned it
    /// (scripts/ground-truth/results/tex4-h200.txt, which prints every texel and coordinate):
    /// 3-D linear filtering of a 4x4x4 float array and `tex2DLod` of an 8x8 float mipmap with
    /// linear mipmap filtering, point and linear within the levels, sampled here from the same
    /// texels. All 2,320 fetches bit-exact (the last, a sum that nearly cancels, since the
    /// texels are aligned to the largest: `align_to_largest`).
    #[test]
    fn tex4_fetches_match_an_h200() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/ground-truth/results/tex4-h200.txt"
        ))
        .unwrap();
        let mut texels: Vec<f32> = Vec::new();
        let (mut checked, mut off) = (0, Vec::new());
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("texels ") {
                texels = rest.split_whitespace().skip(1).map(hex).collect();
                continue;
            }
            let Some((what, want)) = line.split_once(" -> ") else {
                continue;
            };
            let (head, p) = what.split_once(" (").unwrap();
            let p: Vec<f32> = p.trim_end_matches(')').split(',').map(hex).collect();
            let got = if head.starts_with("tex3D") {
                let mut t = texture(texels.as_ptr() as u64, [4, 4, 4], Channel::F32, 16);
                t.filter = Filter::Linear;
                sample(&t, &Fetch::at(3, [p[0], p[1], p[2]]))[0]
            } else {
                let mut t = texture(texels.as_ptr() as u64, [8, 8, 1], Channel::F32, 32);
                let mut at = 0;
                t.levels = (0..4)
                    .map(|l| {
                        let n = 8u32 >> l;
                        let base = texels.as_ptr() as u64 + 4 * at;
                        at += (n * n) as u64;
                        Level {
                            base,
                            size: [n, n, 1],
                            row_pitch: 4 * n as u64,
                            slice_pitch: 4 * (n * n) as u64,
                        }
                    })
                    .collect();
                t.mipmapped = true;
                t.normalized_coords = true;
                t.filter = if head.ends_with("filter=linear") {
                    Filter::Linear
                } else {
                    Filter::Point
                };
                t.mip = Mip {
                    filter: Filter::Linear,
                    bias: 0.0,
                    min: 0.0,
                    max: 100.0,
                    max_anisotropy: 0,
                };
                let mut f = Fetch::at(2, [p[0], p[1], 0.0]);
                f.lod = Lod::Level(p[2]);
                sample(&t, &f)[0]
            };
            checked += 1;
            let want = hex(want);
            if got.to_bits() != want.to_bits() {
                off.push(format!("{line}\n    here: {got:e} ({} ulp)", {
                    (got.to_bits() as i64 - want.to_bits() as i64).abs()
                }));
            }
        }
        assert_eq!(checked, 2320);
        assert!(
            off.is_empty(),
            "{} of {checked} differ:\n{}",
            off.len(),
            off.join("\n")
        );
    }
}
