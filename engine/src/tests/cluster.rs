//! Thread-block clusters of several CTAs: `barrier.cluster` over every thread of the cluster,
//! `mapa` (`.shared::cluster` and generic) and ld/st/atom/red on another CTA's shared memory,
//! an mbarrier arrived on from other CTAs, the cluster special registers and the launch checks.
//! Expected values follow from the ISA's definitions (9.7.13.3 barrier.cluster, 9.7.9.23 mapa,
//! 9.7.9.24 getctarank, chapter 10 cluster registers: ranks x-fastest within the cluster),
//! computed by hand in each test.

use super::{download, mem, upload};
use crate::{launch, launch_cooperative, ExecErrorKind, LaunchConfig, Module};

const HEAD90: &str = ".version 9.5\n.target sm_90\n.address_size 64\n";

fn load(body: &str) -> std::sync::Arc<crate::Kernel> {
    let src = format!("{HEAD90}.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n");
    let m = Module::load(&src, "cluster.ptx").unwrap_or_else(|e| panic!("{e}"));
    m.kernel("k").unwrap()
}

fn cfg(grid: [u32; 3], block: u32, cluster: [u32; 3]) -> LaunchConfig {
    LaunchConfig {
        grid,
        block: [block, 1, 1],
        dynamic_shared_bytes: 0,
        cluster,
        explicit_cluster: cluster != [1, 1, 1],
    }
}

/// Runs `k(out)` with `n` u32 of zeroed output, cooperatively or not.
fn run(
    k: &std::sync::Arc<crate::Kernel>,
    c: &LaunchConfig,
    n: usize,
    coop: bool,
) -> Result<Vec<u32>, crate::ExecError> {
    let out = upload(&vec![0u32; n]);
    let p = out.to_le_bytes();
    let r = if coop {
        launch_cooperative(k, c, &p)
    } else {
        launch(k, c, &p)
    };
    let v = download(out, n);
    mem::free(out).unwrap();
    r.map(|_| v)
}

/// Each CTA stores `ctaid * 1000 + tid` in its shared array; after a cluster barrier each
/// thread reads the next rank's element through `mapa.shared::cluster` + `ld.shared::cluster`
/// (out[g]) and the previous rank's through generic `mapa.u64` + generic `ld` (out[N + g]).
/// A second barrier keeps every CTA's shared memory alive until its peers read it.
const EXCHANGE: &str = "
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b32 sh[64];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd1, %rd1, %rd2;
    mad.lo.s32 %r5, %r2, 1000, %r1;
    mov.u32 %r6, sh;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    mov.u32 %r9, %cluster_ctarank;
    mov.u32 %r10, %cluster_nctarank;
    add.u32 %r11, %r9, 1;
    rem.u32 %r11, %r11, %r10;
    mapa.shared::cluster.u32 %r12, %r8, %r11;
    ld.shared::cluster.u32 %r13, [%r12];
    st.global.u32 [%rd1], %r13;
    add.u32 %r14, %r9, %r10;
    sub.u32 %r14, %r14, 1;
    rem.u32 %r14, %r14, %r10;
    cvta.shared.u64 %rd3, sh;
    cvt.u64.u32 %rd4, %r7;
    add.s64 %rd3, %rd3, %rd4;
    mapa.u64 %rd5, %rd3, %r14;
    ld.u32 %r15, [%rd5];
    mov.u32 %r16, %nctaid.x;
    mul.lo.s32 %r16, %r16, %r3;
    mul.wide.u32 %rd6, %r16, 4;
    add.s64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r15;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    ret;
";

#[test]
fn neighbours_shared_memory_through_mapa() {
    let k = load(EXCHANGE);
    let nt = 64u32;
    for (grid, cl, coop, threads) in [
        (8u32, 2u32, false, 0usize),
        (8, 4, false, 2),
        (16, 8, false, 1),
        (8, 4, true, 2),
        (4, 1, false, 0),
    ] {
        crate::set_worker_threads(threads);
        let n = (grid * nt) as usize;
        let out = run(&k, &cfg([grid, 1, 1], nt, [cl, 1, 1]), 2 * n, coop)
            .unwrap_or_else(|e| panic!("clusters of {cl}: {e}"));
        for c in 0..grid {
            let (r, base) = (c % cl, c - c % cl);
            let next = base + (r + 1) % cl;
            let prev = base + (r + cl - 1) % cl;
            for t in 0..nt {
                let g = (c * nt + t) as usize;
                assert_eq!(
                    out[g],
                    next * 1000 + t,
                    "next, cta {c} t {t} (cluster {cl})"
                );
                assert_eq!(
                    out[n + g],
                    prev * 1000 + t,
                    "prev, cta {c} t {t} (cluster {cl})"
                );
            }
        }
    }
    crate::set_worker_threads(0);
}

