//! Asynchronous execution. Every stream (created, legacy default, per-thread default) owns a
//! [`Queue`]: work items run in submission order on the queue's own worker thread, each after
//! the completions it depends on (implicit default-stream synchronisation, `cuStreamWaitEvent`).
//!
//! Completion is tracked by sequence numbers: item `n` of a queue is complete when the queue's
//! `completed` counter reaches `n`, so a [`Dep`] (queue, n) is all an event or a waiter needs.
//! Dependencies always name items submitted before the dependent one (the context serialises
//! submission), so the dependency graph has no cycles and waits cannot deadlock.
//!
//! Worker threads start at the first submission to a queue (never at library load) and exit
//! after [`IDLE`] without work; the next submission starts a new one.
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

struct State<C: Owner> {
    items: VecDeque<Item<C>>,
    /// Sequence number of the last item submitted (items are numbered from 1).
    submitted: u64,
    /// Sequence number of the last item completed.
    completed: u64,
    /// Whether a worker thread is serving the queue.
    worker: bool,
}

impl<C: Owner> Default for State<C> {
    fn default() -> Self {
        State {
            items: VecDeque::new(),
            submitted: 0,
            completed: 0,
            worker: false,
        }
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

    /// Blocks until the item has completed.
    pub fn wait(&self) {
        let hint = &self.queue.completed_hint;
        if spin_until(|| hint.load(Ordering::Acquire) >= self.seq) {
            return;
        }
        let mut s = self.queue.state.lock();
        while s.completed < self.seq {
            self.queue.cv.wait(&mut s);
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
        if s.worker {
            self.cv.notify_all();
        } else {
            s.worker = true;
            drop(s);
            let q = self.clone();
            let spawned = std::thread::Builder::new()
                .name("cuda-shim-stream".into())
                .spawn(move || q.serve(IDLE));
            if spawned.is_err() {
                // No thread to be had: run the work here, which keeps it in order.
                trace::warn("cannot start a stream worker thread; running stream work inline");
                self.serve(Duration::ZERO);
            }
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

    /// The worker loop: runs items in order; returns after `idle` without work.
    fn serve(self: &Arc<Self>, idle: Duration) {
        loop {
            let item = {
                let mut s = self.state.lock();
                loop {
                    if let Some(item) = s.items.pop_front() {
                        break item;
                    }
                    if !idle.is_zero() {
                        // More work often follows at once (a launch after a copy): spin for
                        // it before sleeping, outside the lock.
                        let seen = s.submitted;
                        let more = || self.submitted_hint.load(Ordering::Acquire) > seen;
                        let got = parking_lot::MutexGuard::unlocked(&mut s, || spin_until(more));
                        if got {
                            continue;
                        }
                    }
                    if idle.is_zero()
                        || (self.cv.wait_for(&mut s, idle).timed_out() && s.items.is_empty())
                    {
                        s.worker = false;
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
}
