//! The pixels an im2col tensor copy reads (ISA 9.7.9.27 "im2col mode"; cuTensorMapEncodeIm2col):
//! a column of `pixels` pixels walked through the tensor's bounding box from a starting pixel,
//! each read at the pixel plus the instruction's offsets, `channels` channels from a starting
//! channel. Checked against an H200 (scripts/ground-truth/results/tma-h200.txt, part 4):
//! - the bounding box of spatial dimension `d` is `lower[d] ..= dim[d] - 1 + upper[d]`, walked
//!   from its lower corner in steps of the dimension's traversal stride, W fastest, then H, D,
//!   then the next image (N), from the instruction's coordinates;
//! - each pixel is read at its position plus the offsets; outside the tensor (there, or past
//!   the last image, or a channel past the last) the element is filled as out of bounds;
//! - the box in shared memory is pixel by pixel, `channels` elements each.
//!
//! The wide modes (ISA 5.5.5, `.im2col::w` and `.im2col::w::128`, maps of
//! `cuTensorMapEncodeIm2colWide`) walk W alone ([`Walk::wide_elements`]), as this engine reads
//! the ISA's text (its figures are not in the text it was written from, and no GPU of sm_100
//! has answered for them yet):
//! - the bounding box is 1 pixel in H and D, at the instruction's H and D coordinates (those
//!   pixels are out of bounds where the coordinate is outside the tensor), and along W runs
//!   from `lower[0] + wOffset` to `dim[W] - 1 + upper[0] + wOffset` ("Bounding Box Lower Corner
//!   W += wOffset, Bounding Box Upper Corner W += wOffset");
//! - the first pixel is at the instruction's W coordinate plus `wOffset` ("W += wOffset"),
//!   which may lie left of the box but not right of it; the column walks from it in steps of
//!   W's traversal stride, and past the box's right edge carries into the next image (N) at
//!   the box's left edge, H and D kept ("keeping the H and D dimension constant"), as the
//!   im2col walk carries past its last spatial dimension;
//! - `.im2col::w` reads the map's `pixels_per_column` pixels and then `wHalo` halo pixels
//!   ("how many filter halo elements must be loaded at the end"), "loaded in the shared memory
//!   next to the main row pixels": the next `wHalo` steps along W after the column's last
//!   pixel, in its image, without carrying (outside the tensor they are out of bounds);
//! - `.im2col::w::128` reads 128 pixels (`pixels_per_column` ignored) in four groups of 32,
//!   each followed in shared memory by its own `wHalo` halo pixels ("the halo elements are
//!   loaded after every 32 elements"): `4 * (32 + wHalo)` pixels in all;
//! - `wHalo` below 512 (`.im2col::w`) or 32 (`.im2col::w::128`) and `wOffset` below 32, the
//!   ISA's valid ranges; another value stops the copy, as does a first pixel right of the box.

/// The walk of one im2col copy. Dimensions are innermost first: 0 is C, 1 .. rank-1 are the
/// spatial ones (W, H, D), rank-1 is N.
pub struct Walk {
    /// The tensor's extent per dimension.
    pub dims: [u64; 5],
    pub rank: usize,
    /// Bounding-box corners of the spatial dimensions (W, H, D).
    pub lower: [i32; 3],
    pub upper: [i32; 3],
    /// Traversal strides per dimension (the channel one is not used).
    pub strides: [u32; 5],
    pub channels: u32,
    pub pixels: u32,
}

/// One element of the column: its coordinates in the tensor (innermost first), or None when it
/// is outside the tensor.
pub type Element = Option<[i64; 5]>;

impl Walk {
    /// Spatial dimensions: rank - 2.
    fn spatial(&self) -> usize {
        self.rank - 2
    }

    /// Whether spatial position `p` lies on the bounding box's grid of dimension `s`.
    fn in_box(&self, s: usize, p: i64) -> bool {
        let (lo, hi) = self.range(s);
        p >= lo && p <= hi && (p - lo) % self.strides[s + 1].max(1) as i64 == 0
    }

    fn range(&self, s: usize) -> (i64, i64) {
        (
            self.lower[s] as i64,
            self.dims[s + 1] as i64 - 1 + self.upper[s] as i64,
        )
    }

