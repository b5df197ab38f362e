//! Block-compressed texels (BC1 to BC7, the driver's `CU_AD_FORMAT_BC*`): each 4 x 4 block of
//! texels is 8 (BC1, BC4) or 16 bytes, blocks in rows; `decode` gives one texel of a block.
//!
//! The formats are those of the Khronos Data Format Specification (S3TC, RGTC and BPTC
//! chapters) and of Direct3D (BC1-BC5: colour endpoints in RGB 5:6:5 with 2-bit indices, 4-bit
//! explicit alpha, 3-bit interpolated alpha; BC6H and BC7: the modes, partitions and anchor
//! indices of ARB_texture_compression_bptc, whose tables are transcribed here). Where the
//! specifications leave the rounding of the interpolation open, the texture unit of an H200
//! decided it (scripts/ground-truth/results/tex7-h200.txt, printed by
//! scripts/ground-truth/tex_probe7.cu: every texel of 16 pseudo-random blocks of each format,
//! compared line by line by tests/textures.rs):
//! - BC1, BC2 and BC3 colours, BC3 alpha and BC7 give 8-bit values (k / 255); BC1's
//!   interpolated colours are NVIDIA's, not the exact thirds (`colour`); BC7 is exact to its
//!   specification.
//! - BC4 and BC5 give 16-bit fractions: unsigned endpoints widen to `v * 257` of 65535, signed
//!   ones to `m * 258 + m / 64` of 32767 (m the magnitude; -128 reads as -127); unsigned
//!   interpolated indices weigh them in 1/257ths (see [`bc4_weight`]), signed ones step from
//!   one widened endpoint by 1/258ths of the 8-bit difference (see [`bc4_snorm`]).
//! - BC6H gives half floats, exact to its specification.
//! - sRGB colours decode through the H200's table ([`srgb_to_linear`]); linear filtering is
//!   [`filter`]'s.
//!
//! - BC3's interpolated alpha has weights of its own (`bc3_alpha`).
//! - Filtered BC6H and sRGB colours add the decoded texels aligned to the largest one's exponent,
//!   truncated there ([`aligned_sum`]).

use crate::tex::{Level, Texture};

/// A block-compressed format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Bc1,
    Bc2,
    Bc3,
    Bc4,
    Bc4Signed,
    Bc5,
    Bc5Signed,
    Bc6h,
    Bc6hSigned,
    Bc7,
}

impl Format {
    /// Bytes per 4 x 4 block.
    pub fn block_bytes(self) -> usize {
        match self {
            Format::Bc1 | Format::Bc4 | Format::Bc4Signed => 8,
            _ => 16,
        }
    }

    /// Whether texels decode to unsigned normalised values (filtered as 16-bit fractions).
    pub fn unorm(self) -> bool {
        !matches!(
            self,
            Format::Bc4Signed | Format::Bc5Signed | Format::Bc6h | Format::Bc6hSigned
        )
    }
}

/// One decoded texel, in the precision the texture unit keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Texel {
    /// RGBA, 8-bit unsigned normalised (BC1, BC2, BC3, BC7).
    Unorm8([u8; 4]),
    /// R and G as 16-bit unsigned fractions of 65535 (BC4: G 0); B 0, A 1.
    Unorm16([u16; 2]),
    /// R and G as signed fractions of 32767 (BC4: G 0); B 0, A 1.
    Snorm16([i16; 2]),
    /// RGB half floats (BC6H); A 1.
    Half([u16; 3]),
}

impl Texel {
    /// The four channels as floats.
    pub fn to_f32(self) -> [f32; 4] {
        match self {
            Texel::Unorm8(v) => v.map(|c| c as f32 / 255.0),
            Texel::Unorm16([r, g]) => [r as f32 / 65535.0, g as f32 / 65535.0, 0.0, 1.0],
            Texel::Snorm16([r, g]) => {
                let s = |c: i16| (c as f32 / 32767.0).max(-1.0);
                [s(r), s(g), 0.0, 1.0]
            }
            Texel::Half([r, g, b]) => [half_to_f32(r), half_to_f32(g), half_to_f32(b), 1.0],
        }
    }

    /// The four channels as 16-bit fractions (unsigned normalised formats only).
    pub fn to_unorm16(self) -> Option<[u64; 4]> {
        match self {
            Texel::Unorm8(v) => Some(v.map(|c| c as u64 * 257)),
            Texel::Unorm16([r, g]) => Some([r as u64, g as u64, 0, 65535]),
            _ => None,
        }
    }
}

