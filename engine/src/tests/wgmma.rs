//! `wgmma.mma_async` (ISA 9.7.15) forms beyond f16/bf16/tf32/s8: the f8 kinds, `.b1` with
//! `.and.popc` and the sparse `.sp` forms, m64n8, A from a descriptor or from registers.
//!
//! Expected values: integer and `.b1` products are exact (the ISA's arithmetic); float inputs
//! are small integers whose sums are exact in every accumulator, but for the two cases that show
//! the f8 kinds' own truncation, whose values follow by hand from the parameters of mmasim
//! 2.1.1's Hopper `WGMMA` model (`F` = 13, an f32 D truncated to 13 fraction bits; see
//! `crate::sem::mma::dot_wgmma_f8`). The metadata's lanes and bits are the ISA's figures 176,
//! 178, 180 and 181, written out here independently of `crate::sem::fragment`.
//! scripts/ground-truth/wgmma_probe.cu asks a GPU the same of random inputs with the f8 corners;
//! `tests/tensor_cores.rs` checks the shim's answers against an H200's, bit for bit (the f8
//! model included).

use super::*;

const HW: &str = ".version 8.5\n.target sm_90a\n.address_size 64\n";

/// Byte `c` of row `r` (of rows of `kb` bytes) in the canonical K-major layout without
/// swizzle: core matrices of 8 rows of 16 bytes, LBO 128 between core matrices along K, SBO
/// `8 * kb` between groups of 8 rows (ISA 9.7.15.5.1.10).
fn canon(r: usize, c: usize, kb: usize) -> usize {
    (r % 8) * 16 + (r / 8) * (8 * kb) + (c % 16) + (c / 16) * 128
}

/// One m64n8 wgmma: A is 64 rows of 32 bytes (row-major; a sparse A's packed half), B 8
/// columns of `kb` bytes, `c` D's initial elements (64 x 8, f16 in the low half), `meta` each
/// thread's metadata word. `inst` is the instruction with `DREGS`, `A` (the descriptor `%rd5`
/// or the registers), `%rd6` (B's descriptor), `%r20` (the metadata). Returns D, 64 x 8.
struct Case<'a> {
    inst: &'a str,
    f16_d: bool,
    a: &'a [u8],
    b: &'a [u8],
    kb: usize,
    c: &'a [u32],
    meta: &'a [u32],
}

