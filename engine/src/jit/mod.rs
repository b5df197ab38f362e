//! The compiling tier: stretches of a kernel run as host code that Cranelift generates from the
//! IR, the interpreter ([`crate::exec`]) running everything else and staying the reference.
//!
//! What is compiled (see the README's "compiling tier"): the *segments* of [`plan`], straight
//! runs of per-lane ops (integer and f32/f64 arithmetic, integer conversions, comparisons,
//! selects, moves, `.shared` and `.global` loads and stores, and `atom`/`red` on `.shared` and
//! `.global`). The interpreter keeps control flow, reconvergence, barriers, warp collectives,
//! calls and everything the segments do not take; at the start of a segment it calls the
//! segment's code instead of stepping through its ops.
//!
//! Atomics run lane after lane in lane order, as the interpreter runs them: on the CTA's own
//! shared memory a plain read-modify-write inline (no other host thread touches it), on global
//! memory a host atomic instruction inline for the integer ops, and the interpreter's own
//! read-modify-write (`exec::jit_atomic`, through a pointer in [`Ctx`]) for the float adds and
//! global inc/dec. Since an atomic cannot run twice, a segment with one cannot be undone and
//! handed back whole: [`plan`] keeps every check before it, and a stopped run is resumed
//! instead (the lanes of the finished passes kept, the interpreter running the others).
//!
//! The form: op after op over the warp's lanes as host vectors ([`emit`]): 32-bit values in
//! `i32x4`, 64-bit ones in `i64x2` pairs, eight lanes per pass ([`emit::G`] = 2 groups of
//! four), passes looping over the warp; registers loaded when a pass starts and written back
//! when it ends (only those live after the segment, [`plan`]). Accesses follow the shape
//! [`plan::shapes`] predicts for their base register: lane `l` at `u + k * l` (from `%tid.x`,
//! parameters, `%ctaid`, constants and sums, products and shifts of them). A segment's
//! accesses from one value of one base are a group, checked once per pass: the lanes lie as
//! predicted (one vector compare) and one range check covers every offset of the group. The
//! accesses then need no branch: vector loads and stores (`k` = the access's size), a scalar
//! load and a splat (`k` = 0), widening loads (bytes, halves), or scalar accesses at fixed
//! offsets (other strides, `.v2`/`.v4`); a store by part of the pass goes lane by lane. A
//! failed prediction is a failed check: the interpreter runs the segment (see [`Code::run`]).
//! Bases without a prediction are accessed lane by lane, each lane checked.
//!
//! Measured with `valgrind --tool=callgrind` on `cargo bench -p engine --bench executor --
//! --threads 1 --quick --only NAME [--jit]` (instructions in `launch_within`,
//! load-independent; compiling included, then in parentheses without it):
//!
//! | workload | interpreter | lane after lane (first form) | 32 lanes a pass | 4 a pass | 8 a pass | 8, predicted shapes | and atomics |
//! |---|---|---|---|---|---|---|---|
//! | saxpy | 218M | 423M | 270M (156M) | 209M (185M) | 202M (168M) | 164M (146M) | 166M (147M) |
//! | reduction | 1642M | 1765M | 1532M (1424M) | 1509M (1477M) | 1461M (1420M) | 1405M (1384M) | 1430M (1409M) |
//! | tiled matmul | 704M | 1189M | 1424M (752M) | 773M (531M) | 800M (484M) | 227M (184M) | 229M (185M) |
//! | histogram | 231M | 334M | 392M (272M) | 319M (295M) | 314M (280M) | 199M (173M) | 162M (133M) |
//!
//! Lane after lane lost everywhere: a scalar op and a check per lane cost more than the
//! interpreter's AVX2 lane loops. Whole-warp passes run fastest once compiled but are the
//! slowest to compile: Cranelift's register allocator dominates (every value is 8 or 16 host
//! vectors, spilled across the blocks of the accesses), and the benchmark runs each kernel
//! once. Eight lanes a pass is the best total. Classifying each access at run time (per four
//! lanes: uniform, back to back, else lane by lane) cost a dozen blocks per access, most of
//! the compile time (the matmul's 32 shared loads: 316M instructions of compiling); predicting
//! the shape and checking it once per base value cut the matmul's compiling to 44M and its
//! run to 184M, and compiling `cvt` and `mul.wide.u16` joined the histogram's segments. The
//! compiled tier now runs each workload in fewer instructions than the interpreter, compiling
//! included.
//!
//! Atomics (last column; the previous one re-measured on the same day's build: saxpy 164M
//! (146M), reduction 1409M (1387M), matmul 228M (184M), histogram 197M (171M)): the
//! histogram's loop, whose `atom.shared.add` cut it in two, is one segment now. Through a call
//! per lane to the interpreter's read-modify-write it ran *slower* than interpreted (423M: a
//! call clobbers every vector register, and the histogram does one atomic per element); a
//! plain read-modify-write inline, the pass unrolled when all its lanes are active, the
//! addresses checked as vectors, made it 162M. The other workloads have no atomics; their
//! 1-2M more are the interpreter's loop (reduction runs mostly interpreted), not compiled code.
//!
//! Next: keep statically uniform values scalar (the histogram's loop counters and bounds are
//! eight lanes of one value), compile only hot segments or in the background (compiling is
//! 28M of the histogram's 162M, 44M of the matmul's 229M), switch a segment off after a few
//! failed checks rather than `MAX_STOPS` (not measured yet), atomics on `.shared::cluster`
//! and 16-bit ones.
//!
//! Compiled code is kept on disk between processes ([`cache`], `CUDA_SHIM_CACHE_DIR`, read by
//! the driver): a program launched again loads its segments' machine code instead of compiling.
//!
//! Modes (`CUDA_SHIM_JIT`, read by the driver): `off` interprets everything; `on` (the
//! driver's default) runs compiled segments; `verify` runs segments both ways (each on its
//! first runs and then ever more rarely, [`Code::verify_this`]), the interpreter's results
//! kept, and reports the first difference (register, lane, PTX line, both values) on stderr.

