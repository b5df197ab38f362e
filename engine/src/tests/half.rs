//! Half precision, bfloat16, mixed precision, half comparisons and narrow-format conversions.
//! Every expected bit pattern is worked out from the formats' definitions in the comment beside
//! it: f16 = 1 sign, 5 exponent (bias 15), 10 fraction bits; bf16 = 1, 8 (bias 127), 7;
//! e4m3 = 1, 4 (bias 7), 3, no infinities, NaN 0x7f/0xff, max 448 = 0x7e; e5m2 = 1, 5 (bias
//! 15), 2, IEEE-like, max 57344 = 0x7b; e2m3 = 1, 2 (bias 1), 3, max 7.5 = 0x1f; e3m2 = 1, 3
//! (bias 3), 2, max 28 = 0x1f; e2m1 = 1, 2 (bias 1), 1, max 6 = 0x7; tf32 = f32 with 10
//! fraction bits (low 13 bits zero).

use super::*;

/// Runs `body` in one thread after [`PRO`] and returns the u32 values of `regs`, stored in order.
fn one(body: &str, regs: &[&str]) -> Vec<u32> {
    let st: String = regs
        .iter()
        .enumerate()
        .map(|(k, r)| format!("st.global.b32 [%rd1+{}], {r};\n", 4 * k))
        .collect();
    run_out(
        &format!("{PRO}\n.reg .b16 %h<40>;\n.reg .b32 %s<60>;\n.reg .f32 %q<16>;\n{body}\n{st}"),
        1,
        1,
        regs.len(),
    )
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|k| format!("%s{k}")).collect()
}

fn check(body: &str, want: &[u32]) {
    let n = names(want.len());
    let r: Vec<&str> = n.iter().map(|s| s.as_str()).collect();
    let got = one(body, &r);
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "value {k}: got {g:#x}, want {w:#x}");
    }
}

#[test]
fn f16_ftz_sat_relu_and_packed() {
    let body = r#"
    mov.b16 %h1, 0x0001;                  // 2^-24, least subnormal
    add.f16 %h2, %h1, %h1;                // 2^-23 = 0x0002
    cvt.u32.u16 %s0, %h2;
    add.ftz.f16 %h2, %h1, %h1;            // inputs flushed: +0
    cvt.u32.u16 %s1, %h2;
    mov.b16 %h3, 0x0600;                  // 1.5 * 2^-14
    mov.b16 %h4, 0x0400;                  // 2^-14
    sub.f16 %h2, %h3, %h4;                // 2^-15: subnormal 0x0200
    cvt.u32.u16 %s2, %h2;
    sub.ftz.f16 %h2, %h3, %h4;            // result flushed: +0
    cvt.u32.u16 %s3, %h2;
    mov.b16 %h5, 0x3c00;                  // 1
    add.sat.f16 %h2, %h5, %h5;            // 2 -> 1
    cvt.u32.u16 %s4, %h2;
    mov.b16 %h6, 0xbc00;                  // -1
    mov.b16 %h7, 0x3800;                  // 0.5
    mul.sat.f16 %h2, %h6, %h7;            // -0.5 -> 0
    cvt.u32.u16 %s5, %h2;
    mov.b16 %h8, 0x7e00;                  // NaN
    add.sat.f16 %h2, %h8, %h5;            // NaN -> +0
    cvt.u32.u16 %s6, %h2;
    mov.b16 %h9, 0xc000;                  // -2
    fma.rn.relu.f16 %h2, %h5, %h9, %h7;   // 1*-2+0.5 = -1.5 -> 0
    cvt.u32.u16 %s7, %h2;
    fma.rn.relu.f16 %h2, %h8, %h5, %h7;   // NaN -> canonical 0x7fff
    cvt.u32.u16 %s8, %h2;
    fma.rn.sat.f16 %h2, %h5, %h7, %h7;    // 1*0.5+0.5 = 1 (in range)
    cvt.u32.u16 %s9, %h2;
    mov.b32 %s40, 0x40003c00;             // {hi 2, lo 1}
    mov.b32 %s41, 0x3c003c00;             // {1, 1}
    add.f16x2 %s10, %s40, %s41;           // {3 = 0x4200, 2 = 0x4000}
    mov.b32 %s42, 0x7bff3c00;             // {65504, 1}
    mov.b32 %s43, 0x40004000;             // {2, 2}
    mul.f16x2 %s11, %s42, %s43;           // {inf 0x7c00, 2 0x4000}
    mov.b32 %s44, 0x3c00bc00;             // {1, -1}
    fma.rn.f16x2 %s12, %s41, %s44, %s41;  // {1*1+1 = 2, 1*-1+1 = +0}
    neg.f16x2 %s13, %s44;                 // {-1, 1}
    mov.b32 %s45, 0xbc00bc00;
    abs.f16x2 %s14, %s45;                 // {1, 1}
    sub.f16x2 %s15, %s41, %s40;           // {1-2 = -1, 1-1 = +0}
    mov.b32 %s46, 0x00013c00;             // {2^-24, 1}
    add.ftz.sat.f16x2 %s16, %s46, %s46;   // {flushed: 0, 2 -> 1}
    mov.b32 %s47, 0xbc003c00;             // {-1, 1}
    fma.rn.relu.f16x2 %s17, %s47, %s41, %s47; // {-2 -> 0, 2}
    "#;
    check(
        body,
        &[
            0x0002,
            0x0000,
            0x0200,
            0x0000,
            0x3c00,
            0x0000,
            0x0000,
            0x0000,
            0x7fff,
            0x3c00,
            0x4200_4000,
            0x7c00_4000,
            0x4000_0000,
            0xbc00_3c00,
            0x3c00_3c00,
            0xbc00_0000,
            0x0000_3c00,
            0x0000_4000,
        ],
    );
}

