//! ISA coverage: directed rounding, extended precision, integer gaps, half precision, system
//! calls. Every expected value is worked out from the ISA's arithmetic in the comment beside it.

use super::*;

/// Runs `body` in one thread (after [`PRO`]) and returns `n` u32 words of `out`.
fn one(body: &str, n: usize) -> Vec<u32> {
    run_out(
        &format!("{PRO}\n.reg .f64 %fd<8>;\n.reg .b16 %h<8>;\n{body}"),
        1,
        1,
        n,
    )
}

/// `st.global.b32 [%rd1+4k], reg` for each register in order.
fn stores(regs: &[&str]) -> String {
    regs.iter()
        .enumerate()
        .map(|(k, r)| format!("st.global.b32 [%rd1+{}], {r};\n", 4 * k))
        .collect()
}

#[test]
fn directed_rounding_f32_add_mul_div_fma_sqrt_rcp() {
    let body = r#"
    mov.b32 %f1, 0f3F800000;          // 1
    mov.b32 %f2, 0f33800000;          // 2^-24: 1 + 2^-24 is halfway to 1 + 2^-23
    add.rn.f32 %r10, %f1, %f2;
    add.rz.f32 %r11, %f1, %f2;
    add.rm.f32 %r12, %f1, %f2;
    add.rp.f32 %r13, %f1, %f2;
    mov.b32 %f3, 0f40400000;          // 3
    div.rz.f32 %r14, %f1, %f3;        // 1/3 = 0x3eaaaaaa.aa..
    div.rp.f32 %r15, %f1, %f3;
    mov.b32 %f4, 0f7F7FFFFF;          // MAX
    mov.b32 %f5, 0f40000000;          // 2
    mul.rz.f32 %r16, %f4, %f5;        // overflow: rz -> MAX
    mul.rp.f32 %r17, %f4, %f5;        // rp -> +inf
    mov.b32 %f6, 0fB0800000;          // -2^-30
    fma.rm.f32 %r18, %f1, %f1, %f6;   // 1 - 2^-30: rm -> 0x3f7fffff
    fma.rn.f32 %r19, %f1, %f1, %f6;   // rn -> 1
    sqrt.rp.f32 %r20, %f5;            // sqrt 2 = 0x3fb504f3.3.. -> rp 0x3fb504f4
    rcp.rz.f32 %r21, %f3;             // 1/3 toward zero
    sub.rm.f32 %r22, %f1, %f1;        // exact zero under rm is -0
    mov.b32 %f7, 0f00000001;          // least subnormal
    add.rz.f32 %r23, %f7, %f7;        // 2^-148 = 0x00000002
    add.rz.ftz.f32 %r24, %f7, %f7;    // inputs flushed: +0
    mul.rz.sat.f32 %r25, %f5, %f3;    // 6 saturates to 1
    mad.rp.f32 %r26, %f1, %f2, %f1;   // 1 + 2^-24 rounded up
    "#;
    let regs: Vec<String> = (10..27).map(|r| format!("%r{r}")).collect();
    let rr: Vec<&str> = regs.iter().map(|s| s.as_str()).collect();
    let out = one(&format!("{body}{}", stores(&rr)), rr.len());
    assert_eq!(
        out,
        vec![
            0x3f80_0000,
            0x3f80_0000,
            0x3f80_0000,
            0x3f80_0001,
            0x3eaa_aaaa,
            0x3eaa_aaab,
            0x7f7f_ffff,
            0x7f80_0000,
            0x3f7f_ffff,
            0x3f80_0000,
            0x3fb5_04f4,
            0x3eaa_aaaa,
            0x8000_0000,
            0x0000_0002,
            0x0000_0000,
            0x3f80_0000,
            0x3f80_0001,
        ]
    );
}