pub mod cache;
mod emit;
mod exec_mem;
pub(crate) mod plan;

use crate::ir::Program;
use plan::Seg;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, RwLock};

/// How launches run: the interpreter only, compiled segments, or both compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Off,
    On,
    Verify,
}

static MODE: AtomicU8 = AtomicU8::new(0);

/// Sets the tier of launches of kernels that do not choose their own ([`crate::Kernel::set_jit`]).
pub fn set_mode(m: Mode) {
    MODE.store(m as u8, Ordering::Relaxed);
}

pub fn mode() -> Mode {
    from_u8(MODE.load(Ordering::Relaxed)).unwrap_or(Mode::On)
}

static CACHE: RwLock<Option<Arc<cache::Cache>>> = RwLock::new(None);

/// Where compiled code is kept between processes ([`cache`]; None: nowhere, the default).
pub fn set_cache_dir(dir: Option<PathBuf>) {
    let c = dir.map(|d| Arc::new(cache::Cache::new(d)));
    *CACHE.write().unwrap_or_else(|e| e.into_inner()) = c;
}

/// The directory [`set_cache_dir`] chose.
pub fn cache_dir() -> Option<PathBuf> {
    let c = CACHE.read().unwrap_or_else(|e| e.into_inner());
    c.as_ref().map(|c| c.dir().to_path_buf())
}

