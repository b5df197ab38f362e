//! `cuGetExportTable`: the undocumented tables NVIDIA's cudart requests (see
//! `shared/reference/cudart-contract.md` for what each slot must do). A table is an array of
//! pointers; slot 0 holds its size in bytes except in CONTEXT_LOCAL_STORAGE. Slots whose meaning
//! is unknown point to stubs that trace their call and return CUDA_ERROR_NOT_SUPPORTED.

use crate::config;
use crate::context::CONTEXTS;
use crate::context::{self, ClsDtor};
use crate::errors::{CuResult, INVALID_VALUE};
use crate::trace::{self, trace};
use crate::{cudart::integrity, device};
use abi::*;
use std::ffi::c_void;

/// A static table of pointers.
#[repr(transparent)]
pub struct Table<const N: usize>(pub [*const c_void; N]);
// SAFETY: the tables are immutable and hold only addresses of functions and integers.
unsafe impl<const N: usize> Sync for Table<N> {}

const fn size<const N: usize>() -> *const c_void {
    (N * std::mem::size_of::<usize>()) as *const c_void
}

/// Unknown slots: one stub per (table, slot), so the trace names the slot that was called.
macro_rules! stubs {
    ($($name:ident = $table:literal [$slot:literal];)*) => {
        $(
            unsafe extern "C" fn $name() -> CUresult {
                trace::warn(concat!("cudart called unknown export table slot ", $table, "[", $slot, "]"));
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            }
        )*
    };
}
stubs! {
    req_1 = "REQUIREMENTS" [1];
    ci_1 = "CUDART_INTERFACE" [1];
    ci_3 = "CUDART_INTERFACE" [3];
    ci_4 = "CUDART_INTERFACE" [4];
    ci_5 = "CUDART_INTERFACE" [5];
    ci_6 = "CUDART_INTERFACE" [6];
    ci_7 = "CUDART_INTERFACE" [7];
    ci_8 = "CUDART_INTERFACE" [8];
    ci_9 = "CUDART_INTERFACE" [9];
    ci_10 = "CUDART_INTERFACE" [10];
    ci_11 = "CUDART_INTERFACE" [11];
    ci_13 = "CUDART_INTERFACE" [13];
    hooks_3 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [3];
    hooks_5 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [5];
    hooks_7 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [7];
    tls_1 = "TOOLS_TLS" [1];
    t5_1 = "TABLE_21318c60" [1];
    t5_2 = "TABLE_21318c60" [2];
    checks_1 = "CONTEXT_CHECKS" [1];
    integ_2 = "INTEGRITY_CHECK" [2];
}

// ---- #1 REQUIREMENTS: slot 2 `(int, 0, 0)` returns 0 (cudaFuncGetAttributes calls it).
unsafe extern "C" fn req_2(a: i32, b: *mut c_void, c: *mut c_void) -> CUresult {
    trace!("export REQUIREMENTS[2]({a}, {b:?}, {c:?}) -> 0");
    CUresult::CUDA_SUCCESS
}
static REQUIREMENTS: Table<3> = Table([size::<3>(), req_1 as _, req_2 as _]);

// ---- #2 CUDART_INTERFACE.
/// Slot 2: the device's primary context, not retained; the same handle
/// cuDevicePrimaryCtxRetain returns later.
unsafe extern "C" fn ci_get_primary(out: *mut CUcontext, dev: CUdevice) -> CUresult {
    let r = (|| -> CuResult {
        if out.is_null() {
            return Err(INVALID_VALUE);
        }
        device::check(dev)?;
        // SAFETY: checked non-null.
        unsafe { *out = context::primary().handle() };
        Ok(())
    })();
    let r = r.err().unwrap_or(CUresult::CUDA_SUCCESS);
    trace!(
        "export CUDART_INTERFACE[2](dev={dev}) -> {}",
        crate::errors::name(r)
    );
    r
}
/// Slot 12: called once at init by the shared 13.x cudart.
unsafe extern "C" fn ci_12() -> CUresult {
    trace!("export CUDART_INTERFACE[12]() -> 0");
    CUresult::CUDA_SUCCESS
}
static CUDART_INTERFACE: Table<14> = Table([
    size::<14>(),
    ci_1 as _,
    ci_get_primary as _,
    ci_3 as _,
    ci_4 as _,
    ci_5 as _,
    ci_6 as _,
    ci_7 as _,
    ci_8 as _,
    ci_9 as _,
    ci_10 as _,
    ci_11 as _,
    ci_12 as _,
    ci_13 as _,
]);

