//! Special registers of chapter 10 not covered elsewhere, `brkpt` and `pmevent`.

use super::{cfg, mem, run_out, upload, HEAD, PRO};
use crate::{launch, ExecErrorKind, Module};

/// No explicit clusters: each CTA is a 1x1x1 cluster (%clusterid = %ctaid, %nclusterid =
/// %nctaid, rank 0 of 1); no reserved shared memory (begin = end = total size 0, cap 0); no
/// environment registers, graph or counted PM events (0); %clock_hi:%clock64 read twice is
/// monotonic.
#[test]
fn cluster_smem_env_pm_and_clock_registers() {
    let out = run_out(
        &format!(
            "{PRO}
            .reg .b64 %c<3>;
            mov.u32 %r5, %clusterid.x;          st.global.u32 [%rd1], %r5;
            mov.u32 %r5, %nclusterid.x;         st.global.u32 [%rd1+4], %r5;
            mov.u32 %r5, %cluster_ctarank;      st.global.u32 [%rd1+8], %r5;
            mov.u32 %r5, %cluster_nctarank;     st.global.u32 [%rd1+12], %r5;
            mov.u32 %r5, %cluster_nctaid.y;     st.global.u32 [%rd1+16], %r5;
            mov.u32 %r5, %reserved_smem_offset_cap; st.global.u32 [%rd1+20], %r5;
            mov.u32 %r5, %aggr_smem_size;       st.global.u32 [%rd1+24], %r5;
            mov.u32 %r5, %envreg7;              st.global.u32 [%rd1+28], %r5;
            mov.u32 %r5, %pm3;                  st.global.u32 [%rd1+32], %r5;
            mov.u64 %c0, %pm5_64;               cvt.u32.u64 %r5, %c0; st.global.u32 [%rd1+36], %r5;
            mov.u64 %c0, %current_graph_exec;   cvt.u32.u64 %r5, %c0; st.global.u32 [%rd1+40], %r5;
            mov.u64 %c1, %clock64;
            pmevent 1;
            mov.u64 %c2, %clock64;
            setp.ge.u64 %p1, %c2, %c1;
            selp.u32 %r5, 1, 0, %p1;            st.global.u32 [%rd1+44], %r5;
            mov.u32 %r6, %clock_hi;
            shr.u64 %c2, %c2, 32;
            cvt.u32.u64 %r7, %c2;
            setp.ge.u32 %p1, %r6, %r7;
            selp.u32 %r5, 1, 0, %p1;            st.global.u32 [%rd1+48], %r5;
            "
        ),
        1,
        1,
        13,
    );
    assert_eq!(out, vec![0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1]);
}

#[test]
fn brkpt_is_a_launch_error() {
    let src = format!("{HEAD}.visible .entry k(.param .u64 out)\n{{\n{PRO}\nbrkpt;\n}}\n");
    let m = Module::load(&src, "t.ptx").unwrap();
    let out = upload(&[0u32; 1]);
    let e = launch(&m.kernel("k").unwrap(), &cfg(1, 1), &out.to_le_bytes()).unwrap_err();
    assert_eq!(e.kind, ExecErrorKind::Trap);
    assert!(
        e.message.starts_with("brkpt") && e.message.contains("kernel 'k'"),
        "{e}"
    );
    mem::free(out).unwrap();
}
