//! Asynchronous execution. Every stream (created, legacy default, per-thread default) owns a
//! [`Queue`]: work items run in submission order on the queue's own worker thread, each after
//! the completions it depends on (implicit default-stream synchronisation, `cuStreamWaitEvent`).
//!
//! Completion is tracked by sequence numbers: item `n` of a queue is complete when the queue's
//! `completed` counter reaches `n`, so a [`Dep`] (queue, n) is all an event or a waiter needs.
//! Dependencies always name items submitted before the dependent one (the context serialises
//! submission), so the dependency graph has no cycles and waits cannot deadlock.
//!
//! Queues are served by a bounded pool of worker threads ([`MAX_WORKERS`]): a queue with work
//! and no thread waits in the pool's list until a worker is free, and a worker whose queue ran
//! dry moves on to the next waiting queue. Threads start at the first submission (never at
//! library load) and exit after [`IDLE`] without work. A bounded pool could deadlock where an
//! item waits for an item of a queue that is still waiting for a thread; [`Dep::wait`]
//! therefore serves such a queue itself, on the waiting thread, up to the item it waits for
//! (dependencies point backwards in submission order, so this ends).
//!
//! A queue belongs to an [`Owner`] (a context, which holds its queues), so it is generic over
//! the owner's type rather than importing the context.

use crate::stream_attrs::StreamAttrs;
use crate::trace;
use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// What a queue's work runs in: every item is handed the owner (to check or set its sticky
/// error), and the owner hears of an item that panicked.
pub trait Owner: Send + Sync + 'static {
    /// A work item panicked: a bug of ours, not of the program, which the owner reports like a
    /// device fault.
    fn work_panicked(&self);
}

/// A piece of work; it gets the queue's owner.
pub type Work<C> = Box<dyn FnOnce(&Arc<C>) + Send>;

/// How long an idle worker waits for more work before its thread exits.
const IDLE: Duration = Duration::from_secs(2);

/// The most worker threads serving queues at once. Past it, queues wait their turn (a program
/// with 10,000 busy streams gets this many threads, not 10,000). A GPU runs only so many
/// streams at once too (its hardware queues, `CUDA_DEVICE_MAX_CONNECTIONS`).
pub const MAX_WORKERS: usize = 128;

/// How long a waiter (for a completion, or a worker for work) spins before it sleeps. Waking a
/// sleeping thread took about 50 microseconds on this project's virtual machines, twice per
/// launch-and-synchronise; a short spin catches the common quick answer. Bounded, so an idle
/// stream costs no CPU after it.
const SPIN: Duration = Duration::from_micros(40);

/// Spins until `ready` or [`SPIN`] has passed; returns whether `ready` became true.
fn spin_until(ready: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        for _ in 0..64 {
            if ready() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN {
            return ready();
        }
    }
}

struct Item<C: Owner> {
    seq: u64,
    deps: Vec<Dep<C>>,
    work: Work<C>,
}

/// Whether a thread serves a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Service {
    /// No work, no thread.
    Idle,
    /// Work, in the pool's list of queues waiting for a thread.
    Waiting,
    /// A thread (a pool worker, or a waiter serving it itself) runs its items.
    Served,
}

struct State<C: Owner> {
    items: VecDeque<Item<C>>,
    /// Sequence number of the last item submitted (items are numbered from 1).
    submitted: u64,
    /// Sequence number of the last item completed.
    completed: u64,
    service: Service,
}

impl<C: Owner> Default for State<C> {
    fn default() -> Self {
        State {
            items: VecDeque::new(),
            submitted: 0,
            completed: 0,
            service: Service::Idle,
        }
    }
}

/// A queue as the pool sees it: something a thread serves until it runs dry.
trait Serve: Send + Sync {
    fn serve(self: Arc<Self>);
}

/// The worker pool: its threads, those idle, and the queues waiting for one.
struct Pool {
    threads: usize,
    idle: usize,
    waiting: VecDeque<Arc<dyn Serve>>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    threads: 0,
    idle: 0,
    waiting: VecDeque::new(),
});
static POOL_CV: Condvar = Condvar::new();

/// Hands a queue that has work and no thread to the pool.
fn submit(q: Arc<dyn Serve>) {
    let mut p = POOL.lock();
    p.waiting.push_back(q);
    if p.idle > 0 {
        POOL_CV.notify_one();
        return;
    }
    if p.threads >= MAX_WORKERS {
        return;
    }
    p.threads += 1;
    drop(p);
    let spawned = std::thread::Builder::new()
        .name("cuda-shim-stream".into())
        .spawn(work);
    if spawned.is_err() {
        let mut p = POOL.lock();
        p.threads -= 1;
        if p.threads == 0 {
            // No thread at all: serve the waiting queues here, which keeps their work in order.
            trace::warn("cannot start a stream worker thread; running stream work inline");
            while let Some(q) = p.waiting.pop_front() {
                drop(p);
                q.serve();
                p = POOL.lock();
            }
        }
    }
}

