//! The extern functions nvcc's device code calls by name: `vprintf` (device printf),
//! `__assertfail` (device assert), `malloc` and `free` (the device heap),
//! `cudaGraphSetConditional` (a conditional node's condition, see [`SysCall`]), and the device
//! runtime's (`super::devrt`).
//!
//! Device printf output is formatted when the call runs and appended to a process-wide FIFO
//! (bounded, excess dropped as CUDA drops it); the driver calls [`flush_printf`] where CUDA
//! flushes (synchronisation, blocking copies, module unload, context destroy), which writes it
//! through C stdio's `stdout` so it interleaves with the host program's own printf as with the
//! real driver.

use super::cta::{Cta, Fault};
use super::warp::Warp;
use crate::ir::{MSpace, SysArg, SysCall, SysRet};
use crate::{mem, ExecError, ExecErrorKind};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

static FIFO: Mutex<Vec<u8>> = Mutex::new(Vec::new());
static FIFO_SIZE: AtomicU64 = AtomicU64::new(1 << 20);
static HEAP_SIZE: AtomicU64 = AtomicU64::new(8 << 20);
/// Bytes currently allocated by device `malloc` (each block is its own device allocation).
static HEAP_USED: Mutex<u64> = Mutex::new(0);
static HEAP_BLOCKS: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());
/// Counts device `free`s: allocation caches of running launches drop what they hold when it
/// moved (see `cta::GCache`).
static HEAP_GENERATION: AtomicU64 = AtomicU64::new(0);

pub fn heap_generation() -> u64 {
    HEAP_GENERATION.load(Ordering::Acquire)
}

pub fn set_printf_fifo_size(bytes: usize) {
    FIFO_SIZE.store(bytes as u64, Ordering::Relaxed);
}
pub fn printf_fifo_size() -> usize {
    FIFO_SIZE.load(Ordering::Relaxed) as usize
}
pub fn set_heap_size(bytes: usize) {
    HEAP_SIZE.store(bytes as u64, Ordering::Relaxed);
}
pub fn heap_size() -> usize {
    HEAP_SIZE.load(Ordering::Relaxed) as usize
}

/// Takes the pending device printf output (for tests and for drivers that write it elsewhere).
pub fn take_printf() -> Vec<u8> {
    std::mem::take(&mut *FIFO.lock())
}

pub fn flush_printf() {
    let out = take_printf();
    if out.is_empty() {
        return;
    }
    extern "C" {
        static mut stdout: *mut libc::FILE;
    }
    // SAFETY: glibc's `stdout` is a valid FILE* for the life of the process; fwrite/fflush
    // lock the stream themselves, and `out` is a live buffer of out.len() bytes.
    unsafe {
        let f = stdout;
        libc::fwrite(out.as_ptr() as *const libc::c_void, 1, out.len(), f);
        libc::fflush(f);
    }
}

fn append(bytes: &[u8]) {
    let mut f = FIFO.lock();
    let room = printf_fifo_size().saturating_sub(f.len());
    f.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

/// One lane's view of memory for the call: reads through the same checks as loads.
pub(super) struct Lane<'c, 'a> {
    pub cta: &'c mut Cta<'a>,
    pub warp: &'c mut Warp,
    pub lane: usize,
    pub pc: u32,
}

impl Lane<'_, '_> {
    /// The value of a scalar argument (its first 8 bytes).
    pub(super) fn arg(&mut self, regs: &[u64], arg: SysArg) -> Result<u64, Fault> {
        Ok(match arg {
            // A structure passed by value has no scalar value (see `arg_bytes`).
            SysArg::Local(_, size) if size > 8 => 0,
            SysArg::Local(off, size) => self.read(MSpace::Local, off as u64, size as u64)?,
            SysArg::Reg(r) => regs[r as usize * 32 + self.lane],
            SysArg::Imm(v) => v,
        })
    }

    /// The bytes of an argument passed by value (`dim3`, a structure).
    pub(super) fn arg_bytes(&mut self, regs: &[u64], arg: SysArg) -> Result<Vec<u8>, Fault> {
        match arg {
            SysArg::Local(off, size) => {
                // In units both the offset and the size are multiples of (a `dim3` is 4-aligned).
                let unit = [8u32, 4, 2, 1]
                    .into_iter()
                    .find(|u| (off | size) % u == 0)
                    .unwrap_or(1) as u64;
                let mut out = Vec::with_capacity(size as usize);
                for k in (0..size as u64).step_by(unit as usize) {
                    let v = self.read(MSpace::Local, off as u64 + k, unit)?;
                    out.extend_from_slice(&v.to_le_bytes()[..unit as usize]);
                }
                Ok(out)
            }
            _ => Ok(self.arg(regs, arg)?.to_le_bytes().to_vec()),
        }
    }

    pub(super) fn read(&mut self, space: MSpace, addr: u64, len: u64) -> Result<u64, Fault> {
        let p = self
            .cta
            .resolve(self.warp, space, addr, len, self.lane, self.pc, false)?;
        let mut b = [0u8; 8];
        // SAFETY: resolve checked [addr, addr+len) lies in one live allocation or window.
        unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), len as usize) };
        Ok(u64::from_le_bytes(b))
    }
    pub(super) fn write(
        &mut self,
        space: MSpace,
        addr: u64,
        len: u64,
        v: u64,
    ) -> Result<(), Fault> {
        let p = self
            .cta
            .resolve(self.warp, space, addr, len, self.lane, self.pc, true)?;
        // SAFETY: as for read; the range is writable.
        unsafe { std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, len as usize) };
        Ok(())
    }
    /// A NUL-terminated string at a generic address (at most 64 KiB).
    fn cstr(&mut self, addr: u64) -> Result<Vec<u8>, Fault> {
        let mut s = Vec::new();
        for k in 0..65536u64 {
            let c = self.read(MSpace::Generic, addr + k, 1)? as u8;
            if c == 0 {
                break;
            }
            s.push(c);
        }
        Ok(s)
    }
}

