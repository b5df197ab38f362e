//! CTA synchronization on hand-written PTX: `barrier.red` under divergence and exits, mbarrier
//! phases and counts (9.7.13.15), cp.async sizes and zero fill (9.7.9.25). Expected values are
//! worked out from the ISA's definitions in comments.

use super::{cfg, download, mem, run_out, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

const HEAD90: &str = ".version 8.6\n.target sm_90\n.address_size 64\n";

/// Loads `src` (kernel `k(.param .u64 out, .param .u64 src)`), runs it over one CTA of `block`
/// threads with `input` as `src`, returns `n` u32 of `out`, or the launch error.
fn run_k(src: &str, block: u32, input: &[u32], n: usize) -> Result<Vec<u32>, crate::ExecError> {
    run_k2(src, block, input, n).map(|(o, _)| o)
}

/// `run_k`, also returning `src` after the run.
fn run_k2(
    src: &str,
    block: u32,
    input: &[u32],
    n: usize,
) -> Result<(Vec<u32>, Vec<u32>), crate::ExecError> {
    let m = Module::load(src, "s.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&vec![0u32; n]);
    let inp = upload(input);
    let mut p = out.to_le_bytes().to_vec();
    p.extend_from_slice(&inp.to_le_bytes());
    let r = launch(&m.kernel("k").unwrap(), &cfg(1, block), &p);
    let v = download(out, n);
    let w = download(inp, input.len());
    mem::free(out).unwrap();
    mem::free(inp).unwrap();
    r.map(|_| (v, w))
}

fn kernel(body: &str) -> String {
    format!(
        "{HEAD90}.visible .entry k(.param .u64 out, .param .u64 src)\n{{\n{PRO}\n\
         .reg .b64 %rs;\n ld.param.u64 %rs, [src];\n{body}\n}}\n"
    )
}

/// 96 threads, 90 live (90..95 exit first). Odd and even threads reach two different
/// `bar.red.popc` instructions of barrier 0: p1 = (t % 4 == 0) holds for t = 0, 4, ..., 88:
/// 23 threads. and(!p1) = 0 (t = 0 has p1), and(t < 90) = 1, or(p1) = 1, or(t > 1000) = 0.
/// Barrier 5 with a thread count of 64 is reached by warps 0 and 1 only: t = 0, 4, ..., 60 give
/// popc 16.
#[test]
fn barrier_red_divergent_exits_and_counts() {
    let out = run_out(
        &format!(
            "{PRO}
            and.b32 %r5, %r1, 3;
            setp.eq.u32 %p1, %r5, 0;
            setp.ge.u32 %p3, %r1, 90;
            @%p3 exit;
            and.b32 %r6, %r1, 1;
            setp.eq.u32 %p2, %r6, 1;
            @%p2 bra $Lodd;
            barrier.red.popc.u32 %r7, 0, %p1;
            bra $Ljoin;
        $Lodd:
            bar.red.popc.u32 %r7, 0, %p1;
        $Ljoin:
            bar.red.and.pred %p4, 1, !%p1;
            setp.lt.u32 %p5, %r1, 90;
            bar.cta.red.and.pred %p5, 2, %p5;
            bar.red.or.pred %p6, 3, %p1;
            setp.gt.u32 %p7, %r1, 1000;
            barrier.cta.red.or.aligned.pred %p7, 4, %p7;
            mul.lo.u32 %r8, %r7, 10000;
            selp.u32 %r9, 1000, 0, %p4;
            add.u32 %r8, %r8, %r9;
            selp.u32 %r9, 100, 0, %p5;
            add.u32 %r8, %r8, %r9;
            selp.u32 %r9, 10, 0, %p6;
            add.u32 %r8, %r8, %r9;
            selp.u32 %r9, 1, 0, %p7;
            add.u32 %r8, %r8, %r9;
            st.global.u32 [%rd1], %r8;
            mov.u32 %r10, 7;
            setp.lt.u32 %p5, %r1, 64;
            @!%p5 bra $Lskip;
            bar.red.popc.u32 %r10, 5, 64, %p1;
        $Lskip:
            st.global.u32 [%rd1+384], %r10;
            "
        ),
        1,
        96,
        192,
    );
    for t in 0..96 {
        assert_eq!(out[t], if t < 90 { 230_110 } else { 0 }, "thread {t}");
        let want = match t {
            0..64 => 16,
            64..90 => 7,
            _ => 0,
        };
        assert_eq!(out[96 + t], want, "thread {t}, counted barrier");
    }
}

/// One thread walks an mbarrier through its phases (9.7.13.15.4-7):
/// init 5 -> arrive.noComplete 2 (state: pending 5) -> arrive.noComplete 1 (state: pending 3,
/// now 2 pending) -> phase 0 incomplete: test_wait(state) false, parity 0 false, parity 1 (the
/// "preceding" phase) true -> arrive_drop 2: expected 3, pending 0, phase 0 completes (pending
/// reloads to 3) -> test_wait(state) true, parity 0 true -> arrive.expect_tx 16 (pending 2,
/// tx 16) -> arrive 2 (pending 0, tx 16: incomplete) -> parity 1 false -> complete_tx 16:
/// phase 1 completes -> try_wait.parity 1 true (with a suspend hint).
#[test]
fn mbarrier_phases_counts_tx_parity() {
    let out = run_k(
        &kernel(
            "
            .shared .align 8 .b64 mb;
            .reg .b64 %s<8>;
            mbarrier.init.shared::cta.b64 [mb], 5;
            mbarrier.arrive.noComplete.shared.b64 %s1, [mb], 2;
            mbarrier.pending_count.b64 %r5, %s1;
            mbarrier.arrive.noComplete.release.cta.shared.b64 %s2, [mb], 1;
            mbarrier.pending_count.b64 %r6, %s2;
            mbarrier.test_wait.shared.b64 %p1, [mb], %s2;
            mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %p2, [mb], 0;
            mbarrier.test_wait.parity.shared.b64 %p3, [mb], 1;
            cvta.shared.u64 %rd3, mb;
            mbarrier.arrive_drop.b64 %s3, [%rd3], 2;
            mbarrier.test_wait.b64 %p4, [%rd3], %s2;
            mbarrier.test_wait.parity.shared.b64 %p5, [mb], 0;
            mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 %s4, [mb], 16;
            mbarrier.arrive.shared::cluster.b64 _, [mb], 2;
            mbarrier.test_wait.parity.shared.b64 %p6, [mb], 1;
            mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [mb], 16;
            mbarrier.try_wait.parity.shared.b64 %p7, [mb], 1, 1000;
            mbarrier.inval.shared.b64 [mb];
            st.global.u32 [%rd1], %r5;
            st.global.u32 [%rd1+4], %r6;
            selp.u32 %r7, 1, 0, %p1;  st.global.u32 [%rd1+8], %r7;
            selp.u32 %r7, 1, 0, %p2;  st.global.u32 [%rd1+12], %r7;
            selp.u32 %r7, 1, 0, %p3;  st.global.u32 [%rd1+16], %r7;
            selp.u32 %r7, 1, 0, %p4;  st.global.u32 [%rd1+20], %r7;
            selp.u32 %r7, 1, 0, %p5;  st.global.u32 [%rd1+24], %r7;
            selp.u32 %r7, 1, 0, %p6;  st.global.u32 [%rd1+28], %r7;
            selp.u32 %r7, 1, 0, %p7;  st.global.u32 [%rd1+32], %r7;
            ",
        ),
        1,
        &[0],
        9,
    )
    .unwrap();
    assert_eq!(out, vec![5, 3, 0, 0, 1, 1, 1, 0, 1]);
}

/// Two warps: each thread stores t * 3, arrives, and waits (warp 0 with a test_wait spin loop,
/// warp 1 with try_wait) before reading the value of thread 63 - t: the first warp to wait must
/// let the other run to its arrival. Then a second phase with try_wait.parity.
#[test]
fn mbarrier_waits_yield_to_other_warps() {
    let out = run_k(
        &kernel(
            "
            .shared .align 8 .b64 mb;
            .shared .align 4 .b32 data[64];
            .shared .align 4 .b32 data2[64];
            .reg .b64 %s<4>;
            setp.eq.u32 %p1, %r1, 0;
            @%p1 mbarrier.init.shared.b64 [mb], 64;
            bar.sync 0;
            mov.u32 %r5, data;
            shl.b32 %r6, %r1, 2;
            add.u32 %r7, %r5, %r6;
            mul.lo.u32 %r8, %r1, 3;
            st.shared.u32 [%r7], %r8;
            mbarrier.arrive.shared.b64 %s1, [mb];
            setp.lt.u32 %p2, %r1, 32;
            @!%p2 bra $Ltry;
        $Lspin:
            mbarrier.test_wait.shared.b64 %p3, [mb], %s1;
            @!%p3 nanosleep.u32 20;
            @!%p3 bra $Lspin;
            bra $Ldone;
        $Ltry:
            mbarrier.try_wait.shared.b64 %p3, [mb], %s1;
            @!%p3 bra $Ltry;
        $Ldone:
            sub.u32 %r9, 63, %r1;
            shl.b32 %r9, %r9, 2;
            add.u32 %r9, %r5, %r9;
            ld.shared.u32 %r10, [%r9];
            st.global.u32 [%rd1], %r10;
            // Phase 1: every thread stores t * 3 + 1000 to its slot of a second array (the
            // first may still be read by the other warp), arrives, waits on parity 1.
            mov.u32 %r11, data2;
            sub.u32 %r11, %r11, %r5;
            add.u32 %r8, %r8, 1000;
            add.u32 %r7, %r7, %r11;
            st.shared.u32 [%r7], %r8;
            add.u32 %r9, %r9, %r11;
            mbarrier.arrive.shared.b64 _, [mb];
        $Lpar:
            mbarrier.try_wait.parity.shared.b64 %p4, [mb], 1;
            @!%p4 bra $Lpar;
            ld.shared.u32 %r10, [%r9];
            st.global.u32 [%rd1+256], %r10;
            ",
        ),
        64,
        &[0],
        128,
    )
    .unwrap();
    for t in 0..64u32 {
        assert_eq!(out[t as usize], (63 - t) * 3, "phase 0, thread {t}");
        assert_eq!(
            out[64 + t as usize],
            (63 - t) * 3 + 1000,
            "phase 1, thread {t}"
        );
    }
}

/// Lanes 0..15 arrive and wait while lanes 16..31 of the same warp are on the other side of a
/// branch, arriving only after a loop: the waiting lanes must let their sibling path run.
#[test]
fn mbarrier_wait_lets_divergent_lanes_of_the_warp_run() {
    let out = run_k(
        &kernel(
            "
            .shared .align 8 .b64 mb;
            .shared .align 4 .b32 flag;
            .reg .b64 %s<4>;
            setp.eq.u32 %p1, %r1, 0;
            @%p1 mbarrier.init.shared.b64 [mb], 32;
            @%p1 st.shared.u32 [flag], 0;
            bar.sync 0;
            setp.lt.u32 %p2, %r1, 16;
            @%p2 bra $Lfirst;
            mov.u32 %r5, 0;
        $Lloop:
            add.u32 %r5, %r5, 1;
            setp.lt.u32 %p3, %r5, 100;
            @%p3 bra $Lloop;
            @%p1 st.shared.u32 [flag], 0;
            setp.eq.u32 %p4, %r1, 31;
            @%p4 st.shared.u32 [flag], 77;
            mbarrier.arrive.shared.b64 %s1, [mb];
            bra $Ljoin;
        $Lfirst:
            mbarrier.arrive.shared.b64 %s1, [mb];
        $Lw:
            mbarrier.try_wait.shared.b64 %p5, [mb], %s1, 50;
            @!%p5 bra $Lw;
        $Ljoin:
            ld.shared.u32 %r6, [flag];
            st.global.u32 [%rd1], %r6;
            ",
        ),
        32,
        &[0],
        32,
    )
    .unwrap();
    // Lanes 0..15 read the flag after the phase completed, so after lane 31 stored 77.
    assert_eq!(out, vec![77; 32]);
}

/// An mbarrier phase that can never complete: the try_wait loop is reported as a deadlock
/// (after the waits' time limit has passed and changed nothing), not run forever. A bounded
/// loop of try_wait, by contrast, sees False once the time limit passed and goes on.
#[test]
fn mbarrier_deadlock_reported_and_try_wait_time_limit() {
    let body = "
            .shared .align 8 .b64 mb;
            .reg .b64 %s<4>;
            mbarrier.init.shared.b64 [mb], 2;
            mbarrier.arrive.shared.b64 %s1, [mb];
        $Lw:
            mbarrier.try_wait.shared.b64 %p1, [mb], %s1;
            @!%p1 bra $Lw;
            st.global.u32 [%rd1], 1;
            ";
    let e = run_k(&kernel(body), 1, &[0], 1).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(
        e.message.contains("deadlock") && e.message.contains("mbarrier"),
        "{}",
        e.message
    );
    let body = "
            .shared .align 8 .b64 mb;
            .reg .b64 %s<4>;
            mbarrier.init.shared.b64 [mb], 2;
            mbarrier.arrive.shared.b64 %s1, [mb];
            mov.u32 %r5, 0;
        $Lw:
            add.u32 %r5, %r5, 1;
            mbarrier.try_wait.shared.b64 %p1, [mb], %s1;
            setp.lt.u32 %p2, %r5, 3;
            @!%p1 and.pred %p1, %p2, 1;
            @%p1 bra $Lw;
            st.global.u32 [%rd1], %r5;
            ";
    assert_eq!(run_k(&kernel(body), 1, &[0], 1).unwrap(), vec![3]);
}

/// cp.async sizes 4, 8, 16; src-size (immediate and register) zero-fills the rest of cp-size;
/// ignore-src (a predicate, possibly negated) copies zeros or the data; a cache policy operand.
/// Shared memory is pre-filled with 0xffffffff so that zero fill shows. Source words:
/// g[i] = 0x100 + i, except g[0] = 0x12345678.
#[test]
fn cp_async_sizes_zero_fill_ignore_src() {
    let mut g: Vec<u32> = (0..16).map(|i| 0x100 + i).collect();
    g[0] = 0x1234_5678;
    let out = run_k(
        &kernel(
            "
            .shared .align 16 .b32 sm[32];
            .reg .b64 %pol;
            mov.u32 %r5, 0;
        $Lfill:
            shl.b32 %r6, %r5, 2;
            mov.u32 %r7, sm;
            add.u32 %r7, %r7, %r6;
            st.shared.u32 [%r7], -1;
            add.u32 %r5, %r5, 1;
            setp.lt.u32 %p1, %r5, 32;
            @%p1 bra $Lfill;
            setp.eq.u32 %p2, %r1, 0;
            mov.u32 %r9, 2;
            mov.b64 %pol, 0;
            cp.async.ca.shared.global [sm], [%rs], 4;
            cp.async.ca.shared.global [sm+8], [%rs+8], 8;
            cp.async.commit_group;
            cp.async.cg.shared.global [sm+16], [%rs+16], 16, 4;
            cp.async.cg.shared::cta.global.L2::128B [sm+32], [%rs+32], 16, %p2;
            cp.async.ca.shared.global [sm+48], [%rs+48], 16, !%p2;
            cp.async.commit_group;
            cp.async.ca.shared.global [sm+64], [%rs], 8, %r9;
            cp.async.ca.shared.global.L2::cache_hint [sm+80], [%rs+4], 4, %pol;
            cp.async.wait_group 1;
            cp.async.wait_all;
            mov.u32 %r5, 0;
        $Lout:
            shl.b32 %r6, %r5, 2;
            mov.u32 %r7, sm;
            add.u32 %r7, %r7, %r6;
            ld.shared.u32 %r8, [%r7];
            cvt.u64.u32 %rd3, %r6;
            add.u64 %rd4, %rd1, %rd3;
            st.global.u32 [%rd4], %r8;
            add.u32 %r5, %r5, 1;
            setp.lt.u32 %p1, %r5, 24;
            @%p1 bra $Lout;
            ",
        ),
        1,
        &g,
        24,
    );
    let out = out.unwrap_or_else(|e| panic!("{e}"));
    let f = u32::MAX;
    let want = [
        0x1234_5678,
        f,
        0x102,
        0x103, // 4 bytes, gap, 8 bytes
        0x104,
        0,
        0,
        0, // src-size 4 of 16
        0,
        0,
        0,
        0, // ignore-src true
        0x10c,
        0x10d,
        0x10e,
        0x10f, // ignore-src !true = false: copied
        0x5678,
        0,
        f,
        f, // src-size 2 (register) of 8
        0x101,
        f,
        f,
        f, // 4 bytes with a cache policy
    ];
    assert_eq!(out, want);
}

/// cp.async.mbarrier.arrive: with .noinc the arrive-on counts against the expected arrivals
/// (init 2 = the thread's arrive + the copy's); without it the count is unchanged (init 1).
#[test]
fn cp_async_mbarrier_arrive() {
    let out = run_k(
        &kernel(
            "
            .shared .align 8 .b64 mb0;
            .shared .align 8 .b64 mb1;
            .shared .align 16 .b32 sm[4];
            .reg .b64 %s<4>;
            mbarrier.init.shared.b64 [mb0], 2;
            mbarrier.init.shared.b64 [mb1], 1;
            cp.async.ca.shared.global [sm], [%rs], 4;
            cp.async.mbarrier.arrive.noinc.shared.b64 [mb0];
            cp.async.mbarrier.arrive.shared::cta.b64 [mb1];
            mbarrier.arrive.shared.b64 %s1, [mb0];
            mbarrier.arrive.shared.b64 %s2, [mb1];
            mbarrier.test_wait.shared.b64 %p1, [mb0], %s1;
            mbarrier.test_wait.shared.b64 %p2, [mb1], %s2;
            ld.shared.u32 %r5, [sm];
            selp.u32 %r6, 10, 0, %p1;
            selp.u32 %r7, 100, 0, %p2;
            add.u32 %r5, %r5, %r6;
            add.u32 %r5, %r5, %r7;
            st.global.u32 [%rd1], %r5;
            ",
        ),
        1,
        &[5],
        1,
    )
    .unwrap();
    assert_eq!(out, vec![115]);
}

/// Operations outside the rules are reported: an arrive on an uninitialized object, an
/// mbarrier in global memory.
#[test]
fn mbarrier_misuse_reported() {
    let e = run_k(
        &kernel(
            "
            .shared .align 8 .b64 mb;
            mbarrier.arrive.shared.b64 _, [mb];
            ",
        ),
        1,
        &[0],
        1,
    )
    .unwrap_err();
    assert!(e.message.contains("not initialized"), "{}", e.message);
    let e = run_k(&kernel("mbarrier.init.b64 [%rd1], 1;"), 1, &[0], 2).unwrap_err();
    assert!(e.message.contains("shared memory window"), "{}", e.message);
}

/// Vector atomics (sm_90), 64 threads on one global buffer `src` (zeroed):
/// - `atom.v4.f32.add` of {1, 2, 0.5, 0.25}: totals {64, 128, 32, 16}; the old x values the
///   threads see are 0, 1, ..., 63 in some order (each add is exact).
/// - `red.v2.f16x2.add.noftz` of 1.0 (0x3c00) in every half: 64.0 = 0x5400 in each.
/// - `atom.v8.f16.max.noftz` of t, (t + 1) % 64, ...: 63.0 = 1.96875 * 2^5 = 0x53e0 (exponent 20, fraction 992) in each element.
/// - `red.v4.bf16.min.noftz` of t - 10 for even t, NaN (ignored by min) for odd: min over
///   {0 (initial), -10, -8, ...} = -10.0 = bf16 0xc120.
#[test]
fn vector_atomics_f32_f16_bf16() {
    let out = run_k2(
        &kernel(
            "
            .reg .b16 %h<16>;
            .reg .f32 %g<8>;
            .reg .b32 %x<4>;
            atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rs], {0f3F800000, 0f40000000, 0f3F000000, 0f3E800000};
            st.global.f32 [%rd1], %f1;
            mov.b32 %x1, 0x3c003c00;
            red.relaxed.gpu.global.v2.f16x2.add.noftz [%rs+16], {%x1, %x1};
            cvt.rn.f16.u32 %h0, %r1;
            add.u32 %r6, %r1, 1; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h1, %r6;
            add.u32 %r6, %r1, 2; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h2, %r6;
            add.u32 %r6, %r1, 3; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h3, %r6;
            add.u32 %r6, %r1, 4; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h4, %r6;
            add.u32 %r6, %r1, 5; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h5, %r6;
            add.u32 %r6, %r1, 6; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h6, %r6;
            add.u32 %r6, %r1, 7; and.b32 %r6, %r6, 63; cvt.rn.f16.u32 %h7, %r6;
            atom.acq_rel.sys.global.v8.f16.max.noftz {_, _, _, _, _, _, _, %h9}, [%rs+32], {%h0, %h1, %h2, %h3, %h4, %h5, %h6, %h7};
            sub.s32 %r7, %r1, 10;
            cvt.rn.f32.s32 %g1, %r7;
            cvt.rn.bf16.f32 %h10, %g1;
            and.b32 %r8, %r1, 1;
            setp.eq.u32 %p2, %r8, 1;
            @%p2 mov.b16 %h10, 0x7fc0;
            cvta.global.u64 %rd3, %rs;
            red.v4.bf16.min.noftz [%rd3+48], {%h10, %h10, %h10, %h10};
            ",
        ),
        64,
        &[0u32; 16],
        64,
    );
    let (out, buf) = out.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        &buf[..4],
        &[
            64f32.to_bits(),
            128f32.to_bits(),
            32f32.to_bits(),
            16f32.to_bits()
        ]
    );
    assert_eq!(&buf[4..6], &[0x5400_5400, 0x5400_5400]);
    assert_eq!(&buf[8..12], &[0x53e0_53e0; 4]);
    assert_eq!(&buf[12..14], &[0xc120_c120; 2]);
    assert_eq!(&buf[14..16], &[0, 0]);
    let mut olds: Vec<f32> = out.iter().map(|&b| f32::from_bits(b)).collect();
    olds.sort_by(f32::total_cmp);
    assert_eq!(olds, (0..64).map(|x| x as f32).collect::<Vec<_>>());
}

