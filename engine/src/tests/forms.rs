//! PTX forms that ptxas 13.5 accepts (or refuses) and whose meaning the ISA or the hardware
//! fixes: the carry flag after sub.cc, cvt to an integral value in bf16, vector registers as
//! call arguments and results and moved whole to scalars, a register plus an immediate as a
//! source, variables declared in function bodies, the 256-bit ld/st of sm_100, and moves whose
//! destinations overlap their sources. Each acceptance or refusal was checked with
//! `ptxas -arch=sm_90` (sm_100 for the 256-bit forms); values come from the ISA's arithmetic,
//! worked out beside them, or from the hardware measurement named.

use super::*;

/// Loads `module` (after `.version`, `.target sm_<sm>`, `.address_size`), runs its kernel `k`
/// in one thread with an output buffer of `n` u32 words, and returns them.
fn run_sm(sm: u32, module: &str, n: usize) -> Vec<u32> {
    let src = format!(".version 9.0\n.target sm_{sm}\n.address_size 64\n{module}");
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&vec![0u32; n]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 1), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r = download(out, n);
    mem::free(out).unwrap();
    r
}

/// A kernel `k(.param .u64 out)` with `%rd1` = out (global) and some registers, around `body`.
fn kernel(body: &str) -> String {
    format!(
        ".visible .entry k(.param .u64 out)\n{{\n\
         .reg .pred %p<4>; .reg .b16 %h<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .f32 %f<4>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n{body}\nret;\n}}\n"
    )
}

/// The load error of `module` at `.target sm_<sm>`, which must be InvalidPtx.
fn refused(sm: u32, module: &str) -> String {
    let src = format!(".version 9.0\n.target sm_{sm}\n.address_size 64\n{module}");
    let e = Module::load(&src, "t.ptx")
        .err()
        .unwrap_or_else(|| panic!("accepted:\n{module}"));
    assert_eq!(e.kind, LoadErrorKind::InvalidPtx, "{e}");
    e.to_string()
}

#[test]
fn carry_flag_after_sub_is_not_borrow_as_measured_on_h100() {
    // Measured on NVIDIA H100 (driver 580.159), 2026-11-25 (the program is the `carry` and
    // `issue_case` kernels of tests/cuda/isa_ptx_forms.cu): after sub.cc, CC.CF is the carry
    // out of a + ~b + 1, so 1 means no borrow; subc computes a + ~b + CF.
    let body = r#"
    sub.cc.u32 %r2, 5, 3;   addc.u32 %r3, 0, 0;      // 1: no borrow
    sub.cc.u32 %r2, 3, 5;   addc.u32 %r4, 0, 0;      // 0: borrow
    sub.cc.u32 %r2, 0, 0;   addc.u32 %r5, 0, 0;      // 1
    add.cc.u32 %r2, 5, 3;   subc.u32 %r6, 0, 0;      // CF 0: 0 + ~0 + 0 = 0xffffffff
    sub.cc.u32 %r2, 5, 3;   subc.u32 %r7, 0, 0;      // CF 1: 0 + ~0 + 1 = 0
    // sub.cc 5, 3 (CF 1); subc.cc 3, 5 = 3 + ~5 + 1 = 0xfffffffe, no carry out (CF 0)
    sub.cc.u32 %r2, 5, 3;   subc.cc.u32 %r8, 3, 5;   addc.u32 %r9, 0, 0;
    // the issue's case: a = 0xdc2e1080, b = 0, c = 0
    add.cc.u32 %r12, 0xffffffff, 1;
    sub.cc.s32 %r10, 0x627ADF75, 0x864CCEF5;
    addc.u32 %r11, 0, 0;
    // 64 bits: (3 << 32 | 5) - (5 << 32 | 3) borrows: CF 0, subc 0 - 0 - 1 = all ones
    sub.cc.u64 %rd2, 0x0000000300000005, 0x0000000500000003;
    subc.u64 %rd3, 0, 0;
    cvt.u32.u64 %r13, %rd3;
    sub.cc.u64 %rd2, 0x0000000500000003, 0x0000000300000005;
    addc.u64 %rd4, 0, 0;
    cvt.u32.u64 %r14, %rd4;
    "#;
    let stores: String = (3..15)
        .map(|r| format!("st.global.u32 [%rd1+{}], %r{r};\n", 4 * (r - 3)))
        .collect();
    let out = run_sm(80, &kernel(&format!("{body}{stores}")), 12);
    assert_eq!(
        out,
        vec![
            1,
            0,
            1,
            0xffff_ffff,
            0,
            0xffff_fffe,
            0,
            0xdc2e_1080,
            0,
            0,
            0xffff_ffff,
            1
        ]
    );
}