/// Runs `call` for every lane of `em` in lane order. `regs` is the warp's register file.
/// Out of line: system calls are rare, and the interpreter's step function should not grow by
/// them.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn run(
    cta: &mut Cta,
    warp: &mut Warp,
    regs: &mut [u64],
    pc: u32,
    em: u32,
    call: SysCall,
    args: &[SysArg],
    ret: Option<SysRet>,
) -> Result<(), Fault> {
    let mut assert_msg: Option<String> = None;
    for l in 0..32 {
        if em >> l & 1 == 0 {
            continue;
        }
        let mut ln = Lane {
            cta,
            warp,
            lane: l,
            pc,
        };
        // Every call's scalar arguments, read once (the device runtime's take at most 8).
        let mut a = [0u64; 8];
        for (k, arg) in args.iter().enumerate().take(8) {
            a[k] = ln.arg(regs, *arg)?;
        }
        let r: u64 = match call {
            SysCall::Devrt(d) => super::devrt::call(&mut ln, regs, d, args, &a)?,
            SysCall::Vprintf => vprintf(&mut ln, a[0], a[1])? as i32 as u32 as u64,
            SysCall::Malloc => malloc(a[0]),
            SysCall::Free => {
                free(a[0]);
                0
            }
            SysCall::GraphSetConditional => {
                // A handle that is no condition variable faults like a bad store.
                ln.write(MSpace::Global, a[0], 4, a[1] as u32 as u64)?;
                0
            }
            SysCall::AssertFail => {
                let msg = String::from_utf8_lossy(&ln.cstr(a[0])?).into_owned();
                let file = String::from_utf8_lossy(&ln.cstr(a[1])?).into_owned();
                let func = String::from_utf8_lossy(&ln.cstr(a[3])?).into_owned();
                let t = ln.cta.tid_pub(ln.warp.id, l as u32);
                let c = ln.cta.ctaid;
                let text = format!(
                    "{file}:{}: {func}: block: [{},{},{}], thread: [{},{},{}] Assertion `{msg}` failed.",
                    a[2] as u32, c[0], c[1], c[2], t[0], t[1], t[2]
                );
                eprintln!("{text}");
                assert_msg.get_or_insert(text);
                0
            }
        };
        match ret {
            Some(SysRet::Local(off, size)) => {
                ln.write(MSpace::Local, off as u64, size as u64, r)?
            }
            Some(SysRet::Reg(d)) => regs[d as usize * 32 + l] = r,
            None => {}
        }
    }
    if let Some(m) = assert_msg {
        return Err(ExecError {
            kind: ExecErrorKind::Assert,
            message: format!(
                "device assertion failed in kernel '{}' (PTX line {}): {m}",
                cta.kernel, cta.prog.info[pc as usize].line
            ),
            access: None,
        });
    }
    Ok(())
}

pub(super) fn malloc(size: u64) -> u64 {
    if size == 0 {
        return 0;
    }
    let mut used = HEAP_USED.lock();
    let rounded = size.div_ceil(16) * 16;
    if *used + rounded > HEAP_SIZE.load(Ordering::Relaxed) {
        return 0;
    }
    match mem::alloc(rounded) {
        Ok(p) => {
            *used += rounded;
            HEAP_BLOCKS.lock().push((p, rounded));
            p
        }
        Err(_) => 0,
    }
}

pub(super) fn free(p: u64) {
    if p == 0 {
        return;
    }
    let mut blocks = HEAP_BLOCKS.lock();
    // Only blocks device malloc returned are freed here; anything else is ignored (undefined
    // behaviour in CUDA, never a host crash here).
    if let Some(k) = blocks.iter().position(|&(b, _)| b == p) {
        let (_, size) = blocks.swap_remove(k);
        *HEAP_USED.lock() -= size;
        let _ = mem::free(p);
        HEAP_GENERATION.fetch_add(1, Ordering::Release);
    }
}