/// An IEEE half float as f32 (exact).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as f32;
    let mag = match e {
        0 => m * (2.0f32).powi(-24),
        31 => {
            if m == 0.0 {
                f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => (1.0 + m / 1024.0) * (2.0f32).powi(e - 15),
    };
    sign * mag
}

/// The decoded texel at `at` (after addressing) of a block-compressed texture's level; `None`
/// for other textures and for texels outside (the border colour).
pub fn texel(t: &Texture, lv: &Level, at: [Option<i64>; 3]) -> Option<Texel> {
    let f = t.bc?;
    let [Some(i), Some(j), Some(k)] = at else {
        return None;
    };
    let n = f.block_bytes() as u64;
    let addr =
        lv.base + k as u64 * lv.slice_pitch + (j as u64 / 4) * lv.row_pitch + (i as u64 / 4) * n;
    // SAFETY: the texel is inside the level, whose blocks lie in live device memory (checked
    // before fetches: `Texture::live`, with `extent`).
    let block = unsafe { std::slice::from_raw_parts(addr as *const u8, n as usize) };
    Some(decode(f, block, (i % 4) as usize, (j % 4) as usize))
}

/// [`texel`] as the four floats a point fetch returns, sRGB-decoded if the texture is.
pub fn texel_f32(t: &Texture, lv: &Level, at: [Option<i64>; 3]) -> Option<[f32; 4]> {
    let b = texel(t, lv, at)?;
    let mut v = b.to_f32();
    if let (true, Texel::Unorm8(c)) = (t.srgb, b) {
        for k in 0..3 {
            v[k] = srgb_to_linear(c[k]);
        }
    }
    Some(v)
}

/// The H200's sRGB table entries that are not the curve's nearest bfloat16: the code, the
/// entry's bits. Each is kept at the exponent one above the value's own, with 8 significant
/// bits from there down (so 7 or fewer of the value's): the curve rounded there, but for 10's
/// (one place above that). Filtering aligns them to that exponent too ([`srgb_filtered`]).
const SRGB_COARSE: [(u8, u32); 18] = [
    (4, 0x3aa0_0000),
    (8, 0x3b20_0000),
    (9, 0x3b34_0000),
    (10, 0x3b48_0000),
    (11, 0x3b5c_0000),
    (12, 0x3b70_0000),
    (15, 0x3b9c_0000),
    (20, 0x3be6_0000),
    (32, 0x3c6c_0000),
    (33, 0x3c7a_0000),
    (65, 0x3d58_0000),
    (66, 0x3d60_0000),
    (68, 0x3d6c_0000),
    (70, 0x3d7a_0000),
    (97, 0x3df4_0000),
    (184, 0x3ef6_0000),
    (186, 0x3efc_0000),
    (251, 0x3f76_0000),
];

/// An 8-bit sRGB-encoded value as linear intensity, as the H200 decodes block-compressed sRGB
/// texels (tex7-h200.txt, 217 of the 256 values seen): the sRGB curve rounded to 8 significant
/// bits (bfloat16, nearest), but for the 18 values of [`SRGB_COARSE`]. (Uncompressed 8-bit
/// sRGB textures read in half precision at a point, measured on an H100; see `crate::tex`.)
pub(crate) fn srgb_to_linear(c: u8) -> f32 {
    if let Some(&(_, bits)) = SRGB_COARSE.iter().find(|e| e.0 == c) {
        return f32::from_bits(bits);
    }
    let v = c as f32 / 255.0;
    let l = if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    };
    let b = l.to_bits();
    f32::from_bits((b + 0x7fff + (b >> 16 & 1)) & 0xffff_0000)
}

/// The exponent [`srgb_to_linear`]'s entry for `c` is kept at (8 significant bits from it
/// down): the value's own, one more for the entries of [`SRGB_COARSE`]; `None` for 0.
fn srgb_exponent(c: u8) -> Option<i32> {
    let bits = srgb_to_linear(c).to_bits();
    let coarse = SRGB_COARSE.iter().any(|e| e.0 == c) as i32;
    (bits != 0).then(|| (bits >> 23) as i32 - 127 + coarse)
}

/// One colour channel of linearly filtered sRGB texels: `terms` are the weights (in
/// 1/2^`unit` of the fetch) and the 8-bit codes. The texture unit decodes each code through
/// [`srgb_to_linear`]'s table and filters the values as [`aligned_sum`] says, keeping 8
/// significant bits from the exponent of the largest ([`srgb_exponent`]) down.
///
/// Fitted line by line, every colour channel bit for bit: tex7-h200.txt's filtered bc1srgb,
/// bc2srgb, bc3srgb and bc7srgb lines (128 lines, 384 channels, within 0.0026 when the
/// decoded values were added unaligned) and tex2-h100.txt's filtered 8-bit sRGB texels (36
/// lines, within 5e-4 before). What pointed there: two texels filtered at 1/4 and 3/4 and at
/// 3/4 and 1/4 give the larger one's table value back exactly and the smaller one truncated to
/// the larger's 8 bits; codes 66 and 68 (two coarse entries) as the largest need their
/// exponent one up. Keeping 7 or 9 bits, or rounding instead of truncating, fails most lines.
pub(crate) fn srgb_filtered(terms: &[(u32, u8)], unit: u32) -> f32 {
    let terms: Vec<(u32, f32, Option<i32>)> = terms
        .iter()
        .map(|&(w, c)| (w, srgb_to_linear(c), srgb_exponent(c)))
        .collect();
    aligned_sum(&terms, 8, unit)
}

/// One channel of linearly filtered BC6H texels (their halves as f32): [`aligned_sum`]
/// keeping 15 significant bits from the largest's exponent down (the half's 11 and 4 more). Fitted to tex7-h200.txt's filtered bc6h and
/// bc6hs lines (64 lines, 192 channels, every one bit for bit; 11 lines were off by up to 4
/// places of the half when the exact sum was rounded to nearest even: 5 by ties, which go away
/// from zero, the others by the truncated small texels beside large ones). 14 or 16 bits, or
/// rounding the texels (or flooring the negative ones) instead of truncating them toward zero,
/// leave lines off.
fn bc6h_filtered(terms: &[(u32, f32)], unit: u32) -> f32 {
    let terms: Vec<(u32, f32, Option<i32>)> = terms
        .iter()
        .map(|&(w, v)| {
            let e = (v != 0.0).then(|| (v.to_bits() >> 23 & 0xff) as i32 - 127);
            (w, v, e)
        })
        .collect();
    aligned_sum(&terms, 15, unit)
}

/// How the texture unit adds weighted texels of a block-compressed (and 8-bit sRGB) texture:
/// `terms` are the weights (in 1/2^`unit` of the fetch), the decoded values and their
/// exponents (`None` for 0). The values are aligned to the largest exponent among the texels
/// that weigh anything, `keep` significant bits from it down, each truncated toward zero
/// there; the weighted sum of those is exact, and rounded once to a half, ties away from zero.
fn aligned_sum(terms: &[(u32, f32, Option<i32>)], keep: i32, unit: u32) -> f32 {
    let Some(top) = terms.iter().filter(|t| t.0 != 0).filter_map(|t| t.2).max() else {
        return 0.0;
    };
    let lsb = top - (keep - 1);
    // Each value in units of 2^lsb, truncated: at most `keep` bits, exact in f64 here.
    let sum: i64 = terms
        .iter()
        .map(|&(w, v, _)| w as i64 * (v as f64 * (-lsb as f64).exp2()).trunc() as i64)
        .sum();
    let r = half_ties_away(sum.unsigned_abs(), lsb - unit as i32);
    if sum < 0 {
        -r
    } else {
        r
    }
}

