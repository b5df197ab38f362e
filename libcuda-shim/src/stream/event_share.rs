//! The completion state of an interprocess event (`CU_EVENT_INTERPROCESS`), in a page that the
//! processes sharing the event all map: a record anywhere increments `recorded`, and its marker,
//! when it runs, raises `completed` to that record's number. The latest record (whoever made
//! it) is complete when `completed` has reached `recorded`.
//!
//! A process waits for another process's record by polling the page (short sleeps, growing to a
//! millisecond): there is no cross-process wake-up to be had from the stream workers, and a
//! futex on shared memory would tie waiters to the exact record they wait for. A wait ends too
//! when the process that exported the event is gone, so no waiter hangs on a dead peer.

use crate::context::{Context, Dep, Queue};
use engine::mem::share::{open_peer_memfd, small_memfd, ShareError};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const MAGIC: u64 = 0x6576_6d69_6873_6375; // "cushimve"
const PAGE: usize = 4096;

/// A mapped completion page.
pub struct Shared {
    words: *const AtomicU64,
    /// The descriptor another process opens through /proc (kept by the creating process only).
    fd: Option<OwnedFd>,
    /// The name's number (`cuda-shim-ipcev-PID-ID`).
    pub id: u32,
    /// The process that created the event.
    pub owner: u32,
    /// Where waits for another process's records poll (made at the first such wait).
    poller: parking_lot::Mutex<Option<Arc<Queue>>>,
}

// SAFETY: `words` points to a shared mapping that lives as long as `Shared` and is only
// accessed through atomics.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

pub fn name(pid: u32, id: u32) -> String {
    format!("cuda-shim-ipcev-{pid}-{id}")
}

fn map(fd: &OwnedFd) -> Result<*const AtomicU64, ShareError> {
    // SAFETY: a new shared mapping of a descriptor we hold; nothing else is at that address.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            PAGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(ShareError::MapFailed);
    }
    Ok(p as *const AtomicU64)
}

impl Shared {
    /// A new completion page for an event created with `CU_EVENT_INTERPROCESS`.
    pub fn create() -> Result<Shared, ShareError> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let owner = std::process::id();
        let fd = small_memfd(&name(owner, id), PAGE as u64)?;
        let words = map(&fd)?;
        let s = Shared {
            words,
            fd: Some(fd),
            id,
            owner,
            poller: Default::default(),
        };
        s.word(0).store(MAGIC, Ordering::Release);
        Ok(s)
    }

    /// Maps the page of event `id` of process `owner`, whose descriptor there is `fd`.
    pub fn open(owner: u32, fd: i32, id: u32) -> Result<Shared, ShareError> {
        let file = open_peer_memfd(owner, fd, &name(owner, id))?;
        let size = std::fs::File::from(file.try_clone().map_err(|_| ShareError::MapFailed)?)
            .metadata()
            .map_err(|_| ShareError::BadHandle)?
            .len();
        if size < PAGE as u64 {
            return Err(ShareError::BadHandle);
        }
        let words = map(&file)?;
        let s = Shared {
            words,
            fd: None,
            id,
            owner,
            poller: Default::default(),
        };
        if s.word(0).load(Ordering::Acquire) != MAGIC {
            return Err(ShareError::BadHandle);
        }
        Ok(s)
    }

    /// The descriptor to name in a handle (the creating process only).
    pub fn fd(&self) -> Option<i32> {
        self.fd.as_ref().map(|f| f.as_raw_fd())
    }

    fn word(&self, i: usize) -> &AtomicU64 {
        // SAFETY: the page holds 512 words; `i` < 3.
        unsafe { &*self.words.add(i) }
    }

    /// A new record: its number.
    pub fn record(&self) -> u64 {
        self.word(1).fetch_add(1, Ordering::AcqRel) + 1
    }

    /// The latest record's number (0: never recorded).
    pub fn recorded(&self) -> u64 {
        self.word(1).load(Ordering::Acquire)
    }

    /// Record `seq` has completed.
    pub fn complete(&self, seq: u64) {
        self.word(2).fetch_max(seq, Ordering::AcqRel);
    }

    pub fn is_complete(&self, seq: u64) -> bool {
        self.word(2).load(Ordering::Acquire) >= seq
    }

    /// Whether waiting makes sense: the creating process (whose records a wait is usually
    /// for) still exists.
    fn owner_alive(&self) -> bool {
        if self.owner == std::process::id() {
            return true;
        }
        // SAFETY: signal 0 only checks that the process exists.
        let r = unsafe { libc::kill(self.owner as libc::pid_t, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }

    /// Blocks until record `seq` has completed (or the creating process is gone).
    pub fn wait(&self, seq: u64) {
        let mut nap = Duration::from_micros(20);
        while !self.is_complete(seq) && self.owner_alive() {
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(1));
        }
    }

    /// A completion a stream can wait for: record `seq`, polled on a queue of this event's own
    /// (in `ctx`). None when it has completed already.
    pub fn dep(self: &Arc<Self>, seq: u64, ctx: &Arc<Context>) -> Option<Dep> {
        if self.is_complete(seq) {
            return None;
        }
        let q = self
            .poller
            .lock()
            .get_or_insert_with(|| Queue::new(false, Arc::downgrade(ctx)))
            .clone();
        let me = self.clone();
        Some(q.push(Vec::new(), Box::new(move |_| me.wait(seq))))
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // SAFETY: our own mapping, made by `map`; nothing refers to it once we are dropped.
        unsafe { libc::munmap(self.words as *mut libc::c_void, PAGE) };
    }
}
