//! Launching: CTAs of a grid run in parallel on a pool of host threads (created lazily at the
//! first launch, so loading the library starts no thread); each CTA runs its warps on one host
//! thread, which keeps barriers and shared memory simple and runs deterministic.
//!
//! A cooperative launch ([`launch_cooperative`]) needs every CTA resident and making progress at
//! once: `grid.sync()` spins on a global word until all CTAs arrived. Its CTAs are therefore
//! resumable units: each host thread takes the next CTA from a round-robin queue, runs one
//! round of its warps (a spinning warp yields after a short time slice) and puts it back, so a
//! grid of any co-resident size completes on any number of host threads. Other launches run
//! each CTA to completion, as before.
//!
//! Clusters of more than one CTA (see `cluster`) are such resumable units too: a host thread
//! runs a round of each CTA of the cluster in turn until all finish (in a cooperative launch,
//! one round of each per turn), so the CTAs of a cluster wait for each other at
//! `barrier.cluster` and share their shared memory, while clusters run in parallel.
//!
//! - `mod.rs`: launches and the thread pool; `cta.rs`: a CTA's warps, barriers, time slices and
//!   fault reports; `cluster.rs`: clusters and cooperative grids;
//! - `warp.rs`: the step function (one IR op over a warp's active lanes);
//! - `sched.rs`: a warp's reconvergence stack at barriers, warp syncs and mbarriers;
//! - `calls.rs`: device-function calls; `regfile.rs`: the register rows; `access.rs`: memory
//!   access and atomics; `whole.rs`: whole-vector fast paths; `sys.rs`: printf, malloc, assert;
//! - `local.rs`: local memory, reserved lazily when large; `schedule.rs`: seeded interleavings.

mod access;
pub(crate) use access::{jit_atomic, jit_atomic_what};
mod bulk;
mod calls;
mod clc;
pub mod cluster;
pub mod cta;
pub mod devrt;
pub mod initcheck;
pub mod local;
mod matrix;
pub mod memcheck;
pub mod race;
mod regfile;
mod sched;
pub mod schedule;
mod surface;
pub mod synccheck;
pub mod sys;
pub mod tcgen05;
mod texture;
pub mod warp;
pub mod whole;

use crate::ir::{CLUSTER_OFFSET_MASK, MAX_CLUSTER_CTAS};
use crate::{ExecError, ExecErrorKind, Kernel, LaunchConfig};
use cluster::{ClusterBar, Member, Turn, Unit};
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

/// The time slice (backward branches) of a warp of a cooperative launch: short, since a CTA
/// spinning at a grid barrier holds its host thread for up to a slice per warp while the CTAs
/// it waits for are queued.
pub const COOP_SLICE: u32 = 256;

/// Bytes of the grid workspace of a cooperative launch: cooperative groups'
/// `details::grid_workspace { unsigned wsSize; unsigned barrier; }`.
const GRID_WS_BYTES: u64 = 8;

/// Takes the reports of `kernel` out of a sanitizer tool's list (racecheck, synccheck,
/// initcheck), keeping the other kernels' in order.
pub(crate) fn take_kernel_reports<T>(
    reports: &Mutex<Vec<T>>,
    kernel: &str,
    kernel_of: impl Fn(&T) -> &str,
) -> Vec<T> {
    let mut all = reports.lock();
    let (mine, rest): (Vec<_>, Vec<_>) = all.drain(..).partition(|r| kernel_of(r) == kernel);
    *all = rest;
    mine
}

/// 0 = all cores.
static WORKERS: AtomicUsize = AtomicUsize::new(0);
static THREAD_INSTRUCTIONS: AtomicU64 = AtomicU64::new(0);
/// Per-thread stack bytes (CUDA's `cudaLimitStackSize`, 1 KiB by default).
static STACK_SIZE: AtomicUsize = AtomicUsize::new(1024);

pub fn set_stack_size(bytes: usize) {
    STACK_SIZE.store(bytes.min(u32::MAX as usize), Ordering::Relaxed);
}

pub fn stack_size() -> usize {
    STACK_SIZE.load(Ordering::Relaxed)
}

/// The kernel time limit in milliseconds (0: none), see [`crate::set_kernel_timeout`].
static KERNEL_TIMEOUT_MS: AtomicU64 = AtomicU64::new(0);

pub fn set_kernel_timeout(limit: Option<std::time::Duration>) {
    let ms = limit.map_or(0, |d| (d.as_millis() as u64).max(1));
    KERNEL_TIMEOUT_MS.store(ms, Ordering::Relaxed);
}

