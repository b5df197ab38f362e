//! Warp-wide `ld/st/atom.shared` of a CTA's own shared memory (the one-pass check of
//! `Cta::own_shared`): access shapes that are neither contiguous nor uniform, partial warps
//! whose inactive lanes hold wild addresses, sub-word widths, and the faults, which must still
//! name the first bad lane. Expected values are the stores' arithmetic, worked out in Rust.

use super::{cfg, run_out, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

#[test]
fn tile_shaped_reads_partial_warps_and_sub_words() {
    // 64 threads. s[t] = 0x8000_0000 | (3t + 1); then thread t writes
    //   out[3t]   = s[(t >> 4) * 16] + 1000 * s[t & 15]   (low 31 bits: a 16-wide tile's row
    //                                                     and column reads)
    //   out[3t+1] = odd t: s[63 - t], even t: 7 (their address register is wild, 0xfffff0,
    //               and the load is guarded off)
    //   out[3t+2] = ld.shared.s16 of s[t]'s high half: 0x8000 sign-extended = 0xffff8000,
    //               and an atom.shared.add of t to s[t & 7] is checked after a barrier below.
    let body = format!(
        "{PRO}
        .shared .align 4 .b32 s[64];
        .shared .align 4 .b32 c[8];
        mov.u32 %r5, s;
        shl.b32 %r6, %r1, 2;
        add.s32 %r7, %r5, %r6;
        mad.lo.s32 %r8, %r1, 3, 1;
        or.b32 %r8, %r8, 0x80000000;
        st.shared.u32 [%r7], %r8;
        setp.lt.u32 %p1, %r1, 8;
        mov.u32 %r20, c;
        add.s32 %r21, %r20, %r6;
        mov.u32 %r22, 0;
        @%p1 st.shared.u32 [%r21], %r22;
        bar.sync 0;
        // Row read: s[(t >> 4) * 16].
        shr.u32 %r9, %r1, 4;
        shl.b32 %r9, %r9, 6;
        add.s32 %r9, %r5, %r9;
        ld.shared.u32 %r10, [%r9];
        // Column read: s[t & 15].
        and.b32 %r11, %r1, 15;
        shl.b32 %r11, %r11, 2;
        add.s32 %r11, %r5, %r11;
        ld.shared.u32 %r12, [%r11];
        and.b32 %r10, %r10, 0x7fffffff;
        and.b32 %r12, %r12, 0x7fffffff;
        mad.lo.s32 %r13, %r12, 1000, %r10;
        // Odd lanes read s[63 - t]; even lanes' address is wild and their load guarded off.
        and.b32 %r14, %r1, 1;
        setp.ne.u32 %p2, %r14, 0;
        sub.s32 %r15, 63, %r1;
        shl.b32 %r15, %r15, 2;
        add.s32 %r15, %r5, %r15;
        selp.b32 %r15, %r15, 0xfffff0, %p2;
        mov.u32 %r16, 7;
        @%p2 ld.shared.u32 %r16, [%r15];
        // The high half of s[t], sign-extended.
        ld.shared.s16 %r17, [%r7+2];
        // Shared counters: c[t & 7] += t.
        and.b32 %r23, %r1, 7;
        shl.b32 %r23, %r23, 2;
        add.s32 %r23, %r20, %r23;
        atom.shared.add.u32 %r24, [%r23], %r1;
        bar.sync 0;
        @%p1 ld.shared.u32 %r25, [%r21];
        mul.wide.u32 %rd3, %r1, 12;
        ld.param.u64 %rd4, [out];
        cvta.to.global.u64 %rd4, %rd4;
        add.s64 %rd4, %rd4, %rd3;
        st.global.u32 [%rd4], %r13;
        st.global.u32 [%rd4+4], %r16;
        st.global.u32 [%rd4+8], %r17;
        ld.param.u64 %rd5, [out];
        cvta.to.global.u64 %rd5, %rd5;
        mul.wide.u32 %rd6, %r1, 4;
        add.s64 %rd5, %rd5, %rd6;
        @%p1 st.global.u32 [%rd5+768], %r25;
        ret;"
    );
    let out = run_out(&body, 1, 64, 3 * 64 + 8);
    let s = |i: u32| 3 * i + 1;
    for t in 0..64u32 {
        let i = 3 * t as usize;
        assert_eq!(out[i], s((t >> 4) * 16) + 1000 * s(t & 15), "thread {t}");
        assert_eq!(
            out[i + 1],
            if t & 1 == 1 {
                0x8000_0000 | s(63 - t)
            } else {
                7
            }
        );
        assert_eq!(out[i + 2], 0xffff_8000, "thread {t}");
    }
    // c[k] sums the threads t with t & 7 == k: k + (k+8) + ... + (k+56) = 8k + 224.
    for k in 0..8u32 {
        assert_eq!(out[192 + k as usize], 8 * k + 224, "counter {k}");
    }
}

/// Runs `k()` over one warp and returns its error.
fn fault(body: &str) -> crate::ExecError {
    let src = format!(
        "{HEAD}.visible .entry k()\n{{\n.reg .pred %p<4>; .reg .b32 %r<16>;\n{body}\nret;\n}}\n"
    );
    let m = Module::load(&src, "f.ptx").unwrap_or_else(|e| panic!("{e}"));
    launch(&m.kernel("k").unwrap(), &cfg(1, 32), &[]).unwrap_err()
}

#[test]
fn shared_faults_name_the_first_bad_lane() {
    // s[t + 1] over 32 words: lane 31 reads the word just past the end.
    let e = fault(
        ".shared .align 4 .b32 s[32];
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, s;
        mad.lo.s32 %r3, %r1, 4, %r2;
        ld.shared.u32 %r4, [%r3+4];",
    );
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{}", e.message);
    assert!(e.message.contains("thread (31,0,0)"), "{}", e.message);
    assert!(
        e.message.contains("outside the shared memory window"),
        "{}",
        e.message
    );
    // A store by lanes 9 and up two bytes off their word: lane 9 is the first misaligned one.
    let e = fault(
        ".shared .align 4 .b32 s[64];
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, s;
        mad.lo.s32 %r3, %r1, 4, %r2;
        setp.ge.u32 %p1, %r1, 9;
        selp.b32 %r5, 2, 0, %p1;
        add.s32 %r3, %r3, %r5;
        st.shared.u32 [%r3], %r1;",
    );
    assert_eq!(e.kind, ExecErrorKind::MisalignedAddress, "{}", e.message);
    assert!(e.message.contains("thread (9,0,0)"), "{}", e.message);
    // An atomic past the end by the upper half-warp only: 64 bytes of shared memory are a
    // 128-byte window (the unit a GPU allocates), and lanes 16 and up, 8 bytes apart, are
    // beyond it.
    let e = fault(
        ".shared .align 4 .b32 s[16];
        mov.u32 %r1, %tid.x;
        mov.u32 %r2, s;
        mad.lo.s32 %r3, %r1, 8, %r2;
        atom.shared.add.u32 %r4, [%r3], 1;",
    );
    assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{}", e.message);
    assert!(e.message.contains("thread (16,0,0)"), "{}", e.message);
}

/// A CTA's shared memory is a window rounded up to 128 bytes, as a GPU allocates it. Measured
/// on an H100 (driver 580.159), 2026-11-25, one thread reading at `off` with `dyn` bytes of
/// dynamic shared memory: (28, v4 at 16), (28, 124), (48, 124), (1024, 1020), (8192, 8188) run;
/// (28, 128), (48, 128), (1024, 1024), (8192, 8192), (0, 0) fault with an illegal address.
#[test]
fn shared_window_is_rounded_up_to_128_bytes() {
    let src = format!(
        "{HEAD}.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u32 off)
{{
.reg .b32 %r<8>;
ld.param.u32 %r1, [off];
mov.u32 %r2, dyn;
add.u32 %r2, %r2, %r1;
ld.shared.u32 %r3, [%r2];
ret;
}}
.visible .entry v4(.param .u32 off)
{{
.reg .b32 %r<8>;
ld.param.u32 %r1, [off];
mov.u32 %r2, dyn;
add.u32 %r2, %r2, %r1;
ld.shared.v4.u32 {{%r3, %r4, %r5, %r6}}, [%r2];
ret;
}}
"
    );
    let m = Module::load(&src, "window.ptx").unwrap_or_else(|e| panic!("{e}"));
    let run = |kernel: &str, dyn_bytes: u32, off: u32| {
        let mut c = cfg(1, 1);
        c.dynamic_shared_bytes = dyn_bytes;
        launch(&m.kernel(kernel).unwrap(), &c, &off.to_le_bytes())
    };
    assert!(run("v4", 28, 16).is_ok());
    for (dyn_bytes, off) in [(28, 124), (48, 124), (1024, 1020), (8192, 8188)] {
        assert!(
            run("k", dyn_bytes, off).is_ok(),
            "{dyn_bytes} bytes, read at {off}"
        );
    }
    for (dyn_bytes, off) in [(28, 128), (48, 128), (1024, 1024), (8192, 8192), (0, 0)] {
        let e = run("k", dyn_bytes, off).unwrap_err();
        assert_eq!(e.kind, ExecErrorKind::IllegalAddress, "{}", e.message);
    }
}
