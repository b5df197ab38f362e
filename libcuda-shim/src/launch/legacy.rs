//! The launch API before `cuLaunchKernel` (CUDA 2.x, deprecated, still exported): a function
//! carries its block shape (`cuFuncSetBlockShape`), its dynamic shared memory
//! (`cuFuncSetSharedSize`) and a parameter buffer filled piece by piece (`cuParamSetSize`,
//! `cuParamSeti/f/v`); `cuLaunch`, `cuLaunchGrid` and `cuLaunchGridAsync` launch it with that
//! state, exactly as `cuLaunchKernel` with the buffer passed through `extra`
//! (`CU_LAUNCH_PARAM_BUFFER_POINTER`), so validation and error codes are the same.
//! `cuParamSetTexRef` only checks its arguments: a module's texture references are bound
//! through their variables (`memory::texref`), whichever function fetches through them.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::launch::kernel as launch;
use crate::module;
use abi::*;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};

/// The largest parameter buffer a kernel takes (CUDA 12.1 and later: 32764 bytes).
const MAX_PARAM_BYTES: usize = 32764;

/// What the legacy calls set on one function handle.
#[derive(Default, Clone)]
struct State {
    block: [u32; 3],
    shared: u32,
    /// `cuParamSetSize`'s size; the launch passes this many bytes of `params`.
    size: usize,
    params: Vec<u8>,
}

static STATE: Lazy<Mutex<HashMap<usize, State>>> = Lazy::new(Default::default);

/// Runs `f` on the state of a live function handle.
fn with_state<T>(func: CUfunction, f: impl FnOnce(&mut State) -> CuResult<T>) -> CuResult<T> {
    module::function(func)?;
    f(STATE.lock().entry(func as usize).or_default())
}

pub(crate) unsafe fn func_set_block_shape(
    func: CUfunction,
    x: c_int,
    y: c_int,
    z: c_int,
) -> CuResult {
    if x <= 0 || y <= 0 || z <= 0 {
        return Err(INVALID_VALUE);
    }
    with_state(func, |s| {
        s.block = [x as u32, y as u32, z as u32];
        Ok(())
    })
}

pub(crate) unsafe fn func_set_shared_size(func: CUfunction, bytes: c_uint) -> CuResult {
    with_state(func, |s| {
        s.shared = bytes;
        Ok(())
    })
}

/// cuParamSetTexRef: a module's texture references are bound through their variables already;
/// the unit must be CU_PARAM_TR_DEFAULT and the reference a live one.
pub(crate) unsafe fn param_set_tex_ref(func: CUfunction, unit: c_int, h: CUtexref) -> CuResult {
    module::function(func)?;
    if unit != CU_PARAM_TR_DEFAULT {
        return Err(INVALID_VALUE);
    }
    crate::memory::texref::check(h)
}

pub(crate) unsafe fn param_set_size(func: CUfunction, bytes: c_uint) -> CuResult {
    if bytes as usize > MAX_PARAM_BYTES {
        return Err(INVALID_VALUE);
    }
    with_state(func, |s| {
        s.size = bytes as usize;
        Ok(())
    })
}

fn set_bytes(func: CUfunction, offset: c_int, bytes: &[u8]) -> CuResult {
    let at = usize::try_from(offset).map_err(|_| INVALID_VALUE)?;
    let end = at.checked_add(bytes.len()).ok_or(INVALID_VALUE)?;
    if end > MAX_PARAM_BYTES {
        return Err(INVALID_VALUE);
    }
    with_state(func, |s| {
        if s.params.len() < end {
            s.params.resize(end, 0);
        }
        s.params[at..end].copy_from_slice(bytes);
        Ok(())
    })
}

pub(crate) unsafe fn param_seti(func: CUfunction, offset: c_int, value: c_uint) -> CuResult {
    set_bytes(func, offset, &value.to_le_bytes())
}

pub(crate) unsafe fn param_setf(func: CUfunction, offset: c_int, value: f32) -> CuResult {
    set_bytes(func, offset, &value.to_le_bytes())
}

pub(crate) unsafe fn param_setv(
    func: CUfunction,
    offset: c_int,
    ptr: *mut c_void,
    n: c_uint,
) -> CuResult {
    if ptr.is_null() && n > 0 {
        return Err(INVALID_VALUE);
    }
    let bytes = if n == 0 {
        &[][..]
    } else {
        // SAFETY: `ptr` points to `n` readable bytes (API contract), checked non-null.
        unsafe { std::slice::from_raw_parts(ptr as *const u8, n as usize) }
    };
    set_bytes(func, offset, bytes)
}

pub(crate) unsafe fn launch_grid_async(
    func: CUfunction,
    width: c_int,
    height: c_int,
    stream: CUstream,
) -> CuResult {
    if width <= 0 || height <= 0 {
        return Err(INVALID_VALUE);
    }
    let mut s = with_state(func, |s| Ok(s.clone()))?;
    s.params.resize(s.size.max(s.params.len()), 0);
    let mut size = s.size;
    // The `extra` keys are small integers cast to pointers (cuda.h's CU_LAUNCH_PARAM_*).
    let key = |k: usize| std::ptr::without_provenance_mut::<c_void>(k);
    let mut extra = [
        key(1), // CU_LAUNCH_PARAM_BUFFER_POINTER
        s.params.as_mut_ptr() as *mut c_void,
        key(2), // CU_LAUNCH_PARAM_BUFFER_SIZE
        &mut size as *mut usize as *mut c_void,
        key(0), // CU_LAUNCH_PARAM_END
    ];
    let [bx, by, bz] = s.block;
    // SAFETY: `extra` is a complete key/value list whose buffer outlives the call (the launch
    // copies the parameters before it returns).
    unsafe {
        launch::launch_kernel(
            func,
            width as c_uint,
            height as c_uint,
            1,
            bx,
            by,
            bz,
            s.shared,
            stream,
            std::ptr::null_mut(),
            extra.as_mut_ptr(),
        )
    }
}

pub(crate) unsafe fn launch_grid(func: CUfunction, width: c_int, height: c_int) -> CuResult {
    // SAFETY: forwarded contract. The legacy default stream, as cuLaunchGrid used.
    unsafe { launch_grid_async(func, width, height, std::ptr::null_mut()) }
}

pub(crate) unsafe fn launch(func: CUfunction) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { launch_grid(func, 1, 1) }
}