fn current_cache() -> Option<Arc<cache::Cache>> {
    CACHE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

pub(crate) fn from_u8(v: u8) -> Option<Mode> {
    match v {
        0 => Some(Mode::Off),
        1 => Some(Mode::On),
        2 => Some(Mode::Verify),
        _ => None,
    }
}

/// Entries of the per-worker allocation cache a segment checks global accesses against.
pub const GCACHE: usize = 4;

/// What a segment's code reads besides the register file, and where it leaves its results.
/// Laid out for the generated code (`emit.rs` reads the fields by offset).
#[repr(C)]
pub struct Ctx {
    /// This CTA's shared memory and its length.
    pub shared: *mut u8,
    pub shared_len: u64,
    /// Thread-instructions of the segment's guarded ops whose guard held (out).
    pub count: u64,
    /// Rows of the registers in [`Seg::undo`], 32 slots each (out, on a stopped run).
    pub undo: *mut u64,
    /// Global ranges `[lo, hi)` a kernel may reach (the worker's `GCache`).
    pub gcache: [(u64, u64); GCACHE],
    /// One lane's atomic, the interpreter's ([`crate::exec::jit_atomic`]): passed here rather
    /// than linked, so that the code stays free of relocations.
    pub atomic: unsafe extern "C" fn(*mut u8, u64, u64, u64) -> u64,
}

type SegFn = unsafe extern "C" fn(*mut u64, u32, *mut Ctx) -> u64;

/// A program's compiled segments.
pub struct Code {
    segs: Vec<Seg>,
    fns: Vec<SegFn>,
    /// Per pc: index into `segs` + 1 of the segment starting there, 0 for none.
    at: Vec<u32>,
    /// Stops per segment (failed checks); a segment that keeps stopping is left to the
    /// interpreter, which then pays no double work.
    stops: Vec<AtomicU64>,
    /// Runs per segment in verify mode ([`Code::verify_this`]).
    runs: Vec<AtomicU64>,
    _mem: exec_mem::ExecMem,
    /// Ops in the segments, and the time getting the code took this process (for `--stats`).
    pub ops: usize,
    pub compile_ns: u64,
    /// Whether the code came from the on-disk cache ([`cache`]), and then how long compiling
    /// it took the process that did (else `compile_ns`).
    pub cached: bool,
    pub compiled_ns: u64,
}

/// What `--stats` says of a kernel's code ([`crate::Kernel::jit_summary`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    pub segments: usize,
    pub ops: usize,
    /// Nanoseconds getting the code took: compiling it, or loading it from the cache.
    pub ns: u64,
    /// Loaded from the on-disk cache.
    pub cached: bool,
    /// Nanoseconds compiling it took (in the process that wrote the cache entry, if cached).
    pub compiled_ns: u64,
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code")
            .field("segments", &self.segs.len())
            .field("ops", &self.ops)
            .finish()
    }
}

// SAFETY: the code is immutable once made executable; the function pointers point into `_mem`,
// which lives as long as `Code`.
unsafe impl Send for Code {}
unsafe impl Sync for Code {}

/// Stops after which a segment is no longer entered.
const MAX_STOPS: u64 = 1 << 12;

impl Code {
    /// Compiles the segments of `prog`, or loads them from the cache directory the driver
    /// chose ([`set_cache_dir`]); None when there are none or the host has no backend.
    pub fn compile(prog: &Program) -> Option<Code> {
        Self::compile_with(prog, current_cache().as_deref())
    }

