//! Texture objects and the texture unit's sampling: the driver registers each texture object's
//! resource and sampler under its 64-bit handle (`cuTexObjectCreate`), and `tex`/`tld4` look
//! the handle up and sample as the CUDA Programming Guide's "Texture Fetching" appendix says:
//! coordinates scaled to texels when normalised, the address mode applied, point sampling of
//! the texel under the coordinate, or linear filtering between the two (four, eight)
//! neighbours with weights in 9-bit fixed point with 8 fractional bits.
//!
//! Measured on an H100 (scripts/ground-truth/results/tex-h100.txt, matched bit for bit by the
//! tests): a weight rounds to the nearest 1/256, half a step up; an 8-bit normalised texel
//! reads as v/255 and filters as a 16-bit fraction (v * 257), the weighted sum rounded to
//! 16 bits; the border colour is stored in the texel format. Not matched yet: linear filtering
//! over a footprint mixing border and texels (within 3e-4), and 6 of 24 probed trilinear
//! fetches (within one weight step; see the tests).

use once_cell::sync::Lazy;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

/// How a coordinate outside the texture is brought back in (`CUaddress_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    Wrap,
    Clamp,
    Mirror,
    Border,
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

/// One texture object: where its texels are and how it samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Device address of texel (0, 0, 0).
    pub base: u64,
    /// Texels in each dimension (1 for the dimensions the resource lacks).
    pub size: [u32; 3],
    /// Bytes from one row to the next, and from one slice (layer) to the next.
    pub row_pitch: u64,
    pub slice_pitch: u64,
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
}

impl Texture {
    /// Bytes of device memory the texels span, from `base`.
    pub fn extent(&self) -> u64 {
        let texel = (self.channel.bytes() * self.channels as usize) as u64;
        (self.size[2] as u64 - 1) * self.slice_pitch
            + (self.size[1] as u64 - 1) * self.row_pitch
            + self.size[0] as u64 * texel
    }

    /// Whether fetches return floats (a float format, or integers read normalised).
    pub fn returns_float(&self) -> bool {
        self.channel.float() || self.read_normalized
    }
}

static TEXTURES: Lazy<RwLock<HashMap<u64, Arc<Texture>>>> = Lazy::new(Default::default);

/// Makes `handle` name `t` (the driver chose the handle).
pub fn register(handle: u64, t: Texture) {
    TEXTURES.write().insert(handle, Arc::new(t));
}

/// Forgets `handle`; fetches through it fail from now on.
pub fn unregister(handle: u64) {
    TEXTURES.write().remove(&handle);
}

/// The texture named `handle`, if it exists.
pub fn lookup(handle: u64) -> Option<Arc<Texture>> {
    TEXTURES.read().get(&handle).cloned()
}