    /// The elements of the column from `start` (the instruction's coordinates, innermost
    /// first) with `offsets` (one per spatial dimension), pixel by pixel; Err names a start
    /// outside the bounding box (an H200 stops such a copy with an illegal instruction).
    pub fn elements(&self, start: &[i64], offsets: &[i64]) -> Result<Vec<Element>, String> {
        let sp = self.spatial();
        let mut pos: Vec<i64> = start[1..=sp].to_vec();
        for (s, &p) in pos.iter().enumerate() {
            if !self.in_box(s, p) {
                let (lo, hi) = self.range(s);
                return Err(format!(
                    "starts at {p} in spatial dimension {s}, outside the bounding box {lo}..={hi} (step {})",
                    self.strides[s + 1].max(1)
                ));
            }
        }
        let mut n = start[self.rank - 1];
        let mut out = Vec::with_capacity((self.pixels * self.channels) as usize);
        for _ in 0..self.pixels {
            let inside_image = n >= 0 && n < self.dims[self.rank - 1] as i64;
            for c in 0..self.channels as i64 {
                let ch = start[0] + c;
                let mut at = [0i64; 5];
                at[0] = ch;
                let mut inside = inside_image && ch >= 0 && ch < self.dims[0] as i64;
                for s in 0..sp {
                    let p = pos[s] + offsets.get(s).copied().unwrap_or(0);
                    at[s + 1] = p;
                    inside &= p >= 0 && p < self.dims[s + 1] as i64;
                }
                at[self.rank - 1] = n;
                out.push(inside.then_some(at));
            }
            // The next pixel: W first, carrying into H, D and the image.
            let mut s = 0;
            loop {
                if s == sp {
                    n += 1;
                    break;
                }
                let (lo, hi) = self.range(s);
                let step = self.strides[s + 1].max(1) as i64;
                if pos[s] + step <= hi {
                    pos[s] += step;
                    break;
                }
                pos[s] = lo;
                s += 1;
            }
        }
        Ok(out)
    }
}

impl Walk {
    /// The channels of one pixel: spatial position `pos` (W, H, D) of image `n`, from channel
    /// `ch0`.
    fn push_pixel(&self, out: &mut Vec<Element>, ch0: i64, pos: &[i64], n: i64) {
        let sp = self.spatial();
        let inside_image = n >= 0
            && n < self.dims[self.rank - 1] as i64
            && (0..sp).all(|s| pos[s] >= 0 && pos[s] < self.dims[s + 1] as i64);
        for c in 0..self.channels as i64 {
            let ch = ch0 + c;
            let mut at = [0i64; 5];
            at[0] = ch;
            at[1..=sp].copy_from_slice(&pos[..sp]);
            at[self.rank - 1] = n;
            let inside = inside_image && ch >= 0 && ch < self.dims[0] as i64;
            out.push(inside.then_some(at));
        }
    }