// ---- #3 TOOLS_RUNTIME_CALLBACK_HOOKS: slots 2 and 6 hand out zeroed buffers.
fn zeroed_buffer(bytes: usize) -> usize {
    // Leaked once per slot: cudart keeps the pointer for the life of the process.
    Box::leak(vec![0u64; bytes / 8].into_boxed_slice()).as_mut_ptr() as usize
}
unsafe extern "C" fn hooks_2(buf: *mut *mut c_void, size: *mut usize) {
    static BUF: once_cell::sync::Lazy<usize> = once_cell::sync::Lazy::new(|| zeroed_buffer(1024));
    trace!("export TOOLS_RUNTIME_CALLBACK_HOOKS[2]");
    // SAFETY: each out-pointer is written only when non-null.
    unsafe {
        if !buf.is_null() {
            *buf = *BUF as *mut c_void;
        }
        if !size.is_null() {
            *size = 1024;
        }
    }
}
unsafe extern "C" fn hooks_6(buf: *mut *mut c_void, size: *mut usize) {
    static BUF: once_cell::sync::Lazy<usize> = once_cell::sync::Lazy::new(|| zeroed_buffer(64));
    trace!("export TOOLS_RUNTIME_CALLBACK_HOOKS[6]");
    // SAFETY: as in hooks_2.
    unsafe {
        if !buf.is_null() {
            *buf = *BUF as *mut c_void;
        }
        if !size.is_null() {
            *size = 64;
        }
    }
}
static HOOKS: Table<8> = Table([
    size::<8>(),
    hooks_1 as _,
    hooks_2 as _,
    hooks_3 as _,
    hooks_4 as _,
    hooks_5 as _,
    hooks_6 as _,
    hooks_7 as _,
]);

/// Slots cudart 13 calls around `cudaLaunchHostFunc` (tools notifications; a host function
/// on a created stream also asks TABLE_21318c60 slots 51 and 39). Declining them is what
/// cudart handles: it skips what it would have done with the answer.
macro_rules! declined {
    ($($name:ident = $table:literal [$slot:literal];)*) => {
        $(
            unsafe extern "C" fn $name() -> CUresult {
                trace!(concat!("export ", $table, "[", $slot, "] -> CUDA_ERROR_NOT_SUPPORTED (declined)"));
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            }
        )*
    };
}
declined! {
    hooks_1 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [1];
    hooks_4 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [4];
    tls_2 = "TOOLS_TLS" [2];
    t5_other = "TABLE_21318c60" ["3 and above"];
}
// ---- #4 TOOLS_TLS and #5 (13.x): must exist, never read.
static TOOLS_TLS: Table<3> = Table([size::<3>(), tls_1 as _, tls_2 as _]);
/// Slots beyond 2 exist because cudart 13.5 reads slots 39 and 51 (see `declined!`).
static TABLE_5: Table<64> = {
    let mut slots = [t5_other as *const c_void; 64];
    slots[0] = size::<64>();
    slots[1] = t5_1 as _;
    slots[2] = t5_2 as _;
    Table(slots)
};

// ---- #6 CONTEXT_LOCAL_STORAGE (no size slot): put, delete, get.
fn cls_context(ctx: CUcontext) -> CuResult<std::sync::Arc<context::Context>> {
    if ctx.is_null() {
        context::current()
    } else {
        CONTEXTS.get(ctx)
    }
}
unsafe extern "C" fn cls_put(
    ctx: CUcontext,
    key: *mut c_void,
    value: *mut c_void,
    dtor: Option<ClsDtor>,
) -> CUresult {
    let r = cls_context(ctx).map(|c| c.cls_put(key as usize, value as usize, dtor));
    let r = r.err().unwrap_or(CUresult::CUDA_SUCCESS);
    trace!(
        "export CLS put(ctx={ctx:?}, key={key:?}, value={value:?}) -> {}",
        crate::errors::name(r)
    );
    r
}
unsafe extern "C" fn cls_delete(ctx: CUcontext, key: *mut c_void) -> CUresult {
    let r = match cls_context(ctx) {
        Ok(c) if c.cls_delete(key as usize) => CUresult::CUDA_SUCCESS,
        Ok(_) => CUresult::CUDA_ERROR_INVALID_HANDLE,
        Err(e) => e,
    };
    trace!(
        "export CLS delete(ctx={ctx:?}, key={key:?}) -> {}",
        crate::errors::name(r)
    );
    r
}
unsafe extern "C" fn cls_get(
    value: *mut *mut c_void,
    ctx: CUcontext,
    key: *mut c_void,
) -> CUresult {
    let r = match cls_context(ctx) {
        Ok(c) => match c.cls_get(key as usize) {
            Some(v) if !value.is_null() => {
                // SAFETY: checked non-null.
                unsafe { *value = v as *mut c_void };
                CUresult::CUDA_SUCCESS
            }
            Some(_) => INVALID_VALUE,
            None => CUresult::CUDA_ERROR_INVALID_HANDLE,
        },
        Err(e) => e,
    };
    trace!(
        "export CLS get(ctx={ctx:?}, key={key:?}) -> {}",
        crate::errors::name(r)
    );
    r
}
static CONTEXT_LOCAL_STORAGE: Table<3> = Table([cls_put as _, cls_delete as _, cls_get as _]);

