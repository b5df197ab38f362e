//! `slct`, `brx.idx`, and the cache, scheduling and cluster instructions. Expected values come
//! from the ISA's definitions, worked out in the comments (never from running the engine).

use super::{run_out, HEAD, PRO};
use crate::{launch, LaunchConfig, Module};

/// slct (ISA 9.7.6.4): d = (c >= 0) ? a : b. For `.f32` c: -0 equals 0 (a), NaN is unordered
/// (b), a negative subnormal is < 0 (b) unless `.ftz` flushes it to -0 (a).
#[test]
fn slct_every_dtype_and_the_f32_rules() {
    let out = run_out(
        &format!(
            "{PRO}
            .reg .b16 %h<4>;
            .reg .b64 %rl<8>;
            .reg .f64 %fd<4>;
            mov.u32 %r5, 111;
            mov.u32 %r6, 222;
            slct.u32.s32 %r7, %r5, %r6, 0;              // c = 0 >= 0: a = 111
            st.global.u32 [%rd1], %r7;
            slct.b32.s32 %r7, %r5, %r6, -1;             // c = -1 < 0: b = 222
            st.global.u32 [%rd1+4], %r7;
            mov.u32 %r8, 0x80000000;
            slct.s32.s32 %r7, %r5, %r6, %r8;            // c = -2^31 < 0: 222
            st.global.u32 [%rd1+8], %r7;
            mov.u32 %r8, 0x7fffffff;
            slct.s32.s32 %r7, %r5, %r6, %r8;            // c = 2^31-1 >= 0: 111
            st.global.u32 [%rd1+12], %r7;
            mov.f32 %f1, 0f80000000;
            slct.u32.f32 %r7, %r5, %r6, %f1;            // -0 equals 0: 111
            st.global.u32 [%rd1+16], %r7;
            mov.f32 %f1, 0f7FC00000;
            slct.u32.f32 %r7, %r5, %r6, %f1;            // NaN: unordered, 222
            st.global.u32 [%rd1+20], %r7;
            mov.f32 %f1, 0f80000001;
            slct.u32.f32 %r7, %r5, %r6, %f1;            // -2^-149 < 0: 222
            st.global.u32 [%rd1+24], %r7;
            slct.ftz.u32.f32 %r7, %r5, %r6, %f1;        // flushed to -0: 111
            st.global.u32 [%rd1+28], %r7;
            mov.f32 %f1, 0fBF800000;
            slct.ftz.u32.f32 %r7, %r5, %r6, %f1;        // -1.0 < 0: 222
            st.global.u32 [%rd1+32], %r7;
            mov.f32 %f1, 0fFF800000;
            slct.s32.f32 %r7, %r5, %r6, %f1;            // -inf < 0: 222
            st.global.u32 [%rd1+36], %r7;
            mov.f32 %f1, 0f00000001;
            mov.f32 %f2, 0f3F800000;                    // 1.0
            mov.f32 %f3, 0fC0000000;                    // -2.0
            slct.f32.f32 %f4, %f2, %f3, %f1;            // +2^-149 >= 0: 1.0
            st.global.f32 [%rd1+40], %f4;
            slct.f32.s32 %f4, %f2, %f3, -7;             // -7 < 0: -2.0
            st.global.f32 [%rd1+44], %f4;
            // 16-bit: the selected half-word, unchanged.
            mov.b16 %h1, 0xabcd;
            mov.b16 %h2, 0x1234;
            slct.u16.s32 %h3, %h1, %h2, 7;              // 7 >= 0: 0xabcd
            cvt.u32.u16 %r9, %h3;
            st.global.u32 [%rd1+48], %r9;
            slct.s16.f32 %h3, %h1, %h2, %f3;            // -2.0 < 0: 0x1234
            cvt.u32.u16 %r9, %h3;
            st.global.u32 [%rd1+52], %r9;
            slct.b16.s32 %h3, %h1, %h2, 0;              // 0: 0xabcd
            cvt.u32.u16 %r9, %h3;
            st.global.u32 [%rd1+56], %r9;
            // 64-bit.
            mov.b64 %rl1, 0x1122334455667788;
            mov.b64 %rl2, 0x99aabbccddeeff00;
            slct.b64.s32 %rl3, %rl1, %rl2, -5;          // b
            st.global.u64 [%rd1+64], %rl3;
            slct.u64.f32 %rl3, %rl1, %rl2, %f1;         // +2^-149: a
            st.global.u64 [%rd1+72], %rl3;
            slct.s64.s32 %rl3, %rl1, %rl2, 3;           // a
            st.global.u64 [%rd1+80], %rl3;
            mov.f64 %fd1, 0d4000000000000000;           // 2.0
            mov.f64 %fd2, 0dC008000000000000;           // -3.0
            mov.f32 %f1, 0f7F800000;                    // +inf >= 0: a
            slct.f64.f32 %fd3, %fd1, %fd2, %f1;
            st.global.f64 [%rd1+88], %fd3;
            slct.ftz.f64.f32 %fd3, %fd1, %fd2, %f3;     // -2.0: b
            st.global.f64 [%rd1+96], %fd3;
            "
        ),
        1,
        1,
        26,
    );
    let want32 = [
        111,
        222,
        222,
        111,
        111,
        222,
        222,
        111,
        222,
        222,
        1.0f32.to_bits(),
        (-2.0f32).to_bits(),
        0xabcd,
        0x1234,
        0xabcd,
    ];
    assert_eq!(&out[..15], &want32);
    let u64_at = |k: usize| out[k] as u64 | (out[k + 1] as u64) << 32;
    assert_eq!(u64_at(16), 0x99aa_bbcc_ddee_ff00);
    assert_eq!(u64_at(18), 0x1122_3344_5566_7788);
    assert_eq!(u64_at(20), 0x1122_3344_5566_7788);
    assert_eq!(u64_at(22), 2.0f64.to_bits());
    assert_eq!(u64_at(24), (-3.0f64).to_bits());
}

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

