//! Warp collectives whose converged lanes pass membermasks that do not split them into groups.
//! (Disjoint groups, as the tiles of cooperative groups pass, are file tests:
//! `engine/tests/filetests/warp/groups_*.ptx`.)

use super::{cfg, mem, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

/// Masks that do not split the lanes into groups (lane 0 names lane 1, whose mask is its own
/// half only) are undefined in the ISA: a launch error naming the instruction, both lanes and
/// masks, the kernel, thread and PTX line.
#[test]
fn inconsistent_membermasks_are_a_launch_error() {
    for inst in [
        "vote.sync.ballot.b32 %r6, %p1, %r5;",
        "redux.sync.add.u32 %r6, %r1, %r5;",
        "match.any.sync.b32 %r6, %r1, %r5;",
        "shfl.sync.idx.b32 %r6, %r1, 0, 0x1f, %r5;",
        "elect.sync %r6|%p2, %r5;",
        "bar.warp.sync %r5;",
    ] {
        // Lane 0 passes 0x3 (itself and lane 1); every other lane passes only its own bit.
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 out)\n{{\n{PRO}
            shl.b32 %r5, 1, %r1;
            setp.eq.u32 %p1, %r1, 0;
            @%p1 mov.b32 %r5, 3;
            {inst}\n}}\n"
        );
        let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{inst}: {e}"));
        let out = upload(&[0u32; 32]);
        let e = launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes()).unwrap_err();
        assert_eq!(e.kind, ExecErrorKind::Trap, "{inst}");
        assert!(
            e.message.contains("inconsistent membermasks")
                && e.message.contains("lane 0 passes 0x00000003")
                && e.message.contains("lane 1 passes 0x00000002")
                && e.message.contains("kernel 'k'")
                && e.message.contains("thread (0,0,0)")
                && e.message.contains("PTX line"),
            "{inst}: {e}"
        );
        mem::free(out).unwrap();
    }
}