#[test]
fn directed_rounding_f64_and_cvt() {
    let body = r#"
    mov.b64 %fd1, 0d3FF0000000000000;   // 1
    mov.b64 %fd2, 0d3C30000000000000;   // 2^-60: far below half an ulp (2^-53)
    add.rp.f64 %fd3, %fd1, %fd2;        // -> 1 + 2^-52
    add.rm.f64 %fd4, %fd1, %fd2;        // -> 1
    sub.rz.f64 %fd5, %fd1, %fd2;        // -> 1 - 2^-53 = 0x3fefffffffffffff
    mov.b64 {%r10, %r11}, %fd3;
    mov.b64 {%r12, %r13}, %fd4;
    mov.b64 {%r14, %r15}, %fd5;
    mov.u32 %r5, 16777217;              // 2^24 + 1: halfway between two f32
    cvt.rn.f32.s32 %f1, %r5;            // ties to even: 2^24
    cvt.rp.f32.s32 %f2, %r5;            // 2^24 + 2
    neg.s32 %r6, %r5;
    cvt.rm.f32.s32 %f3, %r6;            // -(2^24 + 2)
    cvt.rz.f32.s32 %f4, %r6;            // -2^24
    mov.b64 %fd6, 0d480B5E8A5BD8CC8F;   // ~1.17e39 > f32 MAX
    cvt.rz.f32.f64 %f5, %fd6;           // MAX
    cvt.rn.f32.f64 %f6, %fd6;           // inf
    cvt.rzi.s32.f32 %r16, %f1;          // 16777216
    mov.b64 %rd3, -1;
    cvt.rz.f32.u64 %f7, %rd3;           // 2^64 - 1 toward zero: 0x5f7fffff
    "#;
    let out = one(
        &format!(
            "{body}{}",
            stores(&[
                "%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%f1", "%f2", "%f3", "%f4", "%f5",
                "%f6", "%r16", "%f7"
            ])
        ),
        14,
    );
    assert_eq!(
        out,
        vec![
            1,
            0x3ff0_0000,
            0,
            0x3ff0_0000,
            0xffff_ffff,
            0x3fef_ffff,
            0x4b80_0000,
            0x4b80_0001,
            0xcb80_0001,
            0xcb80_0000,
            0x7f7f_ffff,
            0x7f80_0000,
            16_777_216,
            0x5f7f_ffff,
        ]
    );
}

#[test]
fn extended_precision_carry_chains() {
    let body = r#"
    // 128-bit add: (2^96 - 1) + 1 = 2^96, words low to high.
    add.cc.u32  %r10, 0xffffffff, 1;
    addc.cc.u32 %r11, 0xffffffff, 0;
    addc.cc.u32 %r12, 0xffffffff, 0;
    addc.u32    %r13, 0, 0;
    // 128-bit subtract: 2^96 - 1 = (ffffffff, ffffffff, ffffffff, 0).
    sub.cc.u32  %r14, 0, 1;
    subc.cc.u32 %r15, 0, 0;
    subc.cc.u32 %r16, 0, 0;
    subc.u32    %r17, 1, 0;
    // 0xffffffff * 2 = 0x1_fffffffe; lo + 5 = 0x1_00000003 (carry 1); hi + 7 + 1 = 9.
    mad.lo.cc.u32 %r18, 0xffffffff, 2, 5;
    madc.hi.u32   %r19, 0xffffffff, 2, 7;
    // signed: -1 * 2 = -2, hi word 0xffffffff; + 1 = 2^32: d = 0 and carry 1.
    mad.hi.cc.s32 %r20, -1, 2, 1;
    addc.u32      %r21, 0, 0;
    // 64-bit: (2^64 - 1) + 1 carries into the next word.
    add.cc.u64    %rd3, -1, 1;
    addc.u64      %rd4, 0, 0;
    cvt.u32.u64   %r22, %rd3;
    cvt.u32.u64   %r23, %rd4;
    // madc.lo without .cc leaves the flag alone: carry from this add.cc is consumed twice.
    add.cc.u32    %r24, 0x80000000, 0x80000000;
    madc.lo.u32   %r25, 3, 4, 0;      // 12 + 1
    addc.u32      %r26, 0, 0;         // 1
    "#;
    let regs: Vec<String> = (10..27).map(|r| format!("%r{r}")).collect();
    let rr: Vec<&str> = regs.iter().map(|s| s.as_str()).collect();
    let out = one(&format!("{body}{}", stores(&rr)), rr.len());
    assert_eq!(
        out,
        vec![
            0,
            0,
            0,
            1,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0,
            3,
            9,
            0,
            1,
            0,
            1,
            0,
            13,
            1
        ]
    );
}

