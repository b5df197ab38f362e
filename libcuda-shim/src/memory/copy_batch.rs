//! Batched and attributed copies (CUDA 12.8/13): `cuMemcpyBatchAsync` (the 12.8 form with its
//! `failIdx` out-parameter and the 13.0 form without), `cuMemcpy3DBatchAsync` (both forms),
//! `cuMemcpyWithAttributesAsync` and `cuMemcpy3DWithAttributesAsync`.
//!
//! Every copy of a batch is validated before any is queued, so a bad one leaves the stream
//! untouched (the 12.8 forms report its index in `*failIdx`, SIZE_MAX when the error concerns
//! no single copy). The copies then run in stream order, one after another, which is one of
//! the orders "copies within a batch are not guaranteed to execute in". Attributes:
//! `CU_MEMCPY_SRC_ACCESS_ORDER_STREAM` and `_ANY` read the source in stream order (ANY allows
//! that); `_DURING_API_CALL` reads it before the call returns (it is copied aside at the call,
//! so a stack buffer may go away). Location hints and `CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE`
//! are hints with nothing to act on where host and device share memory. The stream must not be
//! the legacy NULL stream (CUDA_ERROR_INVALID_VALUE).

#![allow(clippy::too_many_arguments)] // the driver API's own parameter lists

use crate::errors::{CuResult, INVALID_VALUE};
use crate::memory::batch::{batch_stream, groups};
use crate::memory::copy::{self, Prepared};
use crate::memory::managed::Loc;
use crate::stream::Target;
use abi::*;
use std::ffi::c_ulonglong;

const DURING_API_CALL: u32 = 2;

/// Checks a copy's source access order and flags; returns whether the source is read at the
/// call.
fn check_order(order: CUmemcpySrcAccessOrder, flags: u32) -> CuResult<bool> {
    // STREAM, DURING_API_CALL, ANY; INVALID (0) is the default the program must replace.
    if !(1..=3).contains(&order.0) || flags > 1 {
        return Err(INVALID_VALUE);
    }
    Ok(order.0 == DURING_API_CALL)
}

fn check_attrs(a: &CUmemcpyAttributes) -> CuResult<bool> {
    // The hints must at least name a location type this system has (or none).
    for hint in [&a.srcLocHint, &a.dstLocHint] {
        let l = Loc::from_location(hint);
        if l.kind != CUmemLocationType::CU_MEM_LOCATION_TYPE_INVALID && l.check().is_err() {
            return Err(INVALID_VALUE);
        }
    }
    check_order(a.srcAccessOrder, a.flags)
}

/// A batch failure: the error and the index of the copy it concerns (None: the whole call).
type Failure = (CUresult, Option<usize>);

fn whole(e: CUresult) -> Failure {
    (e, None)
}

/// Queues validated copies.
fn submit(t: &Target, copies: Vec<(Prepared, bool)>) -> CuResult {
    for (p, stage) in copies {
        copy::submit_prepared(t, p, stage)?;
    }
    Ok(())
}

unsafe fn batch(
    dsts: *mut CUdeviceptr,
    srcs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    attrs: *mut CUmemcpyAttributes,
    idxs: *mut usize,
    n_attrs: usize,
    s: CUstream,
) -> Result<(), Failure> {
    let t = batch_stream(s).map_err(whole)?;
    if count == 0 || dsts.is_null() || srcs.is_null() || sizes.is_null() {
        return Err(whole(INVALID_VALUE));
    }
    if attrs.is_null() || idxs.is_null() {
        return Err(whole(INVALID_VALUE));
    }
    // SAFETY: `idxs` and `attrs` hold `n_attrs` entries (API contract), checked non-null.
    let (first, attrs) = unsafe {
        (
            std::slice::from_raw_parts(idxs, n_attrs),
            std::slice::from_raw_parts(attrs, n_attrs),
        )
    };
    let group = groups(first, count).map_err(whole)?;
    let stage = attrs
        .iter()
        .map(check_attrs)
        .collect::<CuResult<Vec<bool>>>()
        .map_err(whole)?;
    let mut copies = Vec::with_capacity(count);
    for (i, g) in group.into_iter().enumerate() {
        // SAFETY: the three arrays hold `count` entries (API contract), checked non-null.
        let (d, src, n) = unsafe { (*dsts.add(i), *srcs.add(i), *sizes.add(i)) };
        // An empty copy does nothing, as with cuMemcpyAsync.
        if n == 0 {
            continue;
        }
        let p = copy::prepare_1d(d, src, n).map_err(|e| (e, Some(i)))?;
        copies.push((p, stage[g]));
    }
    submit(&t, copies).map_err(whole)
}