#[test]
fn f16_bf16_min_max_nan_xorsign() {
    let body = r#"
    mov.b16 %h1, 0x7e00;                  // NaN
    mov.b16 %h2, 0x3c00;                  // 1
    min.f16 %h3, %h1, %h2;                // NaN operand: the other, 1
    cvt.u32.u16 %s0, %h3;
    min.NaN.f16 %h3, %h1, %h2;            // canonical NaN 0x7fff
    cvt.u32.u16 %s1, %h3;
    mov.b16 %h4, 0x8000;                  // -0
    mov.b16 %h5, 0x0000;                  // +0
    max.f16 %h3, %h4, %h5;                // +0 > -0: +0
    cvt.u32.u16 %s2, %h3;
    min.f16 %h3, %h5, %h4;                // -0
    cvt.u32.u16 %s3, %h3;
    mov.b16 %h6, 0xc000;                  // -2
    mov.b16 %h7, 0x4200;                  // 3
    min.xorsign.abs.f16 %h3, %h6, %h7;    // min(|-2|,|3|) = 2, sign 1^0: -2 = 0xc000
    cvt.u32.u16 %s4, %h3;
    mov.b16 %h8, 0xc200;                  // -3
    max.xorsign.abs.f16 %h3, %h6, %h8;    // 3, sign 1^1 = 0: 0x4200
    cvt.u32.u16 %s5, %h3;
    mov.b16 %h9, 0x0001;                  // 2^-24
    max.f16 %h3, %h9, %h4;                // 2^-24 > -0: 0x0001
    cvt.u32.u16 %s6, %h3;
    max.ftz.f16 %h3, %h9, %h4;            // flushed to +0 vs -0: +0
    cvt.u32.u16 %s7, %h3;
    mov.b32 %s40, 0x7e004000;             // {NaN, 2}
    mov.b32 %s41, 0x3c003c00;             // {1, 1}
    min.f16x2 %s8, %s40, %s41;            // {1, 1}
    min.NaN.f16x2 %s9, %s40, %s41;        // {0x7fff, 1}
    max.f16x2 %s10, %s40, %s41;           // {1, 2}
    mov.b16 %h10, 0x3f80;                 // bf16 1
    mov.b16 %h11, 0x4000;                 // bf16 2
    min.bf16 %h3, %h10, %h11;             // 0x3f80
    cvt.u32.u16 %s11, %h3;
    mov.b16 %h12, 0xc040;                 // bf16 -3
    max.xorsign.abs.bf16 %h3, %h11, %h12; // 3 with sign 0^1: -3 = 0xc040
    cvt.u32.u16 %s12, %h3;
    mov.b32 %s42, 0x7fc03f80;             // bf16x2 {NaN, 1}
    mov.b32 %s43, 0x40004000;             // {2, 2}
    max.NaN.bf16x2 %s13, %s42, %s43;      // {0x7fff, 2}
    max.bf16x2 %s14, %s42, %s43;          // {2, 2}
    "#;
    check(
        body,
        &[
            0x3c00,
            0x7fff,
            0x0000,
            0x8000,
            0xc000,
            0x4200,
            0x0001,
            0x0000,
            0x3c00_3c00,
            0x7fff_3c00,
            0x3c00_4000,
            0x3f80,
            0xc040,
            0x7fff_4000,
            0x4000_4000,
        ],
    );
}

#[test]
fn bf16_arithmetic_and_approx_functions() {
    let body = r#"
    mov.b16 %h1, 0x3f80;                  // 1
    mov.b16 %h2, 0x3b80;                  // 2^-8: half an ulp of 1 in bf16 (ulp 2^-7)
    add.bf16 %h3, %h1, %h2;               // ties to even: 0x3f80
    cvt.u32.u16 %s0, %h3;
    mov.b16 %h4, 0x3f81;                  // 1 + 2^-7
    add.rn.bf16 %h3, %h4, %h2;            // halfway from odd: 1 + 2^-6 = 0x3f82
    cvt.u32.u16 %s1, %h3;
    mov.b16 %h5, 0x3fc0;                  // 1.5
    mov.b16 %h6, 0x4000;                  // 2
    mul.bf16 %h3, %h5, %h6;               // 3 = 0x4040
    cvt.u32.u16 %s2, %h3;
    mov.b16 %h7, 0xbb80;                  // -2^-8
    fma.rn.bf16 %h3, %h1, %h1, %h7;       // 1 - 2^-8 = 1.1111111b * 2^-1, exact: 0x3f7f
    cvt.u32.u16 %s3, %h3;
    mov.b16 %h8, 0xbf80;                  // -1
    mov.b16 %h9, 0x3f00;                  // 0.5
    fma.rn.relu.bf16 %h3, %h1, %h8, %h9;  // -0.5 -> 0
    cvt.u32.u16 %s4, %h3;
    sub.bf16 %h3, %h1, %h6;               // -1 = 0xbf80
    cvt.u32.u16 %s5, %h3;
    neg.bf16 %h3, %h1;                    // 0xbf80
    cvt.u32.u16 %s6, %h3;
    mov.b32 %s40, 0x3f804000;             // {1, 2}
    mov.b32 %s41, 0x3f803f80;             // {1, 1}
    add.bf16x2 %s7, %s40, %s41;           // {2, 3} = 0x40004040
    mul.bf16x2 %s8, %s40, %s40;           // {1, 4} = 0x3f804080
    fma.rn.bf16x2 %s9, %s40, %s40, %s41;  // {2, 5} = 0x400040a0
    mov.b32 %s42, 0xbf80bf80;
    abs.bf16x2 %s10, %s42;                // 0x3f803f80
    neg.bf16x2 %s11, %s40;                // 0xbf80c000
    mov.b16 %h10, 0x4200;                 // f16 3
    ex2.approx.f16 %h3, %h10;             // 8 = 0x4800
    cvt.u32.u16 %s12, %h3;
    mov.b32 %s43, 0xbc000000;             // f16x2 {-1, 0}
    ex2.approx.f16x2 %s13, %s43;          // {0.5 = 0x3800, 1 = 0x3c00}
    mov.b16 %h11, 0x4040;                 // bf16 3
    ex2.approx.ftz.bf16 %h3, %h11;        // 8 = 0x4100
    cvt.u32.u16 %s14, %h3;
    mov.b16 %h12, 0x7c00;                 // f16 +inf
    tanh.approx.f16 %h3, %h12;            // 1 = 0x3c00
    cvt.u32.u16 %s15, %h3;
    mov.b32 %s44, 0x8000fc00;             // {-0, -inf}
    tanh.approx.f16x2 %s16, %s44;         // {-0, -1} = 0x8000bc00
    mov.b16 %h13, 0x0000;
    tanh.approx.bf16 %h3, %h13;           // +0
    cvt.u32.u16 %s17, %h3;
    "#;
    check(
        body,
        &[
            0x3f80,
            0x3f82,
            0x4040,
            0x3f7f,
            0x0000,
            0xbf80,
            0xbf80,
            0x4000_4040,
            0x3f80_4080,
            0x4000_40a0,
            0x3f80_3f80,
            0xbf80_c000,
            0x4800,
            0x3800_3c00,
            0x4100,
            0x3c00,
            0x8000_bc00,
            0x0000,
        ],
    );
}