#[test]
fn carry_flag_is_per_lane_under_divergence() {
    // Odd lanes produce a carry, even lanes none; addc then yields tid & 1 in each lane.
    let body = format!(
        r#"{PRO}
    and.b32 %r5, %r1, 1;
    setp.eq.u32 %p1, %r5, 1;
    @%p1 bra ODD;
    add.cc.u32 %r6, 1, 1;
    bra.uni JOIN;
ODD:
    add.cc.u32 %r6, 0xffffffff, 1;
JOIN:
    addc.u32 %r7, 0, 0;
    st.global.u32 [%rd1], %r7;
    "#
    );
    let out = run_out(&body, 1, 64, 64);
    for (t, v) in out.iter().enumerate() {
        assert_eq!(*v, t as u32 & 1, "thread {t}");
    }
}

#[test]
fn integer_family_mul24_sad_bfind_fns_szext_bmsk_dp_prmt() {
    let body = r#"
    mul24.lo.u32 %r10, 0x00ffffff, 0x00ffffff;  // (2^24-1)^2 = 0xfffffe000001: lo 0xfe000001
    mul24.hi.u32 %r11, 0x00ffffff, 0x00ffffff;  // bits 47..16: 0xfffffe00
    mul24.lo.u32 %r12, 0x12000003, 5;           // bits 31..24 ignored: 15
    mul24.hi.s32 %r13, 0x00ffffff, 2;           // -1 * 2 = -2 (48 bits): bits 47..16 all ones
    mad24.lo.s32 %r14, 0x00ffffff, 2, 7;        // -2 + 7 = 5
    sad.u32 %r15, 3, 10, 100;                   // 100 + 7
    sad.s32 %r16, -3, 4, 1;                     // 1 + 7
    bfind.u32 %r17, 0;                          // none: 0xffffffff
    bfind.u32 %r18, 0x00010000;                 // 16
    bfind.shiftamt.u32 %r19, 0x00010000;        // 31 - 16
    bfind.s32 %r20, -16;                        // ~0xfffffff0 = 15: bit 3
    bfind.u64 %r21, 0x10000000000;              // 2^40: 40
    fns.b32 %r22, 0x16, 0, 1;                   // 0b10110: first set bit from 0 up: 1
    fns.b32 %r23, 0x16, 0, 3;                   // third: 4
    fns.b32 %r24, 0x16, 4, -2;                  // from 4 down: 4, 2 -> 2
    fns.b32 %r25, 0x16, 0, 4;                   // only three set bits: none
    szext.wrap.s32 %r26, 0xf0, 8;               // bit 7 set: 0xfffffff0
    szext.clamp.s32 %r27, 0xf0, 40;             // N >= 32 clamps: a
    szext.wrap.s32 %r28, 0xf0, 40;              // N = 40 mod 32 = 8: 0xfffffff0
    szext.clamp.u32 %r29, 0xfff, 4;             // 0xf
    "#;
    let regs: Vec<String> = (10..30).map(|r| format!("%r{r}")).collect();
    let rr: Vec<&str> = regs.iter().map(|s| s.as_str()).collect();
    let out = one(&format!("{body}{}", stores(&rr)), rr.len());
    assert_eq!(
        out,
        vec![
            0xfe00_0001,
            0xffff_fe00,
            15,
            0xffff_ffff,
            5,
            107,
            8,
            0xffff_ffff,
            16,
            15,
            3,
            40,
            1,
            4,
            2,
            0xffff_ffff,
            0xffff_fff0,
            0xf0,
            0xffff_fff0,
            0xf,
        ]
    );
    let body = r#"
    bmsk.clamp.b32 %r10, 4, 8;                  // bits 4..11: 0xff0
    bmsk.wrap.b32 %r11, 4, 0;                   // width 0: 0
    bmsk.clamp.b32 %r12, 28, 8;                 // 28 + 8 >= 32: bits 28..31
    bmsk.clamp.b32 %r13, 40, 1;                 // position >= 32 clamps: 0
    bmsk.wrap.b32 %r14, 40, 1;                  // position 40 mod 32 = 8: 0x100
    dp4a.u32.u32 %r15, 0x01020304, 0x01010101, 10;   // 4+3+2+1+10
    dp4a.s32.s32 %r16, 0xff0000ff, 0x02000003, 0;    // (-1)(3) + (-1)(2) = -5
    dp4a.u32.s32 %r17, 0xff, 0xff, 0;                // 255 * (-1)
    dp2a.lo.s32.u32 %r18, 0xffff0002, 0x04030201, 0; // 2*1 + (-1)*2 = 0
    dp2a.hi.s32.u32 %r19, 0xffff0002, 0x04030201, 0; // 2*3 + (-1)*4 = 2
    prmt.b32.f4e %r20, 0x33221100, 0x77665544, 1;    // bytes 4,3,2,1
    prmt.b32.b4e %r21, 0x33221100, 0x77665544, 0;    // bytes 5,6,7,0
    prmt.b32.rc8 %r22, 0x33221100, 0x77665544, 2;    // byte 2 four times
    prmt.b32.ecl %r23, 0x33221100, 0x77665544, 2;    // 3,2,2,2
    prmt.b32.ecr %r24, 0x33221100, 0x77665544, 1;    // 1,1,1,0
    prmt.b32.rc16 %r25, 0x33221100, 0x77665544, 1;   // 3,2,3,2
    prmt.b32 %r26, 0x33221100, 0xf7665544, 0x7531;   // bytes 7,5,3,1
    prmt.b32 %r27, 0x33221100, 0xf7665544, 0x00f8;   // byte 7 sign (1) then byte 0 sign (0)
    "#;
    let regs: Vec<String> = (10..28).map(|r| format!("%r{r}")).collect();
    let rr: Vec<&str> = regs.iter().map(|s| s.as_str()).collect();
    let out = one(&format!("{body}{}", stores(&rr)), rr.len());
    assert_eq!(
        out,
        vec![
            0xff0,
            0,
            0xf000_0000,
            0,
            0x100,
            20,
            0xffff_fffb,
            (-255i32) as u32,
            0,
            2,
            0x4433_2211,
            0x5566_7700,
            0x2222_2222,
            0x3322_2222,
            0x1111_1100,
            0x3322_3322,
            0xf755_3311,
            0x0000_ff00,
        ]
    );
}

