//! Warp collectives executed by a thread outside their `.sync` membermask. (The collectives'
//! values are file tests: `engine/tests/filetests/warp/`.)

use super::{cfg, mem, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

/// An executing thread outside the membermask is reported with kernel, thread, line and mask.
#[test]
fn executing_thread_outside_membermask_is_a_launch_error() {
    for inst in [
        "shfl.sync.idx.b32 %r5, %r1, 0, 0x1f, 0xffff;",
        "vote.sync.any.pred %p2, %p1, 0xffff;",
        "redux.sync.add.u32 %r5, %r1, 0xffff;",
        "match.any.sync.b32 %r5, %r1, 0xffff;",
        "elect.sync %r5|%p2, 0xffff;",
    ] {
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 out)\n{{\n{PRO}\nsetp.ne.u32 %p1, %r1, 0;\n{inst}\n}}\n"
        );
        let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{inst}: {e}"));
        let out = upload(&[0u32; 32]);
        let e = launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes()).unwrap_err();
        assert_eq!(e.kind, ExecErrorKind::Trap, "{inst}");
        assert!(
            e.message.contains("outside its membermask 0x0000ffff")
                && e.message.contains("thread (16,0,0)")
                && e.message.contains("kernel 'k'")
                && e.message.contains("PTX line"),
            "{inst}: {e}"
        );
        mem::free(out).unwrap();
    }
}

/// `bar.warp.sync` (`__syncwarp`) by lanes outside their membermask: undefined in the ISA, but
/// an H100 runs such a kernel to completion (`bad_syncwarp`, lanes 16..31 passing 0x0000ffff:
/// cudaSuccess, scripts/ground-truth/results/sanitizer-h100.txt); those lanes go on without
/// waiting, and the others synchronise as their mask says.
#[test]
fn bar_warp_sync_outside_its_mask_goes_on_as_on_a_gpu() {
    let got = super::run_out(
        &format!("{PRO}\nbar.warp.sync 0xffff;\nst.global.u32 [%rd1], 7;\nret;"),
        1,
        32,
        32,
    );
    assert!(got.iter().all(|&v| v == 7), "{got:?}");
}
