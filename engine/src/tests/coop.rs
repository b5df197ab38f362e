//! Cooperative launches: every CTA co-resident, the grid workspace in `%envreg1:%envreg2`, and
//! the grid barrier exactly as nvcc 13 emits `cg::this_grid().sync()` for compute_80 (CTA
//! barrier; thread 0 of each CTA adds 1 to the workspace's barrier word, CTA 0 adds
//! 0x80000001 - nblocks, so that bit 31 flips once all arrived; it spins with ld.acquire until
//! it sees the flip; CTA barrier). Expected values are the kernels' arithmetic, by hand.

use super::{download, mem, upload, HEAD};
use crate::{launch, launch_cooperative, ExecErrorKind, LaunchConfig, Module};

/// `grid.sync()` as nvcc emits it (labels suffixed with `N`); %rd9 holds the workspace.
fn gsync(n: u32) -> String {
    format!(
        "
        barrier.sync 0;
        mov.u32 %r20, %tid.x;
        setp.ne.s32 %p5, %r20, 0;
        @%p5 bra $Ldone{n};
        add.s64 %rd10, %rd9, 4;
        mov.u32 %r21, %nctaid.x;
        mov.u32 %r22, %ctaid.x;
        setp.eq.s32 %p6, %r22, 0;
        mov.u32 %r23, -2147483647;
        sub.s32 %r24, %r23, %r21;
        selp.b32 %r25, %r24, 1, %p6;
        atom.add.release.gpu.u32 %r26, [%rd10], %r25;
    $Lspin{n}:
        ld.acquire.gpu.u32 %r27, [%rd10];
        xor.b32 %r28, %r27, %r26;
        setp.gt.s32 %p7, %r28, -1;
        @%p7 bra $Lspin{n};
    $Ldone{n}:
        barrier.sync 0;
        "
    )
}

/// Phase 1: a[g] = g + 1. Sync. Phase 2: b[g] = a[(g + 1) % n] + a[(g + n - 1) % n], values
/// other CTAs wrote. Sync. Phase 3: thread 0 of CTA 0 sums b into s[0]; sync; every thread
/// stores s[0] into c[g]. Sums: each a[k] = k + 1 counted twice, 2 * n(n+1)/2 = n(n+1).
fn kernel() -> std::sync::Arc<crate::Kernel> {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 s)
{{
        .reg .pred %p<8>;
        .reg .b32 %r<32>;
        .reg .b64 %rd<32>;
        mov.u32 %r1, %envreg2;
        cvt.u64.u32 %rd1, %r1;
        mov.u32 %r2, %envreg1;
        cvt.u64.u32 %rd2, %r2;
        bfi.b64 %rd9, %rd2, %rd1, 32, 32;
        setp.ne.s64 %p1, %rd9, 0;
        @%p1 bra $Lok;
        trap;
    $Lok:
        ld.param.u64 %rd3, [a];
        ld.param.u64 %rd4, [b];
        ld.param.u64 %rd5, [c];
        ld.param.u64 %rd6, [s];
        mov.u32 %r3, %ctaid.x;
        mov.u32 %r4, %ntid.x;
        mov.u32 %r5, %tid.x;
        mad.lo.s32 %r6, %r3, %r4, %r5;       // g
        mov.u32 %r7, %nctaid.x;
        mul.lo.s32 %r8, %r7, %r4;            // n
        mul.wide.u32 %rd7, %r6, 4;
        add.s64 %rd11, %rd3, %rd7;
        add.u32 %r9, %r6, 1;
        st.global.u32 [%rd11], %r9;
        {s1}
        rem.u32 %r10, %r9, %r8;              // (g + 1) % n
        add.u32 %r11, %r6, %r8;
        sub.u32 %r11, %r11, 1;
        rem.u32 %r11, %r11, %r8;             // (g + n - 1) % n
        mul.wide.u32 %rd12, %r10, 4;
        add.s64 %rd12, %rd3, %rd12;
        ld.global.u32 %r12, [%rd12];
        mul.wide.u32 %rd13, %r11, 4;
        add.s64 %rd13, %rd3, %rd13;
        ld.global.u32 %r13, [%rd13];
        add.u32 %r12, %r12, %r13;
        add.s64 %rd14, %rd4, %rd7;
        st.global.u32 [%rd14], %r12;
        {s2}
        setp.ne.u32 %p2, %r6, 0;
        @%p2 bra $Lskip;
        mov.u32 %r14, 0;
        mov.u32 %r15, 0;
    $Lsum:
        mul.wide.u32 %rd15, %r15, 4;
        add.s64 %rd15, %rd4, %rd15;
        ld.global.u32 %r16, [%rd15];
        add.u32 %r14, %r14, %r16;
        add.u32 %r15, %r15, 1;
        setp.lt.u32 %p3, %r15, %r8;
        @%p3 bra $Lsum;
        st.global.u32 [%rd6], %r14;
    $Lskip:
        {s3}
        ld.global.u32 %r17, [%rd6];
        add.s64 %rd16, %rd5, %rd7;
        st.global.u32 [%rd16], %r17;
}}
",
        s1 = gsync(1),
        s2 = gsync(2),
        s3 = gsync(3)
    );
    let m = Module::load(&src, "coop.ptx").unwrap_or_else(|e| panic!("{e}"));
    m.kernel("k").unwrap()
}

