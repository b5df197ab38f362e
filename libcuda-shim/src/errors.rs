//! Error codes: the crate-wide result type and `cuGetErrorName`/`cuGetErrorString` data.

use abi::CUresult;

/// What an entry point's body returns; mapped to a `CUresult` once, at the C boundary.
pub type CuResult<T = ()> = Result<T, CUresult>;

/// Shorthand for the codes used everywhere.
pub const INVALID_VALUE: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;
pub const INVALID_HANDLE: CUresult = CUresult::CUDA_ERROR_INVALID_HANDLE;
pub const INVALID_CONTEXT: CUresult = CUresult::CUDA_ERROR_INVALID_CONTEXT;
pub const INVALID_DEVICE: CUresult = CUresult::CUDA_ERROR_INVALID_DEVICE;
pub const NOT_SUPPORTED: CUresult = CUresult::CUDA_ERROR_NOT_SUPPORTED;
pub const NOT_FOUND: CUresult = CUresult::CUDA_ERROR_NOT_FOUND;

/// Every `CUresult` of the pinned `cuda.h`: (code, name, description). The descriptions of the
/// common codes are the real driver's strings (programs print them); the others are the first
/// sentence of the header's documentation.
pub static ERRORS: &[(CUresult, &str, &str)] = &[
    (CUresult::CUDA_SUCCESS, "CUDA_SUCCESS", "no error"),
    (CUresult::CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"),
    (CUresult::CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
    (CUresult::CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
    (CUresult::CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"),
    (CUresult::CUDA_ERROR_PROFILER_DISABLED, "CUDA_ERROR_PROFILER_DISABLED", "profiler disabled while using external profiling tool"),
    (CUresult::CUDA_ERROR_PROFILER_NOT_INITIALIZED, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", "\\deprecated This error return is deprecated as of CUDA 5.0"),
    (CUresult::CUDA_ERROR_PROFILER_ALREADY_STARTED, "CUDA_ERROR_PROFILER_ALREADY_STARTED", "\\deprecated This error return is deprecated as of CUDA 5.0"),
    (CUresult::CUDA_ERROR_PROFILER_ALREADY_STOPPED, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", "\\deprecated This error return is deprecated as of CUDA 5.0"),
    (CUresult::CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "the CUDA driver that the application has loaded is a stub library"),
    (CUresult::CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "the API call requires a newer CUDA driver than the one currently installed"),
    (CUresult::CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE", "requested CUDA device is unavailable at the current time"),
    (CUresult::CUDA_ERROR_MULTICAST_RESOURCE_FULL, "CUDA_ERROR_MULTICAST_RESOURCE_FULL", "The API call failed because of a hardware resource required to bind memory to a multicast object is unavailable"),
    (CUresult::CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"),
    (CUresult::CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"),
    (CUresult::CUDA_ERROR_DEVICE_NOT_LICENSED, "CUDA_ERROR_DEVICE_NOT_LICENSED", "This error indicates that the Grid license is not applied"),
    (CUresult::CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"),
    (CUresult::CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"),
    (CUresult::CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "context already current"),
    (CUresult::CUDA_ERROR_MAP_FAILED, "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"),
    (CUresult::CUDA_ERROR_UNMAP_FAILED, "CUDA_ERROR_UNMAP_FAILED", "unmapping of buffer object failed"),
    (CUresult::CUDA_ERROR_ARRAY_IS_MAPPED, "CUDA_ERROR_ARRAY_IS_MAPPED", "array is mapped"),
    (CUresult::CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"),
    (CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"),
    (CUresult::CUDA_ERROR_ALREADY_ACQUIRED, "CUDA_ERROR_ALREADY_ACQUIRED", "resource already acquired"),
    (CUresult::CUDA_ERROR_NOT_MAPPED, "CUDA_ERROR_NOT_MAPPED", "resource not mapped"),
    (CUresult::CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "a mapped resource is not available for access as an array"),
    (CUresult::CUDA_ERROR_NOT_MAPPED_AS_POINTER, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "a mapped resource is not available for access as a pointer"),
    (CUresult::CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"),
    (CUresult::CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture"),
    (CUresult::CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "the ::CUcontext passed to the API call can only be bound to a single CPU thread at a time but is already bound to a CPU thread"),
    (CUresult::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"),
    (CUresult::CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"),
    (CUresult::CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "This indicates an error with OpenGL or DirectX context"),
    (CUresult::CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "an uncorrectable NVLink error was detected during the execution"),
    (CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"),
    (CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."),
    (CUresult::CUDA_ERROR_JIT_COMPILATION_DISABLED, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "the PTX JIT compilation was disabled"),
    (CUresult::CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", "the ::CUexecAffinityType passed to the API call is not supported by the active device"),
    (CUresult::CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", "the code to be compiled by the PTX JIT contains unsupported call to cudaDeviceSynchronize"),
    (CUresult::CUDA_ERROR_CONTAINED, "CUDA_ERROR_CONTAINED", "an exception occurred on the device that is now contained by the GPU's error containment capability"),
    (CUresult::CUDA_ERROR_INSUFFICIENT_LOADER_VERSION, "CUDA_ERROR_INSUFFICIENT_LOADER_VERSION", "the Loader version is insufficient for fatbin"),
    (CUresult::CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"),
    (CUresult::CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"),
    (CUresult::CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "shared object symbol not found"),
    (CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed"),
    (CUresult::CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS"),
    (CUresult::CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"),
    (CUresult::CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"),
    (CUresult::CUDA_ERROR_LOSSY_QUERY, "CUDA_ERROR_LOSSY_QUERY", "This indicates an attempt was made to introspect an object in a way that would discard semantically important information"),
    (CUresult::CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"),
    (CUresult::CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"),
    (CUresult::CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"),
    (CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"),
    (CUresult::CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"),
    (CUresult::CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "This error indicates a kernel launch that uses an incompatible texturing mode"),
    (CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"),
    (CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"),
    (CUresult::CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "primary context active"),
    (CUresult::CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"),
    (CUresult::CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"),
    (CUresult::CUDA_ERROR_TOO_MANY_PEERS, "CUDA_ERROR_TOO_MANY_PEERS", "This error indicates that the hardware resources required to enable peer access have been exhausted for one or more of the devices passed to "),
    (CUresult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "This error indicates that the memory range passed to has already been registered"),
    (CUresult::CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "This error indicates that the pointer passed to does not correspond to any currently registered memory region"),
    (CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"),
    (CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"),
    (CUresult::CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"),
    (CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space"),
    (CUresult::CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"),
    (CUresult::CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"),
    (CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"),
    (CUresult::CUDA_ERROR_TENSOR_MEMORY_LEAK, "CUDA_ERROR_TENSOR_MEMORY_LEAK", "An exception occurred on the device while exiting a kernel using tensor memory: the tensor memory was not completely deallocated"),
    (CUresult::CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"),
    (CUresult::CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"),
    (CUresult::CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY", "This error indicates that the system is not yet ready to start any CUDA work"),
    (CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"),
    (CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "This error indicates that the system was upgraded to run with forward compatibility but the visible hardware detected by CUDA does not support this configuration"),
    (CUresult::CUDA_ERROR_MPS_CONNECTION_FAILED, "CUDA_ERROR_MPS_CONNECTION_FAILED", "This error indicates that the MPS client failed to connect to the MPS control daemon or the MPS server"),
    (CUresult::CUDA_ERROR_MPS_RPC_FAILURE, "CUDA_ERROR_MPS_RPC_FAILURE", "This error indicates that the remote procedural call between the MPS server and the MPS client failed"),
    (CUresult::CUDA_ERROR_MPS_SERVER_NOT_READY, "CUDA_ERROR_MPS_SERVER_NOT_READY", "This error indicates that the MPS server is not ready to accept new MPS client requests"),
    (CUresult::CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", "This error indicates that the hardware resources required to create MPS client have been exhausted"),
    (CUresult::CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", "This error indicates the the hardware resources required to support device connections have been exhausted"),
    (CUresult::CUDA_ERROR_MPS_CLIENT_TERMINATED, "CUDA_ERROR_MPS_CLIENT_TERMINATED", "This error indicates that the MPS client has been terminated by the server"),
    (CUresult::CUDA_ERROR_CDP_NOT_SUPPORTED, "CUDA_ERROR_CDP_NOT_SUPPORTED", "This error indicates that the module is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"),
    (CUresult::CUDA_ERROR_CDP_VERSION_MISMATCH, "CUDA_ERROR_CDP_VERSION_MISMATCH", "This error indicates that a module contains an unsupported interaction between different versions of CUDA Dynamic Parallelism"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "This error indicates that the current capture sequence on the stream has been invalidated due to a previous error"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "This error indicates that the operation would have resulted in a merge of two independent capture sequences"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "This error indicates that the capture was not initiated in this stream"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "This error indicates that the capture sequence contains a fork that was not joined to the primary stream"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "This error indicates that a dependency would have been created which crosses the capture sequence boundary"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "This error indicates a disallowed implicit dependency on a current capture sequence from cudaStreamLegacy"),
    (CUresult::CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT", "This error indicates that the operation is not permitted on an event which was last recorded in a capturing stream"),
    (CUresult::CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "A stream capture sequence not initiated with the ::CU_STREAM_CAPTURE_MODE_RELAXED argument to ::cuStreamBeginCapture was passed to ::cuStreamEndCapture in a different thread"),
    (CUresult::CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT", "This error indicates that the timeout specified for the wait operation has lapsed"),
    (CUresult::CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "This error indicates that the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    (CUresult::CUDA_ERROR_EXTERNAL_DEVICE, "CUDA_ERROR_EXTERNAL_DEVICE", "an error has occurred in a device outside of GPU"),
    (CUresult::CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "Indicates a kernel launch error due to cluster misconfiguration"),
    (CUresult::CUDA_ERROR_FUNCTION_NOT_LOADED, "CUDA_ERROR_FUNCTION_NOT_LOADED", "Indiciates a function handle is not loaded when calling an API that requires a loaded function"),
    (CUresult::CUDA_ERROR_INVALID_RESOURCE_TYPE, "CUDA_ERROR_INVALID_RESOURCE_TYPE", "This error indicates one or more resources passed in are not valid resource types for the operation"),
    (CUresult::CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION", "This error indicates one or more resources are insufficient or non-applicable for the operation"),
    (CUresult::CUDA_ERROR_KEY_ROTATION, "CUDA_ERROR_KEY_ROTATION", "This error indicates that an error happened during the key rotation sequence"),
    (CUresult::CUDA_ERROR_STREAM_DETACHED, "CUDA_ERROR_STREAM_DETACHED", "This error indicates that the requested operation is not permitted because the stream is in a detached state"),
    (CUresult::CUDA_ERROR_GRAPH_RECAPTURE_FAILURE, "CUDA_ERROR_GRAPH_RECAPTURE_FAILURE", "This error indicates that a graph recapture failed and had to be terminated"),
    (CUresult::CUDA_ERROR_FABRIC_NOT_READY, "CUDA_ERROR_FABRIC_NOT_READY", "The GPU fabric is not ready within the bounded wait while the fabric manager probe is still in progress (or not converging in time)"),
    (CUresult::CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"),
];

/// `(name, description)` of a code, `None` for a code `cuda.h` does not define.
pub fn describe(code: CUresult) -> Option<(&'static str, &'static str)> {
    ERRORS.iter().find(|e| e.0 == code).map(|e| (e.1, e.2))
}

/// The name, or the number for a code not in the header (used in traces and messages).
pub fn name(code: CUresult) -> String {
    match describe(code) {
        Some((n, _)) => n.to_string(),
        None => format!("CUresult({})", code.0),
    }
}

/// NUL-terminated copies of the names and descriptions, built once, so the pointers handed out
/// by `cuGetErrorName`/`cuGetErrorString` stay valid for the life of the process.
pub fn c_strings(code: CUresult) -> Option<(&'static std::ffi::CStr, &'static std::ffi::CStr)> {
    use once_cell::sync::Lazy;
    use std::ffi::CString;
    static TABLE: Lazy<Vec<(CUresult, CString, CString)>> = Lazy::new(|| {
        ERRORS
            .iter()
            .map(|(c, n, s)| (*c, CString::new(*n).unwrap(), CString::new(*s).unwrap()))
            .collect()
    });
    TABLE
        .iter()
        .find(|e| e.0 == code)
        .map(|e| (e.1.as_c_str(), e.2.as_c_str()))
}

pub(crate) unsafe fn get_error_name(code: CUresult, out: *mut *const std::ffi::c_char) -> CuResult {
    get_error_text(code, out, |(n, _)| n)
}

pub(crate) unsafe fn get_error_string(
    code: CUresult,
    out: *mut *const std::ffi::c_char,
) -> CuResult {
    get_error_text(code, out, |(_, s)| s)
}

unsafe fn get_error_text(
    code: CUresult,
    out: *mut *const std::ffi::c_char,
    pick: fn((&'static std::ffi::CStr, &'static std::ffi::CStr)) -> &'static std::ffi::CStr,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let text = c_strings(code).map(pick);
    // SAFETY: `out` is non-null and, per the API, points to writable storage for a pointer.
    unsafe { *out = text.map_or(std::ptr::null(), |t| t.as_ptr()) };
    text.map(|_| ()).ok_or(INVALID_VALUE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_strings() {
        assert_eq!(
            describe(CUresult::CUDA_SUCCESS),
            Some(("CUDA_SUCCESS", "no error"))
        );
        assert_eq!(
            name(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUDA_ERROR_ILLEGAL_ADDRESS"
        );
        assert_eq!(name(CUresult(12345)), "CUresult(12345)");
        let (n, s) = c_strings(CUresult::CUDA_ERROR_INVALID_VALUE).unwrap();
        assert_eq!(n.to_str().unwrap(), "CUDA_ERROR_INVALID_VALUE");
        assert_eq!(s.to_str().unwrap(), "invalid argument");
        assert!(ERRORS.len() > 100);
        for (c, n, s) in ERRORS {
            assert!(n.starts_with("CUDA_") && !s.is_empty(), "{}", c.0);
        }
    }

    #[test]
    fn every_code_of_the_pinned_header_has_its_name() {
        // abi/src/types.rs is bindgen's rendering of cuda.h's `cudaError_enum`.
        let text = include_str!("../../abi/src/types.rs");
        let mut codes = 0;
        for line in text.lines() {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("pub const ") else {
                continue;
            };
            let Some((name, value)) = rest.split_once(": cudaError_enum = cudaError_enum(") else {
                continue;
            };
            let value: u32 = value.trim_end_matches(");").parse().unwrap();
            codes += 1;
            let (n, s) = describe(CUresult(value)).unwrap_or_else(|| panic!("{name} has no entry"));
            assert_eq!(n, name, "code {value}");
            assert!(!s.is_empty());
            let (cn, cs) = c_strings(CUresult(value)).unwrap();
            assert_eq!((cn.to_str().unwrap(), cs.to_str().unwrap()), (n, s));
        }
        assert_eq!(codes, ERRORS.len(), "the table has codes the header lacks");
    }

    #[test]
    fn error_name_entry_point() {
        let mut p = std::ptr::null();
        // SAFETY: `p` is a valid out-pointer.
        let r = unsafe { get_error_name(CUresult(9999), &mut p) };
        assert_eq!(r, Err(INVALID_VALUE));
        assert!(p.is_null());
        // SAFETY: as above.
        assert_eq!(
            unsafe { get_error_string(CUresult::CUDA_ERROR_NOT_FOUND, &mut p) },
            Ok(())
        );
        assert!(!p.is_null());
    }
}
