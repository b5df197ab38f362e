//! `suld`, `sust`, `sured` and `suq` by a warp: each lane's handle names a surface
//! (`crate::surf`), whose elements must still lie in live device memory; where each access lands
//! is `crate::surf::locate`'s. An access outside with `.trap` faults as on a GPU (an illegal
//! address), naming the coordinates and the surface's size.

use super::access::atomic_update;
use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::handles::{LastLookup, RefKind};
use crate::ir::*;
use crate::sem::atomic::rmw;
use crate::surf::{self, Format, Place};
use crate::{ExecError, ExecErrorKind};

impl Warp {
    /// `Op::Surf`: see there.
    pub(super) fn surf(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        op: &SurfOp,
    ) -> Result<(), Fault> {
        let fault = |warp: &Warp, l: usize, kind: ExecErrorKind, what: String| ExecError {
            kind,
            message: format!("{what} {}", cta.where_pub(warp, l, pc)),
            access: None,
        };
        let mut cached = LastLookup::new();
        for l in lanes(em) {
            let h = get(regs, op.surf, l);
            let s = cached.get(h, || {
                surf::SURFACES
                    .lookup(h)
                    // Or the surface bound to the `.surfref` variable whose address the
                    // register holds (indirect access, PTX ISA 5.3).
                    .or_else(|| {
                        let bound = crate::handles::through_ref_variable(h, RefKind::Surface)?;
                        surf::SURFACES.lookup(bound)
                    })
                    // Its memory must still be allocated.
                    .filter(|s| crate::mem::contains(s.base, s.extent()))
                    .ok_or_else(|| {
                        let what = format!(
                            "surface access through {h:#x}, which is no live surface object (or \
                             its memory was freed)"
                        );
                        fault(self, l, ExecErrorKind::IllegalAddress, what)
                    })
            })?;
            if let SurfKind::Query(q) = op.kind {
                if let Some(d) = op.d[0] {
                    regs[d as usize * 32 + l] = surf::query(&s, q) as u64;
                }
                continue;
            }
            let c = |k: usize| get(regs, op.coords[k], l) as u32 as i32 as i64;
            let layer = get(regs, op.layer, l) as u32;
            let bytes = op.bits as u64 / 8 * op.vec as u64;
            // The formatted forms address samples: x counts elements, and the reduction's
            // operand is the element's first channel.
            let sample = matches!(
                op.kind,
                SurfKind::StoreFormatted
                    | SurfKind::Red(SurfRed {
                        formatted: true,
                        ..
                    })
            );
            let (x, size) = if sample {
                let size = if op.kind == SurfKind::StoreFormatted {
                    s.elem()
                } else {
                    bytes
                };
                (c(0).wrapping_mul(s.elem() as i64), size)
            } else {
                (c(0), bytes)
            };
            let off = match surf::locate(&s, op.geom, [x, c(1), c(2)], layer, size, op.bound) {
                Place::At(off) => off,
                Place::Dropped => {
                    if op.kind == SurfKind::Load {
                        for d in op.d.iter().flatten() {
                            regs[*d as usize * 32 + l] = 0;
                        }
                    }
                    continue;
                }
                Place::Trapped => {
                    let what = format!(
                        "surface access out of bounds with .trap at {} of surface {h:#x} \
                         ({}x{}x{} elements of {} bytes{})",
                        coords_text(op, [c(0), c(1), c(2)], layer),
                        s.size[0],
                        s.size[1],
                        s.size[2],
                        s.elem(),
                        if s.layered { ", layered" } else { "" },
                    );
                    return Err(fault(self, l, ExecErrorKind::IllegalAddress, what));
                }
                Place::Misaligned => {
                    let what = format!(
                        "misaligned surface access: byte coordinate {x} is not a multiple of \
                         the access size {size} (surface {h:#x})"
                    );
                    return Err(fault(self, l, ExecErrorKind::MisalignedAddress, what));
                }
            };
            let p = (s.base + off) as usize;
            match op.kind {
                SurfKind::Load => {
                    for (k, d) in op.d.iter().enumerate().take(op.vec as usize) {
                        // SAFETY: `locate` keeps the access inside the surface's extent, which
                        // was checked to be live device memory.
                        let v = unsafe { read(p + k * op.bits as usize / 8, op.bits) };
                        if let Some(d) = d {
                            regs[*d as usize * 32 + l] = v;
                        }
                    }
                }
                SurfKind::Store => {
                    for k in 0..op.vec as usize {
                        let v = get(regs, op.c[k], l);
                        // SAFETY: as for the load.
                        unsafe { write(p + k * op.bits as usize / 8, op.bits, v) };
                    }
                }
                SurfKind::StoreFormatted => {
                    let cb = s.format.bytes();
                    for k in 0..(op.vec as usize).min(s.channels as usize) {
                        let v = surf::format_channel(s.format, get(regs, op.c[k], l) as u32);
                        // SAFETY: as for the load: channel k of the element at `p`.
                        unsafe { write(p + k * cb, cb as u8 * 8, v as u64) };
                    }
                }
                SurfKind::Red(r) => {
                    let signed = if r.formatted {
                        match (s.format, op.bits, s.channels) {
                            (Format::U32, 32, _) | (Format::U32, 64, 2) => false,
                            (Format::S32, 32, _) | (Format::S32, 64, 2) => true,
                            _ => {
                                let what = format!(
                                    "sured.p.b{} on a surface of {:?} x{} elements: the ISA \
                                     defines it on 32-bit integer channels only (a .b64 on two)",
                                    op.bits, s.format, s.channels
                                );
                                return Err(fault(self, l, ExecErrorKind::Trap, what));
                            }
                        }
                    } else {
                        r.signed
                    };
                    // The coordinate is aligned to the access, but a row of an odd number
                    // of bytes (a .b32 reduction on an 8-bit surface) can still misalign it.
                    if !p.is_multiple_of(op.bits as usize / 8) {
                        let what = format!(
                            "misaligned surface reduction: address {p:#x} is not a multiple of \
                             {} bytes (surface {h:#x})",
                            op.bits / 8
                        );
                        return Err(fault(self, l, ExecErrorKind::MisalignedAddress, what));
                    }
                    let v = get(regs, op.c[0], l);
                    // Atomic: other CTAs run on other host threads. `p` is aligned to the
                    // access size (just checked) and inside live memory, as for the load.
                    let ty = match (op.bits, signed) {
                        (32, false) => AtomTy::U32,
                        (32, true) => AtomTy::S32,
                        (_, false) => AtomTy::U64,
                        (_, true) => AtomTy::S64,
                    };
                    atomic_update(p as *mut u8, op.bits / 8, |old| rmw(r.op, ty, old, v, 0));
                }
                SurfKind::Query(_) => unreachable!("handled above"),
            }
        }
        Ok(())
    }
}

