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

/// vmad and the SIMD video forms are not run yet: load errors naming the instruction.
#[test]
fn video_forms_not_run_are_load_errors() {
    for inst in [
        "vmad.s32.s32.u32.sat %r1, %r2, %r3, %r4;",
        "vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;",
        "vset4.u32.u32.ne %r1, %r2, %r3, %r4;",
        "vshl.u32.u32.s32.clamp %r1, %r2, %r3;",
        "vadd.u32.u32.u32.sat.add %r1.h0, %r2, %r3, %r4;",
    ] {
        let src = format!(
            "{}.visible .entry k()\n{{\n.reg .b32 %r<8>;\n{inst}\n}}\n",
            super::HEAD
        );
        let e = crate::Module::load(&src, "v.ptx").unwrap_err();
        assert_eq!(e.kind, crate::LoadErrorKind::Unsupported, "{inst}: {e}");
    }
}
