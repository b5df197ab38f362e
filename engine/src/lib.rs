//! The engine of libcuda-shim: PTX text -> AST -> IR -> executor, plus the device address space.
//!
//! It knows nothing of the CUDA driver API. Its public surface is:
//! - [`Module::load`]: parse, lower and validate a PTX module, with diagnostics;
//! - [`Module::kernel`] / [`Module::global`]: kernels with their parameter layouts, and globals;
//! - [`mem`]: device memory (device pointers are host addresses in a reserved region);
//! - [`launch`]: run a kernel over a grid, CTAs in parallel on host threads.
//!
//! Data flows one way: `ptx` (lexer, parser, AST) -> `lower` (typed IR in `ir`) -> `analysis`
//! (CFG, post-dominators for reconvergence) -> `exec` (warp interpreter).

mod analysis;
pub mod bc;
mod check;
mod devrt;
pub mod diag;
mod exec;
pub mod fidelity;
mod frame;
pub mod handles;
mod ir;
#[doc(hidden)] // public for `check` and the ISA tests; not a stable API
pub mod isa;
pub mod jit;
mod link;
mod lower;
pub mod mem;
mod module;
#[doc(hidden)] // public for the parser tests and benchmarks; not a stable API
pub mod ptx;
pub mod regs;
mod sem;
pub mod surf;
pub mod tensormap;
pub mod tex;

pub use check::{check, CheckSummary};
pub use diag::{Diagnostic, LoadError, LoadErrorKind};
pub use exec::devrt::{set_device_info, set_limits as set_devrt_limits, DeviceInfo};
pub use exec::initcheck::{
    poison as initcheck_poison, set_initcheck, take_reports as take_init_reports, InitReport,
};
pub use exec::memcheck::take_reports as take_fault_reports;
pub use exec::race::{
    set_racecheck, take_reports as take_race_reports, HazardKind, RaceReport,
    Severity as RaceSeverity,
};
pub use exec::synccheck::{
    set_synccheck, take_reports as take_sync_reports, SyncErrorKind, SyncReport,
};
pub use exec::{running, Progress};
pub use module::{Global, Kernel, Module, Param};
pub use sem::softfloat;

use std::fmt;
use std::sync::Arc;

/// Grid and block shape, dynamic shared memory and cluster shape of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
    /// CTAs per cluster in each dimension (`[1, 1, 1]`: every CTA is its own cluster). Each
    /// dimension must divide the grid's; at most 16 CTAs in all. The CTAs of a cluster run
    /// together (`barrier.cluster`, distributed shared memory).
    pub cluster: [u32; 3],
    /// Whether the launch named its cluster shape (a launch attribute, or the kernel's
    /// `.reqnctapercluster`), which `%is_explicit_cluster` reports; false for an implicit
    /// launch, whose clusters are single CTAs. An explicit shape may be 1x1x1.
    pub explicit_cluster: bool,
}

/// What went wrong while a kernel ran. The driver maps `kind` to a `CUresult`; `message` says
/// exactly what and where (kernel, block, thread, PTX line, address); `access` holds the parts
/// of a bad memory access, for reports that lay them out themselves (the sanitizer's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub kind: ExecErrorKind,
    pub message: String,
    pub access: Option<Box<AccessFault>>,
}

