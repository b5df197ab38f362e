//! Run-time compilers that target SASS. A program that compiles with NVRTC for a real
//! architecture (`-arch=sm_90`) and asks for the cubin (`nvrtcGetCUBINSize`/`nvrtcGetCUBIN`)
//! would hand the shim an ELF with SASS only, which it cannot run. When the shim is preloaded,
//! these exports come first in the process's global scope, so a program linked with libnvrtc
//! calls them: each calls NVRTC's own function (found with `dlsym(RTLD_NEXT)`), and where NVRTC
//! has a cubin it returns instead a fatbin holding the same program's PTX, which NVRTC keeps
//! after an `sm_XX` compile (`nvrtcGetPTX` answers). `cuModuleLoadData`, `cuLibraryLoadData`
//! and `cuLinkAddData` (as a cubin or a fatbin) load that image; the trace says what was
//! returned. A program compiled for a virtual architecture (`compute_XX`) gets NVRTC's own
//! answers, errors included.
//!
//! Libraries that resolve NVRTC through `dlopen` + `dlsym(handle)` (Python bindings) do not
//! reach these exports; see the README (run-time compilers) for what they do instead.

use crate::{fatbin, trace};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// `nvrtcResult` values used here.
const NVRTC_SUCCESS: c_int = 0;
const NVRTC_ERROR_INTERNAL_ERROR: c_int = 11;

type GetSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type Get = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;

/// NVRTC's own function `name`: the next definition after this library in the lookup order.
fn next_symbol(name: &CStr, slot: &'static OnceLock<usize>) -> Option<usize> {
    let p = *slot.get_or_init(|| {
        // SAFETY: dlsym with a NUL-terminated name; RTLD_NEXT searches the objects after this one.
        unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) as usize }
    });
    (p != 0).then_some(p)
}

macro_rules! nvrtc_fn {
    ($name:literal, $ty:ty) => {{
        static SLOT: OnceLock<usize> = OnceLock::new();
        next_symbol($name, &SLOT).map(|p| {
            // SAFETY: NVRTC's exported function of this name has this signature (nvrtc.h).
            unsafe { std::mem::transmute::<usize, $ty>(p) }
        })
    }};
}

/// The image handed out for a program NVRTC compiled to a cubin: a fatbin with its PTX, or
/// `None` when NVRTC has no PTX for it (the cubin is returned then, and fails to load with
/// the shim's message).
unsafe fn ptx_image(prog: *mut c_void, caller: &str) -> Option<Vec<u8>> {
    let size_fn = nvrtc_fn!(c"nvrtcGetPTXSize", GetSize)?;
    let get_fn = nvrtc_fn!(c"nvrtcGetPTX", Get)?;
    let mut n = 0usize;
    // SAFETY: NVRTC's own functions on the caller's program handle.
    let rc = unsafe { size_fn(prog, &mut n) };
    if rc != NVRTC_SUCCESS || n == 0 {
        trace::trace!(
            "{caller}: NVRTC keeps no PTX for this program (nvrtcGetPTXSize: {rc}); \
             returning NVRTC's SASS cubin, which libcuda-shim cannot load"
        );
        return None;
    }
    let mut text = vec![0u8; n];
    // SAFETY: `text` holds the n bytes NVRTC asked for.
    let rc = unsafe { get_fn(prog, text.as_mut_ptr() as *mut c_char) };
    if rc != NVRTC_SUCCESS {
        return None;
    }
    let len = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    let text = String::from_utf8_lossy(&text[..len]);
    let image = fatbin::ptx_only(&text);
    trace::trace!(
        "{caller}: the program was compiled for a real architecture (SASS); returning a \
         {}-byte fatbin with its PTX instead of the cubin (libcuda-shim runs PTX)",
        image.len()
    );
    Some(image)
}

/// Runs an export's body; a panic becomes NVRTC_ERROR_INTERNAL_ERROR (never unwinds into C).
fn guarded(body: impl FnOnce() -> c_int) -> c_int {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
        .unwrap_or(NVRTC_ERROR_INTERNAL_ERROR)
}

/// # Safety
/// NVRTC's contract: `prog` a program handle, `size` writable.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBINSize(prog: *mut c_void, size: *mut usize) -> c_int {
    guarded(|| {
        let Some(real) = nvrtc_fn!(c"nvrtcGetCUBINSize", GetSize) else {
            trace::warn("nvrtcGetCUBINSize called, but no NVRTC library is loaded");
            return NVRTC_ERROR_INTERNAL_ERROR;
        };
        // NVRTC answers first: a bad handle or NULL pointer keeps its error, and a program
        // compiled for a virtual architecture its size 0 (NVRTC 13.5: success, no cubin).
        // SAFETY: forwarded contract.
        let rc = unsafe { real(prog, size) };
        // SAFETY: NVRTC accepted `size` as writable when it succeeded.
        if rc != NVRTC_SUCCESS || unsafe { *size } == 0 {
            return rc;
        }
        // SAFETY: forwarded contract.
        if let Some(image) = unsafe { ptx_image(prog, "nvrtcGetCUBINSize") } {
            // SAFETY: NVRTC accepted `size` as writable.
            unsafe { *size = image.len() };
        }
        NVRTC_SUCCESS
    })
}

/// # Safety
/// NVRTC's contract: `prog` a program handle, `cubin` as large as `nvrtcGetCUBINSize` said.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBIN(prog: *mut c_void, cubin: *mut c_char) -> c_int {
    guarded(|| {
        let (Some(real_size), Some(real)) = (
            nvrtc_fn!(c"nvrtcGetCUBINSize", GetSize),
            nvrtc_fn!(c"nvrtcGetCUBIN", Get),
        ) else {
            trace::warn("nvrtcGetCUBIN called, but no NVRTC library is loaded");
            return NVRTC_ERROR_INTERNAL_ERROR;
        };
        let mut n = 0usize;
        // SAFETY: NVRTC's own function on the caller's handle.
        if unsafe { real_size(prog, &mut n) } != NVRTC_SUCCESS || n == 0 || cubin.is_null() {
            // NVRTC's own answer for a program without a cubin or a NULL buffer.
            // SAFETY: forwarded contract.
            return unsafe { real(prog, cubin) };
        }
        // SAFETY: forwarded contract.
        match unsafe { ptx_image(prog, "nvrtcGetCUBIN") } {
            Some(image) => {
                // SAFETY: the caller sized `cubin` by nvrtcGetCUBINSize, which gave this length.
                unsafe {
                    std::ptr::copy_nonoverlapping(image.as_ptr(), cubin as *mut u8, image.len())
                };
                NVRTC_SUCCESS
            }
            // SAFETY: forwarded contract.
            None => unsafe { real(prog, cubin) },
        }
    })
}