/// The coordinates of an access as the instruction gave them, for fault reports.
fn coords_text(op: &SurfOp, c: [i64; 3], layer: u32) -> String {
    let xyz: Vec<String> = c[..op.geom.dims()].iter().map(|v| v.to_string()).collect();
    let xyz = xyz.join(", ");
    if op.geom.indexed() {
        format!("layer {layer}, ({xyz})")
    } else {
        format!("({xyz})")
    }
}

/// Reads `bits` at host address `p`, zero-extended.
///
/// # Safety
/// `p..p + bits / 8` must be inside live device memory.
unsafe fn read(p: usize, bits: u8) -> u64 {
    // SAFETY: the caller's.
    unsafe {
        match bits {
            8 => (p as *const u8).read() as u64,
            16 => (p as *const u16).read_unaligned() as u64,
            32 => (p as *const u32).read_unaligned() as u64,
            _ => (p as *const u64).read_unaligned(),
        }
    }
}

/// Writes the low `bits` of `v` at host address `p`.
///
/// # Safety
/// As [`read`].
unsafe fn write(p: usize, bits: u8, v: u64) {
    // SAFETY: the caller's.
    unsafe {
        match bits {
            8 => (p as *mut u8).write(v as u8),
            16 => (p as *mut u16).write_unaligned(v as u16),
            32 => (p as *mut u32).write_unaligned(v as u32),
            _ => (p as *mut u64).write_unaligned(v),
        }
    }
}