/// `k * 2^e` rounded to the nearest half float, ties away from zero, as an f32.
fn half_ties_away(k: u64, e: i32) -> f32 {
    if k == 0 {
        return 0.0;
    }
    // The half's last place: 2^(exponent - 10), 2^-24 below 2^-14.
    let exponent = (63 - k.leading_zeros() as i32 + e).max(-14);
    let shift = exponent - 10 - e;
    if shift <= 0 {
        return (k as f64 * (e as f64).exp2()) as f32;
    }
    let r = (k + (1 << (shift - 1))) >> shift;
    (r as f64 * ((e + shift) as f64).exp2()) as f32
}

/// Linear filtering of a block-compressed texture: `taps` are the texels' weights in
/// 1/2^`unit` of the fetch, their levels and positions. `None` where the texture unit's generic
/// filtering applies: other textures, a footprint over the border, and the unsigned normalised
/// formats without sRGB (filtered as 16-bit fractions, as 8-bit textures are; measured).
/// Measured on an H200 (tex7-h200.txt): signed BC4 and BC5 filter their 1/32767 fractions in
/// fixed point too (the sum rounded to the nearest, half up); BC6H and sRGB colours align the
/// decoded values to the largest one's exponent before adding them and round the sum to a half
/// ([`aligned_sum`]), sRGB alpha filters as a 16-bit fraction.
pub fn filter(t: &Texture, taps: &[(u32, usize, [Option<i64>; 3])], unit: u32) -> Option<[f32; 4]> {
    let f = t.bc?;
    let texels = taps
        .iter()
        .map(|&(w, level, at)| Some((w as i64, texel(t, &t.levels[level], at)?)))
        .collect::<Option<Vec<_>>>()?;
    let round = |k: i64| (k + (1 << (unit - 1))) >> unit;
    match f {
        Format::Bc4Signed | Format::Bc5Signed => {
            let mut k = [0i64; 2];
            for (w, b) in &texels {
                if let Texel::Snorm16(v) = b {
                    k[0] += w * v[0] as i64;
                    k[1] += w * v[1] as i64;
                }
            }
            let s = |k: i64| (round(k) as f32 / 32767.0).max(-1.0);
            Some([s(k[0]), s(k[1]), 0.0, 1.0])
        }
        Format::Bc6h | Format::Bc6hSigned => {
            let mut out = [0.0, 0.0, 0.0, 1.0];
            for (c, o) in out.iter_mut().enumerate().take(3) {
                let terms: Vec<(u32, f32)> = texels
                    .iter()
                    .map(|(w, b)| (*w as u32, b.to_f32()[c]))
                    .collect();
                *o = bc6h_filtered(&terms, unit);
            }
            Some(out)
        }
        _ if t.srgb => {
            let mut out = [0.0f32; 4];
            for (c, o) in out.iter_mut().enumerate() {
                if c == 3 {
                    let k: i64 = texels
                        .iter()
                        .map(|(w, b)| w * b.to_unorm16().map_or(0, |v| v[3] as i64))
                        .sum();
                    *o = round(k) as f32 / 65535.0;
                    continue;
                }
                let terms: Vec<(u32, u8)> = texels
                    .iter()
                    .map(|&(w, b)| match b {
                        Texel::Unorm8(v) => (w as u32, v[c]),
                        _ => (0, 0),
                    })
                    .collect();
                *o = srgb_filtered(&terms, unit);
            }
            Some(out)
        }
        _ => None,
    }
}

/// Bytes of device memory a level of `f` spans from its base, with `slices` slices or layers.
pub fn extent(f: Format, lv: &Level, slices: u32) -> u64 {
    let (bw, bh) = (lv.size[0].div_ceil(4) as u64, lv.size[1].div_ceil(4) as u64);
    (slices.max(1) as u64 - 1) * lv.slice_pitch
        + (bh.max(1) - 1) * lv.row_pitch
        + bw * f.block_bytes() as u64
}

/// Texel (`x`, `y`) (each 0..4) of `block` (at least `f.block_bytes()` bytes).
pub fn decode(f: Format, block: &[u8], x: usize, y: usize) -> Texel {
    let i = y * 4 + x;
    match f {
        Format::Bc1 => Texel::Unorm8(colour(&block[0..8], i, true)),
        Format::Bc2 => {
            let mut c = colour(&block[8..16], i, false);
            let a = (u64::from_le_bytes(block[0..8].try_into().unwrap()) >> (4 * i)) & 0xf;
            c[3] = a as u8 * 17;
            Texel::Unorm8(c)
        }
        Format::Bc3 => {
            let mut c = colour(&block[8..16], i, false);
            c[3] = bc3_alpha(&block[0..8], i);
            Texel::Unorm8(c)
        }
        Format::Bc4 => Texel::Unorm16([bc4_unorm(&block[0..8], i), 0]),
        Format::Bc5 => Texel::Unorm16([bc4_unorm(&block[0..8], i), bc4_unorm(&block[8..16], i)]),
        Format::Bc4Signed => Texel::Snorm16([bc4_snorm(&block[0..8], i), 0]),
        Format::Bc5Signed => {
            Texel::Snorm16([bc4_snorm(&block[0..8], i), bc4_snorm(&block[8..16], i)])
        }
        Format::Bc6h => Texel::Half(bc6h(block, i, false)),
        Format::Bc6hSigned => Texel::Half(bc6h(block, i, true)),
        Format::Bc7 => Texel::Unorm8(bc7(block, i)),
    }
}

// ---- BC1-BC3 colour ----

