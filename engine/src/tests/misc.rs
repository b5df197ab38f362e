//! `slct`'s type rules. (Its values, `brx.idx`, and the cache, scheduling and cluster
//! instructions are file tests: `engine/tests/filetests/`.)

use super::{run_out, HEAD, PRO};
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

/// Labels belong to their `{ }` block (ptxas 13.5: the same label in two blocks assembles, a
/// branch from outside a block to a label inside it is "Unknown symbol"), as inline assembly
/// that repeats a block with its own loop label needs. Expected: 0 + 1 * 4 = 4 after the first
/// loop, then + 2 until past 9: 10.
#[test]
fn labels_are_scoped_by_blocks() {
    let body = format!(
        "{PRO}
    mov.u32 %r5, 0;
    {{
    L: add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 4;
    @%p1 bra L;
    }}
    {{
    L: add.u32 %r5, %r5, 2;
    setp.lt.u32 %p1, %r5, 9;
    @%p1 bra L;
    }}
    st.global.u32 [%rd1], %r5;
    ret;"
    );
    assert_eq!(run_out(&body, 1, 1, 1), [10]);
    let outside = format!("{HEAD}.visible .entry k()\n{{\n{{\nL: ret;\n}}\nbra L;\n}}\n");
    let e = Module::load(&outside, "t.ptx").unwrap_err();
    assert!(e.to_string().contains("undefined label 'L'"), "{e}");
}
