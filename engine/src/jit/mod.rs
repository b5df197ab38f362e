//! The compiling tier: stretches of a kernel run as host code that Cranelift generates from the
//! IR, the interpreter ([`crate::exec`]) running everything else and staying the reference.
//!
//! What is compiled (see the README's "compiling tier"): the *segments* of [`plan`], straight
//! runs of per-lane ops (integer and f32/f64 arithmetic, integer conversions, comparisons,
//! selects, moves, `.shared` and `.global` loads and stores, `atom`/`red` on `.shared` and
//! `.global`, the special registers of the launch's geometry, `%tid`, `%ntid`, `%ctaid`,
//! `%nctaid` and `%laneid` (from [`Ctx`]), and `ld.param` at fixed offsets). The interpreter
//! keeps control flow, reconvergence, barriers, warp collectives, calls and everything the
//! segments do not take; at the start of a segment it calls the segment's code instead of
//! stepping through its ops. One branch is taken in compiled code: the back edge of a loop
//! whose body is one segment ([`plan::Back`]), while every active lane takes it (see "Loops"
//! below).
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
//! When to compile (2026-11-27, issue 12): `on` compiled every kernel at its first launch, and
//! thrust's and CUB's programs ran slower on it than on the interpreter. Their kernels run
//! briefly and compiling costs about 0.1 ms per op (`lib_thrust` of `tests/libraries.rs`: 127
//! kernels, 162,217 ops, compiled in 16-25 s on this loaded 2-core machine, while the whole
//! program runs in 3 s of CPU on the interpreter). Failed checks were not the cause: there,
//! 410 of 22,000 segments stopped at all, 2,844 times in all (a few ms), none near the old
//! limit of 4096 stops. Now `on` compiles a kernel once it is hot ([`HOT_PER_OP`],
//! `CUDA_SHIM_JIT_HOT`; verify mode still compiles every kernel it runs), a kernel a sixteenth
//! of the way there loads its code from the cache if an earlier process compiled it, and a
//! segment that fails its checks [`MAX_FAILS`] times in a row is switched off. `cuda-shim run
//! --stats`, CPU seconds (`/usr/bin/time`, user; wall time on this shared machine varied 2x),
//! cache off unless said; "before" is this build with `CUDA_SHIM_JIT_HOT=0`, which compiles
//! as the previous one did (that one, measured first: `lib_thrust` 18.7 s of CPU, 16.1 s of it
//! compiling, against 2.9 s `off`); the warm cache of the last column is one those runs
//! filled (hot kernels alone leave `lib_thrust` nothing to cache):
//!
//! | program | interpreter (`off`) | `on`, every kernel at its first launch (before) | `on`, hot kernels (after) |
//! |---|---|---|---|
//! | `lib_thrust` | 3.18, 3.07 s | 19.58, 19.57 s (127 kernels compiled) | 3.28, 3.05 s (none compiled) |
//! | `lib_thrust`, warm cache | | 3.15 s (127 loaded, 0.28 s) | 3.13 s (29 loaded, 0.09 s) |
//! | `thrust_sort` (2^24 keys) | 16.62, 15.29 s | 19.15, 17.45 s (5 compiled) | 17.33, 16.66 s (3 compiled) |
//! | the same on one worker | 14.38 s | 15.13 s | 15.05 s |
//! | `cub_scan` (2^24) | 1.21, 1.18 s | 1.59, 1.42 s (2 compiled) | 1.58, 1.49 s (1 compiled) |
//!
//! `lib_thrust` (and every program of brief kernels) now runs as on the interpreter. The two
//! `scripts/bench` programs still lose 5-25% of CPU: their hot kernels (CUB's onesweep radix
//! sort, 2928 ops; the decoupled look-back scan, 913 ops) run no faster compiled, so
//! compiling them, however late, is a loss. Under `valgrind --tool=callgrind` (`cub_scan` built
//! without `-march=native`, `CUDA_SHIM_THREADS=1`, `CUDA_SHIM_INJECT=alloc-budget=2G` for
//! valgrind's address space; instructions of the whole process, then of `launch_within`, then
//! compiling): interpreter 7.94G, 7.17G; every kernel at its first launch 9.09G, 8.32G, 0.60G;
//! hot kernels 8.85G, 8.08G, 0.59G: without compiling, the launches ran 4.5% (hot) and 7.7%
//! (all) *more* instructions compiled than interpreted. Empty-kernel launch + synchronize
//! (`scripts/bench-programs.sh launch`; an empty kernel compiles nothing either way): before,
//! 2.27 us `off` and 2.48 us `on` (the quietest runs); after, 7.1 to 50 us `off` and 2.3 to
//! 97 us `on`, the machine's load deciding.
//!
//! Longer segments (2026-11-27, issue 12). Profiled first: `perf record` of the whole-program
//! stencil (`scripts/bench/stencil.cu`, the worst ratio of `scripts/bench-programs.sh`, 61x)
//! put 33% of the samples in the interpreter's loop (`Warp::run_avx2`) and 8% in
//! `Cta::tid_lanes`, against 11% in compiled code: the kernel's 47 ops ran as two segments
//! (ops 10-18 and 20-44) and 14 interpreted ops per warp, its prologue (`ld.param`, the `mov`s
//! of `%tid`, `%ntid`, `%ctaid`, the first `mad`) and its one store. Every kernel of
//! `scripts/bench` has such a prologue, and its final `st.global` after `ld.global`s, which
//! the rule of [`plan`] (no store to a space a segment loads from) left to the interpreter.
//! Two changes: the special registers of the launch's geometry and parameter loads compile
//! (uniform values splat from [`Ctx`], `%tid` from rows the interpreter fills once per segment
//! entry, [`crate::exec`]'s `Cta::tid_rows`, a run of lanes per row of the block instead of a
//! branch per lane, which the interpreter's `%tid` now uses too); and a `.global` store after
//! `.global` loads is deferred to the segment's end ([`plan::Seg::defer`]: kept per pass,
//! stored for the whole warp once every pass passed
//! its checks, so all lanes load before any stores, as interpreted, and a failed check has
//! stored nothing). The stencil's kernel is now 45 of its 48 ops compiled in two segments, two
//! branches interpreted. Measured (this 2-core machine, shared and noisy, before = the build
//! before both, after = both; alternating rounds of `scripts/bench-programs.sh`'s programs run
//! with `cuda-shim run`, the shim's milliseconds, the quietest round): saxpy 70.9 / 64.5,
//! reduction 78.9 / 72.2, sgemm 104.5 / 106.8, histogram 65.3 / 69.4, n-body 93.3 / 93.8,
//! stencil 428.8 / 218.8 (the stencil halves in every round: 691, 798, 429 / 328, 227, 219);
//! the geometric mean of the best shim time of three rounds against the fastest native time
//! of all six runs, 10.5x / 9.2x; a second session with the final build (the two quieter of
//! three rounds): saxpy 74.2, 75.6 / 66.7, 66.3, reduction 81.0, 80.1 / 77.7, 77.8, sgemm
//! 108.0, 109.2 / 109.1, 107.8, histogram 80.4, 81.2 / 62.5, 63.1, n-body 91.7, 92.3 / 97.3,
//! 94.1, stencil 424.6, 430.1 / 223.9, 227.4, the shim's time 0.85x in geometric mean. Under `valgrind --tool=callgrind` (instructions in
//! `launch_within` of `cargo bench -p engine --bench executor -- --threads 1 --quick --jit
//! --only NAME`, compiling included), before / the special registers and parameters alone /
//! both: saxpy 166.8M / 152.9M / 125.1M, reduction 1428M / 1334M / 1352M, matmul 229.8M /
//! 228.7M / 229.3M, histogram 162.5M / 160.8M / 161.5M. In verify mode a compared segment's deferred store is not made
//! ([`Ctx::dry`]): the interpreter reruns the segment against the memory it read and stores,
//! and the registers are compared as for any segment; the differential fuzzer (`tests/jit.rs`,
//! whose kernels store to global memory after global loads) compares both tiers' outputs bit
//! for bit, and a test loads the words other lanes store.
//!
//! Next (done since, see "Loops" below): a loop whose body is one segment returned to the
//! interpreter for its back edge every iteration. Then find why the radix sort's and the scan's compiled segments gain nothing (few ops per segment between
//! the interpreter's barriers and warp collectives?), compile in the background instead of
//! on a launch's worker, keep statically uniform values scalar (the histogram's loop counters
//! and bounds are eight lanes of one value), atomics on `.shared::cluster` and 16-bit ones.
//!
//! Loops (2026-11-28, issue 12). A segment that ends in a branch back to its own start (`bra`
//! or `@p bra`: a loop whose body is one segment, [`plan::Back`]) takes that branch in its
//! code: after its last pass and its deferred store it reads the guard's row from the register
//! file, and while every active lane takes the branch it starts the next iteration at pass 0
//! ([`Ctx::iters`] counts them). Each iteration is a whole run of the segment, as if the
//! interpreter had called it again (registers go through the register file between
//! iterations, the undo rows and the deferred store are those of the iteration running), so
//! what held of one run holds of the last iteration: a failed check stops it, the iterations
//! before it stand (their stores made, their atomics done), and the interpreter runs the
//! stopped iteration from the loop's head (with an atomic, the lanes not done, as before). The
//! code returns at the branch, which the interpreter then runs as before, where the lanes
//! diverge or all leave, and after [`Ctx::max_iters`] back edges: the interpreter passes what
//! is left of the warp's time slice (`exec::schedule`) less one and counts the back edges taken
//! against it, so a warp spinning on another yields after as many backward branches as
//! interpreted, and a seeded schedule interleaves warps as on the interpreter. Not on a path
//! whose reconvergence point is the branch itself (it ends there), nor on a run verify mode
//! compares: there the code runs one iteration, records whether every lane would take the
//! branch ([`Ctx::taken`]), and that is compared with the interpreter's branch after its run.
//! Thread-instruction counts are the interpreter's (the tests compare them). `--stats` counts
//! the back edges taken in compiled code: of `scripts/bench-programs.sh`'s programs, saxpy's,
//! the reduction's and the histogram's grid-stride loops now stay compiled (2.1M, 1.5M and 1.6M
//! back edges); the n-body's inner loop is five segments (its `rsqrt.approx.f32`s are
//! interpreted), the tiled sgemm's inner loop is unrolled and its outer one has barriers, the
//! stencil has none.
//!
//! Measured: first, same build with the looping switched off by a temporary switch and on
//! (alternating, `scripts/bench-programs.sh`'s programs under `cuda-shim run`, CPU time of the
//! whole process, native twin included, by `perf stat`; 2 rounds x 8 placements of the code,
//! below), median / least, off against on: saxpy 931 / 852 ms against 858 / 753 ms, reduction
//! 581 / 541 against 537 / 496, histogram 572 / 440 against 519 / 279; on won 12, 13 and 14
//! of the 16 pairs. The executor benchmark (`--threads 1 --quick --jit --only NAME`, the same
//! 16 runs each), median ms: saxpy 19.8 / 16.9, reduction 183 / 169, histogram 41.7 / 36.7,
//! matmul 36.0 / 32.3 (the machine's load: none of the matmul's loops is one segment).
//! Whole programs, the build before (main) and this one alternating, three rounds on a
//! quieter machine, the shim's ms: saxpy 70, 64, 78 / 63, 63, 88; reduction 70, 76, 133 / 85,
//! 70, 110; histogram 47, 42, 65 / 66, 79, 129 (its code's placement, below); n-body 43, 48,
//! 88 / 51, 43, 88; stencil 104, 102, 189 / 110, 100, 187; sgemm 53, 51, 84 / 50, 53, 80
//! (`scripts/bench-programs.sh`'s geometric mean of the ratios to native, this build, two runs:
//! 13.6x, 13.1x, the native times of that hour being a third of the earlier ones).
//! Under `valgrind --tool=callgrind` (instructions in `launch_within`, load-independent,
//! compiling included), the build before (main) / this one:
//!
//! | workload | before | compiled loops |
//! |---|---|---|
//! | saxpy | 127.2M | 114.6M |
//! | reduction | 1382M | 1408M |
//! | tiled matmul | 232.3M | 234.6M |
//! | histogram | 163.2M | 153.8M |
//!
//! saxpy's and the histogram's loops stay compiled (10% and 6% fewer instructions). The
//! reduction's grid-stride loop does too, but the kernel runs mostly interpreted (barriers and
//! shuffles between short segments), and its 2% more are the interpreter's: the few
//! instructions per segment call the loops add (the three new fields of [`Ctx`], the test of
//! `iters`), and the register allocation of the interpreter's loop, which the change moved:
//! first 5% more, from a `zip` of arrays that rustc stopped inlining in `exec::regfile::split`
//! (now a loop over indices); the matmul's 1% likewise.
//!
//! The placements: comparing the histogram program's builds before and after first showed it
//! twice as slow after (300 against 500-600 ms of CPU, in every run), and as slow with the
//! looping switched off. `perf` put the difference in the segment's inline shared atomics (a
//! tenth of the samples before, 40% after), whose code was the same instructions. Moving the
//! compiled code within its mapping by multiples of 64 bytes (a temporary switch in
//! [`exec_mem`]) gave 284 ms at one offset of eight and ~500 at the others: on this host (AMD
//! EPYC; a store-to-load forwarding predictor indexed by the instructions' addresses would do
//! this, unverified) the speed of that code depends on where it lies, by up to 2x, so
//! comparisons of two builds of a kernel with atomics in a loop must vary the placement, as
//! above, or count instructions. (Left alone: only this kernel was measured so.)
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
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
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

