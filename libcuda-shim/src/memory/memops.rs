//! Stream memory operations (cuda.h "Stream Memory Operations"): `cuStreamWaitValue32/64`,
//! `cuStreamWriteValue32/64` and `cuStreamBatchMemOp`, in their v1 (CUDA 8/9) and v2
//! (CUDA 11.7) forms. Each is stream work: a wait blocks its stream until the condition holds
//! on the memory word, which any other stream, a kernel or the host may write; a write stores
//! the value once the stream's earlier work has completed.
//!
//! Validation, as the header documents: the address is device memory or page-locked host memory
//! (never managed memory) aligned to the operand's size; wait flags are one condition
//! (GEQ, EQ, AND, NOR) plus optionally `CU_STREAM_WAIT_VALUE_FLUSH`; write flags are
//! `CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER` at most, and only in the v1 API; a batch holds
//! fewer than 256 operations, its flags are 0, and `CU_STREAM_MEM_OP_BARRIER` and atomic
//! reductions exist only in the v2 API. Anything else is CUDA_ERROR_INVALID_VALUE.
//!
//! On a CPU the device's memory is the host's, so the flush of remote writes, the memory
//! barrier and the write's fence are host fences (what they guarantee on a GPU, ordering of
//! earlier writes before later observers, is what a sequentially consistent fence gives).
//!
//! Stream capture: graphs here have no batch-memop node kind, so a capturing stream refuses
//! these operations with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates its capture.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::{memory, stream};
use abi::*;
use std::ffi::c_uint;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// The API generation of an entry point (the `_v2` symbols are V2).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    V1,
    V2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cond {
    Geq,
    Eq,
    And,
    Nor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduce {
    Or,
    And,
    Add,
}

/// One validated operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Wait {
        addr: u64,
        value: u64,
        wide: bool,
        cond: Cond,
        flush: bool,
    },
    Write {
        addr: u64,
        value: u64,
        wide: bool,
        fence: bool,
    },
    Reduce {
        addr: u64,
        value: u64,
        wide: bool,
        op: Reduce,
    },
    /// A memory barrier or a flush of remote writes.
    Fence,
}

const WAIT_FLUSH: u32 = 1 << 30;
const WRITE_NO_MEMORY_BARRIER: u32 = 1;

/// The operand address: aligned, in device memory or page-locked host memory, not managed.
fn check_address(addr: u64, wide: bool) -> CuResult {
    let size = if wide { 8 } else { 4 };
    if addr == 0 || !addr.is_multiple_of(size) {
        return Err(INVALID_VALUE);
    }
    if let Some((base, len, _)) = memory::host_range(addr as usize) {
        // The whole word inside the page-locked range.
        return if addr + size <= (base + len) as u64 {
            Ok(())
        } else {
            Err(INVALID_VALUE)
        };
    }
    memory::check_device(addr, size as usize)?;
    match engine::mem::find(addr) {
        Some(a) if memory::is_managed(a.base) => Err(INVALID_VALUE),
        _ => Ok(()),
    }
}

fn wait_op(addr: u64, value: u64, wide: bool, flags: u32) -> CuResult<Op> {
    check_address(addr, wide)?;
    let cond = match flags & !WAIT_FLUSH {
        0 => Cond::Geq,
        1 => Cond::Eq,
        2 => Cond::And,
        3 => Cond::Nor,
        _ => return Err(INVALID_VALUE),
    };
    Ok(Op::Wait {
        addr,
        value,
        wide,
        cond,
        flush: flags & WAIT_FLUSH != 0,
    })
}

fn write_op(addr: u64, value: u64, wide: bool, flags: u32, api: Api) -> CuResult<Op> {
    check_address(addr, wide)?;
    // NO_MEMORY_BARRIER "is not supported in the v2 API".
    let allowed = if api == Api::V1 {
        WRITE_NO_MEMORY_BARRIER
    } else {
        0
    };
    if flags & !allowed != 0 {
        return Err(INVALID_VALUE);
    }
    Ok(Op::Write {
        addr,
        value,
        wide,
        fence: flags & WRITE_NO_MEMORY_BARRIER == 0,
    })
}