    /// The elements of a `.im2col::w` column (`w128` false: `pixels` pixels, then `w_halo`
    /// halo pixels) or a `.im2col::w::128` one (four groups of 32 pixels, each followed by
    /// `w_halo` halo pixels), from `start` (the instruction's coordinates, innermost first),
    /// pixel by pixel (see the module's doc). Err names an operand outside the ISA's range or a
    /// first pixel right of the bounding box.
    pub fn wide_elements(
        &self,
        start: &[i64],
        w_halo: i64,
        w_offset: i64,
        w128: bool,
    ) -> Result<Vec<Element>, String> {
        let halo_max = if w128 { 32 } else { 512 };
        if !(0..halo_max).contains(&w_halo) {
            return Err(format!("has wHalo {w_halo}, outside 0..{halo_max}"));
        }
        if !(0..32).contains(&w_offset) {
            return Err(format!("has wOffset {w_offset}, outside 0..32"));
        }
        let lo = self.lower[0] as i64 + w_offset;
        let hi = self.dims[1] as i64 - 1 + self.upper[0] as i64 + w_offset;
        let step = self.strides[1].max(1) as i64;
        let sp = self.spatial();
        let mut pos: Vec<i64> = start[1..=sp].to_vec();
        pos[0] += w_offset;
        if pos[0] > hi {
            return Err(format!(
                "starts at W {} (wOffset {w_offset} included), right of the bounding box {lo}..={hi}",
                pos[0]
            ));
        }
        let mut n = start[self.rank - 1];
        let (groups, per_group) = if w128 { (4, 32) } else { (1, self.pixels) };
        let pixels = groups * (per_group as usize + w_halo as usize);
        let mut out = Vec::with_capacity(pixels * self.channels as usize);
        for _ in 0..groups {
            let mut last = (pos.clone(), n);
            for _ in 0..per_group {
                self.push_pixel(&mut out, start[0], &pos, n);
                last = (pos.clone(), n);
                // The next pixel along W, or the box's left edge in the next image.
                if pos[0] + step <= hi {
                    pos[0] += step;
                } else {
                    pos[0] = lo;
                    n += 1;
                }
            }
            // The halo: the steps after the group's last pixel, in its image.
            let (mut h, hn) = last;
            for _ in 0..w_halo {
                h[0] += step;
                self.push_pixel(&mut out, start[0], &h, hn);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The H200's answers for an NHWC f32 tensor N=2, H=6, W=6, C=8 (tma_probe part 4):
    /// pixels as "n.h.w" or "oob".
    #[test]
    fn columns_walk_as_an_h200_walked_them() {
        let walk = |lower: [i32; 2], upper: [i32; 2], es: [u32; 4], pixels| Walk {
            dims: [8, 6, 6, 2, 1],
            rank: 4,
            lower: [lower[0], lower[1], 0],
            upper: [upper[0], upper[1], 0],
            strides: [es[0], es[1], es[2], es[3], 1],
            channels: 8,
            pixels,
        };
        let show = |w: &Walk, start: [i64; 4], off: [i64; 2]| -> String {
            let e = w.elements(&start, &off).unwrap();
            (e.chunks(w.channels as usize))
                .map(|px| match px[0] {
                    Some(a) => format!("{}.{}.{}", a[3], a[2], a[1]),
                    None => "oob".into(),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let pad1 = walk([-1, -1], [-1, -1], [1, 1, 1, 1], 16);
        assert_eq!(
            show(&pad1, [0, -1, -1, 0], [0, 0]),
            "oob oob oob oob oob oob oob 0.0.0 0.0.1 0.0.2 0.0.3 0.0.4 oob 0.1.0 0.1.1 0.1.2"
        );
        assert_eq!(
            show(&pad1, [0, 2, 4, 0], [0, 0]),
            "0.4.2 0.4.3 0.4.4 oob oob oob oob oob oob oob 1.0.0 1.0.1 1.0.2 1.0.3 1.0.4 oob"
        );
        assert_eq!(
            show(&pad1, [0, 3, 4, 1], [1, 1]),
            "1.5.4 1.5.5 oob oob oob oob oob oob oob oob oob oob oob oob oob oob"
        );
        let es2 = walk([-1, -1], [-1, -1], [1, 2, 2, 1], 16);
        assert_eq!(
            show(&es2, [0, -1, -1, 0], [0, 0]),
            "oob oob oob oob 0.1.1 0.1.3 oob 0.3.1 0.3.3 oob oob oob oob 1.1.1 1.1.3 oob"
        );
        assert_eq!(
            show(&es2, [0, 1, 1, 0], [1, 1]),
            "0.2.2 0.2.4 0.4.0 0.4.2 0.4.4 1.0.0 1.0.2 1.0.4 1.2.0 1.2.2 1.2.4 1.4.0 1.4.2 1.4.4 oob oob"
        );
        let asym = walk([-2, 0], [0, 0], [1, 1, 1, 1], 16);
        assert_eq!(
            show(&asym, [0, 0, 0, 0], [0, 0]),
            "0.0.0 0.0.1 0.0.2 0.0.3 0.0.4 0.0.5 oob oob 0.1.0 0.1.1 0.1.2 0.1.3 0.1.4 0.1.5 oob oob"
        );
        // Channels 4..12 of 8: the last four are out of bounds.
        let e = pad1.elements(&[4, -1, -1, 0], &[1, 1]).unwrap();
        assert_eq!(e[3].map(|a| a[0]), Some(7));
        assert_eq!(e[4], None);
        // A start outside the bounding box (an illegal instruction on the H200).
        assert!(pad1.elements(&[0, 5, 5, 1], &[0, 0]).is_err());
    }
}
