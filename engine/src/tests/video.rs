//! Scalar video instructions end to end: selectors on register operands, merges into `d.dsel`,
//! secondary operations, divergent lanes. Expected values from the ISA pseudo-code (9.7.18.1),
//! worked out in the comments.

use super::{run_out, PRO};

#[test]
fn scalar_video_selectors_merge_secop_divergent() {
    let out = run_out(
        &format!(
            "{PRO}
            mov.u32 %r5, 0x123456ff;
            mov.u32 %r6, 0x00018000;
            vadd.s32.u32.s32.sat %r7, %r5.b0, %r6.h0;       // 255 + (-32768) = -32513
            st.global.u32 [%rd1], %r7;
            mov.u32 %r8, 0xabcd1234;
            mov.u32 %r9, 0x007f0000;
            mov.u32 %r10, 0xfe;
            vabsdiff.s32.s32.s32.sat %r8.h0, %r10.b0, %r9.b2, %r8;  // |-2 - 127| = 129 -> 0xabcd0081
            st.global.u32 [%rd1+128], %r8;
            // Odd lanes: vmin with .add of lane (min(-5, 3) + lane = lane - 5); even lanes:
            // vshr.u32.u32.u32.wrap of 0x80000000 by lane + 32 (wraps to lane).
            and.b32 %r11, %r1, 1;
            setp.eq.u32 %p1, %r11, 1;
            mov.u32 %r12, -5;
            @%p1 vmin.s32.s32.s32.sat.add %r13, %r12, 3, %r1;
            add.u32 %r14, %r1, 32;
            @!%p1 vshr.u32.u32.u32.wrap %r13, 0x80000000, %r14;
            st.global.u32 [%rd1+256], %r13;
            vset.u32.u32.ge.add %r15, %r1, 16, 100;         // (lane >= 16) + 100
            st.global.u32 [%rd1+384], %r15;
            "
        ),
        1,
        32,
        128,
    );
    for l in 0..32u32 {
        assert_eq!(out[l as usize], (-32513i32) as u32);
        assert_eq!(out[32 + l as usize], 0xabcd_0081);
        let want = if l & 1 == 1 {
            (l as i32 - 5) as u32
        } else {
            0x8000_0000u32 >> l
        };
        assert_eq!(out[64 + l as usize], want, "lane {l}");
        assert_eq!(out[96 + l as usize], 100 + (l >= 16) as u32);
    }
}