/// Thread-instructions per IR op a kernel runs on the interpreter, on the `on` tier, before
/// its code is made ([`set_hot`]; 0: at its first launch).
static HOT: AtomicU64 = AtomicU64::new(0);

/// What the driver sets with [`set_hot`]: a kernel is compiled once its launches have run
/// `2^18` thread-instructions per op of its IR on the interpreter. Compiling costs about 99 us
/// per op (`lib_thrust`'s 127 kernels, 162,217 ops: 16.1 s on this 2-core machine), the
/// interpreter about 1.1 ns a thread-instruction (the same program's 2.14G in 2.3 s): about
/// 90,000 thread-instructions per op; where compiled code wins it saves a sixth to two thirds
/// of the interpreter's instructions (the executor benchmark, table above), say a third, so
/// compiling pays for itself after about 3 x 90,000 thread-instructions per op. Compiling
/// once the kernel has run that far (the rule of renting skis) costs at most about twice the
/// better choice, and a program of kernels that each run briefly (thrust's and CUB's tests)
/// compiles nothing. At `2^16`, 11 of `lib_thrust`'s 127 kernels compiled part way through their
/// last launches and the program took 4.1 s of CPU against the interpreter's 3.5 s.
pub const HOT_PER_OP: u64 = 1 << 18;

