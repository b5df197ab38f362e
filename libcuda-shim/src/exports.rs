//! Every driver entry point, declared once.
//!
//! One line per ABI symbol generates: the `#[no_mangle] extern "C"` function, its
//! `cuGetProcAddress` entry (base name, introduction version, per-thread variant when the symbol
//! ends in `_ptds`/`_ptsz`), the trace line (arguments and result) and panic catching. Adding an
//! entry point is one line here plus its body in the module named on that line; bodies are
//! `unsafe fn(args) -> CuResult`. The build fails when an export's parameter types differ from
//! the declaration `abi/` has for it (bindgen's, from the pinned `cuda.h`): `abi(twin)` names the
//! declaration of a `_ptds`/`_ptsz` variant, `abi(none)` marks an ABI name cuda.h no longer
//! declares.
//!
//! Every other function the pinned `cuda.h` declares, under each ABI name (versioned and
//! `_ptds`/`_ptsz`), is listed in the second table (names from `abi/src/functions.rs` and
//! cuda.h's per-thread macros, introduction versions from `cudaTypedefs.h`'s `PFN_` names; a
//! unit test checks the table covers `abi/src/functions.rs`): each is exported, answers
//! `cuGetProcAddress`, and returns `CUDA_ERROR_NOT_SUPPORTED` with a trace line and a one-time
//! message on stderr.

#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

pub mod proc_address;
pub mod unversioned;

use crate::errors::CuResult;
use crate::*;
use abi::*;
pub use proc_address::EntryPoint;
use std::ffi::{c_char, c_int, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};
use std::fmt::Write as _;

/// Every exported entry point: the implemented ones first, then the NOT_SUPPORTED ones.
pub fn entry_points() -> impl Iterator<Item = &'static EntryPoint> {
    IMPLEMENTED.iter().chain(NOT_SUPPORTED.iter())
}

fn is_per_thread(symbol: &str) -> bool {
    symbol.ends_with("_ptds") || symbol.ends_with("_ptsz")
}

/// The common body of every implemented export: the init check, fault injection
/// (`CUDA_SHIM_INJECT`), and `boundary::guard` (panic catching, the trace).
#[inline]
pub(crate) fn call(
    name: &'static str,
    needs_init: bool,
    args: impl FnOnce(&mut String),
    body: impl FnOnce() -> CuResult,
) -> CUresult {
    // The `_ptds`/`_ptsz` variants give the NULL stream the per-thread meaning.
    stream::set_per_thread_call(is_per_thread(name));
    boundary::guard(name, args, || {
        if ((needs_init || name == "cuInit") && init::forked())
            || (needs_init && !init::initialized())
        {
            return CUresult::CUDA_ERROR_NOT_INITIALIZED;
        }
        let result = match inject::on_call(name) {
            Some(injected) => injected,
            None => body().err().unwrap_or(CUresult::CUDA_SUCCESS),
        };
        if result != CUresult::CUDA_SUCCESS {
            sanitizer::api_error(name, result);
        }
        result
    })
}

/// The body of every NOT_SUPPORTED export.
#[cold]
pub(crate) fn not_supported(name: &'static str) -> CUresult {
    static WARNED: once_cell::sync::Lazy<parking_lot::Mutex<std::collections::HashSet<&str>>> =
        once_cell::sync::Lazy::new(Default::default);
    if WARNED.lock().insert(name) {
        trace::warn(&format!(
            "{name} is not implemented yet; it returns CUDA_ERROR_NOT_SUPPORTED"
        ));
    }
    trace::trace!("{name}(...) -> CUDA_ERROR_NOT_SUPPORTED (not implemented)");
    CUresult::CUDA_ERROR_NOT_SUPPORTED
}

/// The compile-time check that an export has the signature `cuda.h` gives it: bindgen's
/// declaration in `abi/` (under the export's own name, or under `twin`, the name without the
/// `_ptds`/`_ptsz` suffix) must coerce to the export's function-pointer type, so any parameter
/// or result type that differs fails the build. `none`: cuda.h no longer declares this ABI name
/// (the legacy pre-`_v2` names, older versions of a call), so there is nothing to compare.
macro_rules! abi_signature {
    ($sym:ident ($($ty:ty),*)) => {
        const _: unsafe extern "C" fn($($ty),*) -> CUresult = abi::functions::$sym;
    };
    ($sym:ident ($($ty:ty),*) none) => {};
    ($sym:ident ($($ty:ty),*) $twin:ident) => {
        const _: unsafe extern "C" fn($($ty),*) -> CUresult = abi::functions::$twin;
    };
}

macro_rules! implemented {
    ($( $sym:ident $base:literal $ver:literal $([$any:ident])? $(abi($twin:ident))?
        ( $($arg:ident : $ty:ty),* $(,)? ) => $imp:path ; )*) => {
        $(
            abi_signature!($sym ($($ty),*) $($twin)?);
            #[no_mangle]
            #[doc = concat!("`", stringify!($sym), "` (C ABI). # Safety: pointers as `cuda.h` documents.")]
            pub unsafe extern "C" fn $sym($($arg: $ty),*) -> CUresult {
                let needs_init = true $(&& { let _ = stringify!($any); false })?;
                call(
                    stringify!($sym),
                    needs_init,
                    |_out: &mut String| {
                        let mut _sep = "";
                        $(
                            let _ = write!(_out, "{_sep}{}={:?}", stringify!($arg), $arg);
                            _sep = ", ";
                        )*
                    },
                    // SAFETY: the caller passes arguments as the driver API documents; every
                    // body checks pointers for null and handles against their registries before use.
                    || unsafe { $imp($($arg),*) },
                )
            }
        )*
        static IMPLEMENTED: &[EntryPoint] = &[
            $(EntryPoint {
                symbol: stringify!($sym),
                base: $base,
                version: $ver,
                per_thread: false,
                implemented: true,
                address: || $sym as unsafe extern "C" fn($($ty),*) -> CUresult as usize,
            },)*
        ];
    };
}

macro_rules! not_supported {
    ($( $sym:ident $base:literal $ver:literal ; )*) => {
        $(
            #[no_mangle]
            #[doc = concat!("`", stringify!($sym), "`: not implemented, returns CUDA_ERROR_NOT_SUPPORTED.")]
            // Declared without parameters: under the C calling convention the caller owns its
            // arguments, so ignoring them is sound whatever the real signature is.
            pub extern "C" fn $sym() -> CUresult {
                not_supported(stringify!($sym))
            }
        )*
        static NOT_SUPPORTED: &[EntryPoint] = &[
            $(EntryPoint {
                symbol: stringify!($sym),
                base: $base,
                version: $ver,
                per_thread: false,
                implemented: false,
                address: || $sym as extern "C" fn() -> CUresult as usize,
            },)*
        ];
    };
}

/// All entries with `per_thread` computed from the symbol (a `const` table cannot call functions).
pub(crate) fn table() -> &'static [EntryPoint] {
    static ALL: once_cell::sync::Lazy<Vec<EntryPoint>> = once_cell::sync::Lazy::new(|| {
        entry_points()
            .map(|e| EntryPoint {
                per_thread: is_per_thread(e.symbol),
                ..*e
            })
            .collect()
    });
    &ALL
}

/// `cuGetProcAddress`: a lookup in this table (`proc_address` knows the rules, not the table).
unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { proc_address::get_proc_address(table(), symbol, pfn, version, flags) }
}

unsafe fn get_proc_address_v2(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut CUdriverProcAddressQueryResult,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { proc_address::get_proc_address_v2(table(), symbol, pfn, version, flags, status) }
}

