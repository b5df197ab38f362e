//! `atom.cas.b16` (ISA 9.7.13.5, sm_70): a 16-bit compare-and-swap in global, shared and
//! generic memory. `d` receives the old 16-bit value; the new value `c` is stored only when the
//! old one equals `b`; the neighbouring halfword of the same 32-bit word is never touched.

use super::{cfg, download, mem, upload, HEAD};
use crate::{launch, LaunchConfig, Module};

fn load(body: &str) -> std::sync::Arc<crate::Kernel> {
    let src = format!("{HEAD}.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n");
    let m = Module::load(&src, "t.ptx").unwrap_or_else(|e| panic!("{e}"));
    m.kernel("k").unwrap()
}

/// Single-thread semantics: a failing and a succeeding CAS, global, shared and generic.
#[test]
fn cas_b16_semantics() {
    let k = load(
        "
        .reg .b16 %h<8>;
        .reg .b32 %r<8>;
        .reg .b64 %rd<8>;
        .shared .align 4 .b16 sh[2];
        ld.param.u64 %rd1, [out];
        cvta.to.global.u64 %rd2, %rd1;
        mov.b16 %h1, 0x1234;
        mov.b16 %h2, 0xbeef;
        // out[0] (halfword) = 0x1234 initially, out[1] = 0xaaaa (the neighbour).
        atom.global.cas.b16 %h3, [%rd2], 0x1111, %h2;   // fails: old 0x1234, unchanged
        atom.global.cas.b16 %h4, [%rd2], %h1, %h2;      // succeeds: old 0x1234, now 0xbeef
        st.global.u16 [%rd2+4], %h3;
        st.global.u16 [%rd2+6], %h4;
        st.shared.u16 [sh], 0x7fff;
        st.shared.u16 [sh+2], 0x5555;
        atom.shared.cas.b16 %h5, [sh], 0x7fff, 0x8000;  // succeeds: old 0x7fff
        ld.shared.u16 %h6, [sh];
        ld.shared.u16 %h7, [sh+2];
        st.global.u16 [%rd2+8], %h5;
        st.global.u16 [%rd2+10], %h6;
        st.global.u16 [%rd2+12], %h7;
        mov.u64 %rd3, sh;
        cvta.shared.u64 %rd4, %rd3;
        atom.cas.b16 %h5, [%rd4], 0x8000, 0x0001;       // generic into shared: old 0x8000
        ld.shared.u16 %h6, [sh];
        st.global.u16 [%rd2+14], %h5;
        st.global.u16 [%rd2+16], %h6;
        atom.cas.b16 %h5, [%rd1+2], 0xaaaa, 0xcccc;     // generic into global: old 0xaaaa
        st.global.u16 [%rd2+18], %h5;
        ",
    );
    let out = upload(&[0x1234u16, 0xaaaa, 0, 0, 0, 0, 0, 0, 0, 0]);
    launch(&k, &cfg(1, 1), &out.to_le_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u16> = download(out, 10);
    assert_eq!(
        r,
        vec![0xbeef, 0xcccc, 0x1234, 0x1234, 0x7fff, 0x8000, 0x5555, 0x8000, 0x0001, 0xaaaa]
    );
    mem::free(out).unwrap();
}

/// The CAS loop nvcc emits for 16-bit atomics, from every thread of 64 CTAs of 128 threads at
/// once on two adjacent halfwords: lanes with even global id increment halfword 0, odd ones
/// halfword 1. With a real 16-bit atomic no increment is lost and neither counter spills into
/// the other: 64 * 128 / 2 = 4096 each.
#[test]
fn cas_b16_loop_counts_exactly_across_ctas() {
    let k = load(
        "
        .reg .pred %p<4>;
        .reg .b16 %h<8>;
        .reg .b32 %r<8>;
        .reg .b64 %rd<8>;
        ld.param.u64 %rd1, [out];
        cvta.to.global.u64 %rd1, %rd1;
        mov.u32 %r1, %tid.x;
        and.b32 %r2, %r1, 1;
        mul.wide.u32 %rd2, %r2, 2;
        add.s64 %rd3, %rd1, %rd2;
        ld.global.u16 %h1, [%rd3];
    $Lretry:
        add.u16 %h2, %h1, 1;
        atom.global.cas.b16 %h3, [%rd3], %h1, %h2;
        setp.ne.u16 %p1, %h3, %h1;
        mov.b16 %h1, %h3;
        @%p1 bra $Lretry;
        ",
    );
    let out = upload(&[0u16, 0]);
    let c = LaunchConfig {
        grid: [64, 1, 1],
        block: [128, 1, 1],
        dynamic_shared_bytes: 0,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    launch(&k, &c, &out.to_le_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let r: Vec<u16> = download(out, 2);
    assert_eq!(r, vec![4096, 4096]);
    mem::free(out).unwrap();
}