#[test]
fn mixed_precision_and_half_compares() {
    let body = r#"
    mov.b16 %h1, 0x3c00;                  // f16 1
    mov.b32 %f1, 0f33800000;              // 2^-24: 1 + 2^-24 is halfway in f32
    add.f32.f16 %s0, %h1, %f1;            // rn: 0x3f800000
    add.rp.f32.f16 %s1, %h1, %f1;         // rp: 0x3f800001
    mov.b16 %h2, 0x4000;                  // bf16 2
    mov.b32 %f2, 0f3F800000;
    sub.f32.bf16 %s2, %h2, %f2;           // 2 - 1 = 1
    mov.b16 %h3, 0x3c01;                  // f16 1 + 2^-10
    mov.b32 %f3, 0;
    fma.rn.f32.f16 %s3, %h3, %h3, %f3;    // 1 + 2^-9 + 2^-20 exactly: 0x3f804008
    fma.rz.sat.f32.bf16 %s4, %h2, %h2, %f3; // 4 -> 1
    mov.b32 %s40, 0x40003c00;             // f16x2 {2, 1}
    mov.b32 %s41, 0x3c004000;             // {1, 2}
    setp.lt.f16x2 %p1|%p2, %s40, %s41;    // lo 1<2 true, hi 2<1 false
    selp.u32 %s5, 1, 0, %p1;
    selp.u32 %s6, 1, 0, %p2;
    setp.le.or.f16x2 %p1|%p2, %s40, %s41, %p1; // c = true: both true
    selp.u32 %s7, 1, 0, %p1;
    selp.u32 %s8, 1, 0, %p2;
    mov.b16 %h4, 0x7fc0;                  // bf16 NaN
    mov.b16 %h5, 0x3f80;
    setp.equ.bf16 %p3, %h4, %h5;          // unordered: true
    selp.u32 %s9, 1, 0, %p3;
    setp.gt.bf16 %p3|%p4, %h5, %h4;       // ordered with NaN: false, complement true
    selp.u32 %s10, 1, 0, %p3;
    selp.u32 %s11, 1, 0, %p4;
    mov.b16 %h6, 0x0001;                  // f16 2^-24
    mov.b16 %h7, 0x8000;                  // -0
    setp.eq.f16 %p5, %h6, %h7;            // false
    selp.u32 %s12, 1, 0, %p5;
    setp.eq.ftz.f16 %p5, %h6, %h7;        // both flushed to zero: true
    selp.u32 %s13, 1, 0, %p5;
    set.lt.f16x2.f16x2 %s14, %s40, %s41;  // {0, 1.0} = 0x00003c00
    set.lt.u32.f16x2 %s15, %s40, %s41;    // {0, 0xffff}
    mov.b32 %f4, 0f3F800000;
    set.eq.u32.f32 %s16, %f4, %f4;        // 0xffffffff
    mov.u32 %s50, -1;
    set.lt.f32.s32 %s17, %s50, 0;         // -1 < 0: 1.0f
    set.lt.bf16.f32 %h8, %f4, %f3;        // 1 < 0 false: 0
    cvt.u32.u16 %s18, %h8;
    set.gt.bf16.f32 %h8, %f4, %f3;        // 1.0 in bf16 = 0x3f80
    cvt.u32.u16 %s19, %h8;
    setp.ne.u32 %p6, %s50, %s50;          // false
    set.eq.and.u32.f32 %s20, %f4, %f4, %p6; // true and false: 0
    set.eq.or.u16.f16 %h8, %h6, %h7, !%p6;  // false or !false: 0xffff
    cvt.u32.u16 %s21, %h8;
    "#;
    check(
        body,
        &[
            0x3f80_0000,
            0x3f80_0001,
            0x3f80_0000,
            0x3f80_4008,
            0x3f80_0000,
            1,
            0,
            1,
            1,
            1,
            0,
            1,
            0,
            1,
            0x0000_3c00,
            0x0000_ffff,
            0xffff_ffff,
            0x3f80_0000,
            0,
            0x3f80,
            0,
            0xffff,
        ],
    );
}

