//! Calls: recursion with `.reg` formals, divergent recursion, indirect calls, the stack
//! (`alloca`, `stacksave`, `stackrestore`) and its limit. Expected values are worked out from
//! the arithmetic in each comment.

use super::{cfg, download, mem, run_out, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

/// `sum(n) = n + sum(n - 1)`, `sum(0) = 0`, with `.reg` formals, called by lanes with
/// different n (divergent recursion depths): lane l gets l(l+1)/2.
#[test]
fn divergent_recursion_with_reg_formals() {
    let src = format!(
        "{HEAD}
        .func (.reg .b32 r) sum(.reg .b32 n)
        {{
            .reg .pred %q;
            .reg .b32 %t<3>;
            setp.eq.u32 %q, n, 0;
            @%q bra $Lz;
            sub.u32 %t0, n, 1;
            call (%t1), sum, (%t0);
            add.u32 r, %t1, n;
            ret;
        $Lz:
            mov.u32 r, 0;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            call (%r5), sum, (%r1);
            st.global.u32 [%rd1], %r5;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 32);
    for l in 0..32u32 {
        assert_eq!(r[l as usize], l * (l + 1) / 2, "lane {l}");
    }
    mem::free(out).unwrap();
}

/// alloca returns 16-byte aligned local memory below the saved stack pointer; stackrestore
/// gives it back; the memory is per thread.
#[test]
fn alloca_stacksave_stackrestore() {
    let out = run_out(
        &format!(
            "{PRO}
            .reg .b64 %s<6>;
            stacksave.u64 %s0;
            alloca.u64 %s1, 20, 16;
            st.local.u32 [%s1], %r1;
            alloca.u64 %s2, 4;
            st.local.u32 [%s2], 7;
            ld.local.u32 %r5, [%s1];
            ld.local.u32 %r6, [%s2];
            add.u32 %r5, %r5, %r6;           // lane + 7
            st.global.u32 [%rd1], %r5;
            sub.u64 %s3, %s0, %s1;            // 20 rounded up to the 16-byte alignment: 32
            cvt.u32.u64 %r7, %s3;
            st.global.u32 [%rd1+128], %r7;
            sub.u64 %s3, %s1, %s2;            // 4 bytes at 8-byte alignment: 8
            cvt.u32.u64 %r7, %s3;
            st.global.u32 [%rd1+256], %r7;
            stackrestore.u64 %s0;
            stacksave.u64 %s4;
            setp.eq.u64 %p1, %s4, %s0;
            selp.u32 %r7, 1, 0, %p1;
            st.global.u32 [%rd1+384], %r7;
            "
        ),
        1,
        32,
        128,
    );
    for l in 0..32 {
        assert_eq!(out[l], l as u32 + 7);
        assert_eq!(out[32 + l], 32);
        assert_eq!(out[64 + l], 8);
        assert_eq!(out[96 + l], 1);
    }
}

#[test]
fn alloca_past_the_stack_limit_is_a_launch_error() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out)\n{{\n{PRO}\n.reg .b64 %s;\n\
         alloca.u64 %s, 4096;\nst.local.u32 [%s], 1;\n}}\n"
    );
    let m = Module::load(&src, "t.ptx").unwrap();
    let out = upload(&[0u32; 32]);
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(
        e.message.contains("stack overflow") && e.message.contains("PTX line"),
        "{e}"
    );
    mem::free(out).unwrap();
}

