//! The C boundary. Every function of the shim that C calls runs its body through [`guard`]: the
//! exports (through `exports::call`, which adds the initialisation check and fault injection)
//! and the slots of the private export tables cudart gets from `cuGetExportTable`
//! (`cudart::export_tables`). A panic there becomes an error return and a message, never an
//! unwinding into C, and the call is traced as `name(args) -> result`.

use crate::{errors, trace};
use abi::CUresult;
use std::fmt::Write as _;

/// What a function C calls returns, as far as the boundary is concerned: what a caught panic
/// becomes, and how the trace shows the result.
pub(crate) trait Reply {
    /// The value returned when the body panicked.
    fn on_panic() -> Self;
    /// Appends ` -> result` to a trace line (nothing for a function without a result).
    fn describe(&self, line: &mut String);
}

impl Reply for CUresult {
    fn on_panic() -> Self {
        CUresult::CUDA_ERROR_UNKNOWN
    }

    fn describe(&self, line: &mut String) {
        let _ = write!(line, " -> {}", errors::name(*self));
    }
}

impl Reply for () {
    fn on_panic() -> Self {}

    fn describe(&self, _: &mut String) {}
}

/// Export-table slots that answer a number rather than a `CUresult`.
impl Reply for u32 {
    fn on_panic() -> Self {
        0
    }

    fn describe(&self, line: &mut String) {
        let _ = write!(line, " -> {self}");
    }
}

/// Runs `body`, catching a panic (logged as an internal error of `name`, and answered with
/// [`Reply::on_panic`]), then traces `name(args) -> result` when tracing is on; `args` writes
/// the arguments and runs only then.
#[inline]
pub(crate) fn guard<R: Reply>(
    name: &str,
    args: impl FnOnce(&mut String),
    body: impl FnOnce() -> R,
) -> R {
    let result = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            trace::warn(&format!("internal error in {name}: {msg}"));
            R::on_panic()
        }
    };
    if trace::enabled() {
        let mut text = String::new();
        args(&mut text);
        let mut line = format!("{name}({text})");
        result.describe(&mut line);
        trace::line(format_args!("{line}"));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_error_return() {
        let failed = guard::<CUresult>("test_panics", |_| {}, || panic!("on purpose"));
        assert_eq!(failed, CUresult::CUDA_ERROR_UNKNOWN);
        assert_eq!(
            guard::<u32>("test_panics", |_| {}, || panic!("on purpose")),
            0
        );
        guard::<()>("test_panics", |_| {}, || panic!("on purpose"));
        let ok = guard("test_returns", |_| {}, || CUresult::CUDA_SUCCESS);
        assert_eq!(ok, CUresult::CUDA_SUCCESS);
    }
}