#[test]
fn conversions_bf16_tf32_and_packed_halves() {
    let body = r#"
    mov.b32 %f1, 0f3F800000;              // 1
    mov.b32 %f2, 0f40000000;              // 2
    cvt.rn.f16x2.f32 %s0, %f1, %f2;       // a -> upper: {0x3c00, 0x4000}
    mov.b32 %f3, 0fBF800000;              // -1
    mov.b32 %f4, 0f7FC00000;              // NaN
    cvt.rn.relu.f16x2.f32 %s1, %f3, %f4;  // {0, canonical NaN 0x7fff}
    mov.b32 %f5, 0f49742400;              // 1e6
    mov.b32 %f6, 0fFF800000;              // -inf
    cvt.rn.satfinite.f16x2.f32 %s2, %f5, %f6; // {MAX 0x7bff, -MAX 0xfbff}
    mov.b32 %f7, 0f477FF000;              // 65520: rz -> MAX
    mov.b32 %q8, 0f33800000;              // 2^-24 = f16 0x0001
    cvt.rz.f16x2.f32 %s3, %f7, %q8;       // 0x7bff0001
    mov.b32 %f1, 0f3F808000;              // 1 + 2^-8: halfway between bf16 1 and 1 + 2^-7
    mov.b32 %f2, 0f3F818000;              // 1 + 2^-7 + 2^-8: halfway from an odd one
    cvt.rn.bf16x2.f32 %s4, %f1, %f2;      // {0x3f80, 0x3f82}
    mov.b32 %f1, 0f3F808001;              // just above halfway
    cvt.rn.bf16.f32 %h1, %f1;             // 0x3f81
    cvt.u32.u16 %s5, %h1;
    mov.b32 %f1, 0f3F81FFFF;
    cvt.rz.bf16.f32 %h1, %f1;             // 0x3f81
    cvt.u32.u16 %s6, %h1;
    mov.b16 %h2, 0x3f81;
    cvt.f32.bf16 %s7, %h2;                // 0x3f810000
    mov.b16 %h2, 0x0001;                  // bf16 2^-133 (an f32 subnormal)
    cvt.f32.bf16 %s8, %h2;                // 0x00010000
    cvt.ftz.f32.bf16 %s9, %h2;            // flushed: 0
    mov.b16 %h2, 0xc020;                  // -2.5
    cvt.rzi.s32.bf16 %s10, %h2;           // -2
    cvt.rmi.s32.bf16 %s11, %h2;           // -3
    mov.u32 %s50, 257;                    // halfway between 256 and 258 in bf16
    cvt.rn.bf16.s32 %h1, %s50;            // 256 = 0x4380
    cvt.u32.u16 %s12, %h1;
    cvt.rp.bf16.s32 %h1, %s50;            // 258 = 0x4381
    cvt.u32.u16 %s13, %h1;
    mov.b16 %h2, 0x3c01;                  // f16 1 + 2^-10: under half a bf16 ulp
    cvt.rn.bf16.f16 %h1, %h2;             // 0x3f80
    cvt.u32.u16 %s14, %h1;
    mov.b16 %h2, 0x4780;                  // bf16 65536: past f16 MAX + half ulp
    cvt.rn.f16.bf16 %h1, %h2;             // +inf 0x7c00
    cvt.u32.u16 %s15, %h1;
    mov.b32 %f1, 0f3F801000;              // 1 + 2^-11: half a tf32 ulp
    cvt.rna.tf32.f32 %s16, %f1;           // ties away: 1 + 2^-10 = 0x3f802000
    cvt.rn.tf32.f32 %s17, %f1;            // ties to even: 0x3f800000
    mov.b32 %f1, 0f3F803000;              // 1 + 2^-10 + 2^-11: halfway from odd
    cvt.rn.tf32.f32 %s18, %f1;            // 0x3f804000
    mov.b32 %f1, 0f3F803FFF;
    cvt.rz.tf32.f32 %s19, %f1;            // 0x3f802000
    mov.b32 %f1, 0f7F7FFFFF;              // f32 MAX: rna carries to inf
    cvt.rna.satfinite.tf32.f32 %s20, %f1; // tf32 MAX 0x7f7fe000
    cvt.rna.tf32.f32 %s21, %f1;           // inf 0x7f800000
    cvt.rn.relu.tf32.f32 %s22, %f3;       // -1 -> 0
    mov.b32 %f1, 0f40000000;
    cvt.rn.relu.f16.f32 %h1, %f3;         // -1 -> 0
    cvt.u32.u16 %s23, %h1;
    cvt.rn.satfinite.bf16.f32 %h1, %f6;   // -inf -> -MAX 0xff7f
    cvt.u32.u16 %s24, %h1;
    "#;
    check(
        body,
        &[
            0x3c00_4000,
            0x0000_7fff,
            0x7bff_fbff,
            0x7bff_0001,
            0x3f80_3f82,
            0x3f81,
            0x3f81,
            0x3f81_0000,
            0x0001_0000,
            0,
            (-2i32) as u32,
            (-3i32) as u32,
            0x4380,
            0x4381,
            0x3f80,
            0x7c00,
            0x3f80_2000,
            0x3f80_0000,
            0x3f80_4000,
            0x3f80_2000,
            0x7f7f_e000,
            0x7f80_0000,
            0,
            0,
            0xff7f,
        ],
    );
}

