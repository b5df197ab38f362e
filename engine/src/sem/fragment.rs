//! Where the elements of a matrix live in a warp's registers: the fragments of `mma`
//! (ISA 9.7.14.5.x, the row and column of element `i` of each lane as the ISA's figures give
//! them) and of `wmma` (9.7.14.4.1: "unspecified and target architecture dependent").
//!
//! A register holds `epr` elements of the type (two f16, four s8, eight s4, 32 b1; one f32,
//! tf32, s32 or f64), element `i` in register `i / epr` at bits `(i % epr) * bits`.
//!
//! For `mma`, one rule covers every shape with M = 16 or 8 and N = 8, from the ISA's formulas
//! (groupID = lane >> 2, threadID_in_group = lane % 4, r = i / epr, j = i % epr):
//! - A, M = 16: row = groupID + 8 (r & 1), col = threadID_in_group * epr + j + (r >> 1) * 4 epr;
//!   M = 8: row = groupID, col = threadID_in_group * epr + j + r * 4 epr;
//! - B: row = threadID_in_group * epr + j + r * 4 epr, col = groupID;
//! - C and D: M = 16: row = groupID + 8 (i >> 1), col = threadID_in_group * 2 + (i & 1);
//!   M = 8: row = groupID, col = threadID_in_group * 2 + i.
//!
//! For `wmma`, the shim lays a fragment out as the tiles of those `mma` fragments that cover the
//! matrix (A: 16- or 8-row tiles of all K; B: 8-column tiles of all K; C: 16x8 or 8x8 tiles,
//! row tile by row tile), which is how an sm_80 and later GPU runs `wmma` on its `mma` units.
//! The `.f16` A and B fragments have more registers than elements per lane (eight registers
//! for the 8 elements of a 16x16 A): the further registers repeat the first ones.

/// Which matrix of `D = A * B + C` a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    A,
    B,
    /// C or D.
    C,
}

/// Row and column of element `i` of `lane`'s `mma` fragment of `role` (M = `m`, 16 or 8).
pub fn mma_coord(role: Role, m: u32, epr: u32, lane: u32, i: u32) -> (u32, u32) {
    let (gid, tig) = (lane >> 2, lane & 3);
    let (r, j) = (i / epr, i % epr);
    match (role, m) {
        (Role::A, 16) => (gid + 8 * (r & 1), tig * epr + j + (r >> 1) * 4 * epr),
        (Role::A, _) => (gid, tig * epr + j + r * 4 * epr),
        (Role::B, _) => (tig * epr + j + r * 4 * epr, gid),
        (Role::C, 16) => (gid + 8 * (i >> 1), tig * 2 + (i & 1)),
        (Role::C, _) => (gid, tig * 2 + i),
    }
}

/// Elements per lane of an M x N x K operation's fragment of `role` (distinct elements, for
/// `wmma` too).
pub fn per_lane(role: Role, m: u32, n: u32, k: u32) -> u32 {
    match role {
        Role::A => m * k / 32,
        Role::B => k * n / 32,
        Role::C => m * n / 32,
    }
}

/// `mma.m8n8k4` with `.f16` (ISA 9.7.14.5.1): four independent 8x8x4 products, computation
/// `lane / 4 % 4` on lanes 4q..4q+3 (rows or columns 0-3) and 4q+16..4q+19 (4-7). Row and
/// column of element `i` of `lane`'s fragment of `role`: A by rows (`row`) or columns, B by
/// columns (`col`) or rows, C and D of `.f16` (`f32` false) or `.f32`.
pub fn quad_pair_coord(
    role: Role,
    row: bool,
    col: bool,
    f32: bool,
    lane: u32,
    i: u32,
) -> (u32, u32) {
    let hi = 4 * (lane >= 16) as u32;
    let own = lane % 4 + hi;
    match role {
        Role::A if row => (own, i),
        Role::A => (i % 4 + hi, lane % 4),
        Role::B if col => (i, own),
        Role::B => (lane % 4, i + hi),
        Role::C if f32 => ((lane & 1) + (i & 2) + hi, (i & 4) + (lane & 2) + (i & 1)),
        Role::C => (own, i),
    }
}