/// Sets when the `on` tier compiles a kernel: once its launches have run `per_op`
/// thread-instructions per op of its IR on the interpreter (0, the engine's default: at its
/// first launch; the driver sets [`HOT_PER_OP`]). A kernel that gets so far a sixteenth of the
/// way loads its code from the cache ([`set_cache_dir`]) if an earlier process compiled it.
/// Verify mode compiles at the first launch whatever this says.
pub fn set_hot(per_op: u64) {
    HOT.store(per_op, Ordering::Relaxed);
}

pub fn hot() -> u64 {
    HOT.load(Ordering::Relaxed)
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
    /// The launch's parameter bytes (`ld.param`) and their length.
    pub params: *const u8,
    pub params_len: u64,
    /// The warp's `%tid.x`, `.y` and `.z`, 32 lanes each, when the segment reads them
    /// ([`plan::Seg::tid`]; else unset).
    pub tid: *const u32,
    /// `%ntid`, `%ctaid` and `%nctaid`, x, y and z each.
    pub sreg: [u32; 9],
    /// Nonzero: a deferred store ([`plan::Seg::defer`]) is computed and checked but not
    /// made, so that verify mode can rerun the segment on the interpreter against the same
    /// memory and compare the registers.
    pub dry: u64,
    /// A loop body's segment ([`plan::Seg::back`]): how many times at most the code may take
    /// the back edge itself (in; 0: it runs once). The interpreter passes what is left of the
    /// warp's time slice less one, so that the warp yields after as many backward branches as
    /// interpreted (`exec::schedule`).
    pub max_iters: u64,
    /// Back edges the code took: the iterations it finished before the last (out).
    pub iters: u64,
    /// Whether every active lane takes the back edge after the last iteration it ran (out;
    /// verify mode compares it with the interpreter's branch).
    pub taken: u64,
}