#[test]
fn conversions_fp8_fp6_fp4_and_cvt_pack() {
    let body = r#"
    mov.b32 %f1, 0f43E00000;              // 448 = e4m3 MAX 0x7e
    mov.b32 %f2, 0f3F800000;              // 1 = 0x38 (exponent 7)
    cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;  // a -> upper byte: 0x7e38
    cvt.u32.u16 %s0, %h1;
    mov.b32 %f3, 0f447A0000;              // 1000 -> MAX
    mov.b32 %f4, 0f80000000;              // -0 = 0x80
    cvt.rn.satfinite.e4m3x2.f32 %h1, %f3, %f4;  // 0x7e80
    cvt.u32.u16 %s1, %h1;
    mov.b32 %f5, 0f7FC00000;              // NaN -> 0x7f
    mov.b32 %f6, 0f3D800000;              // 2^-4 = exponent 3: 0x18
    cvt.rn.satfinite.e4m3x2.f32 %h1, %f5, %f6;  // 0x7f18
    cvt.u32.u16 %s2, %h1;
    mov.b32 %f7, 0f3B400000;              // 1.5 * 2^-9: halfway between 0x01 and 0x02
    mov.b32 %q8, 0f3A800000;              // 2^-10: halfway between 0 and 0x01 (2^-9)
    cvt.rn.satfinite.e4m3x2.f32 %h1, %f7, %q8;  // ties to even: 0x0200
    cvt.u32.u16 %s3, %h1;
    mov.b32 %q9, 0fC0000000;              // -2
    mov.b32 %q10, 0f40000000;             // 2 = exponent 8: 0x40
    cvt.rn.satfinite.relu.e4m3x2.f32 %h1, %q9, %q10; // 0x0040
    cvt.u32.u16 %s4, %h1;
    mov.b32 %f1, 0f47600000;              // 57344 = e5m2 MAX 0x7b
    cvt.rn.satfinite.e5m2x2.f32 %h1, %f1, %f3;  // 1000 is in range: 1000 = 1.953125 * 2^9
    cvt.u32.u16 %s5, %h1;                 // 1.953125 -> 2.0 (2 fraction bits): 2^10 = 0x64; 0x7b64
    mov.b32 %f1, 0f7F800000;              // inf -> MAX under satfinite
    cvt.rn.satfinite.e5m2x2.f32 %h1, %f1, %f5;  // {0x7b, NaN 0x7f}
    cvt.u32.u16 %s6, %h1;
    mov.b32 %f1, 0f3FA00000;              // 1.25 = 0x3d
    mov.b32 %f2, 0f3F900000;              // 1.125: halfway between 1 and 1.25 -> 1 = 0x3c
    cvt.rn.satfinite.e5m2x2.f32 %h1, %f1, %f2;  // 0x3d3c
    cvt.u32.u16 %s7, %h1;
    mov.b32 %s40, 0x3c004000;             // f16x2 {1, 2}
    cvt.rn.satfinite.e4m3x2.f16x2 %h1, %s40;    // {0x38, 0x40}
    cvt.u32.u16 %s8, %h1;
    mov.b16 %h2, 0x7e38;                  // e4m3 {448, 1}
    cvt.rn.f16x2.e4m3x2 %s9, %h2;         // {448 = 1.75 * 2^8 = 0x5f00, 0x3c00}
    mov.b16 %h2, 0x7f01;                  // {NaN, 2^-9}
    cvt.rn.f16x2.e4m3x2 %s10, %h2;        // {0x7fff, 2^-9 = 0x1800}
    mov.b16 %h2, 0xb838;                  // {-1, 1}
    cvt.rn.relu.f16x2.e4m3x2 %s11, %h2;   // {0, 0x3c00}
    mov.b16 %h2, 0x7c3c;                  // e5m2 {inf, 1}
    cvt.rn.f16x2.e5m2x2 %s12, %h2;        // {0x7c00, 0x3c00}
    .reg .b8 %e<2>;                       // e2m1x2 is held in 8 bits (ISA 9.7.9.21)
    mov.b32 %f1, 0f40C00000;              // 6 = e2m1 MAX 0x7
    mov.b32 %f2, 0f3F800000;              // 1 = 0x2
    cvt.rn.satfinite.e2m1x2.f32 %e0, %f1, %f2;  // 0x72
    cvt.u32.u8 %s13, %e0;
    mov.b32 %f1, 0f42C80000;              // 100 -> MAX 0x7
    mov.b32 %f2, 0fBF000000;              // -0.5 = subnormal 0x1 with sign: 0x9
    cvt.rn.satfinite.e2m1x2.f32 %e0, %f1, %f2;  // 0x79
    cvt.u32.u8 %s14, %e0;
    mov.b32 %f2, 0f40200000;              // 2.5: halfway between 2 (0x4) and 3 (0x5) -> 0x4
    cvt.rn.satfinite.e2m1x2.f32 %e0, %f5, %f2;  // NaN -> +MAX 0x7: 0x74
    cvt.u32.u8 %s15, %e0;
    mov.b32 %f1, 0f40F00000;              // 7.5 = e2m3 MAX 0x1f
    mov.b32 %f2, 0f3F800000;              // 1 = 0x08
    cvt.rn.satfinite.e2m3x2.f32 %h1, %f1, %f2;  // 0x1f08
    cvt.u32.u16 %s16, %h1;
    mov.b32 %f1, 0fC2C80000;              // -100 -> -MAX 0x3f
    mov.b32 %f2, 0f3E000000;              // 0.125 = least subnormal 0x01
    cvt.rn.satfinite.e2m3x2.f32 %h1, %f1, %f2;  // 0x3f01
    cvt.u32.u16 %s17, %h1;
    mov.b32 %f1, 0f41E00000;              // 28 = e3m2 MAX 0x1f
    mov.b32 %f2, 0f3F800000;              // 1 = 0x0c
    cvt.rn.satfinite.e3m2x2.f32 %h1, %f1, %f2;  // 0x1f0c
    cvt.u32.u16 %s18, %h1;
    mov.b16 %h2, 0x0072;                  // e2m1 {6, 1}
    cvt.u8.u16 %e1, %h2;
    cvt.rn.f16x2.e2m1x2 %s19, %e1;        // {6 = 0x4600, 0x3c00}
    mov.b16 %h2, 0x1f08;                  // e2m3 {7.5, 1}
    cvt.rn.f16x2.e2m3x2 %s20, %h2;        // {7.5 = 1.875 * 2^2 = 0x4780, 0x3c00}
    mov.u32 %s50, 40000;
    mov.u32 %s51, -5;
    cvt.pack.sat.s16.s32 %s21, %s50, %s51;      // {0x7fff, 0xfffb}
    mov.u32 %s52, -1;
    mov.u32 %s53, 70000;
    cvt.pack.sat.u16.s32 %s22, %s52, %s53;      // {0, 0xffff}
    mov.u32 %s54, 300;
    mov.u32 %s55, 7;
    mov.u32 %s56, 0x12345678;
    cvt.pack.sat.u8.s32.b32 %s23, %s54, %s55, %s56; // 0xff07 | c << 16: 0x5678ff07
    mov.u32 %s57, -9;
    mov.u32 %s58, 3;
    mov.u32 %s59, 0xabcdef;
    cvt.pack.sat.s4.s32.b32 %s24, %s57, %s58, %s59; // {-8 = 0x8, 3}: 0x83 | c << 8
    "#;
    check(
        body,
        &[
            0x7e38,
            0x7e80,
            0x7f18,
            0x0200,
            0x0040,
            0x7b64,
            0x7b7f,
            0x3d3c,
            0x3840,
            0x5f00_3c00,
            0x7fff_1800,
            0x0000_3c00,
            0x7c00_3c00,
            0x72,
            0x79,
            0x74,
            0x1f08,
            0x3f01,
            0x1f0c,
            0x4600_3c00,
            0x4780_3c00,
            0x7fff_fffb,
            0x0000_ffff,
            0x5678_ff07,
            0xabcd_ef83,
        ],
    );
}

