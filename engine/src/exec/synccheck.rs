//! Barrier misuse detection (the sanitizer's synccheck), as compute-sanitizer's synccheck
//! reports it on an H100 (scripts/ground-truth/results/sanitizer-h100.txt):
//! - an aligned CTA barrier (`bar.sync`, `barrier.sync.aligned`: `__syncthreads`) reached by a
//!   warp whose threads are not all there (some took another path): "Divergent thread(s) in
//!   warp", one error per thread that arrived;
//! - `bar.warp.sync` (`__syncwarp`) by a thread outside its own membermask: "Invalid
//!   arguments", one error per thread of the warp that executed it.
//!
//! Without the tool both run as on a GPU (the launch succeeds); with it the launch fails with
//! CUDA_ERROR_LAUNCH_FAILED, as under compute-sanitizer, and the report is collected for the
//! driver ([`take_reports`]).

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);

/// Turns barrier checking on or off for later launches.
pub fn set_synccheck(on: bool) {
    ON.store(on, Ordering::Release);
}

pub(crate) fn enabled() -> bool {
    ON.load(Ordering::Acquire)
}

/// What was wrong with a barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncErrorKind {
    /// An aligned CTA barrier reached by part of a warp.
    DivergentThreads,
    /// A warp barrier whose membermask leaves out a thread that executes it.
    InvalidArguments,
}

/// One barrier error: where, by which thread first (the lowest lane), and how many threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncReport {
    pub kernel: String,
    pub kind: SyncErrorKind,
    pub line: u32,
    pub inst: String,
    pub thread: [u32; 3],
    pub block: [u32; 3],
    pub threads: u32,
}

static REPORTS: Mutex<Vec<SyncReport>> = Mutex::new(Vec::new());

pub(crate) fn record(r: SyncReport) {
    REPORTS.lock().push(r);
}

/// The barrier errors launches of `kernel` had since the last call.
pub fn take_reports(kernel: &str) -> Vec<SyncReport> {
    super::take_kernel_reports(&REPORTS, kernel, |r| &r.kernel)
}