fn run(x: &Case, a_in_regs: bool) -> Vec<u32> {
    assert_eq!((x.a.len(), x.b.len()), (64 * 32, 8 * x.kb));
    // Shared-memory images in the canonical layout, copied in as words.
    let mut sa = vec![0u8; 2048];
    for (i, &v) in x.a.iter().enumerate() {
        sa[canon(i / 32, i % 32, 32)] = v;
    }
    let mut sb = vec![0u8; 2048];
    for (i, &v) in x.b.iter().enumerate() {
        sb[canon(i / x.kb, i % x.kb, x.kb)] = v;
    }
    // Per thread: A's four registers (bytes tig*4 + 16*(r/2) of row 16w + gid + 8*(r%2)), D's
    // four (f32 and s32) or two (f16) registers, the metadata word (12 words with padding).
    let (mut regs_a, mut regs_d) = (vec![0u32; 128 * 4], vec![0u32; 128 * 4]);
    for t in 0..128 {
        let (w, gid, tig) = (t / 32, t % 32 / 4, t % 4);
        for r in 0..4 {
            let row = 16 * w + gid + 8 * (r % 2);
            let col = tig * 4 + 16 * (r / 2);
            let bytes = &x.a[row * 32 + col..][..4];
            regs_a[t * 4 + r] = u32::from_le_bytes(bytes.try_into().unwrap());
        }
        for i in 0..4 {
            let (row, col) = d_coord(t, i);
            let c = x.c[row * 8 + col];
            if x.f16_d {
                regs_d[t * 4 + i / 2] |= (c & 0xffff) << (16 * (i % 2));
            } else {
                regs_d[t * 4 + i] = c;
            }
        }
    }
    let dregs = if x.f16_d {
        "{%r10, %r11}"
    } else {
        "{%r10, %r11, %r12, %r13}"
    };
    let a = if a_in_regs {
        "{%r14, %r15, %r16, %r17}"
    } else {
        "%rd5"
    };
    let inst = x
        .inst
        .replace("DREGS", dregs)
        .replace(" A,", &format!(" {a},"));
    let src = format!(
        "{HW}.visible .entry w(.param .u64 img, .param .u64 regs)
        {{
          .reg .b64 %rd<12>; .reg .b32 %r<24>;
          .shared .align 1024 .b8 sa[2048];
          .shared .align 1024 .b8 sb[2048];
          ld.param.u64 %rd1, [img];
          ld.param.u64 %rd2, [regs];
          mov.u32 %r1, %tid.x;
          mul.wide.u32 %rd3, %r1, 4;
          add.s64 %rd4, %rd1, %rd3;
          mov.u64 %rd7, sa;
          add.s64 %rd7, %rd7, %rd3;
          mov.u64 %rd8, sb;
          add.s64 %rd8, %rd8, %rd3;
          ld.global.u32 %r2, [%rd4];
          st.shared.u32 [%rd7], %r2;
          ld.global.u32 %r2, [%rd4+512];
          st.shared.u32 [%rd7+512], %r2;
          ld.global.u32 %r2, [%rd4+1024];
          st.shared.u32 [%rd7+1024], %r2;
          ld.global.u32 %r2, [%rd4+1536];
          st.shared.u32 [%rd7+1536], %r2;
          ld.global.u32 %r2, [%rd4+2048];
          st.shared.u32 [%rd8], %r2;
          ld.global.u32 %r2, [%rd4+2560];
          st.shared.u32 [%rd8+512], %r2;
          ld.global.u32 %r2, [%rd4+3072];
          st.shared.u32 [%rd8+1024], %r2;
          ld.global.u32 %r2, [%rd4+3584];
          st.shared.u32 [%rd8+1536], %r2;
          // This thread's registers: A's four, D's four, the metadata word.
          mul.wide.u32 %rd3, %r1, 48;
          add.s64 %rd9, %rd2, %rd3;
          ld.global.v4.u32 {{%r14, %r15, %r16, %r17}}, [%rd9];
          ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd9+16];
          ld.global.u32 %r20, [%rd9+32];
          fence.proxy.async.shared::cta;
          bar.sync 0;
          // Descriptors: start >> 4, LBO 128 >> 4 at bit 16, SBO >> 4 at bit 32.
          mov.u64 %rd5, sa;
          shr.u64 %rd5, %rd5, 4;
          and.b64 %rd5, %rd5, 0x3fff;
          or.b64 %rd5, %rd5, {desc_a};
          mov.u64 %rd6, sb;
          shr.u64 %rd6, %rd6, 4;
          and.b64 %rd6, %rd6, 0x3fff;
          or.b64 %rd6, %rd6, {desc_b};
          wgmma.fence.sync.aligned;
          {inst}
          wgmma.commit_group.sync.aligned;
          wgmma.wait_group.sync.aligned 0;
          st.global.v4.u32 [%rd9+16], {{%r10, %r11, %r12, %r13}};
          ret;
        }}",
        desc_a = (8u64 << 16) | ((8 * 32 / 16) << 32),
        desc_b = (8u64 << 16) | (((8 * x.kb / 16) as u64) << 32),
    );
    let m = Module::load(&src, "w.ptx").unwrap_or_else(|e| panic!("{e}\n{inst}"));
    let mut img = sa;
    img.extend_from_slice(&sb);
    let img = upload(&img);
    let mut words = Vec::new();
    for t in 0..128 {
        words.extend_from_slice(&regs_a[t * 4..][..4]);
        words.extend_from_slice(&regs_d[t * 4..][..4]);
        words.extend_from_slice(&[x.meta.get(t).copied().unwrap_or(0), 0, 0, 0]);
    }
    let regs = upload(&words);
    let mut params = img.to_le_bytes().to_vec();
    params.extend_from_slice(&regs.to_le_bytes());
    launch(&m.kernel("w").unwrap(), &cfg(1, 128), &params).unwrap_or_else(|e| panic!("{e}"));
    let out: Vec<u32> = download(regs, words.len());
    mem::free(img).unwrap();
    mem::free(regs).unwrap();
    let mut d = vec![0u32; 64 * 8];
    for t in 0..128 {
        for i in 0..4 {
            let (row, col) = d_coord(t, i);
            let w = out[t * 12 + 4 + if x.f16_d { i / 2 } else { i }];
            d[row * 8 + col] = if x.f16_d {
                (w >> (16 * (i % 2))) & 0xffff
            } else {
                w
            };
        }
    }
    d
}