pub fn kernel_timeout() -> Option<std::time::Duration> {
    match KERNEL_TIMEOUT_MS.load(Ordering::Relaxed) {
        0 => None,
        ms => Some(std::time::Duration::from_millis(ms)),
    }
}

pub fn set_worker_threads(n: usize) {
    WORKERS.store(n, Ordering::Relaxed);
}

pub fn worker_threads() -> usize {
    match WORKERS.load(Ordering::Relaxed) {
        0 => host_threads(),
        n => n,
    }
}

/// The host's usable cores, asked once: `available_parallelism` reads the cgroup quota files
/// on every call, which was half the cost of launching a small kernel.
fn host_threads() -> usize {
    static N: once_cell::sync::Lazy<usize> =
        once_cell::sync::Lazy::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    *N
}

pub fn thread_instructions() -> u64 {
    THREAD_INSTRUCTIONS.load(Ordering::Relaxed)
}

struct Job {
    kernel: Arc<Kernel>,
    cfg: LaunchConfig,
    params: Vec<u8>,
    stack_size: u32,
    /// When the launch must have finished (`set_kernel_timeout`), if ever.
    deadline: Option<std::time::Instant>,
    /// The next cluster (the next CTA without clusters) to take, and how many there are.
    next: AtomicU64,
    total: u64,
    stop: AtomicBool,
    /// The error of the lowest-numbered failing CTA (deterministic across thread counts when a
    /// single CTA faults).
    error: Mutex<Option<(u64, ExecError)>>,
    /// Under memcheck, the first (lowest CTA's) of the faults that ended warps without stopping
    /// the launch (`memcheck`): the launch's error when nothing stopped it.
    memfault: Mutex<Option<(u64, ExecError)>>,
    pending: Mutex<usize>,
    done: Condvar,
    /// Cooperative launches: the clusters (CTAs without clusters) not finished yet, in turn
    /// order.
    coop: Option<Coop>,
    /// The global copy of the parameter block for generic parameter addresses, or 0.
    param_window: u64,
    /// A seeded schedule's launch seed and the order its CTAs (clusters) are taken in.
    seeded: Option<(u64, Arc<schedule::Permutation>)>,
    started: std::time::Instant,
    /// Clusters (CTAs without clusters) run to their end, for the progress line.
    finished: AtomicU64,
    /// The tier this launch runs on ([`crate::jit`]).
    jit: crate::jit::Mode,
    /// Launches and copies its threads queued from device code, to run after it.
    devrt: devrt::Grid,
    /// The devices whose memory it may reach.
    reach: crate::mem::Reach,
}

/// Launches running now, for the driver's progress line (`--progress`).
static RUNNING: Mutex<Vec<std::sync::Weak<Job>>> = Mutex::new(Vec::new());

/// A launch in progress: its kernel, when it started, and how many of its CTAs (clusters)
/// have run to their end, out of how many.
#[derive(Clone, Debug)]
pub struct Progress {
    pub kernel: String,
    pub started: std::time::Instant,
    pub done: u64,
    pub total: u64,
}

/// The launches running now, oldest first.
pub fn running() -> Vec<Progress> {
    RUNNING
        .lock()
        .iter()
        .filter_map(|j| j.upgrade())
        .map(|j| Progress {
            kernel: j.kernel.name.clone(),
            started: j.started,
            done: match &j.coop {
                // Cooperative: every cluster is resident; those no longer queued are done.
                Some(c) => j.total - c.queue.lock().len() as u64,
                None => j.finished.load(Ordering::Relaxed),
            },
            total: j.total,
        })
        .collect()
}

struct Coop {
    queue: Mutex<VecDeque<Slot>>,
    /// The grid workspace (device memory), handed to the kernel in `%envreg1/2`.
    workspace: u64,
}

/// A cluster (a CTA without clusters) of a cooperative launch waiting for its turn.
enum Slot {
    /// Not started: its linear index among the clusters.
    Fresh(u64),
    Started(Box<Unit>),
}

/// Reusable per-thread buffers so CTAs do not allocate.
/// The unit a CTA's shared memory is allocated in (see `Job::shared_len`).
const SHARED_UNIT: usize = 128;

#[derive(Default)]
struct Scratch {
    regs: Vec<u64>,
    shared: Vec<u8>,
    local: local::LocalMem,
    cbar: ClusterBar,
}

