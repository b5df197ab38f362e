//! `tcgen05` (ISA 9.7.16): Tensor Memory allocation, `tcgen05.ld`/`st` shapes, `tcgen05.mma`
//! GEMMs (`kind::f16`, `::tf32`, `::i8`) completed through `tcgen05.commit` on an mbarrier,
//! the CTA pair's (`.cta_group::2`) allocation, MMAs and multicast commit in clusters of 2,
//! `tcgen05.cp` of every shape and decompression and `tcgen05.shift`, checked against CPU
//! references.
//!
//! Expected values: products of small integers, whose sums are exact in every accumulator
//! (f32, f16 and s32), so the reference is integer arithmetic (the ISA's `D = A * B + D`).
//! The Tensor Memory places of D's rows are the ISA's layouts D (M = 128: row r in lane r) and
//! F (M = 64: rows 16q to 16q + 15 in lanes 32q to 32q + 15), and for the pair A (M = 256: each
//! CTA's 128 rows in its 128 lanes) and B (M = 128: a CTA's row r in lanes r and 64 + r, the
//! two halves of N), written here as CUTLASS 4.2's `tmem_frg` / `tmem_frg_2sm` lay them out
//! (the ISA's figures are pictures or tables); the pair splits A's rows and B's columns between
//! its CTAs as CUTLASS's `SM100_MMA_*_2x1SM` traits do. The `tcgen05.ld` shapes' register
//! places are CUTLASS's `Copy_Traits<SM100_TMEM_LOAD_*>` layouts, and the `tcgen05.cp` shapes'
//! lanes its `Copy_Traits<SM100_UTCCP_*>`, written out here independently of
//! `crate::exec::tcgen05`; the copied bytes and their decompression are recomputed bit by bit
//! from the source bytes. Every kernel here is accepted by `ptxas -arch=sm_100a` (13.5).

use super::*;

/// Writes a test kernel to `$TCGEN05_PTX_DIR/NAME.ptx` when that is set, to check it with
/// `ptxas -arch=sm_100a`.
fn keep_ptx(name: &str, src: &str) {
    if let Ok(dir) = std::env::var("TCGEN05_PTX_DIR") {
        std::fs::write(format!("{dir}/{name}.ptx"), src).ok();
    }
}

/// The first `n` letters and digits of an instruction, for a file name.
fn stem(inst: &str, n: usize) -> String {
    inst.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(n)
        .collect()
}

const HW: &str = ".version 8.7\n.target sm_100a\n.address_size 64\n";

/// Element type of a GEMM's A and B.
#[derive(Clone, Copy, PartialEq)]
enum Ty {
    F16,
    Tf32,
    S8,
    /// `.kind::f8f6f4` with e4m3 A and B (their small integers are exact).
    E4m3,
}

impl Ty {
    fn bytes(self) -> usize {
        match self {
            Ty::F16 => 2,
            Ty::Tf32 => 4,
            Ty::S8 | Ty::E4m3 => 1,
        }
    }
    /// The element's bits for the small integer `v`.
    fn enc(self, v: i32) -> u32 {
        match self {
            Ty::F16 => f16_bits(v),
            Ty::Tf32 => (v as f32).to_bits(),
            Ty::S8 => v as u8 as u32,
            Ty::E4m3 => e4m3_bits(v),
        }
    }
    fn kind(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::Tf32 => "tf32",
            Ty::S8 => "i8",
            Ty::E4m3 => "f8f6f4",
        }
    }
}

/// e4m3 bits of a small integer (exact): sign, 4 exponent bits of bias 7, 3 fraction bits.
fn e4m3_bits(v: i32) -> u32 {
    if v == 0 {
        return 0;
    }
    let (s, a) = ((v < 0) as u32, v.unsigned_abs());
    let e = 31 - a.leading_zeros();
    let m = (a << (3 - e)) & 7;
    s << 7 | (e + 7) << 3 | m
}

/// f16 bits of a small integer (exact).
fn f16_bits(v: i32) -> u32 {
    if v == 0 {
        return 0;
    }
    let (s, a) = ((v < 0) as u32, v.unsigned_abs());
    let e = 31 - a.leading_zeros();
    let m = (a << (10 - e)) & 0x3ff;
    s << 15 | (e + 15) << 10 | m
}

/// Byte `c` of row `r` in the canonical K-major layout, rows of `kb` bytes: no swizzle (core
/// matrices of 8 rows of 16 bytes, LBO 128 along K, SBO 8 * kb between 8-row groups) or the
/// 128-byte swizzle (kb = 128: 8-row atoms of 1024 bytes, the 16-byte chunk XOR the row),
/// ISA 9.7.16.3.3 / 9.7.15.5.1.10.
fn canon(r: usize, c: usize, kb: usize, sw128: bool) -> usize {
    if sw128 {
        (r / 8) * 1024 + (r % 8) * 128 + (((c / 16) ^ (r % 8)) * 16) + c % 16
    } else {
        (r % 8) * 16 + (r / 8) * (8 * kb) + (c % 16) + (c / 16) * 128
    }
}

struct Gemm {
    ty: Ty,
    m: usize,
    n: usize,
    k: usize,
    f16_d: bool,
    a_tmem: bool,
    sw128: bool,
    /// Negate A (instruction descriptor bit 13).
    neg_a: bool,
    /// The `disable-output-lane` mask and `scale-input-d` of every MMA after the first.
    disable: [u32; 4],
    scale: u8,
    /// Run as two CTAs of a cluster (each the same GEMM), whose CTAs take turns: the Tensor
    /// Memory must outlive a turn.
    cluster: bool,
}

/// The instruction descriptor (ISA table 44).
fn idesc(g: &Gemm) -> u32 {
    let (d, ab) = match g.ty {
        // E4M3 = 0 of .kind::f8f6f4 (table 44).
        Ty::F16 | Ty::E4m3 => (if g.f16_d { 0 } else { 1 }, 0),
        Ty::Tf32 => (1, 2),
        Ty::S8 => (2, 1),
    };
    d << 4
        | ab << 7
        | ab << 10
        | (g.neg_a as u32) << 13
        | ((g.n >> 3) as u32) << 17
        | ((g.m >> 4) as u32) << 24
}