/// A 4x2 grid in 2x2 clusters: thread 0 of each CTA writes the cluster registers; threads
/// 0..4 read `sh[0]` (the owner's linear ctaid) of rank t through `mapa` and check
/// `getctarank` of that address and of an own address, and `isspacep.shared::{cta,cluster}` of
/// its generic form (the executing CTA's window only, resp. any CTA of the cluster).
#[test]
fn two_dimensional_clusters_registers_and_ranks() {
    let k = load(
        "
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b32 sh[4];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ctaid.y;
    mov.u32 %r4, %nctaid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mul.lo.s32 %r6, %r5, 16;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd1, %rd1, %rd2;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $Lskip;
    st.shared.u32 [sh], %r5;
    mov.u32 %r10, %cluster_ctaid.x;
    mov.u32 %r11, %cluster_ctaid.y;
    mov.u32 %r12, %cluster_ctarank;
    mov.u32 %r13, %cluster_nctarank;
    mov.u32 %r14, %clusterid.x;
    mov.u32 %r15, %clusterid.y;
    mov.u32 %r16, %nclusterid.x;
    mov.u32 %r17, %nclusterid.y;
    mov.u32 %r18, %cluster_nctaid.x;
    mov.u32 %r19, %cluster_nctaid.y;
    mov.pred %p3, %is_explicit_cluster;   // a .pred register (ISA 10.11; ptxas refuses mov.u32)
    selp.u32 %r20, 1, 0, %p3;
    st.global.v4.u32 [%rd1], {%r10, %r11, %r12, %r13};
    st.global.v4.u32 [%rd1+16], {%r14, %r15, %r16, %r17};
    st.global.v2.u32 [%rd1+32], {%r18, %r19};
    st.global.u32 [%rd1+40], %r20;
    mov.u32 %r21, sh;
    getctarank.shared::cluster.u32 %r22, %r21;
    st.global.u32 [%rd1+44], %r22;
$Lskip:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.ge.u32 %p2, %r1, 4;
    @%p2 bra $Lend;
    mov.u32 %r23, sh;
    mapa.shared::cluster.u32 %r24, %r23, %r1;
    ld.shared::cluster.u32 %r25, [%r24];
    getctarank.shared::cluster.u32 %r26, %r24;
    shl.b32 %r27, %r26, 8;
    or.b32 %r25, %r25, %r27;
    cvt.u64.u32 %rd5, %r24;
    cvta.shared::cluster.u64 %rd6, %rd5;
    isspacep.shared::cta %p3, %rd6;
    isspacep.shared::cluster %p4, %rd6;
    selp.u32 %r28, 0x10000, 0, %p3;
    selp.u32 %r29, 0x20000, 0, %p4;
    or.b32 %r25, %r25, %r28;
    or.b32 %r25, %r25, %r29;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4+48], %r25;
$Lend:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
",
    );
    let out =
        run(&k, &cfg([4, 2, 1], 64, [2, 2, 1]), 8 * 16, false).unwrap_or_else(|e| panic!("{e}"));
    for y in 0..2u32 {
        for x in 0..4u32 {
            let lin = (x + 4 * y) as usize;
            let o = &out[lin * 16..lin * 16 + 16];
            let rank = x % 2 + 2 * (y % 2);
            let regs = [x % 2, y % 2, rank, 4, x / 2, y / 2, 2, 1, 2, 2, 1, rank];
            assert_eq!(&o[..12], &regs, "cta ({x},{y})");
            for t in 0..4u32 {
                // Rank t of this cluster is CTA (2 * (x / 2) + t % 2, 2 * (y / 2) + t / 2).
                let owner = (2 * (x / 2) + t % 2) + 4 * (2 * (y / 2) + t / 2);
                // isspacep.shared::cta only for the own rank, .shared::cluster for every rank.
                let own = ((t == rank) as u32) << 16;
                assert_eq!(
                    o[12 + t as usize],
                    owner | t << 8 | own | 1 << 17,
                    "cta ({x},{y}) rank {t}"
                );
            }
        }
    }
}

