//! `cuGetExportTable`: the undocumented tables NVIDIA's cudart requests (see
//! `shared/reference/cudart-contract.md` for what each slot must do). A table is an array of
//! pointers; slot 0 holds its size in bytes except in CONTEXT_LOCAL_STORAGE. Slots whose meaning
//! is unknown point to stubs that report their call and return CUDA_ERROR_NOT_SUPPORTED.
//!
//! Every slot is declared with [`slot!`], which runs its body through `boundary::guard` as
//! every export's is: cudart calls these functions directly, so a panic in one must become an
//! error return rather than unwind into it, and each call is traced as
//! `export TABLE[slot](args) -> result`.

use crate::boundary;
use crate::context::{self, ClsDtor, CONTEXTS};
use crate::errors::{CuResult, INVALID_VALUE};
use crate::trace::{self, trace};
use crate::{config, cudart::integrity, device};
use abi::*;
use std::ffi::c_void;
use std::fmt::Write as _;

/// A static table of pointers.
#[repr(transparent)]
pub struct Table<const N: usize>(pub [*const c_void; N]);
// SAFETY: the tables are immutable and hold only addresses of functions and integers.
unsafe impl<const N: usize> Sync for Table<N> {}

const fn size<const N: usize>() -> *const c_void {
    (N * std::mem::size_of::<usize>()) as *const c_void
}