/// brx.idx (ISA 9.7.12.4): each lane continues at tlist[index]; divergent groups reconverge at
/// the branch's post-dominator (checked with activemask there), a guarded `.uni` form, and a
/// backward brx closing a loop whose trip count differs per lane.
#[test]
fn brx_idx_divergent_guarded_and_looping() {
    let out = run_out(
        &format!(
            "{PRO}
            rem.u32 %r5, %r1, 3;
            mov.u32 %r6, 0;
            ts: .branchtargets L0, L1, L2;
            brx.idx %r5, ts;
        L0:
            add.u32 %r6, %r6, 100;
            bra.uni DONE;
        L1:
            add.u32 %r6, %r6, 200;      // falls through into L2
        L2:
            add.u32 %r6, %r6, 7;
        DONE:
            activemask.b32 %r7;
            st.global.u32 [%rd1], %r6;
            st.global.u32 [%rd1+128], %r7;
            // Guarded, uniform index 1 among the lanes that branch (lanes < 16).
            setp.lt.u32 %p1, %r1, 16;
            mov.u32 %r8, 5;
            mov.u32 %r9, 1;
            tu: .branchtargets A0, A1;
            @%p1 brx.idx.uni %r9, tu;
            mov.u32 %r8, 6;             // lanes >= 16 fall through
            bra.uni B;
        A0:
            mov.u32 %r8, 1000;
            bra.uni B;
        A1:
            mov.u32 %r8, 2000;
        B:
            st.global.u32 [%rd1+256], %r8;
            // Backward brx: r10 counts to max(1, lane).
            mov.u32 %r10, 0;
            tl: .branchtargets LOOP, OUT;
        LOOP:
            add.u32 %r10, %r10, 1;
            setp.lt.u32 %p2, %r10, %r1;
            selp.u32 %r11, 0, 1, %p2;
            brx.idx %r11, tl;
        OUT:
            activemask.b32 %r12;
            st.global.u32 [%rd1+384], %r10;
            st.global.u32 [%rd1+512], %r12;
            "
        ),
        1,
        32,
        160,
    );
    for l in 0..32usize {
        let want = [100, 207, 7][l % 3];
        assert_eq!(out[l], want, "lane {l}");
        assert_eq!(
            out[32 + l],
            u32::MAX,
            "reconverged after the switch, lane {l}"
        );
        assert_eq!(out[64 + l], if l < 16 { 2000 } else { 6 }, "lane {l}");
        assert_eq!(out[96 + l], (l as u32).max(1), "lane {l}");
        assert_eq!(
            out[128 + l],
            u32::MAX,
            "reconverged after the loop, lane {l}"
        );
    }
}

/// An index past the list is undefined behaviour in the ISA: reported as a launch error naming
/// the kernel, the first offending thread and the PTX line.
#[test]
fn brx_idx_out_of_range_is_a_launch_error() {
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\n\
         t: .branchtargets X, Y;\nbrx.idx %r1, t;\nX:\nret;\nY:\nret;\n}}\n"
    );
    let m = Module::load(&src, "b.ptx").unwrap_or_else(|e| panic!("{e}"));
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [8, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let e = launch(&m.kernel("k").unwrap(), &cfg, &[]).unwrap_err();
    assert_eq!(e.kind, crate::ExecErrorKind::Trap);
    assert!(e.message.contains("brx.idx index 2"), "{}", e.message);
    assert!(e.message.contains("thread (2,0,0)"), "{}", e.message);
    assert!(e.message.contains("PTX line 9"), "{}", e.message);
    assert!(e.message.contains("kernel 'k'"), "{}", e.message);
}