impl Job {
    /// A CTA's shared window: its static and dynamic shared memory, rounded up to the 128-byte
    /// unit a GPU allocates it in. An H100 (driver 580.159, 2026-11-25) lets a CTA with 28 or
    /// 48 bytes of dynamic shared memory read up to byte 127 and faults at 128; with 1024 or
    /// 8192 bytes it faults at exactly the end; with none, at byte 0.
    fn shared_len(&self) -> usize {
        let prog = &self.kernel.program;
        let n = prog.dyn_shared_off as usize + self.cfg.dynamic_shared_bytes as usize;
        n.max(prog.shared_static as usize)
            .next_multiple_of(SHARED_UNIT)
    }

    /// Bytes of local memory per thread: with alloca, each thread's stack follows its locals
    /// (its top is the end of the area).
    fn local_bytes(&self) -> usize {
        let prog = &self.kernel.program;
        prog.local_bytes as usize
            + if prog.uses_alloca {
                self.stack_size as usize
            } else {
                0
            }
    }

    fn nthreads(&self) -> usize {
        let ntid = self.cfg.block;
        (ntid[0] * ntid[1] * ntid[2]) as usize
    }

    /// CTAs per cluster.
    fn nranks(&self) -> usize {
        self.cfg.cluster.iter().product::<u32>() as usize
    }

    /// Whether CTAs run as clusters of more than one (resumable units, see `cluster`).
    fn clustered(&self) -> bool {
        self.nranks() > 1
    }

    /// Linear index of the CTA of rank `rank` in cluster `c` (both linear, x fastest).
    fn member_idx(&self, c: u64, rank: u64) -> u64 {
        let [gx, gy, _] = self.cfg.grid.map(|g| g as u64);
        let k = self.cfg.cluster.map(|x| x as u64);
        let n = [gx / k[0], gy / k[1]];
        let cid = [c % n[0], (c / n[0]) % n[1], c / (n[0] * n[1])];
        let r = [rank % k[0], (rank / k[0]) % k[1], rank / (k[0] * k[1])];
        let id = |d: usize| cid[d] * k[d] + r[d];
        id(0) + gx * (id(1) + gy * id(2))
    }

    fn ctaid(&self, idx: u64) -> [u32; 3] {
        let [gx, gy, _] = self.cfg.grid;
        [
            (idx % gx as u64) as u32,
            ((idx / gx as u64) % gy as u64) as u32,
            (idx / (gx as u64 * gy as u64)) as u32,
        ]
    }