/// One slot: a C function named `$name`, traced as `export $table[$slot]`, whose body runs
/// through `boundary::guard` (a panic becomes the result type's error answer).
macro_rules! slot {
    ($(#[$doc:meta])* $name:ident = $table:literal [$slot:literal]
        ($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        $(#[$doc])*
        unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            boundary::guard(
                concat!("export ", $table, "[", $slot, "]"),
                |_out: &mut String| {
                    let mut _sep = "";
                    $(
                        let _ = write!(_out, "{_sep}{}={:?}", stringify!($arg), $arg);
                        _sep = ", ";
                    )*
                },
                || $body,
            )
        }
    };
}

/// The result code of a slot whose body checks as the exports' do.
fn answer(r: CuResult) -> CUresult {
    r.err().unwrap_or(CUresult::CUDA_SUCCESS)
}

/// Unknown slots: one stub per (table, slot), so the message names the slot that was called.
macro_rules! stubs {
    ($($name:ident = $table:literal [$slot:literal];)*) => {
        $(
            slot! { $name = $table [$slot] () -> CUresult {
                trace::warn(concat!("cudart called unknown export table slot ", $table, "[", $slot, "]"));
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            } }
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

// ---- #1 REQUIREMENTS.
slot! {
    /// Slot 2 `(int, 0, 0)` returns 0 (cudaFuncGetAttributes calls it).
    req_2 = "REQUIREMENTS" [2] (a: i32, b: *mut c_void, c: *mut c_void) -> CUresult {
        let _ = (a, b, c);
        CUresult::CUDA_SUCCESS
    }
}
static REQUIREMENTS: Table<3> = Table([size::<3>(), req_1 as _, req_2 as _]);

// ---- #2 CUDART_INTERFACE.
slot! {
    /// Slot 2: the device's primary context, not retained; the same handle
    /// cuDevicePrimaryCtxRetain returns later.
    ci_get_primary = "CUDART_INTERFACE" [2] (out: *mut CUcontext, dev: CUdevice) -> CUresult {
        answer((|| {
            if out.is_null() {
                return Err(INVALID_VALUE);
            }
            device::check(dev)?;
            // SAFETY: checked non-null.
            unsafe { *out = context::primary(dev).handle() };
            Ok(())
        })())
    }
}
slot! {
    /// Slot 12: called once at init by the shared 13.x cudart.
    ci_12 = "CUDART_INTERFACE" [12] () -> CUresult {
        CUresult::CUDA_SUCCESS
    }
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
slot! {
    hooks_2 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [2] (buf: *mut *mut c_void, size: *mut usize) -> () {
        static BUF: once_cell::sync::Lazy<usize> =
            once_cell::sync::Lazy::new(|| zeroed_buffer(1024));
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
}
slot! {
    hooks_6 = "TOOLS_RUNTIME_CALLBACK_HOOKS" [6] (buf: *mut *mut c_void, size: *mut usize) -> () {
        static BUF: once_cell::sync::Lazy<usize> =
            once_cell::sync::Lazy::new(|| zeroed_buffer(64));
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
            slot! { $name = $table [$slot] () -> CUresult { CUresult::CUDA_ERROR_NOT_SUPPORTED } }
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
slot! {
    /// Slot 0: put (replacing an earlier value of the key).
    cls_put = "CONTEXT_LOCAL_STORAGE" [0] (
        ctx: CUcontext,
        key: *mut c_void,
        value: *mut c_void,
        dtor: Option<ClsDtor>,
    ) -> CUresult {
        answer(cls_context(ctx).map(|c| c.cls_put(key as usize, value as usize, dtor)))
    }
}
slot! {
    /// Slot 1: delete, without running the destructor.
    cls_delete = "CONTEXT_LOCAL_STORAGE" [1] (ctx: CUcontext, key: *mut c_void) -> CUresult {
        match cls_context(ctx) {
            Ok(c) if c.cls_delete(key as usize) => CUresult::CUDA_SUCCESS,
            Ok(_) => CUresult::CUDA_ERROR_INVALID_HANDLE,
            Err(e) => e,
        }
    }
}
slot! {
    /// Slot 2: get.
    cls_get = "CONTEXT_LOCAL_STORAGE" [2] (
        value: *mut *mut c_void,
        ctx: CUcontext,
        key: *mut c_void,
    ) -> CUresult {
        match cls_context(ctx) {
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
        }
    }
}
static CONTEXT_LOCAL_STORAGE: Table<3> = Table([cls_put as _, cls_delete as _, cls_get as _]);

// ---- #7 CONTEXT_CHECKS.
slot! {
    checks_2 = "CONTEXT_CHECKS" [2] (ctx: CUcontext, out1: *mut u32, out2: *mut *mut c_void) -> CUresult {
        let _ = (ctx, out2);
        if !out1.is_null() {
            // SAFETY: checked non-null.
            unsafe { *out1 = 0 };
        }
        CUresult::CUDA_SUCCESS
    }
}
slot! {
    checks_3 = "CONTEXT_CHECKS" [3] () -> u32 {
        0
    }
}
static CONTEXT_CHECKS: Table<4> = Table([size::<4>(), checks_1 as _, checks_2 as _, checks_3 as _]);

// ---- #8 INTEGRITY_CHECK.
slot! {
    /// Slot 1: the check cudart compares with its own computation (see `integrity`).
    integrity_check = "INTEGRITY_CHECK" [1] (
        version: u32,
        unix_seconds: u64,
        result: *mut [u64; 2],
    ) -> CUresult {
        // SAFETY: forwarded contract.
        unsafe { integrity_answer(version, unix_seconds, result) }
    }
}

/// The body of INTEGRITY_CHECK[1].
///
/// # Safety
/// `result` is NULL or has room for two u64 (cudart's contract).
unsafe fn integrity_answer(version: u32, unix_seconds: u64, result: *mut [u64; 2]) -> CUresult {
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
        // Every visible device, in ordinal order, as cudart sees them.
        devices: (0..device::count() as CUdevice)
            .map(|d| {
                let e = device::emulated(d);
                (p.uuid_of(e), p.pci_domain, p.pci_bus_of(e), p.pci_device)
            })
            .collect(),
    };
    let r = integrity::compute(&inputs);
    // SAFETY: checked non-null; cudart passes room for two u64.
    unsafe { *result = r };
    trace!("  integrity check {version}: {:#x} {:#x}", r[0], r[1]);
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