/// vmad (9.7.18.1.3) and the SIMD video instructions (9.7.18.2): each case is the ISA
/// pseudo-code evaluated by hand, written beside the instruction.
#[test]
fn vmad_and_simd_video_pseudocode() {
    let out = run_out(
        &format!(
            "{PRO}
            mov.b32 %r20, 0xfffffffd;
            mov.b32 %r21, 0x00000005;
            mov.b32 %r22, 0x0000000a;
            mov.b32 %r23, 0;
            vmad.s32.s32.u32.sat %r23, %r20, %r21, -%r22;  // -15 + ~10 + 1 = -15 - 10 = -25
            st.global.u32 [%rd1+0], %r23;
            mov.b32 %r20, 0x00018000;
            mov.b32 %r21, 0xffff4000;
            mov.b32 %r22, 0x00008000;
            mov.b32 %r23, 0;
            vmad.u32.u32.u32.shr15 %r23, %r20.h0, %r21.h0, %r22;  // (2^15 * 2^14 + 2^15) >> 15 = 2^14 + 1
            st.global.u32 [%rd1+4], %r23;
            mov.b32 %r20, 0x00000007;
            mov.b32 %r21, 0x00000009;
            mov.b32 %r22, 0x00000064;
            mov.b32 %r23, 0;
            vmad.s32.u32.u32.po %r23, %r20, %r21, %r22;  // 63 + 100 + 1, unsigned
            st.global.u32 [%rd1+8], %r23;
            mov.b32 %r20, 0x00000006;
            mov.b32 %r21, 0x00000007;
            mov.b32 %r22, 0x00000032;
            mov.b32 %r23, 0;
            vmad.s32.s32.s32 %r23, -%r20, %r21, %r22;  // ~42 + 50 + 1 = -42 + 50
            st.global.u32 [%rd1+12], %r23;
            mov.b32 %r20, 0x00010000;
            mov.b32 %r21, 0x00010000;
            mov.b32 %r22, 0x00000005;
            mov.b32 %r23, 0;
            vmad.u32.u32.u32.sat %r23, %r20, %r21, %r22;  // 2^32 + 5 clamps to U32_MAX
            st.global.u32 [%rd1+16], %r23;
            mov.b32 %r20, 0x00010000;
            mov.b32 %r21, 0x00010000;
            mov.b32 %r22, 0x00000005;
            mov.b32 %r23, 0;
            vmad.u32.u32.u32 %r23, %r20, %r21, %r22;  // 2^32 + 5: low 32 bits
            st.global.u32 [%rd1+20], %r23;
            mov.b32 %r20, 0x00000002;
            mov.b32 %r21, 0x00000003;
            mov.b32 %r22, 0x0000000a;
            mov.b32 %r23, 0;
            vmad.s32.u32.u32.sat %r23, %r20, %r21, -%r22;  // signed final (c negated): 6 + ~10 + 1 = -4
            st.global.u32 [%rd1+24], %r23;
            mov.b32 %r20, 0xfffffc18;
            mov.b32 %r21, 0x000003e8;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vmad.s32.s32.s32.shr7 %r23, %r20, %r21, %r22;  // -10^6 >> 7 = floor(-7812.5)
            st.global.u32 [%rd1+28], %r23;
            mov.b32 %r20, 0x7fff8000;
            mov.b32 %r21, 0x00010002;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vadd2.s32.s32.u32.sat %r23, %r20, %r21, %r22;  // el0 -32768+2 = -32766 (0x8002), el1 32767+1 clamps to 0x7fff
            st.global.u32 [%rd1+32], %r23;
            mov.b32 %r20, 0x00050003;
            mov.b32 %r21, 0x00010007;
            mov.b32 %r22, 0xdeadbeef;
            mov.b32 %r23, 0;
            vsub2.u32.u32.u32.sat %r23.h0, %r20, %r21, %r22;  // el0 3-7 clamps to 0; h1 from c
            st.global.u32 [%rd1+36], %r23;
            mov.b32 %r20, 0x00030004;
            mov.b32 %r21, 0x00040004;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vavrg2.u32.u32.u32 %r23, %r20, %r21, %r22;  // (4+4+1)>>1 = 4, (3+4+1)>>1 = 4
            st.global.u32 [%rd1+40], %r23;
            mov.b32 %r20, 0xfffdfffe;
            mov.b32 %r21, 0x00000001;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vavrg2.s32.s32.s32 %r23, %r20, %r21, %r22;  // el0 (-2+1)>>1 = -1, el1 (-3+0)>>1 = -2
            st.global.u32 [%rd1+44], %r23;
            mov.b32 %r20, 0x00100002;
            mov.b32 %r21, 0x00010009;
            mov.b32 %r22, 0x000003e8;
            mov.b32 %r23, 0;
            vabsdiff2.u32.u32.u32.add %r23, %r20, %r21, %r22;  // 1000 + |2-9| + |16-1|
            st.global.u32 [%rd1+48], %r23;
            mov.b32 %r20, 0x00000005;
            mov.b32 %r21, 0x00000003;
            mov.b32 %r22, 0x0000000a;
            mov.b32 %r23, 0;
            vmin2.s32.u32.u32.add %r23.h10, %r20.h00, %r21.h22, %r22;  // Va = (5,5), Vb = (3,3): 10 + 3 + 3
            st.global.u32 [%rd1+52], %r23;
            mov.b32 %r20, 0x00010005;
            mov.b32 %r21, 0x00020004;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vset2.u32.u32.lt %r23, %r20, %r21, %r22;  // el0 5<4 no, el1 1<2 yes
            st.global.u32 [%rd1+56], %r23;
            mov.b32 %r20, 0xffff0000;
            mov.b32 %r21, 0x00000001;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vset2.s32.u32.lt %r23, %r20, %r21, %r22;  // el0 0<1, el1 -1<0
            st.global.u32 [%rd1+60], %r23;
            mov.b32 %r20, 0x00010002;
            mov.b32 %r21, 0x00010003;
            mov.b32 %r22, 0x00000029;
            mov.b32 %r23, 0;
            vset2.u32.u32.ne.add %r23, %r20, %r21, %r22;  // 41 + (2!=3) + (1!=1)
            st.global.u32 [%rd1+64], %r23;
            mov.b32 %r20, 0x00090001;
            mov.b32 %r21, 0x00040006;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vmax2.u32.u32.u32 %r23, %r20.h23, %r21.h01, %r22;  // Va = (el0 hw3=4, el1 hw2=6), Vb = (el0 hw1=9, el1 hw0=1)
            st.global.u32 [%rd1+68], %r23;
            mov.b32 %r20, 0x7f800102;
            mov.b32 %r21, 0x0101ff03;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vadd4.s32.s32.u32.sat %r23, %r20, %r21, %r22;  // 2+3=5, 1+255 -> 127, -128+1=-127, 127+1 -> 127
            st.global.u32 [%rd1+72], %r23;
            mov.b32 %r20, 0x00000080;
            mov.b32 %r21, 0x00000001;
            mov.b32 %r22, 0x11223344;
            mov.b32 %r23, 0;
            vsub4.s32.s32.s32.sat %r23.b0, %r20.b3210, %r21.b7654, %r22;  // -128-1 clamps to -128 (0x80) in byte 0
            st.global.u32 [%rd1+76], %r23;
            mov.b32 %r20, 0x00070009;
            mov.b32 %r21, 0x00000000;
            mov.b32 %r22, 0x00000064;
            mov.b32 %r23, 0;
            vmin4.u32.u32.u32.add %r23.b10, %r20.b0000, %r21.b2222, %r22;  // Va = a.b0 = 9, Vb = a.b2 = 7: 100 + 7 + 7
            st.global.u32 [%rd1+80], %r23;
            mov.b32 %r20, 0xff000301;
            mov.b32 %r21, 0xff000102;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vavrg4.u32.u32.u32 %r23, %r20, %r21, %r22;  // (1+2+1)>>1, (3+1+1)>>1, (0+0+1)>>1, (255+255+1)>>1
            st.global.u32 [%rd1+84], %r23;
            mov.b32 %r20, 0x807f0005;
            mov.b32 %r21, 0x7f80000a;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vabsdiff4.s32.s32.s32 %r23, %r20, %r21, %r22;  // |5-10|, 0, |127+128| = 255, |-128-127| = 255
            st.global.u32 [%rd1+88], %r23;
            mov.b32 %r20, 0xff018000;
            mov.b32 %r21, 0x00010001;
            mov.b32 %r22, 0x00000000;
            mov.b32 %r23, 0;
            vset4.s32.u32.lt %r23, %r20, %r21, %r22;  // 0<1, -128<0, 1<1 no, -1<0
            st.global.u32 [%rd1+92], %r23;
            mov.b32 %r20, 0x01020304;
            mov.b32 %r21, 0x01000304;
            mov.b32 %r22, 0x00000007;
            mov.b32 %r23, 0;
            vset4.u32.u32.eq.add %r23.b31, %r20, %r21, %r22;  // 7 + (b3 1==1) + (b1 3==3)
            st.global.u32 [%rd1+96], %r23;
            mov.b32 %r20, 0x10203040;
            mov.b32 %r21, 0x01020304;
            mov.b32 %r22, 0xaabbccdd;
            mov.b32 %r23, 0;
            vmax4.u32.u32.u32 %r23.b20, %r20, %r21, %r22;  // bytes 2, 0 from max; 3, 1 from c
            st.global.u32 [%rd1+100], %r23;
            "
        ),
        1,
        1,
        26,
    );
    let want: [u32; 26] = [
        0xffffffe7, 0x00004001, 0x000000a4, 0x00000008, 0xffffffff, 0x00000005, 0xfffffffc,
        0xffffe17b, 0x7fff8002, 0xdead0000, 0x00040004, 0xfffeffff, 0x000003fe, 0x00000010,
        0x00010000, 0x00010001, 0x0000002a, 0x00060009, 0x7f817f05, 0x11223380, 0x00000072,
        0xff000202, 0xffff0005, 0x01000101, 0x00000009, 0xaa20cc40,
    ];
    for (k, (&o, &w)) in out.iter().zip(&want).enumerate() {
        assert_eq!(o, w, "case {k}: {o:#x} != {w:#x}");
    }
}

