//! Memory access of a warp's lanes: addresses, loads and stores per lane or coalesced, vector
//! elements, call arguments in registers or local memory, and atomics (host atomics for
//! memory other threads see, plain read-modify-writes for the CTA's own).

use super::cta::{Cta, Layout, Place};
use super::regfile::*;
use super::warp::FULL;
use super::whole;
use crate::ir::*;
use crate::sem::atomic::{atom_width, rmw};

/// Every lane's address of an access (inactive lanes too: they are never used), written in
/// place: returning the array by value made a copy whose narrower stores the wide loads of
/// `place_warp` then stalled on (store forwarding).
#[inline(always)]
pub(super) fn lane_addrs(regs: &[u64], addr: Addr, a: &mut Lanes) {
    let off = addr.off as u64;
    match addr.base {
        Some(r) => {
            for (a, &b) in a.iter_mut().zip(row(regs, r)) {
                *a = b.wrapping_add(off);
            }
        }
        None => *a = [off; 32],
    }
}

/// Every lane's host pointer of a checked access (inactive lanes' are never used): one loop
/// per kind of place, which vectorizes.
#[inline(always)]
pub(super) fn lane_ptrs(pl: Place, addrs: &Lanes) -> [*mut u8; 32] {
    let mut p = [std::ptr::null_mut(); 32];
    match pl {
        Place::Global => {
            for (p, &a) in p.iter_mut().zip(addrs) {
                *p = a as *mut u8;
            }
        }
        Place::Buf { .. } => {
            for (l, (p, &a)) in p.iter_mut().zip(addrs).enumerate() {
                *p = pl.ptr(a, l);
            }
        }
    }
    p
}

/// Loads the element `koff` bytes into each active lane's access into `dst`, widened as `ld`
/// does. A coalesced access is one widening copy, a uniform one a single read.
///
/// # Safety
/// Every active lane's access must be valid for reading (as `Cta::place_warp` checks).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn ld_lanes(
    dst: &mut Lanes,
    (pl, layout): (Place, Layout),
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
    sext: bool,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        dst: &mut Lanes,
        (pl, layout): (Place, Layout),
        addrs: &Lanes,
        em: u32,
        koff: usize,
        conv: impl Fn(T) -> u64,
    ) {
        // SAFETY (all loops): the caller guarantees each active lane's pointer; a contiguous
        // or uniform layout is only reported for full warps (lane l's pointer is lane 0's plus
        // l elements, or lane 0's).
        match layout {
            Layout::Contiguous if addrs[1].wrapping_sub(addrs[0]) == size_of::<T>() as u64 => {
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *const T;
                for (l, v) in dst.iter_mut().enumerate() {
                    // SAFETY: lane l's element, l elements past lane 0's (contiguous).
                    *v = conv(unsafe { p.add(l).read_unaligned() });
                }
            }
            Layout::Uniform => {
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *const T;
                // SAFETY: every lane's (checked) access is this one.
                *dst = [conv(unsafe { p.read_unaligned() }); 32];
            }
            // (A contiguous vector access, lanes `n` elements apart, goes lane by lane too.)
            Layout::Contiguous | Layout::Scattered => {
                let ptrs = lane_ptrs(pl, addrs);
                if em == FULL {
                    for (v, p) in dst.iter_mut().zip(ptrs) {
                        // SAFETY: each lane's pointer was checked (all lanes active).
                        *v = conv(unsafe { (p.wrapping_add(koff) as *const T).read_unaligned() });
                    }
                } else {
                    for l in lanes(em) {
                        let p = ptrs[l].wrapping_add(koff) as *const T;
                        // SAFETY: an active lane's checked pointer.
                        dst[l] = conv(unsafe { p.read_unaligned() });
                    }
                }
            }
        }
    }
    let a = (pl, layout);
    // SAFETY: forwarded from the caller.
    unsafe {
        match (size, sext) {
            (1, false) => go(dst, a, addrs, em, koff, |v: u8| v as u64),
            (1, true) => go(dst, a, addrs, em, koff, |v: i8| v as i64 as u64),
            (2, false) => go(dst, a, addrs, em, koff, |v: u16| v as u64),
            (2, true) => go(dst, a, addrs, em, koff, |v: i16| v as i64 as u64),
            (4, false) => go(dst, a, addrs, em, koff, |v: u32| v as u64),
            (4, true) => go(dst, a, addrs, em, koff, |v: i32| v as i64 as u64),
            _ => go(dst, a, addrs, em, koff, |v: u64| v),
        }
    }
}

