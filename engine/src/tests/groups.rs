//! Warp collectives whose converged lanes pass different membermasks (disjoint groups, as the
//! tiles of cooperative groups do): each lane's result covers the lanes of its own mask only.
//! Expected values follow from the ISA's definitions of vote/redux/match/elect/shfl.sync
//! ("across all non-exited threads in membermask"; "a thread not specified in membermask
//! contributes a 0" to a ballot), worked out by hand in the comments.

use super::{cfg, mem, run_out, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

/// Two halves: lanes 0..16 pass 0x0000ffff, lanes 16..32 pass 0xffff0000 (%r5).
const HALVES: &str = "
            setp.lt.u32 %p3, %r1, 16;
            selp.b32 %r5, 0x0000ffff, 0xffff0000, %p3;
";

/// The reproduction of the bug report: ballot, redux.add, match.any, vote.any per half.
#[test]
fn halves_compute_per_group() {
    let out = run_out(
        &format!(
            "{PRO}{HALVES}
            setp.eq.u32 %p1, %r1, %r1;                     // true everywhere
            vote.sync.ballot.b32 %r6, %p1, %r5;            // my half's bits
            redux.sync.add.u32 %r7, 1, %r5;                // 16 members
            match.any.sync.b32 %r8, 5, %r5;                // every member has 5: my half
            setp.eq.u32 %p2, %r1, 20;
            vote.sync.any.pred %p4, %p2, %r5;              // only the upper half has lane 20
            selp.u32 %r9, 1, 0, %p4;
            st.global.u32 [%rd1], %r6;
            st.global.u32 [%rd1+128], %r7;
            st.global.u32 [%rd1+256], %r8;
            st.global.u32 [%rd1+384], %r9;
            "
        ),
        1,
        32,
        128,
    );
    for l in 0..32usize {
        let half = if l < 16 { 0x0000_ffffu32 } else { 0xffff_0000 };
        assert_eq!(out[l], half, "ballot lane {l}");
        assert_eq!(out[32 + l], 16, "redux lane {l}");
        assert_eq!(out[64 + l], half, "match.any lane {l}");
        assert_eq!(out[96 + l], (l >= 16) as u32, "any lane {l}");
    }
}

/// vote.all / vote.uni / vote.none (negated any), redux min/max/xor, match.all and elect per
/// half, with per-lane data: p1 = (lane != 3) is false in lane 3 only (lower half), and
/// the value lane / 4 is equal within quads.
#[test]
fn halves_all_uni_redux_match_all_elect() {
    let out = run_out(
        &format!(
            "{PRO}{HALVES}
            setp.ne.u32 %p1, %r1, 3;
            vote.sync.all.pred %p2, %p1, %r5;              // lower: false, upper: true
            vote.sync.uni.pred %p4, %p1, %r5;              // lower: false, upper: true
            vote.sync.any.pred %p5, !%p1, %r5;             // lower: true (lane 3), upper: false
            selp.u32 %r7, 1, 0, %p2;
            selp.u32 %r8, 2, 0, %p4;
            selp.u32 %r9, 4, 0, %p5;
            or.b32 %r7, %r7, %r8;
            or.b32 %r7, %r7, %r9;
            st.global.u32 [%rd1], %r7;
            redux.sync.min.u32 %r10, %r1, %r5;             // lower 0, upper 16
            redux.sync.max.u32 %r11, %r1, %r5;             // lower 15, upper 31
            shl.b32 %r10, %r10, 8;
            or.b32 %r10, %r10, %r11;
            st.global.u32 [%rd1+128], %r10;
            redux.sync.xor.b32 %r12, %r1, %r5;             // xor 0..15 = 0, xor 16..31 = 0
            redux.sync.add.u32 %r13, %r1, %r5;             // 120, 376
            add.u32 %r12, %r12, %r13;
            st.global.u32 [%rd1+256], %r12;
            shr.u32 %r14, %r1, 2;
            match.all.sync.b32 %r15|%p6, %r14, %r5;        // quads differ: 0, false
            selp.u32 %r16, 1, 0, %p6;
            add.u32 %r15, %r15, %r16;
            st.global.u32 [%rd1+384], %r15;
            shr.u32 %r14, %r1, 4;
            match.all.sync.b32 %r15|%p6, %r14, %r5;        // equal per half: my half, true
            st.global.u32 [%rd1+512], %r15;
            elect.sync %r17|%p7, %r5;                      // leaders 0 and 16
            selp.u32 %r18, 100, 0, %p7;
            add.u32 %r17, %r17, %r18;
            st.global.u32 [%rd1+640], %r17;
            "
        ),
        1,
        32,
        192,
    );
    for l in 0..32usize {
        let lower = l < 16;
        let half = if lower { 0x0000_ffffu32 } else { 0xffff_0000 };
        assert_eq!(out[l], if lower { 4 } else { 3 }, "all/uni/none lane {l}");
        assert_eq!(
            out[32 + l],
            if lower { 15 } else { (16 << 8) | 31 },
            "min/max lane {l}"
        );
        assert_eq!(
            out[64 + l],
            if lower { 120 } else { 376 },
            "xor+add lane {l}"
        );
        assert_eq!(out[96 + l], 0, "match.all quads lane {l}");
        assert_eq!(out[128 + l], half, "match.all halves lane {l}");
        let leader = if lower { 0 } else { 16 };
        assert_eq!(
            out[160 + l],
            leader + if l as u32 == leader { 100 } else { 0 },
            "elect lane {l}"
        );
    }
}

/// Eight tiles of 4 lanes (mask 0xf << (lane & ~3)) reducing and shuffling within the tile,
/// in a partial warp of 30 threads: the last tile has lanes 28 and 29 only (the missing lanes
/// are no threads, so they take no part).
#[test]
fn tiles_of_four_in_a_partial_warp() {
    let out = run_out(
        &format!(
            "{PRO}
            and.b32 %r5, %r1, 0xfffffffc;
            shl.b32 %r5, 0xf, %r5;                         // my tile's mask
            redux.sync.add.u32 %r6, %r1, %r5;              // 4t + (4t+1) + (4t+2) + (4t+3)
            st.global.u32 [%rd1], %r6;
            shfl.sync.bfly.b32 %r7, %r1, 1, 0x1c1f, %r5;   // width 4: lane ^ 1
            st.global.u32 [%rd1+120], %r7;
            setp.ge.u32 %p1, %r1, 26;
            vote.sync.ballot.b32 %r8, %p1, %r5;            // lanes >= 26 of my tile
            st.global.u32 [%rd1+240], %r8;
            "
        ),
        1,
        30,
        90,
    );
    for l in 0..30u32 {
        let u = l as usize;
        let t = l / 4;
        let sum = if t == 7 { 28 + 29 } else { 16 * t + 6 };
        assert_eq!(out[u], sum, "redux lane {l}");
        assert_eq!(out[30 + u], l ^ 1, "shfl lane {l}");
        let tile = 0xfu32 << (4 * t) & 0x3fff_ffff;
        assert_eq!(out[60 + u], tile & !((1 << 26) - 1), "ballot lane {l}");
    }
}

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