implemented! {
    // Errors, version, initialisation, lookup.
    cuGetErrorString "cuGetErrorString" 6000 [any] (error: CUresult, p_str: *mut *const c_char) => errors::get_error_string;
    cuGetErrorName "cuGetErrorName" 6000 [any] (error: CUresult, p_str: *mut *const c_char) => errors::get_error_name;
    cuInit "cuInit" 2000 [any] (flags: c_uint) => init::init;
    cuDriverGetVersion "cuDriverGetVersion" 2020 [any] (version: *mut c_int) => init::driver_get_version;
    cuGetProcAddress "cuGetProcAddress" 11030 [any] abi(none) (symbol: *const c_char, pfn: *mut *mut c_void, cuda_version: c_int, flags: cuuint64_t) => get_proc_address;
    cuGetProcAddress_v2 "cuGetProcAddress" 12000 [any] (symbol: *const c_char, pfn: *mut *mut c_void, cuda_version: c_int, flags: cuuint64_t, status: *mut CUdriverProcAddressQueryResult) => get_proc_address_v2;
    cuGetExportTable "cuGetExportTable" 3000 [any] (table: *mut *const c_void, id: *const CUuuid) => cudart::export_tables::get_export_table;
    // Devices.
    cuDeviceGet "cuDeviceGet" 2000 (device: *mut CUdevice, ordinal: c_int) => device::get;
    cuDeviceGetCount "cuDeviceGetCount" 2000 (count: *mut c_int) => device::get_count;
    cuDeviceGetName "cuDeviceGetName" 2000 (name: *mut c_char, len: c_int, dev: CUdevice) => device::get_name;
    cuDeviceGetUuid "cuDeviceGetUuid" 9020 abi(none) (uuid: *mut CUuuid, dev: CUdevice) => device::get_uuid;
    cuDeviceGetUuid_v2 "cuDeviceGetUuid" 11040 (uuid: *mut CUuuid, dev: CUdevice) => device::get_uuid;
    cuDeviceTotalMem_v2 "cuDeviceTotalMem" 3020 (bytes: *mut usize, dev: CUdevice) => device::total_mem;
    cuDeviceGetAttribute "cuDeviceGetAttribute" 2000 (value: *mut c_int, attrib: CUdevice_attribute, dev: CUdevice) => device::get_attribute;
    cuDeviceGetProperties "cuDeviceGetProperties" 2000 (prop: *mut CUdevprop, dev: CUdevice) => device::get_properties;
    cuDeviceComputeCapability "cuDeviceComputeCapability" 2000 (major: *mut c_int, minor: *mut c_int, dev: CUdevice) => device::compute_capability;
    cuDeviceGetPCIBusId "cuDeviceGetPCIBusId" 4010 (bus_id: *mut c_char, len: c_int, dev: CUdevice) => device::get_pci_bus_id;
    cuDeviceGetByPCIBusId "cuDeviceGetByPCIBusId" 4010 (dev: *mut CUdevice, bus_id: *const c_char) => device::get_by_pci_bus_id;
    cuModuleGetLoadingMode "cuModuleGetLoadingMode" 11070 (mode: *mut CUmoduleLoadingMode) => device::module_loading_mode;
    // Primary contexts.
    cuDevicePrimaryCtxRetain "cuDevicePrimaryCtxRetain" 7000 (pctx: *mut CUcontext, dev: CUdevice) => context::calls::primary_retain;
    cuDevicePrimaryCtxRelease "cuDevicePrimaryCtxRelease" 7000 abi(none) (dev: CUdevice) => context::calls::primary_release;
    cuDevicePrimaryCtxRelease_v2 "cuDevicePrimaryCtxRelease" 11000 (dev: CUdevice) => context::calls::primary_release;
    cuDevicePrimaryCtxReset "cuDevicePrimaryCtxReset" 7000 abi(none) (dev: CUdevice) => context::calls::primary_reset;
    cuDevicePrimaryCtxReset_v2 "cuDevicePrimaryCtxReset" 11000 (dev: CUdevice) => context::calls::primary_reset;
    cuDevicePrimaryCtxSetFlags "cuDevicePrimaryCtxSetFlags" 7000 abi(none) (dev: CUdevice, flags: c_uint) => context::calls::primary_set_flags;
    cuDevicePrimaryCtxSetFlags_v2 "cuDevicePrimaryCtxSetFlags" 11000 (dev: CUdevice, flags: c_uint) => context::calls::primary_set_flags;
    cuDevicePrimaryCtxGetState "cuDevicePrimaryCtxGetState" 7000 (dev: CUdevice, flags: *mut c_uint, active: *mut c_int) => context::calls::primary_get_state;
    // Contexts.
    cuCtxCreate_v2 "cuCtxCreate" 3020 abi(none) (pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) => context::calls::create_v2;
    cuCtxCreate_v3 "cuCtxCreate" 11040 abi(none) (pctx: *mut CUcontext, params: *mut CUexecAffinityParam, num_params: c_int, flags: c_uint, dev: CUdevice) => context::calls::create_v3;
    cuCtxCreate_v4 "cuCtxCreate" 12050 (pctx: *mut CUcontext, params: *mut CUctxCreateParams, flags: c_uint, dev: CUdevice) => context::calls::create_v4;
    cuCtxDestroy_v2 "cuCtxDestroy" 4000 (ctx: CUcontext) => context::calls::destroy;
    cuCtxPushCurrent_v2 "cuCtxPushCurrent" 4000 (ctx: CUcontext) => context::calls::push_current;
    cuCtxPopCurrent_v2 "cuCtxPopCurrent" 4000 (pctx: *mut CUcontext) => context::calls::pop_current;
    cuCtxSetCurrent "cuCtxSetCurrent" 4000 (ctx: CUcontext) => context::calls::set_current;
    cuCtxGetCurrent "cuCtxGetCurrent" 4000 (pctx: *mut CUcontext) => context::calls::get_current;
    cuCtxGetDevice "cuCtxGetDevice" 2000 (device: *mut CUdevice) => context::calls::get_device;
    cuCtxGetDevice_v2 "cuCtxGetDevice" 13000 (device: *mut CUdevice, ctx: CUcontext) => context::calls::get_device_v2;
    cuCtxGetFlags "cuCtxGetFlags" 7000 (flags: *mut c_uint) => context::calls::get_flags;
    cuCtxSetFlags "cuCtxSetFlags" 12010 (flags: c_uint) => context::calls::set_flags;
    cuCtxGetId "cuCtxGetId" 12000 (ctx: CUcontext, id: *mut c_ulonglong) => context::calls::get_id;
    cuCtxSynchronize "cuCtxSynchronize" 2000 () => context::calls::synchronize;
    cuCtxSynchronize_v2 "cuCtxSynchronize" 13000 (ctx: CUcontext) => context::calls::synchronize_v2;
    cuCtxSetLimit "cuCtxSetLimit" 3010 (limit: CUlimit, value: usize) => context::calls::set_limit;
    cuCtxGetLimit "cuCtxGetLimit" 3010 (value: *mut usize, limit: CUlimit) => context::calls::get_limit;
    cuCtxGetCacheConfig "cuCtxGetCacheConfig" 3020 (config: *mut CUfunc_cache) => context::calls::get_cache_config;
    cuCtxSetCacheConfig "cuCtxSetCacheConfig" 3020 (config: CUfunc_cache) => context::calls::set_cache_config;
    cuCtxGetSharedMemConfig "cuCtxGetSharedMemConfig" 4020 (config: *mut CUsharedconfig) => context::calls::get_shared_mem_config;
    cuCtxSetSharedMemConfig "cuCtxSetSharedMemConfig" 4020 (config: CUsharedconfig) => context::calls::set_shared_mem_config;
    cuCtxGetApiVersion "cuCtxGetApiVersion" 3020 (ctx: CUcontext, version: *mut c_uint) => context::calls::get_api_version;
    cuCtxGetStreamPriorityRange "cuCtxGetStreamPriorityRange" 5050 (least: *mut c_int, greatest: *mut c_int) => context::calls::get_stream_priority_range;
    cuCtxResetPersistingL2Cache "cuCtxResetPersistingL2Cache" 11000 () => context::calls::reset_persisting_l2;
    // Memory.
    cuMemGetInfo_v2 "cuMemGetInfo" 3020 (free: *mut usize, total: *mut usize) => memory::alloc::get_info;
    cuMemAlloc_v2 "cuMemAlloc" 3020 (dptr: *mut CUdeviceptr, bytesize: usize) => memory::alloc::alloc;
    cuMemAllocPitch_v2 "cuMemAllocPitch" 3020 (dptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, element_size: c_uint) => memory::alloc::alloc_pitch;
    cuMemAllocManaged "cuMemAllocManaged" 6000 (dptr: *mut CUdeviceptr, bytesize: usize, flags: c_uint) => memory::alloc::alloc_managed;
    cuMemFree_v2 "cuMemFree" 3020 (dptr: CUdeviceptr) => memory::alloc::free;
    cuMemGetAddressRange_v2 "cuMemGetAddressRange" 3020 (base: *mut CUdeviceptr, size: *mut usize, dptr: CUdeviceptr) => memory::alloc::get_address_range;
    cuMemAllocHost_v2 "cuMemAllocHost" 3020 (pp: *mut *mut c_void, bytesize: usize) => memory::host::alloc_host;
    cuMemHostAlloc "cuMemHostAlloc" 2020 (pp: *mut *mut c_void, bytesize: usize, flags: c_uint) => memory::host::host_alloc;
    cuMemFreeHost "cuMemFreeHost" 2000 (p: *mut c_void) => memory::host::free_host;
    cuMemHostGetDevicePointer_v2 "cuMemHostGetDevicePointer" 3020 (pdptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) => memory::host::host_get_device_pointer;
    cuMemHostGetFlags "cuMemHostGetFlags" 2030 (flags: *mut c_uint, p: *mut c_void) => memory::host::host_get_flags;
    cuMemHostRegister_v2 "cuMemHostRegister" 6050 (p: *mut c_void, bytesize: usize, flags: c_uint) => memory::host::host_register;
    cuMemHostUnregister "cuMemHostUnregister" 4000 (p: *mut c_void) => memory::host::host_unregister;
    cuMemcpy "cuMemcpy" 4000 (dst: CUdeviceptr, src: CUdeviceptr, n: usize) => memory::copy::copy;
    cuMemcpy_ptds "cuMemcpy" 7000 abi(cuMemcpy) (dst: CUdeviceptr, src: CUdeviceptr, n: usize) => memory::copy::copy;
    cuMemcpyAsync "cuMemcpyAsync" 4000 (dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: CUstream) => memory::copy::copy_async;
    cuMemcpyAsync_ptsz "cuMemcpyAsync" 7000 abi(cuMemcpyAsync) (dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: CUstream) => memory::copy::copy_async;
    cuMemcpyHtoD_v2 "cuMemcpyHtoD" 3020 (dst: CUdeviceptr, src: *const c_void, n: usize) => memory::copy::copy_htod;
    cuMemcpyHtoD_v2_ptds "cuMemcpyHtoD" 7000 abi(cuMemcpyHtoD_v2) (dst: CUdeviceptr, src: *const c_void, n: usize) => memory::copy::copy_htod;
    cuMemcpyDtoH_v2 "cuMemcpyDtoH" 3020 (dst: *mut c_void, src: CUdeviceptr, n: usize) => memory::copy::copy_dtoh;
    cuMemcpyDtoH_v2_ptds "cuMemcpyDtoH" 7000 abi(cuMemcpyDtoH_v2) (dst: *mut c_void, src: CUdeviceptr, n: usize) => memory::copy::copy_dtoh;
    cuMemcpyDtoD_v2 "cuMemcpyDtoD" 3020 (dst: CUdeviceptr, src: CUdeviceptr, n: usize) => memory::copy::copy_dtod;
    cuMemcpyDtoD_v2_ptds "cuMemcpyDtoD" 7000 abi(cuMemcpyDtoD_v2) (dst: CUdeviceptr, src: CUdeviceptr, n: usize) => memory::copy::copy_dtod;
    cuMemcpyHtoDAsync_v2 "cuMemcpyHtoDAsync" 3020 (dst: CUdeviceptr, src: *const c_void, n: usize, stream: CUstream) => memory::copy::copy_htod_async;
    cuMemcpyHtoDAsync_v2_ptsz "cuMemcpyHtoDAsync" 7000 abi(cuMemcpyHtoDAsync_v2) (dst: CUdeviceptr, src: *const c_void, n: usize, stream: CUstream) => memory::copy::copy_htod_async;
    cuMemcpyDtoHAsync_v2 "cuMemcpyDtoHAsync" 3020 (dst: *mut c_void, src: CUdeviceptr, n: usize, stream: CUstream) => memory::copy::copy_dtoh_async;
    cuMemcpyDtoHAsync_v2_ptsz "cuMemcpyDtoHAsync" 7000 abi(cuMemcpyDtoHAsync_v2) (dst: *mut c_void, src: CUdeviceptr, n: usize, stream: CUstream) => memory::copy::copy_dtoh_async;
    cuMemcpyDtoDAsync_v2 "cuMemcpyDtoDAsync" 3020 (dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: CUstream) => memory::copy::copy_dtod_async;
    cuMemcpyDtoDAsync_v2_ptsz "cuMemcpyDtoDAsync" 7000 abi(cuMemcpyDtoDAsync_v2) (dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: CUstream) => memory::copy::copy_dtod_async;
    cuMemsetD8_v2 "cuMemsetD8" 3020 (dst: CUdeviceptr, value: c_uchar, n: usize) => memory::copy::set_d8;
    cuMemsetD8_v2_ptds "cuMemsetD8" 7000 abi(cuMemsetD8_v2) (dst: CUdeviceptr, value: c_uchar, n: usize) => memory::copy::set_d8;
    cuMemsetD16_v2 "cuMemsetD16" 3020 (dst: CUdeviceptr, value: c_ushort, n: usize) => memory::copy::set_d16;
    cuMemsetD16_v2_ptds "cuMemsetD16" 7000 abi(cuMemsetD16_v2) (dst: CUdeviceptr, value: c_ushort, n: usize) => memory::copy::set_d16;
    cuMemsetD32_v2 "cuMemsetD32" 3020 (dst: CUdeviceptr, value: c_uint, n: usize) => memory::copy::set_d32;
    cuMemsetD32_v2_ptds "cuMemsetD32" 7000 abi(cuMemsetD32_v2) (dst: CUdeviceptr, value: c_uint, n: usize) => memory::copy::set_d32;
    cuMemsetD8Async "cuMemsetD8Async" 3020 (dst: CUdeviceptr, value: c_uchar, n: usize, stream: CUstream) => memory::copy::set_d8_async;
    cuMemsetD8Async_ptsz "cuMemsetD8Async" 7000 abi(cuMemsetD8Async) (dst: CUdeviceptr, value: c_uchar, n: usize, stream: CUstream) => memory::copy::set_d8_async;
    cuMemsetD16Async "cuMemsetD16Async" 3020 (dst: CUdeviceptr, value: c_ushort, n: usize, stream: CUstream) => memory::copy::set_d16_async;
    cuMemsetD16Async_ptsz "cuMemsetD16Async" 7000 abi(cuMemsetD16Async) (dst: CUdeviceptr, value: c_ushort, n: usize, stream: CUstream) => memory::copy::set_d16_async;
    cuMemsetD32Async "cuMemsetD32Async" 3020 (dst: CUdeviceptr, value: c_uint, n: usize, stream: CUstream) => memory::copy::set_d32_async;
    cuMemsetD32Async_ptsz "cuMemsetD32Async" 7000 abi(cuMemsetD32Async) (dst: CUdeviceptr, value: c_uint, n: usize, stream: CUstream) => memory::copy::set_d32_async;
    cuMemcpyPeer "cuMemcpyPeer" 4000 (dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, n: usize) => memory::copy::copy_peer;
    cuMemcpyPeer_ptds "cuMemcpyPeer" 7000 abi(cuMemcpyPeer) (dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, n: usize) => memory::copy::copy_peer;
    cuMemcpyPeerAsync "cuMemcpyPeerAsync" 4000 (dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, n: usize, stream: CUstream) => memory::copy::copy_peer_async;
    cuMemcpyPeerAsync_ptsz "cuMemcpyPeerAsync" 7000 abi(cuMemcpyPeerAsync) (dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, n: usize, stream: CUstream) => memory::copy::copy_peer_async;
    cuMemcpy2D_v2 "cuMemcpy2D" 3020 (copy: *const CUDA_MEMCPY2D) => memory::copy::copy_2d;
    cuMemcpy2D_v2_ptds "cuMemcpy2D" 7000 abi(cuMemcpy2D_v2) (copy: *const CUDA_MEMCPY2D) => memory::copy::copy_2d;
    cuMemcpy2DUnaligned_v2 "cuMemcpy2DUnaligned" 3020 (copy: *const CUDA_MEMCPY2D) => memory::copy::copy_2d;
    cuMemcpy2DUnaligned_v2_ptds "cuMemcpy2DUnaligned" 7000 abi(cuMemcpy2DUnaligned_v2) (copy: *const CUDA_MEMCPY2D) => memory::copy::copy_2d;
    cuMemcpy2DAsync_v2 "cuMemcpy2DAsync" 3020 (copy: *const CUDA_MEMCPY2D, stream: CUstream) => memory::copy::copy_2d_async;
    cuMemcpy2DAsync_v2_ptsz "cuMemcpy2DAsync" 7000 abi(cuMemcpy2DAsync_v2) (copy: *const CUDA_MEMCPY2D, stream: CUstream) => memory::copy::copy_2d_async;
    cuMemcpy3D_v2 "cuMemcpy3D" 3020 (copy: *const CUDA_MEMCPY3D) => memory::copy::copy_3d;
    cuMemcpy3D_v2_ptds "cuMemcpy3D" 7000 abi(cuMemcpy3D_v2) (copy: *const CUDA_MEMCPY3D) => memory::copy::copy_3d;
    cuMemcpy3DAsync_v2 "cuMemcpy3DAsync" 3020 (copy: *const CUDA_MEMCPY3D, stream: CUstream) => memory::copy::copy_3d_async;
    cuMemcpy3DAsync_v2_ptsz "cuMemcpy3DAsync" 7000 abi(cuMemcpy3DAsync_v2) (copy: *const CUDA_MEMCPY3D, stream: CUstream) => memory::copy::copy_3d_async;
    cuMemcpy3DPeer "cuMemcpy3DPeer" 4000 (copy: *const CUDA_MEMCPY3D_PEER) => memory::copy::copy_3d_peer;
    cuMemcpy3DPeer_ptds "cuMemcpy3DPeer" 7000 abi(cuMemcpy3DPeer) (copy: *const CUDA_MEMCPY3D_PEER) => memory::copy::copy_3d_peer;
    cuMemcpy3DPeerAsync "cuMemcpy3DPeerAsync" 4000 (copy: *const CUDA_MEMCPY3D_PEER, stream: CUstream) => memory::copy::copy_3d_peer_async;
    cuMemcpy3DPeerAsync_ptsz "cuMemcpy3DPeerAsync" 7000 abi(cuMemcpy3DPeerAsync) (copy: *const CUDA_MEMCPY3D_PEER, stream: CUstream) => memory::copy::copy_3d_peer_async;
    // Texture objects (memory/texture.rs; sampled by engine::tex).
    cuTexObjectCreate "cuTexObjectCreate" 5000 (handle: *mut CUtexObject, res: *const CUDA_RESOURCE_DESC, tex: *const CUDA_TEXTURE_DESC, view: *const CUDA_RESOURCE_VIEW_DESC) => memory::texture::create;
    cuTexObjectDestroy "cuTexObjectDestroy" 5000 (tex: CUtexObject) => memory::texture::destroy;
    cuTensorMapEncodeTiled "cuTensorMapEncodeTiled" 12000 (map: *mut CUtensorMap, data_type: CUtensorMapDataType, rank: cuuint32_t, address: *mut c_void, dims: *const cuuint64_t, strides: *const cuuint64_t, box_dim: *const cuuint32_t, elem_strides: *const cuuint32_t, interleave: CUtensorMapInterleave, swizzle: CUtensorMapSwizzle, l2: CUtensorMapL2promotion, fill: CUtensorMapFloatOOBfill) => memory::tensor_map::encode_tiled;
    cuTensorMapEncodeIm2col "cuTensorMapEncodeIm2col" 12000 (map: *mut CUtensorMap, data_type: CUtensorMapDataType, rank: cuuint32_t, address: *mut c_void, dims: *const cuuint64_t, strides: *const cuuint64_t, lower: *const c_int, upper: *const c_int, channels_per_pixel: cuuint32_t, pixels_per_column: cuuint32_t, elem_strides: *const cuuint32_t, interleave: CUtensorMapInterleave, swizzle: CUtensorMapSwizzle, l2: CUtensorMapL2promotion, fill: CUtensorMapFloatOOBfill) => memory::tensor_map::encode_im2col;
    cuTensorMapEncodeIm2colWide "cuTensorMapEncodeIm2colWide" 12080 (map: *mut CUtensorMap, data_type: CUtensorMapDataType, rank: cuuint32_t, address: *mut c_void, dims: *const cuuint64_t, strides: *const cuuint64_t, lower_w: c_int, upper_w: c_int, channels_per_pixel: cuuint32_t, pixels_per_column: cuuint32_t, elem_strides: *const cuuint32_t, interleave: CUtensorMapInterleave, mode: CUtensorMapIm2ColWideMode, swizzle: CUtensorMapSwizzle, l2: CUtensorMapL2promotion, fill: CUtensorMapFloatOOBfill) => memory::tensor_map::encode_im2col_wide;
    cuTensorMapReplaceAddress "cuTensorMapReplaceAddress" 12000 (map: *mut CUtensorMap, address: *mut c_void) => memory::tensor_map::replace_address;
    cuTexObjectGetResourceDesc "cuTexObjectGetResourceDesc" 5000 (desc: *mut CUDA_RESOURCE_DESC, tex: CUtexObject) => memory::texture::get_resource_desc;
    cuTexObjectGetTextureDesc "cuTexObjectGetTextureDesc" 5000 (desc: *mut CUDA_TEXTURE_DESC, tex: CUtexObject) => memory::texture::get_texture_desc;
    cuTexObjectGetResourceViewDesc "cuTexObjectGetResourceViewDesc" 5000 (desc: *mut CUDA_RESOURCE_VIEW_DESC, tex: CUtexObject) => memory::texture::get_resource_view_desc;
    // Texture references (the legacy texture API).
    cuModuleGetTexRef "cuModuleGetTexRef" 2000 (texref: *mut CUtexref, module: CUmodule, name: *const c_char) => module::get_tex_ref;
    cuParamSetTexRef "cuParamSetTexRef" 2000 (func: CUfunction, texunit: c_int, texref: CUtexref) => launch::legacy::param_set_tex_ref;
    cuTexRefCreate "cuTexRefCreate" 2000 (texref: *mut CUtexref) => memory::texref::create;
    cuTexRefDestroy "cuTexRefDestroy" 2000 (texref: CUtexref) => memory::texref::destroy;
    cuTexRefGetAddress_v2 "cuTexRefGetAddress" 3020 (dptr: *mut CUdeviceptr, texref: CUtexref) => memory::texref::get_address;
    cuTexRefGetAddressMode "cuTexRefGetAddressMode" 2000 (mode: *mut CUaddress_mode, texref: CUtexref, dim: c_int) => memory::texref::get_address_mode;
    cuTexRefGetArray "cuTexRefGetArray" 2000 (array: *mut CUarray, texref: CUtexref) => memory::texref::get_array;
    cuTexRefGetBorderColor "cuTexRefGetBorderColor" 8000 (color: *mut f32, texref: CUtexref) => memory::texref::get_border_color;
    cuTexRefGetFilterMode "cuTexRefGetFilterMode" 2000 (mode: *mut CUfilter_mode, texref: CUtexref) => memory::texref::get_filter_mode;
    cuTexRefGetFlags "cuTexRefGetFlags" 2000 (flags: *mut c_uint, texref: CUtexref) => memory::texref::get_flags;
    cuTexRefGetFormat "cuTexRefGetFormat" 2000 (format: *mut CUarray_format, channels: *mut c_int, texref: CUtexref) => memory::texref::get_format;
    cuTexRefGetMaxAnisotropy "cuTexRefGetMaxAnisotropy" 5000 (max: *mut c_int, texref: CUtexref) => memory::texref::get_max_anisotropy;
    cuTexRefGetMipmapFilterMode "cuTexRefGetMipmapFilterMode" 5000 (mode: *mut CUfilter_mode, texref: CUtexref) => memory::texref::get_mipmap_filter_mode;
    cuTexRefGetMipmapLevelBias "cuTexRefGetMipmapLevelBias" 5000 (bias: *mut f32, texref: CUtexref) => memory::texref::get_mipmap_level_bias;
    cuTexRefGetMipmapLevelClamp "cuTexRefGetMipmapLevelClamp" 5000 (min: *mut f32, max: *mut f32, texref: CUtexref) => memory::texref::get_mipmap_level_clamp;
    cuTexRefGetMipmappedArray "cuTexRefGetMipmappedArray" 5000 (mipmap: *mut CUmipmappedArray, texref: CUtexref) => memory::texref::get_mipmapped_array;
    cuTexRefSetAddress2D_v3 "cuTexRefSetAddress2D" 4010 (texref: CUtexref, desc: *const CUDA_ARRAY_DESCRIPTOR, dptr: CUdeviceptr, pitch: usize) => memory::texref::set_address_2d;
    cuTexRefSetAddress_v2 "cuTexRefSetAddress" 3020 (offset: *mut usize, texref: CUtexref, dptr: CUdeviceptr, bytes: usize) => memory::texref::set_address;
    cuTexRefSetAddressMode "cuTexRefSetAddressMode" 2000 (texref: CUtexref, dim: c_int, mode: CUaddress_mode) => memory::texref::set_address_mode;
    cuTexRefSetArray "cuTexRefSetArray" 2000 (texref: CUtexref, array: CUarray, flags: c_uint) => memory::texref::set_array;
    cuTexRefSetBorderColor "cuTexRefSetBorderColor" 8000 (texref: CUtexref, color: *mut f32) => memory::texref::set_border_color;
    cuTexRefSetFilterMode "cuTexRefSetFilterMode" 2000 (texref: CUtexref, mode: CUfilter_mode) => memory::texref::set_filter_mode;
    cuTexRefSetFlags "cuTexRefSetFlags" 2000 (texref: CUtexref, flags: c_uint) => memory::texref::set_flags;
    cuTexRefSetFormat "cuTexRefSetFormat" 2000 (texref: CUtexref, format: CUarray_format, channels: c_int) => memory::texref::set_format;
    cuTexRefSetMaxAnisotropy "cuTexRefSetMaxAnisotropy" 5000 (texref: CUtexref, max: c_uint) => memory::texref::set_max_anisotropy;
    cuTexRefSetMipmapFilterMode "cuTexRefSetMipmapFilterMode" 5000 (texref: CUtexref, mode: CUfilter_mode) => memory::texref::set_mipmap_filter_mode;
    cuTexRefSetMipmapLevelBias "cuTexRefSetMipmapLevelBias" 5000 (texref: CUtexref, bias: f32) => memory::texref::set_mipmap_level_bias;
    cuTexRefSetMipmapLevelClamp "cuTexRefSetMipmapLevelClamp" 5000 (texref: CUtexref, min: f32, max: f32) => memory::texref::set_mipmap_level_clamp;
    cuTexRefSetMipmappedArray "cuTexRefSetMipmappedArray" 5000 (texref: CUtexref, mipmap: CUmipmappedArray, flags: c_uint) => memory::texref::set_mipmapped_array;
    // Surface objects (memory/surface.rs; accessed by engine::surf).
    cuSurfObjectCreate "cuSurfObjectCreate" 5000 (handle: *mut CUsurfObject, res: *const CUDA_RESOURCE_DESC) => memory::surface::create;
    cuSurfObjectDestroy "cuSurfObjectDestroy" 5000 (surf: CUsurfObject) => memory::surface::destroy;
    cuSurfObjectGetResourceDesc "cuSurfObjectGetResourceDesc" 5000 (desc: *mut CUDA_RESOURCE_DESC, surf: CUsurfObject) => memory::surface::get_resource_desc;
    // Surface references, the independent mode (memory/surface_ref.rs).
    cuModuleGetSurfRef "cuModuleGetSurfRef" 3000 (surf_ref: *mut CUsurfref, module: CUmodule, name: *const c_char) => module::get_surf_ref;
    cuSurfRefSetArray "cuSurfRefSetArray" 3000 (surf_ref: CUsurfref, array: CUarray, flags: c_uint) => memory::surface_ref::set_array;
    cuSurfRefGetArray "cuSurfRefGetArray" 3000 (array: *mut CUarray, surf_ref: CUsurfref) => memory::surface_ref::get_array;
    // CUDA arrays (layout in memory/array.rs) and their copies.
    cuArrayCreate_v2 "cuArrayCreate" 3020 (handle: *mut CUarray, desc: *const CUDA_ARRAY_DESCRIPTOR) => memory::array::create_2d;
    cuArray3DCreate_v2 "cuArray3DCreate" 3020 (handle: *mut CUarray, desc: *const CUDA_ARRAY3D_DESCRIPTOR) => memory::array::create_3d;
    cuArrayGetDescriptor_v2 "cuArrayGetDescriptor" 3020 (desc: *mut CUDA_ARRAY_DESCRIPTOR, array: CUarray) => memory::array::get_descriptor;
    cuArray3DGetDescriptor_v2 "cuArray3DGetDescriptor" 3020 (desc: *mut CUDA_ARRAY3D_DESCRIPTOR, array: CUarray) => memory::array::get_descriptor_3d;
    cuArrayDestroy "cuArrayDestroy" 2000 (array: CUarray) => memory::array::destroy;
    cuArrayGetMemoryRequirements "cuArrayGetMemoryRequirements" 11060 (reqs: *mut CUDA_ARRAY_MEMORY_REQUIREMENTS, array: CUarray, dev: CUdevice) => memory::array::get_memory_requirements;
    cuArrayGetPlane "cuArrayGetPlane" 11020 (plane_array: *mut CUarray, array: CUarray, plane: c_uint) => memory::array::get_plane;
    cuArrayGetSparseProperties "cuArrayGetSparseProperties" 11010 (props: *mut CUDA_ARRAY_SPARSE_PROPERTIES, array: CUarray) => memory::array::get_sparse_properties;
    cuMipmappedArrayCreate "cuMipmappedArrayCreate" 5000 (handle: *mut CUmipmappedArray, desc: *const CUDA_ARRAY3D_DESCRIPTOR, levels: c_uint) => memory::array::mipmap_create;
    cuMipmappedArrayGetLevel "cuMipmappedArrayGetLevel" 5000 (level_array: *mut CUarray, mipmap: CUmipmappedArray, level: c_uint) => memory::array::mipmap_get_level;
    cuMipmappedArrayDestroy "cuMipmappedArrayDestroy" 5000 (mipmap: CUmipmappedArray) => memory::array::mipmap_destroy;
    cuMipmappedArrayGetMemoryRequirements "cuMipmappedArrayGetMemoryRequirements" 11060 (reqs: *mut CUDA_ARRAY_MEMORY_REQUIREMENTS, mipmap: CUmipmappedArray, dev: CUdevice) => memory::array::mipmap_get_memory_requirements;
    cuMipmappedArrayGetSparseProperties "cuMipmappedArrayGetSparseProperties" 11010 (props: *mut CUDA_ARRAY_SPARSE_PROPERTIES, mipmap: CUmipmappedArray) => memory::array::mipmap_get_sparse_properties;
    cuMemcpyHtoA_v2 "cuMemcpyHtoA" 3020 (dst: CUarray, offset: usize, src: *const c_void, n: usize) => memory::copy::copy_htoa;
    cuMemcpyHtoA_v2_ptds "cuMemcpyHtoA" 7000 abi(cuMemcpyHtoA_v2) (dst: CUarray, offset: usize, src: *const c_void, n: usize) => memory::copy::copy_htoa;
    cuMemcpyAtoH_v2 "cuMemcpyAtoH" 3020 (dst: *mut c_void, src: CUarray, offset: usize, n: usize) => memory::copy::copy_atoh;
    cuMemcpyAtoH_v2_ptds "cuMemcpyAtoH" 7000 abi(cuMemcpyAtoH_v2) (dst: *mut c_void, src: CUarray, offset: usize, n: usize) => memory::copy::copy_atoh;
    cuMemcpyDtoA_v2 "cuMemcpyDtoA" 3020 (dst: CUarray, offset: usize, src: CUdeviceptr, n: usize) => memory::copy::copy_dtoa;
    cuMemcpyDtoA_v2_ptds "cuMemcpyDtoA" 7000 abi(cuMemcpyDtoA_v2) (dst: CUarray, offset: usize, src: CUdeviceptr, n: usize) => memory::copy::copy_dtoa;
    cuMemcpyAtoD_v2 "cuMemcpyAtoD" 3020 (dst: CUdeviceptr, src: CUarray, offset: usize, n: usize) => memory::copy::copy_atod;
    cuMemcpyAtoD_v2_ptds "cuMemcpyAtoD" 7000 abi(cuMemcpyAtoD_v2) (dst: CUdeviceptr, src: CUarray, offset: usize, n: usize) => memory::copy::copy_atod;
    cuMemcpyAtoA_v2 "cuMemcpyAtoA" 3020 (dst: CUarray, dst_offset: usize, src: CUarray, src_offset: usize, n: usize) => memory::copy::copy_atoa;
    cuMemcpyAtoA_v2_ptds "cuMemcpyAtoA" 7000 abi(cuMemcpyAtoA_v2) (dst: CUarray, dst_offset: usize, src: CUarray, src_offset: usize, n: usize) => memory::copy::copy_atoa;
    cuMemcpyHtoAAsync_v2 "cuMemcpyHtoAAsync" 3020 (dst: CUarray, offset: usize, src: *const c_void, n: usize, stream: CUstream) => memory::copy::copy_htoa_async;
    cuMemcpyHtoAAsync_v2_ptsz "cuMemcpyHtoAAsync" 7000 abi(cuMemcpyHtoAAsync_v2) (dst: CUarray, offset: usize, src: *const c_void, n: usize, stream: CUstream) => memory::copy::copy_htoa_async;
    cuMemcpyAtoHAsync_v2 "cuMemcpyAtoHAsync" 3020 (dst: *mut c_void, src: CUarray, offset: usize, n: usize, stream: CUstream) => memory::copy::copy_atoh_async;
    cuMemcpyAtoHAsync_v2_ptsz "cuMemcpyAtoHAsync" 7000 abi(cuMemcpyAtoHAsync_v2) (dst: *mut c_void, src: CUarray, offset: usize, n: usize, stream: CUstream) => memory::copy::copy_atoh_async;
    // Remaining queries.
    cuCtxGetExecAffinity "cuCtxGetExecAffinity" 11040 (affinity: *mut CUexecAffinityParam, kind: CUexecAffinityType) => context::calls::get_exec_affinity;
    cuFlushGPUDirectRDMAWrites "cuFlushGPUDirectRDMAWrites" 11030 (target: CUflushGPUDirectRDMAWritesTarget, scope: CUflushGPUDirectRDMAWritesScope) => context::calls::flush_gpu_direct_rdma_writes;
    cuDeviceGetP2PAttribute "cuDeviceGetP2PAttribute" 8000 (value: *mut c_int, attrib: CUdevice_P2PAttribute, src: CUdevice, dst: CUdevice) => device::get_p2p_attribute;
    cuDeviceCanAccessPeer "cuDeviceCanAccessPeer" 4000 (can_access: *mut c_int, dev: CUdevice, peer_dev: CUdevice) => device::can_access_peer;
    cuCtxEnablePeerAccess "cuCtxEnablePeerAccess" 4000 (peer: CUcontext, flags: c_uint) => context::peer::enable;
    cuCtxDisablePeerAccess "cuCtxDisablePeerAccess" 4000 (peer: CUcontext) => context::peer::disable;
    cuDeviceGetTexture1DLinearMaxWidth "cuDeviceGetTexture1DLinearMaxWidth" 11010 (max_width: *mut usize, format: CUarray_format, channels: c_uint, dev: CUdevice) => memory::array::get_texture_1d_linear_max_width;
    cuStreamGetCtx_v2 "cuStreamGetCtx" 12050 (stream: CUstream, pctx: *mut CUcontext, green: *mut CUgreenCtx) => stream::calls::get_ctx_v2;
    cuStreamGetCtx_v2_ptsz "cuStreamGetCtx" 12050 abi(cuStreamGetCtx_v2) (stream: CUstream, pctx: *mut CUcontext, green: *mut CUgreenCtx) => stream::calls::get_ctx_v2;
    cuMemGetDefaultMemPool "cuMemGetDefaultMemPool" 13000 (pool: *mut CUmemoryPool, location: *mut CUmemLocation, kind: CUmemAllocationType) => memory::pool::mem_get_default_mem_pool;
    cuMemGetMemPool "cuMemGetMemPool" 13000 (pool: *mut CUmemoryPool, location: *mut CUmemLocation, kind: CUmemAllocationType) => memory::pool::mem_get_mem_pool;
    cuMemSetMemPool "cuMemSetMemPool" 13000 (location: *mut CUmemLocation, kind: CUmemAllocationType, pool: CUmemoryPool) => memory::pool::mem_set_mem_pool;
    cuMemsetD2D8_v2 "cuMemsetD2D8" 3020 (dst: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize) => memory::copy::set_d2d8;
    cuMemsetD2D8_v2_ptds "cuMemsetD2D8" 7000 abi(cuMemsetD2D8_v2) (dst: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize) => memory::copy::set_d2d8;
    cuMemsetD2D16_v2 "cuMemsetD2D16" 3020 (dst: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize) => memory::copy::set_d2d16;
    cuMemsetD2D16_v2_ptds "cuMemsetD2D16" 7000 abi(cuMemsetD2D16_v2) (dst: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize) => memory::copy::set_d2d16;
    cuMemsetD2D32_v2 "cuMemsetD2D32" 3020 (dst: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize) => memory::copy::set_d2d32;
    cuMemsetD2D32_v2_ptds "cuMemsetD2D32" 7000 abi(cuMemsetD2D32_v2) (dst: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize) => memory::copy::set_d2d32;
    cuMemsetD2D8Async "cuMemsetD2D8Async" 3020 (dst: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize, stream: CUstream) => memory::copy::set_d2d8_async;
    cuMemsetD2D8Async_ptsz "cuMemsetD2D8Async" 7000 abi(cuMemsetD2D8Async) (dst: CUdeviceptr, pitch: usize, value: c_uchar, width: usize, height: usize, stream: CUstream) => memory::copy::set_d2d8_async;
    cuMemsetD2D16Async "cuMemsetD2D16Async" 3020 (dst: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize, stream: CUstream) => memory::copy::set_d2d16_async;
    cuMemsetD2D16Async_ptsz "cuMemsetD2D16Async" 7000 abi(cuMemsetD2D16Async) (dst: CUdeviceptr, pitch: usize, value: c_ushort, width: usize, height: usize, stream: CUstream) => memory::copy::set_d2d16_async;
    cuMemsetD2D32Async "cuMemsetD2D32Async" 3020 (dst: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize, stream: CUstream) => memory::copy::set_d2d32_async;
    cuMemsetD2D32Async_ptsz "cuMemsetD2D32Async" 7000 abi(cuMemsetD2D32Async) (dst: CUdeviceptr, pitch: usize, value: c_uint, width: usize, height: usize, stream: CUstream) => memory::copy::set_d2d32_async;
    cuPointerGetAttribute "cuPointerGetAttribute" 4000 (data: *mut c_void, attribute: CUpointer_attribute, ptr: CUdeviceptr) => memory::pointer::pointer_get_attribute;
    cuPointerGetAttributes "cuPointerGetAttributes" 7000 (count: c_uint, attributes: *mut CUpointer_attribute, data: *mut *mut c_void, ptr: CUdeviceptr) => memory::pointer::pointer_get_attributes;
    // Stream-ordered allocation, memory pools, managed memory advice.
    cuMemAllocAsync "cuMemAllocAsync" 11020 (dptr: *mut CUdeviceptr, bytesize: usize, stream: CUstream) => memory::pool::alloc_async;
    cuMemAllocAsync_ptsz "cuMemAllocAsync" 11020 abi(cuMemAllocAsync) (dptr: *mut CUdeviceptr, bytesize: usize, stream: CUstream) => memory::pool::alloc_async;
    cuMemAllocFromPoolAsync "cuMemAllocFromPoolAsync" 11020 (dptr: *mut CUdeviceptr, bytesize: usize, pool: CUmemoryPool, stream: CUstream) => memory::pool::alloc_from_pool_async;
    cuMemAllocFromPoolAsync_ptsz "cuMemAllocFromPoolAsync" 11020 abi(cuMemAllocFromPoolAsync) (dptr: *mut CUdeviceptr, bytesize: usize, pool: CUmemoryPool, stream: CUstream) => memory::pool::alloc_from_pool_async;
    cuMemFreeAsync "cuMemFreeAsync" 11020 (dptr: CUdeviceptr, stream: CUstream) => memory::pool::free_async;
    cuMemFreeAsync_ptsz "cuMemFreeAsync" 11020 abi(cuMemFreeAsync) (dptr: CUdeviceptr, stream: CUstream) => memory::pool::free_async;
    cuDeviceGetDefaultMemPool "cuDeviceGetDefaultMemPool" 11020 (pool: *mut CUmemoryPool, dev: CUdevice) => memory::pool::device_get_default_mem_pool;
    cuDeviceGetMemPool "cuDeviceGetMemPool" 11020 (pool: *mut CUmemoryPool, dev: CUdevice) => memory::pool::device_get_mem_pool;
    cuDeviceSetMemPool "cuDeviceSetMemPool" 11020 (dev: CUdevice, pool: CUmemoryPool) => memory::pool::device_set_mem_pool;
    cuMemPoolCreate "cuMemPoolCreate" 11020 (pool: *mut CUmemoryPool, props: *const CUmemPoolProps) => memory::pool::create;
    cuMemPoolDestroy "cuMemPoolDestroy" 11020 (pool: CUmemoryPool) => memory::pool::destroy;
    cuMemPoolTrimTo "cuMemPoolTrimTo" 11020 (pool: CUmemoryPool, keep: usize) => memory::pool::trim_to;
    cuMemPoolGetAttribute "cuMemPoolGetAttribute" 11020 (pool: CUmemoryPool, attr: CUmemPool_attribute, value: *mut c_void) => memory::pool::get_attribute;
    cuMemPoolSetAttribute "cuMemPoolSetAttribute" 11020 (pool: CUmemoryPool, attr: CUmemPool_attribute, value: *mut c_void) => memory::pool::set_attribute;
    cuMemPoolSetAccess "cuMemPoolSetAccess" 11020 (pool: CUmemoryPool, map: *const CUmemAccessDesc, count: usize) => memory::pool::set_access;
    cuMemPoolGetAccess "cuMemPoolGetAccess" 11020 (flags: *mut CUmemAccess_flags, pool: CUmemoryPool, location: *mut CUmemLocation) => memory::pool::get_access;
    cuMemPoolExportToShareableHandle "cuMemPoolExportToShareableHandle" 11020 (handle_out: *mut c_void, pool: CUmemoryPool, handle_type: CUmemAllocationHandleType, flags: c_ulonglong) => memory::pool_ipc::export_to_shareable_handle;
    cuMemPoolImportFromShareableHandle "cuMemPoolImportFromShareableHandle" 11020 (pool_out: *mut CUmemoryPool, handle: *mut c_void, handle_type: CUmemAllocationHandleType, flags: c_ulonglong) => memory::pool_ipc::import_from_shareable_handle;
    cuMemPoolExportPointer "cuMemPoolExportPointer" 11020 (share_data: *mut CUmemPoolPtrExportData, ptr: CUdeviceptr) => memory::pool_ipc::export_pointer;
    cuMemPoolImportPointer "cuMemPoolImportPointer" 11020 (ptr_out: *mut CUdeviceptr, pool: CUmemoryPool, share_data: *mut CUmemPoolPtrExportData) => memory::pool_ipc::import_pointer;
    cuMemAdvise "cuMemAdvise" 8000 abi(none) (ptr: CUdeviceptr, count: usize, advice: CUmem_advise, dev: CUdevice) => memory::pool::advise;
    cuMemAdvise_v2 "cuMemAdvise" 12020 (ptr: CUdeviceptr, count: usize, advice: CUmem_advise, location: CUmemLocation) => memory::pool::advise_v2;
    cuMemPrefetchAsync "cuMemPrefetchAsync" 8000 abi(none) (ptr: CUdeviceptr, count: usize, dev: CUdevice, stream: CUstream) => memory::pool::prefetch;
    cuMemPrefetchAsync_ptsz "cuMemPrefetchAsync" 8000 abi(none) (ptr: CUdeviceptr, count: usize, dev: CUdevice, stream: CUstream) => memory::pool::prefetch;
    cuMemPrefetchAsync_v2 "cuMemPrefetchAsync" 12020 (ptr: CUdeviceptr, count: usize, location: CUmemLocation, flags: c_uint, stream: CUstream) => memory::pool::prefetch_v2;
    cuMemPrefetchAsync_v2_ptsz "cuMemPrefetchAsync" 12020 abi(cuMemPrefetchAsync_v2) (ptr: CUdeviceptr, count: usize, location: CUmemLocation, flags: c_uint, stream: CUstream) => memory::pool::prefetch_v2;
    // Virtual memory management.
    cuMemGetAllocationGranularity "cuMemGetAllocationGranularity" 10020 (granularity: *mut usize, prop: *const CUmemAllocationProp, option: CUmemAllocationGranularity_flags) => memory::vmm::get_allocation_granularity;
    cuMemAddressReserve "cuMemAddressReserve" 10020 (ptr: *mut CUdeviceptr, size: usize, alignment: usize, addr: CUdeviceptr, flags: c_ulonglong) => memory::vmm::address_reserve;
    cuMemAddressFree "cuMemAddressFree" 10020 (ptr: CUdeviceptr, size: usize) => memory::vmm::address_free;
    cuMemCreate "cuMemCreate" 10020 (handle: *mut CUmemGenericAllocationHandle, size: usize, prop: *const CUmemAllocationProp, flags: c_ulonglong) => memory::vmm::create;
    cuMemRelease "cuMemRelease" 10020 (handle: CUmemGenericAllocationHandle) => memory::vmm::release;
    cuMemMap "cuMemMap" 10020 (ptr: CUdeviceptr, size: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: c_ulonglong) => memory::vmm::map;
    cuMemUnmap "cuMemUnmap" 10020 (ptr: CUdeviceptr, size: usize) => memory::vmm::unmap;
    cuMemSetAccess "cuMemSetAccess" 10020 (ptr: CUdeviceptr, size: usize, desc: *const CUmemAccessDesc, count: usize) => memory::vmm::set_access;
    cuMemGetAccess "cuMemGetAccess" 10020 (flags: *mut c_ulonglong, location: *const CUmemLocation, ptr: CUdeviceptr) => memory::vmm::get_access;
    cuMemRetainAllocationHandle "cuMemRetainAllocationHandle" 11000 (handle: *mut CUmemGenericAllocationHandle, addr: *mut c_void) => memory::vmm::retain_allocation_handle;
    cuMemGetAllocationPropertiesFromHandle "cuMemGetAllocationPropertiesFromHandle" 10020 (prop: *mut CUmemAllocationProp, handle: CUmemGenericAllocationHandle) => memory::vmm::get_allocation_properties_from_handle;
    cuMemExportToShareableHandle "cuMemExportToShareableHandle" 10020 (shareable: *mut c_void, handle: CUmemGenericAllocationHandle, handle_type: CUmemAllocationHandleType, flags: c_ulonglong) => memory::vmm::export_to_shareable_handle;
    cuMemImportFromShareableHandle "cuMemImportFromShareableHandle" 10020 (handle: *mut CUmemGenericAllocationHandle, os_handle: *mut c_void, handle_type: CUmemAllocationHandleType) => memory::vmm::import_from_shareable_handle;
    // Interprocess memory and events.
    cuIpcGetMemHandle "cuIpcGetMemHandle" 4010 (handle: *mut CUipcMemHandle, dptr: CUdeviceptr) => memory::ipc::get_mem_handle;
    cuIpcOpenMemHandle_v2 "cuIpcOpenMemHandle" 11000 (pdptr: *mut CUdeviceptr, handle: CUipcMemHandle, flags: c_uint) => memory::ipc::open_mem_handle;
    cuIpcOpenMemHandle "cuIpcOpenMemHandle" 4010 abi(none) (pdptr: *mut CUdeviceptr, handle: CUipcMemHandle, flags: c_uint) => memory::ipc::open_mem_handle;
    cuIpcCloseMemHandle "cuIpcCloseMemHandle" 4010 (dptr: CUdeviceptr) => memory::ipc::close_mem_handle;
    cuIpcGetEventHandle "cuIpcGetEventHandle" 4010 (handle: *mut CUipcEventHandle, event: CUevent) => memory::ipc::get_event_handle;
    cuIpcOpenEventHandle "cuIpcOpenEventHandle" 4010 (event: *mut CUevent, handle: CUipcEventHandle) => memory::ipc::open_event_handle;
    // Modules, libraries, functions, kernels.
    cuModuleLoad "cuModuleLoad" 2000 (module: *mut CUmodule, fname: *const c_char) => module::load_file;
    cuModuleLoadData "cuModuleLoadData" 2000 (module: *mut CUmodule, image: *const c_void) => module::load_data;
    cuModuleLoadDataEx "cuModuleLoadDataEx" 2010 (module: *mut CUmodule, image: *const c_void, num_options: c_uint, options: *mut CUjit_option, values: *mut *mut c_void) => module::load_data_ex;
    // The JIT linker (PTX inputs linked by the engine; see module/link.rs).
    cuLinkCreate "cuLinkCreate" 5050 abi(none) (num_options: c_uint, options: *mut CUjit_option, option_values: *mut *mut c_void, state_out: *mut CUlinkState) => module::link::create;
    cuLinkCreate_v2 "cuLinkCreate" 6050 (num_options: c_uint, options: *mut CUjit_option, option_values: *mut *mut c_void, state_out: *mut CUlinkState) => module::link::create;
    cuLinkAddData "cuLinkAddData" 5050 abi(none) (state: CUlinkState, type_: CUjitInputType, data: *mut c_void, size: usize, name: *const c_char, num_options: c_uint, options: *mut CUjit_option, option_values: *mut *mut c_void) => module::link::add_data;
    cuLinkAddData_v2 "cuLinkAddData" 6050 (state: CUlinkState, type_: CUjitInputType, data: *mut c_void, size: usize, name: *const c_char, num_options: c_uint, options: *mut CUjit_option, option_values: *mut *mut c_void) => module::link::add_data;
    cuLinkAddFile "cuLinkAddFile" 5050 abi(none) (state: CUlinkState, type_: CUjitInputType, path: *const c_char, num_options: c_uint, options: *mut CUjit_option, option_values: *mut *mut c_void) => module::link::add_file;
    cuLinkAddFile_v2 "cuLinkAddFile" 6050 (state: CUlinkState, type_: CUjitInputType, path: *const c_char, num_options: c_uint, options: *mut CUjit_option, option_values: *mut *mut c_void) => module::link::add_file;
    cuLinkComplete "cuLinkComplete" 5050 (state: CUlinkState, cubin_out: *mut *mut c_void, size_out: *mut usize) => module::link::complete;
    cuLinkDestroy "cuLinkDestroy" 5050 (state: CUlinkState) => module::link::destroy;
    cuModuleLoadFatBinary "cuModuleLoadFatBinary" 2000 (module: *mut CUmodule, image: *const c_void) => module::load_data;
    cuModuleUnload "cuModuleUnload" 2000 (module: CUmodule) => module::unload;
    cuModuleGetFunction "cuModuleGetFunction" 2000 (func: *mut CUfunction, module: CUmodule, name: *const c_char) => module::get_function;
    cuModuleGetGlobal_v2 "cuModuleGetGlobal" 3020 (dptr: *mut CUdeviceptr, bytes: *mut usize, module: CUmodule, name: *const c_char) => module::get_global;
    cuModuleGetFunctionCount "cuModuleGetFunctionCount" 12040 (count: *mut c_uint, module: CUmodule) => module::get_function_count;
    cuModuleEnumerateFunctions "cuModuleEnumerateFunctions" 12040 (functions: *mut CUfunction, n: c_uint, module: CUmodule) => module::enumerate_functions;
    cuLibraryLoadData "cuLibraryLoadData" 12000 (library: *mut CUlibrary, code: *const c_void, jit_options: *mut CUjit_option, jit_values: *mut *mut c_void, num_jit_options: c_uint, lib_options: *mut CUlibraryOption, lib_values: *mut *mut c_void, num_lib_options: c_uint) => module::library_load_data;
    cuLibraryUnload "cuLibraryUnload" 12000 (library: CUlibrary) => module::library_unload;
    cuLibraryGetKernel "cuLibraryGetKernel" 12000 (kernel: *mut CUkernel, library: CUlibrary, name: *const c_char) => module::library_get_kernel;
    cuLibraryGetModule "cuLibraryGetModule" 12000 (module: *mut CUmodule, library: CUlibrary) => module::library_get_module;
    cuLibraryGetGlobal "cuLibraryGetGlobal" 12000 (dptr: *mut CUdeviceptr, bytes: *mut usize, library: CUlibrary, name: *const c_char) => module::library_get_global;
    cuLibraryGetKernelCount "cuLibraryGetKernelCount" 12040 (count: *mut c_uint, library: CUlibrary) => module::library_get_kernel_count;
    cuLibraryEnumerateKernels "cuLibraryEnumerateKernels" 12040 (kernels: *mut CUkernel, n: c_uint, library: CUlibrary) => module::library_enumerate_kernels;
    cuLibraryLoadFromFile "cuLibraryLoadFromFile" 12000 (library: *mut CUlibrary, file_name: *const c_char, jit_options: *mut CUjit_option, jit_values: *mut *mut c_void, num_jit_options: c_uint, lib_options: *mut CUlibraryOption, lib_values: *mut *mut c_void, num_lib_options: c_uint) => module::library_load_from_file;
    cuKernelGetLibrary "cuKernelGetLibrary" 12050 (library: *mut CUlibrary, kernel: CUkernel) => module::kernel_get_library;
    cuKernelGetFunction "cuKernelGetFunction" 12000 (func: *mut CUfunction, kernel: CUkernel) => module::kernel_get_function;
    cuKernelGetAttribute "cuKernelGetAttribute" 12000 (value: *mut c_int, attrib: CUfunction_attribute, kernel: CUkernel, dev: CUdevice) => module::kernel_get_attribute;
    cuKernelSetAttribute "cuKernelSetAttribute" 12000 (attrib: CUfunction_attribute, value: c_int, kernel: CUkernel, dev: CUdevice) => module::kernel_set_attribute;
    cuKernelSetCacheConfig "cuKernelSetCacheConfig" 12000 (kernel: CUkernel, config: CUfunc_cache, dev: CUdevice) => module::kernel_set_cache_config;
    cuKernelGetName "cuKernelGetName" 12030 (name: *mut *const c_char, kernel: CUkernel) => module::kernel_get_name;
    cuKernelGetParamInfo "cuKernelGetParamInfo" 12040 (kernel: CUkernel, index: usize, offset: *mut usize, size: *mut usize) => module::kernel_get_param_info;
    cuKernelGetParamCount "cuKernelGetParamCount" 13020 (kernel: CUkernel, count: *mut usize) => module::kernel_get_param_count;
    cuFuncGetAttribute "cuFuncGetAttribute" 2020 (value: *mut c_int, attrib: CUfunction_attribute, func: CUfunction) => module::func_get_attribute;
    cuFuncSetAttribute "cuFuncSetAttribute" 9000 (func: CUfunction, attrib: CUfunction_attribute, value: c_int) => module::func_set_attribute;
    cuFuncSetCacheConfig "cuFuncSetCacheConfig" 3000 (func: CUfunction, config: CUfunc_cache) => module::func_set_cache_config;
    cuFuncSetSharedMemConfig "cuFuncSetSharedMemConfig" 4020 (func: CUfunction, config: CUsharedconfig) => module::func_set_shared_mem_config;
    cuFuncGetName "cuFuncGetName" 12030 (name: *mut *const c_char, func: CUfunction) => module::func_get_name;
    cuFuncGetModule "cuFuncGetModule" 11000 (module: *mut CUmodule, func: CUfunction) => module::func_get_module;
    cuFuncGetParamInfo "cuFuncGetParamInfo" 12040 (func: CUfunction, index: usize, offset: *mut usize, size: *mut usize) => module::func_get_param_info;
    cuFuncGetParamCount "cuFuncGetParamCount" 13020 (func: CUfunction, count: *mut usize) => module::func_get_param_count;
    cuFuncIsLoaded "cuFuncIsLoaded" 12040 (state: *mut CUfunctionLoadingState, func: CUfunction) => module::func_is_loaded;
    cuFuncLoad "cuFuncLoad" 12040 (func: CUfunction) => module::func_load;
    // Launches and occupancy.
    cuLaunchKernel "cuLaunchKernel" 4000 (f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) => launch::kernel::launch_kernel;
    cuLaunchKernel_ptsz "cuLaunchKernel" 7000 abi(cuLaunchKernel) (f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) => launch::kernel::launch_kernel;
    cuLaunchKernelEx "cuLaunchKernelEx" 11060 (config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void) => launch::kernel::launch_kernel_ex;
    cuLaunchKernelEx_ptsz "cuLaunchKernelEx" 11060 abi(cuLaunchKernelEx) (config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void) => launch::kernel::launch_kernel_ex;
    cuLaunchCooperativeKernel "cuLaunchCooperativeKernel" 9000 (f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void) => launch::kernel::launch_cooperative_kernel;
    cuLaunchCooperativeKernel_ptsz "cuLaunchCooperativeKernel" 9000 abi(cuLaunchCooperativeKernel) (f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void) => launch::kernel::launch_cooperative_kernel;
    cuLaunchCooperativeKernelMultiDevice "cuLaunchCooperativeKernelMultiDevice" 9000 (list: *mut CUDA_LAUNCH_PARAMS, num_devices: c_uint, flags: c_uint) => launch::kernel::launch_cooperative_multi_device;
    cuOccupancyMaxActiveBlocksPerMultiprocessor "cuOccupancyMaxActiveBlocksPerMultiprocessor" 6050 (blocks: *mut c_int, f: CUfunction, block_size: c_int, dynamic_shared: usize) => launch::occupancy::max_active_blocks;
    cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags" 7000 (blocks: *mut c_int, f: CUfunction, block_size: c_int, dynamic_shared: usize, flags: c_uint) => launch::occupancy::max_active_blocks_with_flags;
    cuOccupancyAvailableDynamicSMemPerBlock "cuOccupancyAvailableDynamicSMemPerBlock" 10020 (bytes: *mut usize, f: CUfunction, blocks_per_sm: c_int, block_size: c_int) => launch::occupancy::available_dynamic_smem_per_block;
    cuOccupancyMaxPotentialBlockSize "cuOccupancyMaxPotentialBlockSize" 6050 (min_grid: *mut c_int, block: *mut c_int, f: CUfunction, to_dynamic: CUoccupancyB2DSize, dynamic_shared: usize, block_size_limit: c_int) => launch::occupancy::max_potential_block_size;
    cuOccupancyMaxPotentialBlockSizeWithFlags "cuOccupancyMaxPotentialBlockSizeWithFlags" 7000 (min_grid: *mut c_int, block: *mut c_int, f: CUfunction, to_dynamic: CUoccupancyB2DSize, dynamic_shared: usize, block_size_limit: c_int, flags: c_uint) => launch::occupancy::max_potential_block_size_with_flags;
    cuOccupancyMaxPotentialClusterSize "cuOccupancyMaxPotentialClusterSize" 11070 (size: *mut c_int, f: CUfunction, config: *const CUlaunchConfig) => launch::occupancy::max_potential_cluster_size;
    cuOccupancyMaxActiveClusters "cuOccupancyMaxActiveClusters" 11070 (clusters: *mut c_int, f: CUfunction, config: *const CUlaunchConfig) => launch::occupancy::max_active_clusters;
    // Streams.
    cuStreamCreate "cuStreamCreate" 2000 (stream: *mut CUstream, flags: c_uint) => stream::calls::create;
    cuStreamCreateWithPriority "cuStreamCreateWithPriority" 5050 (stream: *mut CUstream, flags: c_uint, priority: c_int) => stream::calls::create_with_priority;
    cuStreamDestroy_v2 "cuStreamDestroy" 4000 (stream: CUstream) => stream::calls::destroy;
    cuStreamSynchronize "cuStreamSynchronize" 2000 (stream: CUstream) => stream::calls::synchronize;
    cuStreamSynchronize_ptsz "cuStreamSynchronize" 7000 abi(cuStreamSynchronize) (stream: CUstream) => stream::calls::synchronize;
    cuStreamQuery "cuStreamQuery" 2000 (stream: CUstream) => stream::calls::query;
    cuStreamQuery_ptsz "cuStreamQuery" 7000 abi(cuStreamQuery) (stream: CUstream) => stream::calls::query;
    cuStreamWaitEvent "cuStreamWaitEvent" 3020 (stream: CUstream, event: CUevent, flags: c_uint) => stream::calls::wait_event;
    cuStreamWaitEvent_ptsz "cuStreamWaitEvent" 7000 abi(cuStreamWaitEvent) (stream: CUstream, event: CUevent, flags: c_uint) => stream::calls::wait_event;
    cuStreamGetPriority "cuStreamGetPriority" 5050 (stream: CUstream, priority: *mut c_int) => stream::calls::get_priority;
    cuStreamGetPriority_ptsz "cuStreamGetPriority" 7000 abi(cuStreamGetPriority) (stream: CUstream, priority: *mut c_int) => stream::calls::get_priority;
    cuStreamGetFlags "cuStreamGetFlags" 5050 (stream: CUstream, flags: *mut c_uint) => stream::calls::get_flags;
    cuStreamGetFlags_ptsz "cuStreamGetFlags" 7000 abi(cuStreamGetFlags) (stream: CUstream, flags: *mut c_uint) => stream::calls::get_flags;
    cuStreamGetCtx "cuStreamGetCtx" 9020 (stream: CUstream, pctx: *mut CUcontext) => stream::calls::get_ctx;
    cuStreamGetCtx_ptsz "cuStreamGetCtx" 9020 abi(cuStreamGetCtx) (stream: CUstream, pctx: *mut CUcontext) => stream::calls::get_ctx;
    cuStreamGetId "cuStreamGetId" 12000 (stream: CUstream, id: *mut c_ulonglong) => stream::calls::get_id;
    cuStreamGetId_ptsz "cuStreamGetId" 12000 abi(cuStreamGetId) (stream: CUstream, id: *mut c_ulonglong) => stream::calls::get_id;
    cuStreamGetDevice "cuStreamGetDevice" 12080 (stream: CUstream, device: *mut CUdevice) => stream::calls::get_device;
    cuStreamGetDevice_ptsz "cuStreamGetDevice" 12080 abi(cuStreamGetDevice) (stream: CUstream, device: *mut CUdevice) => stream::calls::get_device;
    cuStreamAddCallback "cuStreamAddCallback" 5000 (stream: CUstream, callback: CUstreamCallback, user_data: *mut c_void, flags: c_uint) => stream::calls::add_callback;
    cuStreamAddCallback_ptsz "cuStreamAddCallback" 7000 abi(cuStreamAddCallback) (stream: CUstream, callback: CUstreamCallback, user_data: *mut c_void, flags: c_uint) => stream::calls::add_callback;
    cuLaunchHostFunc "cuLaunchHostFunc" 10000 (stream: CUstream, func: CUhostFn, user_data: *mut c_void) => stream::calls::launch_host_func;
    cuLaunchHostFunc_ptsz "cuLaunchHostFunc" 10000 abi(cuLaunchHostFunc) (stream: CUstream, func: CUhostFn, user_data: *mut c_void) => stream::calls::launch_host_func;
    cuLaunchHostFunc_v2 "cuLaunchHostFunc" 13010 (stream: CUstream, func: CUhostFn, user_data: *mut c_void, sync_mode: c_uint) => stream::calls::launch_host_func_v2;
    cuLaunchHostFunc_v2_ptsz "cuLaunchHostFunc" 13010 abi(cuLaunchHostFunc_v2) (stream: CUstream, func: CUhostFn, user_data: *mut c_void, sync_mode: c_uint) => stream::calls::launch_host_func_v2;
    cuStreamIsCapturing "cuStreamIsCapturing" 10000 (stream: CUstream, status: *mut CUstreamCaptureStatus) => stream::capture::is_capturing;
    cuStreamIsCapturing_ptsz "cuStreamIsCapturing" 10000 abi(cuStreamIsCapturing) (stream: CUstream, status: *mut CUstreamCaptureStatus) => stream::capture::is_capturing;
    cuThreadExchangeStreamCaptureMode "cuThreadExchangeStreamCaptureMode" 10010 (mode: *mut CUstreamCaptureMode) => stream::capture::exchange_capture_mode;
    // Stream capture.
    cuStreamBeginCapture "cuStreamBeginCapture" 10000 abi(none) (stream: CUstream) => stream::capture::begin_capture;
    cuStreamBeginCapture_ptsz "cuStreamBeginCapture" 10000 abi(none) (stream: CUstream) => stream::capture::begin_capture;
    cuStreamBeginCapture_v2 "cuStreamBeginCapture" 10010 (stream: CUstream, mode: CUstreamCaptureMode) => stream::capture::begin_capture_v2;
    cuStreamBeginCapture_v2_ptsz "cuStreamBeginCapture" 10010 abi(cuStreamBeginCapture_v2) (stream: CUstream, mode: CUstreamCaptureMode) => stream::capture::begin_capture_v2;
    cuStreamBeginCaptureToGraph "cuStreamBeginCaptureToGraph" 12030 (stream: CUstream, graph: CUgraph, deps: *const CUgraphNode, edges: *const CUgraphEdgeData, n: usize, mode: CUstreamCaptureMode) => stream::capture::begin_capture_to_graph;
    cuStreamBeginCaptureToGraph_ptsz "cuStreamBeginCaptureToGraph" 12030 abi(cuStreamBeginCaptureToGraph) (stream: CUstream, graph: CUgraph, deps: *const CUgraphNode, edges: *const CUgraphEdgeData, n: usize, mode: CUstreamCaptureMode) => stream::capture::begin_capture_to_graph;
    cuStreamEndCapture "cuStreamEndCapture" 10000 (stream: CUstream, graph: *mut CUgraph) => stream::capture::end_capture;
    cuStreamEndCapture_ptsz "cuStreamEndCapture" 10000 abi(cuStreamEndCapture) (stream: CUstream, graph: *mut CUgraph) => stream::capture::end_capture;
    cuStreamGetCaptureInfo "cuStreamGetCaptureInfo" 10010 abi(none) (stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut cuuint64_t) => stream::capture::get_capture_info;
    cuStreamGetCaptureInfo_ptsz "cuStreamGetCaptureInfo" 10010 abi(none) (stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut cuuint64_t) => stream::capture::get_capture_info;
    cuStreamGetCaptureInfo_v2 "cuStreamGetCaptureInfo" 11030 abi(none) (stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut cuuint64_t, graph: *mut CUgraph, deps: *mut *const CUgraphNode, count: *mut usize) => stream::capture::get_capture_info_v2;
    cuStreamGetCaptureInfo_v2_ptsz "cuStreamGetCaptureInfo" 11030 abi(none) (stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut cuuint64_t, graph: *mut CUgraph, deps: *mut *const CUgraphNode, count: *mut usize) => stream::capture::get_capture_info_v2;
    cuStreamGetCaptureInfo_v3 "cuStreamGetCaptureInfo" 12030 (stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut cuuint64_t, graph: *mut CUgraph, deps: *mut *const CUgraphNode, edges: *mut *const CUgraphEdgeData, count: *mut usize) => stream::capture::get_capture_info_v3;
    cuStreamGetCaptureInfo_v3_ptsz "cuStreamGetCaptureInfo" 12030 abi(cuStreamGetCaptureInfo_v3) (stream: CUstream, status: *mut CUstreamCaptureStatus, id: *mut cuuint64_t, graph: *mut CUgraph, deps: *mut *const CUgraphNode, edges: *mut *const CUgraphEdgeData, count: *mut usize) => stream::capture::get_capture_info_v3;
    cuStreamUpdateCaptureDependencies "cuStreamUpdateCaptureDependencies" 11030 abi(none) (stream: CUstream, deps: *mut CUgraphNode, n: usize, flags: c_uint) => stream::capture::update_capture_dependencies;
    cuStreamUpdateCaptureDependencies_ptsz "cuStreamUpdateCaptureDependencies" 11030 abi(none) (stream: CUstream, deps: *mut CUgraphNode, n: usize, flags: c_uint) => stream::capture::update_capture_dependencies;
    cuStreamUpdateCaptureDependencies_v2 "cuStreamUpdateCaptureDependencies" 12030 (stream: CUstream, deps: *mut CUgraphNode, edges: *const CUgraphEdgeData, n: usize, flags: c_uint) => stream::capture::update_capture_dependencies_v2;
    cuStreamUpdateCaptureDependencies_v2_ptsz "cuStreamUpdateCaptureDependencies" 12030 abi(cuStreamUpdateCaptureDependencies_v2) (stream: CUstream, deps: *mut CUgraphNode, edges: *const CUgraphEdgeData, n: usize, flags: c_uint) => stream::capture::update_capture_dependencies_v2;
    // Graphs: nodes and edges.
    cuGraphCreate "cuGraphCreate" 10000 (graph: *mut CUgraph, flags: c_uint) => graph::topology::create;
    cuGraphDestroy "cuGraphDestroy" 10000 (graph: CUgraph) => graph::topology::destroy;
    cuGraphClone "cuGraphClone" 10000 (clone: *mut CUgraph, original: CUgraph) => graph::topology::clone;
    cuGraphNodeFindInClone "cuGraphNodeFindInClone" 10000 (node: *mut CUgraphNode, original: CUgraphNode, cloned: CUgraph) => graph::topology::node_find_in_clone;
    cuGraphGetId "cuGraphGetId" 13010 (graph: CUgraph, id: *mut c_uint) => graph::topology::get_id;
    cuGraphAddEmptyNode "cuGraphAddEmptyNode" 10000 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize) => graph::nodes::add_empty_node;
    cuGraphAddKernelNode_v2 "cuGraphAddKernelNode" 12000 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *const CUDA_KERNEL_NODE_PARAMS) => graph::nodes::add_kernel_node;
    cuGraphAddMemcpyNode "cuGraphAddMemcpyNode" 10000 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *const CUDA_MEMCPY3D, ctx: CUcontext) => graph::nodes::add_memcpy_node;
    cuGraphAddMemsetNode "cuGraphAddMemsetNode" 10000 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *const CUDA_MEMSET_NODE_PARAMS, ctx: CUcontext) => graph::nodes::add_memset_node;
    cuGraphAddHostNode "cuGraphAddHostNode" 10000 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *const CUDA_HOST_NODE_PARAMS) => graph::nodes::add_host_node;
    cuGraphAddChildGraphNode "cuGraphAddChildGraphNode" 10000 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, child: CUgraph) => graph::nodes::add_child_graph_node;
    cuGraphAddEventRecordNode "cuGraphAddEventRecordNode" 11010 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, event: CUevent) => graph::nodes::add_event_record_node;
    cuGraphAddEventWaitNode "cuGraphAddEventWaitNode" 11010 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, event: CUevent) => graph::nodes::add_event_wait_node;
    cuGraphAddNode "cuGraphAddNode" 12020 abi(none) (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *mut CUgraphNodeParams) => graph::nodes::add_generic_node;
    cuGraphAddNode_v2 "cuGraphAddNode" 12030 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, edges: *const CUgraphEdgeData, n: usize, params: *mut CUgraphNodeParams) => graph::nodes::add_generic_node_v2;
    cuGraphKernelNodeGetParams_v2 "cuGraphKernelNodeGetParams" 12000 (node: CUgraphNode, params: *mut CUDA_KERNEL_NODE_PARAMS) => graph::params::kernel_node_get_params;
    cuGraphKernelNodeSetParams_v2 "cuGraphKernelNodeSetParams" 12000 (node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS) => graph::params::kernel_node_set_params;
    cuGraphKernelNodeSetAttribute "cuGraphKernelNodeSetAttribute" 11000 (node: CUgraphNode, attr: CUkernelNodeAttrID, value: *const CUkernelNodeAttrValue) => graph::params::kernel_node_set_attribute;
    cuGraphKernelNodeGetAttribute "cuGraphKernelNodeGetAttribute" 11000 (node: CUgraphNode, attr: CUkernelNodeAttrID, value: *mut CUkernelNodeAttrValue) => graph::params::kernel_node_get_attribute;
    cuGraphKernelNodeCopyAttributes "cuGraphKernelNodeCopyAttributes" 11000 (dst: CUgraphNode, src: CUgraphNode) => graph::params::kernel_node_copy_attributes;
    cuGraphMemcpyNodeGetParams "cuGraphMemcpyNodeGetParams" 10000 (node: CUgraphNode, params: *mut CUDA_MEMCPY3D) => graph::params::memcpy_node_get_params;
    cuGraphMemcpyNodeSetParams "cuGraphMemcpyNodeSetParams" 10000 (node: CUgraphNode, params: *const CUDA_MEMCPY3D) => graph::params::memcpy_node_set_params;
    cuGraphMemsetNodeGetParams "cuGraphMemsetNodeGetParams" 10000 (node: CUgraphNode, params: *mut CUDA_MEMSET_NODE_PARAMS) => graph::params::memset_node_get_params;
    cuGraphMemsetNodeSetParams "cuGraphMemsetNodeSetParams" 10000 (node: CUgraphNode, params: *const CUDA_MEMSET_NODE_PARAMS) => graph::params::memset_node_set_params;
    cuGraphHostNodeGetParams "cuGraphHostNodeGetParams" 10000 (node: CUgraphNode, params: *mut CUDA_HOST_NODE_PARAMS) => graph::params::host_node_get_params;
    cuGraphHostNodeSetParams "cuGraphHostNodeSetParams" 10000 (node: CUgraphNode, params: *const CUDA_HOST_NODE_PARAMS) => graph::params::host_node_set_params;
    cuGraphChildGraphNodeGetGraph "cuGraphChildGraphNodeGetGraph" 10000 (node: CUgraphNode, graph: *mut CUgraph) => graph::params::child_graph_node_get_graph;
    cuGraphEventRecordNodeGetEvent "cuGraphEventRecordNodeGetEvent" 11010 (node: CUgraphNode, event: *mut CUevent) => graph::params::event_record_node_get_event;
    cuGraphEventRecordNodeSetEvent "cuGraphEventRecordNodeSetEvent" 11010 (node: CUgraphNode, event: CUevent) => graph::params::event_record_node_set_event;
    cuGraphEventWaitNodeGetEvent "cuGraphEventWaitNodeGetEvent" 11010 (node: CUgraphNode, event: *mut CUevent) => graph::params::event_wait_node_get_event;
    cuGraphEventWaitNodeSetEvent "cuGraphEventWaitNodeSetEvent" 11010 (node: CUgraphNode, event: CUevent) => graph::params::event_wait_node_set_event;
    cuGraphNodeGetType "cuGraphNodeGetType" 10000 (node: CUgraphNode, kind: *mut CUgraphNodeType) => graph::params::node_get_type;
    cuGraphNodeGetContainingGraph "cuGraphNodeGetContainingGraph" 13010 (node: CUgraphNode, graph: *mut CUgraph) => graph::topology::node_get_containing_graph;
    cuGraphNodeGetLocalId "cuGraphNodeGetLocalId" 13010 (node: CUgraphNode, id: *mut c_uint) => graph::topology::node_get_local_id;
    cuGraphGetNodes "cuGraphGetNodes" 10000 (graph: CUgraph, nodes: *mut CUgraphNode, count: *mut usize) => graph::topology::get_nodes;
    cuGraphGetRootNodes "cuGraphGetRootNodes" 10000 (graph: CUgraph, nodes: *mut CUgraphNode, count: *mut usize) => graph::topology::get_root_nodes;
    cuGraphGetEdges "cuGraphGetEdges" 10000 abi(none) (graph: CUgraph, from: *mut CUgraphNode, to: *mut CUgraphNode, count: *mut usize) => graph::topology::get_edges;
    cuGraphGetEdges_v2 "cuGraphGetEdges" 12030 (graph: CUgraph, from: *mut CUgraphNode, to: *mut CUgraphNode, edges: *mut CUgraphEdgeData, count: *mut usize) => graph::topology::get_edges_v2;
    cuGraphNodeGetDependencies "cuGraphNodeGetDependencies" 10000 abi(none) (node: CUgraphNode, deps: *mut CUgraphNode, count: *mut usize) => graph::topology::node_get_dependencies;
    cuGraphNodeGetDependencies_v2 "cuGraphNodeGetDependencies" 12030 (node: CUgraphNode, deps: *mut CUgraphNode, edges: *mut CUgraphEdgeData, count: *mut usize) => graph::topology::node_get_dependencies_v2;
    cuGraphNodeGetDependentNodes "cuGraphNodeGetDependentNodes" 10000 abi(none) (node: CUgraphNode, deps: *mut CUgraphNode, count: *mut usize) => graph::topology::node_get_dependent_nodes;
    cuGraphNodeGetDependentNodes_v2 "cuGraphNodeGetDependentNodes" 12030 (node: CUgraphNode, deps: *mut CUgraphNode, edges: *mut CUgraphEdgeData, count: *mut usize) => graph::topology::node_get_dependent_nodes_v2;
    cuGraphAddDependencies "cuGraphAddDependencies" 10000 abi(none) (graph: CUgraph, from: *const CUgraphNode, to: *const CUgraphNode, n: usize) => graph::topology::add_dependencies;
    cuGraphAddDependencies_v2 "cuGraphAddDependencies" 12030 (graph: CUgraph, from: *const CUgraphNode, to: *const CUgraphNode, edges: *const CUgraphEdgeData, n: usize) => graph::topology::add_dependencies_v2;
    cuGraphRemoveDependencies "cuGraphRemoveDependencies" 10000 abi(none) (graph: CUgraph, from: *const CUgraphNode, to: *const CUgraphNode, n: usize) => graph::topology::remove_dependencies;
    cuGraphRemoveDependencies_v2 "cuGraphRemoveDependencies" 12030 (graph: CUgraph, from: *const CUgraphNode, to: *const CUgraphNode, edges: *const CUgraphEdgeData, n: usize) => graph::topology::remove_dependencies_v2;
    cuGraphDestroyNode "cuGraphDestroyNode" 10000 (node: CUgraphNode) => graph::topology::destroy_node;
    // Executable graphs.
    cuGraphInstantiate "cuGraphInstantiate" 10000 abi(none) (exec: *mut CUgraphExec, graph: CUgraph, error_node: *mut CUgraphNode, log: *mut c_char, log_size: usize) => graph::exec::instantiate_v1;
    cuGraphInstantiate_v2 "cuGraphInstantiate" 11000 abi(none) (exec: *mut CUgraphExec, graph: CUgraph, error_node: *mut CUgraphNode, log: *mut c_char, log_size: usize) => graph::exec::instantiate_v1;
    cuGraphInstantiateWithFlags "cuGraphInstantiateWithFlags" 11040 (exec: *mut CUgraphExec, graph: CUgraph, flags: c_ulonglong) => graph::exec::instantiate_with_flags;
    cuGraphInstantiateWithParams "cuGraphInstantiateWithParams" 12000 (exec: *mut CUgraphExec, graph: CUgraph, params: *mut CUDA_GRAPH_INSTANTIATE_PARAMS) => graph::exec::instantiate_with_params;
    cuGraphInstantiateWithParams_ptsz "cuGraphInstantiateWithParams" 12000 abi(cuGraphInstantiateWithParams) (exec: *mut CUgraphExec, graph: CUgraph, params: *mut CUDA_GRAPH_INSTANTIATE_PARAMS) => graph::exec::instantiate_with_params;
    cuGraphExecDestroy "cuGraphExecDestroy" 10000 (exec: CUgraphExec) => graph::exec::exec_destroy;
    cuGraphExecGetFlags "cuGraphExecGetFlags" 12000 (exec: CUgraphExec, flags: *mut cuuint64_t) => graph::exec::exec_get_flags;
    cuGraphExecGetId "cuGraphExecGetId" 13010 (exec: CUgraphExec, id: *mut c_uint) => graph::exec::exec_get_id;
    cuGraphUpload "cuGraphUpload" 11010 (exec: CUgraphExec, stream: CUstream) => graph::exec::upload;
    cuGraphUpload_ptsz "cuGraphUpload" 11010 abi(cuGraphUpload) (exec: CUgraphExec, stream: CUstream) => graph::exec::upload;
    cuGraphLaunch "cuGraphLaunch" 10000 (exec: CUgraphExec, stream: CUstream) => graph::exec::graph_launch;
    cuGraphLaunch_ptsz "cuGraphLaunch" 10000 abi(cuGraphLaunch) (exec: CUgraphExec, stream: CUstream) => graph::exec::graph_launch;
    cuGraphExecUpdate_v2 "cuGraphExecUpdate" 12000 (exec: CUgraphExec, graph: CUgraph, info: *mut CUgraphExecUpdateResultInfo) => graph::exec::exec_update;
    cuGraphExecKernelNodeSetParams_v2 "cuGraphExecKernelNodeSetParams" 12000 (exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS) => graph::exec::exec_kernel_node_set_params;
    cuGraphExecMemcpyNodeSetParams "cuGraphExecMemcpyNodeSetParams" 10020 (exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_MEMCPY3D, ctx: CUcontext) => graph::exec::exec_memcpy_node_set_params;
    cuGraphExecMemsetNodeSetParams "cuGraphExecMemsetNodeSetParams" 10020 (exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_MEMSET_NODE_PARAMS, ctx: CUcontext) => graph::exec::exec_memset_node_set_params;
    cuGraphExecHostNodeSetParams "cuGraphExecHostNodeSetParams" 10020 (exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_HOST_NODE_PARAMS) => graph::exec::exec_host_node_set_params;
    cuGraphExecEventRecordNodeSetEvent "cuGraphExecEventRecordNodeSetEvent" 11010 (exec: CUgraphExec, node: CUgraphNode, event: CUevent) => graph::exec::exec_event_record_node_set_event;
    cuGraphExecEventWaitNodeSetEvent "cuGraphExecEventWaitNodeSetEvent" 11010 (exec: CUgraphExec, node: CUgraphNode, event: CUevent) => graph::exec::exec_event_wait_node_set_event;
    // Stream attributes (stream_attrs.rs) and stream memory operations (memory/memops.rs).
    cuStreamGetAttribute "cuStreamGetAttribute" 11000 (stream: CUstream, attr: CUstreamAttrID, value: *mut CUstreamAttrValue) => stream::calls::get_attribute;
    cuStreamGetAttribute_ptsz "cuStreamGetAttribute" 11000 abi(cuStreamGetAttribute) (stream: CUstream, attr: CUstreamAttrID, value: *mut CUstreamAttrValue) => stream::calls::get_attribute;
    cuStreamSetAttribute "cuStreamSetAttribute" 11000 (stream: CUstream, attr: CUstreamAttrID, value: *const CUstreamAttrValue) => stream::calls::set_attribute;
    cuStreamSetAttribute_ptsz "cuStreamSetAttribute" 11000 abi(cuStreamSetAttribute) (stream: CUstream, attr: CUstreamAttrID, value: *const CUstreamAttrValue) => stream::calls::set_attribute;
    cuStreamCopyAttributes "cuStreamCopyAttributes" 11000 (dst: CUstream, src: CUstream) => stream::calls::copy_attributes;
    cuStreamCopyAttributes_ptsz "cuStreamCopyAttributes" 11000 abi(cuStreamCopyAttributes) (dst: CUstream, src: CUstream) => stream::calls::copy_attributes;
    cuStreamWaitValue32 "cuStreamWaitValue32" 8000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::wait_value_32;
    cuStreamWaitValue32_ptsz "cuStreamWaitValue32" 8000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::wait_value_32;
    cuStreamWaitValue32_v2 "cuStreamWaitValue32" 11070 (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::wait_value_32;
    cuStreamWaitValue32_v2_ptsz "cuStreamWaitValue32" 11070 abi(cuStreamWaitValue32_v2) (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::wait_value_32;
    cuStreamWaitValue64 "cuStreamWaitValue64" 9000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::wait_value_64;
    cuStreamWaitValue64_ptsz "cuStreamWaitValue64" 9000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::wait_value_64;
    cuStreamWaitValue64_v2 "cuStreamWaitValue64" 11070 (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::wait_value_64;
    cuStreamWaitValue64_v2_ptsz "cuStreamWaitValue64" 11070 abi(cuStreamWaitValue64_v2) (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::wait_value_64;
    cuStreamWriteValue32 "cuStreamWriteValue32" 8000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::write_value_32_v1;
    cuStreamWriteValue32_ptsz "cuStreamWriteValue32" 8000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::write_value_32_v1;
    cuStreamWriteValue32_v2 "cuStreamWriteValue32" 11070 (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::write_value_32_v2;
    cuStreamWriteValue32_v2_ptsz "cuStreamWriteValue32" 11070 abi(cuStreamWriteValue32_v2) (stream: CUstream, addr: CUdeviceptr, value: cuuint32_t, flags: c_uint) => memory::memops::write_value_32_v2;
    cuStreamWriteValue64 "cuStreamWriteValue64" 9000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::write_value_64_v1;
    cuStreamWriteValue64_ptsz "cuStreamWriteValue64" 9000 abi(none) (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::write_value_64_v1;
    cuStreamWriteValue64_v2 "cuStreamWriteValue64" 11070 (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::write_value_64_v2;
    cuStreamWriteValue64_v2_ptsz "cuStreamWriteValue64" 11070 abi(cuStreamWriteValue64_v2) (stream: CUstream, addr: CUdeviceptr, value: cuuint64_t, flags: c_uint) => memory::memops::write_value_64_v2;
    cuStreamBatchMemOp "cuStreamBatchMemOp" 8000 abi(none) (stream: CUstream, count: c_uint, params: *mut CUstreamBatchMemOpParams, flags: c_uint) => memory::memops::batch_v1;
    cuStreamBatchMemOp_ptsz "cuStreamBatchMemOp" 8000 abi(none) (stream: CUstream, count: c_uint, params: *mut CUstreamBatchMemOpParams, flags: c_uint) => memory::memops::batch_v1;
    cuStreamBatchMemOp_v2 "cuStreamBatchMemOp" 11070 (stream: CUstream, count: c_uint, params: *mut CUstreamBatchMemOpParams, flags: c_uint) => memory::memops::batch_v2;
    cuStreamBatchMemOp_v2_ptsz "cuStreamBatchMemOp" 11070 abi(cuStreamBatchMemOp_v2) (stream: CUstream, count: c_uint, params: *mut CUstreamBatchMemOpParams, flags: c_uint) => memory::memops::batch_v2;
    // Context-wide event record and wait.
    cuCtxRecordEvent "cuCtxRecordEvent" 12050 (ctx: CUcontext, event: CUevent) => stream::event::ctx_record_event;
    cuCtxWaitEvent "cuCtxWaitEvent" 12050 (ctx: CUcontext, event: CUevent) => stream::event::ctx_wait_event;
    // Pointer attributes set, managed memory ranges (memory/managed.rs), batched prefetch and
    // discard.
    cuPointerSetAttribute "cuPointerSetAttribute" 6000 (value: *const c_void, attribute: CUpointer_attribute, ptr: CUdeviceptr) => memory::pointer::pointer_set_attribute;
    cuMemRangeGetAttribute "cuMemRangeGetAttribute" 8000 (data: *mut c_void, data_size: usize, attribute: CUmem_range_attribute, ptr: CUdeviceptr, count: usize) => memory::managed::range_get_attribute;
    cuMemRangeGetAttributes "cuMemRangeGetAttributes" 8000 (data: *mut *mut c_void, data_sizes: *mut usize, attributes: *mut CUmem_range_attribute, n: usize, ptr: CUdeviceptr, count: usize) => memory::managed::range_get_attributes;
    cuMemPrefetchBatchAsync "cuMemPrefetchBatchAsync" 13000 (dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, locs: *mut CUmemLocation, loc_idxs: *mut usize, n_locs: usize, flags: c_ulonglong, stream: CUstream) => memory::managed::prefetch_batch;
    cuMemPrefetchBatchAsync_ptsz "cuMemPrefetchBatchAsync" 13000 abi(cuMemPrefetchBatchAsync) (dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, locs: *mut CUmemLocation, loc_idxs: *mut usize, n_locs: usize, flags: c_ulonglong, stream: CUstream) => memory::managed::prefetch_batch;
    cuMemDiscardBatchAsync "cuMemDiscardBatchAsync" 13000 (dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, flags: c_ulonglong, stream: CUstream) => memory::managed::discard_batch;
    cuMemDiscardBatchAsync_ptsz "cuMemDiscardBatchAsync" 13000 abi(cuMemDiscardBatchAsync) (dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, flags: c_ulonglong, stream: CUstream) => memory::managed::discard_batch;
    cuMemDiscardAndPrefetchBatchAsync "cuMemDiscardAndPrefetchBatchAsync" 13000 (dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, locs: *mut CUmemLocation, loc_idxs: *mut usize, n_locs: usize, flags: c_ulonglong, stream: CUstream) => memory::managed::prefetch_batch;
    cuMemDiscardAndPrefetchBatchAsync_ptsz "cuMemDiscardAndPrefetchBatchAsync" 13000 abi(cuMemDiscardAndPrefetchBatchAsync) (dptrs: *mut CUdeviceptr, sizes: *mut usize, count: usize, locs: *mut CUmemLocation, loc_idxs: *mut usize, n_locs: usize, flags: c_ulonglong, stream: CUstream) => memory::managed::prefetch_batch;
    // Batched and attributed copies (memory/copy_batch.rs).
    cuMemcpyBatchAsync "cuMemcpyBatchAsync" 12080 abi(none) (dsts: *mut CUdeviceptr, srcs: *mut CUdeviceptr, sizes: *mut usize, count: usize, attrs: *mut CUmemcpyAttributes, attr_idxs: *mut usize, n_attrs: usize, fail_idx: *mut usize, stream: CUstream) => memory::copy_batch::batch_v1;
    cuMemcpyBatchAsync_ptsz "cuMemcpyBatchAsync" 12080 abi(none) (dsts: *mut CUdeviceptr, srcs: *mut CUdeviceptr, sizes: *mut usize, count: usize, attrs: *mut CUmemcpyAttributes, attr_idxs: *mut usize, n_attrs: usize, fail_idx: *mut usize, stream: CUstream) => memory::copy_batch::batch_v1;
    cuMemcpyBatchAsync_v2 "cuMemcpyBatchAsync" 13000 (dsts: *mut CUdeviceptr, srcs: *mut CUdeviceptr, sizes: *mut usize, count: usize, attrs: *mut CUmemcpyAttributes, attr_idxs: *mut usize, n_attrs: usize, stream: CUstream) => memory::copy_batch::batch_v2;
    cuMemcpyBatchAsync_v2_ptsz "cuMemcpyBatchAsync" 13000 abi(cuMemcpyBatchAsync_v2) (dsts: *mut CUdeviceptr, srcs: *mut CUdeviceptr, sizes: *mut usize, count: usize, attrs: *mut CUmemcpyAttributes, attr_idxs: *mut usize, n_attrs: usize, stream: CUstream) => memory::copy_batch::batch_v2;
    cuMemcpy3DBatchAsync "cuMemcpy3DBatchAsync" 12080 abi(none) (n: usize, ops: *mut CUDA_MEMCPY3D_BATCH_OP, fail_idx: *mut usize, flags: c_ulonglong, stream: CUstream) => memory::copy_batch::batch_3d_v1;
    cuMemcpy3DBatchAsync_ptsz "cuMemcpy3DBatchAsync" 12080 abi(none) (n: usize, ops: *mut CUDA_MEMCPY3D_BATCH_OP, fail_idx: *mut usize, flags: c_ulonglong, stream: CUstream) => memory::copy_batch::batch_3d_v1;
    cuMemcpy3DBatchAsync_v2 "cuMemcpy3DBatchAsync" 13000 (n: usize, ops: *mut CUDA_MEMCPY3D_BATCH_OP, flags: c_ulonglong, stream: CUstream) => memory::copy_batch::batch_3d_v2;
    cuMemcpy3DBatchAsync_v2_ptsz "cuMemcpy3DBatchAsync" 13000 abi(cuMemcpy3DBatchAsync_v2) (n: usize, ops: *mut CUDA_MEMCPY3D_BATCH_OP, flags: c_ulonglong, stream: CUstream) => memory::copy_batch::batch_3d_v2;
    cuMemcpyWithAttributesAsync "cuMemcpyWithAttributesAsync" 13020 (dst: CUdeviceptr, src: CUdeviceptr, size: usize, attr: *mut CUmemcpyAttributes, stream: CUstream) => memory::copy_batch::with_attributes;
    cuMemcpyWithAttributesAsync_ptsz "cuMemcpyWithAttributesAsync" 13020 abi(cuMemcpyWithAttributesAsync) (dst: CUdeviceptr, src: CUdeviceptr, size: usize, attr: *mut CUmemcpyAttributes, stream: CUstream) => memory::copy_batch::with_attributes;
    cuMemcpy3DWithAttributesAsync "cuMemcpy3DWithAttributesAsync" 13020 (op: *mut CUDA_MEMCPY3D_BATCH_OP, flags: c_ulonglong, stream: CUstream) => memory::copy_batch::with_attributes_3d;
    cuMemcpy3DWithAttributesAsync_ptsz "cuMemcpy3DWithAttributesAsync" 13020 abi(cuMemcpy3DWithAttributesAsync) (op: *mut CUDA_MEMCPY3D_BATCH_OP, flags: c_ulonglong, stream: CUstream) => memory::copy_batch::with_attributes_3d;
    cuGraphExecChildGraphNodeSetParams "cuGraphExecChildGraphNodeSetParams" 11010 (exec: CUgraphExec, node: CUgraphNode, child: CUgraph) => graph::exec::exec_child_graph_node_set_params;
    cuGraphExecNodeSetParams "cuGraphExecNodeSetParams" 12020 (exec: CUgraphExec, node: CUgraphNode, params: *mut CUgraphNodeParams) => graph::exec::exec_node_set_params;
    cuGraphNodeSetEnabled "cuGraphNodeSetEnabled" 11060 (exec: CUgraphExec, node: CUgraphNode, enabled: c_uint) => graph::exec::node_set_enabled;
    cuGraphNodeGetEnabled "cuGraphNodeGetEnabled" 11060 (exec: CUgraphExec, node: CUgraphNode, enabled: *mut c_uint) => graph::exec::node_get_enabled;
    // Graphs: generic node parameters, memory and conditional nodes, user objects, DOT.
    cuGraphAddNode_v3 "cuGraphAddNode" 13040 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, edges: *const CUgraphEdgeData, n: usize, params: *mut CUgraphNodeParams) => graph::nodes::add_generic_node_v2;
    cuGraphNodeGetParams "cuGraphNodeGetParams" 13020 (node: CUgraphNode, params: *mut CUgraphNodeParams) => graph::params::node_get_params;
    cuGraphNodeSetParams "cuGraphNodeSetParams" 12020 (node: CUgraphNode, params: *mut CUgraphNodeParams) => graph::params::node_set_params;
    cuGraphNodeSetParams_v2 "cuGraphNodeSetParams" 13040 (node: CUgraphNode, params: *mut CUgraphNodeParams) => graph::params::node_set_params;
    cuGraphAddMemAllocNode "cuGraphAddMemAllocNode" 11040 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *mut CUDA_MEM_ALLOC_NODE_PARAMS) => graph::nodes::add_mem_alloc_node;
    cuGraphAddMemFreeNode "cuGraphAddMemFreeNode" 11040 (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, dptr: CUdeviceptr) => graph::nodes::add_mem_free_node;
    cuGraphMemAllocNodeGetParams "cuGraphMemAllocNodeGetParams" 11040 (node: CUgraphNode, params: *mut CUDA_MEM_ALLOC_NODE_PARAMS) => graph::params::mem_alloc_node_get_params;
    cuGraphMemFreeNodeGetParams "cuGraphMemFreeNodeGetParams" 11040 (node: CUgraphNode, dptr: *mut CUdeviceptr) => graph::params::mem_free_node_get_params;
    cuDeviceGraphMemTrim "cuDeviceGraphMemTrim" 11040 (dev: CUdevice) => graph::mem::trim;
    cuDeviceGetGraphMemAttribute "cuDeviceGetGraphMemAttribute" 11040 (dev: CUdevice, attr: CUgraphMem_attribute, value: *mut c_void) => graph::mem::get_attribute;
    cuDeviceSetGraphMemAttribute "cuDeviceSetGraphMemAttribute" 11040 (dev: CUdevice, attr: CUgraphMem_attribute, value: *mut c_void) => graph::mem::set_attribute;
    cuGraphConditionalHandleCreate "cuGraphConditionalHandleCreate" 12030 (handle: *mut CUgraphConditionalHandle, graph: CUgraph, ctx: CUcontext, default: c_uint, flags: c_uint) => graph::conditional::handle_create;
    cuUserObjectCreate "cuUserObjectCreate" 11030 (object: *mut CUuserObject, ptr: *mut c_void, destroy: CUhostFn, refs: c_uint, flags: c_uint) => graph::user_object::create;
    cuUserObjectRetain "cuUserObjectRetain" 11030 (object: CUuserObject, count: c_uint) => graph::user_object::retain;
    cuUserObjectRelease "cuUserObjectRelease" 11030 (object: CUuserObject, count: c_uint) => graph::user_object::release;
    cuGraphRetainUserObject "cuGraphRetainUserObject" 11030 (graph: CUgraph, object: CUuserObject, count: c_uint, flags: c_uint) => graph::user_object::graph_retain;
    cuGraphReleaseUserObject "cuGraphReleaseUserObject" 11030 (graph: CUgraph, object: CUuserObject, count: c_uint) => graph::user_object::graph_release;
    cuGraphDebugDotPrint "cuGraphDebugDotPrint" 11030 (graph: CUgraph, path: *const c_char, flags: c_uint) => graph::dot::debug_dot_print;
    // Events.
    cuEventCreate "cuEventCreate" 2000 (event: *mut CUevent, flags: c_uint) => stream::event::create;
    cuEventDestroy_v2 "cuEventDestroy" 4000 (event: CUevent) => stream::event::destroy;
    cuEventRecord "cuEventRecord" 2000 (event: CUevent, stream: CUstream) => stream::event::record;
    cuEventRecord_ptsz "cuEventRecord" 7000 abi(cuEventRecord) (event: CUevent, stream: CUstream) => stream::event::record;
    cuEventRecordWithFlags "cuEventRecordWithFlags" 11010 (event: CUevent, stream: CUstream, flags: c_uint) => stream::event::record_with_flags;
    cuEventRecordWithFlags_ptsz "cuEventRecordWithFlags" 11010 abi(cuEventRecordWithFlags) (event: CUevent, stream: CUstream, flags: c_uint) => stream::event::record_with_flags;
    cuEventSynchronize "cuEventSynchronize" 2000 (event: CUevent) => stream::event::synchronize;
    cuEventQuery "cuEventQuery" 2000 (event: CUevent) => stream::event::query;
    cuEventElapsedTime "cuEventElapsedTime" 2000 abi(none) (ms: *mut f32, start: CUevent, end: CUevent) => stream::event::elapsed_time;
    cuEventElapsedTime_v2 "cuEventElapsedTime" 12080 (ms: *mut f32, start: CUevent, end: CUevent) => stream::event::elapsed_time;
    // Libraries: managed variables and unified functions (what cudart 13 registers).
    cuLibraryGetManaged "cuLibraryGetManaged" 12000 (dptr: *mut CUdeviceptr, bytes: *mut usize, library: CUlibrary, name: *const c_char) => module::library_get_managed;
    cuLibraryGetUnifiedFunction "cuLibraryGetUnifiedFunction" 12000 (fptr: *mut *mut c_void, library: CUlibrary, name: *const c_char) => module::library_get_unified_function;
    // Profiler control (no profiler; see profiler.rs).
    cuProfilerInitialize "cuProfilerInitialize" 4000 abi(none) (config_file: *const c_char, output_file: *const c_char, mode: c_int) => profiler::initialize;
    cuProfilerStart "cuProfilerStart" 4000 abi(none) () => profiler::start;
    cuProfilerStop "cuProfilerStop" 4000 abi(none) () => profiler::stop;
    // The launch API before cuLaunchKernel (launch/legacy.rs).
    cuFuncSetBlockShape "cuFuncSetBlockShape" 2000 (func: CUfunction, x: c_int, y: c_int, z: c_int) => launch::legacy::func_set_block_shape;
    cuFuncSetSharedSize "cuFuncSetSharedSize" 2000 (func: CUfunction, bytes: c_uint) => launch::legacy::func_set_shared_size;
    cuParamSetSize "cuParamSetSize" 2000 (func: CUfunction, bytes: c_uint) => launch::legacy::param_set_size;
    cuParamSeti "cuParamSeti" 2000 (func: CUfunction, offset: c_int, value: c_uint) => launch::legacy::param_seti;
    cuParamSetf "cuParamSetf" 2000 (func: CUfunction, offset: c_int, value: f32) => launch::legacy::param_setf;
    cuParamSetv "cuParamSetv" 2000 (func: CUfunction, offset: c_int, ptr: *mut c_void, bytes: c_uint) => launch::legacy::param_setv;
    cuLaunch "cuLaunch" 2000 (func: CUfunction) => launch::legacy::launch;
    cuLaunchGrid "cuLaunchGrid" 2000 (func: CUfunction, width: c_int, height: c_int) => launch::legacy::launch_grid;
    cuLaunchGridAsync "cuLaunchGridAsync" 2000 (func: CUfunction, width: c_int, height: c_int, stream: CUstream) => launch::legacy::launch_grid_async;
    // The unversioned names cuda.h redirects to `_v2`/`_v3` with macros, under their original
    // ABI (the real libcuda.so.1 exports them). Where that ABI equals the current one the
    // current body serves; where it has 32-bit sizes and `CUdeviceptr_v1`,
    // exports/unversioned.rs widens.
    cuCtxCreate "cuCtxCreate" 2000 abi(none) (pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) => context::calls::create_v2;
    cuCtxDestroy "cuCtxDestroy" 2000 abi(none) (ctx: CUcontext) => context::calls::destroy;
    cuCtxPushCurrent "cuCtxPushCurrent" 2000 abi(none) (ctx: CUcontext) => context::calls::push_current;
    cuCtxPopCurrent "cuCtxPopCurrent" 2000 abi(none) (pctx: *mut CUcontext) => context::calls::pop_current;
    cuStreamDestroy "cuStreamDestroy" 2000 abi(none) (stream: CUstream) => stream::calls::destroy;
    cuEventDestroy "cuEventDestroy" 2000 abi(none) (event: CUevent) => stream::event::destroy;
    cuMemHostRegister "cuMemHostRegister" 4000 abi(none) (p: *mut c_void, bytesize: usize, flags: c_uint) => memory::host::host_register;
    cuDeviceTotalMem "cuDeviceTotalMem" 2000 abi(none) (bytes: *mut c_uint, dev: CUdevice) => unversioned::device_total_mem;
    cuMemGetInfo "cuMemGetInfo" 2000 abi(none) (free: *mut c_uint, total: *mut c_uint) => unversioned::mem_get_info;
    cuMemAlloc "cuMemAlloc" 2000 abi(none) (dptr: *mut unversioned::DevPtr32, bytesize: c_uint) => unversioned::mem_alloc;
    cuMemAllocPitch "cuMemAllocPitch" 2000 abi(none) (dptr: *mut unversioned::DevPtr32, pitch: *mut c_uint, width: c_uint, height: c_uint, element_size: c_uint) => unversioned::mem_alloc_pitch;
    cuMemFree "cuMemFree" 2000 abi(none) (dptr: unversioned::DevPtr32) => unversioned::mem_free;
    cuMemGetAddressRange "cuMemGetAddressRange" 2000 abi(none) (base: *mut unversioned::DevPtr32, size: *mut c_uint, dptr: unversioned::DevPtr32) => unversioned::mem_get_address_range;
    cuMemAllocHost "cuMemAllocHost" 2000 abi(none) (pp: *mut *mut c_void, bytesize: c_uint) => unversioned::mem_alloc_host;
    cuMemHostGetDevicePointer "cuMemHostGetDevicePointer" 2020 abi(none) (pdptr: *mut unversioned::DevPtr32, p: *mut c_void, flags: c_uint) => unversioned::mem_host_get_device_pointer;
    cuModuleGetGlobal "cuModuleGetGlobal" 2000 abi(none) (dptr: *mut unversioned::DevPtr32, bytes: *mut c_uint, module: CUmodule, name: *const c_char) => unversioned::module_get_global;
    cuMemcpyHtoD "cuMemcpyHtoD" 2000 abi(none) (dst: unversioned::DevPtr32, src: *const c_void, n: c_uint) => unversioned::memcpy_htod;
    cuMemcpyDtoH "cuMemcpyDtoH" 2000 abi(none) (dst: *mut c_void, src: unversioned::DevPtr32, n: c_uint) => unversioned::memcpy_dtoh;
    cuMemcpyDtoD "cuMemcpyDtoD" 2000 abi(none) (dst: unversioned::DevPtr32, src: unversioned::DevPtr32, n: c_uint) => unversioned::memcpy_dtod;
    cuMemcpyHtoDAsync "cuMemcpyHtoDAsync" 2000 abi(none) (dst: unversioned::DevPtr32, src: *const c_void, n: c_uint, stream: CUstream) => unversioned::memcpy_htod_async;
    cuMemcpyDtoHAsync "cuMemcpyDtoHAsync" 2000 abi(none) (dst: *mut c_void, src: unversioned::DevPtr32, n: c_uint, stream: CUstream) => unversioned::memcpy_dtoh_async;
    cuMemcpyDtoDAsync "cuMemcpyDtoDAsync" 3000 abi(none) (dst: unversioned::DevPtr32, src: unversioned::DevPtr32, n: c_uint, stream: CUstream) => unversioned::memcpy_dtod_async;
    cuMemcpyDtoA "cuMemcpyDtoA" 2000 abi(none) (dst: CUarray, offset: c_uint, src: unversioned::DevPtr32, n: c_uint) => unversioned::memcpy_dtoa;
    cuMemcpyAtoD "cuMemcpyAtoD" 2000 abi(none) (dst: unversioned::DevPtr32, src: CUarray, offset: c_uint, n: c_uint) => unversioned::memcpy_atod;
    cuMemcpyHtoA "cuMemcpyHtoA" 2000 abi(none) (dst: CUarray, offset: c_uint, src: *const c_void, n: c_uint) => unversioned::memcpy_htoa;
    cuMemcpyAtoH "cuMemcpyAtoH" 2000 abi(none) (dst: *mut c_void, src: CUarray, offset: c_uint, n: c_uint) => unversioned::memcpy_atoh;
    cuMemcpyAtoA "cuMemcpyAtoA" 2000 abi(none) (dst: CUarray, dst_offset: c_uint, src: CUarray, src_offset: c_uint, n: c_uint) => unversioned::memcpy_atoa;
    cuMemcpyHtoAAsync "cuMemcpyHtoAAsync" 2000 abi(none) (dst: CUarray, offset: c_uint, src: *const c_void, n: c_uint, stream: CUstream) => unversioned::memcpy_htoa_async;
    cuMemcpyAtoHAsync "cuMemcpyAtoHAsync" 2000 abi(none) (dst: *mut c_void, src: CUarray, offset: c_uint, n: c_uint, stream: CUstream) => unversioned::memcpy_atoh_async;
    cuMemcpy2D "cuMemcpy2D" 2000 abi(none) (copy: *const unversioned::Memcpy2DV1) => unversioned::memcpy_2d;
    cuMemcpy2DUnaligned "cuMemcpy2DUnaligned" 2000 abi(none) (copy: *const unversioned::Memcpy2DV1) => unversioned::memcpy_2d;
    cuMemcpy2DAsync "cuMemcpy2DAsync" 2000 abi(none) (copy: *const unversioned::Memcpy2DV1, stream: CUstream) => unversioned::memcpy_2d_async;
    cuMemcpy3D "cuMemcpy3D" 2000 abi(none) (copy: *const unversioned::Memcpy3DV1) => unversioned::memcpy_3d;
    cuMemcpy3DAsync "cuMemcpy3DAsync" 2000 abi(none) (copy: *const unversioned::Memcpy3DV1, stream: CUstream) => unversioned::memcpy_3d_async;
    cuMemsetD8 "cuMemsetD8" 2000 abi(none) (dst: unversioned::DevPtr32, value: c_uchar, n: c_uint) => unversioned::memset_d8;
    cuMemsetD16 "cuMemsetD16" 2000 abi(none) (dst: unversioned::DevPtr32, value: c_ushort, n: c_uint) => unversioned::memset_d16;
    cuMemsetD32 "cuMemsetD32" 2000 abi(none) (dst: unversioned::DevPtr32, value: c_uint, n: c_uint) => unversioned::memset_d32;
    cuMemsetD2D8 "cuMemsetD2D8" 2000 abi(none) (dst: unversioned::DevPtr32, pitch: c_uint, value: c_uchar, width: c_uint, height: c_uint) => unversioned::memset_d2d8;
    cuMemsetD2D16 "cuMemsetD2D16" 2000 abi(none) (dst: unversioned::DevPtr32, pitch: c_uint, value: c_ushort, width: c_uint, height: c_uint) => unversioned::memset_d2d16;
    cuMemsetD2D32 "cuMemsetD2D32" 2000 abi(none) (dst: unversioned::DevPtr32, pitch: c_uint, value: c_uint, width: c_uint, height: c_uint) => unversioned::memset_d2d32;
    cuArrayCreate "cuArrayCreate" 2000 abi(none) (handle: *mut CUarray, desc: *const unversioned::ArrayDescriptorV1) => unversioned::array_create;
    cuArrayGetDescriptor "cuArrayGetDescriptor" 2000 abi(none) (desc: *mut unversioned::ArrayDescriptorV1, array: CUarray) => unversioned::array_get_descriptor;
    cuArray3DCreate "cuArray3DCreate" 2000 abi(none) (handle: *mut CUarray, desc: *const unversioned::Array3DDescriptorV1) => unversioned::array_3d_create;
    cuArray3DGetDescriptor "cuArray3DGetDescriptor" 2000 abi(none) (desc: *mut unversioned::Array3DDescriptorV1, array: CUarray) => unversioned::array_3d_get_descriptor;
    cuGraphAddKernelNode "cuGraphAddKernelNode" 10000 abi(none) (node: *mut CUgraphNode, graph: CUgraph, deps: *const CUgraphNode, n: usize, params: *const CUDA_KERNEL_NODE_PARAMS_v1) => unversioned::graph_add_kernel_node;
    cuGraphKernelNodeGetParams "cuGraphKernelNodeGetParams" 10000 abi(none) (node: CUgraphNode, params: *mut CUDA_KERNEL_NODE_PARAMS_v1) => unversioned::graph_kernel_node_get_params;
    cuGraphKernelNodeSetParams "cuGraphKernelNodeSetParams" 10000 abi(none) (node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS_v1) => unversioned::graph_kernel_node_set_params;
    cuGraphExecKernelNodeSetParams "cuGraphExecKernelNodeSetParams" 10010 abi(none) (exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS_v1) => unversioned::graph_exec_kernel_node_set_params;
    cuGraphExecUpdate "cuGraphExecUpdate" 10020 abi(none) (exec: CUgraphExec, graph: CUgraph, error_node: *mut CUgraphNode, result: *mut CUgraphExecUpdateResult) => unversioned::graph_exec_update;
    // Texture references before CUDA 3.2 (32-bit offsets, sizes and pointers), and
    // cuTexRefSetAddress2D_v2, whose parameters are those of _v3 (cuda.h's internal
    // declaration; it documents no difference in behaviour).
    cuTexRefSetAddress "cuTexRefSetAddress" 2000 abi(none) (offset: *mut c_uint, texref: CUtexref, dptr: unversioned::DevPtr32, bytes: c_uint) => unversioned::tex_ref_set_address;
    cuTexRefGetAddress "cuTexRefGetAddress" 2000 abi(none) (dptr: *mut unversioned::DevPtr32, texref: CUtexref) => unversioned::tex_ref_get_address;
    cuTexRefSetAddress2D "cuTexRefSetAddress2D" 2020 abi(none) (texref: CUtexref, desc: *const unversioned::ArrayDescriptorV1, dptr: unversioned::DevPtr32, pitch: c_uint) => unversioned::tex_ref_set_address_2d;
    cuTexRefSetAddress2D_v2 "cuTexRefSetAddress2D" 3020 abi(none) (texref: CUtexref, desc: *const CUDA_ARRAY_DESCRIPTOR, dptr: CUdeviceptr, pitch: usize) => memory::texref::set_address_2d;
}

not_supported! {
    cuCheckpointOperationComplete "cuCheckpointOperationComplete" 13040;
    cuCheckpointProcessCheckpoint "cuCheckpointProcessCheckpoint" 12080;
    cuCheckpointProcessGetRestoreThreadId "cuCheckpointProcessGetRestoreThreadId" 12080;
    cuCheckpointProcessGetState "cuCheckpointProcessGetState" 12080;
    cuCheckpointProcessLock "cuCheckpointProcessLock" 12080;
    cuCheckpointProcessRestore "cuCheckpointProcessRestore" 12080;
    cuCheckpointProcessUnlock "cuCheckpointProcessUnlock" 12080;
    cuCoredumpDeregisterCompleteCallback "cuCoredumpDeregisterCompleteCallback" 13020;
    cuCoredumpDeregisterStartCallback "cuCoredumpDeregisterStartCallback" 13020;
    cuCoredumpGetAttribute "cuCoredumpGetAttribute" 12010;
    cuCoredumpGetAttributeGlobal "cuCoredumpGetAttributeGlobal" 12010;
    cuCoredumpRegisterCompleteCallback "cuCoredumpRegisterCompleteCallback" 13020;
    cuCoredumpRegisterStartCallback "cuCoredumpRegisterStartCallback" 13020;
    cuCoredumpSetAttribute "cuCoredumpSetAttribute" 12010;
    cuCoredumpSetAttributeGlobal "cuCoredumpSetAttributeGlobal" 12010;
    cuCtxAttach "cuCtxAttach" 2000;
    cuCtxDetach "cuCtxDetach" 2000;
    cuCtxFromGreenCtx "cuCtxFromGreenCtx" 12040;
    cuCtxGetDevResource "cuCtxGetDevResource" 12040;
    cuDestroyExternalMemory "cuDestroyExternalMemory" 10000;
    cuDestroyExternalSemaphore "cuDestroyExternalSemaphore" 10000;
    cuDeviceGetCliqueCount "cuDeviceGetCliqueCount" 13040;
    cuDeviceGetCliqueInfo "cuDeviceGetCliqueInfo" 13040;
    cuDeviceGetDevResource "cuDeviceGetDevResource" 12040;
    cuDeviceGetExecAffinitySupport "cuDeviceGetExecAffinitySupport" 11040;
    cuDeviceGetFabricClusterUuid "cuDeviceGetFabricClusterUuid" 13040;
    cuDeviceGetHostAtomicCapabilities "cuDeviceGetHostAtomicCapabilities" 13000;
    cuDeviceGetLuid "cuDeviceGetLuid" 10000;
    cuDeviceGetNvSciSyncAttributes "cuDeviceGetNvSciSyncAttributes" 10020;
    cuDeviceGetP2PAtomicCapabilities "cuDeviceGetP2PAtomicCapabilities" 13000;
    cuDeviceRegisterAsyncNotification "cuDeviceRegisterAsyncNotification" 12040;
    cuDeviceUnregisterAsyncNotification "cuDeviceUnregisterAsyncNotification" 12040;
    cuDevResourceGenerateDesc "cuDevResourceGenerateDesc" 12040;
    cuDevSmResourceSplit "cuDevSmResourceSplit" 13010;
    cuDevSmResourceSplitByCount "cuDevSmResourceSplitByCount" 12040;
    cuEGLStreamConsumerAcquireFrame "cuEGLStreamConsumerAcquireFrame" 7000;
    cuEGLStreamConsumerConnect "cuEGLStreamConsumerConnect" 7000;
    cuEGLStreamConsumerConnectWithFlags "cuEGLStreamConsumerConnectWithFlags" 8000;
    cuEGLStreamConsumerDisconnect "cuEGLStreamConsumerDisconnect" 7000;
    cuEGLStreamConsumerReleaseFrame "cuEGLStreamConsumerReleaseFrame" 7000;
    cuEGLStreamProducerConnect "cuEGLStreamProducerConnect" 7000;
    cuEGLStreamProducerDisconnect "cuEGLStreamProducerDisconnect" 7000;
    cuEGLStreamProducerPresentFrame "cuEGLStreamProducerPresentFrame" 7000;
    cuEGLStreamProducerReturnFrame "cuEGLStreamProducerReturnFrame" 7000;
    cuExternalMemoryGetMappedBuffer "cuExternalMemoryGetMappedBuffer" 10000;
    cuExternalMemoryGetMappedMipmappedArray "cuExternalMemoryGetMappedMipmappedArray" 10000;
    cuFabricCpyBatchAsync "cuFabricCpyBatchAsync" 13050;
    cuFabricCpyBatchAsync_ptsz "cuFabricCpyBatchAsync" 13050;
    cuGLCtxCreate_v2 "cuGLCtxCreate" 3020;
    cuGLGetDevices "cuGLGetDevices" 4010;
    cuGLInit "cuGLInit" 2000;
    cuGLMapBufferObject_v2 "cuGLMapBufferObject" 3020;
    cuGLMapBufferObject_v2_ptds "cuGLMapBufferObject" 7000;
    cuGLMapBufferObjectAsync_v2 "cuGLMapBufferObjectAsync" 3020;
    cuGLMapBufferObjectAsync_v2_ptsz "cuGLMapBufferObjectAsync" 7000;
    cuGLRegisterBufferObject "cuGLRegisterBufferObject" 2000;
    cuGLSetBufferObjectMapFlags "cuGLSetBufferObjectMapFlags" 2030;
    cuGLUnmapBufferObject "cuGLUnmapBufferObject" 2000;
    cuGLUnmapBufferObjectAsync "cuGLUnmapBufferObjectAsync" 2030;
    cuGLUnregisterBufferObject "cuGLUnregisterBufferObject" 2000;
    cuGraphAddBatchMemOpNode "cuGraphAddBatchMemOpNode" 11070;
    cuGraphAddExternalSemaphoresSignalNode "cuGraphAddExternalSemaphoresSignalNode" 11020;
    cuGraphAddExternalSemaphoresWaitNode "cuGraphAddExternalSemaphoresWaitNode" 11020;
    cuGraphBatchMemOpNodeGetParams "cuGraphBatchMemOpNodeGetParams" 11070;
    cuGraphBatchMemOpNodeSetParams "cuGraphBatchMemOpNodeSetParams" 11070;
    cuGraphExecBatchMemOpNodeSetParams "cuGraphExecBatchMemOpNodeSetParams" 11070;
    cuGraphExecExternalSemaphoresSignalNodeSetParams "cuGraphExecExternalSemaphoresSignalNodeSetParams" 11020;
    cuGraphExecExternalSemaphoresWaitNodeSetParams "cuGraphExecExternalSemaphoresWaitNodeSetParams" 11020;
    cuGraphExternalSemaphoresSignalNodeGetParams "cuGraphExternalSemaphoresSignalNodeGetParams" 11020;
    cuGraphExternalSemaphoresSignalNodeSetParams "cuGraphExternalSemaphoresSignalNodeSetParams" 11020;
    cuGraphExternalSemaphoresWaitNodeGetParams "cuGraphExternalSemaphoresWaitNodeGetParams" 11020;
    cuGraphExternalSemaphoresWaitNodeSetParams "cuGraphExternalSemaphoresWaitNodeSetParams" 11020;
    cuGraphicsEGLRegisterImage "cuGraphicsEGLRegisterImage" 7000;
    cuGraphicsGLRegisterBuffer "cuGraphicsGLRegisterBuffer" 3000;
    cuGraphicsGLRegisterImage "cuGraphicsGLRegisterImage" 3000;
    cuGraphicsMapResources "cuGraphicsMapResources" 3000;
    cuGraphicsMapResources_ptsz "cuGraphicsMapResources" 7000;
    cuGraphicsResourceGetMappedEglFrame "cuGraphicsResourceGetMappedEglFrame" 7000;
    cuGraphicsResourceGetMappedMipmappedArray "cuGraphicsResourceGetMappedMipmappedArray" 5000;
    cuGraphicsResourceGetMappedPointer_v2 "cuGraphicsResourceGetMappedPointer" 3020;
    cuGraphicsResourceSetMapFlags_v2 "cuGraphicsResourceSetMapFlags" 6050;
    cuGraphicsSubResourceGetMappedArray "cuGraphicsSubResourceGetMappedArray" 3000;
    cuGraphicsUnmapResources "cuGraphicsUnmapResources" 3000;
    cuGraphicsUnmapResources_ptsz "cuGraphicsUnmapResources" 7000;
    cuGraphicsUnregisterResource "cuGraphicsUnregisterResource" 3000;
    cuGraphicsVDPAURegisterOutputSurface "cuGraphicsVDPAURegisterOutputSurface" 3010;
    cuGraphicsVDPAURegisterVideoSurface "cuGraphicsVDPAURegisterVideoSurface" 3010;
    cuGraphNodeGetToolsId "cuGraphNodeGetToolsId" 13010;
    cuGreenCtxCreate "cuGreenCtxCreate" 12040;
    cuGreenCtxDestroy "cuGreenCtxDestroy" 12040;
    cuGreenCtxGetDevResource "cuGreenCtxGetDevResource" 12040;
    cuGreenCtxGetId "cuGreenCtxGetId" 12090;
    cuGreenCtxRecordEvent "cuGreenCtxRecordEvent" 12040;
    cuGreenCtxStreamCreate "cuGreenCtxStreamCreate" 12050;
    cuGreenCtxWaitEvent "cuGreenCtxWaitEvent" 12040;
    cuImportExternalMemory "cuImportExternalMemory" 10000;
    cuImportExternalSemaphore "cuImportExternalSemaphore" 10000;
    cuLogicalEndpointAddDevice "cuLogicalEndpointAddDevice" 13030;
    cuLogicalEndpointBindAddr "cuLogicalEndpointBindAddr" 13030;
    cuLogicalEndpointBindMem "cuLogicalEndpointBindMem" 13030;
    cuLogicalEndpointCreate "cuLogicalEndpointCreate" 13030;
    cuLogicalEndpointDestroy "cuLogicalEndpointDestroy" 13030;
    cuLogicalEndpointExport "cuLogicalEndpointExport" 13030;
    cuLogicalEndpointGetLimits "cuLogicalEndpointGetLimits" 13030;
    cuLogicalEndpointIdRelease "cuLogicalEndpointIdRelease" 13030;
    cuLogicalEndpointIdReserve "cuLogicalEndpointIdReserve" 13030;
    cuLogicalEndpointImport "cuLogicalEndpointImport" 13030;
    cuLogicalEndpointQuery "cuLogicalEndpointQuery" 13030;
    cuLogicalEndpointUnbind "cuLogicalEndpointUnbind" 13030;
    cuLogsCurrent "cuLogsCurrent" 12090;
    cuLogsDumpToFile "cuLogsDumpToFile" 12090;
    cuLogsDumpToMemory "cuLogsDumpToMemory" 12090;
    cuLogsRegisterCallback "cuLogsRegisterCallback" 12090;
    cuLogsUnregisterCallback "cuLogsUnregisterCallback" 12090;
    cuMemBatchDecompressAsync "cuMemBatchDecompressAsync" 12060;
    cuMemBatchDecompressAsync_ptsz "cuMemBatchDecompressAsync" 12060;
    cuMemGetHandleForAddressRange "cuMemGetHandleForAddressRange" 11070;
    cuMemGetLocationInfo "cuMemGetLocationInfo" 13040;
    cuMemMapArrayAsync "cuMemMapArrayAsync" 11010;
    cuMemMapArrayAsync_ptsz "cuMemMapArrayAsync" 11010;
    cuMulticastAddDevice "cuMulticastAddDevice" 12010;
    cuMulticastBindAddr "cuMulticastBindAddr" 12010;
    cuMulticastBindAddr_v2 "cuMulticastBindAddr" 13010;
    cuMulticastBindMem "cuMulticastBindMem" 12010;
    cuMulticastBindMem_v2 "cuMulticastBindMem" 13010;
    cuMulticastCreate "cuMulticastCreate" 12010;
    cuMulticastGetGranularity "cuMulticastGetGranularity" 12010;
    cuMulticastUnbind "cuMulticastUnbind" 12010;
    cuSignalExternalSemaphoresAsync "cuSignalExternalSemaphoresAsync" 10000;
    cuSignalExternalSemaphoresAsync_ptsz "cuSignalExternalSemaphoresAsync" 10000;
    cuStreamAttachMemAsync "cuStreamAttachMemAsync" 6000;
    cuStreamAttachMemAsync_ptsz "cuStreamAttachMemAsync" 7000;
    cuStreamBeginCaptureToCig "cuStreamBeginCaptureToCig" 13010;
    cuStreamBeginCaptureToCig_ptsz "cuStreamBeginCaptureToCig" 13010;
    cuStreamBeginRecaptureToGraph "cuStreamBeginRecaptureToGraph" 13030;
    cuStreamBeginRecaptureToGraph_ptsz "cuStreamBeginRecaptureToGraph" 13030;
    cuStreamEndCaptureToCig "cuStreamEndCaptureToCig" 13010;
    cuStreamEndCaptureToCig_ptsz "cuStreamEndCaptureToCig" 13010;
    cuStreamGetDevResource "cuStreamGetDevResource" 13010;
    cuStreamGetDevResource_ptsz "cuStreamGetDevResource" 13010;
    cuStreamGetGreenCtx "cuStreamGetGreenCtx" 12040;
    cuSubgridCreate "cuSubgridCreate" 13030;
    cuSubgridWorkerGridCreate "cuSubgridWorkerGridCreate" 13030;
    cuSubgridWorksetCreate "cuSubgridWorksetCreate" 13030;
    cuTensorMapSetAllocationClass "cuTensorMapSetAllocationClass" 13050;
    cuVDPAUCtxCreate_v2 "cuVDPAUCtxCreate" 3020;
    cuVDPAUGetDevice "cuVDPAUGetDevice" 3010;
    cuWaitExternalSemaphoresAsync "cuWaitExternalSemaphoresAsync" 10000;
    cuWaitExternalSemaphoresAsync_ptsz "cuWaitExternalSemaphoresAsync" 10000;
    // Unversioned legacy names the real libcuda.so.1 exports whose current versions are not
    // supported either: OpenGL/VDPAU/EGL interop, graphics resources.
    // `cuMemGetAttribute`/`_v2` is exported by the driver but declared in no public header.
    cuEGLApiInit "cuEGLApiInit" 7000;
    cuGLCtxCreate "cuGLCtxCreate" 2000;
    cuGLGetDevices_v2 "cuGLGetDevices" 6050;
    cuGLMapBufferObject "cuGLMapBufferObject" 2000;
    cuGLMapBufferObjectAsync "cuGLMapBufferObjectAsync" 2030;
    cuGraphicsResourceGetMappedPointer "cuGraphicsResourceGetMappedPointer" 3000;
    cuGraphicsResourceSetMapFlags "cuGraphicsResourceSetMapFlags" 3000;
    cuMemGetAttribute "cuMemGetAttribute" 3000;
    cuMemGetAttribute_v2 "cuMemGetAttribute" 3020;
    cuVDPAUCtxCreate "cuVDPAUCtxCreate" 3010;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exports::proc_address::{lookup_in, Lookup};

    /// The names `abi/src/functions.rs` (bindgen of the pinned cuda.h) declares.
    fn declared() -> Vec<&'static str> {
        let text = include_str!("../../abi/src/functions.rs");
        text.split("pub fn ")
            .skip(1)
            .map(|rest| &rest[..rest.find('(').unwrap()])
            .collect()
    }

    #[test]
    fn every_declared_function_is_exported_and_resolvable() {
        let names: std::collections::HashSet<_> = table().iter().map(|e| e.symbol).collect();
        let declared = declared();
        assert!(declared.len() > 400, "{}", declared.len());
        for f in declared {
            assert!(
                names.contains(f),
                "{f} is declared in cuda.h but not exported"
            );
            let e = table().iter().find(|e| e.symbol == f).unwrap();
            // Asking for its own introduction version (per-thread when it is such a variant)
            // must give a variant of the same function.
            let flags = if e.per_thread { 2 } else { 0 };
            match lookup_in(table(), e.base, e.version as i32, flags) {
                Lookup::Found(found) => assert_eq!(found.base, e.base, "{f}"),
                other => panic!("{f}: {other:?}"),
            }
        }
    }

    #[test]
    fn every_symbol_is_exported_once() {
        let mut seen = std::collections::HashSet::new();
        for e in table() {
            assert!(seen.insert(e.symbol), "{} twice", e.symbol);
            assert!(
                e.symbol.starts_with(e.base),
                "{} is not a variant of {}",
                e.symbol,
                e.base
            );
        }
    }

    #[test]
    fn real_table_answers_every_cudart_lookup() {
        // Every lookup cudart 13.5 and 12.9 were observed to make (shared/reference, copied
        // into testdata/ so the test runs on any checkout).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
        let t13 = read("cudart13.5-getprocaddress.tsv");
        let t12 = read("cudart12.9-getprocaddress.tsv");
        for (tsv, has_abi) in [(t13.as_str(), true), (t12.as_str(), false)] {
            for line in tsv.lines().skip(1) {
                let f: Vec<&str> = line.split('\t').collect();
                if f[1] == "(empty string)" {
                    continue;
                }
                let flags = u64::from_str_radix(f[3].trim_start_matches("0x"), 16).unwrap();
                let v: i32 = f[2].parse().unwrap();
                match lookup_in(table(), f[1], v, flags) {
                    Lookup::Found(e) => {
                        if has_abi {
                            assert_eq!(e.symbol, f[4], "{line}");
                        }
                    }
                    other => panic!("{line}: {other:?}"),
                }
            }
        }
    }
}
