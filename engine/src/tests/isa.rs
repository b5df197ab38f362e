//! System calls: device printf through its FIFO and C stdio, and the FIFO and heap settings.
//! (The arithmetic cases are file tests: `engine/tests/filetests/`.)

use super::*;

/// Hand-written vprintf call (the ABI nvcc uses: format address and a local argument buffer,
/// each argument aligned to its size) and the flush through C stdio's `stdout`, captured by
/// pointing fd 1 at a pipe: device output lands between the host's two printf lines, in order.
#[test]
fn vprintf_fifo_flushes_through_c_stdout_in_order() {
    let src = format!(
        r#"{HEAD}
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[16] = {{118, 61, 37, 100, 32, 37, 46, 49, 102, 32, 37, 108, 108, 120, 10, 0}};
.visible .entry k()
{{
    .local .align 8 .b8 buf[24];
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .f64 %fd1;
    mov.u32 %r1, %tid.x;
    st.local.u32 [buf], %r1;                   // %d at offset 0
    cvt.rn.f64.u32 %fd1, %r1;
    st.local.f64 [buf+8], %fd1;                // %.1f aligned to 8
    mov.b64 %rd1, 0xABCDEF0123;
    st.local.u64 [buf+16], %rd1;               // %llx
    mov.u64 %rd2, buf;
    cvta.local.u64 %rd3, %rd2;
    mov.u64 %rd4, fmt;
    cvta.global.u64 %rd5, %rd4;
    {{
    .param .b64 p0;
    st.param.b64 [p0], %rd5;
    .param .b64 p1;
    st.param.b64 [p1], %rd3;
    .param .b32 rv;
    call.uni (rv), vprintf, (p0, p1);
    ld.param.b32 %r2, [rv];
    }}
    ret;
}}
"#
    );
    // fmt = "v=%d %.1f %llx\n"
    let m = Module::load(&src, "p.ptx").unwrap_or_else(|e| panic!("{e}"));
    crate::take_printf();
    launch(&m.kernel("k").unwrap(), &cfg(1, 3), &[]).unwrap();
    // SAFETY: plain libc calls on fds we own; fd 1 is restored before returning.
    let text = unsafe {
        extern "C" {
            static mut stdout: *mut libc::FILE;
        }
        let mut fds = [0; 2];
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::fflush(stdout);
        let saved = libc::dup(1);
        libc::dup2(fds[1], 1);
        libc::printf(c"host1\n".as_ptr());
        crate::flush_printf();
        libc::printf(c"host2\n".as_ptr());
        libc::fflush(stdout);
        libc::dup2(saved, 1);
        libc::close(saved);
        libc::close(fds[1]);
        let mut buf = vec![0u8; 4096];
        let n = libc::read(fds[0], buf.as_mut_ptr() as *mut _, buf.len());
        libc::close(fds[0]);
        String::from_utf8_lossy(&buf[..n.max(0) as usize]).into_owned()
    };
    assert_eq!(
        text,
        "host1\nv=0 0.0 abcdef0123\nv=1 1.0 abcdef0123\nv=2 2.0 abcdef0123\nhost2\n"
    );
}

#[test]
fn printf_fifo_drops_output_past_its_size() {
    // The FIFO bound applies to pending output; this only checks the setter round-trips, since
    // the FIFO is process-wide and other tests print concurrently.
    let old = crate::printf_fifo_size();
    crate::set_printf_fifo_size(old);
    assert_eq!(crate::printf_fifo_size(), old);
    assert_eq!(crate::heap_size(), 8 << 20);
}
