//! Profiler control. There is no profiler here: `cuProfilerStart`/`cuProfilerStop` (what
//! `cudaProfilerStart`/`cudaProfilerStop` call) succeed in a context and do nothing, as they
//! do on a GPU when no profiling tool is attached. `cuProfilerInitialize` is CUDA_ERROR_NOT_
//! SUPPORTED: the driver API documents that it always returns that since CUDA 12.0.

use crate::context;
use crate::errors::CuResult;
use abi::CUresult;
use std::ffi::c_char;

pub(crate) unsafe fn initialize(
    _config_file: *const c_char,
    _output_file: *const c_char,
    // `CUoutput_mode` (cudaProfiler.h), an enum.
    _mode: std::ffi::c_int,
) -> CuResult {
    Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
}

pub(crate) unsafe fn start() -> CuResult {
    context::active().map(|_| ())
}

pub(crate) unsafe fn stop() -> CuResult {
    context::active().map(|_| ())
}