/// Validates one entry of a batch.
fn batch_op(p: &CUstreamBatchMemOpParams, api: Api) -> CuResult<Op> {
    use CUstreamBatchMemOpType as T;
    // SAFETY (whole function): `operation` is the tag every member starts with; each arm reads
    // the member its tag selects, plain integers.
    unsafe {
        match p.operation {
            T::CU_STREAM_MEM_OP_WAIT_VALUE_32 | T::CU_STREAM_MEM_OP_WAIT_VALUE_64 => {
                let w = p.waitValue;
                let wide = p.operation == T::CU_STREAM_MEM_OP_WAIT_VALUE_64;
                let v = if wide {
                    w.__bindgen_anon_1.value64
                } else {
                    u64::from(w.__bindgen_anon_1.value)
                };
                wait_op(w.address, v, wide, w.flags)
            }
            T::CU_STREAM_MEM_OP_WRITE_VALUE_32 | T::CU_STREAM_MEM_OP_WRITE_VALUE_64 => {
                let w = p.writeValue;
                let wide = p.operation == T::CU_STREAM_MEM_OP_WRITE_VALUE_64;
                let v = if wide {
                    w.__bindgen_anon_1.value64
                } else {
                    u64::from(w.__bindgen_anon_1.value)
                };
                write_op(w.address, v, wide, w.flags, api)
            }
            T::CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES if p.flushRemoteWrites.flags == 0 => {
                Ok(Op::Fence)
            }
            // SYS or GPU scope; "only supported in the _v2 API".
            T::CU_STREAM_MEM_OP_BARRIER if api == Api::V2 && p.memoryBarrier.flags <= 1 => {
                Ok(Op::Fence)
            }
            T::CU_STREAM_MEM_OP_ATOMIC_REDUCTION if api == Api::V2 => {
                let r = p.atomicReduction;
                let wide = match r.dataType {
                    CUstreamAtomicReductionDataType::CU_STREAM_ATOMIC_REDUCTION_UNSIGNED_32 => {
                        false
                    }
                    CUstreamAtomicReductionDataType::CU_STREAM_ATOMIC_REDUCTION_UNSIGNED_64 => true,
                    _ => return Err(INVALID_VALUE),
                };
                let op = match r.reductionOp {
                    CUstreamAtomicReductionOpType::CU_STREAM_ATOMIC_REDUCTION_OP_OR => Reduce::Or,
                    CUstreamAtomicReductionOpType::CU_STREAM_ATOMIC_REDUCTION_OP_AND => Reduce::And,
                    CUstreamAtomicReductionOpType::CU_STREAM_ATOMIC_REDUCTION_OP_ADD => Reduce::Add,
                    _ => return Err(INVALID_VALUE),
                };
                if r.flags != 0 || (!wide && r.value > u64::from(u32::MAX)) {
                    return Err(INVALID_VALUE);
                }
                check_address(r.address, wide)?;
                Ok(Op::Reduce {
                    addr: r.address,
                    value: r.value,
                    wide,
                    op,
                })
            }
            _ => Err(INVALID_VALUE),
        }
    }
}

/// Whether a wait's condition holds for the word's current value `cur`.
fn satisfied(cond: Cond, cur: u64, value: u64, wide: bool) -> bool {
    match cond {
        // "(int32_t)(*addr - value) >= 0": a cyclic comparison.
        Cond::Geq if wide => cur.wrapping_sub(value) as i64 >= 0,
        Cond::Geq => (cur as u32).wrapping_sub(value as u32) as i32 >= 0,
        Cond::Eq => cur == value,
        Cond::And => cur & value != 0,
        Cond::Nor if wide => !(cur | value) != 0,
        Cond::Nor => !((cur | value) as u32) != 0,
    }
}