/// Hand-written vprintf call (the ABI nvcc uses: format address and a local argument buffer,
/// each argument aligned to its size) and the flush through C stdio's `stdout`, captured by
/// pointing fd 1 at a pipe: device output lands between the host's two printf lines, in order.
#[test]
fn vprintf_fifo_flushes_through_c_stdout_in_order() {
    let src = format!(
        r#"{HEAD}
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[16] = {{118, 61, 37, 100, 32, 37, 46, 49, 102, 32, 37, 108, 108, 120, 10, 0}};
.visible .entry k()
{{
    .local .align 8 .b8 buf[24];
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .f64 %fd1;
    mov.u32 %r1, %tid.x;
    st.local.u32 [buf], %r1;                   // %d at offset 0
    cvt.rn.f64.u32 %fd1, %r1;
    st.local.f64 [buf+8], %fd1;                // %.1f aligned to 8
    mov.b64 %rd1, 0xABCDEF0123;
    st.local.u64 [buf+16], %rd1;               // %llx
    mov.u64 %rd2, buf;
    cvta.local.u64 %rd3, %rd2;
    mov.u64 %rd4, fmt;
    cvta.global.u64 %rd5, %rd4;
    {{
    .param .b64 p0;
    st.param.b64 [p0], %rd5;
    .param .b64 p1;
    st.param.b64 [p1], %rd3;
    .param .b32 rv;
    call.uni (rv), vprintf, (p0, p1);
    ld.param.b32 %r2, [rv];
    }}
    ret;
}}
"#
    );
    // fmt = "v=%d %.1f %llx\n"
    let m = Module::load(&src, "p.ptx").unwrap_or_else(|e| panic!("{e}"));
    crate::take_printf();
    launch(&m.kernel("k").unwrap(), &cfg(1, 3), &[]).unwrap();
    // SAFETY: plain libc calls on fds we own; fd 1 is restored before returning.
    let text = unsafe {
        extern "C" {
            static mut stdout: *mut libc::FILE;
        }
        let mut fds = [0; 2];
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::fflush(stdout);
        let saved = libc::dup(1);
        libc::dup2(fds[1], 1);
        libc::printf(c"host1\n".as_ptr());
        crate::flush_printf();
        libc::printf(c"host2\n".as_ptr());
        libc::fflush(stdout);
        libc::dup2(saved, 1);
        libc::close(saved);
        libc::close(fds[1]);
        let mut buf = vec![0u8; 4096];
        let n = libc::read(fds[0], buf.as_mut_ptr() as *mut _, buf.len());
        libc::close(fds[0]);
        String::from_utf8_lossy(&buf[..n.max(0) as usize]).into_owned()
    };
    assert_eq!(
        text,
        "host1\nv=0 0.0 abcdef0123\nv=1 1.0 abcdef0123\nv=2 2.0 abcdef0123\nhost2\n"
    );
}