#[test]
fn brx_idx_target_list_errors() {
    for (body, what) in [
        ("brx.idx %r1, nolist;\n", "not a .branchtargets"),
        (
            "t: .branchtargets X, Q;\nbrx.idx %r1, t;\nX:\nret;\n",
            "undefined label 'Q'",
        ),
    ] {
        let src = format!("{HEAD}.visible .entry k()\n{{\n.reg .b32 %r<4>;\n{body}}}\n");
        let e = Module::load(&src, "b.ptx").unwrap_err();
        assert_eq!(e.kind, crate::LoadErrorKind::InvalidPtx, "{e}");
        assert!(e.to_string().contains(what), "{e}");
    }
}

/// Cache, scheduling and proxy instructions run as no-ops (nothing a CPU computes depends on
/// them); createpolicy yields a value ld/st `.L2::cache_hint` accept; the cluster instructions
/// see each CTA as its own 1x1x1 cluster: `mapa` to rank 0 and `cvta.shared::cluster` give the
/// CTA's own shared addresses, `getctarank` is 0, and `barrier.cluster.wait` waits for the
/// whole CTA (two warps exchange values through shared memory across it).
#[test]
fn cache_scheduling_and_cluster_instructions() {
    let out = run_out(
        &format!(
            "{PRO}
            .shared .align 4 .b32 sh[64];
            .reg .b64 %rl<16>;
            createpolicy.fractional.L2::evict_last.b64 %rl1, 1.0;
            createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rl2, 0.5;
            createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rl3, [%rd1], 64, 128;
            createpolicy.cvt.L2.b64 %rl4, %rl1;
            prefetch.global.L1 [%rd1];
            prefetch.global.L2::evict_last [%rd1];
            prefetch.local.L2 [%rd1];
            prefetchu.L1 [%rd1];
            prefetch.tensormap [%rd1];
            applypriority.global.L2::evict_normal [%rd1], 128;
            griddepcontrol.wait;
            griddepcontrol.launch_dependents;
            setmaxnreg.inc.sync.aligned.u32 64;
            fence.proxy.alias;
            fence.proxy.async;
            fence.proxy.async.global;
            fence.proxy.async.shared::cta;
            membar.proxy.alias;
            fence.proxy.tensormap::generic.release.gpu;
            fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
            fence.mbarrier_init.release.cluster;
            // Each thread stores tid + 1 through the policy-hinted store, reads it back.
            add.u32 %r5, %r1, 1;
            st.global.L2::cache_hint.u32 [%rd1], %r5, %rl1;
            ld.global.L2::cache_hint.u32 %r6, [%rd1], %rl2;
            // Shared through the cluster window: mapa to rank 0, cvta.shared::cluster.
            mov.u32 %r7, sh;
            shl.b32 %r8, %r1, 2;
            add.u32 %r9, %r7, %r8;
            mapa.shared::cluster.u32 %r10, %r9, 0;
            st.shared::cluster.u32 [%r10], %r6;
            getctarank.shared::cluster.u32 %r11, %r10;
            barrier.cluster.arrive.relaxed.aligned;
            barrier.cluster.wait.aligned;
            // Read the value of thread (tid + 32) % 64, written by the other warp.
            add.u32 %r12, %r1, 32;
            and.b32 %r12, %r12, 63;
            shl.b32 %r12, %r12, 2;
            add.u32 %r12, %r7, %r12;
            cvta.shared::cluster.u64 %rl5, sh;
            cvt.u64.u32 %rl6, %r12;
            sub.u32 %r13, %r12, %r7;
            cvt.u64.u32 %rl7, %r13;
            add.u64 %rl8, %rl5, %rl7;
            ld.u32 %r14, [%rl8];
            st.global.u32 [%rd1], %r14;
            // Predicates: a generic shared address is in .shared, .shared::cta,
            // .shared::cluster; a global one in .global only; nothing is in .param.
            isspacep.shared %p1, %rl8;
            isspacep.shared::cta %p2, %rl8;
            isspacep.shared::cluster %p3, %rl8;
            isspacep.global %p4, %rl8;
            isspacep.global %p5, %rd1;
            isspacep.param %p6, %rd1;
            isspacep.local %p7, %rd1;
            selp.u32 %r15, 1, 0, %p1;
            selp.u32 %r16, 2, 0, %p2;
            or.b32 %r15, %r15, %r16;
            selp.u32 %r16, 4, 0, %p3;
            or.b32 %r15, %r15, %r16;
            selp.u32 %r16, 8, 0, %p4;
            or.b32 %r15, %r15, %r16;
            selp.u32 %r16, 16, 0, %p5;
            or.b32 %r15, %r15, %r16;
            selp.u32 %r16, 32, 0, %p6;
            or.b32 %r15, %r15, %r16;
            selp.u32 %r16, 64, 0, %p7;
            or.b32 %r15, %r15, %r16;
            mov.u32 %r17, %cluster_nctarank;
            shl.b32 %r17, %r17, 8;
            or.b32 %r15, %r15, %r17;
            shl.b32 %r11, %r11, 12;
            or.b32 %r15, %r15, %r11;
            st.global.u32 [%rd1+256], %r15;
            // The policies are 64-bit values ld/st took; createpolicy.cvt converts one.
            setp.eq.u64 %p1, %rl4, %rl1;
            selp.u32 %r18, 1, 0, %p1;
            st.global.u32 [%rd1+512], %r18;
            discard.global.L2 [%rd1], 128;
            "
        ),
        1,
        64,
        192,
    );
    for t in 0..64usize {
        // Thread t read what thread (t + 32) % 64 stored: its tid + 1.
        assert_eq!(out[t] as usize, (t + 32) % 64 + 1, "thread {t}");
        // shared, shared::cta, shared::cluster (1|2|4), global of a global address (16),
        // %cluster_nctarank = 1 (<< 8), getctarank = 0 (<< 12).
        assert_eq!(out[64 + t], 1 | 2 | 4 | 16 | 1 << 8, "thread {t}");
        assert_eq!(out[128 + t], 1, "thread {t}");
    }
}