/// Texel `i` of a BC1 colour block (alpha 255). `bc1`: a block whose first endpoint is not
/// above the second has three colours and transparent black (BC2 and BC3 colour blocks always
/// have four).
///
/// The endpoints widen to 8 bits by repeating their top bits; the interpolated colours are
/// not the specifications' exact thirds and halves but what NVIDIA's texture units compute
/// (measured on an H200, every texel of tex7-h200.txt; the same formulas as the "NVIDIA" BC1
/// decoder of Rich Geldreich's rgbcx): red and blue from the 5-bit values, `(2 a + b) * 22 / 8`
/// and `(a + b) * 33 / 8`; green from the widened 8-bit values, `a + (b - a) * 80 / 256` with a
/// small correction (see `third_g`).
fn colour(b: &[u8], i: usize, bc1: bool) -> [u8; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]);
    let c1 = u16::from_le_bytes([b[2], b[3]]);
    let split = |c: u16| [(c >> 11) as i32, (c >> 5 & 0x3f) as i32, (c & 0x1f) as i32];
    let (q0, q1) = (split(c0), split(c1));
    let widen = |q: [i32; 3]| {
        [
            q[0] << 3 | q[0] >> 2,
            q[1] << 2 | q[1] >> 4,
            q[2] << 3 | q[2] >> 2,
        ]
    };
    let (e0, e1) = (widen(q0), widen(q1));
    let idx = (u32::from_le_bytes([b[4], b[5], b[6], b[7]]) >> (2 * i)) & 3;
    let four = !bc1 || c0 > c1;
    let rgb = |c: [i32; 3]| [c[0] as u8, c[1] as u8, c[2] as u8, 255];
    // A third of the way from endpoint `a` to `b`.
    // A third of the way from one endpoint (`qa`, 5:6:5; `ea`, widened) to the other.
    let third = |qa: [i32; 3], qb: [i32; 3], ea: [i32; 3], eb: [i32; 3]| {
        rgb([
            (2 * qa[0] + qb[0]) * 22 / 8,
            third_g(ea[1], eb[1]),
            (2 * qa[2] + qb[2]) * 22 / 8,
        ])
    };
    match (idx, four) {
        (0, _) => rgb(e0),
        (1, _) => rgb(e1),
        (2, true) => third(q0, q1, e0, e1),
        (3, true) => third(q1, q0, e1, e0),
        (2, false) => {
            let g = e1[1] - e0[1];
            rgb([
                (q0[0] + q1[0]) * 33 / 8,
                (256 * e0[1] + g / 4 + 128 + g * 128) >> 8,
                (q0[2] + q1[2]) * 33 / 8,
            ])
        }
        _ => [0; 4],
    }
}

/// Green a third of the way from `a` to `b` (8-bit values), as the hardware rounds it.
fn third_g(a: i32, b: i32) -> i32 {
    let d = b - a;
    (256 * a + d / 4 + 128 + d * 80) >> 8
}

// ---- BC3 alpha, BC4, BC5 ----

/// The weight of the second endpoint for index `idx` of an interpolated unsigned (BC4, BC5)
/// block, in 1/257ths, or `None` for the two constant indices of the six-value mode. Measured
/// (see the module's comment): the sevenths weigh 36, 72 and 144 (and their complements), the
/// fifths 48 and 96.
fn bc4_weight(idx: u32, eight: bool) -> Option<i32> {
    let s = 257;
    Some(match (idx, eight) {
        (0, _) => 0,
        (1, _) => s,
        (2, true) => 36,
        (3, true) => 72,
        (4, true) => s - 144,
        (5, true) => 144,
        (6, true) => s - 72,
        (7, true) => s - 36,
        (2, false) => 48,
        (3, false) => 96,
        (4, false) => s - 96,
        (5, false) => s - 48,
        _ => return None,
    })
}

/// The 3-bit index of texel `i` of an interpolated block.
fn bc4_index(b: &[u8], i: usize) -> u32 {
    let bits = u64::from_le_bytes([b[2], b[3], b[4], b[5], b[6], b[7], 0, 0]);
    (bits >> (3 * i) & 7) as u32
}

/// Texel `i` of an unsigned BC4 block as a 16-bit fraction.
fn bc4_unorm(b: &[u8], i: usize) -> u16 {
    let (r0, r1) = (b[0] as i32, b[1] as i32);
    let idx = bc4_index(b, i);
    match bc4_weight(idx, r0 > r1) {
        Some(w) => (r0 * 257 + (r1 - r0) * w) as u16,
        None if idx == 6 => 0,
        None => 65535,
    }
}

/// A signed 8-bit endpoint (-127 to 127) widened to a fraction of 32767: the magnitude's 7
/// bits repeated below it (`m * 258 + m / 64`), the sign kept.
fn snorm_widen(v: i32) -> i32 {
    let m = v.abs();
    v.signum() * (m * 258 + (m >> 6))
}

/// Texel `i` of a signed BC4 block as a fraction of 32767 (-128 reads as -127). An
/// interpolated texel starts from one endpoint, widened (`snorm_widen`, its low bits included),
/// and adds the 8-bit difference to the other endpoint times 1/7, 2/7 or 4/7 (36, 72, 144 of
/// 258), or 1/5 or 2/5 (48, 96): indices 2, 3 and 5 from the first endpoint, 7, 6 and 4 from
/// the second (4 is 3/7 of the way, 4/7 from the second); of the fifths 2 and 3 from the
/// first, 5 and 4 from the second. Exact, nothing rounded. Fitted to the H200 (every texel of
/// tex7-h200.txt's bc4s and bc5s blocks, 768 channels, and with them their 96 filtered
/// channels): the widened endpoints mixed in 1/258ths and rounded were 1/32767 off where the
/// endpoints' low bits (`m / 64`) differ, 73 lines.
fn bc4_snorm(b: &[u8], i: usize) -> i16 {
    let (r0, r1) = ((b[0] as i8).max(-127) as i32, (b[1] as i8).max(-127) as i32);
    // (whether the step starts from the first endpoint, the step in 1/258ths)
    let (from_first, w) = match (bc4_index(b, i), r0 > r1) {
        (0, _) => (true, 0),
        (1, _) => (false, 0),
        (2, true) => (true, 36),
        (3, true) => (true, 72),
        (4, true) => (false, 144),
        (5, true) => (true, 144),
        (6, true) => (false, 72),
        (7, true) => (false, 36),
        (2, false) => (true, 48),
        (3, false) => (true, 96),
        (4, false) => (false, 96),
        (5, false) => (false, 48),
        (6, false) => return -32767,
        _ => return 32767,
    };
    let (from, to) = if from_first { (r0, r1) } else { (r1, r0) };
    (snorm_widen(from) + (to - from) * w) as i16
}