    /// [`Code::compile`] with the cache `cache` (None: compiled, nothing kept).
    pub fn compile_with(prog: &Program, cache: Option<&cache::Cache>) -> Option<Code> {
        let t0 = std::time::Instant::now();
        let segs = plan::segments(prog);
        if segs.is_empty() {
            return None;
        }
        let isa = isa()?;
        let nsegs = segs.len();
        let cache = cache.and_then(|c| Some((c, cache::key(prog, &*isa)?)));
        if let Some((c, key)) = &cache {
            if let Some(e) = c.load(key, nsegs) {
                let kept = e.kept.iter().map(|&i| segs[i as usize].clone()).collect();
                return Self::assemble(prog, kept, &e.blobs, t0, Some(e.compiled_ns));
            }
        }
        let shapes = plan::shapes(prog);
        let mut blobs = Vec::new();
        let mut kept = Vec::new();
        let mut kept_at = Vec::new();
        for (i, s) in segs.into_iter().enumerate() {
            match emit::segment(&*isa, prog, &s, &shapes) {
                Ok(code) => {
                    blobs.push(code);
                    kept.push(s);
                    kept_at.push(i as u32);
                }
                // An op the host backend cannot take: that segment stays interpreted.
                Err(e) => note(&format!(
                    "jit: ops {}..{} stay interpreted: {e}",
                    s.start, s.end
                )),
            }
        }
        let code = Self::assemble(prog, kept, &blobs, t0, None);
        if let Some((c, key)) = &cache {
            // (Kept even when no segment compiled: the next process then skips trying.)
            let entry = cache::Entry {
                kept: kept_at,
                blobs,
                compiled_ns: code
                    .as_ref()
                    .map_or(t0.elapsed().as_nanos() as u64, |c| c.compile_ns),
            };
            c.store(key, nsegs, &entry);
        }
        code
    }

    /// The code of the segments `kept` from their machine code `blobs` (`cached`: how long
    /// compiling them took, when they came from the cache).
    fn assemble(
        prog: &Program,
        kept: Vec<Seg>,
        blobs: &[Vec<u8>],
        t0: std::time::Instant,
        cached: Option<u64>,
    ) -> Option<Code> {
        if kept.is_empty() {
            return None;
        }
        let (mem, offsets) = exec_mem::ExecMem::new(blobs)?;
        let fns = offsets
            .iter()
            // SAFETY: each offset is the start of a function compiled with the `SegFn`
            // signature (here or, as the cache entry's key and checksum ensure, by this build
            // for this program and host), in memory that is now executable.
            .map(|&o| unsafe { std::mem::transmute::<*const u8, SegFn>(mem.ptr().add(o)) })
            .collect();
        let mut at = vec![0u32; prog.insts.len() + 1];
        for (i, s) in kept.iter().enumerate() {
            at[s.start as usize] = i as u32 + 1;
        }
        let ops = kept.iter().map(|s| (s.end - s.start) as usize).sum();
        let ns = t0.elapsed().as_nanos() as u64;
        Some(Code {
            stops: kept.iter().map(|_| AtomicU64::new(0)).collect(),
            runs: kept.iter().map(|_| AtomicU64::new(0)).collect(),
            segs: kept,
            fns,
            at,
            _mem: mem,
            ops,
            compile_ns: ns,
            cached: cached.is_some(),
            compiled_ns: cached.unwrap_or(ns),
        })
    }

    /// What `--stats` says of this code.
    pub fn summary(&self) -> Summary {
        Summary {
            segments: self.segs.len(),
            ops: self.ops,
            ns: self.compile_ns,
            cached: self.cached,
            compiled_ns: self.compiled_ns,
        }
    }

    /// The segment starting at `pc` that a path with reconvergence point `rpc` may run whole.
    #[inline(always)]
    pub fn at(&self, pc: u32, rpc: u32) -> Option<usize> {
        let i = *self.at.get(pc as usize)?;
        if i == 0 {
            return None;
        }
        let s = &self.segs[i as usize - 1];
        // (The path must not reach its reconvergence point inside the segment.)
        (!(pc < rpc && rpc < s.end)
            && self.stops[i as usize - 1].load(Ordering::Relaxed) < MAX_STOPS)
            .then_some(i as usize - 1)
    }

    pub fn seg(&self, i: usize) -> &Seg {
        &self.segs[i]
    }