/// Reports a failure: its code, and the index where the 12.8 forms have a `failIdx`.
///
/// # Safety
/// `fail_idx` is null or points to a writable size_t.
unsafe fn report(r: Result<(), Failure>, fail_idx: *mut usize) -> CuResult {
    if !fail_idx.is_null() {
        let idx = match r {
            Err((_, Some(i))) => i,
            _ => usize::MAX,
        };
        // SAFETY: per the contract.
        unsafe { *fail_idx = idx };
    }
    r.map_err(|(e, _)| e)
}

pub(crate) unsafe fn batch_v1(
    dsts: *mut CUdeviceptr,
    srcs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    attrs: *mut CUmemcpyAttributes,
    idxs: *mut usize,
    n_attrs: usize,
    fail_idx: *mut usize,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe {
        let r = batch(dsts, srcs, sizes, count, attrs, idxs, n_attrs, s);
        report(r, fail_idx)
    }
}

pub(crate) unsafe fn batch_v2(
    dsts: *mut CUdeviceptr,
    srcs: *mut CUdeviceptr,
    sizes: *mut usize,
    count: usize,
    attrs: *mut CUmemcpyAttributes,
    idxs: *mut usize,
    n_attrs: usize,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { batch(dsts, srcs, sizes, count, attrs, idxs, n_attrs, s) }.map_err(|(e, _)| e)
}

pub(crate) unsafe fn with_attributes(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    size: usize,
    attr: *mut CUmemcpyAttributes,
    s: CUstream,
) -> CuResult {
    let mut idx = 0usize;
    let (mut d, mut sr, mut n) = (dst, src, size);
    // SAFETY: a batch of one copy, every array one entry long.
    unsafe { batch(&mut d, &mut sr, &mut n, 1, attr, &mut idx, 1, s) }.map_err(|(e, _)| e)
}

/// An operand's element size: 1 for a pointer, the array's for an array.
fn elem_size(o: &CUmemcpy3DOperand) -> CuResult<usize> {
    match o.type_ {
        CUmemcpy3DOperandType::CU_MEMCPY_OPERAND_TYPE_POINTER => Ok(1),
        CUmemcpy3DOperandType::CU_MEMCPY_OPERAND_TYPE_ARRAY => {
            // SAFETY: the member this type selects.
            let a = unsafe { o.op.array };
            Ok(crate::memory::array::get(a.array)
                .map_err(|_| INVALID_VALUE)?
                .elem)
        }
        _ => Err(INVALID_VALUE),
    }
}