/// Sparse `mma.sp` (ISA 9.7.14.6): A's non-zero half is packed, M x K/2, in the registers of a
/// dense A of half the K (`mma_coord` with K/2); metadata puts it back. Row `r` of A is cut into
/// chunks of `sparse_chunk` elements (4; 2 for tf32; 8 for 4-bit types, in pairs), each with one
/// metadata nibble of two 2-bit indices, and holding half of its elements packed.
pub fn sparse_chunk(bits: u32) -> u32 {
    match bits {
        32 => 2,
        4 => 8,
        _ => 4,
    }
}

/// The lane and bit of row `r`'s metadata nibble `j` for an A of K columns of `bits`-bit
/// elements, sparsity selector `sel` (the figures of 9.7.14.6.2). Row `r`'s group of four
/// threads gives `t` = nibbles per row / 4 of them to the metadata, from `sel * t`:
/// - 16- and 32-bit types: each holds four nibbles of both rows, columns `4i..` of its share,
///   row `r` < 8 in bits 0-15 and row `r + 8` in bits 16-31;
/// - 8- and 4-bit types: each holds eight nibbles of one row, rows < 8 in the even threads and
///   rows >= 8 in the odd ones (figures 129, 136 and 137; checked on an H200).
pub fn sparse_meta_at(k: u32, bits: u32, sel: u32, r: u32, j: u32) -> (u32, u32) {
    let first = 4 * (r % 8) + sel * (k / sparse_chunk(bits) / 4);
    if bits >= 16 {
        (first + j / 4, 16 * (r / 8) + 4 * (j % 4))
    } else {
        (first + 2 * (j / 8) + r / 8, 4 * (j % 8))
    }
}

/// The number of valid sparsity selectors (`0..n`) of a sparse A of K columns.
pub fn sparse_selectors(k: u32, bits: u32) -> u32 {
    4 / (k / sparse_chunk(bits) / 4).max(1)
}

/// Where chunk `j`'s packed elements go in its row, given its metadata `nibble`: pairs
/// (packed column, dense column). The indices count 16-bit halves for tf32 (so 0b0100 picks
/// the chunk's first element and 0b1110 its second) and element pairs for 4-bit types.
pub fn sparse_columns(bits: u32, j: u32, nibble: u32) -> Vec<(u32, u32)> {
    let (i0, i1) = (nibble & 3, (nibble >> 2) & 3);
    let c = sparse_chunk(bits);
    match bits {
        32 => vec![(j, c * j + i0 / 2)],
        4 => vec![
            (4 * j, c * j + 2 * i0),
            (4 * j + 1, c * j + 2 * i0 + 1),
            (4 * j + 2, c * j + 2 * i1),
            (4 * j + 3, c * j + 2 * i1 + 1),
        ],
        _ => vec![(2 * j, c * j + i0), (2 * j + 1, c * j + i1)],
    }
}

/// Row and column of element `i` of `lane`'s `wmma` fragment of `role` for shape M x N x K.
pub fn wmma_coord(
    role: Role,
    (m, n, k): (u32, u32, u32),
    epr: u32,
    lane: u32,
    i: u32,
) -> (u32, u32) {
    let tm = m.min(16);
    match role {
        Role::A => {
            let per = per_lane(Role::A, tm, 8, k);
            let (r, c) = mma_coord(Role::A, tm, epr, lane, i % per);
            (r + tm * (i / per), c)
        }
        Role::B => {
            let per = per_lane(Role::B, tm, 8, k);
            let (r, c) = mma_coord(Role::B, tm, epr, lane, i % per);
            (r, c + 8 * (i / per))
        }
        Role::C => {
            let per = per_lane(Role::C, tm, 8, k);
            let t = i / per;
            let (r, c) = mma_coord(Role::C, tm, epr, lane, i % per);
            (r + tm * (t / (n / 8)), c + 8 * (t % (n / 8)))
        }
    }
}

