//! Mixed precision and half comparisons, and the half forms the ISA refuses (the other half,
//! bfloat16 and narrow-format cases are file tests: `engine/tests/filetests/half/`).
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

/// Not a file test: ptxas 13.5 refuses its `setp.gt.bf16 %p3|%p4` ("Predicate output not
/// allowed"; the scalar setp has one destination), which the engine takes.
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
