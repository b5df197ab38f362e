//! PTX forms that ptxas 13.5 accepts (or refuses) and whose meaning the ISA or the hardware
//! fixes: the carry flag after sub.cc, cvt to an integral value in bf16, vector registers as
//! call arguments and results and moved whole to scalars, a register plus an immediate as a
//! source, variables declared in function bodies, the 256-bit ld/st of sm_100, and moves whose
//! destinations overlap their sources. Each acceptance or refusal was checked with
//! `ptxas -arch=sm_90` (sm_100 for the 256-bit forms); values come from the ISA's arithmetic,
//! worked out beside them, or from the hardware measurement named. The forms whose values need
//! one launch are file tests (`engine/tests/filetests/`); their refusals stay here.

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
fn cvt_to_an_integral_value_forms_ptxas_refuses() {
    // The values: engine/tests/filetests/half/cvt_integral_bf16_f16.ptx.
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

/// Not a file test: ptxas 13.5 refuses the brace list as an argument (`call (w), f, ({%h1, %h2,
/// %h3, %h4}, 100)`: "Parsing error near '{'"), which the engine takes.
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
fn vector_register_moved_whole_forms_ptxas_refuses() {
    // The values: engine/tests/filetests/move/vector_register_whole_to_scalar.ptx.
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
fn register_plus_immediate_of_a_float_is_refused() {
    // The integer values: engine/tests/filetests/move/register_plus_immediate_source.ptx.
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
fn ld_st_of_256_bits_forms_ptxas_refuses() {
    // The values and the alignment fault: engine/tests/filetests/memory/ld_st_256_bits.ptx and
    // ld_256_bits_misaligned.ptx.
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

/// The release forms of `st.async` and `red.async` (sm_100; ISA 9.7.9.12, 9.7.13.7) are a
/// release store and a release reduction to global memory: `.mmio` (with `.sys`) changes
/// nothing for memory the host holds. ptxas 13.5 accepts each with `-arch=sm_100` and refuses
/// them for sm_90.
#[test]
fn st_async_and_red_async_release_forms() {
    let body = "mov.u32 %r1, 5;\n\
                st.async.release.gpu.global.u32 [%rd1], 41;\n\
                st.async.mmio.release.sys.global.b8 [%rd1+4], 7;\n\
                st.async.release.gpu.global.b64 [%rd1+8], 0x100000002;\n\
                red.async.release.gpu.global.add.u32 [%rd1], %r1;\n\
                red.async.mmio.release.sys.global.add.s64 [%rd1+8], -3;";
    let got = run_sm(100, &kernel(body), 4);
    // 41 + 5; the byte 7 in the second word; 0x100000002 - 3 = 0xffffffff in the low word.
    assert_eq!(got, [46, 7, 0xffff_ffff, 0]);
    refused(90, &kernel("st.async.release.gpu.global.u32 [%rd1], 41;"));
    // "Modifier '.release' requires scope".
    refused(100, &kernel("st.async.release.global.u32 [%rd1], 41;"));
}

/// `st.bulk` (ISA 9.7.9.13, sm_100) writes `size` zero bytes into the CTA's shared memory,
/// through a `.shared::cta` or a generic address, with a 32- or 64-bit size, and nothing
/// around them. ptxas 13.5 accepts these forms with `-arch=sm_100` and refuses st.bulk for
/// sm_90, a non-zero initval and a `.global` state space.
#[test]
fn st_bulk_zeroes_shared_memory() {
    let body = ".shared .align 16 .b8 s[256];\n\
                mov.u32 %r2, s;\n\
                mov.u32 %r3, 0;\n\
                fill: mad.lo.u32 %r4, %r3, 4, %r2;\n\
                st.shared.u32 [%r4], -1;\n\
                add.u32 %r3, %r3, 1;\n\
                setp.lt.u32 %p1, %r3, 64;\n\
                @%p1 bra fill;\n\
                mov.u32 %r1, 64;\n\
                st.bulk.weak.shared::cta [%r2], 64, 0;\n\
                st.bulk.shared::cta [%r2+64], %r1, 0;\n\
                mov.u64 %rd2, s;\n\
                cvta.shared.u64 %rd2, %rd2;\n\
                mov.u64 %rd3, 112;\n\
                st.bulk [%rd2+136], %rd3, 0;\n\
                mov.u32 %r3, 0;\n\
                copy: mad.lo.u32 %r4, %r3, 4, %r2;\n\
                ld.shared.u32 %r5, [%r4];\n\
                mul.wide.u32 %rd4, %r3, 4;\n\
                add.u64 %rd5, %rd1, %rd4;\n\
                st.global.u32 [%rd5], %r5;\n\
                add.u32 %r3, %r3, 1;\n\
                setp.lt.u32 %p1, %r3, 64;\n\
                @%p1 bra copy;";
    let got = run_sm(100, &kernel(body), 64);
    // Words 0-31 (bytes 0-127) zeroed by the first two, 34-61 (bytes 136-247) by the third.
    let want: Vec<u32> = (0..64)
        .map(|w| match w {
            0..=31 | 34..=61 => 0,
            _ => u32::MAX,
        })
        .collect();
    assert_eq!(got, want);
    let k = |inst: &str| {
        kernel(&format!(
            ".shared .align 16 .b8 s[256];\nmov.u32 %r2, s;\n{inst}"
        ))
    };
    refused(90, &k("st.bulk.shared::cta [%r2], 64, 0;"));
    refused(100, &k("st.bulk.shared::cta [%r2], 64, 1;"));
    refused(100, &k("st.bulk.weak.global [%rd1], 64, 0;"));
}
