//! The sanitizer's memcheck on kernels: every thread's bad access is reported, not only the
//! first one's.
//!
//! compute-sanitizer's memcheck reports an invalid access for each thread that makes one (its
//! log repeats the report per thread: `scripts/ground-truth/results/sanitizer-h100.txt`
//! counted 32 errors for a warp storing past shared memory and 100 for 100 threads reading
//! freed memory), and the launch then fails with CUDA_ERROR_LAUNCH_FAILED ("unspecified launch
//! failure" in the same log). Its documentation says such a precise error terminates the kernel
//! without running the faulting thread's later instructions. Here, under the tool
//! ([`crate::mem::set_checked`]):
//! - a faulting lane's access is not made ([`Cta::bad_access`](super::cta::Cta) points it at a
//!   scratch buffer) and is recorded; the other lanes of the instruction complete theirs;
//! - after that instruction the warp is ended (all its threads, as `exit` ends them), so
//!   barriers stop waiting for it, while the other warps and CTAs run on and report their own
//!   faults; a CTA left waiting for a warp that ended this way ends as well;
//! - the launch fails with the first fault (the lowest CTA's), as a trap
//!   (CUDA_ERROR_LAUNCH_FAILED), and the driver reports every recorded fault ([`take_reports`]).
//!
//! A cooperative launch stops at its first faulting instruction instead (all its faulting lanes
//! are still reported): its grid barrier is a spin on global memory that would wait for the
//! ended warp forever.
//!
//! Without the tool nothing changes: the first fault stops the launch with its own error.

use crate::{AccessFault, ExecError, ExecErrorKind};
use parking_lot::Mutex;

/// Bytes a faulting lane's access may span and still be skipped (larger ones, such as a bulk
/// copy, stop the launch as without the tool).
pub const SINK_BYTES: usize = 4096;

/// Where a faulting lane's access goes instead: reads see zeros or what earlier faulting lanes
/// wrote, writes are dropped. Aligned for atomics. (A copy instruction whose source faults
/// copies these bytes to its destination: the launch fails anyway, leaving memory undefined.)
#[repr(align(16))]
pub struct Sink(pub [u8; SINK_BYTES]);

/// The faults recorded by launches, for the driver's reports; at most [`MAX_KEPT`] are kept
/// (the rest only counted), so a grid of millions of faulting threads does not hold millions
/// of reports.
struct Faults {
    kept: Vec<AccessFault>,
    /// Per kernel, faults recorded past [`MAX_KEPT`].
    dropped: Vec<(String, u64)>,
}

static FAULTS: Mutex<Faults> = Mutex::new(Faults {
    kept: Vec::new(),
    dropped: Vec::new(),
});

/// More than compute-sanitizer prints by default (`--print-limit 100`).
const MAX_KEPT: usize = 10_000;

/// Records one faulting lane's access.
pub(crate) fn record(f: &AccessFault) {
    let mut all = FAULTS.lock();
    if all.kept.len() < MAX_KEPT {
        all.kept.push(f.clone());
        return;
    }
    match all.dropped.iter_mut().find(|(k, _)| *k == f.kernel) {
        Some((_, n)) => *n += 1,
        None => all.dropped.push((f.kernel.clone(), 1)),
    }
}

/// The faulting accesses launches of `kernel` recorded since the last call, by block and thread
/// (CTAs run in parallel, so the order they were made in varies from run to run), and how many
/// more were counted but not kept.
pub fn take_reports(kernel: &str) -> (Vec<AccessFault>, u64) {
    let mut all = FAULTS.lock();
    let (mut mine, rest): (Vec<_>, Vec<_>) = all.kept.drain(..).partition(|f| f.kernel == kernel);
    mine.sort_by_key(|f| {
        let ([bx, by, bz], [tx, ty, tz]) = (f.block, f.thread);
        (bz, by, bx, tz, ty, tx)
    });
    all.kept = rest;
    let more = match all.dropped.iter().position(|(k, _)| k == kernel) {
        Some(i) => all.dropped.swap_remove(i).1,
        None => 0,
    };
    (mine, more)
}

/// The error a launch that had faults under the tool fails with: compute-sanitizer's
/// "unspecified launch failure" (CUDA_ERROR_LAUNCH_FAILED), keeping the first fault's report.
pub(crate) fn launch_failure(first: ExecError) -> ExecError {
    ExecError {
        kind: ExecErrorKind::Trap,
        ..first
    }
}

/// A grid's error under the tool: a memory fault of any cause (a stack overflow too: on an
/// H100 under compute-sanitizer its 700 became 719, scripts/ground-truth/results/
/// sanitizer-h100.txt) fails the launch as a bad access does ([`launch_failure`]).
pub(crate) fn under_the_tool(e: ExecError) -> ExecError {
    match e.kind {
        ExecErrorKind::IllegalAddress | ExecErrorKind::MisalignedAddress
            if crate::mem::checked() =>
        {
            launch_failure(e)
        }
        _ => e,
    }
}