    /// The CTA `idx` over the given memory, for one run. `shared` is the shared memory of its
    /// whole cluster (see `cta::Cta::shared`).
    fn cta<'a>(
        &'a self,
        idx: u64,
        shared: &'a mut [u8],
        local: &'a mut [u8],
        gcache: &'a mut cta::GCache,
        cbar: &'a mut ClusterBar,
    ) -> cta::Cta<'a> {
        let nthreads = self.nthreads();
        let ctaid = self.ctaid(idx);
        let k = self.cfg.cluster;
        let r = |d: usize| ctaid[d] % k[d];
        cta::Cta {
            prog: &self.kernel.program,
            devrt: &self.devrt,
            initcheck: initcheck::enabled(),
            kernel: &self.kernel.name,
            params: &self.params,
            shared,
            shared_len: self.shared_len(),
            rank: r(0) + k[0] * (r(1) + k[1] * r(2)),
            nranks: self.nranks() as u32,
            cbar,
            local,
            local_bytes: self.local_bytes(),
            stack_size: self.stack_size,
            deadline: self.deadline,
            ctaid,
            ntid: self.cfg.block,
            nctaid: self.cfg.grid,
            cluster: self.cfg.cluster,
            explicit_cluster: self.cfg.explicit_cluster,
            nwarps: nthreads.div_ceil(32) as u32,
            dyn_bytes: self.cfg.dynamic_shared_bytes,
            thread_instructions: 0,
            epoch: 0,
            expire_waits: false,
            gcache,
            grid_ws: self.coop.as_ref().map_or(0, |c| c.workspace),
            param_window: self.param_window,
            slice: if self.coop.is_some() || self.clustered() {
                COOP_SLICE
            } else {
                warp::SLICE
            },
            rng: self
                .seeded
                .as_ref()
                .map(|(seed, _)| schedule::Rng::new(schedule::mix(seed ^ schedule::mix(idx)))),
            tmp: [[0; 32]; 4],
            race: None,
            sync_gen: 0,
            memcheck: crate::mem::checked().then_some(&self.memfault),
            sink: None,
            halt: None,
            ending: false,
            halted: false,
            // Compiled segments load without initcheck's check.
            jit: if initcheck::enabled() {
                None
            } else {
                self.kernel.code(self.jit)
            },
            verify: self.jit == crate::jit::Mode::Verify,
            tmem: None,
            peer_tmem: None,
            clc: self,
        }
    }

    /// Turns a panic while running CTA `idx` into an error naming it.
    fn panic_error(&self, idx: u64, p: Box<dyn std::any::Any + Send>) -> ExecError {
        let ctaid = self.ctaid(idx);
        ExecError {
            kind: ExecErrorKind::Trap,
            message: format!(
                "internal error in kernel '{}' at block ({},{},{}): {}",
                self.kernel.name,
                ctaid[0],
                ctaid[1],
                ctaid[2],
                p.downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".into())
            ),
            access: None,
        }
    }

    /// Records the error of CTA `idx` (the lowest-numbered one wins) and stops the launch.
    /// The `k`-th unit (CTA or cluster) to take: `k` itself, or its place in a seeded order.
    fn nth(&self, k: u64) -> u64 {
        self.seeded.as_ref().map_or(k, |(_, order)| order.at(k))
    }

    /// The error of a launch whose threads' local memory the host cannot reserve.
    fn no_local(&self, per_thread: usize, nthreads: usize) -> ExecError {
        ExecError {
            kind: ExecErrorKind::OutOfResources,
            message: format!(
                "kernel '{}': {per_thread} bytes of local memory per thread for {nthreads} \
                 threads cannot be reserved",
                self.kernel.name
            ),
            access: None,
        }
    }

    fn fail(&self, idx: u64, e: ExecError) {
        let mut g = self.error.lock();
        if g.as_ref().is_none_or(|(i, _)| idx < *i) {
            *g = Some((idx, e));
        }
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Counts thread-instructions a worker executed for this launch: in the process's total
    /// and its kernel's.
    fn executed(&self, count: u64) {
        THREAD_INSTRUCTIONS.fetch_add(count, Ordering::Relaxed);
        self.kernel.executed.fetch_add(count, Ordering::Relaxed);
    }

    fn work(&self, scratch: &mut Scratch) {
        if self.coop.is_some() {
            return self.work_coop();
        }
        if self.clustered() {
            return self.work_clusters();
        }
        let nthreads = self.nthreads();
        let shared_len = self.shared_len();
        let local_bytes = self.local_bytes();
        let mut count = 0;
        // This thread's allocation cache for the launch (see `cta::GCache`).
        let mut gcache = cta::GCache::new(0, self.reach);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let idx = self.next.fetch_add(1, Ordering::Relaxed);
            if idx >= self.total {
                break;
            }
            let idx = self.nth(idx);
            scratch.shared.clear();
            scratch.shared.resize(shared_len, 0);
            if !scratch
                .local
                .reset(local_bytes * nthreads.div_ceil(32) * 32)
            {
                self.fail(idx, self.no_local(local_bytes, nthreads));
                break;
            }
            let generation = sys::heap_generation();
            if gcache.generation != generation {
                gcache = cta::GCache::new(generation, self.reach);
            }
            scratch.cbar.reset(1, nthreads as u32);
            let r = catch_unwind(AssertUnwindSafe(|| {
                let mut c = self.cta(
                    idx,
                    &mut scratch.shared,
                    &mut scratch.local,
                    &mut gcache,
                    &mut scratch.cbar,
                );
                if race::enabled() {
                    c.race = Some(Box::new(race::Shadow::new(c.shared_len, 1, c.nwarps)));
                }
                let r = cta::run_cta(&mut c, &mut scratch.regs);
                if c.jit.is_none() {
                    self.kernel.heat(self.jit, c.thread_instructions);
                }
                if let Some(mut shadow) = c.race.take() {
                    shadow.finish(c.kernel, c.prog, |_| c.ctaid, |t| c.tid_of(t));
                }
                (r, c.thread_instructions)
            }));
            let err = match r {
                Ok((Ok(()), n)) => {
                    count += n;
                    None
                }
                Ok((Err(e), n)) => {
                    count += n;
                    Some(e)
                }
                Err(p) => Some(self.panic_error(idx, p)),
            };
            if let Some(e) = err {
                self.fail(idx, e);
            }
            self.finished.fetch_add(1, Ordering::Relaxed);
        }
        self.executed(count);
    }

    /// A cluster `c` (a CTA without clusters) with every CTA at its entry.
    fn start_unit(&self, c: u64, gcache: &mut cta::GCache) -> Result<Box<Unit>, (u64, ExecError)> {
        let n = self.nranks();
        let nthreads = self.nthreads();
        let shared_len = self.shared_len();
        let mut unit = Box::new(Unit {
            members: Vec::with_capacity(n),
            shared: vec![0; shared_len * n],
            cbar: ClusterBar::default(),
            epoch: 0,
            idle: cta::Idle::default(),
            halted: false,
            // One shadow for the cluster's shared memory, which its CTAs reach in each other.
            race: race::enabled().then(|| {
                Box::new(race::Shadow::new(
                    shared_len,
                    n,
                    nthreads.div_ceil(32) as u32,
                ))
            }),
        });
        unit.cbar.reset(n, nthreads as u32);
        for rank in 0..n as u64 {
            let idx = self.member_idx(c, rank);
            let Some(mut local) =
                local::LocalMem::zeroed(self.local_bytes() * nthreads.div_ceil(32) * 32)
            else {
                return Err((idx, self.no_local(self.local_bytes(), nthreads)));
            };
            let mut regs = Vec::new();
            let c = self.cta(idx, &mut unit.shared, &mut local, gcache, &mut unit.cbar);
            let sched = cta::start_cta(&c, &mut regs);
            unit.members.push(Member {
                idx,
                sched,
                regs,
                local,
                done: false,
                sync_gen: 0,
                tmem: None,
            });
        }
        Ok(unit)
    }

    /// One turn of a unit: a round of each of its unfinished CTAs, in rank order. Ok(true) when
    /// all finished; Err names the failing CTA.
    fn turn(
        &self,
        unit: &mut Unit,
        gcache: &mut cta::GCache,
        count: &mut u64,
    ) -> Result<bool, (u64, ExecError)> {
        let (mut ran, mut progressed, mut stalled) = (false, false, None);
        for k in 0..unit.members.len() {
            let Unit {
                members,
                shared,
                cbar,
                epoch,
                idle,
                halted,
                race,
            } = unit;
            if members[k].done {
                continue;
            }
            // The peer CTA's Tensor Memory, for `.cta_group::2` (members are in rank order).
            let peer_tmem = members.get_mut(k ^ 1).and_then(|p| p.tmem.take());
            let m = &mut members[k];
            let mut c = self.cta(m.idx, shared, &mut m.local, gcache, cbar);
            c.epoch = *epoch;
            c.expire_waits = idle.expire_waits;
            c.sync_gen = m.sync_gen;
            c.race = race.take();
            c.tmem = m.tmem.take();
            c.peer_tmem = peer_tmem;
            let r = cta::round(&mut c, &mut m.regs, &mut m.sched);
            m.tmem = c.tmem.take();
            let peer_tmem = c.peer_tmem.take();
            *count += c.thread_instructions;
            if c.jit.is_none() {
                self.kernel.heat(self.jit, c.thread_instructions);
            }
            *epoch = c.epoch;
            *halted |= c.halted;
            m.sync_gen = c.sync_gen;
            *race = c.race.take();
            drop(c);
            let idx = m.idx;
            if let Some(p) = members.get_mut(k ^ 1) {
                p.tmem = peer_tmem;
            }
            let m = &mut members[k];
            let o = r.map_err(|e| (idx, e))?;
            m.done = o.finished;
            ran |= o.ran;
            progressed |= o.progressed;
            if !o.ran && !o.finished {
                stalled = stalled.or(Some(k));
            }
        }
        match unit.end_turn(ran, progressed, stalled) {
            Turn::Finished => {
                self.finish_race(unit);
                Ok(true)
            }
            Turn::Pending => Ok(false),
            // Waiting for a warp memcheck ended: the kernel is being terminated anyway.
            Turn::Stuck(_) if unit.halted => {
                self.finish_race(unit);
                Ok(true)
            }
            Turn::Stuck(k) => {
                let Unit {
                    members,
                    shared,
                    cbar,
                    ..
                } = unit;
                let m = &mut members[k];
                let c = self.cta(m.idx, shared, &mut m.local, gcache, cbar);
                Err((m.idx, cta::deadlock(&c, &m.sched)))
            }
        }
    }

    /// Hands the hazards racecheck found in a finished unit to the launch's reports.
    fn finish_race(&self, unit: &mut Unit) {
        let Some(mut shadow) = unit.race.take() else {
            return;
        };
        let [x, y, _] = self.cfg.block;
        let tid3 = |t: u32| [t % x, (t / x) % y, t / (x * y)];
        let block = |rank: u32| {
            let m = &unit.members[(rank as usize).min(unit.members.len() - 1)];
            self.ctaid(m.idx)
        };
        let prog = &self.kernel.program;
        shadow.finish(&self.kernel.name, prog, block, tid3);
    }

    /// A host thread of a launch with clusters: takes the next cluster and runs its CTAs, a
    /// round of each in turn, until all finish.
    fn work_clusters(&self) {
        let mut count = 0;
        let mut gcache = cta::GCache::new(0, self.reach);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            if c >= self.total {
                break;
            }
            let c = self.nth(c);
            let generation = sys::heap_generation();
            if gcache.generation != generation {
                gcache = cta::GCache::new(generation, self.reach);
            }
            let r = catch_unwind(AssertUnwindSafe(|| {
                let mut unit = self.start_unit(c, &mut gcache)?;
                // A failure elsewhere stops the launch: the cluster is abandoned between turns.
                while !self.turn(&mut unit, &mut gcache, &mut count)? {
                    if self.stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Ok(())
            }));
            match r {
                Ok(Ok(())) => {}
                Ok(Err((idx, e))) => self.fail(idx, e),
                Err(p) => {
                    let idx = self.member_idx(c, 0);
                    self.fail(idx, self.panic_error(idx, p))
                }
            }
            self.finished.fetch_add(1, Ordering::Relaxed);
        }
        self.executed(count);
    }

    /// A host thread of a cooperative launch: takes the cluster (CTA) whose turn it is, runs
    /// one turn of it and queues it again unless it finished, until no unit is left to take.
    /// (A unit another thread holds goes back into the queue after its turn and that thread
    /// takes it on, so leaving when the queue is momentarily empty never strands one.)
    fn work_coop(&self) {
        let coop = self.coop.as_ref().expect("cooperative job");
        let mut count = 0;
        let mut gcache = cta::GCache::new(0, self.reach);
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let Some(slot) = coop.queue.lock().pop_front() else {
                break;
            };
            let generation = sys::heap_generation();
            if gcache.generation != generation {
                gcache = cta::GCache::new(generation, self.reach);
            }
            let c = match &slot {
                Slot::Fresh(c) => self.member_idx(*c, 0),
                Slot::Started(u) => u.members.first().map_or(0, |m| m.idx),
            };
            let r = catch_unwind(AssertUnwindSafe(|| {
                let mut unit = match slot {
                    Slot::Started(u) => u,
                    Slot::Fresh(c) => self.start_unit(c, &mut gcache)?,
                };
                let done = self.turn(&mut unit, &mut gcache, &mut count)?;
                Ok((done, unit))
            }));
            match r {
                Ok(Ok((done, unit))) => {
                    if !done {
                        coop.queue.lock().push_back(Slot::Started(unit));
                    }
                }
                Ok(Err((idx, e))) => self.fail(idx, e),
                Err(p) => self.fail(c, self.panic_error(c, p)),
            }
        }
        self.executed(count);
    }

    fn finish(&self) {
        let mut p = self.pending.lock();
        *p -= 1;
        if *p == 0 {
            self.done.notify_all();
        }
    }
}