/// Stores the low `size` bytes of each active lane of `v` at its access plus `koff` bytes, in
/// lane order (when lanes share an address the highest one's value stays, as lane by lane); a
/// coalesced access is one narrowing copy.
///
/// # Safety
/// Every active lane's access must be valid for writing (as `Cta::place_warp` checks).
#[inline(always)]
pub(super) unsafe fn st_lanes(
    v: &Lanes,
    (pl, layout): (Place, Layout),
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        v: &Lanes,
        (pl, layout): (Place, Layout),
        addrs: &Lanes,
        em: u32,
        koff: usize,
        conv: impl Fn(u64) -> T,
    ) {
        // SAFETY (all loops): as in ld_lanes.
        match layout {
            Layout::Contiguous if addrs[1].wrapping_sub(addrs[0]) == size_of::<T>() as u64 => {
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *mut T;
                for (l, x) in v.iter().enumerate() {
                    // SAFETY: lane l's element, l elements past lane 0's (contiguous).
                    unsafe { p.add(l).write_unaligned(conv(*x)) };
                }
            }
            Layout::Uniform => {
                // Every lane writes the same place: lane 31's value is the one that stays.
                let p = pl.ptr(addrs[0], 0).wrapping_add(koff) as *mut T;
                // SAFETY: every lane's (checked) access is this one.
                unsafe { p.write_unaligned(conv(v[31])) };
            }
            Layout::Contiguous | Layout::Scattered => {
                let ptrs = lane_ptrs(pl, addrs);
                for l in lanes(em) {
                    let p = ptrs[l].wrapping_add(koff) as *mut T;
                    // SAFETY: an active lane's checked pointer.
                    unsafe { p.write_unaligned(conv(v[l])) };
                }
            }
        }
    }
    let a = (pl, layout);
    // SAFETY: forwarded from the caller.
    unsafe {
        match size {
            1 => go(v, a, addrs, em, koff, |x| x as u8),
            2 => go(v, a, addrs, em, koff, |x| x as u16),
            4 => go(v, a, addrs, em, koff, |x| x as u32),
            _ => go(v, a, addrs, em, koff, |x| x),
        }
    }
}

/// Loads like [`ld_lanes`] for an access [`Cta::own_shared`] placed: lane `l` reads at
/// `base + addrs[l] + koff`, with no classification of the warp's addresses.
///
/// # Safety
/// Every active lane's access must be inside the CTA's shared memory (as `own_shared` checks).
#[inline(always)]
pub(super) unsafe fn ld_shared(
    dst: &mut Lanes,
    base: *mut u8,
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
    sext: bool,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        dst: &mut Lanes,
        base: *const u8,
        addrs: &Lanes,
        em: u32,
        conv: impl Fn(T) -> u64,
    ) {
        let at = |a: u64| base.wrapping_add(a as usize) as *const T;
        if em == FULL {
            for (v, &a) in dst.iter_mut().zip(addrs) {
                // SAFETY: a lane's checked access (all lanes active).
                *v = conv(unsafe { at(a).read_unaligned() });
            }
        } else {
            for l in lanes(em) {
                // SAFETY: an active lane's checked access.
                dst[l] = conv(unsafe { at(addrs[l]).read_unaligned() });
            }
        }
    }
    let b = base.wrapping_add(koff) as *const u8;
    // SAFETY: forwarded from the caller.
    unsafe {
        match (size, sext) {
            (1, false) => go(dst, b, addrs, em, |v: u8| v as u64),
            (1, true) => go(dst, b, addrs, em, |v: i8| v as i64 as u64),
            (2, false) => go(dst, b, addrs, em, |v: u16| v as u64),
            (2, true) => go(dst, b, addrs, em, |v: i16| v as i64 as u64),
            (4, false) => go(dst, b, addrs, em, |v: u32| v as u64),
            (4, true) => go(dst, b, addrs, em, |v: i32| v as i64 as u64),
            _ => go(dst, b, addrs, em, |v: u64| v),
        }
    }
}

