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