/// Row and column of element `i` of `lane`'s fragment of a `wgmma` accumulator (m64nN): warp
/// `w` of the warpgroup holds rows 16w to 16w + 15, as an m16n8 `mma` accumulator for each
/// 8 columns (`i / 4` the 8-column block).
pub fn wgmma_d_coord(warp: u32, lane: u32, i: u32) -> (u32, u32) {
    let (r, c) = mma_coord(Role::C, 16, 1, lane, i % 4);
    (16 * warp + r, c + 8 * (i / 4))
}

/// The shared-memory byte address of element (`mn`, `k`) of a `wgmma` operand described by
/// the matrix descriptor `desc` (ISA 9.7.15.5.1.11: start address, leading and stride
/// dimension byte offsets, base offset, swizzle), K-major or M/N-major (`imm-trans`), in the
/// ISA's canonical layouts (9.7.15.5.1.10, as CuTe layouts of T = 128 / bits elements):
/// K-major `((8,m),(T,2k)) : ((wT,SBO),(1,LBO))` without swizzle, `((wT,SBO),(1,T))` with;
/// M/N-major `((T,w,m),(8,k)) : ((1,T,SBO),(wT,LBO))` without swizzle, `((1,T,LBO),(wT,SBO))`
/// with; w the swizzle span in 16-byte units (1, 2, 4, 8), the swizzle applied to the address.
pub fn wgmma_smem(desc: u64, k_major: bool, bits: u32, mn: u32, k: u32) -> u64 {
    let field = |lo: u32| ((desc >> lo) & 0x3fff) << 4;
    let (start, lbo, sbo) = (field(0), field(16), field(32));
    let base = (desc >> 49) & 7;
    // The descriptor's swizzle code (1: 128B, 2: 64B, 3: 32B) as the span's mode (3, 2, 1).
    let mode = [0u8, 3, 2, 1][(desc >> 62) as usize];
    let w = 1u64 << mode;
    let t = (128 / bits) as u64;
    let eb = (bits / 8) as u64;
    let (mn, k) = (mn as u64, k as u64);
    let off = if k_major {
        let row = (mn % 8) * w * 16 + (mn / 8) * sbo + (k % t) * eb;
        row + (k / t) * if mode == 0 { lbo } else { 16 }
    } else {
        let (x, y) = if mode == 0 { (sbo, lbo) } else { (lbo, sbo) };
        (mn % t) * eb + ((mn / t) % w) * 16 + (mn / (t * w)) * x + (k % 8) * w * 16 + (k / 8) * y
    };
    // The pattern starts `base` 128-byte rows into its 2^(mode + 7)-byte repeat.
    let a = start + off;
    super::swizzle::swizzle(a - base * 128, mode, 0) + base * 128
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of the matrix is held by exactly one (lane, element) of a fragment.
    fn covers(m: u32, n: u32, k: u32, coord: impl Fn(Role, u32, u32) -> (u32, u32)) {
        for (role, rows, cols) in [(Role::A, m, k), (Role::B, k, n), (Role::C, m, n)] {
            let mut seen = vec![0u32; (rows * cols) as usize];
            for lane in 0..32 {
                for i in 0..per_lane(role, m, n, k) {
                    let (r, c) = coord(role, lane, i);
                    assert!(
                        r < rows && c < cols,
                        "{role:?} m{m}n{n}k{k} lane {lane} i {i}"
                    );
                    seen[(r * cols + c) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{role:?} m{m}n{n}k{k}");
        }
    }

    #[test]
    fn mma_fragments_cover_their_matrices() {
        // (m, k, elements per register) of the mma shapes.
        for (m, k, epr) in [
            (16, 16, 2),
            (16, 8, 2),
            (16, 8, 1),
            (16, 4, 1),
            (16, 16, 1),
            (16, 16, 4),
            (16, 32, 4),
            (16, 32, 8),
            (16, 64, 8),
            (16, 128, 32),
            (16, 256, 32),
            (8, 4, 1),
            (8, 16, 4),
            (8, 32, 8),
            (8, 128, 32),
        ] {
            covers(m, 8, k, |role, lane, i| mma_coord(role, m, epr, lane, i));
        }
    }

    #[test]
    fn figures_of_the_isa() {
        // m16n8k16 .f16 A (ISA figure for 9.7.14.5.8): lane 5 holds a0 at (1, 2), a2 at (9, 2),
        // a4 at (1, 10), a7 at (9, 11).
        let a = |i| mma_coord(Role::A, 16, 2, 5, i);
        assert_eq!([a(0), a(2), a(4), a(7)], [(1, 2), (9, 2), (1, 10), (9, 11)]);
        // m16n8k8 .tf32 A: a1 of lane 6 at row 8 + 1, col 2; a3 at (9, 6).
        assert_eq!(mma_coord(Role::A, 16, 1, 6, 1), (9, 2));
        assert_eq!(mma_coord(Role::A, 16, 1, 6, 3), (9, 6));
        // m16n8k32 .s8 B: b5 of lane 3 at row 3 * 4 + 1 + 16.
        assert_eq!(mma_coord(Role::B, 16, 4, 3, 5), (29, 0));
        // m8n8k4 .f64 C: c1 of lane 7 at (1, 7).
        assert_eq!(mma_coord(Role::C, 8, 1, 7, 1), (1, 7));
    }

    #[test]
    fn wgmma_canonical_layouts_of_the_isa() {
        // Figure 166 (K-major, no swizzle, tf32): element (row, k) of an 8-row block is at
        // element offset row * 4 + k % 4, the next 4 k at LBO; with LBO = 64 elements
        // (256 bytes) and SBO = 128 elements, row 1 k 4 is element 68.
        let desc = (256u64 >> 4) << 16 | (512u64 >> 4) << 32;
        let at = |mn, k| wgmma_smem(desc, true, 32, mn, k) / 4;
        assert_eq!(
            [at(0, 0), at(0, 3), at(1, 0), at(1, 4), at(0, 8)],
            [0, 3, 4, 68, 128]
        );
        // Figure 164 (K-major, 128B swizzle, tf32; the figure counts 128-bit units... in
        // elements: row 1's first 16-byte chunk holds elements 36..39).
        let desc = 1u64 << 62 | (1024u64 >> 4) << 32;
        let at = |mn, k| wgmma_smem(desc, true, 32, mn, k) / 4;
        assert_eq!([at(1, 0), at(1, 4), at(2, 0), at(7, 0)], [36, 32, 72, 252]);
        // Figure 165 (M/N-major, 128B swizzle, tf32): column k of the figure, row mn.
        let at = |mn, k| wgmma_smem(desc, false, 32, mn, k) / 4;
        assert_eq!([at(0, 1), at(4, 1), at(8, 2), at(31, 7)], [36, 32, 64, 227]);
    }

    #[test]
    fn wmma_fragments_cover_their_matrices() {
        for (m, n, k, epr) in [
            (16, 16, 16, 2),
            (32, 8, 16, 2),
            (8, 32, 16, 2),
            (16, 16, 16, 4),
            (32, 8, 16, 4),
            (8, 32, 16, 4),
            (16, 16, 8, 1),
            (8, 8, 4, 1),
            (8, 8, 32, 8),
            (8, 8, 128, 32),
        ] {
            covers(m, n, k, |role, lane, i| {
                wmma_coord(role, (m, n, k), epr, lane, i)
            });
        }
    }
}