fn params(bufs: &[u64]) -> Vec<u8> {
    bufs.iter().flat_map(|b| b.to_le_bytes()).collect()
}

/// CTAs of 64 threads (two warps, so the CTA barrier around the spin matters): 264 on 2 host
/// threads, and fewer (debug builds interpret slowly) on 1 and all host threads: every CTA must
/// run while others spin at the grid barrier.
#[test]
fn grid_sync_multi_phase_on_any_thread_count() {
    let k = kernel();
    let nt = 64u32;
    for (threads, nb) in [(2, 264u32), (1, 40), (0, 100)] {
        let n = (nb * nt) as usize;
        crate::set_worker_threads(threads);
        let (a, b, c) = (
            upload(&vec![0u32; n]),
            upload(&vec![0u32; n]),
            upload(&vec![0u32; n]),
        );
        let s = upload(&[0u32]);
        let cfg = LaunchConfig {
            grid: [nb, 1, 1],
            block: [nt, 1, 1],
            dynamic_shared_bytes: 0,
            cluster: [1, 1, 1],
            explicit_cluster: false,
        };
        launch_cooperative(&k, &cfg, &params(&[a, b, c, s])).unwrap_or_else(|e| panic!("{e}"));
        let (av, bv, cv): (Vec<u32>, Vec<u32>, Vec<u32>) =
            (download(a, n), download(b, n), download(c, n));
        let total = (n as u64 * (n as u64 + 1)) as u32;
        for g in 0..n {
            assert_eq!(av[g], g as u32 + 1, "a[{g}] ({threads} threads)");
            let want = ((g + 1) % n + 1) + ((g + n - 1) % n + 1);
            assert_eq!(bv[g], want as u32, "b[{g}] ({threads} threads)");
            assert_eq!(cv[g], total, "c[{g}] ({threads} threads)");
        }
        for p in [a, b, c, s] {
            mem::free(p).unwrap();
        }
    }
    crate::set_worker_threads(0);
}

/// Without a cooperative launch there is no grid workspace: `%envreg1/2` read 0 and the code
/// cooperative groups emits traps, as on a GPU.
#[test]
fn grid_sync_without_cooperative_launch_traps() {
    let k = kernel();
    let bufs: Vec<u64> = (0..4).map(|_| upload(&[0u32; 64])).collect();
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let e = launch(&k, &cfg, &params(&bufs)).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(
        e.message.contains("trap") && e.message.contains("kernel 'k'"),
        "{e}"
    );
    for p in bufs {
        mem::free(p).unwrap();
    }
}

/// A fault in one CTA of a cooperative launch stops the whole launch (the others would wait
/// for it at the grid barrier forever) and is reported.
#[test]
fn fault_in_cooperative_launch_is_reported() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 a)
{{
        .reg .pred %p<8>;
        .reg .b32 %r<32>;
        .reg .b64 %rd<32>;
        mov.u32 %r1, %envreg2;
        cvt.u64.u32 %rd1, %r1;
        mov.u32 %r2, %envreg1;
        cvt.u64.u32 %rd2, %r2;
        bfi.b64 %rd9, %rd2, %rd1, 32, 32;
        mov.u32 %r3, %ctaid.x;
        setp.ne.u32 %p1, %r3, 5;
        @%p1 bra $Lgo;
        st.global.u32 [0], %r3;              // CTA 5: illegal address
    $Lgo:
        {s}
}}
",
        s = gsync(1)
    );
    let m = Module::load(&src, "coop.ptx").unwrap_or_else(|e| panic!("{e}"));
    let cfg = LaunchConfig {
        grid: [16, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    let e = launch_cooperative(&m.kernel("k").unwrap(), &cfg, &0u64.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{e}");
    assert!(e.message.contains("block (5,0,0)"), "{e}");
}

/// `%envreg1:%envreg2` is a live, zeroed grid workspace whose first word (wsSize) is its size,
/// 8 bytes, as cooperative groups' `grid_workspace` declares; other envregs read 0.
#[test]
fn grid_workspace_in_envregs() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 a)
{{
        .reg .b32 %r<8>;
        .reg .b64 %rd<8>;
        ld.param.u64 %rd3, [a];
        mov.u32 %r1, %envreg2;
        cvt.u64.u32 %rd1, %r1;
        mov.u32 %r2, %envreg1;
        cvt.u64.u32 %rd2, %r2;
        bfi.b64 %rd4, %rd2, %rd1, 32, 32;
        ld.global.u32 %r3, [%rd4];
        ld.global.u32 %r4, [%rd4+4];
        mov.u32 %r5, %envreg0;
        mov.u32 %r6, %envreg3;
        st.global.v4.u32 [%rd3], {{%r3, %r4, %r5, %r6}};
}}
"
    );
    let m = Module::load(&src, "ws.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[9u32; 4]);
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch_cooperative(&m.kernel("k").unwrap(), &cfg, &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(download::<u32>(out, 4), vec![8, 0, 0, 0]);
    mem::free(out).unwrap();
}