type SegFn = unsafe extern "C" fn(*mut u64, u32, *mut Ctx) -> u64;

/// A program's compiled segments.
pub struct Code {
    segs: Vec<Seg>,
    fns: Vec<SegFn>,
    /// Per pc: index into `segs` + 1 of the segment starting there, 0 for none.
    at: Vec<u32>,
    /// Stops per segment (failed checks), for `--stats`.
    stops: Vec<AtomicU64>,
    /// Stops per segment since its last run that passed its checks: at [`MAX_FAILS`] it is
    /// left to the interpreter, which then pays no double work.
    fails: Vec<AtomicU32>,
    /// Runs per segment in verify mode ([`Code::verify_this`]).
    runs: Vec<AtomicU64>,
    /// Back edges per loop body's segment that its code took itself ([`Ctx::iters`]), for
    /// `--stats` and the tests.
    looped: Vec<AtomicU64>,
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
    /// Failed checks so far (runs stopped and handed to the interpreter).
    pub stops: u64,
    /// Segments switched off so far ([`MAX_FAILS`] failed checks in a row).
    pub off: usize,
    /// Back edges of loops that compiled code took without returning to the interpreter.
    pub looped: u64,
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

/// Failed checks in a row (no run of the segment passing its checks in between) after which
/// a segment is no longer entered: its prediction ([`plan::shapes`]) is wrong for how the
/// kernel is launched, and each try costs a part-run and its undoing on top of the
/// interpreter's run. A check also fails, once, while a worker's allocation cache
/// (`Ctx::gcache`) is cold at a launch's start, and a run that passes ends the count: so the
/// number is above the workers that start a launch together on most hosts (a host with more
/// could switch off a segment at a launch's start: slower, never other results). Measured
/// (2026-11-27, every kernel compiled at its first launch, `CUDA_SHIM_JIT_HOT=0`): in
/// `lib_thrust` (`tests/libraries.rs`) 410 of 22,000 segments stopped, 2,844 times in all, 6 of
/// them 32 times in a row (those stopped on every run: switched off); in `thrust_sort` and
/// `cub_scan` (`scripts/bench`) 22 and 11 stops, at most 2 in a row. The limit was 4096 stops in
/// all, which bounded the waste too but would also switch off a segment that stops once per
/// launch and worker, a few thousand launches in; a run of 32 is never reached by that.
pub const MAX_FAILS: u32 = 32;

impl Code {
    /// Compiles the segments of `prog`, or loads them from the cache directory the driver
    /// chose ([`set_cache_dir`]); None when there are none or the host has no backend.
    pub fn compile(prog: &Program) -> Option<Code> {
        Self::compile_with(prog, current_cache().as_deref())
    }