/// A worker thread: serves waiting queues one after another; exits after [`IDLE`] without any.
fn work() {
    loop {
        let next = {
            let mut p = POOL.lock();
            loop {
                if let Some(q) = p.waiting.pop_front() {
                    break Some(q);
                }
                p.idle += 1;
                let timed_out = POOL_CV.wait_for(&mut p, IDLE).timed_out();
                p.idle -= 1;
                if timed_out && p.waiting.is_empty() {
                    p.threads -= 1;
                    break None;
                }
            }
        };
        match next {
            Some(q) => q.serve(),
            None => return,
        }
    }
}

/// Takes `q` out of the pool's waiting list, if it is there (a waiter serves it itself).
fn take_waiting(q: *const ()) -> bool {
    let mut p = POOL.lock();
    match (p.waiting.iter()).position(|w| Arc::as_ptr(w) as *const () == q) {
        Some(k) => {
            p.waiting.remove(k);
            true
        }
        None => false,
    }
}

pub struct Queue<C: Owner> {
    /// Takes part in the legacy default stream's implicit synchronisation.
    pub blocking: bool,
    /// The stream's attributes (priority included), see `stream_attrs`.
    pub attrs: Mutex<StreamAttrs>,
    ctx: Weak<C>,
    state: Mutex<State<C>>,
    /// Signalled on submission (for the worker) and on completion (for waiters).
    cv: Condvar,
    /// `state.submitted` and `state.completed`, readable without the lock by spinning waiters.
    submitted_hint: AtomicU64,
    completed_hint: AtomicU64,
}

/// The completion of one submitted item.
pub struct Dep<C: Owner> {
    queue: Arc<Queue<C>>,
    seq: u64,
}

impl<C: Owner> Clone for Dep<C> {
    fn clone(&self) -> Self {
        Dep {
            queue: self.queue.clone(),
            seq: self.seq,
        }
    }
}

impl<C: Owner> Dep<C> {
    pub fn done(&self) -> bool {
        self.queue.state.lock().completed >= self.seq
    }

    /// Blocks until the item has completed. If its queue is still waiting for a thread, this
    /// thread serves it, up to the item.
    pub fn wait(&self) {
        let hint = &self.queue.completed_hint;
        if spin_until(|| hint.load(Ordering::Acquire) >= self.seq) {
            return;
        }
        let q = &self.queue;
        let mut s = q.state.lock();
        while s.completed < self.seq {
            if s.service == Service::Waiting && take_waiting(Arc::as_ptr(q) as *const ()) {
                s.service = Service::Served;
                drop(s);
                q.run(Some(self.seq));
                s = q.state.lock();
                continue;
            }
            q.cv.wait(&mut s);
        }
    }
}

impl<C: Owner> Queue<C> {
    pub fn new(blocking: bool, ctx: Weak<C>) -> Arc<Queue<C>> {
        Arc::new(Queue {
            blocking,
            attrs: Mutex::new(StreamAttrs::new(0)),
            ctx,
            state: Mutex::new(State::default()),
            cv: Condvar::new(),
            submitted_hint: AtomicU64::new(0),
            completed_hint: AtomicU64::new(0),
        })
    }

    /// Appends `work`, to run after every earlier item of this queue and after `deps`.
    /// The caller holds its context's submission lock (see `stream::submit`).
    pub fn push(self: &Arc<Self>, deps: Vec<Dep<C>>, work: Work<C>) -> Dep<C> {
        let mut s = self.state.lock();
        s.submitted += 1;
        let seq = s.submitted;
        self.submitted_hint.store(seq, Ordering::Release);
        s.items.push_back(Item { seq, deps, work });
        if s.service == Service::Idle {
            s.service = Service::Waiting;
            drop(s);
            submit(self.clone());
        } else {
            self.cv.notify_all();
        }
        Dep {
            queue: self.clone(),
            seq,
        }
    }

    /// The last submitted item, if it has not completed.
    pub fn pending(self: &Arc<Self>) -> Option<Dep<C>> {
        let s = self.state.lock();
        (s.completed < s.submitted).then(|| Dep {
            queue: self.clone(),
            seq: s.submitted,
        })
    }

    /// True when everything submitted so far has completed.
    pub fn idle(&self) -> bool {
        let s = self.state.lock();
        s.completed == s.submitted
    }

    /// Blocks until everything submitted before this call has completed.
    pub fn wait_all(self: &Arc<Self>) {
        if let Some(d) = self.pending() {
            d.wait();
        }
    }