/// A distributed histogram: each CTA of a cluster of 4 owns 8 of 32 bins in its shared
/// memory; every thread adds 1 to bin `(v * v) % 32` (v its global id) in the owning CTA, by
/// `atom.shared::cluster` (t % 3 == 0), `red.shared::cluster` (1) or generic `atom` on a
/// `mapa.u64` address (2). After the barrier each CTA writes its bins out.
#[test]
fn distributed_histogram_with_remote_atomics() {
    let k = load(
        "
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b32 bins[8];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r9, %cluster_ctarank;
    mov.u32 %r20, bins;
    setp.lt.u32 %p1, %r1, 8;
    shl.b32 %r21, %r1, 2;
    add.u32 %r22, %r20, %r21;
    @%p1 st.shared.u32 [%r22], 0;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.lo.s32 %r5, %r4, %r4;
    and.b32 %r5, %r5, 31;
    shr.u32 %r6, %r5, 3;
    and.b32 %r7, %r5, 7;
    shl.b32 %r7, %r7, 2;
    add.u32 %r8, %r20, %r7;
    rem.u32 %r10, %r1, 3;
    setp.eq.u32 %p2, %r10, 0;
    @!%p2 bra $Lnot0;
    mapa.shared::cluster.u32 %r11, %r8, %r6;
    atom.shared::cluster.add.u32 %r12, [%r11], 1;
    bra $Ldone;
$Lnot0:
    setp.eq.u32 %p3, %r10, 1;
    @!%p3 bra $Lnot1;
    mapa.shared::cluster.u32 %r11, %r8, %r6;
    red.relaxed.cluster.shared::cluster.add.u32 [%r11], 1;
    bra $Ldone;
$Lnot1:
    cvta.shared.u64 %rd2, bins;
    cvt.u64.u32 %rd3, %r7;
    add.s64 %rd2, %rd2, %rd3;
    mapa.u64 %rd4, %rd2, %r6;
    atom.add.u32 %r12, [%rd4], 1;
$Ldone:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @!%p1 bra $Lend;
    ld.shared.u32 %r13, [%r22];
    mov.u32 %r14, %clusterid.x;
    mad.lo.s32 %r15, %r14, 4, %r9;
    mad.lo.s32 %r15, %r15, 8, %r1;
    mul.wide.u32 %rd5, %r15, 4;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r13;
$Lend:
    ret;
",
    );
    let (grid, nt) = (8u32, 96u32);
    let out =
        run(&k, &cfg([grid, 1, 1], nt, [4, 1, 1]), 64, false).unwrap_or_else(|e| panic!("{e}"));
    for cl in 0..2u32 {
        let mut want = [0u32; 32];
        for c in cl * 4..cl * 4 + 4 {
            for t in 0..nt {
                let v = c * nt + t;
                want[(v.wrapping_mul(v) % 32) as usize] += 1;
            }
        }
        assert_eq!(
            &out[cl as usize * 32..cl as usize * 32 + 32],
            &want,
            "cluster {cl}"
        );
    }
}