/// Row and column of element `i` of thread `t`'s m64n8 accumulator (ISA figure 153).
fn d_coord(t: usize, i: usize) -> (usize, usize) {
    let (w, gid, tig) = (t / 32, t % 32 / 4, t % 4);
    (16 * w + gid + 8 * (i / 2), tig * 2 + i % 2)
}

/// Runs `x` with A from shared memory and from registers; both must give `want`.
fn check(x: &Case, want: &[u32]) {
    for regs in [false, true] {
        let got = run(x, regs);
        let bad: Vec<String> = (0..64 * 8)
            .filter(|&e| got[e] != want[e])
            .take(5)
            .map(|e| format!("({}, {}): {:#x} want {:#x}", e / 8, e % 8, got[e], want[e]))
            .collect();
        assert!(
            bad.is_empty(),
            "{} (A in registers: {regs}): {bad:?}",
            x.inst
        );
    }
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

/// A small integer (|v| <= 4) as an e4m3 (`e5m2` false) or e5m2 byte.
fn f8(e5m2: bool, v: i32) -> u8 {
    let m = v.unsigned_abs();
    let bits = match (e5m2, m) {
        (_, 0) => 0,
        (false, 1) => 0x38,
        (false, 2) => 0x40,
        (false, 3) => 0x44,
        (false, 4) => 0x48,
        (true, 1) => 0x3c,
        (true, 2) => 0x40,
        (true, 3) => 0x42,
        (true, 4) => 0x44,
        _ => unreachable!(),
    };
    bits | if v < 0 { 0x80 } else { 0 }
}

fn f32_bits(v: i32) -> u32 {
    (v as f32).to_bits()
}

/// f16 bits of a small integer (|v| < 2048).
fn f16_bits(v: i32) -> u32 {
    if v == 0 {
        return 0;
    }
    let m = v.unsigned_abs();
    let e = 31 - m.leading_zeros();
    let frac = (m << (10 - e)) & 0x3ff;
    (if v < 0 { 0x8000 } else { 0 }) | ((e + 15) << 10) | frac
}

#[test]
fn f8_kinds_compute_exact_small_integer_products() {
    let mut g = Lcg(7);
    for (at, bt) in [(false, false), (false, true), (true, false), (true, true)] {
        let av: Vec<i32> = (0..64 * 32).map(|_| (g.next() % 7) as i32 - 3).collect();
        let bv: Vec<i32> = (0..8 * 32).map(|_| (g.next() % 5) as i32 - 2).collect();
        let cv: Vec<i32> = (0..64 * 8).map(|_| (g.next() % 41) as i32 - 20).collect();
        let a: Vec<u8> = av.iter().map(|&v| f8(at, v)).collect();
        let b: Vec<u8> = bv.iter().map(|&v| f8(bt, v)).collect();
        // |sum| <= 32 * 6 + 20: exact in f16 and in 13 fraction bits.
        let sum = |r: usize, n: usize| {
            cv[r * 8 + n]
                + (0..32)
                    .map(|k| av[r * 32 + k] * bv[n * 32 + k])
                    .sum::<i32>()
        };
        let name = |e5m2| if e5m2 { "e5m2" } else { "e4m3" };
        for f16_d in [false, true] {
            let dt = if f16_d { "f16" } else { "f32" };
            let enc = |v: i32| if f16_d { f16_bits(v) } else { f32_bits(v) };
            let c: Vec<u32> = cv.iter().map(|&v| enc(v)).collect();
            let want: Vec<u32> = (0..64 * 8).map(|e| enc(sum(e / 8, e % 8))).collect();
            let inst = format!(
                "wgmma.mma_async.sync.aligned.m64n8k32.{dt}.{}.{} DREGS, A, %rd6, 1, 1, 1;",
                name(at),
                name(bt)
            );
            let x = Case {
                inst: &inst,
                f16_d,
                a: &a,
                b: &b,
                kb: 32,
                c: &c,
                meta: &[],
            };
            check(&x, &want);
            // imm-scale-a -1 negates A: D = C - A * B.
            let inst = inst.replace(", 1, 1, 1;", ", 1, -1, 1;");
            let want: Vec<u32> = (0..64 * 8)
                .map(|e| enc(2 * cv[e] - sum(e / 8, e % 8)))
                .collect();
            check(&Case { inst: &inst, ..x }, &want);
        }
    }
}

#[test]
fn f8_kinds_truncate_as_the_hopper_model_does() {
    // Row 0 (e4m3 256 = 0x78, 1 = 0x38) with column 0 (e5m2 256 = 0x5c, 2^-4 = 0x2c):
    // 256 * 256 + 1 * 2^-4. The largest term has exponent 16 and F = 13 keeps multiples of
    // 2^3, so the small product vanishes: 65536 (mma.sync's F = 25 would keep it, and
    // 65536.0625 is an f32).
    // Row 1 (64 = 0x68, 64, 1) with column 1 (e5m2 128 = 0x58, 128, 1 = 0x3c): 8192 + 8192 + 1
    // = 16385, kept whole (exponent 13: multiples of 1), then truncated to 13 fraction bits:
    // 16384.
    // Row 0 with column 1: 256 * 128 + 1 * 128 = 32896 (multiples of 4 at 2^15: exact).
    // Row 1 with column 0: 64 * 256 + 64 * 2^-4 = 16388 (multiples of 2 at 2^14: exact).
    let mut a = vec![0u8; 64 * 32];
    let mut b = vec![0u8; 8 * 32];
    a[..2].copy_from_slice(&[0x78, 0x38]);
    a[32..35].copy_from_slice(&[0x68, 0x68, 0x38]);
    b[..2].copy_from_slice(&[0x5c, 0x2c]);
    b[32..35].copy_from_slice(&[0x58, 0x58, 0x3c]);
    let c = vec![0u32; 64 * 8];
    let mut want = vec![0u32; 64 * 8];
    want[0] = 65536f32.to_bits();
    want[1] = 32896f32.to_bits();
    want[8] = 16388f32.to_bits();
    want[9] = 16384f32.to_bits();
    let x = Case {
        inst: "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 DREGS, A, %rd6, 1, 1, 1;",
        f16_d: false,
        a: &a,
        b: &b,
        kb: 32,
        c: &c,
        meta: &[],
    };
    check(&x, &want);
}

#[test]
fn b1_and_popc_counts_common_bits() {
    let mut g = Lcg(11);
    let a: Vec<u8> = (0..64 * 32).map(|_| g.next() as u8).collect();
    let b: Vec<u8> = (0..8 * 32).map(|_| g.next() as u8).collect();
    let c: Vec<u32> = (0..64 * 8).map(|_| g.next() % 1000).collect();
    // Element k of a row is bit k % 8 of its byte k / 8.
    let want: Vec<u32> = (0..64 * 8)
        .map(|e| {
            let (r, n) = (e / 8, e % 8);
            c[e] + (0..32)
                .map(|i| (a[r * 32 + i] & b[n * 32 + i]).count_ones())
                .sum::<u32>()
        })
        .collect();
    let x = Case {
        inst: "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc DREGS, A, %rd6, 1;",
        f16_d: false,
        a: &a,
        b: &b,
        kb: 32,
        c: &c,
        meta: &[],
    };
    check(&x, &want);
}

/// Random metadata words: eight nibbles of two increasing 2-bit indices (for tf32, 0b0100 or
/// 0b1110: the first or the second element of a pair).
fn meta_words(g: &mut Lcg, tf32: bool) -> Vec<u32> {
    const OK: [u32; 6] = [0x4, 0x8, 0xc, 0x9, 0xd, 0xe];
    (0..128)
        .map(|_| {
            (0..8).fold(0, |w, j| {
                let nib = if tf32 {
                    [0x4, 0xe][g.next() as usize % 2]
                } else {
                    OK[g.next() as usize % 6]
                };
                w | nib << (4 * j)
            })
        })
        .collect()
}

/// The dense column of packed element `p` of row `r` (0..63), per the ISA's figures: warp
/// `r / 16` gives rows r % 16; 16-bit types (figure 176): lane 4 (r % 8) + 2 sel + j / 4,
/// bits 16 (r / 8 % 2) + 4 (j % 4) for chunk j = p / 2; tf32 (178): the same lanes and bits for
/// chunk p, one element per pair; 8-bit (180, 181): lane 4 (r % 8) + 2 (j / 8) + (r / 8 % 2),
/// bits 4 (j % 8).
fn dense_col(meta: &[u32], bits: u32, sel: usize, r: usize, p: usize) -> usize {
    let (w, rr) = (r / 16, r % 16);
    let word = |lane: usize| meta[32 * w + lane];
    match bits {
        32 => {
            let nib = word(4 * (rr % 8) + 2 * sel + p / 4) >> (16 * (rr / 8) + 4 * (p % 4));
            2 * p + ((nib & 3) / 2) as usize
        }
        16 => {
            let j = p / 2;
            let nib = word(4 * (rr % 8) + 2 * sel + j / 4) >> (16 * (rr / 8) + 4 * (j % 4));
            4 * j + ((nib >> (2 * (p % 2))) & 3) as usize
        }
        _ => {
            let j = p / 2;
            let nib = word(4 * (rr % 8) + 2 * (j / 8) + rr / 8) >> (4 * (j % 8));
            4 * j + ((nib >> (2 * (p % 2))) & 3) as usize
        }
    }
}

#[test]
fn sparse_integer_and_f8_forms_place_the_packed_half_by_the_metadata() {
    let mut g = Lcg(23);
    let a: Vec<u8> = (0..64 * 32).map(|_| g.next() as u8).collect();
    let b: Vec<u8> = (0..8 * 64).map(|_| g.next() as u8).collect();
    let c: Vec<u32> = (0..64 * 8)
        .map(|_| ((g.next() % 2001) as i32 - 1000) as u32)
        .collect();
    let meta = meta_words(&mut g, false);
    // s8 A, u8 B, exact.
    let want: Vec<u32> = (0..64 * 8)
        .map(|e| {
            let (r, n) = (e / 8, e % 8);
            let s: i32 = (0..32)
                .map(|p| {
                    a[r * 32 + p] as i8 as i32 * b[n * 64 + dense_col(&meta, 8, 0, r, p)] as i32
                })
                .sum();
            (c[e] as i32 + s) as u32
        })
        .collect();
    let x = Case {
        inst: "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 DREGS, A, %rd6, %r20, 0, 1;",
        f16_d: false,
        a: &a,
        b: &b,
        kb: 64,
        c: &c,
        meta: &meta,
    };
    check(&x, &want);
    // e4m3 A, e5m2 B of small integers, f32 D.
    let av: Vec<i32> = (0..64 * 32).map(|_| (g.next() % 7) as i32 - 3).collect();
    let bv: Vec<i32> = (0..8 * 64).map(|_| (g.next() % 5) as i32 - 2).collect();
    let a: Vec<u8> = av.iter().map(|&v| f8(false, v)).collect();
    let b: Vec<u8> = bv.iter().map(|&v| f8(true, v)).collect();
    let cf: Vec<u32> = c.iter().map(|&v| f32_bits(v as i32 / 50)).collect();
    let want: Vec<u32> = (0..64 * 8)
        .map(|e| {
            let (r, n) = (e / 8, e % 8);
            let s: i32 = (0..32)
                .map(|p| av[r * 32 + p] * bv[n * 64 + dense_col(&meta, 8, 0, r, p)])
                .sum();
            f32_bits(c[e] as i32 / 50 + s)
        })
        .collect();
    let x = Case {
        inst: "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e5m2 DREGS, A, %rd6, %r20, 0, 1, 1, 1;",
        a: &a,
        b: &b,
        c: &cf,
        ..x
    };
    check(&x, &want);
}

#[test]
fn sparse_f16_bf16_and_tf32_forms_follow_the_selector() {
    let mut g = Lcg(31);
    for sel in 0..2 {
        let meta = meta_words(&mut g, false);
        let av: Vec<i32> = (0..64 * 16).map(|_| (g.next() % 9) as i32 - 4).collect();
        let bv: Vec<i32> = (0..8 * 32).map(|_| (g.next() % 9) as i32 - 4).collect();
        let cv: Vec<i32> = (0..64 * 8).map(|_| (g.next() % 41) as i32 - 20).collect();
        let want: Vec<u32> = (0..64 * 8)
            .map(|e| {
                let (r, n) = (e / 8, e % 8);
                let s: i32 = (0..16)
                    .map(|p| av[r * 16 + p] * bv[n * 32 + dense_col(&meta, 16, sel, r, p)])
                    .sum();
                f32_bits(cv[e] + s)
            })
            .collect();
        let c: Vec<u32> = cv.iter().map(|&v| f32_bits(v)).collect();
        for bf16 in [false, true] {
            let enc = |v: &i32| -> [u8; 2] {
                let h = if bf16 {
                    f32_bits(*v) >> 16
                } else {
                    f16_bits(*v)
                };
                (h as u16).to_le_bytes()
            };
            let a: Vec<u8> = av.iter().flat_map(enc).collect();
            let b: Vec<u8> = bv.iter().flat_map(enc).collect();
            let t = if bf16 { "bf16" } else { "f16" };
            let inst = format!(
                "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.{t}.{t} DREGS, A, %rd6, %r20, {sel}, 1, 1, 1, 0;"
            );
            // From registers the form has no imm-trans-a; from shared memory it has.
            for regs in [false, true] {
                let inst = if regs {
                    inst.clone()
                } else {
                    inst.replace(", 0;", ", 0, 0;")
                };
                let x = Case {
                    inst: &inst,
                    f16_d: false,
                    a: &a,
                    b: &b,
                    kb: 64,
                    c: &c,
                    meta: &meta,
                };
                let got = run(&x, regs);
                assert_eq!(got, want, "{inst} (A in registers: {regs})");
            }
        }
        // tf32: 8 packed of 16 per row, one of each pair.
        let meta = meta_words(&mut g, true);
        let av: Vec<i32> = (0..64 * 8).map(|_| (g.next() % 9) as i32 - 4).collect();
        let bv: Vec<i32> = (0..8 * 16).map(|_| (g.next() % 9) as i32 - 4).collect();
        let want: Vec<u32> = (0..64 * 8)
            .map(|e| {
                let (r, n) = (e / 8, e % 8);
                let s: i32 = (0..8)
                    .map(|p| av[r * 8 + p] * bv[n * 16 + dense_col(&meta, 32, sel, r, p)])
                    .sum();
                f32_bits(cv[e] + s)
            })
            .collect();
        // Low bits set: tf32 ignores the 13 below its fraction.
        let enc = |v: &i32| (f32_bits(*v) | (0x1fff * (*v != 0) as u32)).to_le_bytes();
        let a: Vec<u8> = av.iter().flat_map(enc).collect();
        let b: Vec<u8> = bv.iter().flat_map(enc).collect();
        let inst = format!(
            "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 DREGS, A, %rd6, %r20, {sel}, 1, 1, 1;"
        );
        let x = Case {
            inst: &inst,
            f16_d: false,
            a: &a,
            b: &b,
            kb: 64,
            c: &c,
            meta: &meta,
        };
        check(&x, &want);
    }
}

#[test]
fn forms_the_isa_does_not_give_are_refused_at_load() {
    let body = |inst: &str| {
        format!(
            "{HW}.visible .entry w()
            {{
              .reg .b64 %rd<8>; .reg .b32 %r<24>; .reg .f32 %f<8>;
              wgmma.fence.sync.aligned;
              {inst}
              ret;
            }}"
        )
    };
    for (inst, says) in [
        // .b1 has .and only.
        (
            "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {%r1, %r2, %r3, %r4}, %rd1, %rd2, 1;",
            "'.xor' is not a modifier of 'wgmma'",
        ),
        // f8 is k32, and takes no transpose operands.
        (
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1;",
            "unsupported instruction",
        ),
        (
            "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, 1, 0, 0;",
            "needs 6 operands",
        ),
        // 8-bit sparse A: the selector must be 0.
        (
            "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %r1, 1, 1, 1, 1;",
            "sparsity selector must be a constant in 0..0",
        ),
        // No sparse .b1; integer N past 32 in steps of 16 only.
        (
            "wgmma.mma_async.sp.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, %rd2, %r1, 0, 1;",
            "unsupported instruction",
        ),
        (
            "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20}, %rd1, %rd2, 1;",
            "unsupported instruction",
        ),
    ] {
        let e = match Module::load(&body(inst), "w.ptx") {
            Ok(_) => panic!("{inst} loaded"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(says), "{inst}: {e}");
        let name = inst.split(' ').next().unwrap();
        assert!(e.contains(name) || says != "unsupported instruction", "{inst}: {e}");
    }
}