/// Stores like [`st_lanes`] for an access [`Cta::own_shared`] placed, in lane order (lanes
/// sharing an address leave the highest one's value).
///
/// # Safety
/// Every active lane's access must be inside the CTA's shared memory (as `own_shared` checks).
#[inline(always)]
pub(super) unsafe fn st_shared(
    v: &Lanes,
    base: *mut u8,
    addrs: &Lanes,
    em: u32,
    koff: usize,
    size: u8,
) {
    #[inline(always)]
    unsafe fn go<T: Copy>(
        v: &Lanes,
        base: *mut u8,
        addrs: &Lanes,
        em: u32,
        conv: impl Fn(u64) -> T,
    ) {
        let at = |a: u64| base.wrapping_add(a as usize) as *mut T;
        if em == FULL {
            for (&x, &a) in v.iter().zip(addrs) {
                // SAFETY: a lane's checked access (all lanes active).
                unsafe { at(a).write_unaligned(conv(x)) };
            }
        } else {
            for l in lanes(em) {
                // SAFETY: an active lane's checked access.
                unsafe { at(addrs[l]).write_unaligned(conv(v[l])) };
            }
        }
    }
    let b = base.wrapping_add(koff);
    // SAFETY: forwarded from the caller.
    unsafe {
        match size {
            1 => go(v, b, addrs, em, |x| x as u8),
            2 => go(v, b, addrs, em, |x| x as u16),
            4 => go(v, b, addrs, em, |x| x as u32),
            _ => go(v, b, addrs, em, |x| x),
        }
    }
}

/// Writes `v` (little-endian bytes) to a formal or destination of lane `l`: a register takes
/// up to 8 bytes (zero-extended), local memory exactly the location's bytes.
pub(super) fn store_loc(cta: &mut Cta, warp: u32, regs: &mut [u64], loc: Loc, l: usize, v: &[u8]) {
    match loc {
        Loc::Reg(r, _) => {
            let mut b = [0u8; 8];
            let n = v.len().min(8);
            b[..n].copy_from_slice(&v[..n]);
            regs[r as usize * 32 + l] = u64::from_le_bytes(b);
        }
        Loc::Local(o, n) => {
            let n = (n as usize).min(v.len());
            cta.local_at(warp, l, o, n).copy_from_slice(&v[..n]);
        }
    }
}

/// Appends `n` bytes of a location of lane `l` to `out`.
pub(super) fn load_loc(
    cta: &mut Cta,
    warp: u32,
    regs: &[u64],
    loc: Loc,
    l: usize,
    n: usize,
    out: &mut Vec<u8>,
) {
    match loc {
        Loc::Reg(r, _) => {
            let b = regs[r as usize * 32 + l].to_le_bytes();
            out.extend_from_slice(&b[..n.min(8)]);
            out.resize(out.len() + n.saturating_sub(8), 0);
        }
        Loc::Local(o, _) => out.extend_from_slice(cta.local_at(warp, l, o, n)),
    }
}

/// Lane `l`'s `n` elements of `size` bytes at `p` into `d`: in one access when the vector is
/// 8 or 16 aligned bytes ([`whole`]), else element by element.
///
/// # Safety
/// `p` must be valid for reading `n * size` bytes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn ld_vector(
    regs: &mut [u64],
    d: &[Option<Reg>],
    p: *const u8,
    l: usize,
    n: u8,
    size: u8,
    sext: bool,
) {
    let len = n as u64 * size as u64;
    let copy = if whole::applies(n, len) {
        // SAFETY: forwarded.
        unsafe { whole::load(p, len) }
    } else {
        None
    };
    let from = copy.as_ref().map_or(p, |c| c.as_ptr());
    for (k, dk) in d.iter().enumerate().take(n as usize) {
        // SAFETY: element k of the range (or of its copy); reads are unaligned-safe.
        let v = unsafe { read_sized(from.add(k * size as usize), size, sext) };
        if let Some(r) = *dk {
            regs[r as usize * 32 + l] = v;
        }
    }
}