/// `mapa` to a CTA rank other than 0 names a CTA that does not exist in a 1x1x1 cluster: the
/// address it yields faults at its first access (larger clusters: `tests::cluster`).
#[test]
fn other_cluster_ranks_are_errors() {
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n.shared .b32 sh[4];\n.reg .b32 %r<4>;\n\
         mapa.shared::cluster.u32 %r1, sh, 1;\nld.shared::cluster.u32 %r2, [%r1];\nret;\n}}\n"
    );
    let m = Module::load(&src, "c.ptx").unwrap_or_else(|e| panic!("{e}"));
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let e = launch(&m.kernel("k").unwrap(), &cfg, &[]).unwrap_err();
    assert_eq!(e.kind, crate::ExecErrorKind::IllegalAddress, "{e}");
    assert!(e.message.contains("PTX line 9"), "{}", e.message);
}

/// Generic addresses of kernel parameters (ISA 9.7.9.20, 9.7.9.19): `cvta.param` of a
/// parameter's address gives a generic (global-window) address that ordinary loads read;
/// `cvta.to.param` returns the parameter address; `isspacep.param` holds exactly inside the
/// parameter block (here 16 bytes: `a` at 0, `out` at 8).
#[test]
fn kernel_parameters_through_generic_addresses() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 a, .param .u64 out)\n{{
        .reg .pred %p<4>;
        .reg .b32 %r<8>;
        .reg .b64 %rd<12>;
        ld.param.u64 %rd1, [out];
        cvta.to.global.u64 %rd1, %rd1;
        mov.b64 %rd2, a;
        cvta.param.u64 %rd3, %rd2;
        ld.u32 %r1, [%rd3];             // low word of a, through the generic address
        ld.u32 %r2, [%rd3+4];           // high word
        st.global.u32 [%rd1], %r1;
        st.global.u32 [%rd1+4], %r2;
        cvta.to.param.u64 %rd4, %rd3;
        ld.param.u64 %rd5, [%rd4];      // a again, through the parameter address
        st.global.u64 [%rd1+8], %rd5;
        isspacep.param %p1, %rd3;       // offset 0: inside
        add.u64 %rd6, %rd3, 15;
        isspacep.param %p2, %rd6;       // offset 15: inside
        add.u64 %rd7, %rd3, 16;
        isspacep.param %p3, %rd7;       // offset 16: past the block
        isspacep.param %p0, %rd1;       // the output buffer: not a parameter
        selp.u32 %r3, 1, 0, %p1;
        selp.u32 %r4, 1, 0, %p2;
        selp.u32 %r5, 1, 0, %p3;
        selp.u32 %r6, 1, 0, %p0;
        st.global.v4.u32 [%rd1+16], {{%r3, %r4, %r5, %r6}};
        }}\n"
    );
    let m = Module::load(&src, "p.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = super::upload(&[0u32; 8]);
    let a: u64 = 0x1122_3344_5566_7788;
    let mut params = a.to_le_bytes().to_vec();
    params.extend_from_slice(&out.to_le_bytes());
    launch(&m.kernel("k").unwrap(), &super::cfg(1, 32), &params).unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = super::download(out, 8);
    assert_eq!(
        r,
        vec![
            0x5566_7788,
            0x1122_3344,
            0x5566_7788,
            0x1122_3344,
            1,
            1,
            0,
            0
        ]
    );
}
