//! What ptxas refuses, and what it takes, at the edges of the format: each case's expected
//! answer is ptxas 13.5's (`ptxas -arch=sm_90`, the same for sm_80), messages included.

use crate::{LoadErrorKind, Module};

const KERNEL: &str = ".visible .entry k(.param .u64 p) { ret; }";

/// The load error's message, or "ok".
fn load(src: &str) -> String {
    match Module::load(src, "t.ptx") {
        Ok(_) => "ok".into(),
        Err(e) => {
            assert_eq!(e.kind, LoadErrorKind::InvalidPtx, "{e}");
            e.diagnostics[0].message.clone()
        }
    }
}

#[test]
fn ptxas_refuses_these_and_so_does_the_driver() {
    let v80 = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let cases = [
        (
            format!(".version 8.0\n.address_size 64\n{KERNEL}\n"),
            "Missing .target directive at start of file",
        ),
        (
            format!(".version 8.0\n.target sm_999\n.address_size 64\n{KERNEL}\n"),
            "Unsupported .target 'sm_999'",
        ),
        (
            format!("{v80}{KERNEL}\n{KERNEL}\n"),
            "Duplicate definition of function 'k'",
        ),
        (
            format!(
                "{v80}.shared .align 4 .b8 s[49153];\n.visible .entry k(.param .u64 p) {{ \
                 .reg .b64 %r<3>; mov.u64 %r1, s; ld.param.u64 %r2, [p]; \
                 st.global.u64 [%r2], %r1; ret; }}\n"
            ),
            "Entry function 'k' uses too much shared data (0xc001 bytes, 0xc000 max)",
        ),
        (
            format!(
                "{v80}.const .align 4 .b8 c[1048576];\n.visible .entry k(.param .u64 p) {{ \
                 .reg .b32 %r; ld.const.u32 %r, [c]; ret; }}\n"
            ),
            "File uses too much global constant data (0x100000 bytes, 0x10000 max)",
        ),
        (
            format!("{v80}.visible .entry k(.param .align 4 .b8 p[81920]) {{ ret; }}\n"),
            "Entry function 'k' uses too much parameter space (0x14000 bytes, 0x1100 max).",
        ),
        (
            ".version 8.1\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .align 4 .b8 p[32768]) { ret; }\n"
                .to_string(),
            "Entry function 'k' uses too much parameter space (0x8000 bytes, 0x7ffc max).",
        ),
        (
            format!("{v80}.visible .entry k(.param .u64 p) .maxntid 32, 0 {{ ret; }}\n"),
            "Positive non-zero value expected for maxntid",
        ),
        (
            format!("{v80}.visible .entry k(.param .u64 p) .reqntid 0 {{ ret; }}\n"),
            "Positive non-zero value expected for reqntid",
        ),
        (
            format!("{v80}.visible .entry k(.param .u64 p) .maxnreg 0 {{ ret; }}\n"),
            "Positive non-zero value expected for maxnreg",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(load(&src), want, "{src}");
    }
}

#[test]
fn ptxas_takes_these_and_so_does_the_driver() {
    let v80 = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let nested = format!(
        "{v80}.visible .entry k(.param .u64 p)\n{{\n{}\nret;\n{}\n}}\n",
        "{".repeat(1000),
        "}".repeat(1000)
    );
    let cases = [
        // The limits themselves.
        format!(
            "{v80}.shared .align 4 .b8 s[49152];\n.visible .entry k(.param .u64 p) {{ \
             .reg .b64 %r<3>; mov.u64 %r1, s; ld.param.u64 %r2, [p]; \
             st.global.u64 [%r2], %r1; ret; }}\n"
        ),
        format!(
            "{v80}.const .align 4 .b8 c[65536];\n.visible .entry k(.param .u64 p) {{ \
             .reg .b32 %r; ld.const.u32 %r, [c]; ret; }}\n"
        ),
        format!("{v80}.visible .entry k(.param .align 4 .b8 p[4352]) {{ ret; }}\n"),
        ".version 8.1\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .align 4 .b8 p[32764]) { ret; }\n"
            .to_string(),
        // A thousand nested blocks.
        nested,
        // Architecture-specific and family targets.
        format!(".version 8.8\n.target sm_100f\n.address_size 64\n{KERNEL}\n"),
        format!(".version 8.0\n.target sm_90a\n.address_size 64\n{KERNEL}\n"),
    ];
    for src in cases {
        assert_eq!(load(&src), "ok", "{src}");
    }
}