struct Pool {
    senders: Vec<mpsc::Sender<Arc<Job>>>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    senders: Vec::new(),
});

fn spawn_worker() -> mpsc::Sender<Arc<Job>> {
    let (tx, rx) = mpsc::channel::<Arc<Job>>();
    std::thread::Builder::new()
        .name("cuda-shim-worker".into())
        .spawn(move || {
            let mut scratch = Scratch::default();
            while let Ok(job) = rx.recv() {
                // Job::work catches panics per CTA; this guard keeps the worker alive even if
                // bookkeeping itself panics.
                let _ = catch_unwind(AssertUnwindSafe(|| job.work(&mut scratch)));
                job.finish();
            }
        })
        .expect("spawn worker thread");
    tx
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

pub fn launch(kernel: &Arc<Kernel>, cfg: &LaunchConfig, params: &[u8]) -> Result<(), ExecError> {
    launch_within(kernel, cfg, params, false, crate::mem::EVERY_DEVICE, 0)
}

/// [`launch`] or [`launch_cooperative`] on device `device` (what device code's
/// `cudaGetDevice` answers) of a kernel that may reach only the device memory `reach` names (an
/// access to another device's memory is an illegal address); then the work its threads queued
/// from device code, depth first (see `devrt`): the launch completes when the whole tree has.
/// Child grids run on the same device, with the same reach.
pub fn launch_within(
    kernel: &Arc<Kernel>,
    cfg: &LaunchConfig,
    params: &[u8],
    cooperative: bool,
    reach: crate::mem::Reach,
    device: u32,
) -> Result<(), ExecError> {
    let grid = |k: &Arc<Kernel>, c: &LaunchConfig, p: &[u8], coop: bool, depth: u32| {
        run_grid(k, c, p, coop, depth, reach, device).map_err(memcheck::under_the_tool)
    };
    let mut stack = grid(kernel, cfg, params, cooperative, 1)?;
    stack.reverse();
    while let Some((w, parent)) = stack.pop() {
        match w {
            devrt::Work::Launch {
                kernel,
                cfg,
                params,
                depth,
            } => {
                let more = grid(&kernel, &cfg, &params, false, depth)?;
                stack.extend(more.into_iter().rev());
            }
            w => devrt::run_memory_work(&w, &parent)?,
        }
    }
    Ok(())
}

/// A cooperative launch: every CTA is resident at once (the driver checked that the grid fits
/// the device) and the kernel gets a zeroed grid workspace for `grid.sync()`.
pub fn launch_cooperative(
    kernel: &Arc<Kernel>,
    cfg: &LaunchConfig,
    params: &[u8],
) -> Result<(), ExecError> {
    launch_within(kernel, cfg, params, true, crate::mem::EVERY_DEVICE, 0)
}

/// Runs one grid at nesting level `depth`; answers the work its threads queued, in order, each
/// with the name of the kernel that queued it.
fn run_grid(
    kernel: &Arc<Kernel>,
    cfg: &LaunchConfig,
    params: &[u8],
    cooperative: bool,
    depth: u32,
    reach: crate::mem::Reach,
    device: u32,
) -> Result<Vec<(devrt::Work, Arc<str>)>, ExecError> {
    let bad = |m: String| {
        Err(ExecError {
            kind: ExecErrorKind::InvalidLaunch,
            message: m,
            access: None,
        })
    };
    let nthreads = cfg.block.iter().map(|&x| x as u64).product::<u64>();
    if cfg.block.contains(&0) || cfg.grid.contains(&0) {
        return bad(format!("kernel '{}': empty grid or block", kernel.name));
    }
    if nthreads > 1024 || cfg.block[2] > 64 {
        return bad(format!(
            "kernel '{}': {nthreads} threads per block exceed 1024",
            kernel.name
        ));
    }
    if kernel.max_threads_per_block != 0 && nthreads > kernel.max_threads_per_block as u64 {
        return Err(ExecError {
            kind: ExecErrorKind::OutOfResources,
            message: format!(
                "kernel '{}': {nthreads} threads per block exceed its .maxntid {}",
                kernel.name, kernel.max_threads_per_block
            ),
            access: None,
        });
    }
    if cfg.cluster.contains(&0) || (0..3).any(|d| !cfg.grid[d].is_multiple_of(cfg.cluster[d])) {
        return bad(format!(
            "kernel '{}': cluster {:?} does not divide grid {:?}",
            kernel.name, cfg.cluster, cfg.grid
        ));
    }
    let nranks = cfg.cluster.iter().map(|&x| x as u64).product::<u64>();
    if nranks > MAX_CLUSTER_CTAS as u64 {
        return bad(format!(
            "kernel '{}': clusters of {nranks} CTAs exceed the limit of {MAX_CLUSTER_CTAS}",
            kernel.name
        ));
    }
    {
        let prog = &kernel.program;
        let shared = (prog.dyn_shared_off as u64 + cfg.dynamic_shared_bytes as u64)
            .max(prog.shared_static as u64);
        // `.shared::cluster` addresses hold a CTA's offset in 24 bits (`ir::CLUSTER_RANK_SHIFT`).
        if shared > CLUSTER_OFFSET_MASK + 1 {
            return Err(ExecError {
                kind: ExecErrorKind::OutOfResources,
                message: format!(
                    "kernel '{}': {shared} bytes of shared memory per CTA exceed 16 MiB",
                    kernel.name
                ),
                access: None,
            });
        }
    }
    if params.len() < kernel.param_bytes {
        return bad(format!(
            "kernel '{}': parameter block of {} bytes, {} needed",
            kernel.name,
            params.len(),
            kernel.param_bytes
        ));
    }
    // Units of work: clusters (CTAs when clusters are single CTAs).
    let total = cfg.grid.iter().map(|&x| x as u64).product::<u64>() / nranks;
    // A seeded schedule runs on this thread alone, so that its order is the only one.
    let seeded = schedule::launch_seed().map(|seed| {
        let mut rng = schedule::Rng::new(seed);
        (seed, Arc::new(schedule::Permutation::new(&mut rng, total)))
    });
    // Verify mode runs CTAs one after another: a segment and its interpreted rerun must read
    // the same global memory, which CTAs running meanwhile on other threads could change.
    let jit = kernel.jit_mode();
    let helpers = if seeded.is_some() || jit == crate::jit::Mode::Verify {
        0
    } else {
        (worker_threads().max(1) - 1).min(total as usize - 1)
    };
    let coop = if cooperative {
        let workspace = crate::mem::alloc(GRID_WS_BYTES).map_err(|_| ExecError {
            kind: ExecErrorKind::OutOfResources,
            message: format!(
                "kernel '{}': no device memory for the cooperative grid workspace",
                kernel.name
            ),
            access: None,
        })?;
        // SAFETY: a fresh allocation of GRID_WS_BYTES (8) bytes, 256-aligned; freed pages may
        // keep old contents, so it is zeroed (the barrier count starts at 0) and wsSize set.
        unsafe {
            std::ptr::write_bytes(workspace as *mut u8, 0, GRID_WS_BYTES as usize);
            (workspace as *mut u32).write(GRID_WS_BYTES as u32);
        }
        Some(Coop {
            queue: Mutex::new(
                (0..total)
                    .map(|k| Slot::Fresh(seeded.as_ref().map_or(k, |(_, order)| order.at(k))))
                    .collect(),
            ),
            workspace,
        })
    } else {
        None
    };
    let param_window = if kernel.program.param_window {
        let p = crate::mem::alloc(params.len().max(1) as u64).map_err(|_| ExecError {
            kind: ExecErrorKind::OutOfResources,
            message: format!(
                "kernel '{}': no device memory for the generic copy of its parameters",
                kernel.name
            ),
            access: None,
        })?;
        // SAFETY: a fresh allocation of at least params.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(params.as_ptr(), p as *mut u8, params.len()) };
        p
    } else {
        0
    };
    let job = Arc::new(Job {
        kernel: kernel.clone(),
        cfg: *cfg,
        params: params.to_vec(),
        stack_size: stack_size() as u32,
        deadline: kernel_timeout().map(|d| std::time::Instant::now() + d),
        next: AtomicU64::new(0),
        total,
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
        memfault: Mutex::new(None),
        pending: Mutex::new(helpers),
        done: Condvar::new(),
        coop,
        param_window,
        seeded,
        started: std::time::Instant::now(),
        finished: AtomicU64::new(0),
        jit,
        devrt: devrt::Grid::new(kernel.clone(), depth, device),
        reach,
    });
    RUNNING.lock().push(Arc::downgrade(&job));
    if helpers > 0 {
        let mut pool = POOL.lock();
        while pool.senders.len() < helpers {
            let s = spawn_worker();
            pool.senders.push(s);
        }
        for s in pool.senders.iter().take(helpers) {
            if s.send(job.clone()).is_err() {
                job.finish();
            }
        }
    }
    // The launching thread works too: with one worker no thread is ever spawned.
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => job.work(&mut s),
        Err(_) => job.work(&mut Scratch::default()),
    });
    let mut p = job.pending.lock();
    while *p > 0 {
        job.done.wait(&mut p);
    }
    drop(p);
    RUNNING
        .lock()
        .retain(|j| j.strong_count() > 0 && !std::ptr::eq(j.as_ptr(), Arc::as_ptr(&job)));
    if let Some(c) = &job.coop {
        // Every worker is done with the launch (pending is 0): nothing reads it any more.
        let _ = crate::mem::free(c.workspace);
    }
    if param_window != 0 {
        let _ = crate::mem::free(param_window);
    }
    let e = job.error.lock().take();
    let e = e.or_else(|| job.memfault.lock().take());
    match e {
        Some((_, e)) => Err(e),
        None => {
            let name: Arc<str> = kernel.name.as_str().into();
            let work = job.devrt.finish();
            Ok(work.into_iter().map(|w| (w, name.clone())).collect())
        }
    }
}

impl clc::ClusterLaunchControl for Job {
    fn try_cancel(&self) -> Option<[u32; 3]> {
        if self.coop.is_some() {
            return None;
        }
        // The counter the launch's threads take clusters (CTAs) from: a cluster taken here is
        // never started by them.
        let c = self.next.fetch_add(1, Ordering::Relaxed);
        if c >= self.total {
            return None;
        }
        // Done, for the progress line: its work is the canceller's now.
        self.finished.fetch_add(1, Ordering::Relaxed);
        let c = self.nth(c);
        let first = if self.clustered() {
            self.member_idx(c, 0)
        } else {
            c
        };
        Some(self.ctaid(first))
    }
}