/// Indirect calls through `.callprototype`: lanes pick f (x+1) or g (2x) by parity; a pointer
/// that is no function is an illegal-address launch error.
#[test]
fn indirect_calls_split_lanes_and_reject_bad_pointers() {
    let src = format!(
        "{HEAD}
        .func (.param .b32 r) f(.param .b32 x) {{ .reg .b32 %a; ld.param.b32 %a, [x]; add.u32 %a, %a, 1; st.param.b32 [r], %a; ret; }}
        .func (.param .b32 r) g(.param .b32 x) {{ .reg .b32 %a; ld.param.b32 %a, [x]; shl.b32 %a, %a, 1; st.param.b32 [r], %a; ret; }}
        .global .u64 tab[2] = {{f, g}};
        .visible .entry k(.param .u64 out, .param .u64 bad)
        {{
            {PRO}
            .reg .b64 %fp;
            and.b32 %r5, %r1, 1;
            mul.wide.u32 %rd3, %r5, 8;
            mov.u64 %rd4, tab;
            add.u64 %rd4, %rd4, %rd3;
            ld.global.u64 %fp, [%rd4];
            ld.param.u64 %rd5, [bad];
            setp.ne.u64 %p1, %rd5, 0;
            @%p1 mov.u64 %fp, %rd5;
            {{
                .param .b32 a0;
                .param .b32 r0;
                st.param.b32 [a0], %r1;
                proto: .callprototype (.param .b32 _) _ (.param .b32 _);
                call (r0), %fp, (a0), proto;
                ld.param.b32 %r6, [r0];
            }}
            st.global.u32 [%rd1], %r6;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let k = m.kernel("k").unwrap();
    let out = upload(&[0u32; 32]);
    let mut p = out.to_le_bytes().to_vec();
    p.extend_from_slice(&0u64.to_le_bytes());
    launch(&k, &cfg(1, 32), &p).unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 32);
    for l in 0..32u32 {
        assert_eq!(
            r[l as usize],
            if l % 2 == 0 { l + 1 } else { 2 * l },
            "lane {l}"
        );
    }
    let mut p = out.to_le_bytes().to_vec();
    p.extend_from_slice(&0x1234u64.to_le_bytes());
    let e = launch(&k, &cfg(1, 32), &p).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress);
    assert!(e.message.contains("indirect call to 0x1234"), "{e}");
    mem::free(out).unwrap();
}

/// A re-entrant function's `.local` array lives in a frame per activation: a pointer to the
/// caller's array (passed generic, as nvcc passes `&arr`) reaches the caller's copy, not the
/// callee's. `walk(parent, n)` fills its own `arr` with `10n + k` (k = 0..3), adds n to
/// `parent[0]` and sets `parent[3] = 100 + n` (when parent is not null), recurses with
/// `walk(&arr, n - 1)` when n > 0, and returns `arr[0] + arr[3] + child`. So R(0) = 0 + 3 = 3
/// and, for n > 0, arr[0] = 10n + (n - 1) and arr[3] = 100 + (n - 1): R(n) = 12n + 98 + R(n-1).
/// Lanes recurse to different depths (n = lane % 7).
#[test]
fn pointer_to_a_callers_local_reaches_the_callers_frame() {
    let src = format!(
        "{HEAD}
        .func (.param .b32 r) walk(.param .b64 parent, .param .b32 n)
        {{
            .local .align 4 .b8 arr[16];
            .reg .pred %q;
            .reg .b32 %n, %t<6>;
            .reg .b64 %pp, %a, %g;
            ld.param.b32 %n, [n];
            ld.param.b64 %pp, [parent];
            mul.lo.u32 %t0, %n, 10;
            st.local.u32 [arr], %t0;
            add.u32 %t1, %t0, 1;
            st.local.u32 [arr+4], %t1;
            add.u32 %t1, %t0, 2;
            mov.u64 %a, arr;
            st.local.u32 [%a+8], %t1;
            add.u32 %t1, %t0, 3;
            cvta.local.u64 %g, %a;
            st.u32 [%g+12], %t1;
            setp.eq.u64 %q, %pp, 0;
            @%q bra $Lself;
            ld.u32 %t2, [%pp];
            add.u32 %t2, %t2, %n;
            st.u32 [%pp], %t2;
            add.u32 %t2, %n, 100;
            st.u32 [%pp+12], %t2;
        $Lself:
            mov.u32 %t3, 0;
            setp.eq.u32 %q, %n, 0;
            @%q bra $Lsum;
            {{
                .param .b64 a0;
                .param .b32 a1;
                .param .b32 r0;
                st.param.b64 [a0], %g;
                sub.u32 %t4, %n, 1;
                st.param.b32 [a1], %t4;
                call (r0), walk, (a0, a1);
                ld.param.b32 %t3, [r0];
            }}
        $Lsum:
            ld.local.u32 %t4, [arr];
            ld.u32 %t5, [%g+12];
            add.u32 %t4, %t4, %t5;
            add.u32 %t4, %t4, %t3;
            st.param.b32 [r], %t4;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            rem.u32 %r5, %r1, 7;
            {{
                .param .b64 a0;
                .param .b32 a1;
                .param .b32 r0;
                st.param.b64 [a0], 0;
                st.param.b32 [a1], %r5;
                call (r0), walk, (a0, a1);
                ld.param.b32 %r6, [r0];
            }}
            st.global.u32 [%rd1], %r6;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 32);
    let want = |n: u32| (1..=n).fold(3, |acc, k| 12 * k + 98 + acc);
    for l in 0..32u32 {
        assert_eq!(r[l as usize], want(l % 7), "lane {l}");
    }
    mem::free(out).unwrap();
}

/// Frames of re-entrant functions count against the stack limit: 64 activations of a
/// 256-byte local array need 16 KiB, past the default 1 KiB, and the launch reports a stack
/// overflow naming the function.
#[test]
fn recursive_frames_past_the_stack_limit_are_a_launch_error() {
    let src = format!(
        "{HEAD}
        .func down(.reg .b32 n)
        {{
            .local .align 8 .b8 big[256];
            .reg .pred %q;
            .reg .b32 %m;
            st.local.u32 [big+252], n;
            setp.eq.u32 %q, n, 0;
            @%q ret;
            sub.u32 %m, n, 1;
            call down, (%m);
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            call down, (64);
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(
        e.message.contains("stack overflow") && e.message.contains("'down'"),
        "{e}"
    );
    mem::free(out).unwrap();
}

/// `__syncthreads` inside a function that threads reach from both sides of an if/else: odd
/// lanes call `xch` directly, even lanes through `twice` (another call site, one level
/// deeper). Every thread executes the same `bar.sync 0`, so the barrier completes
/// (independent thread scheduling, sm_70+); each thread then reads its neighbour's published
/// value. `xch(v)`: publish v at sh[tid], bar.sync, read sh[(tid + 1) % 64], bar.sync.
/// `twice(v) = 2 * xch(v) + 1`. Thread t publishes 3t (odd) or 5t (even) and returns its
/// neighbour's value (odd) or twice it plus one (even).
#[test]
fn barrier_in_a_function_called_from_both_sides_of_a_branch() {
    let src = format!(
        "{HEAD}
        .shared .align 4 .b8 sh[256];
        .func (.reg .b32 r) xch(.reg .b32 v)
        {{
            .reg .b32 %t, %n, %a;
            .reg .b64 %p;
            mov.u32 %t, %tid.x;
            shl.b32 %a, %t, 2;
            mov.u32 %n, sh;
            add.u32 %a, %a, %n;
            st.shared.u32 [%a], v;
            bar.sync 0;
            add.u32 %a, %t, 1;
            rem.u32 %a, %a, 64;
            shl.b32 %a, %a, 2;
            add.u32 %a, %a, %n;
            ld.shared.u32 r, [%a];
            bar.sync 0;
            ret;
        }}
        .func (.reg .b32 r) twice(.reg .b32 v)
        {{
            .reg .b32 %x;
            call (%x), xch, (v);
            mad.lo.u32 r, %x, 2, 1;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            and.b32 %r5, %r1, 1;
            setp.eq.u32 %p1, %r5, 0;
            @%p1 bra $Leven;
            mul.lo.u32 %r6, %r1, 3;
            call (%r7), xch, (%r6);
            bra.uni $Ldone;
        $Leven:
            mul.lo.u32 %r6, %r1, 5;
            call (%r7), twice, (%r6);
        $Ldone:
            st.global.u32 [%rd1], %r7;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 64]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 64), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 64);
    let publ = |t: u32| if t % 2 == 1 { 3 * t } else { 5 * t };
    for t in 0..64u32 {
        let nb = publ((t + 1) % 64);
        let want = if t % 2 == 1 { nb } else { 2 * nb + 1 };
        assert_eq!(r[t as usize], want, "thread {t}");
    }
    mem::free(out).unwrap();
}

/// Lanes reach the barrier of a recursive function at different depths: `rec(n, v)` is
/// `rec(n - 1, 2v) + 1` for n > 0 and, for n = 0, publishes v at sh[tid], waits at bar.sync 0
/// and returns sh[(tid + 1) % 64]. Thread t calls rec(t % 4, t): it publishes t << (t % 4) once
/// and gets its neighbour's value plus t % 4. (The calls of the lanes that went deeper save
/// and restore rec's registers of their own lanes only: the lanes waiting at the barrier
/// higher up keep theirs.)
#[test]
fn barrier_reached_at_different_recursion_depths() {
    let src = format!(
        "{HEAD}
        .shared .align 4 .b8 sh[256];
        .func (.reg .b32 r) rec(.reg .b32 n, .reg .b32 v)
        {{
            .reg .pred %q;
            .reg .b32 %t, %a, %b, %x;
            setp.ne.u32 %q, n, 0;
            @%q bra $Ldeeper;
            mov.u32 %t, %tid.x;
            mov.u32 %b, sh;
            mad.lo.u32 %a, %t, 4, %b;
            st.shared.u32 [%a], v;
            bar.sync 0;
            add.u32 %a, %t, 1;
            rem.u32 %a, %a, 64;
            mad.lo.u32 %a, %a, 4, %b;
            ld.shared.u32 r, [%a];
            ret;
        $Ldeeper:
            sub.u32 %a, n, 1;
            shl.b32 %b, v, 1;
            call (%x), rec, (%a, %b);
            add.u32 r, %x, 1;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            rem.u32 %r5, %r1, 4;
            call (%r7), rec, (%r5, %r1);
            st.global.u32 [%rd1], %r7;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 64]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 64), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 64);
    for t in 0..64u32 {
        let nb = (t + 1) % 64;
        assert_eq!(r[t as usize], (nb << (nb % 4)) + t % 4, "thread {t}");
    }
    mem::free(out).unwrap();
}

/// A real deadlock is still reported: odd threads call `sync0` (one bar.sync 0) twice, even
/// threads once, then every thread waits at bar.sync 1. The second bar.sync 0 waits for the
/// even threads, which wait at barrier 1 for the odd ones: neither can complete.
#[test]
fn barrier_in_a_function_that_some_threads_never_reach_again_deadlocks() {
    let src = format!(
        "{HEAD}
        .func sync0()
        {{
            bar.sync 0;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            and.b32 %r5, %r1, 1;
            setp.eq.u32 %p1, %r5, 0;
            @%p1 bra $Lonce;
            call sync0, ();
        $Lonce:
            call sync0, ();
            bar.sync 1;
            st.global.u32 [%rd1], 1;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 64]);
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 64), &out.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(e.message.contains("deadlock"), "{e}");
    mem::free(out).unwrap();
}

/// A path returns from its call while another path's call still waits at a barrier, and goes
/// on to the next barrier in the caller. Odd lanes (the branch's taken side, which runs first)
/// call `one` (bar.sync 0) and then wait at bar.sync 1 in the kernel; even lanes call `two`
/// (bar.sync 0, then bar.sync 1). Both barriers complete with every thread: each thread then
/// stores 1 + its own lane parity.
#[test]
fn a_call_returns_while_another_paths_call_waits_at_a_barrier() {
    let src = format!(
        "{HEAD}
        .func one()
        {{
            bar.sync 0;
            ret;
        }}
        .func two()
        {{
            bar.sync 0;
            bar.sync 1;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            and.b32 %r5, %r1, 1;
            setp.eq.u32 %p1, %r5, 1;
            @%p1 bra $Lodd;
            call two, ();
            bra.uni $Ldone;
        $Lodd:
            call one, ();
            bar.sync 1;
        $Ldone:
            add.u32 %r6, %r5, 1;
            st.global.u32 [%rd1], %r6;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 64]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 64), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 64);
    for t in 0..64u32 {
        assert_eq!(r[t as usize], 1 + t % 2, "thread {t}");
    }
    mem::free(out).unwrap();
}

/// `bar.warp.sync` with the full mask inside a function that each half of the warp calls from
/// its own call site: a lane waits until every lane of the mask executed a `bar.warp.sync`
/// with that mask (independent thread scheduling), so the halves exchange values through
/// shared memory. `x(v)`: publish v at sh[lane], sync, read sh[(lane + 5) % 32], sync. Upper
/// lanes publish lane + 1000, lower lanes lane + 2000 and add 1 to what they read.
#[test]
fn warp_sync_in_a_function_called_from_both_sides_of_a_branch() {
    let src = format!(
        "{HEAD}
        .shared .align 4 .b8 sh[128];
        .func (.reg .b32 r) x(.reg .b32 v)
        {{
            .reg .b32 %t, %a, %b;
            mov.u32 %t, %laneid;
            mov.u32 %b, sh;
            mad.lo.u32 %a, %t, 4, %b;
            st.shared.u32 [%a], v;
            bar.warp.sync -1;
            add.u32 %a, %t, 5;
            and.b32 %a, %a, 31;
            mad.lo.u32 %a, %a, 4, %b;
            ld.shared.u32 r, [%a];
            bar.warp.sync -1;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            setp.ge.u32 %p1, %r1, 16;
            @%p1 bra $Lupper;
            add.u32 %r5, %r1, 2000;
            call (%r6), x, (%r5);
            add.u32 %r6, %r6, 1;
            bra.uni $Ldone;
        $Lupper:
            add.u32 %r5, %r1, 1000;
            call (%r6), x, (%r5);
        $Ldone:
            st.global.u32 [%rd1], %r6;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 32);
    let publ = |l: u32| if l >= 16 { l + 1000 } else { l + 2000 };
    for l in 0..32u32 {
        let got = publ((l + 5) % 32);
        assert_eq!(
            r[l as usize],
            if l >= 16 { got } else { got + 1 },
            "lane {l}"
        );
    }
    mem::free(out).unwrap();
}

/// A `bar.warp.sync` whose other lanes never sync the warp (they wait at a CTA barrier the
/// syncing lanes never reach) is a deadlock, reported as such.
#[test]
fn warp_sync_that_other_lanes_never_reach_deadlocks() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out)\n{{\n{PRO}
        setp.ge.u32 %p1, %r1, 16;
        @%p1 bra $Lupper;
        bar.warp.sync -1;
        bra.uni $Ldone;
    $Lupper:
        bar.sync 0;
    $Ldone:
        st.global.u32 [%rd1], 1;
        }}\n"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(e.message.contains("deadlock"), "{e}");
    mem::free(out).unwrap();
}

/// Lanes that left early (`if (lane >= 20) return;`) take no part: the others' full-mask
/// `bar.warp.sync` completes without them, whichever side of the branch runs first.
#[test]
fn warp_sync_after_lanes_returned_early() {
    for (cond, ret_first) in [("setp.ge.u32", true), ("setp.lt.u32", false)] {
        let (guard, body) = if ret_first {
            ("@%p1 bra $Lret;", "")
        } else {
            ("@%p1 bra $Lbody;\n bra.uni $Lret;", "$Lbody:")
        };
        let src = format!(
            "{HEAD}.visible .entry k(.param .u64 out)\n{{\n{PRO}
            {cond} %p1, %r1, 20;
            {guard}
            {body}
            bar.warp.sync -1;
            st.global.u32 [%rd1], 7;
        $Lret:
            ret;
            }}\n"
        );
        let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
        let out = upload(&[0u32; 32]);
        launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes())
            .unwrap_or_else(|e| panic!("{cond}: {e}"));
        let r: Vec<u32> = download(out, 32);
        for l in 0..32u32 {
            assert_eq!(r[l as usize], if l < 20 { 7 } else { 0 }, "{cond} lane {l}");
        }
        mem::free(out).unwrap();
    }
}

/// A guarded call: lanes whose guard is false go on past the call and reach the kernel's
/// `barrier.sync 0` while the calling lanes wait at the callee's (`barrier.sync` is not
/// `.aligned`: threads may arrive at different instructions). Odd lanes call `f`, which
/// publishes 3 * lane and syncs; even lanes publish 5 * lane and sync in the kernel; then every
/// lane reads its neighbour's value.
#[test]
fn guarded_call_lanes_that_skip_it_reach_the_barrier() {
    let src = format!(
        "{HEAD}
        .shared .align 4 .b8 sh[128];
        .func f(.reg .b32 a, .reg .b32 v)
        {{
            st.shared.u32 [a], v;
            barrier.sync 0;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            mov.u32 %r8, sh;
            mad.lo.u32 %r9, %r1, 4, %r8;
            and.b32 %r5, %r1, 1;
            setp.eq.u32 %p1, %r5, 1;
            mul.lo.u32 %r6, %r1, 3;
            @%p1 call f, (%r9, %r6);
            @!%p1 mul.lo.u32 %r6, %r1, 5;
            @!%p1 st.shared.u32 [%r9], %r6;
            @!%p1 barrier.sync 0;
            add.u32 %r10, %r1, 1;
            and.b32 %r10, %r10, 31;
            mad.lo.u32 %r10, %r10, 4, %r8;
            ld.shared.u32 %r7, [%r10];
            st.global.u32 [%rd1], %r7;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 32);
    for l in 0..32u32 {
        let n = (l + 1) % 32;
        assert_eq!(
            r[l as usize],
            if n % 2 == 1 { 3 * n } else { 5 * n },
            "lane {l}"
        );
    }
    mem::free(out).unwrap();
}

/// Lanes return from a call in groups: in `f`, the lower half publishes 100 + lane and waits
/// in `bar.warp.sync -1` for the upper half, which returns from `f` at once, publishes
/// 200 + lane in the kernel and meets them at the kernel's own `bar.warp.sync -1` (threads
/// may sync the warp at different instructions). Each half then reads its partner's value
/// (lane ^ 16): lower lanes get 200 + lane + 16, upper lanes 100 + lane - 16.
#[test]
fn lanes_return_from_a_call_while_others_wait_in_it() {
    let src = format!(
        "{HEAD}
        .shared .align 4 .b8 sh[128];
        .func (.reg .b32 r) f(.reg .b32 a)
        {{
            .reg .pred %q;
            .reg .b32 %l, %v;
            mov.u32 %l, %laneid;
            setp.ge.u32 %q, %l, 16;
            @%q bra $Lout;
            add.u32 %v, %l, 100;
            st.shared.u32 [a], %v;
            bar.warp.sync -1;
            ld.shared.u32 r, [a+64];
            ret;
        $Lout:
            mov.u32 r, 0;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            mov.u32 %r8, sh;
            mad.lo.u32 %r9, %r1, 4, %r8;
            setp.ge.u32 %p1, %r1, 16;
            call (%r6), f, (%r9);
            add.u32 %r7, %r1, 200;
            @%p1 st.shared.u32 [%r9], %r7;
            @%p1 bar.warp.sync -1;
            @%p1 ld.shared.u32 %r6, [%r9+-64];
            st.global.u32 [%rd1], %r6;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 32]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 32), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 32);
    for l in 0..32u32 {
        let want = if l < 16 { 200 + l + 16 } else { 100 + l - 16 };
        assert_eq!(r[l as usize], want, "lane {l}");
    }
    mem::free(out).unwrap();
}

/// Partial returns through recursion: `rec(n)` is 1 for n = 0 and `rec(n - 1) + n` otherwise,
/// and for n = 2 it waits at `barrier.sync 0` after its recursive call. Threads with t % 3 = 2
/// call rec(2) and wait there (one level down); the others return from rec(0) or rec(1) and
/// meet them at the kernel's own `barrier.sync 0`. The waiting lanes then add their own n
/// (restored for them alone by the recursive call's return) and return: thread t gets
/// [1, 2, 4][t % 3].
#[test]
fn recursive_callers_return_in_groups_around_a_barrier() {
    let src = format!(
        "{HEAD}
        .func (.reg .b32 r) rec(.reg .b32 n)
        {{
            .reg .pred %q;
            .reg .b32 %m, %x;
            setp.ne.u32 %q, n, 0;
            @%q bra $Ldeeper;
            mov.u32 r, 1;
            ret;
        $Ldeeper:
            sub.u32 %m, n, 1;
            call (%x), rec, (%m);
            setp.ne.u32 %q, n, 2;
            @%q bra $Lsum;
            barrier.sync 0;
        $Lsum:
            add.u32 r, %x, n;
            ret;
        }}
        .visible .entry k(.param .u64 out)
        {{
            {PRO}
            rem.u32 %r5, %r1, 3;
            call (%r6), rec, (%r5);
            setp.eq.u32 %p1, %r5, 2;
            @%p1 bra $Lstore;
            barrier.sync 0;
        $Lstore:
            st.global.u32 [%rd1], %r6;
        }}"
    );
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    let out = upload(&[0u32; 64]);
    launch(&m.kernel("k").unwrap(), &cfg(1, 64), &out.to_le_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u32> = download(out, 64);
    for t in 0..64u32 {
        assert_eq!(r[t as usize], [1, 2, 4][(t % 3) as usize], "thread {t}");
    }
    mem::free(out).unwrap();
}