#[test]
fn cvt_to_an_integral_value_in_bf16_and_f16() {
    // bf16 1.75 = 0x3fe0, -2.5 = 0xc020, 0.5 = 0x3f00; f16 -1.5 = 0xbe00.
    let body = r#"
    mov.b16 %h1, 0x3fe0;
    cvt.rzi.bf16.bf16 %h2, %h1;  cvt.u32.u16 %r2, %h2;   // 1.0  = 0x3f80
    cvt.rni.bf16.bf16 %h2, %h1;  cvt.u32.u16 %r3, %h2;   // 2.0  = 0x4000
    mov.b16 %h1, 0xc020;
    cvt.rni.bf16.bf16 %h2, %h1;  cvt.u32.u16 %r4, %h2;   // tie to even: -2.0 = 0xc000
    cvt.rmi.bf16.bf16 %h2, %h1;  cvt.u32.u16 %r5, %h2;   // -3.0 = 0xc040
    cvt.rpi.bf16.bf16 %h2, %h1;  cvt.u32.u16 %r6, %h2;   // -2.0 = 0xc000
    mov.b16 %h1, 0x3f00;
    cvt.rpi.bf16.bf16 %h2, %h1;  cvt.u32.u16 %r7, %h2;   // 1.0 = 0x3f80
    cvt.bf16.bf16 %h2, %h1;      cvt.u32.u16 %r8, %h2;   // no rounding: a copy, 0x3f00
    mov.b16 %h1, 0xbe00;
    cvt.rmi.f16.f16 %h2, %h1;    cvt.u32.u16 %r9, %h2;   // -2.0 = 0xc000
    cvt.rpi.sat.f16.f16 %h2, %h1; cvt.u32.u16 %r10, %h2; // -1.0 saturated to 0
    st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
    st.global.v4.u32 [%rd1+16], {%r6, %r7, %r8, %r9};
    st.global.u32 [%rd1+32], %r10;
    "#;
    let out = run_sm(90, &kernel(body), 9);
    assert_eq!(
        out,
        vec![0x3f80, 0x4000, 0xc000, 0xc040, 0xc000, 0x3f80, 0x3f00, 0xc000, 0]
    );
    // ptxas 13.5: "Feature 'cvt with .bf16.bf16' requires .target sm_90 or higher"; no .sat or
    // .ftz with bf16.bf16, no float rounding; .ftz only when a type is .f32.
    let e = refused(80, &kernel("cvt.rzi.bf16.bf16 %h1, %h2;"));
    assert!(e.contains("requires .target sm_90"), "{e}");
    for bad in [
        "cvt.rzi.sat.bf16.bf16 %h1, %h2;",
        "cvt.rni.ftz.bf16.bf16 %h1, %h2;",
        "cvt.rn.bf16.bf16 %h1, %h2;",
        "cvt.rni.ftz.f16.f16 %h1, %h2;",
        "cvt.rzi.ftz.s32.f64 %r1, %rd1;",
    ] {
        refused(90, &kernel(bad));
    }
}