/// One channel value as the fetch returns it: float bits, or the integer.
fn read_channel(t: &Texture, p: *const u8) -> f32 {
    // SAFETY: the caller passes a pointer inside the texture's checked extent.
    unsafe {
        match t.channel {
            Channel::F32 => (p as *const f32).read_unaligned(),
            Channel::F16 => {
                let h = (p as *const u16).read_unaligned();
                crate::sem::softfloat::to_f64(crate::sem::softfloat::F16, h as u64) as f32
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
        AddressMode::Border => (0..n).contains(&i).then_some(i),
        AddressMode::Wrap => Some(i.rem_euclid(n)),
        AddressMode::Mirror => {
            let p = i.rem_euclid(2 * n);
            Some(if p < n { p } else { 2 * n - 1 - p })
        }
    }
}

/// A coordinate in texels along one dimension. Unnormalised coordinates only clamp or use the
/// border: wrap and mirror act as clamp (Programming Guide, texture fetching).
fn texel_coord(t: &Texture, x: f32, d: usize) -> (f32, AddressMode) {
    let n = t.size[d] as f32;
    let mode = t.address[d];
    if !t.normalized_coords {
        let mode = match mode {
            AddressMode::Wrap | AddressMode::Mirror => AddressMode::Clamp,
            m => m,
        };
        return (x, mode);
    }
    (x * n, mode)
}

/// The host address of texel `(i, j, k)` (in range).
fn texel_addr(t: &Texture, i: i64, j: i64, k: i64) -> usize {
    (t.base + k as u64 * t.slice_pitch + j as u64 * t.row_pitch) as usize
        + i as usize * t.channel.bytes() * t.channels as usize
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
    at: [Option<i64>; 3],
    missing: [V; 4],
    border: impl FnOnce() -> [V; 4],
    read: impl Fn(*const u8) -> V,
) -> [V; 4] {
    let [Some(i), Some(j), Some(k)] = at else {
        return border();
    };
    let (p, cb) = (texel_addr(t, i, j, k), t.channel.bytes());
    let mut v = missing;
    for (c, v) in v.iter_mut().enumerate().take(t.channels as usize) {
        *v = read((p + c * cb) as *const u8);
    }
    v
}

/// Fetches the texel at integer coordinates `(i, j, k)` (after addressing) as 4 channels; a
/// missing channel reads 0, a missing alpha 1.
fn texel(t: &Texture, at: [Option<i64>; 3]) -> [f32; 4] {
    channels(
        t,
        at,
        [0.0, 0.0, 0.0, 1.0],
        || t.border.map(|b| border_channel(t, b)),
        |p| read_channel(t, p),
    )
}

/// The filtering weight of `x` (in texels, minus a half) in 9-bit fixed point, in 1/256: the
/// fraction rounded to the nearest step, half a step up (measured, see the module's comment).
fn weight(frac: f32) -> u64 {
    ((frac * 256.0 + 0.5).floor() as u64).min(256)
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

/// `tex` with float results: samples `t` at `coords` (x, y, z; the unused ones ignored) for a
/// texture of `dims` dimensions. Integer textures read as integers return their values
/// converted to float here; [`fetch_bits`] gives their bits.
pub fn sample(t: &Texture, dims: usize, coords: [f32; 3]) -> [f32; 4] {
    if t.filter == Filter::Point || !t.returns_float() {
        return texel(t, point_at(t, dims, coords));
    }
    // Linear: the 2^dims neighbours of x - 0.5, weighted.
    let mut pos = [(0.0f32, AddressMode::Clamp); 3];
    for (d, p) in pos.iter_mut().enumerate().take(dims) {
        *p = texel_coord(t, coords[d], d);
    }
    let n = |d: usize| if d < dims { t.size[d] as i64 } else { 1 };
    let mut base = [0i64; 3];
    let mut w = [0u64; 3];
    for d in 0..dims {
        let xb = pos[d].0 - 0.5;
        let f = xb.floor();
        base[d] = f as i64;
        w[d] = weight(xb - f);
    }
    let unorm = t.read_normalized && matches!(t.channel, Channel::U8 | Channel::U16);
    let mut out = [0.0f32; 4];
    let mut fixed = [0u64; 4];
    for corner in 0..(1usize << dims) {
        let mut at = [Some(0i64); 3];
        let mut cw = 1u64;
        for d in 0..dims {
            let hi = corner >> d & 1;
            at[d] = address(base[d] + hi as i64, n(d), pos[d].1);
            cw *= if hi == 1 { w[d] } else { 256 - w[d] };
        }
        if unorm {
            let v = texel_fixed(t, at);
            for c in 0..4 {
                fixed[c] += cw * v[c];
            }
        } else {
            let v = texel(t, at);
            let cw = cw as f32 / (1u64 << (8 * dims)) as f32;
            for c in 0..4 {
                out[c] += cw * v[c];
            }
        }
    }
    if unorm {
        let half = 1u64 << (8 * dims - 1);
        for c in 0..4 {
            let k = (fixed[c] + half) >> (8 * dims);
            out[c] = k as f32 / 65535.0;
        }
    }
    out
}

/// [`texel`] of an unsigned normalised texture as 16-bit fractions (the border colour and the
/// missing channels too).
fn texel_fixed(t: &Texture, at: [Option<i64>; 3]) -> [u64; 4] {
    let border = || {
        t.border
            .map(|b| (border_channel(t, b).clamp(0.0, 1.0) * 65535.0).round() as u64)
    };
    channels(t, at, [0, 0, 0, 65535], border, |p| {
        unorm16(t, p).unwrap_or(0)
    })
}

/// The texel point sampling reads at `coords` (the first `dims` of them), after addressing.
fn point_at(t: &Texture, dims: usize, coords: [f32; 3]) -> [Option<i64>; 3] {
    let mut at = [Some(0i64); 3];
    for (d, a) in at.iter_mut().enumerate().take(dims) {
        let (x, mode) = texel_coord(t, coords[d], d);
        *a = address(x.floor() as i64, t.size[d] as i64, mode);
    }
    at
}

/// `tex` with integer results (an integer texture read as integers): point sampling.
pub fn fetch_bits(t: &Texture, dims: usize, coords: [f32; 3]) -> [u32; 4] {
    texel_bits(t, point_at(t, dims, coords))
}

/// The texel at `at` (after addressing) as integer bits; the border colour converted.
fn texel_bits(t: &Texture, at: [Option<i64>; 3]) -> [u32; 4] {
    let border = || t.border.map(|b| b as i32 as u32);
    channels(t, at, [0, 0, 0, 1], border, |p| read_bits(t, p))
}

/// `tex` with integer coordinates (`tex1Dfetch` and its kind): the texel at `(i, j, k)`, no
/// filtering, out-of-range indices handled by the address mode as unnormalised coordinates;
/// `float`: the float results (integers read normalised, or converted), else the bits.
pub fn fetch_texel(t: &Texture, dims: usize, ijk: [i32; 3], float: bool) -> [u32; 4] {
    let mut at = [Some(0i64); 3];
    for (d, a) in at.iter_mut().enumerate().take(dims) {
        let mode = match t.address[d] {
            AddressMode::Border => AddressMode::Border,
            _ => AddressMode::Clamp,
        };
        *a = address(ijk[d] as i64, t.size[d] as i64, mode);
    }
    if float || t.returns_float() {
        return texel(t, at).map(f32::to_bits);
    }
    texel_bits(t, at)
}

/// `tld4` (`tex2Dgather`): channel `comp` of the four texels bilinear filtering at (x, y)
/// would weigh, in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j).
pub fn gather(t: &Texture, comp: usize, coords: [f32; 2]) -> [f32; 4] {
    let (x, mx) = texel_coord(t, coords[0], 0);
    let (y, my) = texel_coord(t, coords[1], 1);
    let (i, j) = ((x - 0.5).floor() as i64, (y - 0.5).floor() as i64);
    let (w, h) = (t.size[0] as i64, t.size[1] as i64);
    let at = |di: i64, dj: i64| {
        texel(t, [address(i + di, w, mx), address(j + dj, h, my), Some(0)])[comp]
    };
    [at(0, 1), at(1, 1), at(1, 0), at(0, 0)]
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
        Texture {
            base,
            size,
            row_pitch,
            slice_pitch: row_pitch * size[1] as u64,
            channel,
            channels: 1,
            address: [AddressMode::Clamp; 3],
            filter: Filter::Point,
            normalized_coords: false,
            read_normalized: false,
            border: [0.25, 0.0, 0.0, 0.0],
        }
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
        let (mut checked, mut known, mut wrong) = (0, 0, Vec::new());
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
                    vec![sample(&t, 1, [x, 0.0, 0.0])[0]]
                }
                "tex2D" => {
                    t2d.address = [mode(words[2]); 3];
                    t2d.filter = filter(words[3]);
                    let p = point(words[5]);
                    vec![sample(&t2d, 2, [p[0], p[1], 0.0])[0]]
                }
                "tex2Dgather" => {
                    let p = point(words[4]);
                    gather(&t2d, 0, [p[0], p[1]]).to_vec()
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
            // Linear filtering over a footprint that mixes border and texels is not understood
            // yet: the H100's values are within 3e-4 of weighting the border colour as a texel,
            // but no weight and border value reproduce all six probed cases. Known, and close.
            let mixed_border = line.contains("border linear") && {
                let p = point(words[5]);
                let (x, y) = (p[0] * 4.0 - 0.5, p[1] * 4.0 - 0.5);
                let inside = |v: f32| (0.0..4.0).contains(&v.floor());
                let cols = [inside(x), inside(x + 1.0)];
                let rows = [inside(y), inside(y + 1.0)];
                cols.iter().any(|&c| c)
                    && rows.iter().any(|&r| r)
                    && !(cols == [true; 2] && rows == [true; 2])
            };
            if mixed_border && (got[0] - want[0]).abs() < 3e-4 {
                known += 1;
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
        assert_eq!(known, 6, "the known border differences changed");
    }

    /// Trilinear filtering of a 4x4x4 float texture (x + 10y + 100z, texel coordinates,
    /// clamp) against what an H100 returned (scripts/ground-truth/results/tex2-h100.txt, from
    /// tex_probe2.cu): 18 of the 24 fetches are bit-exact; four differ by one weight step along
    /// y (10/256) and two in the last bit, which the 1-D and 2-D rules here do not explain yet.
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
            let (got, want) = (sample(&t, 3, [p[0], p[1], p[2]])[0], hex(want));
            checked += 1;
            if got.to_bits() == want.to_bits() {
                exact += 1;
            } else {
                // Not understood yet: a weight one step (1/256) off along y, or the last bit.
                assert!(
                    (got - want).abs() <= 10.0 / 256.0 + 1e-4,
                    "{line}: here {got}"
                );
            }
        }
        assert_eq!(
            (checked, exact),
            (24, 18),
            "the known trilinear differences changed"
        );
    }
}