#[test]
fn packed_halves_divergent_lanes_and_data_movement() {
    // 32 threads: odd lanes add {lane, 1} + {1, lane} as f16x2 (lane < 2048 is exact in f16);
    // even lanes keep the sentinel. mov/ld/st move f16x2 and bf16 as raw bits.
    let body = format!(
        r#"{PRO}
    .reg .b16 %h<8>;
    .reg .b32 %s<8>;
    mov.u32 %s0, 0xdeadbeef;
    and.b32 %r5, %r1, 1;
    setp.eq.u32 %p1, %r5, 1;
    cvt.rn.f16.u32 %h1, %r1;               // lane as f16
    mov.b16 %h2, 0x3c00;                   // 1
    mov.b32 %s1, {{%h2, %h1}};             // (hi lane, lo 1)
    mov.b32 %s2, {{%h1, %h2}};             // (hi 1, lo lane)
    @%p1 add.f16x2 %s0, %s1, %s2;          // (lane + 1, 1 + lane)
    mov.b32 %s3, %s0;                      // raw bits: ptxas has no mov.f16x2
    st.global.b32 [%rd1], %s3;
    "#
    );
    let out = run_out(&body, 1, 32, 32);
    for (l, v) in out.iter().enumerate() {
        if l % 2 == 1 {
            // lane + 1 for odd lanes 1..31 is an integer in 2..32: f16 exponent 15 + e,
            // fraction (x / 2^e - 1) * 1024.
            let x = (l + 1) as u32;
            let e = 31 - x.leading_zeros();
            let h = ((15 + e) << 10) | ((x << 10 >> e) & 0x3ff);
            assert_eq!(*v, h << 16 | h, "lane {l}");
        } else {
            assert_eq!(*v, 0xdead_beef, "lane {l}");
        }
    }
}

#[test]
fn half_forms_the_isa_does_not_allow_are_rejected() {
    for (inst, decl) in [
        ("add.ftz.bf16 %h1, %h1, %h1;", ""),
        ("add.rz.f16 %h1, %h1, %h1;", ""),
        ("fma.rn.sat.relu.f16 %h1, %h1, %h1, %h1;", ""),
        ("ex2.approx.ftz.f16 %h1, %h1;", ""),
        ("min.abs.f16 %h1, %h1, %h1;", ""),
        ("cvt.rs.e4m3x4.f32 %r1, {%f1, %f1, %f1, %f1}, %r1;", ""),
        ("fma.rn.oob.sat.f16 %h1, %h1, %h1, %h1;", ""),
        ("cvt.rn.ue8m0x2.f32 %h1, %f1, %f1;", ""),
    ] {
        let src = format!(
            "{HEAD}.visible .entry k()\n{{\n.reg .b16 %h<2>; .reg .b32 %r<2>; .reg .f32 %f<2>;{decl}\n{inst}\n}}\n"
        );
        let e = Module::load(&src, "h.ptx").unwrap_err();
        assert_eq!(e.kind, LoadErrorKind::Unsupported, "{inst}: {e}");
    }
}

#[test]
fn atom_add_noftz_half_types_with_divergent_lanes() {
    // Out words: [0] f16, [1] f16x2, [2] bf16 (low half), [3] bf16x2, [4] f16 subnormals.
    // Only even lanes (16 of 32) add; every partial sum is exact (small integers, halves).
    let body = format!(
        r#"{PRO}
    .reg .b16 %h<4>;
    .reg .b32 %s<4>;
    ld.param.u64 %rd3, [out];
    and.b32 %r5, %r1, 1;
    setp.eq.u32 %p1, %r5, 0;
    mov.b16 %h1, 0x3c00;                  // f16 1
    @%p1 atom.global.add.noftz.f16 %h2, [%rd3], %h1;
    mov.b32 %s1, 0x3c003800;              // f16x2 (hi 1, lo 0.5)
    @%p1 red.global.add.noftz.f16x2 [%rd3+4], %s1;
    mov.b16 %h1, 0x3f80;                  // bf16 1
    @%p1 atom.global.add.noftz.bf16 %h2, [%rd3+8], %h1;
    mov.b32 %s1, 0x3f804000;              // bf16x2 (hi 1, lo 2)
    @%p1 atom.global.add.noftz.bf16x2 %s2, [%rd3+12], %s1;
    mov.b16 %h1, 0x0001;                  // f16 2^-24: kept, not flushed
    @%p1 atom.global.add.noftz.f16 %h2, [%rd3+16], %h1;
    "#
    );
    let out = run_out(&body, 1, 32, 5);
    assert_eq!(
        out,
        vec![
            0x4c00,      // 16 = 2^4: exponent 19 -> 0x4c00
            0x4c00_4800, // (16, 8): 8 = 2^3 -> 0x4800
            0x4180,      // bf16 16 = 2^4: exponent 131 = 0x83 -> 0x4180
            0x4180_4200, // (16, 32): 32 -> exponent 132 = 0x84 -> 0x4200
            0x0010,      // 16 * 2^-24 = 16 subnormal quanta
        ]
    );
}