/// Forms the ISA or ptxas reject are invalid PTX; forms lowering does not run stay unsupported.
#[test]
fn video_form_errors() {
    for (inst, kind) in [
        (
            "vshl.u32.u32.s32.clamp %r1, %r2, %r3;",
            crate::LoadErrorKind::Unsupported,
        ),
        (
            "vadd.u32.u32.u32.sat.add %r1.h0, %r2, %r3, %r4;",
            crate::LoadErrorKind::Unsupported,
        ),
        // ptxas: Operand negation limited to either (source A xor source B) or source C.
        (
            "vmad.s32.s32.u32 %r1, -%r2, %r3, -%r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        // ptxas: Conflicting use of '.po' modifier with operand negation.
        (
            "vmad.s32.s32.u32.po %r1, -%r2, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        // ptxas: Illegal combination of .sat and .add modifiers.
        (
            "vadd2.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        // ptxas: Incorrect video selector (mask positions descending, selectors of n digits).
        (
            "vmin4.s32.u32.u32.add %r1.b00, %r2, %r3, %r1;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        (
            "vadd4.u32.u32.u32 %r1.b13, %r2, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        (
            "vadd4.u32.u32.u32 %r1, %r2.b753, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        (
            "vadd2.u32.u32.u32 %r1, %r2.h3, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        (
            "vadd2.u32.u32.u32 %r1, %r2.b10, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
        // ptxas: Illegal secondary operation for video instruction 'vset4'.
        (
            "vset4.u32.u32.ne.max %r1, %r2, %r3, %r4;",
            crate::LoadErrorKind::InvalidPtx,
        ),
    ] {
        let src = format!(
            "{}.visible .entry k()\n{{\n.reg .b32 %r<8>;\n{inst}\n}}\n",
            super::HEAD
        );
        let e = crate::Module::load(&src, "v.ptx").unwrap_err();
        assert_eq!(e.kind, kind, "{inst}: {e}");
    }
}
