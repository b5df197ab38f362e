//! `cuda-shim check`: plain mode loads PTX as the driver would; `--lower-only` succeeds when every
//! instruction is valid PTX that lowers to IR, whether or not the executor runs it. Expected
//! outcomes come from the PTX ISA (and ptxas, which accepts the valid files here and rejects the
//! invalid one), not from the implementation.

use std::process::Command;
use tests::*;

const HEADER: &str = ".version 9.0\n.target sm_100a\n.address_size 64\n";

fn write(name: &str, body: &str) -> std::path::PathBuf {
    let dir = build_dir().join("check");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, format!("{HEADER}{body}")).unwrap();
    p
}

fn check(args: &[&std::path::Path], lower_only: bool) -> (bool, String, String) {
    let mut c = Command::new(&shim().cli);
    c.arg("check");
    if lower_only {
        c.arg("--lower-only");
    }
    let out = c.args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lower_only_accepts_valid_ptx_the_executor_cannot_run() {
    // ISA 9.7.13.16 multimem.ld_reduce and multimem.red: valid on sm_90 and later (ptxas 13.5
    // accepts this file for sm_100a), not run by the executor (no device here has multicast
    // objects).
    let f = write(
        "unsupported.ptx",
        ".entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [p];\n\
         multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];\n\
         mov.u32 %r2, %tid.x;\n\
         multimem.red.relaxed.sys.global.add.u32 [%rd1], %r2;\n\
         ret;\n}\n",
    );
    let (ok, out, err) = check(&[&f], true);
    assert!(ok, "--lower-only must succeed: {out}{err}");
    assert!(
        out.contains("ok: 1 function(s) (1 kernel(s)), 5 instruction(s), 2 the executor"),
        "{out}"
    );
    assert!(
        out.contains(
            "unsupported multimem: 2 (multimem.ld_reduce.relaxed.sys.global.add.u32, \
             multimem.red.relaxed.sys.global.add.u32)"
        ),
        "{out}"
    );
    // Plain mode loads as the driver would: the executor cannot run them.
    let (ok, out, err) = check(&[&f], false);
    assert!(!ok, "plain check must fail: {out}");
    assert!(
        err.contains(
            ":9:1: error: unsupported instruction 'multimem.ld_reduce.relaxed.sys.global.add.u32'"
        ),
        "{err}"
    );
    assert!(out.contains("failed: 1 function(s)"), "{out}");
}

#[test]
fn invalid_ptx_fails_in_both_modes_with_the_reason() {
    // ISA 9.7.4.9: tanh takes one source operand (ptxas: "Arguments mismatch").
    let f = write(
        "invalid.ptx",
        ".entry k()\n{\n.reg .f32 %f<4>;\ntanh.approx.f32 %f1, %f2, %f3;\nret;\n}\n",
    );
    for lower_only in [true, false] {
        let (ok, out, err) = check(&[&f], lower_only);
        assert!(!ok, "{out}");
        assert!(
            err.contains(":7:1: error: 'tanh.approx.f32' takes 2 operands, not 3"),
            "{err}"
        );
    }
}

#[test]
fn runnable_ptx_passes_both_modes() {
    let f = write(
        "ok.ptx",
        ".entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n\
         ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nst.global.u32 [%rd1], %r1;\nret;\n}\n",
    );
    for lower_only in [true, false] {
        let (ok, out, err) = check(&[&f], lower_only);
        assert!(ok, "{out}{err}");
        assert!(out.contains(", 0 the executor cannot run yet"), "{out}");
    }
}