/// `cvt.rs` (stochastic rounding, PTX 8.7): the truncated value is rounded away from zero when
/// the random bits added to the discarded bits carry out. f32 -> f16 discards 13 fraction bits
/// (random bits: the low 13 of each 16-bit half of rbits, a from the upper half); f32 -> bf16
/// discards 16 (all 16 bits of each half).
#[test]
fn cvt_stochastic_rounding_to_f16x2_and_bf16x2() {
    let body = r#"
    mov.b32 %q1, 0x3F801000;               // 1 + 2^-11: the discarded 13 bits are 0x1000
    mov.b32 %s30, 0x10000FFF;

    cvt.rs.f16x2.f32 %s0, %q1, %q1, %s30; // a: 0x1000+0x1000 carries -> 0x3c01; b: 0x1000+0xfff does not -> 0x3c00
    mov.b32 %q2, 0xBF801000;               // -(1 + 2^-11)
    mov.b32 %s30, 0x1FFF0000;

    cvt.rs.f16x2.f32 %s1, %q2, %q1, %s30; // a: carries, magnitude 0x3c01 -> 0xbc01; b: + 0 -> 0x3c00
    mov.b32 %s30, 0x1FFF0000;

    cvt.rs.relu.f16x2.f32 %s2, %q2, %q1, %s30; // a negative: .relu gives 0
    mov.b32 %s30, 0xE000E000;

    cvt.rs.f16x2.f32 %s3, %q1, %q1, %s30; // only 13 bits of each half count: + 0 -> 0x3c00 twice
    mov.b32 %q3, 0x477FF000;               // 65520 = 65504 (max, 0x7bff) + half an ulp (32)
    mov.b32 %s30, 0x10000000;

    cvt.rs.f16x2.f32 %s4, %q3, %q3, %s30; // a carries past max: inf 0x7c00; b: + 0 -> 0x7bff
    mov.b32 %s30, 0x10000000;

    cvt.rs.satfinite.f16x2.f32 %s5, %q3, %q3, %s30; // .satfinite: MAX_NORM 0x7bff twice
    mov.b32 %q4, 0x33400000;               // 1.5 * 2^-25 = 0.75 of the least f16 subnormal 2^-24
    mov.b32 %s30, 0x080007FF;

    cvt.rs.f16x2.f32 %s6, %q4, %q4, %s30; // 0.75 * 2^13 = 6144: + 2048 carries -> 0x0001; + 2047 -> 0
    mov.b32 %q5, 0x7FC00000;               // NaN: the canonical f16 NaN
    mov.b32 %s30, 0;

    cvt.rs.f16x2.f32 %s7, %q5, %q1, %s30;
    mov.b32 %q6, 0x3F804000;               // 1 + 2^-9: discarded 16 bits 0x4000 (bf16 ulp 2^-7)
    mov.b32 %s30, 0xC000BFFF;

    cvt.rs.bf16x2.f32 %s8, %q6, %q6, %s30; // a: 0x4000 + 0xc000 carries -> 0x3f81; b -> 0x3f80
    "#;
    check(
        body,
        &[
            0x3c01_3c00,
            0xbc01_3c00,
            0x0000_3c00,
            0x3c00_3c00,
            0x7c00_7bff,
            0x7bff_7bff,
            0x0001_0000,
            0x7fff_3c00,
            0x3f81_3f80,
        ],
    );
}

/// The `.ue8m0x2` scale format (PTX 8.6): an unsigned 8-bit exponent, value 2^(e - 127), 0xff
/// NaN, no zero or infinity. To it in .rz (power of two at or below) or .rp (at or above).
#[test]
fn cvt_ue8m0x2_from_f32_and_bf16x2_and_back() {
    let body = r#"
    mov.b32 %q1, 0x40400000;               // 3.0: rz 2^1 -> 128 = 0x80, rp 2^2 -> 0x81
    mov.b32 %q2, 0x3E800000;               // 0.25 = 2^-2 exactly -> 125 = 0x7d either way
    cvt.rz.satfinite.ue8m0x2.f32 %h1, %q1, %q2;
    cvt.u32.u16 %s0, %h1;
    cvt.rp.ue8m0x2.f32 %h1, %q1, %q2;
    cvt.u32.u16 %s1, %h1;
    mov.b32 %q3, 0x7F400000;               // 1.5 * 2^127: rz -> 2^127 = 0xfe; rp -> 2^128, past MAX_NORM
    mov.b32 %q4, 0x7FC00000;               // NaN -> 0xff
    cvt.rz.ue8m0x2.f32 %h1, %q3, %q4;
    cvt.u32.u16 %s2, %h1;
    cvt.rp.ue8m0x2.f32 %h1, %q3, %q4;      // overflow without .satfinite: NaN 0xff
    cvt.u32.u16 %s3, %h1;
    cvt.rp.satfinite.ue8m0x2.f32 %h1, %q3, %q4; // .satfinite: MAX_NORM 0xfe (NaN stays 0xff)
    cvt.u32.u16 %s4, %h1;
    mov.b32 %q5, 0x00000000;               // 0: below 2^-127, the least encoding 0x00
    mov.b32 %q6, 0x7F800000;               // +inf: .satfinite MAX_NORM 0xfe
    cvt.rz.satfinite.ue8m0x2.f32 %h1, %q5, %q6;
    cvt.u32.u16 %s5, %h1;
    mov.b32 %s20, 0x40403F00;              // bf16x2 (hi 3.0, lo 0.5): rz -> (0x80, 0x7e)
    cvt.rz.satfinite.ue8m0x2.bf16x2 %h1, %s20;
    cvt.u32.u16 %s6, %h1;
    mov.b32 %s21, 0x3FC03F81;              // (1.5, 1 + 2^-7): rp -> (2^1 0x80, 2^1 0x80)
    cvt.rp.ue8m0x2.bf16x2 %h1, %s21;
    cvt.u32.u16 %s7, %h1;
    mov.b16 %h2, 0x807F;                   // (2^1, 2^0) -> bf16 (0x4000, 0x3f80)
    cvt.rn.bf16x2.ue8m0x2 %s8, %h2;
    mov.b16 %h3, 0x00FF;                   // (2^-127: bf16 subnormal 2^6 * 2^-133 = 0x0040, NaN 0x7fff)
    cvt.rn.bf16x2.ue8m0x2 %s9, %h3;
    "#;
    check(
        body,
        &[
            0x807d,
            0x817d,
            0xfeff,
            0xffff,
            0xfeff,
            0x00fe,
            0x807e,
            0x8080,
            0x4000_3f80,
            0x0040_7fff,
        ],
    );
}