#[test]
fn vector_registers_as_call_arguments_and_results() {
    let module = r#"
    .func (.reg .v4 .u16 r) f(.reg .v4 .u16 a, .reg .u32 s)
    {
        .reg .b16 %t;
        cvt.u16.u32 %t, s;
        add.u16 %t, %t, a.x;
        mov.v4.u16 r, {a.w, a.z, a.y, %t};
        ret;
    }
    .func (.reg .v2 .u32 r) g(.reg .v2 .u32 a)
    {
        add.u32 r.x, a.x, a.y;
        sub.u32 r.y, a.x, a.y;
        ret;
    }
    "#;
    // f((1,2,3,4), 10) = (4,3,2,11); f((5,6,7,8), 100) = (8,7,6,105); g((9,5)) = (14,4): an
    // argument is a vector register, a brace list or a scalar of the same width (first
    // element lowest), and so is a result (not a brace list: ptxas refuses that).
    let body = r#"
    .reg .v4 .u16 v; .reg .v4 .u16 w; .reg .v2 .u32 x;
    mov.v4.u16 v, {1, 2, 3, 4};
    call (w), f, (v, 10);
    st.global.v4.u16 [%rd1], w;
    mov.u16 %h1, 5; mov.u16 %h2, 6; mov.u16 %h3, 7; mov.u16 %h4, 8;
    call (w), f, ({%h1, %h2, %h3, %h4}, 100);
    st.global.v4.u16 [%rd1+8], w;
    mov.b64 %rd2, 0x0000000500000009;
    call (%rd3), g, (%rd2);
    st.global.u64 [%rd1+16], %rd3;
    call (x), g, (%rd2);
    st.global.v2.u32 [%rd1+24], x;
    "#;
    let out = run_sm(90, &format!("{module}{}", kernel(body)), 8);
    assert_eq!(
        out,
        vec![
            0x0003_0004,
            0x000b_0002,
            0x0007_0008,
            0x0069_0006,
            14,
            4,
            14,
            4
        ]
    );
    // ptxas 13.5 refuses a brace list as a result, and an argument or result of another
    // shape or width ("Type of argument does not match formal parameter").
    for bad in [
        ".reg .v4 .u16 v; call ({%h1,%h2,%h3,%h4}), f, (v, 1);",
        ".reg .v4 .u16 w; .reg .v2 .u16 x; call (w), f, (x, 1);",
        ".reg .v4 .u16 w; call (w), f, (%r1, 1);",
        ".reg .v4 .u16 v; call (%r1), f, (v, 1);",
        ".reg .v2 .u32 x; call (x), g, (%r1);",
    ] {
        refused(90, &format!("{module}{}", kernel(bad)));
    }
}

#[test]
fn vector_register_moved_whole_to_and_from_a_scalar() {
    let body = r#"
    .reg .v2 .u32 v; .reg .v2 .b16 w; .reg .v4 .b16 q;
    mov.v2.u32 v, {0x11111111, 0x22222222};
    mov.b64 %rd2, v;                          // element 0 lowest: 0x2222222211111111
    st.global.u64 [%rd1], %rd2;
    mov.b32 %r1, 0xaaaabbbb;
    mov.b32 w, %r1;                           // w.x = 0xbbbb, w.y = 0xaaaa
    st.global.v2.b16 [%rd1+8], w;
    mov.b32 %r2, w;
    st.global.u32 [%rd1+12], %r2;
    mov.b64 v, 0x4444444433333333;
    st.global.v2.u32 [%rd1+16], v;
    mov.b64 q, %rd2;
    st.global.v4.b16 [%rd1+24], q;
    "#;
    let out = run_sm(90, &kernel(body), 8);
    assert_eq!(
        out,
        vec![
            0x1111_1111,
            0x2222_2222,
            0xaaaa_bbbb,
            0xaaaa_bbbb,
            0x3333_3333,
            0x4444_4444,
            0x1111_1111,
            0x2222_2222
        ]
    );
    // ptxas 13.5 refuses other types and widths and vector-to-vector forms.
    for bad in [
        "mov.u64 %rd2, v;",
        "mov.f64 %rd2, v;",
        "mov.b32 %r2, v;",
        "mov.b64 {%r1, %r2}, v;",
        "mov.b64 v, %r1;",
        "add.u64 %rd2, v, 1;",
    ] {
        refused(90, &kernel(&format!(".reg .v2 .u32 v;\n{bad}")));
    }
}

