//! Warp collectives and `.sync` membermasks: match, redux, elect, shfl/vote under partial masks
//! and divergence. Expected values are worked out from the ISA's definitions in comments.

use super::{cfg, mem, run_out, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

/// Lanes 0..32: %r1 = lane. Values for match: lane / 8 (four groups of 8 lanes).
#[test]
fn match_redux_elect_full_warp() {
    let out = run_out(
        &format!(
            "{PRO}
            shr.u32 %r5, %r1, 3;
            match.any.sync.b32 %r6, %r5, 0xffffffff;     // the 8 lanes of my group
            st.global.u32 [%rd1], %r6;
            match.all.sync.b32 %r7|%p1, %r5, 0xffffffff;  // not all equal: 0, false
            selp.u32 %r8, 1, 0, %p1;
            add.u32 %r7, %r7, %r8;
            st.global.u32 [%rd1+128], %r7;
            mov.b64 %rd3, 0x100000000;
            match.all.sync.b64 %r7|%p1, %rd3, 0xffffffff;  // all equal: the mask, true
            selp.u32 %r8, 1, 0, %p1;
            add.u32 %r7, %r7, %r8;                        // 0xffffffff + 1 = 0
            st.global.u32 [%rd1+256], %r7;
            redux.sync.add.u32 %r9, %r1, 0xffffffff;      // 0+1+...+31 = 496
            st.global.u32 [%rd1+384], %r9;
            sub.s32 %r10, 10, %r1;                        // 10 .. -21
            redux.sync.min.s32 %r11, %r10, 0xffffffff;    // -21
            st.global.u32 [%rd1+512], %r11;
            redux.sync.max.u32 %r11, %r10, 0xffffffff;    // -1 as unsigned = 0xffffffff
            st.global.u32 [%rd1+640], %r11;
            shl.b32 %r12, 1, %r1;
            redux.sync.or.b32 %r13, %r12, 0xffffffff;     // every bit
            st.global.u32 [%rd1+768], %r13;
            redux.sync.xor.b32 %r13, %r1, 0xffffffff;     // xor of 0..31 = 0
            st.global.u32 [%rd1+896], %r13;
            elect.sync %r14|%p2, 0xffffffff;              // leader lane 0
            selp.u32 %r15, 100, 0, %p2;
            add.u32 %r14, %r14, %r15;
            st.global.u32 [%rd1+1024], %r14;
            "
        ),
        1,
        32,
        32 * 9,
    );
    for l in 0..32usize {
        assert_eq!(out[l], 0xffu32 << (8 * (l / 8)), "match.any lane {l}");
        assert_eq!(out[32 + l], 0);
        assert_eq!(out[64 + l], 0);
        assert_eq!(out[96 + l], 496);
        assert_eq!(out[128 + l] as i32, -21);
        assert_eq!(out[160 + l], 0xffff_ffff);
        assert_eq!(out[192 + l], 0xffff_ffff);
        assert_eq!(out[224 + l], 0);
        assert_eq!(out[256 + l], if l == 0 { 100 } else { 0 });
    }
}

/// Under divergence: odd lanes run the collectives with the odd-lane mask 0xaaaaaaaa; even
/// lanes with 0x55555555. Sums: odd lanes 1+3+...+31 = 256, even 0+2+...+30 = 240.
#[test]
fn partial_mask_collectives_under_divergence() {
    let out = run_out(
        &format!(
            "{PRO}
            and.b32 %r5, %r1, 1;
            setp.eq.u32 %p1, %r5, 1;
            @%p1 bra $Lodd;
            redux.sync.add.u32 %r6, %r1, 0x55555555;
            elect.sync %r7|%p2, 0x55555555;               // leader: lane 0
            shfl.sync.down.b32 %r8, %r1, 2, 0x1f, 0x55555555;  // lane + 2 (lane 30 keeps 30)
            vote.sync.ballot.b32 %r9, %p1, 0x55555555;    // no even lane has p1: 0
            bra $Ljoin;
        $Lodd:
            redux.sync.add.u32 %r6, %r1, 0xaaaaaaaa;
            elect.sync %r7|%p2, 0xaaaaaaaa;               // leader: lane 1
            shfl.sync.idx.b32 %r8, %r1, 31, 0x1f, 0xaaaaaaaa;  // lane 31's value
            vote.sync.ballot.b32 %r9, %p1, 0xaaaaaaaa;    // all odd lanes
            bar.warp.sync 0xaaaaaaaa;
        $Ljoin:
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
    for l in 0..32u32 {
        let u = l as usize;
        let odd = l % 2 == 1;
        assert_eq!(out[u], if odd { 256 } else { 240 }, "redux lane {l}");
        assert_eq!(out[32 + u], if odd { 1 } else { 0 }, "elect lane {l}");
        let shfl = if odd {
            31
        } else if l + 2 <= 31 {
            l + 2
        } else {
            l
        };
        assert_eq!(out[64 + u], shfl, "shfl lane {l}");
        assert_eq!(
            out[96 + u],
            if odd { 0xaaaa_aaaa } else { 0 },
            "ballot lane {l}"
        );
    }
}

/// redux.sync.min/max.f32 (sm_100a): -0.0 < +0.0; .abs; NaNs ignored unless .NaN, which
/// yields the canonical NaN 0x7fffffff. Lane values: lane 0 = -0.0, lane 1 = NaN, lane 2 =
/// -3.0, lane 3 = +0.0, other lanes 1.0.
#[test]
fn redux_f32_min_max_abs_nan() {
    let out = run_out(
        &format!(
            "{PRO}
            mov.b32 %r5, 0x3f800000;
            setp.eq.u32 %p1, %r1, 0;
            @%p1 mov.b32 %r5, 0x80000000;
            setp.eq.u32 %p1, %r1, 1;
            @%p1 mov.b32 %r5, 0x7fc00000;
            setp.eq.u32 %p1, %r1, 2;
            @%p1 mov.b32 %r5, 0xc0400000;
            setp.eq.u32 %p1, %r1, 3;
            @%p1 mov.b32 %r5, 0x00000000;
            redux.sync.min.f32 %r6, %r5, 0xffffffff;       // -3.0 = 0xc0400000
            redux.sync.max.f32 %r7, %r5, 0xffffffff;       // 1.0
            redux.sync.min.abs.f32 %r8, %r5, 0xffffffff;   // |-0.0| = +0.0 = 0
            redux.sync.max.abs.f32 %r9, %r5, 0xffffffff;   // 3.0 = 0x40400000
            redux.sync.max.NaN.f32 %r10, %r5, 0xffffffff;  // canonical NaN
            st.global.u32 [%rd1], %r6;
            st.global.u32 [%rd1+128], %r7;
            st.global.u32 [%rd1+256], %r8;
            st.global.u32 [%rd1+384], %r9;
            st.global.u32 [%rd1+512], %r10;
            "
        ),
        1,
        32,
        160,
    );
    for l in 0..32usize {
        assert_eq!(out[l], 0xc040_0000);
        assert_eq!(out[32 + l], 0x3f80_0000);
        assert_eq!(out[64 + l], 0);
        assert_eq!(out[96 + l], 0x4040_0000);
        assert_eq!(out[128 + l], 0x7fff_ffff);
    }
    // -0.0 (lane 0) against +0.0 (lane 1): min is -0.0, max +0.0.
    let out = run_out(
        &format!(
            "{PRO}
            mov.b32 %r5, 0;
            setp.eq.u32 %p1, %r1, 0;
            @%p1 mov.b32 %r5, 0x80000000;
            redux.sync.min.f32 %r6, %r5, 0x3;
            redux.sync.max.f32 %r7, %r5, 0x3;
            st.global.u32 [%rd1], %r6;
            st.global.u32 [%rd1+8], %r7;
            "
        ),
        1,
        2,
        4,
    );
    assert_eq!(out, vec![0x8000_0000, 0x8000_0000, 0, 0]);
}

/// An executing thread outside the membermask is reported with kernel, thread, line and mask.
#[test]
fn executing_thread_outside_membermask_is_a_launch_error() {
    for inst in [
        "shfl.sync.idx.b32 %r5, %r1, 0, 0x1f, 0xffff;",
        "vote.sync.any.pred %p2, %p1, 0xffff;",
        "redux.sync.add.u32 %r5, %r1, 0xffff;",
        "match.any.sync.b32 %r5, %r1, 0xffff;",
        "elect.sync %r5|%p2, 0xffff;",
        "bar.warp.sync 0xffff;",
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