/// Texel `i` of a BC3 alpha block, 8 bits: the endpoints mixed in 1/2048ths, rounded (half
/// up). Fitted to the H200 (every texel of tex7-h200.txt's bc3 and bc3srgb blocks): the
/// sevenths weigh 290, 578 and 1156 of 2048 (the others their complements), the fifths 385 and
/// 770; neither BC4's weights nor the exact sevenths and fifths reproduce it.
fn bc3_alpha(b: &[u8], i: usize) -> u8 {
    let (a0, a1) = (b[0] as u32, b[1] as u32);
    let idx = bc4_index(b, i);
    let w = match (idx, a0 > a1) {
        (6, false) => return 0,
        (7, false) => return 255,
        (k, true) => [0, 2048, 290, 578, 892, 1156, 1470, 1758][k as usize],
        (k, false) => [0, 2048, 385, 770, 1278, 1663][k as usize],
    };
    ((a0 * (2048 - w) + a1 * w + 1024) >> 11) as u8
}

// ---- BC6H and BC7 (BPTC) ----

/// The bits of a 16-byte block from bit `at` up, `n` of them (LSB first).
fn bits(block: &[u8], at: usize, n: usize) -> u32 {
    let v = u128::from_le_bytes(block[0..16].try_into().unwrap());
    if n == 0 {
        return 0;
    }
    ((v >> at) & ((1u128 << n) - 1)) as u32
}

/// The interpolation weights of 2-, 3- and 4-bit indices, in 1/64ths.
fn weights(index_bits: usize) -> &'static [u32] {
    match index_bits {
        2 => &[0, 21, 43, 64],
        3 => &[0, 9, 18, 27, 37, 46, 55, 64],
        _ => &[0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64],
    }
}

/// The subset of each texel in the partitions of two subsets (Table.P2), one row per
/// partition, texels in x-major order.
const P2: [&str; 64] = [
    "0011001100110011",
    "0001000100010001",
    "0111011101110111",
    "0001001100110111",
    "0000000100010011",
    "0011011101111111",
    "0001001101111111",
    "0000000100110111",
    "0000000000010011",
    "0011011111111111",
    "0000000101111111",
    "0000000000010111",
    "0001011111111111",
    "0000000011111111",
    "0000111111111111",
    "0000000000001111",
    "0000100011101111",
    "0111000100000000",
    "0000000010001110",
    "0111001100010000",
    "0011000100000000",
    "0000100011001110",
    "0000000010001100",
    "0111001100110001",
    "0011000100010000",
    "0000100010001100",
    "0110011001100110",
    "0011011001101100",
    "0001011111101000",
    "0000111111110000",
    "0111000110001110",
    "0011100110011100",
    "0101010101010101",
    "0000111100001111",
    "0101101001011010",
    "0011001111001100",
    "0011110000111100",
    "0101010110101010",
    "0110100101101001",
    "0101101010100101",
    "0111001111001110",
    "0001001111001000",
    "0011001001001100",
    "0011101111011100",
    "0110100110010110",
    "0011110011000011",
    "0110011010011001",
    "0000011001100000",
    "0100111001000000",
    "0010011100100000",
    "0000001001110010",
    "0000010011100100",
    "0110110010010011",
    "0011011011001001",
    "0110001110011100",
    "0011100111000110",
    "0110110011001001",
    "0110001100111001",
    "0111111010000001",
    "0001100011100111",
    "0000111100110011",
    "0011001111110000",
    "0010001011101110",
    "0100010001110111",
];

/// The same for three subsets (Table.P3).
const P3: [&str; 64] = [
    "0011001102212222",
    "0001001122112221",
    "0000200122112211",
    "0222002200110111",
    "0000000011221122",
    "0011001100220022",
    "0022002211111111",
    "0011001122112211",
    "0000000011112222",
    "0000111111112222",
    "0000111122222222",
    "0012001200120012",
    "0112011201120112",
    "0122012201220122",
    "0011011211221222",
    "0011200122002220",
    "0001001101121122",
    "0111001120012200",
    "0000112211221122",
    "0022002200221111",
    "0111011102220222",
    "0001000122212221",
    "0000001101220122",
    "0000110022102210",
    "0122012200110000",
    "0012001211222222",
    "0110122112210110",
    "0000011012211221",
    "0022110211020022",
    "0110011020022222",
    "0011012201220011",
    "0000200022112221",
    "0000000211221222",
    "0222002200120011",
    "0011001200220222",
    "0120012001200120",
    "0000111122220000",
    "0120120120120120",
    "0120201212010120",
    "0011220011220011",
    "0011112222000011",
    "0101010122222222",
    "0000000021212121",
    "0022112200221122",
    "0022001100220011",
    "0220122102201221",
    "0101222222220101",
    "0000212121212121",
    "0101010101012222",
    "0222011102220111",
    "0002111200021112",
    "0000211221122112",
    "0222011101110222",
    "0002111211120002",
    "0110011001102222",
    "0000000021122112",
    "0110011022222222",
    "0022001100110022",
    "0022112211220022",
    "0000000000002112",
    "0002000100020001",
    "0222122202221222",
    "0101222222222222",
    "0111201122012220",
];

/// The anchor texel of the second subset of two (Table.A2).
const A2: [u8; 64] = [
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2, 8, 2, 2, 8, 8, 15, 2, 8,
    2, 2, 8, 8, 2, 2, 15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6, 6, 2, 6, 8, 15, 15, 2,
    2, 15, 15, 15, 15, 15, 2, 2, 15,
];

/// The anchor texels of the second and third subsets of three (Tables A3a and A3b).
const A3A: [u8; 64] = [
    3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3, 3, 3, 8, 15, 3, 3, 6, 10, 5, 8, 8, 6, 8, 5,
    15, 15, 8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5, 15, 15, 15, 15, 3, 15, 5, 5, 5, 8, 5, 10, 5,
    10, 8, 13, 15, 12, 3, 3,
];
const A3B: [u8; 64] = [
    15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8, 15, 8, 15, 3, 15, 8, 15, 8, 3, 15, 6,
    10, 15, 15, 10, 8, 15, 3, 15, 10, 10, 8, 9, 10, 6, 15, 8, 15, 3, 6, 6, 8, 15, 3, 15, 15, 15,
    15, 15, 15, 15, 15, 15, 15, 3, 15, 15, 8,
];

/// The subset of texel `i` in partition `p` of `n` subsets.
fn subset(n: usize, p: usize, i: usize) -> usize {
    match n {
        1 => 0,
        2 => (P2[p].as_bytes()[i] - b'0') as usize,
        _ => (P3[p].as_bytes()[i] - b'0') as usize,
    }
}