    /// Runs items in order, the queue's thread (its service is `Served`): until the queue runs
    /// dry (`until` None; the queue goes idle), or until item `until` has completed (the queue
    /// goes back to the pool if work is left).
    fn run(self: &Arc<Self>, until: Option<u64>) {
        loop {
            let item = {
                let mut s = self.state.lock();
                loop {
                    if until.is_some_and(|n| s.completed >= n) {
                        if s.items.is_empty() {
                            s.service = Service::Idle;
                        } else {
                            s.service = Service::Waiting;
                            drop(s);
                            submit(self.clone());
                        }
                        return;
                    }
                    if let Some(item) = s.items.pop_front() {
                        break item;
                    }
                    // More work often follows at once (a launch after a copy): spin for it
                    // before letting the queue go, outside the lock.
                    let seen = s.submitted;
                    let more = || self.submitted_hint.load(Ordering::Acquire) > seen;
                    if parking_lot::MutexGuard::unlocked(&mut s, || spin_until(more)) {
                        continue;
                    }
                    if s.items.is_empty() {
                        s.service = Service::Idle;
                        return;
                    }
                }
            };
            for d in &item.deps {
                d.wait();
            }
            if let Some(ctx) = self.ctx.upgrade() {
                let work = item.work;
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&ctx)));
                if run.is_err() {
                    // A bug of ours, not of the program: report it like a device fault.
                    trace::warn("internal error while running stream work");
                    ctx.work_panicked();
                }
            }
            let mut s = self.state.lock();
            s.completed = item.seq;
            self.completed_hint.store(item.seq, Ordering::Release);
            self.cv.notify_all();
        }
    }
}

impl<C: Owner> Serve for Queue<C> {
    fn serve(self: Arc<Self>) {
        self.state.lock().service = Service::Served;
        self.run(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    struct TestOwner;

    impl Owner for TestOwner {
        fn work_panicked(&self) {}
    }

    #[test]
    fn runs_in_order_and_waits_for_dependencies() {
        let ctx = Arc::new(TestOwner);
        let a = Queue::new(true, Arc::downgrade(&ctx));
        let b = Queue::new(true, Arc::downgrade(&ctx));
        let log = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(AtomicU32::new(0));
        let (l, g) = (log.clone(), gate.clone());
        let first = a.push(
            vec![],
            Box::new(move |_| {
                while g.load(Ordering::Acquire) == 0 {
                    std::thread::yield_now();
                }
                l.lock().push("a1");
            }),
        );
        let l = log.clone();
        b.push(vec![first.clone()], Box::new(move |_| l.lock().push("b1")));
        let l = log.clone();
        a.push(vec![], Box::new(move |_| l.lock().push("a2")));
        assert!(!first.done() && !a.idle() && !b.idle());
        gate.store(1, Ordering::Release);
        a.wait_all();
        b.wait_all();
        let log = log.lock();
        assert_eq!(log.iter().filter(|s| s.starts_with('a')).count(), 2);
        let pos = |x| log.iter().position(|s| *s == x).unwrap();
        assert!(pos("a1") < pos("a2") && pos("a1") < pos("b1"));
        assert!(a.idle() && b.idle() && a.pending().is_none());
    }

    /// Busy queues beyond the pool's size wait for a thread and all complete; never more than
    /// [`MAX_WORKERS`] items run at once.
    #[test]
    fn many_busy_queues_share_a_bounded_pool() {
        let ctx = Arc::new(TestOwner);
        let running = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let queues: Vec<_> = (0..600)
            .map(|_| Queue::new(false, Arc::downgrade(&ctx)))
            .collect();
        for q in &queues {
            let (r, m) = (running.clone(), most.clone());
            q.push(
                vec![],
                Box::new(move |_| {
                    let now = r.fetch_add(1, Ordering::AcqRel) + 1;
                    m.fetch_max(now, Ordering::AcqRel);
                    std::thread::sleep(Duration::from_millis(2));
                    r.fetch_sub(1, Ordering::AcqRel);
                }),
            );
        }
        for q in &queues {
            q.wait_all();
        }
        let most = most.load(Ordering::Acquire) as usize;
        assert!(
            (2..=MAX_WORKERS).contains(&most),
            "{most} items ran at once"
        );
        assert!(POOL.lock().threads <= MAX_WORKERS);
    }

    /// With every worker blocked, waiting for an item of a queue that has no thread serves that
    /// queue on the waiting thread (and the queues it depends on), instead of waiting forever.
    #[test]
    fn a_waiter_serves_a_queue_the_full_pool_cannot() {
        let ctx = Arc::new(TestOwner);
        let gate = Arc::new(AtomicU32::new(0));
        let blockers: Vec<_> = (0..MAX_WORKERS + 4)
            .map(|_| {
                let q = Queue::new(false, Arc::downgrade(&ctx));
                let g = gate.clone();
                q.push(
                    vec![],
                    Box::new(move |_| {
                        while g.load(Ordering::Acquire) == 0 {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    }),
                );
                q
            })
            .collect();
        let log = Arc::new(Mutex::new(Vec::new()));
        let b = Queue::new(false, Arc::downgrade(&ctx));
        let c = Queue::new(false, Arc::downgrade(&ctx));
        let l = log.clone();
        let done_b = b.push(vec![], Box::new(move |_| l.lock().push("b")));
        let l = log.clone();
        let done_c = c.push(vec![done_b], Box::new(move |_| l.lock().push("c")));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            done_c.wait();
            let _ = tx.send(());
        });
        let served = rx.recv_timeout(Duration::from_secs(20)).is_ok();
        gate.store(1, Ordering::Release);
        for q in &blockers {
            q.wait_all();
        }
        assert!(served, "the waiter did not serve the queue it waited for");
        assert_eq!(*log.lock(), ["b", "c"]);
    }
}