#[test]
fn register_plus_immediate_source_operands() {
    // ptxas assembles `r + imm` in a source as the sum in the operand's type (the same machine
    // code as add.tN first): 2^64 - 1 + 1 wraps to 0, 0xffffffff + 1 + 3 = 3 in .u32.
    let body = r#"
    mov.u64 %rd2, -1;
    st.global.u64 [%rd1], %rd2 + 1;
    mov.u32 %r2, 0xffffffff;
    add.u32 %r3, %r2+1, 3;
    st.global.u32 [%rd1+8], %r3;
    st.global.u32 [%rd1+12], %r2 + -2;
    setp.eq.u32 %p1, %r2+1, 0;
    selp.u32 %r4, 7, 9, %p1;
    st.global.u32 [%rd1+16], %r4;
    "#;
    let out = run_sm(80, &kernel(body), 5);
    assert_eq!(out, vec![0, 0, 3, 0xffff_fffd, 7]);
    // A float or predicate operand: ptxas takes the syntax, but the code it emits drops the
    // store, so the shim refuses it.
    refused(80, &kernel("st.global.f32 [%rd1], %f1 + 1;"));
}

#[test]
fn global_and_const_variables_declared_in_functions() {
    // One instance for the module (initialised once), shared by every caller and kernel;
    // visible only in its scope.
    let module = r#"
    .func (.reg .u32 r) bump()
    {
        .global .align 4 .u32 count[2] = {40, 2};
        .reg .u64 a;
        mov.u64 a, count;
        atom.global.add.u32 r, [a+4], 1;
        ret;
    }
    .visible .entry k2(.param .u64 out)
    {
        .reg .b32 %r<2>;
        call (%r1), bump, ();
        ret;
    }
    "#;
    let body = r#"
    .const .u32 tab[3] = {5, 6, 7};
    ld.const.u32 %r1, [tab+8];
    call (%r2), bump, ();
    call (%r3), bump, ();
    { .global .u32 inner = 9; ld.global.u32 %r4, [inner]; }
    st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
    "#;
    let src = format!(
        ".version 9.0\n.target sm_80\n.address_size 64\n{module}{}",
        kernel(body)
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    assert!(m.global("count").is_none() && m.global("tab").is_none());
    launch(&m.kernel("k2").unwrap(), &cfg(1, 1), &0u64.to_le_bytes()).unwrap();
    let out = upload(&[0u32; 4]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 1), &out.to_le_bytes()).unwrap();
    // k2 took 2 -> 3; then k's two calls see 3 and 4.
    assert_eq!(download::<u32>(out, 4), vec![7, 3, 4, 9]);
    mem::free(out).unwrap();
    // Outside its block the name is unknown (ptxas: "Illegal operand type").
    refused(
        80,
        &kernel("{ .global .u32 gg = 5; } ld.global.u32 %r1, [gg];"),
    );
}