/// Three phases of a ring exchange over two CTAs, where the upper half of rank 1 exits (after a
/// delay, so that the others already wait on it): the barrier then waits only for the threads
/// left. Thread t reads the other rank's element t % 32, written as `i * 100 + rank * 10 + t`,
/// in phases i = 0..3: sum 300 + 3 * (other * 10 + t % 32).
#[test]
fn cluster_barrier_phases_with_exited_threads() {
    let k = load(
        "
    .reg .pred %p<4>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b32 sh[64];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.s32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd1, %rd1, %rd2;
    mov.u32 %r9, %cluster_ctarank;
    setp.eq.u32 %p1, %r9, 1;
    setp.ge.u32 %p2, %r1, 32;
    and.pred %p3, %p1, %p2;
    @!%p3 bra $Lstay;
    mov.u32 %r30, 0;
$Lspin:
    add.u32 %r30, %r30, 1;
    setp.lt.u32 %p1, %r30, 5000;
    @%p1 bra $Lspin;
    exit;
$Lstay:
    xor.b32 %r10, %r9, 1;
    and.b32 %r11, %r1, 31;
    shl.b32 %r12, %r11, 2;
    mov.u32 %r13, sh;
    add.u32 %r14, %r13, %r12;
    mapa.shared::cluster.u32 %r15, %r14, %r10;
    shl.b32 %r16, %r1, 2;
    add.u32 %r16, %r13, %r16;
    mad.lo.s32 %r17, %r9, 10, %r1;
    mov.u32 %r18, 0;
    mov.u32 %r19, 0;
$Lphase:
    mad.lo.s32 %r20, %r18, 100, %r17;
    st.shared.u32 [%r16], %r20;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ld.shared::cluster.u32 %r21, [%r15];
    add.u32 %r19, %r19, %r21;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    add.u32 %r18, %r18, 1;
    setp.lt.u32 %p1, %r18, 3;
    @%p1 bra $Lphase;
    st.global.u32 [%rd1], %r19;
    ret;
",
    );
    let out = run(&k, &cfg([2, 1, 1], 64, [2, 1, 1]), 128, false).unwrap_or_else(|e| panic!("{e}"));
    for c in 0..2u32 {
        for t in 0..64u32 {
            let g = (c * 64 + t) as usize;
            let want = if c == 1 && t >= 32 {
                0
            } else {
                300 + 3 * ((1 - c) * 10 + t % 32)
            };
            assert_eq!(out[g], want, "cta {c} t {t}");
        }
    }
}

/// Ranks 1..4 store into rank 0's shared memory and arrive on its mbarrier (initialised for
/// 3 arrivals) through `mbarrier.arrive.shared::cluster`; rank 0 waits on phase 0 and sums
/// what they stored: 7 + 14 + 21 = 42.
#[test]
fn remote_mbarrier_arrive() {
    let k = load(
        "
    .reg .pred %p<8>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<16>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b32 data[4];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r9, %cluster_ctarank;
    mov.u32 %r2, %clusterid.x;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd1, %rd1, %rd2;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p2, %r9, 0;
    and.pred %p3, %p1, %p2;
    @%p3 mbarrier.init.shared::cta.b64 [bar], 3;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @!%p1 bra $Lend;
    @%p2 bra $Lowner;
    mov.u32 %r3, data;
    shl.b32 %r4, %r9, 2;
    add.u32 %r3, %r3, %r4;
    mapa.shared::cluster.u32 %r5, %r3, 0;
    mul.lo.s32 %r6, %r9, 7;
    st.shared::cluster.u32 [%r5], %r6;
    mov.u32 %r7, bar;
    mapa.shared::cluster.u32 %r8, %r7, 0;
    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r8];
    bra $Lend;
$Lowner:
    mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 0;
    @!%p4 bra $Lowner;
    ld.shared.u32 %r10, [data+4];
    ld.shared.u32 %r11, [data+8];
    ld.shared.u32 %r12, [data+12];
    add.u32 %r10, %r10, %r11;
    add.u32 %r10, %r10, %r12;
    st.global.u32 [%rd1], %r10;
$Lend:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
",
    );
    let out = run(&k, &cfg([8, 1, 1], 32, [4, 1, 1]), 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [42, 42]);
}

