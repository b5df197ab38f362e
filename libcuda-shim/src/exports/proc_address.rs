//! `cuGetProcAddress(_v2)`: maps (name, CUDA version, flags) to the ABI variant with the highest
//! introduction version <= the requested one; `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`
//! prefers the `_ptds`/`_ptsz` variant where one exists.

use crate::errors::{CuResult, INVALID_VALUE, NOT_FOUND};
use crate::trace::trace;
use abi::*;
use std::ffi::{c_char, c_int, c_void, CStr};

const PER_THREAD_DEFAULT_STREAM: u64 = 2;

/// One exported driver symbol, as the support table and `cuGetProcAddress` see it.
#[derive(Clone, Copy, Debug)]
pub struct EntryPoint {
    /// The ABI symbol (`cuMemAlloc_v2`, `cuMemcpyHtoD_v2_ptds`).
    pub symbol: &'static str,
    /// The name `cuGetProcAddress` is asked for (`cuMemAlloc`).
    pub base: &'static str,
    /// The CUDA version that introduced this variant (`cuMemAlloc_v2`: 3020).
    pub version: u32,
    /// The per-thread-default-stream variant (`_ptds`/`_ptsz`).
    pub per_thread: bool,
    /// False for the entries that only return `CUDA_ERROR_NOT_SUPPORTED`.
    pub implemented: bool,
    /// The function's address.
    pub(crate) address: fn() -> usize,
}

impl EntryPoint {
    pub fn address(&self) -> *mut c_void {
        (self.address)() as *mut c_void
    }
}

#[derive(Debug)]
pub enum Lookup {
    Found(&'static EntryPoint),
    NotFound,
    VersionNotSufficient,
}

/// The pure lookup over a table (tests pass their own).
pub fn lookup_in(table: &'static [EntryPoint], name: &str, version: i32, flags: u64) -> Lookup {
    let mut any = false;
    let mut best: [Option<&'static EntryPoint>; 2] = [None, None];
    for e in table.iter().filter(|e| e.base == name) {
        any = true;
        if e.version as i64 <= version as i64 {
            let slot = &mut best[usize::from(e.per_thread)];
            if slot.is_none_or(|b| e.version > b.version) {
                *slot = Some(e);
            }
        }
    }
    let pick = if flags & PER_THREAD_DEFAULT_STREAM != 0 {
        best[1].or(best[0])
    } else {
        best[0]
    };
    match (pick, any) {
        (Some(e), _) => Lookup::Found(e),
        (None, true) => Lookup::VersionNotSufficient,
        (None, false) => Lookup::NotFound,
    }
}

unsafe fn resolve(
    table: &'static [EntryPoint],
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
) -> CuResult<CUdriverProcAddressQueryResult> {
    if symbol.is_null() || pfn.is_null() || flags > 2 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the API takes a NUL-terminated name.
    let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy();
    let found = lookup_in(table, &name, version, flags);
    let (ptr, status) = match found {
        Lookup::Found(e) => {
            trace!(
                "  lookup {name:?} v{version} flags {flags} -> {}{}",
                e.symbol,
                if e.implemented {
                    ""
                } else {
                    " (not implemented)"
                }
            );
            (
                e.address(),
                CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS,
            )
        }
        Lookup::NotFound => {
            trace!("  lookup {name:?} v{version} flags {flags} -> not found");
            (
                std::ptr::null_mut(),
                CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
            )
        }
        Lookup::VersionNotSufficient => {
            trace!("  lookup {name:?} v{version} flags {flags} -> version not sufficient");
            (
                std::ptr::null_mut(),
                CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
            )
        }
    };
    // SAFETY: checked non-null.
    unsafe { *pfn = ptr };
    Ok(status)
}

/// `cuGetProcAddress` over `table` (the export table hands in its own).
pub(crate) unsafe fn get_proc_address(
    table: &'static [EntryPoint],
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
) -> CuResult {
    // SAFETY: forwarded contract.
    let status = unsafe { resolve(table, symbol, pfn, version, flags) }?;
    if status == CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS {
        Ok(())
    } else {
        Err(NOT_FOUND)
    }
}

pub(crate) unsafe fn get_proc_address_v2(
    table: &'static [EntryPoint],
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: u64,
    status: *mut CUdriverProcAddressQueryResult,
) -> CuResult {
    // SAFETY: forwarded contract.
    let s = unsafe { resolve(table, symbol, pfn, version, flags) }?;
    if !status.is_null() {
        // SAFETY: checked non-null (the status pointer is optional).
        unsafe { *status = s };
        // With a status to say why, a symbol that is not there is still a successful query:
        // measured on an H100 (driver 580.159), an unknown name gives CUDA_SUCCESS, a NULL
        // function and CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND.
        return Ok(());
    }
    // Without one (not measured on hardware), the result itself says it.
    if s == CUdriverProcAddressQueryResult::CU_GET_PROC_ADDRESS_SUCCESS {
        Ok(())
    } else {
        Err(NOT_FOUND)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(symbol: &'static str, base: &'static str, version: u32, per_thread: bool) -> EntryPoint {
        EntryPoint {
            symbol,
            base,
            version,
            per_thread,
            implemented: true,
            address: || 0,
        }
    }

    #[test]
    fn picks_highest_version_not_above_request() {
        let t: &'static [EntryPoint] = Box::leak(Box::new([
            e("cuMemcpyHtoD_v2", "cuMemcpyHtoD", 3020, false),
            e("cuMemcpyHtoD_v2_ptds", "cuMemcpyHtoD", 7000, true),
            e("cuCtxSynchronize", "cuCtxSynchronize", 2000, false),
            e("cuCtxSynchronize_v2", "cuCtxSynchronize", 13000, false),
            e("cuNew", "cuNew", 13000, false),
        ]));
        let sym = |l| match l {
            Lookup::Found(e) => e.symbol,
            Lookup::NotFound => "not found",
            Lookup::VersionNotSufficient => "too low",
        };
        assert_eq!(
            sym(lookup_in(t, "cuCtxSynchronize", 12090, 0)),
            "cuCtxSynchronize"
        );
        assert_eq!(
            sym(lookup_in(t, "cuCtxSynchronize", 13000, 0)),
            "cuCtxSynchronize_v2"
        );
        assert_eq!(
            sym(lookup_in(t, "cuMemcpyHtoD", 3020, 0)),
            "cuMemcpyHtoD_v2"
        );
        assert_eq!(
            sym(lookup_in(t, "cuMemcpyHtoD", 7000, 2)),
            "cuMemcpyHtoD_v2_ptds"
        );
        assert_eq!(
            sym(lookup_in(t, "cuMemcpyHtoD", 13050, 0)),
            "cuMemcpyHtoD_v2"
        );
        // A function without a per-thread variant answers the per-thread request too.
        assert_eq!(
            sym(lookup_in(t, "cuCtxSynchronize", 13050, 2)),
            "cuCtxSynchronize_v2"
        );
        assert_eq!(sym(lookup_in(t, "cuNew", 12000, 0)), "too low");
        assert_eq!(sym(lookup_in(t, "", 13050, 0)), "not found");
    }
}