/// One bad memory access: who made it, what it was, and where the address lies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessFault {
    pub kernel: String,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub ptx_line: u32,
    /// The PTX instruction (`st.global.u32`).
    pub inst: String,
    /// `global`, `shared`, `local` or `param`.
    pub space: &'static str,
    pub write: bool,
    pub atomic: bool,
    pub size: u64,
    pub addr: u64,
    /// Misaligned for its size (else outside its space).
    pub misaligned: bool,
    /// For a global address: the allocation containing it (misaligned accesses), or else the
    /// nearest one.
    pub allocation: Option<mem::Allocation>,
    /// For a global address inside memory freed while the sanitizer keeps it quarantined: that
    /// allocation (a use after free).
    pub freed: Option<mem::Allocation>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecErrorKind {
    /// A load or store outside every allocation (CUDA_ERROR_ILLEGAL_ADDRESS).
    IllegalAddress,
    /// A misaligned access (CUDA_ERROR_MISALIGNED_ADDRESS).
    MisalignedAddress,
    /// `trap` or an unrecoverable condition the ISA calls a trap (CUDA_ERROR_LAUNCH_FAILED).
    Trap,
    /// `__assertfail` (CUDA_ERROR_ASSERT).
    Assert,
    /// An instruction the executor reached but cannot run (CUDA_ERROR_NOT_SUPPORTED).
    Unsupported,
    /// The launch shape or resources are invalid (CUDA_ERROR_INVALID_VALUE and friends).
    InvalidLaunch,
    /// Too many resources requested (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES).
    OutOfResources,
    /// The launch ran past the time limit ([`set_kernel_timeout`]; CUDA_ERROR_LAUNCH_TIMEOUT).
    Timeout,
    /// An instruction the hardware refuses while running it, as an H200 refuses an im2col copy
    /// that starts outside its bounding box (CUDA_ERROR_ILLEGAL_INSTRUCTION).
    IllegalInstruction,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExecError {}

/// Runs `kernel` to completion. `params` holds the kernel's parameter block laid out as
/// [`Kernel::params`] describes (offsets, sizes); it must be at least [`Kernel::param_bytes`] long.
/// CTAs run in parallel on the worker pool; the first fault stops the launch and is returned.
pub fn launch(kernel: &Arc<Kernel>, config: &LaunchConfig, params: &[u8]) -> Result<(), ExecError> {
    exec::launch(kernel, &cluster_shape(kernel, config)?, params)
}

/// The configuration a launch runs with: a kernel that declares `.reqnctapercluster` runs with
/// that cluster shape when the configuration names none (`[1, 1, 1]`), as a launch without
/// cluster attribute does on the driver; naming another shape is an invalid launch. Such a
/// shape is always explicit (`%is_explicit_cluster`). A kernel declaring `.explicitcluster` must
/// be launched with a shape named one way or the other. CTAs of a cluster run together on one
/// host thread (see `exec::cluster`).
pub(crate) fn cluster_shape(
    kernel: &Kernel,
    config: &LaunchConfig,
) -> Result<LaunchConfig, ExecError> {
    let mut cfg = *config;
    if let Some(req) = kernel.cluster_dims {
        cfg.explicit_cluster = true;
        if cfg.cluster == [1, 1, 1] {
            cfg.cluster = req;
        } else if cfg.cluster != req {
            return Err(ExecError {
                kind: ExecErrorKind::InvalidLaunch,
                message: format!(
                    "kernel '{}' requires clusters of {:?} CTAs (.reqnctapercluster) but was \
                     launched with {:?}",
                    kernel.name, req, cfg.cluster
                ),
                access: None,
            });
        }
    }
    if kernel.explicit_cluster && !cfg.explicit_cluster {
        return Err(ExecError {
            kind: ExecErrorKind::InvalidLaunch,
            message: format!(
                "kernel '{}' declares .explicitcluster but was launched without a cluster shape",
                kernel.name
            ),
            access: None,
        });
    }
    Ok(cfg)
}

/// Runs `kernel` as a cooperative launch (`cuLaunchCooperativeKernel`): all CTAs are
/// co-resident, taking turns on the worker pool round by round, so CTAs may wait for each other
/// (cooperative groups' `grid.sync()`, which reads the grid workspace this provides through
/// `%envreg1/2`). The caller (the driver) checks that the grid fits the device at once, as
/// `CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE` requires; the engine itself runs any grid size.
pub fn launch_cooperative(
    kernel: &Arc<Kernel>,
    config: &LaunchConfig,
    params: &[u8],
) -> Result<(), ExecError> {
    exec::launch_cooperative(kernel, &cluster_shape(kernel, config)?, params)
}

/// [`launch`] (or, `cooperative`, [`launch_cooperative`]) of a kernel that may reach only the
/// device memory `reach` names ([`mem::Reach`], as the driver grants it with peer access): an
/// access to another device's allocation ([`mem::alloc_on`]) stops the launch with an illegal
/// address, as on a GPU. The check is made when an allocation enters a warp's cache. `device`
/// is the ordinal the launch runs on (device code's `cudaGetDevice`); grids it launches from
/// device code run there too, with the same reach.
pub fn launch_within(
    kernel: &Arc<Kernel>,
    config: &LaunchConfig,
    params: &[u8],
    cooperative: bool,
    reach: mem::Reach,
    device: u32,
) -> Result<(), ExecError> {
    exec::launch_within(
        kernel,
        &cluster_shape(kernel, config)?,
        params,
        cooperative,
        reach,
        device,
    )
}

/// Sets how many host threads run CTAs (0 = all cores, the default). Takes effect at the next
/// launch; results of race-free kernels do not depend on it.
pub fn set_worker_threads(n: usize) {
    exec::set_worker_threads(n)
}

/// Runs later launches in a seeded random interleaving (`Some(seed)`) or the default schedule
/// (`None`): with a seed, CTAs are taken in a permuted order and the warps of a CTA in a
/// shuffled order with random time slices, on one host thread, so that the same seed gives the
/// same interleaving and the same results, and other seeds explore others (see
/// `exec::schedule`).
pub fn set_schedule(seed: Option<u64>) {
    exec::schedule::set_schedule(seed)
}

/// The seed of [`set_schedule`].
pub fn schedule() -> Option<u64> {
    exec::schedule::schedule()
}

/// Total thread-instructions (instructions times active lanes) executed by all launches so far:
/// a throughput counter for benchmarks.
pub fn thread_instructions() -> u64 {
    exec::thread_instructions()
}

/// Sets a time limit for every launch (None, the default: no limit). A launch still running
/// when it expires stops with [`ExecErrorKind::Timeout`], whose message says where each warp of
/// the CTA that noticed was. Takes effect at the next launch.
pub fn set_kernel_timeout(limit: Option<std::time::Duration>) {
    exec::set_kernel_timeout(limit)
}

/// Sets the compute capability (e.g. 90) whose tensor-core arithmetic `mma`/`wmma` compute
/// (`sem::mma`: Ampere's for 8.x, Hopper's for 9.0 and later); Hopper's until set.
pub fn set_tensor_arch(sm: u32) {
    sem::mma::set_arch(sem::mma::Arch::of_sm(sm))
}

/// The time limit of [`set_kernel_timeout`].
pub fn kernel_timeout() -> Option<std::time::Duration> {
    exec::kernel_timeout()
}

/// Sets the per-thread stack size (CUDA's `cudaLimitStackSize`; default 1 KiB as in CUDA).
/// Frames of recursive or indirect calls and `alloca` draw from it; running past it is a
/// launch error naming kernel, thread and PTX line. Raise it for deep recursion; takes effect at
/// the next launch.
pub fn set_stack_size(bytes: usize) {
    exec::set_stack_size(bytes)
}

/// The per-thread stack size ([`set_stack_size`]).
pub fn stack_size() -> usize {
    exec::stack_size()
}

/// Sets the device heap that device-side `malloc` draws from (CUDA's
/// `cudaLimitMallocHeapSize`; default 8 MiB). Takes effect for later allocations.
pub fn set_heap_size(bytes: usize) {
    exec::sys::set_heap_size(bytes)
}

/// The device heap size ([`set_heap_size`]).
pub fn heap_size() -> usize {
    exec::sys::heap_size()
}

/// Bounds the device printf FIFO (CUDA's `cudaLimitPrintfFifoSize`; default 1 MiB): output past
/// it, until the next [`flush_printf`], is dropped as CUDA drops it.
pub fn set_printf_fifo_size(bytes: usize) {
    exec::sys::set_printf_fifo_size(bytes)
}

/// The device printf FIFO size ([`set_printf_fifo_size`]).
pub fn printf_fifo_size() -> usize {
    exec::sys::printf_fifo_size()
}

/// Writes pending device printf output, in launch order, through C stdio's `stdout` and flushes
/// it. The driver calls this where CUDA flushes: synchronisation, blocking copies, module
/// unload, context destroy.
pub fn flush_printf() {
    exec::sys::flush_printf()
}

/// Takes the pending device printf output instead of writing it (tests, custom sinks).
pub fn take_printf() -> Vec<u8> {
    exec::sys::take_printf()
}

#[cfg(test)]
mod tests;