#[test]
fn printf_fifo_drops_output_past_its_size() {
    // The FIFO bound applies to pending output; this only checks the setter round-trips, since
    // the FIFO is process-wide and other tests print concurrently.
    let old = crate::printf_fifo_size();
    crate::set_printf_fifo_size(old);
    assert_eq!(crate::printf_fifo_size(), old);
    assert_eq!(crate::heap_size(), 8 << 20);
}

#[test]
fn half_precision_arithmetic_compare_and_cvt() {
    // .b16, not .f16: the halves are also read as .u16 (`cvt.u32.u16`), which ptxas refuses
    // from an .f16 register (ISA 9.4.1: floating-point operands never relax to integer types).
    let body = r#"
    .reg .b16 %x<8>;
    mov.b16 %x1, 0x3c00;                 // 1
    mov.b16 %x2, 0x1000;                 // 2^-11: 1 + 2^-11 is halfway between 1 and 0x3c01
    add.f16 %x3, %x1, %x2;               // ties to even: 0x3c00
    mov.b16 %x4, 0x3c01;
    add.rn.f16 %x5, %x4, %x2;            // halfway from an odd one: 0x3c02
    cvt.u32.u16 %r10, %x3;
    cvt.u32.u16 %r11, %x5;
    mov.b16 %x4, 0x7bff;                 // 65504 (MAX)
    mov.b16 %x2, 0x4000;                 // 2
    mul.f16 %x3, %x4, %x2;               // overflow under rn: +inf 0x7c00
    cvt.u32.u16 %r12, %x3;
    mov.b16 %x2, 0x8400;                 // -2^-14: 1 - 2^-14 is within a quarter ulp of 1
    fma.rn.f16 %x3, %x1, %x1, %x2;       // 0x3c00
    cvt.u32.u16 %r13, %x3;
    mov.b16 %x2, 0x9000;                 // -2^-11: 1 - 2^-11 = 0x3bff exactly
    fma.rn.f16 %x3, %x1, %x1, %x2;
    cvt.u32.u16 %r14, %x3;
    neg.f16 %x3, %x1;                    // 0xbc00
    cvt.u32.u16 %r15, %x3;
    abs.f16 %x3, %x3;                    // 0x3c00
    cvt.u32.u16 %r16, %x3;
    mov.b16 %x2, 0x4000;
    setp.lt.f16 %p1, %x1, %x2;           // 1 < 2
    selp.u32 %r17, 1, 0, %p1;
    mov.b16 %x6, 0x7e00;                 // NaN
    setp.eq.f16 %p2, %x6, %x6;           // ordered compare with NaN: false
    selp.u32 %r18, 1, 0, %p2;
    setp.nan.f16 %p3, %x6, %x1;          // true
    selp.u32 %r19, 1, 0, %p3;
    mov.b32 %f1, 0f477FF000;             // 65520 = MAX + half an ulp: rn -> inf, rz -> MAX
    cvt.rn.f16.f32 %x3, %f1;
    cvt.u32.u16 %r20, %x3;
    cvt.rz.f16.f32 %x3, %f1;
    cvt.u32.u16 %r21, %x3;
    mov.b16 %x3, 0x0001;                 // least f16 subnormal 2^-24
    cvt.f32.f16 %f2, %x3;
    mov.b32 %r22, %f2;
    mov.u32 %r5, 2049;                   // halfway between 2048 and 2050
    cvt.rn.f16.s32 %x3, %r5;             // 0x6800 (even)
    cvt.u32.u16 %r23, %x3;
    cvt.rp.f16.s32 %x3, %r5;             // 0x6801
    cvt.u32.u16 %r24, %x3;
    mov.b16 %x3, 0xc0e0;                 // -2.4375
    cvt.rzi.s32.f16 %r25, %x3;           // -2
    mov.b16 %x3, 0x3e00;                 // 1.5
    cvt.rni.f16.f16 %x4, %x3;            // 2 (ties to even) = 0x4000
    cvt.u32.u16 %r26, %x4;
    mov.b32 %f3, 0f40000000;             // 2
    cvt.rn.sat.f16.f32 %x4, %f3;         // saturates to 1
    cvt.u32.u16 %r27, %x4;
    "#;
    let regs: Vec<String> = (10..28).map(|r| format!("%r{r}")).collect();
    let rr: Vec<&str> = regs.iter().map(|s| s.as_str()).collect();
    let out = one(&format!("{body}{}", stores(&rr)), rr.len());
    assert_eq!(
        out,
        vec![
            0x3c00,
            0x3c02,
            0x7c00,
            0x3c00,
            0x3bff,
            0xbc00,
            0x3c00,
            1,
            0,
            1,
            0x7c00,
            0x7bff,
            0x3380_0000,
            0x6800,
            0x6801,
            (-2i32) as u32,
            0x4000,
            0x3c00,
        ]
    );
}