/// Whether texel `i` is an anchor (its index has one bit less) in partition `p` of `n`
/// subsets.
fn anchor(n: usize, p: usize, i: usize) -> bool {
    i == 0
        || match n {
            2 => i == A2[p] as usize,
            3 => i == A3A[p] as usize || i == A3B[p] as usize,
            _ => false,
        }
}

/// Reads the indices of the 16 texels from bit `at`, `ib` bits each (anchors one less);
/// returns them and the bit after.
fn indices(block: &[u8], mut at: usize, ib: usize, n: usize, p: usize) -> ([u32; 16], usize) {
    let mut out = [0u32; 16];
    for (i, o) in out.iter_mut().enumerate() {
        let nb = ib - anchor(n, p, i) as usize;
        *o = bits(block, at, nb);
        at += nb;
    }
    (out, at)
}

/// BC7 modes (Table.M): subsets, partition bits, rotation bits, index selection bits, colour
/// bits, alpha bits, endpoint P-bits, shared P-bits, index bits, secondary index bits.
const BC7_MODES: [[usize; 10]; 8] = [
    [3, 4, 0, 0, 4, 0, 1, 0, 3, 0],
    [2, 6, 0, 0, 6, 0, 0, 1, 3, 0],
    [3, 6, 0, 0, 5, 0, 0, 0, 2, 0],
    [2, 6, 0, 0, 7, 0, 1, 0, 2, 0],
    [1, 0, 2, 1, 5, 6, 0, 0, 2, 3],
    [1, 0, 2, 0, 7, 8, 0, 0, 2, 2],
    [1, 0, 0, 0, 7, 7, 1, 0, 4, 0],
    [2, 6, 0, 0, 5, 5, 1, 0, 2, 0],
];

/// Texel `i` of a BC7 block.
fn bc7(block: &[u8], i: usize) -> [u8; 4] {
    if block[0] == 0 {
        // Reserved mode.
        return [0; 4];
    }
    let mode = block[0].trailing_zeros() as usize;
    let [ns, pb, rb, isb, cb, ab, epb, spb, ib, ib2] = BC7_MODES[mode];
    let mut at = mode + 1;
    let mut take = |n: usize| {
        let v = bits(block, at, n);
        at += n;
        v
    };
    let part = take(pb) as usize;
    let rotation = take(rb);
    let selection = take(isb);
    // Endpoints: [subset * 2 + end][channel], the colour bits, then alpha.
    let mut e = [[0u32; 4]; 6];
    for c in 0..3 {
        for ep in e.iter_mut().take(2 * ns) {
            ep[c] = take(cb);
        }
    }
    for ep in e.iter_mut().take(2 * ns) {
        ep[3] = take(ab);
    }
    let mut p = [0u32; 6];
    if epb > 0 {
        for pv in p.iter_mut().take(2 * ns) {
            *pv = take(1);
        }
    }
    if spb > 0 {
        for s in 0..ns {
            let v = take(1);
            p[2 * s] = v;
            p[2 * s + 1] = v;
        }
    }
    let pbit = (epb | spb) as u32;
    // Each endpoint widened to 8 bits: the P-bit below the stored bits, the top bits repeated.
    for (k, ep) in e.iter_mut().enumerate().take(2 * ns) {
        for (c, v) in ep.iter_mut().enumerate() {
            let n = if c < 3 { cb } else { ab };
            if n == 0 {
                *v = 255;
                continue;
            }
            let (val, n) = if pbit > 0 {
                (*v << 1 | p[k], n + 1)
            } else {
                (*v, n)
            };
            let w = val << (8 - n);
            *v = w | w >> n;
        }
    }
    let (primary, next) = indices(block, at, ib, ns, part);
    let secondary = if ib2 > 0 {
        indices(block, next, ib2, 1, 0).0
    } else {
        primary
    };
    let s = subset(ns, part, i);
    let (e0, e1) = (e[2 * s], e[2 * s + 1]);
    let (ci, cbits, ai, abits) = if ib2 == 0 {
        (primary[i], ib, primary[i], ib)
    } else if selection == 1 {
        (secondary[i], ib2, primary[i], ib)
    } else {
        (primary[i], ib, secondary[i], ib2)
    };
    let lerp = |a: u32, b: u32, idx: u32, nb: usize| {
        let w = weights(nb)[idx as usize];
        ((64 - w) * a + w * b + 32) >> 6
    };
    let mut out = [0u8; 4];
    for c in 0..4 {
        out[c] = if c < 3 {
            lerp(e0[c], e1[c], ci, cbits)
        } else {
            lerp(e0[c], e1[c], ai, abits)
        } as u8;
    }
    match rotation {
        1 => out.swap(0, 3),
        2 => out.swap(1, 3),
        3 => out.swap(2, 3),
        _ => {}
    }
    out
}

/// One BC6H mode: its 2- or 5-bit mode number, whether the endpoints after the first are
/// deltas, partition bits, endpoint bits, delta bits (r, g, b), and its fields (Table.F) as
/// (variable, a, b): the block's next |a - b| + 1 bits go to bits b, b +- 1, ... a of the
/// variable (0: the mode, 1 + 3 e + c: channel c of endpoint e).
struct Bc6Mode {
    number: u32,
    transformed: bool,
    partition_bits: usize,
    endpoint_bits: u32,
    delta: [u32; 3],
    fields: &'static str,
}

