//! Video instruction forms the ISA or ptxas refuse, and those lowering does not run. (The
//! values are file tests: `engine/tests/filetests/video/`.)

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