    /// Whether verify mode compares this run of segment `i` with the interpreter: its first 4
    /// runs, then those whose count is a power of two. A comparison snapshots the CTA's shared
    /// memory twice, which for a short segment and 48 KiB costs a hundred times the segment
    /// (comparing every run made thrust's radix sort 30 times slower, the first 64 runs still
    /// 20 times: 1,139 segments); every segment is still compared on its first runs and again
    /// as it keeps running, so a test suite run in verify mode (the project's is) covers every
    /// segment it reaches at a bounded cost. The other runs run compiled, as in `on` mode.
    pub fn verify_this(&self, i: usize) -> bool {
        let n = self.runs[i].fetch_add(1, Ordering::Relaxed);
        n < 4 || n.is_power_of_two()
    }

    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    /// Runs segment `i` over lanes `mask` of `regs`. `Ok` when every lane ran through; on a
    /// failed check, `Err(done)`: the lanes `done` finished the segment and the interpreter
    /// runs it from its start for the others. Without atomics `done` is empty: the registers
    /// are as before the call (stores it repeats write the same values, see [`plan`]); with
    /// them, the lanes of the passes before the failed one are done (an atomic cannot run
    /// twice), `ctx.count` counting their guarded ops.
    ///
    /// # Safety
    /// `regs` is a register file of the program, `ctx` describes the running CTA.
    #[inline(always)]
    pub unsafe fn run(
        &self,
        i: usize,
        regs: &mut [u64],
        mask: u32,
        ctx: &mut Ctx,
    ) -> Result<(), u32> {
        let seg = &self.segs[i];
        // (Not initialised: the code writes a slot before this function reads it.)
        let mut buf = std::mem::MaybeUninit::<[u64; 32 * plan::MAX_UNDO]>::uninit();
        ctx.undo = buf.as_mut_ptr() as *mut u64;
        ctx.count = 0;
        // SAFETY: forwarded; the function reads and writes rows of registers of the program
        // (all below `nregs`), `ctx`'s fields and checked memory only.
        let r = unsafe { (self.fns[i])(regs.as_mut_ptr(), mask, ctx) };
        if r == 0 {
            return Ok(());
        }
        self.stops[i].fetch_add(1, Ordering::Relaxed);
        // Lanes before the failed one are done.
        let done = mask & ((1u64 << (r - 1)) - 1) as u32;
        if seg.atomic {
            return Err(done);
        }
        // Without atomics, put their old values back.
        for (j, &reg) in seg.undo.iter().enumerate() {
            for l in 0..32 {
                if done >> l & 1 != 0 {
                    // SAFETY: ctx.undo has 32 slots per register of seg.undo (buf above).
                    regs[reg as usize * 32 + l] = unsafe { *ctx.undo.add(j * 32 + l) };
                }
            }
        }
        Err(0)
    }
}

static NOTE: std::sync::OnceLock<fn(&str)> = std::sync::OnceLock::new();

/// Where the tier's remarks go (the driver's trace): what stays interpreted and why.
pub fn set_note(f: fn(&str)) {
    let _ = NOTE.set(f);
}

pub(crate) fn note(s: &str) {
    if let Some(f) = NOTE.get() {
        f(s)
    }
}

static MISMATCHES: AtomicU64 = AtomicU64::new(0);

/// Differences verify mode found so far (in this process).
pub fn mismatches() -> u64 {
    MISMATCHES.load(Ordering::Relaxed)
}

/// Reports a difference between the tiers: on stderr (the first few) and in the trace.
#[cold]
pub(crate) fn mismatch(what: &str) {
    let n = MISMATCHES.fetch_add(1, Ordering::Relaxed);
    if n < 8 {
        eprintln!("cuda-shim: jit verify: {what}");
    }
    note(&format!("jit verify: {what}"));
}

/// The host's code generator, with every feature the host has (FMA among them: without it,
/// `fma` would need a library call, which the segments do not link).
fn isa() -> Option<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>> {
    use cranelift_codegen::settings::{self, Configurable};
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").ok()?;
    flags.set("enable_verifier", "false").ok()?;
    let builder = cranelift_native::builder().ok()?;
    builder.finish(settings::Flags::new(flags)).ok()
}