/// Reads the word at `addr`.
///
/// # Safety
/// `addr` was validated as an aligned word of live device or page-locked memory.
unsafe fn load(addr: u64, wide: bool) -> u64 {
    // SAFETY: per the contract; other threads (kernels, the host, other streams) write the
    // word concurrently, so it is read atomically.
    unsafe {
        if wide {
            (*(addr as *const AtomicU64)).load(Ordering::Acquire)
        } else {
            u64::from((*(addr as *const AtomicU32)).load(Ordering::Acquire))
        }
    }
}

/// Runs one operation on the stream's worker; `ctx` lets a wait give up once the context has
/// faulted (a faulted GPU context runs nothing more).
///
/// # Safety
/// The operation's address was validated at the call and the memory is still live (the
/// program's contract for stream work).
unsafe fn run(op: Op, ctx: &crate::context::Context) {
    match op {
        Op::Wait {
            addr,
            value,
            wide,
            cond,
            flush,
        } => {
            let mut spins = 0u32;
            // SAFETY: forwarded contract.
            while !satisfied(cond, unsafe { load(addr, wide) }, value, wide) {
                if ctx.check().is_err() {
                    return;
                }
                // Poll hot for a moment, then back off to at most 200 us between reads: a
                // waiting stream occupies no core while another stream does the writing.
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else if spins < 128 {
                    std::thread::yield_now();
                } else {
                    let us = u64::from((spins - 127).min(200));
                    std::thread::sleep(Duration::from_micros(us));
                }
            }
            if flush {
                fence(Ordering::SeqCst);
            }
        }
        Op::Write {
            addr,
            value,
            wide,
            fence: with_fence,
        } => {
            // The default write is preceded by a fence ("similar semantics to
            // __threadfence_system()"); NO_MEMORY_BARRIER lets it be reordered.
            let order = if with_fence {
                fence(Ordering::SeqCst);
                Ordering::SeqCst
            } else {
                Ordering::Relaxed
            };
            // SAFETY: forwarded contract; the word is written atomically (see `load`).
            unsafe {
                if wide {
                    (*(addr as *const AtomicU64)).store(value, order)
                } else {
                    (*(addr as *const AtomicU32)).store(value as u32, order)
                }
            }
        }
        Op::Reduce {
            addr,
            value,
            wide,
            op,
        } => {
            let o = Ordering::SeqCst;
            // SAFETY: forwarded contract.
            unsafe {
                if wide {
                    let a = &*(addr as *const AtomicU64);
                    match op {
                        Reduce::Or => a.fetch_or(value, o),
                        Reduce::And => a.fetch_and(value, o),
                        Reduce::Add => a.fetch_add(value, o),
                    };
                } else {
                    let a = &*(addr as *const AtomicU32);
                    let v = value as u32;
                    match op {
                        Reduce::Or => a.fetch_or(v, o),
                        Reduce::And => a.fetch_and(v, o),
                        Reduce::Add => a.fetch_add(v, o),
                    };
                }
            }
        }
        Op::Fence => fence(Ordering::SeqCst),
    }
}

/// Queues validated operations on `s`, in order, as one piece of stream work.
fn submit(s: CUstream, ops: Vec<Op>) -> CuResult {
    let t = stream::target(s)?;
    crate::stream::capture::refuse(&t)?;
    if ops.is_empty() {
        return Ok(());
    }
    stream::submit_unless_faulted(&t, move |ctx| {
        for op in ops {
            // SAFETY: validated at the call; the memory is the program's, live while its
            // stream work runs.
            unsafe { run(op, ctx) };
        }
    });
    Ok(())
}

fn wait(s: CUstream, addr: CUdeviceptr, value: u64, wide: bool, flags: c_uint) -> CuResult {
    stream::target(s)?;
    submit(s, vec![wait_op(addr, value, wide, flags)?])
}

fn write(
    s: CUstream,
    addr: CUdeviceptr,
    value: u64,
    wide: bool,
    flags: c_uint,
    api: Api,
) -> CuResult {
    stream::target(s)?;
    submit(s, vec![write_op(addr, value, wide, flags, api)?])
}

