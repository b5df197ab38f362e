//! The context calls: the primary context (`cuDevicePrimaryCtx*`), created contexts and the
//! current-context stack (`cuCtx*`), limits and configuration. Destroying or resetting a
//! context ends its streams and events and frees its memory, which is why these calls sit
//! above streams and memory while the context itself ([`crate::context`]) sits below them.

use crate::context::{active, current, primary, top, Context, CONTEXTS, STACK};
use crate::errors::{CuResult, INVALID_CONTEXT, INVALID_VALUE};
use crate::stream::event::EVENTS;
use crate::stream::STREAMS;
use crate::{config, device};
use abi::*;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Waits for outstanding work, runs the CLS destructors and clears the sticky error: what
/// resetting/destroying does. The context's created streams and events die with it, so do the
/// modules loaded into it and their functions and its texture objects, and the memory the
/// program allocated in it is freed.
fn teardown(ctx: &Arc<Context>) {
    ctx.wait_idle();
    let me = Arc::as_ptr(ctx);
    STREAMS.remove_where(|s| Arc::as_ptr(&s.ctx) == me);
    EVENTS.remove_where(|e| Arc::as_ptr(&e.ctx) == me);
    crate::module::release_context(ctx.handle() as usize);
    crate::memory::texture::release_context(ctx.handle() as usize);
    crate::memory::surface::release_context(ctx.handle() as usize);
    crate::memory::alloc::release_context(ctx.handle() as usize);
    ctx.run_cls_destructors();
    crate::context::peer::forget(ctx);
    ctx.clear_sticky();
}

/// Checks that `dev` is the device and `pctx` non-null, the order of the real driver.
pub(crate) unsafe fn primary_retain(pctx: *mut CUcontext, dev: CUdevice) -> CuResult {
    if pctx.is_null() {
        return Err(INVALID_VALUE);
    }
    device::check(dev)?;
    let ctx = primary(dev);
    ctx.refcount.fetch_add(1, Ordering::AcqRel);
    // SAFETY: checked non-null.
    unsafe { *pctx = ctx.handle() };
    Ok(())
}

pub(crate) unsafe fn primary_release(dev: CUdevice) -> CuResult {
    device::check(dev)?;
    let ctx = primary(dev);
    let old = ctx
        .refcount
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
        .map_err(|_| CUresult::CUDA_ERROR_INVALID_CONTEXT)?;
    if old == 1 {
        teardown(ctx);
    }
    Ok(())
}

pub(crate) unsafe fn primary_reset(dev: CUdevice) -> CuResult {
    device::check(dev)?;
    let ctx = primary(dev);
    ctx.refcount.store(0, Ordering::Release);
    teardown(ctx);
    Ok(())
}

pub(crate) unsafe fn primary_set_flags(dev: CUdevice, flags: c_uint) -> CuResult {
    device::check(dev)?;
    // Scheduling flags (0..=4 | blocking sync) plus LMEM_RESIZE_TO_MAX (0x10) and
    // CU_CTX_SYNC_MEMOPS (0x80) are valid.
    if flags & !0x9f != 0 {
        return Err(INVALID_VALUE);
    }
    primary(dev).flags.store(flags, Ordering::Release);
    Ok(())
}