/// Runs `g` on A (M x K) and B (N x K, B's columns) of small integers; returns Tensor Memory
/// lanes 0-127, columns 0..N, as `tcgen05.ld.32x32b` reads them (each warp its 32 lanes).
fn run(g: &Gemm, a: &[i32], b: &[i32]) -> Vec<u32> {
    let eb = g.ty.bytes();
    let kb = g.k * eb;
    let sa_len = (g.m * kb).next_multiple_of(1024);
    let sb_len = (g.n * kb).next_multiple_of(1024);
    let mut img = vec![0u8; sa_len + sb_len];
    let put = |img: &mut [u8], at: usize, v: u32| {
        img[at..at + eb].copy_from_slice(&v.to_le_bytes()[..eb]);
    };
    for r in 0..g.m {
        for c in 0..g.k {
            put(
                &mut img,
                canon(r, c * eb, kb, g.sw128),
                g.ty.enc(a[r * g.k + c]),
            );
        }
    }
    for r in 0..g.n {
        for c in 0..g.k {
            put(
                &mut img,
                sa_len + canon(r, c * eb, kb, g.sw128),
                g.ty.enc(b[r * g.k + c]),
            );
        }
    }
    // A's rows as Tensor Memory holds them (elements packed into 32-bit columns), row r at
    // the lane of D's row r.
    let words = kb / 4;
    let lane_of = |r: usize| {
        if g.m == 128 {
            r
        } else {
            r % 16 + 32 * (r / 16)
        }
    };
    let mut arows = vec![0u32; 128 * words];
    for r in 0..g.m {
        for c in 0..g.k {
            let bit = c * eb * 8;
            arows[lane_of(r) * words + bit / 32] |= g.ty.enc(a[r * g.k + c]) << (bit % 32);
        }
    }
    // Per MMA: K of 32 bytes of A (ISA table 41: K 16, 8 and 32); the descriptors advance by
    // 32 bytes (two core matrices at LBO 128, or inside the swizzle atom).
    let steps = kb / 32;
    let step = if g.sw128 { 32 } else { 256 };
    let ncols = g.n.next_power_of_two().max(32);
    let (lbo, sbo) = if g.sw128 { (16, 1024) } else { (128, 8 * kb) };
    let desc = (lbo as u64 >> 4) << 16 | (sbo as u64 >> 4) << 32 | 1 << 46 | (g.sw128 as u64) << 62;
    let mut mmas = String::new();
    for s in 0..steps {
        let a = if g.a_tmem {
            format!("[%r{}]", 40)
        } else {
            format!("%rd{}", 20 + s)
        };
        let masked = s > 0 && g.disable != [0; 4];
        let (mask, scale) = match s {
            0 => (String::new(), String::new()),
            _ if masked => (
                "{%r30, %r31, %r32, %r33}, ".into(),
                format!(", {}", g.scale),
            ),
            _ if g.scale != 0 => (String::new(), format!(", {}", g.scale)),
            _ => (String::new(), String::new()),
        };
        mmas += &format!(
            "add.s64 %rd{}, %rd10, {};\n add.s64 %rd{}, %rd11, {};\n \
             setp.ne.u32 %p4, {s}, 0;\n \
             @%p3 tcgen05.mma.cta_group::1.kind::{} [%r8], {a}, %rd{}, %r9, {mask}%p4{scale};\n",
            20 + s,
            s * step / 16,
            40 + s,
            s * step / 16,
            g.ty.kind(),
            40 + s,
        );
        if g.a_tmem {
            // The next K step of A is the next 8 columns of Tensor Memory.
            mmas += "add.u32 %r40, %r40, 8;\n";
        }
    }
    let n = g.n;
    // Loads come in powers of two (`.num`); the first N columns are stored.
    let nl = n.next_power_of_two();
    let dregs: Vec<String> = (0..nl).map(|j| format!("%r{}", 100 + j)).collect();
    let stores: String = (0..n)
        .map(|j| format!("st.global.u32 [%rd5+{}], %r{};\n", 4 * j, 100 + j))
        .collect();
    let aregs: Vec<String> = (0..words).map(|j| format!("%r{}", 400 + j)).collect();
    let aloads: String = (0..words)
        .map(|j| format!("ld.global.u32 %r{}, [%rd7+{}];\n", 400 + j, 4 * j))
        .collect();
    let a_store = if g.a_tmem {
        format!(
            "{aloads}
          tcgen05.st.sync.aligned.32x32b.x{words}.b32 [%r41], {{{}}};
          tcgen05.wait::st.sync.aligned;",
            aregs.join(", ")
        )
    } else {
        String::new()
    };
    let total = sa_len + sb_len;
    let src = format!(
        "{HW}.visible .entry g(.param .u64 img, .param .u64 out, .param .u64 arows)
        {{
          .reg .b64 %rd<80>; .reg .b32 %r<500>; .reg .pred %p<8>;
          .shared .align 1024 .b8 sm[{total}];
          .shared .align 8 .b64 bar;
          .shared .align 4 .b32 taddr;
          ld.param.u64 %rd1, [img];
          ld.param.u64 %rd2, [out];
          ld.param.u64 %rd6, [arows];
          mov.u32 %r1, %tid.x;
          shl.b32 %r2, %r1, 2;
          mov.u32 %r3, sm;
        copy:
          setp.ge.u32 %p1, %r2, {total};
          @%p1 bra copied;
          cvt.u64.u32 %rd3, %r2;
          add.s64 %rd4, %rd1, %rd3;
          ld.global.u32 %r4, [%rd4];
          add.u32 %r5, %r3, %r2;
          st.shared.u32 [%r5], %r4;
          add.u32 %r2, %r2, 512;
          bra copy;
        copied:
          setp.lt.u32 %p2, %r1, 32;
          setp.eq.u32 %p3, %r1, 0;
          mov.u32 %r6, taddr;
          mov.u32 %r7, bar;
          // Warp 0 allocates D's columns (and A's after them), then gives up the permit.
          @%p2 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r6], {ncols2};
          @%p2 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
          @%p3 mbarrier.init.shared::cta.b64 [%r7], 1;
          fence.proxy.async.shared::cta;
          tcgen05.fence::before_thread_sync;
          bar.sync 0;
          tcgen05.fence::after_thread_sync;
          ld.shared.b32 %r8, [taddr];
          mov.u32 %r9, {idesc};
          mov.u32 %r30, {m0};
          mov.u32 %r31, {m1};
          mov.u32 %r32, {m2};
          mov.u32 %r33, {m3};
          shr.u32 %r10, %r1, 5;
          shl.b32 %r11, %r10, 21;
          add.u32 %r12, %r8, %r11;
          // A in Tensor Memory: columns {ncols} on, this warp's lanes.
          add.u32 %r40, %r8, {ncols};
          add.u32 %r41, %r12, {ncols};
          mul.wide.u32 %rd8, %r1, {wbytes};
          add.s64 %rd7, %rd6, %rd8;
          {a_store}
          tcgen05.fence::before_thread_sync;
          bar.sync 0;
          tcgen05.fence::after_thread_sync;
          // Descriptors of A and B: start >> 4 in bits 0-13.
          cvt.u64.u32 %rd9, %r3;
          shr.u64 %rd9, %rd9, 4;
          or.b64 %rd10, %rd9, {desc};
          add.s64 %rd11, %rd10, {sb4};
          {mmas}
          mov.u64 %rd12, bar;
          @%p3 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd12];
        wait:
          mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r7], 0;
          @!%p5 bra wait;
          tcgen05.fence::after_thread_sync;
          tcgen05.ld.sync.aligned.32x32b.x{nl}.b32 {{{dregs}}}, [%r12];
          tcgen05.wait::ld.sync.aligned;
          mul.wide.u32 %rd13, %r1, {rowbytes};
          add.s64 %rd5, %rd2, %rd13;
          {stores}
          tcgen05.fence::before_thread_sync;
          bar.sync 0;
          @%p2 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r8, {ncols2};
          ret;
        }}",
        ncols2 = if g.a_tmem { 2 * ncols } else { ncols },
        idesc = idesc(g),
        m0 = g.disable[0],
        m1 = g.disable[1],
        m2 = g.disable[2],
        m3 = g.disable[3],
        wbytes = words * 4,
        sb4 = sa_len / 16,
        rowbytes = 4 * n,
        dregs = dregs.join(", "),
    );
    keep_ptx(
        &format!(
            "{}-{}-{}-{}-{}{}",
            g.ty.kind(),
            g.m,
            g.n,
            g.k,
            g.a_tmem,
            g.sw128
        ),
        &src,
    );
    let m = Module::load(&src, "g.ptx").unwrap_or_else(|e| panic!("{e}"));
    let img = upload(&img);
    let out = upload(&vec![0xdeadu32; 128 * n]);
    let ar = upload(&arows);
    let mut params = img.to_le_bytes().to_vec();
    params.extend_from_slice(&out.to_le_bytes());
    params.extend_from_slice(&ar.to_le_bytes());
    let mut config = cfg(1, 128);
    if g.cluster {
        config.grid = [2, 1, 1];
        config.cluster = [2, 1, 1];
        config.explicit_cluster = true;
    }
    launch(&m.kernel("g").unwrap(), &config, &params).unwrap_or_else(|e| panic!("{e}"));
    let d = download(out, 128 * n);
    for p in [img, out, ar] {
        mem::free(p).unwrap();
    }
    d
}