pub(crate) unsafe fn wait_value_32(
    s: CUstream,
    addr: CUdeviceptr,
    value: cuuint32_t,
    flags: c_uint,
) -> CuResult {
    wait(s, addr, u64::from(value), false, flags)
}

pub(crate) unsafe fn wait_value_64(
    s: CUstream,
    addr: CUdeviceptr,
    value: cuuint64_t,
    flags: c_uint,
) -> CuResult {
    wait(s, addr, value, true, flags)
}

pub(crate) unsafe fn write_value_32_v1(
    s: CUstream,
    addr: CUdeviceptr,
    value: cuuint32_t,
    flags: c_uint,
) -> CuResult {
    write(s, addr, u64::from(value), false, flags, Api::V1)
}

pub(crate) unsafe fn write_value_64_v1(
    s: CUstream,
    addr: CUdeviceptr,
    value: cuuint64_t,
    flags: c_uint,
) -> CuResult {
    write(s, addr, value, true, flags, Api::V1)
}

pub(crate) unsafe fn write_value_32_v2(
    s: CUstream,
    addr: CUdeviceptr,
    value: cuuint32_t,
    flags: c_uint,
) -> CuResult {
    write(s, addr, u64::from(value), false, flags, Api::V2)
}

pub(crate) unsafe fn write_value_64_v2(
    s: CUstream,
    addr: CUdeviceptr,
    value: cuuint64_t,
    flags: c_uint,
) -> CuResult {
    write(s, addr, value, true, flags, Api::V2)
}

unsafe fn batch(
    s: CUstream,
    count: c_uint,
    params: *mut CUstreamBatchMemOpParams,
    flags: c_uint,
    api: Api,
) -> CuResult {
    stream::target(s)?;
    // "Must be less than 256"; flags are reserved and must be 0.
    if flags != 0 || count >= 256 || (count > 0 && params.is_null()) {
        return Err(INVALID_VALUE);
    }
    let ops = (0..count as usize)
        // SAFETY: `params` holds `count` entries (API contract), checked non-null.
        .map(|i| batch_op(unsafe { &*params.add(i) }, api))
        .collect::<CuResult<Vec<_>>>()?;
    submit(s, ops)
}

pub(crate) unsafe fn batch_v1(
    s: CUstream,
    count: c_uint,
    params: *mut CUstreamBatchMemOpParams,
    flags: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { batch(s, count, params, flags, Api::V1) }
}

pub(crate) unsafe fn batch_v2(
    s: CUstream,
    count: c_uint,
    params: *mut CUstreamBatchMemOpParams,
    flags: c_uint,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { batch(s, count, params, flags, Api::V2) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_follow_the_header() {
        // GEQ is cyclic: (int32_t)(*addr - value) >= 0.
        assert!(satisfied(Cond::Geq, 5, 5, false));
        assert!(satisfied(Cond::Geq, 6, 5, false));
        assert!(!satisfied(Cond::Geq, 4, 5, false));
        assert!(satisfied(Cond::Geq, 1, 0xffff_fff0, false));
        assert!(!satisfied(Cond::Geq, 0xffff_fff0, 1, false));
        assert!(satisfied(Cond::Geq, 1, u64::MAX - 3, true));
        assert!(!satisfied(Cond::Geq, 1u64 << 32, 1u64 << 33, true));
        assert!(satisfied(Cond::Eq, 7, 7, false) && !satisfied(Cond::Eq, 7, 8, false));
        assert!(satisfied(Cond::And, 0b0110, 0b0100, false));
        assert!(!satisfied(Cond::And, 0b0110, 0b1001, false));
        // NOR: ~(*addr | value) != 0, in the operand's width.
        assert!(satisfied(Cond::Nor, 0xffff_0000, 0x0000_fff0, false));
        assert!(!satisfied(Cond::Nor, 0xffff_0000, 0x0000_ffff, false));
        assert!(satisfied(Cond::Nor, 0xffff_0000, 0x0000_ffff, true));
    }
}
