//! The size of a CTA's shared memory window. (Warp-wide shared accesses and their faults are
//! file tests: `engine/tests/filetests/memory/shared_*.ptx`.)

use super::{cfg, HEAD};
use crate::{launch, ExecErrorKind, Module};

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