/// Combinations outside the ISA's table are load errors naming the instruction.
#[test]
fn vector_atomic_forms_rejected_at_load() {
    for inst in [
        "atom.global.v8.f32.add {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, [%rs], {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
        "atom.shared.v2.f32.add {%f1, %f2}, [%r1], {%f1, %f2};",
        "atom.global.v2.f32.min {%f1, %f2}, [%rs], {%f1, %f2};",
        "red.global.v8.f16x2.add.noftz [%rs], {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1};",
        // 16-bit elements: ptxas rejects .b32 registers for .f16 (ISA 9.4).
        "{ .reg .b16 %h; red.global.v2.f16.add [%rs], {%h, %h}; }",
    ] {
        let src = kernel(inst);
        let e = Module::load(&src, "r.ptx").unwrap_err();
        assert_eq!(e.kind, crate::LoadErrorKind::Unsupported, "{inst}: {e}");
        assert!(e.to_string().contains("unsupported instruction"), "{e}");
    }
}

/// `.b128` (PTX 8.3): mov packing and unpacking (ISA 9.7.9.4: `d = a.x | a.y << 32 | a.z << 64 |
/// a.w << 96`), 16-byte ld/st in global and shared memory, and `atom.cas/.exch.b128`. 64 threads
/// in 4 CTAs each add 1 to a 128-bit counter in global memory with a cas loop (carrying from the
/// low into the high half): every increment must land, so the counter ends 64 higher.
#[test]
fn b128_mov_ld_st_and_atomics() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out)\n{{
        .reg .pred %p<4>;
        .reg .b32 %r<20>;
        .reg .b64 %rd<20>;
        .reg .b128 %q<8>;
        .shared .align 16 .b8 sh[32];
        ld.param.u64 %rd1, [out];
        cvta.to.global.u64 %rd1, %rd1;
        // Every thread: the 128-bit counter at out+64 (lo, hi) += 1, by cas.
        ld.global.b128 %q1, [%rd1+64];
    RETRY:
        mov.b128 {{%rd2, %rd3}}, %q1;
        add.cc.u64 %rd4, %rd2, 1;
        addc.u64 %rd5, %rd3, 0;
        mov.b128 %q2, {{%rd4, %rd5}};
        atom.global.cas.b128 %q3, [%rd1+64], %q1, %q2;
        mov.b128 {{%rd6, %rd7}}, %q3;
        setp.ne.u64 %p1, %rd6, %rd2;
        setp.ne.or.u64 %p1, %rd7, %rd3, %p1;
        mov.b128 %q1, %q3;
        @%p1 bra RETRY;
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, %ctaid.x;
        or.b32 %r1, %r1, %r2;
        setp.ne.u32 %p2, %r1, 0;
        @%p2 bra DONE;
        // Thread 0 of CTA 0: pack 2 x 64, store, load, unpack 4 x 32, repack reversed.
        mov.b64 %rd8, 0x1111111122222222;
        mov.b64 %rd9, 0x3333333344444444;
        mov.b128 %q4, {{%rd8, %rd9}};
        st.global.b128 [%rd1], %q4;
        ld.global.b128 %q5, [%rd1];
        mov.b128 {{%r10, %r11, %r12, %r13}}, %q5;
        mov.b128 %q6, {{%r13, %r12, %r11, %r10}};
        st.global.b128 [%rd1+16], %q6;
        // Shared memory: store, exch (old value back), cas that fails (old unchanged).
        st.shared.b128 [sh], %q4;
        atom.shared.exch.b128 %q7, [sh], %q6;
        st.global.b128 [%rd1+32], %q7;
        atom.shared.cas.b128 %q7, [sh], %q4, %q5;
        ld.shared.b128 %q1, [sh];
        st.global.b128 [%rd1+48], %q1;
        mov.b128 {{_, %rd10}}, %q7;
        st.global.u64 [%rd1+80], %rd10;
    DONE:
        ret;
        }}\n"
    );
    let m = Module::load(&src, "q.ptx").unwrap_or_else(|e| panic!("{e}"));
    let mut init = [0u64; 11];
    init[8] = 0xffff_ffff_ffff_fff0; // the counter's low half: carries after 16 increments
    init[9] = 5;
    let out = upload(&init);
    launch(&m.kernel("k").unwrap(), &cfg(4, 16), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u64> = download(out, 11);
    assert_eq!(
        r,
        vec![
            0x1111_1111_2222_2222, // st of {lo, hi}
            0x3333_3333_4444_4444,
            // 32-bit parts lowest first: r10 = 0x22222222, r11 = 0x11111111, r12 = 0x44444444,
            // r13 = 0x33333333; reversed: lo = r13 | r12 << 32, hi = r11 | r10 << 32.
            0x4444_4444_3333_3333,
            0x2222_2222_1111_1111,
            0x1111_1111_2222_2222, // exch returns the old value (q4)
            0x3333_3333_4444_4444,
            0x4444_4444_3333_3333, // cas compared q4 with q6 in memory: no store, q6 stays
            0x2222_2222_1111_1111,
            0x30,                  // 0xffff_ffff_ffff_fff0 + 64 wraps to 0x30 ...
            6,                     // ... carrying 1 into the high half
            0x2222_2222_1111_1111, // cas's old value: q6's high half
        ]
    );
}
