//! `slct`'s type rules. (Its values, `brx.idx`, and the cache, scheduling and cluster
//! instructions are file tests: `engine/tests/filetests/`.)

use super::HEAD;
use crate::Module;

#[test]
fn slct_type_rules_are_invalid_ptx() {
    for inst in [
        "slct.u32.u32 %r1, %r2, %r3, %r4;", // c must be .s32 or .f32
        "slct.u8.s32 %r1, %r2, %r3, %r4;",  // no 8-bit dtype
        "slct.ftz.u32.s32 %r1, %r2, %r3, %r4;",
    ] {
        let src = format!("{HEAD}.visible .entry k()\n{{\n.reg .b32 %r<8>;\n{inst}\n}}\n");
        let e = Module::load(&src, "s.ptx").unwrap_err();
        assert_eq!(e.kind, crate::LoadErrorKind::InvalidPtx, "{inst}: {e}");
    }
}