/// `fma.rn.oob{.relu}` (PTX 8.1) on values that are not the OOB-NaN of tensor copies: the fused
/// multiply-add of each element, rounded once.
#[test]
fn fma_oob_on_ordinary_values_is_the_fused_multiply_add() {
    let body = r#"
    mov.b16 %h1, 0x3E00;                   // f16 1.5
    mov.b16 %h2, 0x4000;                   // 2
    mov.b16 %h3, 0x3400;                   // 0.25
    fma.rn.oob.f16 %h4, %h1, %h2, %h3;     // 3.25 = 1.625 * 2^1 -> 0x4280
    cvt.u32.u16 %s0, %h4;
    mov.b16 %h5, 0xBE00;                   // -1.5
    fma.rn.oob.relu.f16 %h4, %h5, %h2, %h3; // -2.75: .relu -> 0
    cvt.u32.u16 %s1, %h4;
    mov.b32 %s10, 0x3F804000;              // bf16x2 (1, 2)
    mov.b32 %s11, 0x40403F00;              // (3, 0.5)
    mov.b32 %s12, 0x3F00C000;              // (0.5, -2)
    fma.rn.oob.bf16x2 %s2, %s10, %s11, %s12; // (3.5 = 0x4060, -1 = 0xbf80)
    fma.rn.oob.relu.bf16x2 %s3, %s10, %s11, %s12; // (3.5, 0)
    "#;
    check(body, &[0x4280, 0, 0x4060_bf80, 0x4060_0000]);
}

/// `cvt.rs` to the x4 formats (PTX 8.7): d = {a, b, e, f} from the top. The byte formats take
/// 16 random bits per pair (`a, b` share rbits[31:16], `e, f` rbits[15:0]); e2m1x4 one byte
/// each (a rbits[31:24], b rbits[15:8], e rbits[23:16], f rbits[7:0]). The random bits meet the
/// top of the discarded bits (20 for f32 -> e4m3/e2m3, 21 for e5m2/e3m2, 22 for e2m1).
#[test]
fn cvt_stochastic_rounding_to_the_x4_formats() {
    let body = r#"
    mov.b32 %q1, 0x3F880000;               // 1.0625 = 1 + half an e4m3/e2m3 ulp (2^-3)
    mov.b32 %q2, 0xBF880000;               // -1.0625
    mov.b32 %s30, 0x80007FFF;              // a, b: 0x8000 + 0x8000 carries; e, f: 0x7fff does not
    cvt.rs.satfinite.e4m3x4.f32 %s0, {%q1, %q1, %q1, %q2}, %s30; // 1.125 0x39, 0x39, 1.0 0x38, -1.0 0xb8
    cvt.rs.relu.satfinite.e4m3x4.f32 %s1, {%q1, %q2, %q1, %q2}, %s30; // 0x39, 0, 0x38, 0
    mov.b32 %q3, 0x3F900000;               // 1.125 = 1 + half an e5m2 ulp (2^-2)
    mov.b32 %q4, 0x476A6000;               // 60000: between e5m2 MAX 57344 (0x7b) and 2^16
    mov.b32 %q5, 0x7FC00000;               // NaN: e5m2 NaN 0x7f
    mov.b32 %q6, 0x80000000;               // -0: 0x80
    mov.b32 %s31, 0x80000000;
    cvt.rs.satfinite.e5m2x4.f32 %s2, {%q3, %q4, %q5, %q6}, %s31; // 1.25 0x3d, 0x7b, 0x7f, 0x80
    mov.b32 %q7, 0xC0FCCCCD;               // -7.9: truncates to -7.5 (0x1f, sign 0x20); 0.8 ulp + 0 no carry
    mov.b32 %q8, 0x42C80000;               // 100: beyond e2m3 MAX 7.5 -> 0x1f
    cvt.rs.satfinite.e2m3x4.f32 %s3, {%q1, %q1, %q7, %q8}, %s31; // 0x09, 0x09, 0x3f, 0x1f
    mov.b32 %q9, 0x3D400000;               // 0.046875 = 0.75 of the least e3m2 subnormal 2^-4
    mov.b32 %s32, 0x40003FFF;              // a, b: 0xc000 + 0x4000 carries -> 0x01; e, f: + 0x3fff -> 0
    cvt.rs.satfinite.e3m2x4.f32 %s4, {%q9, %q9, %q9, %q9}, %s32;
    mov.b32 %q10, 0x3FA00000;              // 1.25 = 1 + half an e2m1 ulp (2^-1): top discarded byte 0x80
    mov.b32 %s33, 0x807F7F80;              // a 0x80 carries (1.5 = 0x3), b 0x7f (1.0 = 0x2), e 0x7f, f 0x80
    cvt.rs.satfinite.e2m1x4.f32 %h1, {%q10, %q10, %q10, %q10}, %s33; // d is .b16 for e2m1x4
    cvt.u32.u16 %s5, %h1;
    mov.b32 %q11, 0x40E00000;              // 7.0: 6 (0x7), or past MAX 6 when rounded up: 0x7
    mov.b32 %s34, 0xFFFFFFFF;
    cvt.rs.satfinite.e2m1x4.f32 %h2, {%q11, %q11, %q10, %q10}, %s34; // 0x7, 0x7, 0x3, 0x3
    cvt.u32.u16 %s6, %h2;
    "#;
    check(
        body,
        &[
            0x3939_38b8,
            0x3900_3800,
            0x3d7b_7f80,
            0x0909_3f1f,
            0x0101_0000,
            0x3223,
            0x7733,
        ],
    );
}