/// Lane `l`'s `n` source elements of `size` bytes to `p`: in one access when the vector is 8
/// or 16 aligned bytes ([`whole`]), else element by element.
///
/// # Safety
/// `p` must be valid for writing `n * size` bytes.
#[inline(always)]
pub(super) unsafe fn st_vector(
    regs: &[u64],
    s: &[Src],
    sink: u8,
    p: *mut u8,
    l: usize,
    n: u8,
    size: u8,
) {
    let len = n as u64 * size as u64;
    if whole::applies(n, len) {
        let mut bytes = [0u8; 16];
        for (k, sk) in s.iter().enumerate().take(n as usize) {
            let at = k * size as usize;
            let v = get(regs, *sk, l).to_le_bytes();
            bytes[at..at + size as usize].copy_from_slice(&v[..size as usize]);
        }
        // SAFETY: forwarded.
        if unsafe { whole::store(p, len, &bytes) } {
            return;
        }
    }
    // Element by element, leaving the `_` sinks of a 256-bit store alone.
    for (k, sk) in s.iter().enumerate().take(n as usize) {
        if sink & (1 << k) == 0 {
            // SAFETY: element k of the range.
            unsafe { write_sized(p.add(k * size as usize), size, get(regs, *sk, l)) };
        }
    }
}

/// # Safety
/// `p` must be valid for reading `size` bytes.
#[inline]
pub(super) unsafe fn read_sized(p: *const u8, size: u8, sext: bool) -> u64 {
    // SAFETY: the caller guarantees the range; unaligned reads are allowed by read_unaligned.
    unsafe {
        match size {
            1 => {
                let v = p.read_unaligned();
                if sext {
                    v as i8 as i64 as u64
                } else {
                    v as u64
                }
            }
            2 => {
                let v = (p as *const u16).read_unaligned();
                if sext {
                    v as i16 as i64 as u64
                } else {
                    v as u64
                }
            }
            4 => {
                let v = (p as *const u32).read_unaligned();
                if sext {
                    v as i32 as i64 as u64
                } else {
                    v as u64
                }
            }
            _ => (p as *const u64).read_unaligned(),
        }
    }
}

/// # Safety
/// `p` must be valid for writing `size` bytes.
#[inline]
pub(super) unsafe fn write_sized(p: *mut u8, size: u8, v: u64) {
    // SAFETY: the caller guarantees the range.
    unsafe {
        match size {
            1 => p.write_unaligned(v as u8),
            2 => (p as *mut u16).write_unaligned(v as u16),
            4 => (p as *mut u32).write_unaligned(v as u32),
            _ => (p as *mut u64).write_unaligned(v),
        }
    }
}

/// Performs one atomic read-modify-write at `p` (checked, naturally aligned) and returns the old
/// value. Global memory is shared between host threads, so these are real host atomics.
#[inline]
pub(super) fn atomic(p: *mut u8, op: AtomOp, ty: AtomTy, a: u64, b: u64) -> u64 {
    atomic_update(p, atom_width(ty), |o| rmw(op, ty, o, a, b))
}

/// Replaces the `width`-byte value at `p` (checked, naturally aligned, shared between host
/// threads) by `new` of it, atomically; returns the old value.
#[inline]
pub(super) fn atomic_update(p: *mut u8, width: u8, new: impl Fn(u64) -> u64) -> u64 {
    use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering::SeqCst};
    match width {
        2 => {
            // SAFETY: p is 2-byte aligned (checked by resolve) and inside live memory.
            let at = unsafe { AtomicU16::from_ptr(p as *mut u16) };
            at.fetch_update(SeqCst, SeqCst, |o| Some(new(o as u64) as u16))
                .unwrap() as u64
        }
        4 => {
            // SAFETY: p is 4-byte aligned (checked by resolve) and inside live memory.
            let at = unsafe { AtomicU32::from_ptr(p as *mut u32) };
            at.fetch_update(SeqCst, SeqCst, |o| Some(new(o as u64) as u32))
                .unwrap() as u64
        }
        _ => {
            // SAFETY: p is 8-byte aligned (checked by resolve) and inside live device memory.
            let at = unsafe { AtomicU64::from_ptr(p as *mut u64) };
            at.fetch_update(SeqCst, SeqCst, |o| Some(new(o))).unwrap()
        }
    }
}