/// A 3D batch operation as the CUDA_MEMCPY3D it describes (validated as cuMemcpy3D then
/// validates it); returns it with whether its source is read at the call.
fn desc_3d(op: &CUDA_MEMCPY3D_BATCH_OP) -> CuResult<(CUDA_MEMCPY3D, bool)> {
    let stage = check_order(op.srcAccessOrder, op.flags)?;
    let e = op.extent;
    if e.width == 0 || e.height == 0 || e.depth == 0 {
        return Err(INVALID_VALUE);
    }
    let (se, de) = (elem_size(&op.src)?, elem_size(&op.dst)?);
    // Pointer-to-pointer copies count bytes; with an array its element size counts; two
    // arrays must agree.
    let array = CUmemcpy3DOperandType::CU_MEMCPY_OPERAND_TYPE_ARRAY;
    let elem = match (op.src.type_ == array, op.dst.type_ == array) {
        (true, true) if se != de => return Err(INVALID_VALUE),
        (true, _) => se,
        (_, true) => de,
        _ => 1,
    };
    let mut c = CUDA_MEMCPY3D {
        WidthInBytes: e.width.checked_mul(elem).ok_or(INVALID_VALUE)?,
        Height: e.height,
        Depth: e.depth,
        ..Default::default()
    };
    // One side: (memory type, pointer, array, x in bytes, y, z, pitch, height).
    type SideDesc = (
        CUmemorytype,
        u64,
        CUarray,
        usize,
        usize,
        usize,
        usize,
        usize,
    );
    let side = |o: &CUmemcpy3DOperand| -> CuResult<SideDesc> {
        if o.type_ == array {
            // SAFETY: the member this type selects.
            let a = unsafe { o.op.array };
            let x = a.offset.x.checked_mul(elem).ok_or(INVALID_VALUE)?;
            Ok((
                CUmemorytype::CU_MEMORYTYPE_ARRAY,
                0,
                a.array,
                x,
                a.offset.y,
                a.offset.z,
                0,
                0,
            ))
        } else {
            // SAFETY: the member a pointer operand uses.
            let p = unsafe { o.op.ptr };
            // Zero means tightly packed; otherwise at least the copy's width and height.
            if (p.rowLength != 0 && p.rowLength < e.width)
                || (p.layerHeight != 0 && p.layerHeight < e.height)
            {
                return Err(INVALID_VALUE);
            }
            let row = if p.rowLength == 0 {
                e.width
            } else {
                p.rowLength
            };
            let layer = if p.layerHeight == 0 {
                e.height
            } else {
                p.layerHeight
            };
            let pitch = row.checked_mul(elem).ok_or(INVALID_VALUE)?;
            Ok((
                CUmemorytype::CU_MEMORYTYPE_UNIFIED,
                p.ptr,
                std::ptr::null_mut(),
                0,
                0,
                0,
                pitch,
                layer,
            ))
        }
    };
    let (t, p, a, x, y, z, pitch, h) = side(&op.src)?;
    (
        c.srcMemoryType,
        c.srcDevice,
        c.srcArray,
        c.srcXInBytes,
        c.srcY,
        c.srcZ,
        c.srcPitch,
        c.srcHeight,
    ) = (t, p, a, x, y, z, pitch, h);
    let (t, p, a, x, y, z, pitch, h) = side(&op.dst)?;
    (
        c.dstMemoryType,
        c.dstDevice,
        c.dstArray,
        c.dstXInBytes,
        c.dstY,
        c.dstZ,
        c.dstPitch,
        c.dstHeight,
    ) = (t, p, a, x, y, z, pitch, h);
    Ok((c, stage))
}

unsafe fn batch_3d(
    n: usize,
    ops: *mut CUDA_MEMCPY3D_BATCH_OP,
    flags: c_ulonglong,
    s: CUstream,
) -> Result<(), Failure> {
    let t = batch_stream(s).map_err(whole)?;
    if n == 0 || ops.is_null() || flags != 0 {
        return Err(whole(INVALID_VALUE));
    }
    let mut copies = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: `ops` holds `n` entries (API contract), checked non-null.
        let op = unsafe { &*ops.add(i) };
        let fail = |e| (e, Some(i));
        let (c, stage) = desc_3d(op).map_err(fail)?;
        copies.push((copy::prepare_3d(&c).map_err(fail)?, stage));
    }
    submit(&t, copies).map_err(whole)
}

pub(crate) unsafe fn batch_3d_v1(
    n: usize,
    ops: *mut CUDA_MEMCPY3D_BATCH_OP,
    fail_idx: *mut usize,
    flags: c_ulonglong,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { report(batch_3d(n, ops, flags, s), fail_idx) }
}

pub(crate) unsafe fn batch_3d_v2(
    n: usize,
    ops: *mut CUDA_MEMCPY3D_BATCH_OP,
    flags: c_ulonglong,
    s: CUstream,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { batch_3d(n, ops, flags, s) }.map_err(|(e, _)| e)
}

pub(crate) unsafe fn with_attributes_3d(
    op: *mut CUDA_MEMCPY3D_BATCH_OP,
    flags: c_ulonglong,
    s: CUstream,
) -> CuResult {
    // SAFETY: a batch of one.
    unsafe { batch_3d(1, op, flags, s) }.map_err(|(e, _)| e)
}