// ---- #7 CONTEXT_CHECKS.
unsafe extern "C" fn checks_2(ctx: CUcontext, out1: *mut u32, out2: *mut *mut c_void) -> CUresult {
    trace!("export CONTEXT_CHECKS[2](ctx={ctx:?}) -> 0");
    let _ = out2;
    if !out1.is_null() {
        // SAFETY: checked non-null.
        unsafe { *out1 = 0 };
    }
    CUresult::CUDA_SUCCESS
}
unsafe extern "C" fn checks_3() -> u32 {
    trace!("export CONTEXT_CHECKS[3]() -> 0");
    0
}
static CONTEXT_CHECKS: Table<4> = Table([size::<4>(), checks_1 as _, checks_2 as _, checks_3 as _]);

// ---- #8 INTEGRITY_CHECK.
unsafe extern "C" fn integrity_check(
    version: u32,
    unix_seconds: u64,
    result: *mut [u64; 2],
) -> CUresult {
    if result.is_null() {
        return INVALID_VALUE;
    }
    let p = config::profile();
    let inputs = integrity::Inputs {
        driver_version: abi::DRIVER_VERSION as u32,
        version,
        pid: std::process::id(),
        // SAFETY: pthread_self has no preconditions.
        thread: unsafe { libc::pthread_self() } as u32,
        cudart_interface: &CUDART_INTERFACE as *const _ as u64,
        integrity_table: &INTEGRITY_CHECK as *const _ as u64,
        integrity_fn: integrity_check as unsafe extern "C" fn(u32, u64, *mut [u64; 2]) -> CUresult
            as usize as u64,
        unix_seconds,
        devices: vec![(p.uuid, p.pci_domain, p.pci_bus, p.pci_device)],
    };
    let r = integrity::compute(&inputs);
    // SAFETY: checked non-null; cudart passes room for two u64.
    unsafe { *result = r };
    trace!(
        "export INTEGRITY_CHECK[1]({version}, {unix_seconds}) -> {:#x} {:#x}",
        r[0],
        r[1]
    );
    CUresult::CUDA_SUCCESS
}
static INTEGRITY_CHECK: Table<3> = Table([size::<3>(), integrity_check as _, integ_2 as _]);

/// (UUID bytes in memory order, name, table).
fn tables() -> [([u8; 16], &'static str, *const c_void); 8] {
    fn u(s: &str) -> [u8; 16] {
        let mut b = [0u8; 16];
        for (i, x) in b.iter_mut().enumerate() {
            *x = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }
    [
        (
            u("f8cff95121468b4eb9e2fb469e7c0dd9"),
            "REQUIREMENTS",
            &REQUIREMENTS as *const _ as _,
        ),
        (
            u("6bd5fb6c5bf4e74a8987d93912fd9df9"),
            "CUDART_INTERFACE",
            &CUDART_INTERFACE as *const _ as _,
        ),
        (
            u("a094798c2e742e7493f20800200c0a66"),
            "TOOLS_RUNTIME_CALLBACK_HOOKS",
            &HOOKS as *const _ as _,
        ),
        (
            u("42d85a8123f6cb478298f6e78a3aecdc"),
            "TOOLS_TLS",
            &TOOLS_TLS as *const _ as _,
        ),
        (
            u("21318c60971432488ca641ff7324c8f2"),
            "TABLE_21318c60",
            &TABLE_5 as *const _ as _,
        ),
        (
            u("c693336e1121df11a8c368f355d89593"),
            "CONTEXT_LOCAL_STORAGE",
            &CONTEXT_LOCAL_STORAGE as *const _ as _,
        ),
        (
            u("263e88607cd2614392f6bbd5006dfa7e"),
            "CONTEXT_CHECKS",
            &CONTEXT_CHECKS as *const _ as _,
        ),
        (
            u("d4082055bde6704b8d34ba123c66e1f2"),
            "INTEGRITY_CHECK",
            &INTEGRITY_CHECK as *const _ as _,
        ),
    ]
}

pub(crate) unsafe fn get_export_table(table: *mut *const c_void, id: *const CUuuid) -> CuResult {
    if table.is_null() || id.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; a CUuuid is 16 bytes.
    let want: [u8; 16] = unsafe { (*id).bytes }.map(|b| b as u8);
    let hex: String = want.iter().map(|b| format!("{b:02x}")).collect();
    match tables().into_iter().find(|t| t.0 == want) {
        Some((_, name, ptr)) => {
            trace!("  export table {hex} -> {name}");
            // SAFETY: checked non-null.
            unsafe { *table = ptr };
            Ok(())
        }
        None => {
            trace!("  export table {hex} -> unknown");
            // SAFETY: checked non-null.
            unsafe { *table = std::ptr::null() };
            Err(INVALID_VALUE)
        }
    }
}