/// What the ISA leaves undefined or the launch cannot do is reported: a wait before any
/// arrival, a second arrival in one phase, a rank outside the cluster, clusters of more than
/// 16 CTAs. A kernel declaring `.reqnctapercluster` runs with that shape when the launch names
/// none, and refuses another.
#[test]
fn cluster_errors_and_required_shape() {
    let c2 = cfg([4, 1, 1], 32, [2, 1, 1]);
    let k = load("barrier.cluster.wait;\nret;");
    let e = run(&k, &c2, 1, false).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap, "{e}");
    assert!(e.message.contains("without having arrived"), "{e}");
    let k = load("barrier.cluster.arrive;\nbarrier.cluster.arrive;\nret;");
    let e = run(&k, &c2, 1, false).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap, "{e}");
    assert!(e.message.contains("second time"), "{e}");
    let k = load(
        ".shared .b32 sh[4];\n.reg .b32 %r<4>;\n\
         mapa.shared::cluster.u32 %r1, sh, 2;\nld.shared::cluster.u32 %r2, [%r1];\nret;",
    );
    let e = run(&k, &c2, 1, false).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{e}");
    let k = load("ret;");
    let e = run(&k, &cfg([17, 1, 1], 32, [17, 1, 1]), 1, false).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::InvalidLaunch, "{e}");
    let src = format!(
        "{HEAD90}.visible .entry c(.param .u64 out) .reqnctapercluster 2, 1, 1\n{{\n\
         .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [out];\n\
         mov.u32 %r1, %cluster_nctarank;\nst.global.u32 [%rd1], %r1;\nret;\n}}\n"
    );
    let m = Module::load(&src, "c.ptx").unwrap_or_else(|e| panic!("{e}"));
    let c = m.kernel("c").unwrap();
    let out = run(&c, &cfg([2, 1, 1], 32, [1, 1, 1]), 1, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [2]);
    let e = run(&c, &cfg([4, 1, 1], 32, [4, 1, 1]), 1, false).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::InvalidLaunch, "{e}");
    assert!(e.message.contains("reqnctapercluster"), "{e}");
}

/// `%is_explicit_cluster` is true whenever the launch named a cluster shape, a 1x1x1 one
/// included, or the kernel declared `.reqnctapercluster` (ISA 10.11); false for an implicit
/// launch. A `.explicitcluster` kernel launched without a shape is an invalid launch (11.7.2).
#[test]
fn explicit_cluster_register() {
    let body = ".reg .pred %p1;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
                ld.param.u64 %rd1, [out];\nmov.pred %p1, %is_explicit_cluster;\n\
                selp.u32 %r1, 1, 0, %p1;\nst.global.v2.u32 [%rd1], {%r1, %r1};\nret;";
    let k = load(body);
    let implicit = cfg([2, 1, 1], 32, [1, 1, 1]);
    let out = run(&k, &implicit, 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [0, 0]);
    let explicit = LaunchConfig {
        explicit_cluster: true,
        ..implicit
    };
    let out = run(&k, &explicit, 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [1, 1]);
    let required = format!(
        "{HEAD90}.visible .entry r(.param .u64 out) .reqnctapercluster 1, 1, 1\n{{\n{body}\n}}\n\
         .visible .entry e(.param .u64 out) .explicitcluster\n{{\n{body}\n}}\n"
    );
    let m = Module::load(&required, "r.ptx").unwrap_or_else(|e| panic!("{e}"));
    let r = m.kernel("r").unwrap();
    let out = run(&r, &implicit, 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [1, 1]);
    let e = m.kernel("e").unwrap();
    let err = run(&e, &implicit, 2, false).unwrap_err();
    assert_eq!(err.kind, ExecErrorKind::InvalidLaunch, "{err}");
    assert!(err.message.contains(".explicitcluster"), "{err}");
    let out = run(&e, &explicit, 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [1, 1]);
}

/// `%is_explicit_cluster` guards an instruction directly (ptxas 13.5 accepts
/// `@%is_explicit_cluster` and `@!%is_explicit_cluster`).
#[test]
fn explicit_cluster_register_as_guard() {
    let body = ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
                ld.param.u64 %rd1, [out];\nmov.u32 %r1, 0;\nmov.u32 %r2, 0;\n\
                @%is_explicit_cluster mov.u32 %r1, 1;\n@!%is_explicit_cluster mov.u32 %r2, 1;\n\
                st.global.v2.u32 [%rd1], {%r1, %r2};\nret;";
    let k = load(body);
    let implicit = cfg([2, 1, 1], 32, [1, 1, 1]);
    let out = run(&k, &implicit, 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [0, 1]);
    let explicit = LaunchConfig {
        explicit_cluster: true,
        ..implicit
    };
    let out = run(&k, &explicit, 2, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, [1, 0]);
}
