//! `cuInit` and the driver's own state: whether it has been initialised, and whether this
//! process is a child forked after that (which must not use it). `exports::call` reads both
//! before every entry point; `cuDriverGetVersion` needs neither.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::{config, context, inject, trace};
use abi::*;
use std::ffi::c_int;

static INITIALIZED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `cuInit` has succeeded.
pub fn initialized() -> bool {
    INITIALIZED.load(std::sync::atomic::Ordering::Acquire)
}

fn set_initialized() {
    static AT_FORK: std::sync::Once = std::sync::Once::new();
    // SAFETY: registers a handler that only stores to an atomic (async-signal-safe).
    AT_FORK.call_once(|| unsafe {
        libc::pthread_atfork(None, None, Some(forked_child));
    });
    INITIALIZED.store(true, std::sync::atomic::Ordering::Release)
}

/// Set in a child process forked after `cuInit`: the child has none of the parent's worker
/// threads (and locks they held may stay held), so, as with the real driver, every call that
/// needs the driver, `cuInit` included, returns CUDA_ERROR_NOT_INITIALIZED there (measured on
/// an H100, driver 580.159: the child's cuMemAlloc and cuInit both return 3) instead of waiting
/// on threads that do not exist.
static FORKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn forked_child() {
    FORKED.store(true, std::sync::atomic::Ordering::Release);
}

/// Whether this process is a child forked after `cuInit`.
pub fn forked() -> bool {
    FORKED.load(std::sync::atomic::Ordering::Acquire)
}

pub(crate) unsafe fn init(flags: u32) -> CuResult {
    if flags != 0 {
        return Err(INVALID_VALUE);
    }
    if config::visible_devices().is_empty() {
        // CUDA_VISIBLE_DEVICES hides every device, as the real driver then answers.
        return Err(CUresult::CUDA_ERROR_NO_DEVICE);
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        config::check_driver_variables();
        let p = config::profile();
        // Device memory is sized by the profile before the first allocation. The engine may
        // still be a stub while it is being written: keep initialising without it, so the
        // rest of the driver stays usable.
        // An injected budget (CUDA_SHIM_INJECT=alloc-budget=SIZE) makes the memory smaller.
        // Each visible device has a budget of that size in the one address space.
        let capacity = inject::budget().map_or(p.total_mem, |b| b.min(p.total_mem));
        let devices = crate::device::count();
        if let Err(e) = std::panic::catch_unwind(|| engine::mem::set_devices(devices, capacity)) {
            let _ = e;
            trace::trace!("engine::mem::set_devices is not available yet");
        }
        engine::set_kernel_timeout(config::kernel_timeout());
        engine::set_schedule(config::schedule());
        engine::set_tensor_arch(p.sm());
        engine::jit::set_mode(config::jit());
        // (`on` compiles hot kernels only; verify mode compiles every kernel it runs.)
        engine::jit::set_hot(config::jit_hot());
        // (Opened at the first compile only: a process that compiles nothing never touches it.)
        engine::jit::set_cache_dir(config::cache_dir());
        engine::jit::set_note(|s| trace::line(format_args!("{s}")));
        engine::set_device_info(engine::DeviceInfo {
            attribute: device_attribute,
            device_count: || 1,
            version: abi::DRIVER_VERSION,
        });
        if let Some(n) = config::get().threads {
            engine::set_worker_threads(n);
        }
        crate::sanitizer::start();
        crate::stats::start();
        context::init_primary();
        trace::trace!(
            "cuInit: {devices} device(s), each {} (sm_{})",
            p.name,
            p.sm()
        );
    });
    set_initialized();
    Ok(())
}

/// `cudaDeviceGetAttribute` in device code (dynamic parallelism): what cuDeviceGetAttribute
/// answers on the host.
fn device_attribute(attr: i32, dev: i32) -> Option<i32> {
    let mut v = 0;
    // SAFETY: `v` is a live int.
    let r = unsafe { crate::device::get_attribute(&mut v, CUdevice_attribute(attr as _), dev) };
    r.ok().map(|()| v)
}

pub(crate) unsafe fn driver_get_version(version: *mut c_int) -> CuResult {
    if version.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the caller provides a writable int.
    unsafe { *version = abi::DRIVER_VERSION };
    Ok(())
}