/// A 16-byte atomic read-modify-write at `p` (checked, 16-aligned, shared between host
/// threads): `lock cmpxchg16b` on x86-64 (portable-atomic picks it at run time, with a lock
/// fallback elsewhere). Returns the old value.
pub(super) fn atomic128(p: *mut u8, new: impl Fn(u128) -> u128) -> u128 {
    use portable_atomic::{AtomicU128, Ordering::SeqCst};
    // SAFETY: p is 16-byte aligned (checked by resolve/place_warp) and inside live memory.
    let at = unsafe { AtomicU128::from_ptr(p as *mut u128) };
    at.fetch_update(SeqCst, SeqCst, |o| Some(new(o))).unwrap()
}

/// An atomic on memory only this host thread touches (the CTA's shared or local memory: one
/// host thread runs a whole CTA, see `exec`): a plain read-modify-write is exactly atomic.
///
/// # Safety
/// `p` must be valid for reading and writing the type's width, and accessed by no other thread.
#[inline]
pub(super) unsafe fn atomic_private(p: *mut u8, op: AtomOp, ty: AtomTy, a: u64, b: u64) -> u64 {
    // SAFETY: the caller's promise.
    unsafe { update_private(p, atom_width(ty), |o| rmw(op, ty, o, a, b)) }
}

/// [`atomic_update`] on memory only this host thread touches (see [`atomic_private`]).
///
/// # Safety
/// `p` must be valid for reading and writing `width` bytes, and accessed by no other thread.
#[inline]
pub(super) unsafe fn update_private(p: *mut u8, width: u8, new: impl Fn(u64) -> u64) -> u64 {
    // SAFETY: the caller guarantees the range and exclusivity.
    unsafe {
        let old = read_sized(p, width, false);
        write_sized(p, width, new(old));
        old
    }
}

/// The atomic types compiled code takes ([`jit_atomic`]'s `what`: op index * 16 + type index * 2
/// + private).
pub(crate) const JIT_ATOM_TYS: [AtomTy; 6] = [
    AtomTy::U32,
    AtomTy::S32,
    AtomTy::U64,
    AtomTy::S64,
    AtomTy::F32,
    AtomTy::F64,
];

const JIT_ATOM_OPS: [AtomOp; 10] = [
    AtomOp::Add,
    AtomOp::Min,
    AtomOp::Max,
    AtomOp::Inc,
    AtomOp::Dec,
    AtomOp::And,
    AtomOp::Or,
    AtomOp::Xor,
    AtomOp::Exch,
    AtomOp::Cas,
];

/// The code of an atomic for [`jit_atomic`]; None for a type compiled code does not take.
pub(crate) fn jit_atomic_what(op: AtomOp, ty: AtomTy, private: bool) -> Option<u64> {
    let o = JIT_ATOM_OPS.iter().position(|&x| x == op)?;
    let t = JIT_ATOM_TYS.iter().position(|&x| x == ty)?;
    Some((o * 16 + t * 2) as u64 | private as u64)
}

/// One lane's atomic for compiled code (`jit::emit`): exactly the interpreter's (a host atomic,
/// or a plain read-modify-write on the CTA's own memory when `what`'s bit 0 says so); returns
/// the old value as the interpreter writes it to the lane's register.
///
/// # Safety
/// `p` must be checked as the interpreter checks it (inside live memory the kernel may write,
/// aligned to the type's width), and private memory touched by no other thread.
pub(crate) unsafe extern "C" fn jit_atomic(p: *mut u8, a: u64, b: u64, what: u64) -> u64 {
    // (Codes come from jit_atomic_what; an impossible one falls back to harmless indices rather
    // than panicking across the generated code.)
    let op = JIT_ATOM_OPS[(what as usize / 16) % JIT_ATOM_OPS.len()];
    let ty = JIT_ATOM_TYS[(what as usize / 2 % 8) % JIT_ATOM_TYS.len()];
    if what & 1 != 0 {
        // SAFETY: the caller's promise.
        unsafe { atomic_private(p, op, ty, a, b) }
    } else {
        atomic(p, op, ty, a, b)
    }
}