/// Table.MF and Table.F, the fields written as `name[a:b]` or `name[a]`, names m, r0-r3,
/// g0-g3, b0-b3.
const BC6_MODES: [Bc6Mode; 14] = [
    Bc6Mode {
        number: 0,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 10,
        delta: [5, 5, 5],
        fields: "m[1:0],g2[4],b2[4],b3[4],r0[9:0],g0[9:0],b0[9:0],r1[4:0],g3[4],g2[3:0],\
                 g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    },
    Bc6Mode {
        number: 1,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 7,
        delta: [6, 6, 6],
        fields: "m[1:0],g2[5],g3[4],g3[5],r0[6:0],b3[0],b3[1],b2[4],g0[6:0],b2[5],b3[2],\
                 g2[4],b0[6:0],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],g1[5:0],g3[3:0],b1[5:0],\
                 b2[3:0],r2[5:0],r3[5:0]",
    },
    Bc6Mode {
        number: 2,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 11,
        delta: [5, 4, 4],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[4:0],r0[10],g2[3:0],g1[3:0],g0[10],\
                 b3[0],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    },
    Bc6Mode {
        number: 6,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 11,
        delta: [4, 5, 4],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],g3[4],g2[3:0],g1[4:0],\
                 g0[10],g3[3:0],b1[3:0],b0[10],b3[1],b2[3:0],r2[3:0],b3[0],b3[2],r3[3:0],\
                 g2[4],b3[3]",
    },
    Bc6Mode {
        number: 10,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 11,
        delta: [4, 4, 5],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10],b2[4],g2[3:0],g1[3:0],\
                 g0[10],b3[0],g3[3:0],b1[4:0],b0[10],b2[3:0],r2[3:0],b3[1],b3[2],r3[3:0],\
                 b3[4],b3[3]",
    },
    Bc6Mode {
        number: 14,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 9,
        delta: [5, 5, 5],
        fields: "m[4:0],r0[8:0],b2[4],g0[8:0],g2[4],b0[8:0],b3[4],r1[4:0],g3[4],g2[3:0],\
                 g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],b3[2],r3[4:0],b3[3]",
    },
    Bc6Mode {
        number: 18,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 8,
        delta: [6, 5, 5],
        fields: "m[4:0],r0[7:0],g3[4],b2[4],g0[7:0],b3[2],g2[4],b0[7:0],b3[3],b3[4],\
                 r1[5:0],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[5:0],\
                 r3[5:0]",
    },
    Bc6Mode {
        number: 22,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 8,
        delta: [5, 6, 5],
        fields: "m[4:0],r0[7:0],b3[0],b2[4],g0[7:0],g2[5],g2[4],b0[7:0],g3[5],b3[4],\
                 r1[4:0],g3[4],g2[3:0],g1[5:0],g3[3:0],b1[4:0],b3[1],b2[3:0],r2[4:0],\
                 b3[2],r3[4:0],b3[3]",
    },
    Bc6Mode {
        number: 26,
        transformed: true,
        partition_bits: 5,
        endpoint_bits: 8,
        delta: [5, 5, 6],
        fields: "m[4:0],r0[7:0],b3[1],b2[4],g0[7:0],b2[5],g2[4],b0[7:0],b3[5],b3[4],\
                 r1[4:0],g3[4],g2[3:0],g1[4:0],b3[0],g3[3:0],b1[5:0],b2[3:0],r2[4:0],\
                 b3[2],r3[4:0],b3[3]",
    },
    Bc6Mode {
        number: 30,
        transformed: false,
        partition_bits: 5,
        endpoint_bits: 6,
        delta: [6, 6, 6],
        fields: "m[4:0],r0[5:0],g3[4],b3[0],b3[1],b2[4],g0[5:0],g2[5],b2[5],b3[2],\
                 g2[4],b0[5:0],g3[5],b3[3],b3[5],b3[4],r1[5:0],g2[3:0],g1[5:0],g3[3:0],\
                 b1[5:0],b2[3:0],r2[5:0],r3[5:0]",
    },
    Bc6Mode {
        number: 3,
        transformed: false,
        partition_bits: 0,
        endpoint_bits: 10,
        delta: [10, 10, 10],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[9:0],g1[9:0],b1[9:0]",
    },
    Bc6Mode {
        number: 7,
        transformed: true,
        partition_bits: 0,
        endpoint_bits: 11,
        delta: [9, 9, 9],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[8:0],r0[10],g1[8:0],g0[10],b1[8:0],\
                 b0[10]",
    },
    Bc6Mode {
        number: 11,
        transformed: true,
        partition_bits: 0,
        endpoint_bits: 12,
        delta: [8, 8, 8],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[7:0],r0[10:11],g1[7:0],g0[10:11],\
                 b1[7:0],b0[10:11]",
    },
    Bc6Mode {
        number: 15,
        transformed: true,
        partition_bits: 0,
        endpoint_bits: 16,
        delta: [4, 4, 4],
        fields: "m[4:0],r0[9:0],g0[9:0],b0[9:0],r1[3:0],r0[10:15],g1[3:0],g0[10:15],\
                 b1[3:0],b0[10:15]",
    },
];

/// `v`'s low `n` bits as a signed number.
fn sign_extend(v: i32, n: u32) -> i32 {
    let s = 32 - n;
    (v << s) >> s
}

/// Reads a BC6H block's endpoint fields: `e[endpoint][channel]` and the bit after them.
fn bc6_fields(block: &[u8], fields: &str) -> ([[i32; 3]; 4], usize) {
    let mut e = [[0i32; 3]; 4];
    let mut at = 0;
    for f in fields.split(',') {
        let f = f.trim();
        let (name, range) = f.split_once('[').unwrap();
        let range = range.trim_end_matches(']');
        let (a, b) = match range.split_once(':') {
            Some((a, b)) => (a.parse::<i32>().unwrap(), b.parse::<i32>().unwrap()),
            None => {
                let a = range.parse::<i32>().unwrap();
                (a, a)
            }
        };
        let n = (a - b).unsigned_abs() as usize + 1;
        let step = if a >= b { 1 } else { -1 };
        for j in 0..n {
            let bit = bits(block, at + j, 1) as i32;
            let pos = b + step * j as i32;
            let nb = name.as_bytes();
            if nb[0] == b'm' {
                continue;
            }
            let c = match nb[0] {
                b'r' => 0,
                b'g' => 1,
                _ => 2,
            };
            let k = (nb[1] - b'0') as usize;
            e[k][c] |= bit << pos;
        }
        at += n;
    }
    (e, at)
}