    /// The code of `prog` from the cache directory the driver chose when it holds it
    /// (`Some(None)`: nothing of it compiles), None when it does not; compiles nothing.
    pub fn load(prog: &Program) -> Option<Option<Code>> {
        let cache = current_cache()?;
        let t0 = std::time::Instant::now();
        let Some(isa) = isa() else {
            return Some(None);
        };
        let key = cache::key(prog, &*isa)?;
        // (Planned only for an entry: most kernels asked have none.)
        if !cache.holds(&key) {
            return None;
        }
        let segs = plan::segments(prog);
        if segs.is_empty() {
            return Some(None);
        }
        Self::from_cache(prog, &segs, &cache, &key, t0)
    }

    /// The code of the segments `segs` of `prog` from the cache entry `key` of `c`, if any.
    fn from_cache(
        prog: &Program,
        segs: &[Seg],
        c: &cache::Cache,
        key: &cache::Key,
        t0: std::time::Instant,
    ) -> Option<Option<Code>> {
        let e = c.load(key, segs.len())?;
        let kept = e.kept.iter().map(|&i| segs[i as usize].clone()).collect();
        Some(Self::assemble(
            prog,
            kept,
            &e.blobs,
            t0,
            Some(e.compiled_ns),
        ))
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
            if let Some(code) = Self::from_cache(prog, &segs, c, key, t0) {
                return code;
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
            fails: kept.iter().map(|_| AtomicU32::new(0)).collect(),
            runs: kept.iter().map(|_| AtomicU64::new(0)).collect(),
            looped: kept.iter().map(|_| AtomicU64::new(0)).collect(),
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
            stops: self.stops.iter().map(|s| s.load(Ordering::Relaxed)).sum(),
            off: (self.fails.iter())
                .filter(|f| f.load(Ordering::Relaxed) >= MAX_FAILS)
                .count(),
            looped: self.looped.iter().map(|s| s.load(Ordering::Relaxed)).sum(),
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
            && self.fails[i as usize - 1].load(Ordering::Relaxed) < MAX_FAILS)
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

    /// Counts `n` back edges that segment `i`'s code took (for `--stats`).
    pub fn looped(&self, i: usize, n: u64) {
        self.looped[i].fetch_add(n, Ordering::Relaxed);
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
    /// A loop body's segment ([`plan::Seg::back`]) may first run `ctx.iters` whole iterations
    /// (at most `ctx.max_iters`), each followed by its back edge, taken by every lane in
    /// `mask`: all of this stands, and what is said above holds of the last iteration, whose
    /// branch is left to the interpreter (`ctx.count` then also counts the guarded ops of the
    /// iterations before it).
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
        ctx.iters = 0;
        // SAFETY: forwarded; the function reads and writes rows of registers of the program
        // (all below `nregs`), `ctx`'s fields and checked memory only.
        let r = unsafe { (self.fns[i])(regs.as_mut_ptr(), mask, ctx) };
        if r == 0 {
            // (Read first: a segment that never stops writes nothing shared.)
            let f = self.fails[i].load(Ordering::Relaxed);
            if f != 0 && f < MAX_FAILS {
                self.fails[i].store(0, Ordering::Relaxed);
            }
            return Ok(());
        }
        self.stops[i].fetch_add(1, Ordering::Relaxed);
        self.fails[i].fetch_add(1, Ordering::Relaxed);
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