#[test]
fn mad24_hi_sat_lop3_predicate_and_vector_mov() {
    let body = r#"
    .reg .v4 .b32 %v;
    mov.b32 %r10, 0x007FFFFF;           // 2^23 - 1, the largest positive 24-bit value
    mov.b32 %r11, 0x7FFFFFFF;
    // (2^23-1)^2 = 2^46 - 2^24 + 1 = 0x3FFF_FF00_0001; bits 47..16 = 0x3FFFFF00.
    mad24.hi.s32 %r12, %r10, %r10, %r11;     // 0x3FFFFF00 + 0x7FFFFFFF wraps: 0xBFFFFEFF
    mad24.hi.sat.s32 %r13, %r10, %r10, %r11; // clamped to MAXINT 0x7FFFFFFF
    mov.b32 %r14, 0x00800000;           // low 24 bits signed: -2^23
    mov.b32 %r15, 0x80000000;           // MININT
    // -2^23 * (2^23-1) = -(2^46 - 2^23): 48-bit 0xC000_0080_0000, bits 47..16 = 0xC0000080.
    mad24.hi.sat.s32 %r16, %r14, %r10, %r15; // MININT + negative: clamped to 0x80000000
    mov.b32 %r17, 0x00010000;
    mad24.hi.sat.s32 %r18, %r17, 3, 5;       // 3 * 2^16 >> 16 = 3, + 5 = 8
    // lop3 with a predicate result: p = (d != 0) BoolOp q.
    setp.ne.u32 %p6, %r1, %r1;          // false
    setp.eq.u32 %p7, %r1, %r1;          // true
    lop3.or.b32 %r19|%p1, 0xF0, 0xCC, 0xAA, 0x80, %p6;  // d = 0x80 != 0: p = true | false
    lop3.and.b32 _|%p2, 0x0F, 0xF0, 0x00, 0x80, %p7;    // d = 0: p = false & true
    lop3.and.b32 %r20|%p3, 0xF0, 0xCC, 0xAA, 0xFE, %p7; // d = 0xFE: p = true & true
    lop3.or.b32 _|%p4, 0, 0, 0, 0x80, %p6;              // d = 0: false | false
    lop3.or.b32 _|%p5, 0, 0, 0, 0x80, %p7;              // d = 0: false | true
    selp.u32 %r21, 1, 0, %p1;
    selp.u32 %r22, 1, 0, %p2;
    selp.u32 %r23, 1, 0, %p3;
    selp.u32 %r24, 1, 0, %p4;
    selp.u32 %r25, 1, 0, %p5;
    // A vector special register read whole: %ntid of a 1x1x1 block is (1, 1, 1), the fourth
    // element always 0; then a vector register copied element-wise into scalars.
    mov.v4.u32 %v, %ntid;
    mov.v4.b32 {%r26, %r27, %r28, %r29}, %v;
    mov.v4.u32 {%r30, %r31, _, _}, %nctaid; // grid of 1: (1, 1, 1, 0), two of them kept
    "#;
    let regs = [
        "%r12", "%r13", "%r16", "%r18", "%r19", "%r20", "%r21", "%r22", "%r23", "%r24", "%r25",
        "%r26", "%r27", "%r28", "%r29", "%r30", "%r31",
    ];
    let out = one(&format!("{body}{}", stores(&regs)), regs.len());
    assert_eq!(
        out,
        vec![
            0xBFFF_FEFF,
            0x7FFF_FFFF,
            0x8000_0000,
            8,
            0x80,
            0xFE,
            1,
            0,
            1,
            0,
            1,
            1,
            1,
            1,
            0,
            1,
            1
        ]
    );
}