#[test]
fn ld_st_of_256_bits_on_sm_100() {
    let body = r#"
    st.global.v8.b32 [%rd1], {1, 2, 3, 4, 5, 6, 7, 8};
    ld.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];
    st.global.v8.b32 [%rd1+32], {%r7, %r6, %r5, %r4, %r3, %r2, %r1, %r0};
    ld.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];           // generic addressing
    st.global.v4.u64 [%rd1+64], {%rd5, %rd4, %rd3, %rd2};
    st.global.v8.f32 [%rd1+96], {%r0, _, %r0, _, %r0, _, %r0, _};  // `_`: not written
    ld.global.v8.u32 {%r8, _, _, _, _, _, _, %r9}, [%rd1];
    st.global.v2.u32 [%rd1+128], {%r8, %r9};
    "#;
    let pre = "st.global.v4.u32 [%rd1+96], {99, 99, 99, 99};\n\
               st.global.v4.u32 [%rd1+112], {99, 99, 99, 99};\n";
    let out = run_sm(100, &kernel(&format!("{pre}{body}")), 34);
    let mut want: Vec<u32> = (1..=8).chain((1..=8).rev()).collect();
    want.extend([7, 8, 5, 6, 3, 4, 1, 2]); // 64-bit elements (1|2<<32, ...) reversed
    want.extend([1, 99, 1, 99, 1, 99, 1, 99]);
    want.extend([1, 8]);
    assert_eq!(out, want);

    // A 256-bit access must be 32-byte aligned.
    let src = format!(
        ".version 9.0\n.target sm_100\n.address_size 64\n{}",
        kernel("ld.global.v8.b32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1+16];")
    );
    let m = Module::load(&src, "t.ptx").unwrap();
    let buf = upload(&[0u32; 16]);
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 1), &buf.to_le_bytes()).unwrap_err();
    assert!(e.to_string().contains("misaligned"), "{e}");
    mem::free(buf).unwrap();

    // ptxas 13.5: sm_100 and later only; .global or generic only; .v8 only of 32-bit types,
    // .v4 of 64-bit ones; not ldu; `_` is no source of a narrower store.
    let v8 = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
    let e = refused(90, &kernel(&format!("ld.global.v8.b32 {v8}, [%rd1];")));
    assert!(e.contains("requires .target sm_100"), "{e}");
    refused(
        90,
        &kernel("st.global.v4.b64 [%rd1], {%rd2, %rd3, %rd4, %rd5};"),
    );
    for bad in [
        format!("ld.shared.v8.u32 {v8}, [%rd1];"),
        "ld.local.v4.u64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];".into(),
        format!("ldu.global.v8.b32 {v8}, [%rd1];"),
        "ld.global.v8.u16 {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7}, [%rd1];".into(),
        "st.global.v4.b32 [%rd1], {%r0, _, %r2, %r3};".into(),
    ] {
        refused(100, &kernel(&bad));
    }
}

#[test]
fn moves_read_every_source_before_writing() {
    let body = r#"
    mov.u16 %h0, 1; mov.u16 %h1, 2; mov.u16 %h2, 3; mov.u16 %h3, 4;
    mov.v4.u16 {%h0, %h1, %h2, %h3}, {%h3, %h0, %h1, %h2};   // (4, 1, 2, 3)
    st.global.v4.u16 [%rd1], {%h0, %h1, %h2, %h3};
    mov.u32 %r1, 5; mov.u32 %r2, 6;
    mov.v2.u32 {%r1, %r2}, {%r2, %r1};                       // swap: (6, 5)
    st.global.v2.u32 [%rd1+8], {%r1, %r2};
    mov.b64 %rd2, {%r1, %r2};
    mov.b64 {%r2, %r1}, %rd2;                                // (5, 6) again
    st.global.v2.u32 [%rd1+16], {%r1, %r2};
    mov.u64 %rd3, 32;
    add.u64 %rd3, %rd1, %rd3;
    st.global.u64 [%rd3], %rd3;
    ld.global.v2.u64 {%rd3, %rd4}, [%rd3];                   // the address register reloaded
    sub.u64 %rd5, %rd3, %rd1;
    st.global.u64 [%rd1+48], %rd5;
    "#;
    let out = run_sm(80, &kernel(body), 14);
    assert_eq!(out[..6], [0x0001_0004, 0x0003_0002, 6, 5, 5, 6]);
    assert_eq!(out[12], 32);
}