pub(crate) unsafe fn primary_get_state(
    dev: CUdevice,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CuResult {
    if flags.is_null() || active.is_null() {
        return Err(INVALID_VALUE);
    }
    device::check(dev)?;
    let ctx = primary(dev);
    // SAFETY: both checked non-null.
    unsafe {
        *flags = ctx.flags.load(Ordering::Acquire);
        *active = c_int::from(ctx.refcount.load(Ordering::Acquire) > 0);
    }
    Ok(())
}

/// Creates a context and pushes it on this thread's stack.
unsafe fn create(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CuResult {
    if pctx.is_null() {
        return Err(INVALID_VALUE);
    }
    device::check(dev)?;
    if flags & !0x9f != 0 {
        return Err(INVALID_VALUE);
    }
    let ctx = Arc::new(Context::new(dev, false, flags));
    let h = CONTEXTS.insert(ctx);
    STACK.with(|s| s.borrow_mut().push(h));
    // SAFETY: checked non-null.
    unsafe { *pctx = h as CUcontext };
    Ok(())
}

pub(crate) unsafe fn create_v2(pctx: *mut CUcontext, flags: c_uint, dev: CUdevice) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { create(pctx, flags, dev) }
}

pub(crate) unsafe fn create_v3(
    pctx: *mut CUcontext,
    params: *mut CUexecAffinityParam,
    num_params: c_int,
    flags: c_uint,
    dev: CUdevice,
) -> CuResult {
    if num_params < 0 || (num_params > 0 && params.is_null()) {
        return Err(INVALID_VALUE);
    }
    // Execution affinity (an SM count limit) changes nothing observable here.
    // SAFETY: forwarded contract.
    unsafe { create(pctx, flags, dev) }
}

pub(crate) unsafe fn create_v4(
    pctx: *mut CUcontext,
    params: *mut CUctxCreateParams,
    flags: c_uint,
    dev: CUdevice,
) -> CuResult {
    if !params.is_null() {
        // SAFETY: checked non-null; the caller passes a CUctxCreateParams.
        let p = unsafe { &*params };
        if p.numExecAffinityParams < 0
            || (p.numExecAffinityParams > 0 && p.execAffinityParams.is_null())
        {
            return Err(INVALID_VALUE);
        }
        if !p.cigParams.is_null() {
            return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    // SAFETY: forwarded contract.
    unsafe { create(pctx, flags, dev) }
}

pub(crate) unsafe fn destroy(ctx: CUcontext) -> CuResult {
    let c = CONTEXTS.get(ctx)?;
    if c.primary {
        // The primary context is released, never destroyed, through the context API.
        return Err(INVALID_CONTEXT);
    }
    teardown(&c);
    CONTEXTS.remove(ctx as usize);
    // Unbind it from this thread's stack (other threads find the handle dead on use).
    STACK.with(|s| s.borrow_mut().retain(|&h| h != ctx as usize));
    Ok(())
}

pub(crate) unsafe fn push_current(ctx: CUcontext) -> CuResult {
    CONTEXTS.get(ctx)?;
    STACK.with(|s| s.borrow_mut().push(ctx as usize));
    Ok(())
}

pub(crate) unsafe fn pop_current(pctx: *mut CUcontext) -> CuResult {
    let h = STACK
        .with(|s| s.borrow_mut().pop())
        .ok_or(INVALID_CONTEXT)?;
    if !pctx.is_null() {
        // SAFETY: checked non-null (the out-pointer is optional).
        unsafe { *pctx = h as CUcontext };
    }
    Ok(())
}

pub(crate) unsafe fn set_current(ctx: CUcontext) -> CuResult {
    if ctx.is_null() {
        STACK.with(|s| s.borrow_mut().pop());
        return Ok(());
    }
    CONTEXTS.get(ctx)?;
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        s.pop();
        s.push(ctx as usize);
    });
    Ok(())
}

pub(crate) unsafe fn get_current(pctx: *mut CUcontext) -> CuResult {
    if pctx.is_null() {
        return Err(INVALID_VALUE);
    }
    // A destroyed context still on the stack reads as none.
    let h = top()
        .filter(|&h| CONTEXTS.get(h as *mut c_void).is_ok())
        .unwrap_or(0);
    // SAFETY: checked non-null.
    unsafe { *pctx = h as CUcontext };
    Ok(())
}

pub(crate) unsafe fn get_device(device: *mut CUdevice) -> CuResult {
    if device.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = current()?;
    // SAFETY: checked non-null.
    unsafe { *device = ctx.device };
    Ok(())
}

/// `ctx` or, when NULL, the current context.
fn given_or_current(ctx: CUcontext) -> CuResult<Arc<Context>> {
    if ctx.is_null() {
        current()
    } else {
        CONTEXTS.get(ctx)
    }
}

pub(crate) unsafe fn get_device_v2(device: *mut CUdevice, ctx: CUcontext) -> CuResult {
    if device.is_null() {
        return Err(INVALID_VALUE);
    }
    let c = given_or_current(ctx)?;
    // SAFETY: checked non-null.
    unsafe { *device = c.device };
    Ok(())
}

pub(crate) unsafe fn get_flags(flags: *mut c_uint) -> CuResult {
    if flags.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = current()?;
    // SAFETY: checked non-null.
    unsafe { *flags = ctx.flags.load(Ordering::Acquire) };
    Ok(())
}

pub(crate) unsafe fn set_flags(flags: c_uint) -> CuResult {
    if flags & !0x9f != 0 {
        return Err(INVALID_VALUE);
    }
    current()?.flags.store(flags, Ordering::Release);
    Ok(())
}

pub(crate) unsafe fn get_id(ctx: CUcontext, id: *mut c_ulonglong) -> CuResult {
    if id.is_null() {
        return Err(INVALID_VALUE);
    }
    let c = given_or_current(ctx)?;
    // SAFETY: checked non-null.
    unsafe { *id = c.id };
    Ok(())
}

/// Waits for every stream of the current context; reports a fault of the work waited for.
pub(crate) unsafe fn synchronize() -> CuResult {
    let ctx = current()?;
    crate::stream::capture::check_unsafe_call()?;
    ctx.wait_idle();
    ctx.check()
}

pub(crate) unsafe fn synchronize_v2(ctx: CUcontext) -> CuResult {
    let ctx = given_or_current(ctx)?;
    crate::stream::capture::check_unsafe_call()?;
    ctx.wait_idle();
    ctx.check()
}

pub(crate) unsafe fn set_limit(limit: CUlimit, value: usize) -> CuResult {
    let ctx = active()?;
    let i = limit.0 as usize;
    if i > 6 {
        return Err(CUresult::CUDA_ERROR_UNSUPPORTED_LIMIT);
    }
    // The stack is local memory, bounded per thread as a kernel's `.local` frame is: a larger
    // limit is refused and the old one stays (as the real driver answers).
    if limit == CUlimit::CU_LIMIT_STACK_SIZE && value as u64 > crate::profile::MAX_LOCAL_PER_THREAD
    {
        return Err(INVALID_VALUE);
    }
    ctx.limits.lock()[i] = value;
    // The engine's device heap and printf FIFO are process-wide, shared by every emulated
    // device: the last context to set a limit decides it, which is what a program with one
    // context sees.
    match limit {
        CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE => engine::set_heap_size(value),
        CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE => engine::set_printf_fifo_size(value),
        CUlimit::CU_LIMIT_STACK_SIZE => engine::set_stack_size(value),
        CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT => {
            engine::set_devrt_limits(value as u64)
        }
        _ => {}
    }
    Ok(())
}

pub(crate) unsafe fn get_limit(value: *mut usize, limit: CUlimit) -> CuResult {
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = current()?;
    let i = limit.0 as usize;
    if i > 6 {
        return Err(CUresult::CUDA_ERROR_UNSUPPORTED_LIMIT);
    }
    // SAFETY: checked non-null.
    unsafe { *value = ctx.limits.lock()[i] };
    Ok(())
}

pub(crate) unsafe fn get_cache_config(config: *mut CUfunc_cache) -> CuResult {
    if config.is_null() {
        return Err(INVALID_VALUE);
    }
    let ctx = current()?;
    // SAFETY: checked non-null.
    unsafe { *config = CUfunc_cache(ctx.cache_config.load(Ordering::Acquire)) };
    Ok(())
}

pub(crate) unsafe fn set_cache_config(config: CUfunc_cache) -> CuResult {
    if config.0 > 3 {
        return Err(INVALID_VALUE);
    }
    current()?.cache_config.store(config.0, Ordering::Release);
    Ok(())
}

pub(crate) unsafe fn get_shared_mem_config(config: *mut CUsharedconfig) -> CuResult {
    if config.is_null() {
        return Err(INVALID_VALUE);
    }
    current()?;
    // SAFETY: checked non-null.
    unsafe { *config = CUsharedconfig::CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE };
    Ok(())
}

pub(crate) unsafe fn set_shared_mem_config(config: CUsharedconfig) -> CuResult {
    if config.0 > 2 {
        return Err(INVALID_VALUE);
    }
    current().map(|_| ())
}

pub(crate) unsafe fn get_api_version(ctx: CUcontext, version: *mut c_uint) -> CuResult {
    if version.is_null() {
        return Err(INVALID_VALUE);
    }
    given_or_current(ctx)?;
    // The API version of contexts created by this driver (3020 since the _v2 API).
    // SAFETY: checked non-null.
    unsafe { *version = 3020 };
    Ok(())
}

pub(crate) unsafe fn get_stream_priority_range(
    least: *mut c_int,
    greatest: *mut c_int,
) -> CuResult {
    // Both pointers are optional.
    // SAFETY: each is written only when non-null.
    unsafe {
        if !least.is_null() {
            *least = 0;
        }
        if !greatest.is_null() {
            *greatest = -5;
        }
    }
    Ok(())
}

pub(crate) unsafe fn reset_persisting_l2() -> CuResult {
    active().map(|_| ())
}

/// cuCtxGetExecAffinity: the SM count the context may use. Affinity given at creation changes
/// nothing here (see `create_v3`), so this is the device's SM count.
pub(crate) unsafe fn get_exec_affinity(
    out: *mut CUexecAffinityParam,
    kind: CUexecAffinityType,
) -> CuResult {
    if out.is_null() || kind != CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_SM_COUNT {
        return Err(INVALID_VALUE);
    }
    active()?;
    let sms = config::profile()
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .unwrap_or(1);
    // SAFETY: checked non-null.
    unsafe {
        *out = CUexecAffinityParam {
            type_: kind,
            param: CUexecAffinityParam_st__bindgen_ty_1 {
                smCount: CUexecAffinitySmCount { val: sms as c_uint },
            },
        }
    };
    Ok(())
}

/// cuFlushGPUDirectRDMAWrites: device memory is host memory and no third-party device writes
/// into it, so there is nothing to flush; the arguments are still checked.
pub(crate) unsafe fn flush_gpu_direct_rdma_writes(
    target: CUflushGPUDirectRDMAWritesTarget,
    scope: CUflushGPUDirectRDMAWritesScope,
) -> CuResult {
    use CUflushGPUDirectRDMAWritesScope as S;
    if target
        != CUflushGPUDirectRDMAWritesTarget::CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX
        || !matches!(
            scope,
            S::CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER
                | S::CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES
        )
    {
        return Err(INVALID_VALUE);
    }
    active()?;
    Ok(())
}