/// `add/sub/mul/fma .f32x2` (PTX 8.6): each f32 half of the `.b64` operands on its own, with
/// the scalar f32 rounding, `.ftz` and fused-multiply-add rules.
#[test]
fn packed_f32x2_arithmetic() {
    let body = r#"
    .reg .b64 %x<24>;
    mov.b64 %x1, 0x3F80000040000000;    // (hi 1.0, lo 2.0)
    mov.b64 %x2, 0x3F000000C0400000;    // (hi 0.5, lo -3.0)
    add.f32x2 %x3, %x1, %x2;            // (1.5, -1.0) = (0x3FC00000, 0xBF800000)
    // Halfway cases: lo 1 + 2^-24 (between 1 and 1 + 2^-23), hi -1 - 2^-24.
    mov.b64 %x4, 0xBF8000003F800000;    // (hi -1, lo 1)
    mov.b64 %x5, 0xB380000033800000;    // (hi -2^-24, lo 2^-24)
    add.f32x2 %x6, %x4, %x5;            // rn, ties to even: (-1, 1)
    add.rz.f32x2 %x7, %x4, %x5;         // toward zero: (-1, 1)
    add.rp.f32x2 %x8, %x4, %x5;         // toward +inf: (-1, 1 + 2^-23)
    add.rm.ftz.f32x2 %x9, %x4, %x5;     // toward -inf: (-1 - 2^-23, 1)
    mov.b64 %x10, 0x40A000003F800000;   // (5, 1)
    mov.b64 %x11, 0x400000003F800000;   // (2, 1)
    sub.f32x2 %x12, %x10, %x11;         // (3, 0)
    mov.b64 %x13, 0x0080000000000001;   // (hi 2^-126, lo 2^-149)
    mov.b64 %x14, 0x3F00000040000000;   // (0.5, 2)
    mul.f32x2 %x15, %x13, %x14;         // (2^-127 = 0x00400000, 2^-148 = 0x00000002)
    mul.ftz.f32x2 %x16, %x13, %x14;     // result and input subnormals flushed: (+0, +0)
    // fma rounds once: (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly (0xA8800000).
    mov.b64 %x17, 0x400000003F800001;   // (2, 1 + 2^-23)
    mov.b64 %x18, 0x408000003F7FFFFE;   // (4, 1 - 2^-23)
    mov.b64 %x19, 0x3F800000BF800000;   // (1, -1)
    fma.rn.f32x2 %x20, %x17, %x18, %x19; // (2*4+1 = 9, -2^-46)
    st.global.b64 [%rd1], %x3;
    st.global.b64 [%rd1+8], %x6;
    st.global.b64 [%rd1+16], %x7;
    st.global.b64 [%rd1+24], %x8;
    st.global.b64 [%rd1+32], %x9;
    st.global.b64 [%rd1+40], %x12;
    st.global.b64 [%rd1+48], %x15;
    st.global.b64 [%rd1+56], %x16;
    st.global.b64 [%rd1+64], %x20;
    "#;
    let out = one(body, 18);
    let pairs: Vec<(u32, u32)> = out.chunks(2).map(|c| (c[1], c[0])).collect();
    assert_eq!(
        pairs,
        vec![
            (0x3FC0_0000, 0xBF80_0000),
            (0xBF80_0000, 0x3F80_0000),
            (0xBF80_0000, 0x3F80_0000),
            (0xBF80_0000, 0x3F80_0001),
            (0xBF80_0001, 0x3F80_0000),
            (0x4040_0000, 0x0000_0000),
            (0x0040_0000, 0x0000_0002),
            (0x0000_0000, 0x0000_0000),
            (0x4110_0000, 0xA880_0000),
        ]
    );
}
