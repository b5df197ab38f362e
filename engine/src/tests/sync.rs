//! Vector atomics (whose old values come back in an order the scheduler picks) and their forms
//! refused at load. (barrier.red, mbarrier and cp.async are file tests:
//! `engine/tests/filetests/sync/`.) Expected values are worked out from the ISA's definitions in
//! comments.

use super::{cfg, download, mem, upload, PRO};
use crate::{launch, Module};

const HEAD90: &str = ".version 8.6\n.target sm_90\n.address_size 64\n";

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