/// Formats one device printf: the format string at `fmt` and the argument buffer at `argp`
/// (each argument aligned to its size: 4 for int-sized conversions, 8 for 64-bit integers,
/// doubles and pointers). Returns the number of arguments, or -1 for a null format.
fn vprintf(ln: &mut Lane, fmt: u64, argp: u64) -> Result<i64, Fault> {
    if fmt == 0 {
        return Ok(-1);
    }
    let f = ln.cstr(fmt)?;
    let mut out = Vec::new();
    let mut off = 0u64;
    let mut nargs = 0i64;
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            out.push(f[i]);
            i += 1;
            continue;
        }
        if f.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        // %[flags][width][.precision][length]conversion
        let start = i;
        i += 1;
        while i < f.len() && b"-+ #0".contains(&f[i]) {
            i += 1;
        }
        while i < f.len() && (f[i].is_ascii_digit() || f[i] == b'.') {
            i += 1;
        }
        let lstart = i;
        while i < f.len() && b"hlLqjzt".contains(&f[i]) {
            i += 1;
        }
        let long = f[lstart..i].iter().any(|&c| b"lLqjzt".contains(&c));
        let Some(&conv) = f.get(i) else {
            out.extend_from_slice(&f[start..]);
            break;
        };
        i += 1;
        // The spec without its length modifier; we pass the value at its C width.
        let mut spec: Vec<u8> = f[start..lstart].to_vec();
        let mut arg = |ln: &mut Lane, size: u64| -> Result<u64, Fault> {
            off = off.div_ceil(size) * size;
            let v = ln.read(MSpace::Generic, argp + off, size)?;
            off += size;
            nargs += 1;
            Ok(v)
        };
        let mut buf = vec![0u8; 512];
        let n = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
                let v = if long {
                    arg(ln, 8)?
                } else {
                    let v = arg(ln, 4)? as u32;
                    if matches!(conv, b'd' | b'i') {
                        v as i32 as i64 as u64
                    } else {
                        v as u64
                    }
                };
                spec.extend_from_slice(b"ll");
                spec.push(conv);
                if conv == b'c' {
                    spec.truncate(spec.len() - 3);
                    spec.push(b'c');
                    snprintf_int(&mut buf, &spec, v as u8 as libc::c_int)
                } else {
                    snprintf_ll(&mut buf, &spec, v as libc::c_longlong)
                }
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = f64::from_bits(arg(ln, 8)?);
                spec.push(conv);
                snprintf_f64(&mut buf, &spec, v)
            }
            b's' => {
                let p = arg(ln, 8)?;
                let s = if p == 0 {
                    b"(null)".to_vec()
                } else {
                    ln.cstr(p)?
                };
                spec.push(b's');
                let mut s0 = s;
                s0.push(0);
                let need = s0.len() + 256;
                if buf.len() < need {
                    buf.resize(need, 0);
                }
                snprintf_str(&mut buf, &spec, &s0)
            }
            b'p' => {
                let p = arg(ln, 8)?;
                spec.push(b'p');
                snprintf_ptr(&mut buf, &spec, p)
            }
            _ => {
                // Unknown conversion: printed as written, as CUDA does.
                out.extend_from_slice(&f[start..i]);
                continue;
            }
        };
        out.extend_from_slice(&buf[..n.min(buf.len() - 1)]);
    }
    append(&out);
    Ok(nargs)
}

// Each helper calls C's snprintf with one conversion and one argument of the C type the
// conversion expects, so formatting is exactly C's.

fn cspec(spec: &[u8]) -> Vec<u8> {
    let mut s = spec.to_vec();
    s.push(0);
    s
}

fn snprintf_ll(buf: &mut [u8], spec: &[u8], v: libc::c_longlong) -> usize {
    let s = cspec(spec);
    // SAFETY: `s` is NUL-terminated and has exactly one `ll` integer conversion matching `v`;
    // snprintf writes at most buf.len() bytes.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut _,
            buf.len(),
            s.as_ptr() as *const _,
            v,
        )
    };
    n.max(0) as usize
}
fn snprintf_int(buf: &mut [u8], spec: &[u8], v: libc::c_int) -> usize {
    let s = cspec(spec);
    // SAFETY: one `%c` conversion taking an int; bounded by buf.len().
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut _,
            buf.len(),
            s.as_ptr() as *const _,
            v,
        )
    };
    n.max(0) as usize
}
fn snprintf_f64(buf: &mut [u8], spec: &[u8], v: f64) -> usize {
    let s = cspec(spec);
    // SAFETY: one floating conversion taking a double; bounded by buf.len().
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut _,
            buf.len(),
            s.as_ptr() as *const _,
            v,
        )
    };
    n.max(0) as usize
}
fn snprintf_str(buf: &mut [u8], spec: &[u8], v: &[u8]) -> usize {
    let s = cspec(spec);
    // SAFETY: one `%s` conversion; `v` is NUL-terminated; bounded by buf.len().
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut _,
            buf.len(),
            s.as_ptr() as *const _,
            v.as_ptr() as *const libc::c_char,
        )
    };
    n.max(0) as usize
}
fn snprintf_ptr(buf: &mut [u8], spec: &[u8], v: u64) -> usize {
    let s = cspec(spec);
    // SAFETY: one `%p` conversion; the pointer is only printed, never dereferenced.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut _,
            buf.len(),
            s.as_ptr() as *const _,
            v as usize as *const libc::c_void,
        )
    };
    n.max(0) as usize
}