/// Texel `i` of a BC6H block: three half floats.
fn bc6h(block: &[u8], i: usize, signed: bool) -> [u16; 3] {
    let low = bits(block, 0, 2);
    let number = if low < 2 { low } else { bits(block, 0, 5) };
    let Some(mode) = BC6_MODES.iter().find(|m| m.number == number) else {
        // Reserved modes decode to black.
        return [0; 3];
    };
    let (mut e, at) = bc6_fields(block, mode.fields);
    let epb = mode.endpoint_bits;
    let ns = if mode.partition_bits > 0 { 2 } else { 1 };
    let part = bits(block, at, mode.partition_bits) as usize;
    let at = at + mode.partition_bits;
    let mask = ((1u32 << epb) - 1) as i32;
    for c in 0..3 {
        let e0 = e[0][c];
        if signed {
            e[0][c] = sign_extend(e0, epb);
        }
        for ep in e.iter_mut().take(2 * ns).skip(1) {
            if mode.transformed {
                ep[c] = (e0 + sign_extend(ep[c], mode.delta[c])) & mask;
            }
            if signed {
                ep[c] = sign_extend(ep[c], epb);
            }
        }
    }
    let unq = |x: i32| -> i32 {
        if signed {
            if epb >= 16 {
                return x;
            }
            let (neg, x) = (x < 0, x.abs());
            let u = if x == 0 {
                0
            } else if x >= (1 << (epb - 1)) - 1 {
                0x7fff
            } else {
                ((x << 15) + 0x4000) >> (epb - 1)
            };
            if neg {
                -u
            } else {
                u
            }
        } else if epb >= 15 {
            x
        } else if x == 0 {
            0
        } else if x == mask {
            0xffff
        } else {
            ((x << 15) + 0x4000) >> (epb - 1)
        }
    };
    let ib = if ns == 1 { 4 } else { 3 };
    let (idx, _) = indices(block, at, ib, ns, part);
    let s = subset(ns, part, i);
    let w = weights(ib)[idx[i] as usize] as i32;
    let mut out = [0u16; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let (a, b) = (unq(e[2 * s][c]), unq(e[2 * s + 1][c]));
        let v = ((64 - w) * a + w * b + 32) >> 6;
        *o = if !signed {
            ((v * 31) >> 6) as u16
        } else if v < 0 {
            ((((-v) * 31) >> 5) | 0x8000) as u16
        } else {
            ((v * 31) >> 5) as u16
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of scripts/ground-truth/tex_probe7.cu and texels tex7-h200.txt gives for them.
    #[test]
    fn texels_decode_as_an_h200_decodes_them() {
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len() / 2)
                .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
                .collect()
        };
        let bits = |t: Texel| t.to_f32().map(f32::to_bits);
        // BC1, three colours and transparent black: texel (0, 0) black, (1, 0) an endpoint.
        let b = hex("2caab3bc3764f610");
        assert_eq!(bits(decode(Format::Bc1, &b, 0, 0)), [0; 4]);
        assert_eq!(
            bits(decode(Format::Bc1, &b, 1, 0)),
            [0x3f3dbdbe, 0x3f169697, 0x3f1c9c9d, 0x3f800000]
        );
        // BC1, four colours: NVIDIA's green third (68, not 66).
        let b = hex("7b68f25a4ca09e37");
        assert_eq!(
            decode(Format::Bc1, &b, 1, 0),
            Texel::Unorm8([96, 68, 173, 255])
        );
        // BC4: an interpolated texel as a 16-bit fraction (45705 / 65535).
        let b = hex("b7b138d8ddb80af5");
        assert_eq!(decode(Format::Bc4, &b, 1, 0), Texel::Unorm16([45705, 0]));
        // Signed BC4, endpoints -1 and -66 (the second's low bit set): index 4 (3/7 of the
        // way) steps 4/7 from -66, index 5 4/7 from -1; the H200 read -7669 and -9618 for them
        // (the exact mix of the widened endpoints rounds to -7668 and -9619).
        let b = hex("ffbe2c0000000000");
        assert_eq!(
            decode(Format::Bc4Signed, &b, 0, 0),
            Texel::Snorm16([-7669, 0])
        );
        assert_eq!(
            decode(Format::Bc4Signed, &b, 1, 0),
            Texel::Snorm16([-9618, 0])
        );
        // BC6H and BC7: texel (0, 0) of the first blocks.
        let b = hex("366a0de36d86c0b803597825f9c405a0");
        assert_eq!(
            bits(decode(Format::Bc6h, &b, 0, 0)),
            [0x3d27e000, 0x39ac2000, 0x465dc000, 0x3f800000]
        );
        let b = hex("847e96ddcb20ec8c0fd868632190aff1");
        assert_eq!(
            bits(decode(Format::Bc7, &b, 0, 0)),
            [0x3f800000, 0x3d008081, 0, 0x3f800000]
        );
    }

    /// Filtered lines of tex2-h100.txt and tex7-h200.txt (`aligned_sum`).
    #[test]
    fn filtering_aligns_texels_to_the_largest() {
        // tex1D of sRGB uchar4 texels (0, 64, 128, 255) and (255, 192, 16, 0), 4/256 of the
        // way: 64 reads 0x1.ap-5 beside 192 (truncated to 192's 8 bits), not 0x1.a4p-5.
        assert_eq!(srgb_filtered(&[(252, 64), (4, 192)], 8), 477.0 / 8192.0); // 0x1.ddp-5
        assert_eq!(srgb_filtered(&[(252, 128), (4, 16)], 8), 6964.0 / 32768.0); // 0x1.b34p-3
        assert_eq!(srgb_filtered(&[(252, 0), (4, 255)], 8), 4.0 / 256.0);
        // BC6H: a tie goes away from zero; a small texel beside large ones loses its low bits.
        let bc6h = [(96, 1580.0), (32, 1533.0), (96, 1533.0), (32, 1436.0)];
        assert_eq!(bc6h_filtered(&bc6h, 8), 1539.0);
        let bc6hs = [
            (96, 1580.0 / 65536.0),
            (32, 1863.0 / 256.0),
            (96, -2.40625),
            (32, 0.0),
        ];
        assert_eq!(bc6h_filtered(&bc6hs, 8), 267.0 / 16384.0);
    }

    #[test]
    fn srgb_follows_the_h200s_table() {
        assert_eq!(srgb_to_linear(0), 0.0);
        assert_eq!(srgb_to_linear(255), 1.0);
        assert_eq!(srgb_to_linear(66).to_bits(), 0x3d60_0000);
    }
}
