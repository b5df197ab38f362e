//! `CUDA_SHIM_TRACE`: one line per driver call (arguments and result), per `cuGetProcAddress`
//! lookup and per export-table request, to stderr or a file. Never to stdout.

use crate::config::{self, TraceTarget};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::io::Write;

enum Sink {
    Off,
    Stderr,
    File(std::fs::File),
}

static SINK: Lazy<Mutex<Sink>> = Lazy::new(|| {
    Mutex::new(match &config::get().trace {
        TraceTarget::Off => Sink::Off,
        TraceTarget::Stderr => Sink::Stderr,
        TraceTarget::File(path) => {
            match std::fs::File::create(path) {
                Ok(f) => Sink::File(f),
                Err(e) => {
                    eprintln!("libcuda-shim: CUDA_SHIM_TRACE: cannot create {path}: {e}; tracing to stderr");
                    Sink::Stderr
                }
            }
        }
    })
});

static ENABLED: Lazy<bool> = Lazy::new(|| config::get().trace != TraceTarget::Off);

/// Whether tracing is on (cheap after the first call).
#[inline]
pub fn enabled() -> bool {
    *ENABLED
}

/// Writes one trace line (a no-op when tracing is off).
pub fn line(args: std::fmt::Arguments<'_>) {
    if !enabled() {
        return;
    }
    let text = format!("libcuda-shim[{}]: {args}\n", thread_tag());
    match &mut *SINK.lock() {
        Sink::Off => {}
        Sink::Stderr => {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
        Sink::File(f) => {
            let _ = f.write_all(text.as_bytes());
        }
    }
}

/// A short per-thread number, so interleaved calls of several threads can be told apart.
fn thread_tag() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local!(static TAG: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    TAG.with(|t| *t)
}

/// `trace!("...", args)`: formats only when tracing is on.
macro_rules! trace {
    ($($t:tt)*) => {
        if $crate::trace::enabled() {
            $crate::trace::line(format_args!($($t)*));
        }
    };
}
pub(crate) use trace;

/// Messages the user must see whether or not tracing is on (errors from kernels, bad PTX):
/// stderr, with the library's prefix; also into the trace file when there is one.
pub fn warn(msg: &str) {
    eprintln!("libcuda-shim: {msg}");
    if let TraceTarget::File(_) = config::get().trace {
        line(format_args!("{msg}"));
    }
}