/// Small integers from a fixed generator, in [-range, range] (or [0, range] unsigned).
fn values(n: usize, seed: u64, range: i32) -> Vec<i32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % (2 * range as u64 + 1)) as i32 - range
        })
        .collect()
}

/// Checks `g` against the integer product, D's row r read from its lane.
fn check(g: &Gemm) {
    let range = if g.ty == Ty::S8 { 100 } else { 3 };
    let a = values(g.m * g.k, 1, range);
    let b = values(g.n * g.k, 2, range);
    let got = run(g, &a, &b);
    let lane_of = |r: usize| {
        if g.m == 128 {
            r
        } else {
            r % 16 + 32 * (r / 16)
        }
    };
    let sign = if g.neg_a { -1 } else { 1 };
    let mut bad = Vec::new();
    for r in 0..g.m {
        for c in 0..g.n {
            // Step by step (32 bytes of K each): a lane the mask disables keeps the first
            // step's D; scale-input-d multiplies D by 2^scale before each later step adds.
            let kstep = 32 / g.ty.bytes();
            let lane = lane_of(r);
            let off = g.disable[lane / 32] >> (lane % 32) & 1 != 0;
            let mut dot = 0i32;
            for s in 0..g.k / kstep {
                if s > 0 && off {
                    break;
                }
                let part: i32 = (s * kstep..(s + 1) * kstep)
                    .map(|k| a[r * g.k + k] * b[c * g.k + k])
                    .sum();
                let kept = if s > 0 { dot << g.scale } else { dot };
                dot = kept + part * sign;
            }
            let want = match (g.ty, g.f16_d) {
                (Ty::S8, _) => dot as u32,
                (_, true) => f16_bits(dot),
                _ => (dot as f32).to_bits(),
            };
            let v = got[lane_of(r) * g.n + c];
            if v != want && bad.len() < 5 {
                bad.push(format!("({r}, {c}): {v:#x} want {want:#x}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "kind::{} M {} N {} K {} (A in TMEM {}, swizzle {}): {bad:?}",
        g.ty.kind(),
        g.m,
        g.n,
        g.k,
        g.a_tmem,
        g.sw128
    );
}

fn gemm(ty: Ty, m: usize, n: usize, k: usize) -> Gemm {
    Gemm {
        ty,
        m,
        n,
        k,
        f16_d: false,
        a_tmem: false,
        sw128: false,
        neg_a: false,
        disable: [0; 4],
        scale: 0,
        cluster: false,
    }
}

#[test]
fn f16_gemm_with_smem_descriptors_commit_and_ld() {
    check(&gemm(Ty::F16, 128, 64, 64));
    check(&Gemm {
        sw128: true,
        ..gemm(Ty::F16, 128, 32, 64)
    });
    check(&Gemm {
        f16_d: true,
        neg_a: true,
        ..gemm(Ty::F16, 128, 16, 32)
    });
}

#[test]
fn tf32_and_i8_gemms() {
    check(&gemm(Ty::Tf32, 128, 24, 32));
    check(&gemm(Ty::S8, 128, 48, 64));
}

#[test]
fn f8f6f4_e4m3_gemms() {
    // Four MMAs of K 32 with the 128-byte swizzle; M 64 with negated A and an f16 D; A from
    // Tensor Memory (8-bit elements, four to a column).
    check(&Gemm {
        sw128: true,
        ..gemm(Ty::E4m3, 128, 24, 128)
    });
    check(&Gemm {
        f16_d: true,
        neg_a: true,
        ..gemm(Ty::E4m3, 64, 16, 64)
    });
    check(&Gemm {
        a_tmem: true,
        ..gemm(Ty::E4m3, 128, 32, 64)
    });
}

#[test]
fn tensor_memory_lasts_across_a_clusters_turns() {
    check(&Gemm {
        cluster: true,
        ..gemm(Ty::F16, 128, 32, 64)
    });
}

#[test]
fn disabled_output_lanes_and_scaled_input_d() {
    // Lanes 3, 40, 64-95 and 127 keep the first step's D; the later steps double D first.
    check(&Gemm {
        disable: [1 << 3, 1 << 8, 0xffff_ffff, 1 << 31],
        scale: 1,
        ..gemm(Ty::F16, 128, 16, 64)
    });
    check(&Gemm {
        disable: [0xffff_0000, 0, 0, 0],
        ..gemm(Ty::F16, 64, 16, 32)
    });
    check(&Gemm {
        scale: 3,
        ..gemm(Ty::Tf32, 128, 8, 16)
    });
}

#[test]
fn m64_rows_sit_in_half_of_each_warps_lanes() {
    check(&gemm(Ty::F16, 64, 32, 32));
}

#[test]
fn a_from_tensor_memory() {
    check(&Gemm {
        a_tmem: true,
        ..gemm(Ty::F16, 128, 32, 32)
    });
}

/// Fills Tensor Memory columns 0-63 of all 128 lanes with `lane << 16 | column` (each warp its
/// 32 lanes, `.32x32b.x64`), then has every warp run `inst` (a load into `{R}` of `nregs`
/// registers from `[%r12]`, the warp's first lane and column 0) and returns each thread's
/// registers.
fn load_shape(inst: &str, nregs: usize) -> Vec<u32> {
    let fill: Vec<String> = (0..64).map(|j| format!("%r{}", 100 + j)).collect();
    let fills: String = (0..64)
        .map(|j| format!("or.b32 %r{}, %r13, {j};\n", 100 + j))
        .collect();
    let regs: Vec<String> = (0..nregs).map(|j| format!("%r{}", 200 + j)).collect();
    let stores: String = (0..nregs)
        .map(|j| format!("st.global.u32 [%rd5+{}], %r{};\n", 4 * j, 200 + j))
        .collect();
    let inst = inst.replace("R", &regs.join(", "));
    let src = format!(
        "{HW}.visible .entry s(.param .u64 out)
        {{
          .reg .b64 %rd<8>; .reg .b32 %r<300>; .reg .pred %p<4>;
          .shared .align 4 .b32 taddr;
          ld.param.u64 %rd2, [out];
          mov.u32 %r1, %tid.x;
          setp.lt.u32 %p2, %r1, 32;
          mov.u32 %r6, taddr;
          @%p2 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r6], 64;
          tcgen05.fence::before_thread_sync;
          bar.sync 0;
          tcgen05.fence::after_thread_sync;
          ld.shared.b32 %r8, [taddr];
          shr.u32 %r10, %r1, 5;
          shl.b32 %r11, %r10, 21;
          add.u32 %r12, %r8, %r11;
          shl.b32 %r13, %r1, 16;
          {fills}
          tcgen05.st.sync.aligned.32x32b.x64.b32 [%r12], {{{fill}}};
          tcgen05.wait::st.sync.aligned;
          {inst};
          tcgen05.wait::ld.sync.aligned;
          mul.wide.u32 %rd3, %r1, {rb};
          add.s64 %rd5, %rd2, %rd3;
          {stores}
          tcgen05.fence::before_thread_sync;
          bar.sync 0;
          @%p2 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r8, 64;
          ret;
        }}",
        fill = fill.join(", "),
        rb = 4 * nregs,
    );
    keep_ptx(&format!("ld-{}", stem(&inst, 40)), &src);
    let m = Module::load(&src, "s.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&vec![0u32; 128 * nregs]);
    launch(&m.kernel("s").unwrap(), &cfg(1, 128), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let d = download(out, 128 * nregs);
    mem::free(out).unwrap();
    d
}

#[test]
fn ld_shapes_place_lanes_and_columns_as_the_isa_figures() {
    // (instruction, registers, (thread t of the warp, register j) -> (lane, column) from the
    // warp's base): ISA figures 183-187 as CUTLASS 4.2's TMEM_LOAD layouts give them.
    type Place = fn(u32, u32) -> (u32, u32);
    let cases: [(&str, usize, Place); 7] = [
        (
            "tcgen05.ld.sync.aligned.32x32b.x4.b32 {R}, [%r12]",
            4,
            |t, j| (t, j),
        ),
        // Lane 8 (t % 2) + t / 4, column t / 2 % 2, the next repetition two columns on.
        (
            "tcgen05.ld.sync.aligned.16x64b.x2.b32 {R}, [%r12]",
            2,
            |t, j| (8 * (t % 2) + t / 4, (t / 2) % 2 + 2 * j),
        ),
        // Lane t / 4 (+8 for the odd register), column t % 4, repetitions 4 columns apart.
        (
            "tcgen05.ld.sync.aligned.16x128b.x2.b32 {R}, [%r12]",
            4,
            |t, j| (t / 4 + 8 * (j % 2), t % 4 + 4 * (j / 2)),
        ),
        // As mma's m16n8 accumulator: registers 0, 1 at lane t / 4, columns 2 (t % 4) + j;
        // 2, 3 eight lanes down; repetitions 8 columns apart.
        (
            "tcgen05.ld.sync.aligned.16x256b.x2.b32 {R}, [%r12]",
            8,
            |t, j| (t / 4 + 8 * (j % 4 / 2), 2 * (t % 4) + j % 2 + 8 * (j / 4)),
        ),
        // Two 16x32b halves: threads 16-31 read from immHalfSplitoff (8) columns further.
        (
            "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {R}, [%r12], 8",
            2,
            |t, j| (t % 16, j + 8 * (t / 16)),
        ),
        // .pack::16b: the low halves of two adjacent columns.
        (
            "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {R}, [%r12]",
            2,
            |t, j| (t, 2 * j),
        ),
        (
            "tcgen05.ld.sync.aligned.16x64b.x1.pack::16b.b32 {R}, [%r12]",
            1,
            |t, _| (8 * (t % 2) + t / 4, 2 * ((t / 2) % 2)),
        ),
    ];
    for (inst, n, place) in cases {
        let got = load_shape(inst, n);
        let pack = inst.contains("pack");
        for tid in 0..128u32 {
            let (w, t) = (tid / 32, tid % 32);
            for j in 0..n as u32 {
                let (lane, col) = place(t, j);
                let cell = |c: u32| (32 * w + lane) << 16 | c;
                let want = if pack {
                    (cell(col) & 0xffff) | (cell(col + 1) & 0xffff) << 16
                } else {
                    cell(col)
                };
                let v = got[(tid * n as u32 + j) as usize];
                assert_eq!(v, want, "{inst}: thread {tid} register {j}");
            }
        }
    }
}

#[test]
fn forms_not_taken_are_refused_at_load_naming_the_instruction() {
    for inst in [
        "tcgen05.mma.cta_group::1.kind::f8f6f4.ashift [%r1], [%r3], %rd2, %r2, %p1;",
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1;",
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;",
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;",
    ] {
        let src = format!(
            "{HW}.visible .entry k()
            {{
              .reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .b16 %rs<4>; .reg .pred %p<4>;
              {inst}
              ret;
            }}"
        );
        keep_ptx(&format!("refused-{}", stem(inst, 50)), &src);
        let e = match Module::load(&src, "k.ptx") {
            Ok(_) => panic!("{inst} loaded"),
            Err(e) => e,
        };
        let name = inst.split(' ').next().unwrap();
        assert_eq!(e.kind, LoadErrorKind::Unsupported, "{inst}: {e}");
        let text = e.to_string();
        assert!(text.contains(&format!("unsupported instruction '{name}")), "{inst}: {e}");
        assert!(text.contains("k.ptx:7:"), "{inst}: {e}");
    }
}

/// The scale vector sizes of ISA table 57: mxf8f6f4 takes 1X (`.block32`), mxf4 2X
/// (`.block32`, the default), mxf4nvf4 2X or 4X (`.block16`) and must name one; the others are
/// invalid PTX. Verdicts of ptxas 13.5 (`-arch=sm_100a`), which agrees on each form but one:
/// it requires `.block_scale`, which the ISA's own example (9.7.16.10.9.1) leaves out and
/// which loads here without it.
#[test]
fn block_scaled_kinds_take_the_scale_vector_sizes_of_table_57() {
    let load = |inst: &str| {
        let src = format!(
            "{HW}.visible .entry k()
            {{
              .reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .pred %p<4>;
              {inst}
              ret;
            }}"
        );
        Module::load(&src, "k.ptx").map(|_| ())
    };
    let ops = "[%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;";
    for q in [
        "mxf8f6f4.block_scale",
        "mxf8f6f4",
        "mxf8f6f4.block_scale.block32",
        "mxf8f6f4.block_scale.scale_vec::1X",
        "mxf4.block_scale",
        "mxf4.block_scale.scale_vec::2X",
        "mxf4nvf4.block_scale.block32",
        "mxf4nvf4.block_scale.block16",
        "mxf4nvf4.block_scale.scale_vec::4X",
    ] {
        let inst = format!("tcgen05.mma.cta_group::1.kind::{q} {ops}");
        assert!(load(&inst).is_ok(), "{inst}");
    }
    for q in [
        "mxf8f6f4.block_scale.scale_vec::2X",
        "mxf8f6f4.block_scale.block16",
        "mxf4.block_scale.scale_vec::4X",
        "mxf4.block_scale.block16",
        "mxf4nvf4.block_scale",
        "mxf4nvf4.block_scale.scale_vec::1X",
    ] {
        let inst = format!("tcgen05.mma.cta_group::1.kind::{q} {ops}");
        let e = load(&inst).expect_err(&inst);
        assert_eq!(e.kind, LoadErrorKind::InvalidPtx, "{inst}: {e}");
        assert!(e.to_string().contains("table 57"), "{inst}: {e}");
    }
}

/// A `.cta_group::2` GEMM of a CTA pair (a cluster of 2 CTAs of 128 threads).
struct PairGemm {
    ty: Ty,
    /// M 128 or 256: each CTA holds M/2 rows of A and D.
    m: usize,
    n: usize,
    k: usize,
    /// The rank of the CTA whose thread 0 issues the MMAs and the commit.
    issuer: u32,
    /// The eight words of `disable-output-lane` of every MMA after the first.
    disable: [u32; 8],
    /// Commit with `.multicast::cluster` to both CTAs' mbarriers (else each CTA's thread 0
    /// waits for a cluster barrier after the issuer's commit to its own mbarrier, and the
    /// issuer's CTA alone waits on it).
    multicast: bool,
    /// A in each CTA's Tensor Memory (columns after D's): M 256, row r in lane r; M 128, row r
    /// in lane r and again in lane 64 + r (CUTLASS's "Duplicated" 2-SM A, mma_traits_sm100.hpp).
    a_tmem: bool,
}

/// Runs `g` on A (M x K) and B (N x K, B's columns) of small integers: CTA v of the pair holds
/// A's rows v M/2.. and B's columns v N/2.. in its shared memory (canonical K-major layout,
/// no swizzle), as CUTLASS 4.2's SM100_MMA_*_2x1SM traits split them (ALayout, BLayout).
/// Returns each CTA's Tensor Memory lanes 0-127, columns 0..N (M 256) or 0..N/2 (M 128), as
/// `tcgen05.ld.32x32b` reads them.
fn run_pair(g: &PairGemm, a: &[i32], b: &[i32]) -> Vec<u32> {
    let eb = g.ty.bytes();
    let kb = g.k * eb;
    let (mh, nh) = (g.m / 2, g.n / 2);
    let sa_len = (mh * kb).next_multiple_of(1024);
    let sb_len = (nh * kb).next_multiple_of(1024);
    let total = sa_len + sb_len;
    let mut img = vec![0u8; 2 * total];
    let put = |img: &mut [u8], at: usize, v: u32| {
        img[at..at + eb].copy_from_slice(&v.to_le_bytes()[..eb]);
    };
    for v in 0..2 {
        for r in 0..mh {
            for c in 0..g.k {
                let at = v * total + canon(r, c * eb, kb, false);
                put(&mut img, at, g.ty.enc(a[(v * mh + r) * g.k + c]));
            }
        }
        for r in 0..nh {
            for c in 0..g.k {
                let at = v * total + sa_len + canon(r, c * eb, kb, false);
                put(&mut img, at, g.ty.enc(b[(v * nh + r) * g.k + c]));
            }
        }
    }
    let dcols = if g.m == 128 { nh } else { g.n };
    let ncols = dcols.next_power_of_two().max(32);
    let desc = (128u64 >> 4) << 16 | ((8 * kb) as u64 >> 4) << 32 | 1 << 46;
    // Each CTA's rows of A as its Tensor Memory lanes hold them (elements packed into 32-bit
    // columns), lane by lane.
    let words = kb / 4;
    let mut arows = vec![0u32; 2 * 128 * words];
    for v in 0..2 {
        for lane in 0..128 {
            let r = lane % mh;
            for c in 0..g.k {
                let bit = c * eb * 8;
                let e = g.ty.enc(a[(v * mh + r) * g.k + c]);
                arows[(v * 128 + lane) * words + bit / 32] |= e << (bit % 32);
            }
        }
    }
    let masked = g.disable != [0; 8];
    let mut mmas = String::new();
    for s in 0..kb / 32 {
        let mask = if s > 0 && masked {
            "{%r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37}, "
        } else {
            ""
        };
        let a_op = if g.a_tmem {
            "[%r40]".to_string()
        } else {
            format!("%rd{}", 20 + s)
        };
        mmas += &format!(
            "add.s64 %rd{a}, %rd10, {o};\n add.s64 %rd{b}, %rd11, {o};\n \
             setp.ne.u32 %p4, {s}, 0;\n \
             @%p7 tcgen05.mma.cta_group::2.kind::{kind} [%r8], {a_op}, %rd{b}, %r9, {mask}%p4;\n",
            a = 20 + s,
            b = 40 + s,
            o = s * 256 / 16,
            kind = g.ty.kind(),
        );
        if g.a_tmem {
            // The next K step of A is the next 8 columns of Tensor Memory.
            mmas += "add.u32 %r40, %r40, 8;\n";
        }
    }
    let aregs: Vec<String> = (0..words).map(|j| format!("%r{}", 400 + j)).collect();
    let a_store = if g.a_tmem {
        let loads: String = (0..words)
            .map(|j| format!("ld.global.u32 %r{}, [%rd7+{}];\n", 400 + j, 4 * j))
            .collect();
        format!(
            "mad.lo.u32 %r42, %r20, 128, %r1;
          mul.wide.u32 %rd8, %r42, {wbytes};
          add.s64 %rd7, %rd6, %rd8;
          {loads}
          tcgen05.st.sync.aligned.32x32b.x{words}.b32 [%r41], {{{}}};
          tcgen05.wait::st.sync.aligned;
          tcgen05.fence::before_thread_sync;
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          tcgen05.fence::after_thread_sync;",
            aregs.join(", "),
            wbytes = 4 * words,
        )
    } else {
        String::new()
    };
    let commit = if g.multicast {
        "mov.u16 %rs1, 3;
          @%p7 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd12], %rs1;"
            .to_string()
    } else {
        // The issuer's own mbarrier; the other CTA arrives on its own after a cluster barrier
        // that follows the issuer's wait.
        "@%p7 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%rd12];
          @!%p6 bra other;
        own:
          mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r7], 0;
          @!%p5 bra own;
        other:
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          @%p6 bra waited;
          @%p3 mbarrier.arrive.shared::cta.b64 _, [%r7];"
            .to_string()
    };
    let nl = dcols.next_power_of_two();
    let dregs: Vec<String> = (0..nl).map(|j| format!("%r{}", 100 + j)).collect();
    let stores: String = (0..dcols)
        .map(|j| format!("st.global.u32 [%rd5+{}], %r{};\n", 4 * j, 100 + j))
        .collect();
    let m = &g.disable;
    let src = format!(
        "{HW}.visible .entry p(.param .u64 img, .param .u64 out, .param .u64 arows)
        {{
          .reg .b64 %rd<80>; .reg .b32 %r<500>; .reg .b16 %rs<4>; .reg .pred %p<8>;
          .shared .align 1024 .b8 sm[{total}];
          .shared .align 8 .b64 bar;
          .shared .align 4 .b32 taddr;
          ld.param.u64 %rd1, [img];
          ld.param.u64 %rd2, [out];
          ld.param.u64 %rd6, [arows];
          mov.u32 %r20, %cluster_ctarank;
          mul.wide.u32 %rd30, %r20, {total};
          add.s64 %rd1, %rd1, %rd30;
          mul.wide.u32 %rd31, %r20, {outbytes};
          add.s64 %rd2, %rd2, %rd31;
          mov.u32 %r1, %tid.x;
          shl.b32 %r2, %r1, 2;
          mov.u32 %r3, sm;
        copy:
          setp.ge.u32 %p1, %r2, {total};
          @%p1 bra copied;
          cvt.u64.u32 %rd3, %r2;
          add.s64 %rd4, %rd1, %rd3;
          ld.global.u32 %r4, [%rd4];
          add.u32 %r5, %r3, %r2;
          st.shared.u32 [%r5], %r4;
          add.u32 %r2, %r2, 512;
          bra copy;
        copied:
          setp.lt.u32 %p2, %r1, 32;
          setp.eq.u32 %p3, %r1, 0;
          setp.eq.u32 %p6, %r20, {issuer};
          and.pred %p7, %p3, %p6;
          mov.u32 %r6, taddr;
          mov.u32 %r7, bar;
          // Warp 0 of each CTA allocates the pair's columns.
          @%p2 tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r6], {ncols2};
          @%p2 tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
          @%p3 mbarrier.init.shared::cta.b64 [%r7], 1;
          fence.proxy.async.shared::cta;
          tcgen05.fence::before_thread_sync;
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          tcgen05.fence::after_thread_sync;
          ld.shared.b32 %r8, [taddr];
          mov.u32 %r9, {idesc};
          mov.u32 %r30, {m0};
          mov.u32 %r31, {m1};
          mov.u32 %r32, {m2};
          mov.u32 %r33, {m3};
          mov.u32 %r34, {m4};
          mov.u32 %r35, {m5};
          mov.u32 %r36, {m6};
          mov.u32 %r37, {m7};
          shr.u32 %r10, %r1, 5;
          shl.b32 %r11, %r10, 21;
          add.u32 %r12, %r8, %r11;
          // A in Tensor Memory: columns {ncols} on, this warp's lanes.
          add.u32 %r40, %r8, {ncols};
          add.u32 %r41, %r12, {ncols};
          {a_store}
          cvt.u64.u32 %rd9, %r3;
          shr.u64 %rd9, %rd9, 4;
          or.b64 %rd10, %rd9, {desc};
          add.s64 %rd11, %rd10, {sb4};
          {mmas}
          mov.u64 %rd12, bar;
          {commit}
        wait:
          mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r7], 0;
          @!%p5 bra wait;
        waited:
          tcgen05.fence::after_thread_sync;
          tcgen05.ld.sync.aligned.32x32b.x{nl}.b32 {{{dregs}}}, [%r12];
          tcgen05.wait::ld.sync.aligned;
          mul.wide.u32 %rd13, %r1, {rowbytes};
          add.s64 %rd5, %rd2, %rd13;
          {stores}
          tcgen05.fence::before_thread_sync;
          barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;
          @%p2 tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r8, {ncols2};
          ret;
        }}",
        ncols2 = if g.a_tmem { 2 * ncols } else { ncols },
        issuer = g.issuer,
        outbytes = 128 * dcols * 4,
        idesc = idesc(&Gemm {
            m: g.m,
            n: g.n,
            ..gemm(g.ty, g.m, g.n, g.k)
        }),
        m0 = m[0],
        m1 = m[1],
        m2 = m[2],
        m3 = m[3],
        m4 = m[4],
        m5 = m[5],
        m6 = m[6],
        m7 = m[7],
        sb4 = sa_len / 16,
        rowbytes = 4 * dcols,
        dregs = dregs.join(", "),
    );
    keep_ptx(
        &format!(
            "pair-{}-{}-{}-{}-{}{}{}",
            g.ty.kind(),
            g.m,
            g.n,
            g.k,
            g.issuer,
            g.multicast,
            g.a_tmem
        ),
        &src,
    );
    let module = Module::load(&src, "p.ptx").unwrap_or_else(|e| panic!("{e}"));
    let img = upload(&img);
    let out = upload(&vec![0xdeadu32; 2 * 128 * dcols]);
    let ar = upload(&arows);
    let mut params = img.to_le_bytes().to_vec();
    params.extend_from_slice(&out.to_le_bytes());
    params.extend_from_slice(&ar.to_le_bytes());
    let mut config = cfg(2, 128);
    config.cluster = [2, 1, 1];
    config.explicit_cluster = true;
    launch(&module.kernel("p").unwrap(), &config, &params).unwrap_or_else(|e| panic!("{e}"));
    let d = download(out, 2 * 128 * dcols);
    for p in [img, out, ar] {
        mem::free(p).unwrap();
    }
    d
}

/// Checks `g` against the integer product: D's row v M/2 + r in CTA v, lane r (M 256), or
/// (M 128, the ISA's layout B, figure 207, as CUTLASS's `tmem_frg_2sm` "2x2" atom places it)
/// columns 0..N/2 in lane r and N/2..N in lane 64 + r.
fn check_pair(g: &PairGemm) {
    let range = if g.ty == Ty::S8 { 100 } else { 3 };
    let a = values(g.m * g.k, 3, range);
    let b = values(g.n * g.k, 4, range);
    let got = run_pair(g, &a, &b);
    let (mh, nh) = (g.m / 2, g.n / 2);
    let dcols = if g.m == 128 { nh } else { g.n };
    let kstep = 32 / g.ty.bytes();
    let mut bad = Vec::new();
    for row in 0..g.m {
        for c in 0..g.n {
            let (v, r) = (row / mh, row % mh);
            let (lane, col) = if g.m == 128 {
                (r + 64 * (c / nh), c % nh)
            } else {
                (r, c)
            };
            let off = g.disable[4 * v + lane / 32] >> (lane % 32) & 1 != 0;
            let steps = if off { 1 } else { g.k / kstep };
            let dot: i32 = (0..steps * kstep)
                .map(|k| a[row * g.k + k] * b[c * g.k + k])
                .sum();
            let want = match g.ty {
                Ty::S8 => dot as u32,
                _ => (dot as f32).to_bits(),
            };
            let got = got[(v * 128 + lane) * dcols + col];
            if got != want && bad.len() < 5 {
                bad.push(format!("({row}, {c}): {got:#x} want {want:#x}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "cta_group::2 kind::{} M {} N {} K {} issued by CTA {}: {bad:?}",
        g.ty.kind(),
        g.m,
        g.n,
        g.k,
        g.issuer
    );
}

fn pair(ty: Ty, m: usize, n: usize, k: usize) -> PairGemm {
    PairGemm {
        ty,
        m,
        n,
        k,
        issuer: 0,
        disable: [0; 8],
        multicast: true,
        a_tmem: false,
    }
}

#[test]
fn cta_pair_gemm_m256_splits_a_b_and_d_between_the_pair() {
    check_pair(&pair(Ty::F16, 256, 32, 32));
    check_pair(&pair(Ty::E4m3, 256, 32, 64));
    check_pair(&PairGemm {
        issuer: 1,
        multicast: false,
        ..pair(Ty::F16, 256, 16, 64)
    });
}

#[test]
fn cta_pair_gemm_m128_uses_layout_b() {
    check_pair(&pair(Ty::F16, 128, 64, 32));
    check_pair(&pair(Ty::S8, 128, 64, 64));
    check_pair(&pair(Ty::E4m3, 128, 32, 64));
    check_pair(&PairGemm {
        issuer: 1,
        ..pair(Ty::Tf32, 128, 32, 16)
    });
}

#[test]
fn cta_pair_gemm_with_a_in_each_ctas_tensor_memory() {
    check_pair(&PairGemm {
        a_tmem: true,
        ..pair(Ty::F16, 256, 32, 32)
    });
    check_pair(&PairGemm {
        a_tmem: true,
        issuer: 1,
        ..pair(Ty::S8, 128, 64, 64)
    });
}

#[test]
fn cta_pair_disable_output_lane_has_a_word_set_per_cta() {
    // Even CTA: lanes 5 and 70; odd CTA: lanes 32-63 and 127 keep the first step's D.
    check_pair(&PairGemm {
        disable: [1 << 5, 0, 1 << 6, 0, 0, 0xffff_ffff, 0, 1 << 31],
        ..pair(Ty::F16, 256, 16, 32)
    });
}

/// Runs `inst` (a `tcgen05.cp` from `[%r8]`, the allocation's lane 0 and column 0, of the
/// matrix at descriptor `%rd10`: `rows` rows of `kb` bytes `src` gives, in the canonical
/// K-major layout without swizzle) by thread 0 after every Tensor Memory cell of columns 0-7
/// was set to `0x8000_0000 | lane << 8 | column`; then, when `shift`, a `tcgen05.shift.down`
/// of lanes 32-63. Returns lanes 0-127, columns 0-7 as `tcgen05.ld.32x32b.x8` reads them.
fn run_cp(inst: &str, rows: usize, kb: usize, src: &[u8], shift: bool) -> Vec<u32> {
    run_cp_in(inst, rows, kb, &[src], shift)
}

/// [`run_cp`] in one CTA (`srcs` of one matrix) or, with two, in a CTA pair (a cluster of 2):
/// CTA v's shared memory holds `srcs[v]`, every `tcgen05` instruction is `.cta_group::2`
/// (`inst` too), thread 0 of CTA 0 issues `inst` (and the shift) and commits to both CTAs'
/// mbarriers; CTA v's lanes follow CTA v - 1's in the result.
fn run_cp_in(inst: &str, rows: usize, kb: usize, srcs: &[&[u8]], shift: bool) -> Vec<u32> {
    let n = srcs.len();
    let mut img = vec![0u8; 4096 * n];
    for (v, src) in srcs.iter().enumerate() {
        for r in 0..rows {
            for c in 0..kb {
                img[4096 * v + canon(r, c, kb, false)] = src[r * kb + c];
            }
        }
    }
    let pair = n == 2;
    let group = if pair { "cta_group::2" } else { "cta_group::1" };
    let sync = if pair {
        "barrier.cluster.arrive.release.aligned;
          barrier.cluster.wait.acquire.aligned;"
    } else {
        "bar.sync 0;"
    };
    let commit = if pair {
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 \
         [%rd12], %rs1;"
    } else {
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd12];"
    };
    let desc = (128u64 >> 4) << 16 | ((8 * kb) as u64 >> 4) << 32 | 1 << 46;
    let fill: Vec<String> = (0..8).map(|j| format!("%r{}", 20 + j)).collect();
    let fills: String = (0..8)
        .map(|j| format!("or.b32 %r{}, %r13, {j};\n", 20 + j))
        .collect();
    let shift = if shift {
        &format!(
            "add.u32 %r30, %r8, 0x200000;
          @%p7 tcgen05.shift.{group}.down [%r30];
          @%p7 {commit}
        wait1:
          mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r7], 1;
          @!%p5 bra wait1;"
        )
    } else {
        ""
    };
    let src = format!(
        "{HW}.visible .entry c(.param .u64 img, .param .u64 out)
        {{
          .reg .b64 %rd<40>; .reg .b32 %r<100>; .reg .b16 %rs<4>; .reg .pred %p<8>;
          .shared .align 1024 .b8 sm[4096];
          .shared .align 8 .b64 bar;
          .shared .align 4 .b32 taddr;
          ld.param.u64 %rd1, [img];
          ld.param.u64 %rd2, [out];
          mov.u32 %r50, %cluster_ctarank;
          mul.wide.u32 %rd30, %r50, 4096;
          add.s64 %rd1, %rd1, %rd30;
          add.s64 %rd2, %rd2, %rd30;
          mov.u16 %rs1, 3;
          mov.u32 %r1, %tid.x;
          shl.b32 %r2, %r1, 2;
          mov.u32 %r3, sm;
        copy:
          setp.ge.u32 %p1, %r2, 4096;
          @%p1 bra copied;
          cvt.u64.u32 %rd3, %r2;
          add.s64 %rd4, %rd1, %rd3;
          ld.global.u32 %r4, [%rd4];
          add.u32 %r5, %r3, %r2;
          st.shared.u32 [%r5], %r4;
          add.u32 %r2, %r2, 512;
          bra copy;
        copied:
          setp.lt.u32 %p2, %r1, 32;
          setp.eq.u32 %p3, %r1, 0;
          setp.eq.u32 %p6, %r50, 0;
          and.pred %p7, %p3, %p6;
          mov.u32 %r6, taddr;
          mov.u32 %r7, bar;
          @%p2 tcgen05.alloc.{group}.sync.aligned.shared::cta.b32 [%r6], 32;
          @%p3 mbarrier.init.shared::cta.b64 [%r7], 1;
          fence.proxy.async.shared::cta;
          tcgen05.fence::before_thread_sync;
          bar.sync 0;
          tcgen05.fence::after_thread_sync;
          ld.shared.b32 %r8, [taddr];
          shr.u32 %r10, %r1, 5;
          shl.b32 %r11, %r10, 21;
          add.u32 %r12, %r8, %r11;
          shl.b32 %r13, %r1, 8;
          or.b32 %r13, %r13, 0x80000000;
          {fills}
          tcgen05.st.sync.aligned.32x32b.x8.b32 [%r12], {{{fill}}};
          tcgen05.wait::st.sync.aligned;
          tcgen05.fence::before_thread_sync;
          {sync}
          tcgen05.fence::after_thread_sync;
          cvt.u64.u32 %rd9, %r3;
          shr.u64 %rd9, %rd9, 4;
          or.b64 %rd10, %rd9, {desc};
          mov.u64 %rd12, bar;
          @%p7 {inst}
          @%p7 {commit}
        wait:
          mbarrier.try_wait.parity.shared::cta.b64 %p5, [%r7], 0;
          @!%p5 bra wait;
          {shift}
          tcgen05.fence::after_thread_sync;
          tcgen05.ld.sync.aligned.32x32b.x8.b32 {{{fill}}}, [%r12];
          tcgen05.wait::ld.sync.aligned;
          mul.wide.u32 %rd13, %r1, 32;
          add.s64 %rd5, %rd2, %rd13;
          st.global.v4.u32 [%rd5], {{%r20, %r21, %r22, %r23}};
          st.global.v4.u32 [%rd5+16], {{%r24, %r25, %r26, %r27}};
          tcgen05.fence::before_thread_sync;
          {sync}
          @%p2 tcgen05.dealloc.{group}.sync.aligned.b32 %r8, 32;
          ret;
        }}",
        fill = fill.join(", "),
    );
    keep_ptx(&format!("cp-{}{}", stem(inst, 50), shift.len()), &src);
    let m = Module::load(&src, "c.ptx").unwrap_or_else(|e| panic!("{e}"));
    let img = upload(&img);
    let out = upload(&vec![0u32; 128 * 8 * n]);
    let mut params = img.to_le_bytes().to_vec();
    params.extend_from_slice(&out.to_le_bytes());
    let mut config = cfg(n as u32, 128);
    if pair {
        config.cluster = [2, 1, 1];
        config.explicit_cluster = true;
    }
    launch(&m.kernel("c").unwrap(), &config, &params).unwrap_or_else(|e| panic!("{e}"));
    let d = download(out, 128 * 8 * n);
    for p in [img, out] {
        mem::free(p).unwrap();
    }
    d
}

/// The bytes of a copied row of `kb` bytes as Tensor Memory holds them, decompressed
/// (`bits` 4 or 6: each 16-byte chunk's first 8 or 12 bytes hold 16 elements, the first in the
/// lowest bits; e2m1 lands in bits 2-5 of its byte, 6-bit types in bits 0-5).
fn cp_row(row: &[u8], bits: usize) -> Vec<u8> {
    if bits == 0 {
        return row.to_vec();
    }
    let bit = |chunk: &[u8], i: usize| (chunk[i / 8] >> (i % 8)) & 1;
    row.chunks(16)
        .flat_map(|chunk| {
            (0..16).map(move |e| {
                let v = (0..bits).fold(0u8, |v, k| v | bit(chunk, bits * e + k) << k);
                if bits == 4 {
                    v << 2
                } else {
                    v
                }
            })
        })
        .collect()
}

#[test]
fn cp_shapes_copy_rows_to_the_lanes_cutlass_gives() {
    // (instruction, source rows, bytes per row, decompression bits, source row -> lanes): the
    // lanes of CUTLASS 4.2's Copy_Traits<SM100_UTCCP_*> (the ISA's figures are pictures).
    type Lanes = fn(usize) -> Vec<usize>;
    let cases: [(&str, usize, usize, usize, Lanes); 8] = [
        (
            "tcgen05.cp.cta_group::1.128x256b [%r8], %rd10;",
            128,
            32,
            0,
            |r| vec![r],
        ),
        (
            "tcgen05.cp.cta_group::1.128x128b [%r8], %rd10;",
            128,
            16,
            0,
            |r| vec![r],
        ),
        (
            "tcgen05.cp.cta_group::1.4x256b [%r8], %rd10;",
            4,
            32,
            0,
            |r| vec![32 * r],
        ),
        (
            "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r8], %rd10;",
            64,
            16,
            0,
            |r| vec![r, r + 64],
        ),
        (
            "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r8], %rd10;",
            64,
            16,
            0,
            |r| {
                let l = r % 32 + 64 * (r / 32);
                vec![l, l + 32]
            },
        ),
        (
            "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r8], %rd10;",
            32,
            16,
            0,
            |r| vec![r, r + 32, r + 64, r + 96],
        ),
        (
            "tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64 [%r8], %rd10;",
            128,
            16,
            4,
            |r| vec![r],
        ),
        (
            "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r8], %rd10;",
            128,
            32,
            6,
            |r| vec![r],
        ),
    ];
    for (inst, rows, kb, bits, lanes) in cases {
        let src: Vec<u8> = (0..rows * kb).map(|i| (i * 37 + 11) as u8).collect();
        let got = run_cp(inst, rows, kb, &src, false);
        let mut want: Vec<u32> = (0..128 * 8)
            .map(|i| 0x8000_0000 | ((i / 8) as u32) << 8 | (i % 8) as u32)
            .collect();
        for r in 0..rows {
            let row = cp_row(&src[r * kb..(r + 1) * kb], bits);
            for lane in lanes(r) {
                for (j, w) in row.chunks(4).enumerate() {
                    want[lane * 8 + j] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                }
            }
        }
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{inst}: lane {} column {}", i / 8, i % 8);
        }
    }
}

#[test]
fn shift_down_moves_31_rows_of_a_warps_lanes_one_lane_down() {
    let src: Vec<u8> = (0..128 * 32).map(|i| (i * 7 + 3) as u8).collect();
    let got = run_cp(
        "tcgen05.cp.cta_group::1.128x256b [%r8], %rd10;",
        128,
        32,
        &src,
        true,
    );
    // Lanes 33-63 hold what lanes 32-62 held; lane 32 and the other warps' lanes keep theirs.
    for lane in 0..128 {
        let from = if (33..64).contains(&lane) {
            lane - 1
        } else {
            lane
        };
        for j in 0..8 {
            let w = &src[from * 32 + 4 * j..][..4];
            let want = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            assert_eq!(got[lane * 8 + j], want, "lane {lane} column {j}");
        }
    }
}

#[test]
fn cta_pair_cp_and_shift_act_in_both_ctas() {
    // Each CTA's Tensor Memory gets the matrix of its own shared memory (the descriptor's
    // addresses in each CTA, as the pair's MMAs read theirs), then lanes 32-62 move down.
    let src0: Vec<u8> = (0..128 * 32).map(|i| (i * 5 + 1) as u8).collect();
    let src1: Vec<u8> = (0..128 * 32).map(|i| (i * 11 + 7) as u8).collect();
    let got = run_cp_in(
        "tcgen05.cp.cta_group::2.128x256b [%r8], %rd10;",
        128,
        32,
        &[&src0, &src1],
        true,
    );
    for (v, src) in [&src0, &src1].into_iter().enumerate() {
        for lane in 0..128 {
            let from = if (33..64).contains(&lane) {
                lane - 1
            } else {
                lane
            };
            for j in 0..8 {
                let w = &src[from * 32 + 4 * j..][..4];
                let want = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                let g = got[(v * 128 + lane) * 8 + j];
                assert_eq!(g, want, "CTA {v} lane {lane} column {j}");
            }
        }
    }
}
