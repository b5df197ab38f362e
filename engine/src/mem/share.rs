//! Device memory another process can map (CUDA IPC, `cuIpcGetMemHandle`).
//!
//! Device memory is one private anonymous region, which no other process can see. Exporting an
//! allocation backs its pages with memfds instead: the current bytes are copied into a new
//! memfd, which is mapped `MAP_SHARED | MAP_FIXED` over the same addresses, so the exporter's
//! pointers and contents stay as they were while another process maps the same pages. An
//! importer opens the exporter's descriptors through `/proc/PID/fd/N` (same user; unlike
//! `pidfd_getfd` it needs no ptrace attach right, which Yama may restrict to descendants) and
//! maps them into a page-aligned range of its own device region.
//!
//! Allocations are 256-byte aligned, so the first and last page of one may hold a neighbour's
//! bytes. The shared unit is therefore the page, kept as *spans* (runs of pages backed by one
//! memfd at one offset). Exporting an allocation reuses the spans already covering its pages
//! (only an edge page can belong to a neighbour's export) and backs the rest with one new
//! memfd, so an export is at most three pieces: first page, middle, last page. A neighbour's
//! bytes in a shared edge page become visible to the importer, which kernels there cannot reach
//! (the allocation map limits them to the allocation).
//!
//! Lifetime follows the kernel's reference counts: a span's memfd stays open here while any of
//! its pages is still mapped in the exporter; an importer's mapping keeps the pages alive after
//! that, so an importer still reads valid memory after the exporter freed it (the driver
//! documents that case as undefined; this is the harmless answer). When an allocation is freed,
//! its pages that no live allocation touches any more become private anonymous memory again,
//! so a whole free page of the region is never shared (`release` and `zero` rely on that).

use super::{Region, ALIGN, MAP, REGION};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

const PAGE: u64 = 4096;
/// Shared device memory is read and written.
const READ_WRITE: i32 = libc::PROT_READ | libc::PROT_WRITE;

/// Why sharing failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// Not the base of a live device allocation of this process.
    NotAllocated,
    /// No memfd, or no mapping, could be made (CUDA_ERROR_MAP_FAILED / OUT_OF_MEMORY).
    MapFailed,
    /// The descriptor named is not one of the exporter's (gone, or a forged handle).
    BadHandle,
    /// The emulated device memory is exhausted.
    OutOfMemory,
}

/// A run of pages of the device region backed by one memfd.
struct Span {
    pages: u64,
    fd: Arc<OwnedFd>,
    /// The memfd's number for names (`cuda-shim-ipc-PID-ID`).
    id: u32,
    /// Page offset in the memfd of the span's first page.
    fd_page: u64,
}

/// Spans by first page address.
static SPANS: Mutex<BTreeMap<u64, Span>> = Mutex::new(BTreeMap::new());

/// Set at the first export: until then, freeing memory has nothing of this module to check.
static ACTIVE: AtomicBool = AtomicBool::new(false);

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// One piece of an exported allocation: `pages` pages of the memfd the exporter holds open as
/// descriptor `fd` (named with `id`), from page `fd_page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub fd: i32,
    pub id: u32,
    pub fd_page: u32,
    pub pages: u32,
}

/// What an importer needs to map an allocation: its pieces in address order, where the
/// allocation starts in the first page, and its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    pub pieces: Vec<Piece>,
    pub offset: u64,
    pub size: u64,
}

/// The name an exported memfd carries; an importer checks it before mapping the descriptor.
pub fn memfd_name(pid: u32, id: u32) -> String {
    format!("cuda-shim-ipc-{pid}-{id}")
}

fn new_memfd(name: &str, len: u64) -> Result<OwnedFd, ShareError> {
    let cname = std::ffi::CString::new(name).map_err(|_| ShareError::MapFailed)?;
    // SAFETY: a NUL-terminated name; valid flags. Not CLOEXEC-less: an exec'd child opens it
    // through /proc like any other process.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(ShareError::MapFailed);
    }
    // SAFETY: a fresh descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: a valid memfd; growing it allocates nothing until pages are written.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
        return Err(ShareError::OutOfMemory);
    }
    Ok(fd)
}

/// A memfd shared by the pages a unit of work of the driver needs between processes (an
/// interprocess event's state): `len` bytes, zero-filled, named `name`.
pub fn small_memfd(name: &str, len: u64) -> Result<OwnedFd, ShareError> {
    new_memfd(name, len)
}

/// Exports the allocation whose base is `base`: its pages are backed by memfds from here on
/// (the same ones when it was exported before).
pub fn export(base: u64) -> Result<Export, ShareError> {
    let a = super::find(base)
        .filter(|a| a.base == base && super::in_device_region(base))
        .ok_or(ShareError::NotAllocated)?;
    if IMPORTS.lock().contains_key(&base) {
        return Err(ShareError::NotAllocated);
    }
    ACTIVE.store(true, Ordering::Release);
    let lo = base / PAGE * PAGE;
    let hi = (base + a.size.next_multiple_of(ALIGN)).next_multiple_of(PAGE);
    let mut spans = SPANS.lock();
    // Back every page of [lo, hi) no span covers yet; only its edges can be covered (by a
    // neighbour's export) unless this allocation was exported before.
    let mut p = lo;
    while p < hi {
        if let Some((s, span)) = span_at(&spans, p) {
            p = s + span.pages * PAGE;
            continue;
        }
        // The gap runs to the next span or the end.
        let end = spans.range(p..hi).next().map_or(hi, |(&s, _)| s);
        let len = end - p;
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let fd = new_memfd(&memfd_name(std::process::id(), id), len)?;
        // SAFETY: [p, end) are pages of our device region (mapped read-write); writing them
        // to the memfd reads them only.
        let written =
            unsafe { libc::pwrite(fd.as_raw_fd(), p as *const libc::c_void, len as usize, 0) };
        if written != len as isize {
            return Err(ShareError::MapFailed);
        }
        // SAFETY: [p, end) lies inside our own region; the memfd now holding the same bytes
        // replaces exactly those pages, so every pointer into them stays valid.
        if !unsafe { super::map_fd_fixed(p, len, fd.as_raw_fd(), 0, READ_WRITE) } {
            return Err(ShareError::MapFailed);
        }
        spans.insert(
            p,
            Span {
                pages: len / PAGE,
                fd: Arc::new(fd),
                id,
                fd_page: 0,
            },
        );
        p = end;
    }
    let mut pieces = Vec::new();
    let mut p = lo;
    while p < hi {
        let (s, span) = span_at(&spans, p).ok_or(ShareError::MapFailed)?;
        let end = (s + span.pages * PAGE).min(hi);
        pieces.push(Piece {
            fd: span.fd.as_raw_fd(),
            id: span.id,
            fd_page: u32::try_from(span.fd_page + (p - s) / PAGE)
                .map_err(|_| ShareError::MapFailed)?,
            pages: u32::try_from((end - p) / PAGE).map_err(|_| ShareError::MapFailed)?,
        });
        p = end;
    }
    Ok(Export {
        pieces,
        offset: base - lo,
        size: a.size,
    })
}

fn span_at(spans: &BTreeMap<u64, Span>, page: u64) -> Option<(u64, &Span)> {
    let (&s, span) = spans.range(..=page).next_back()?;
    (page < s + span.pages * PAGE).then_some((s, span))
}

/// After `[ptr, ptr + len)` was freed (its allocation-map entry is gone): its pages that no
/// live allocation touches any more stop being shared.
pub(super) fn freed(ptr: u64, len: u64) {
    if !ACTIVE.load(Ordering::Acquire) {
        return;
    }
    let mut lo = ptr / PAGE * PAGE;
    let mut hi = (ptr + len).next_multiple_of(PAGE);
    let touched = |page: u64| {
        let m = MAP.read();
        m.range(..page + PAGE)
            .next_back()
            .is_some_and(|(&b, &s)| b + s.next_multiple_of(ALIGN) > page)
    };
    if touched(lo) {
        lo += PAGE;
    }
    if hi > lo && touched(hi - PAGE) {
        hi -= PAGE;
    }
    if hi > lo {
        unshare(lo, hi);
    }
}

/// Turns the shared pages of `[lo, hi)` back into private anonymous memory (their contents are
/// dropped: nothing lives there) and trims the spans.
fn unshare(lo: u64, hi: u64) {
    let mut spans = SPANS.lock();
    let overlapping: Vec<u64> = spans
        .range(..hi)
        .filter(|(&s, span)| s + span.pages * PAGE > lo)
        .map(|(&s, _)| s)
        .collect();
    for s in overlapping {
        let Some(span) = spans.remove(&s) else {
            continue;
        };
        let end = s + span.pages * PAGE;
        let (cut_lo, cut_hi) = (s.max(lo), end.min(hi));
        // SAFETY: [cut_lo, cut_hi) lies in our region and holds no live allocation; a fresh
        // private anonymous mapping replaces the shared pages in place.
        unsafe {
            libc::mmap(
                cut_lo as *mut libc::c_void,
                (cut_hi - cut_lo) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            );
        }
        if cut_lo > s {
            spans.insert(
                s,
                Span {
                    pages: (cut_lo - s) / PAGE,
                    fd: span.fd.clone(),
                    id: span.id,
                    fd_page: span.fd_page,
                },
            );
        }
        if end > cut_hi {
            spans.insert(
                cut_hi,
                Span {
                    pages: (end - cut_hi) / PAGE,
                    fd: span.fd.clone(),
                    id: span.id,
                    fd_page: span.fd_page + (cut_hi - s) / PAGE,
                },
            );
        }
    }
}

/// Whether `[ptr, ptr + len)` holds a shared page (a test's question).
pub fn is_shared(ptr: u64) -> bool {
    span_at(&SPANS.lock(), ptr / PAGE * PAGE).is_some()
}

// ---- The importer's side.

/// An imported allocation: the page range it occupies in this process's region.
struct Import {
    lo: u64,
    len: u64,
}

/// Imported allocations by the pointer handed out.
static IMPORTS: Mutex<BTreeMap<u64, Import>> = Mutex::new(BTreeMap::new());

/// Set at the first import: every `free` asks [`is_import`], which needs no lock before then.
static IMPORTED: AtomicBool = AtomicBool::new(false);

/// Whether `ptr` is the base of an imported allocation (which only closing it frees).
pub fn is_import(ptr: u64) -> bool {
    IMPORTED.load(Ordering::Acquire) && IMPORTS.lock().contains_key(&ptr)
}

/// Opens descriptor `fd` of process `pid` if it is the memfd named `name` there (checked
/// through the link's text, `/memfd:NAME (deleted)`), so a stale or forged handle never maps
/// another file.
pub fn open_peer_memfd(pid: u32, fd: i32, name: &str) -> Result<OwnedFd, ShareError> {
    if fd < 0 || pid == 0 {
        return Err(ShareError::BadHandle);
    }
    let path = format!("/proc/{pid}/fd/{fd}");
    let link = std::fs::read_link(&path).map_err(|_| ShareError::BadHandle)?;
    let text = link.to_string_lossy();
    let expected = format!("/memfd:{name}");
    if text != expected && text != format!("{expected} (deleted)") {
        return Err(ShareError::BadHandle);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|_| ShareError::BadHandle)?;
    Ok(file.into())
}

/// Takes a page-aligned range of `len` bytes (a multiple of the page) from the region's free
/// list, charged to the device memory like an allocation.
fn take_pages(r: &mut Region, len: u64) -> Result<u64, ShareError> {
    super::reserve(r).map_err(|_| ShareError::OutOfMemory)?;
    let (&start, &flen) = r
        .free
        .iter()
        .find(|(&s, &l)| {
            let a = s.next_multiple_of(PAGE);
            a + len <= s + l
        })
        .ok_or(ShareError::OutOfMemory)?;
    let a = start.next_multiple_of(PAGE);
    r.free.remove(&start);
    if a > start {
        r.free.insert(start, a - start);
    }
    if start + flen > a + len {
        r.free.insert(a + len, start + flen - (a + len));
    }
    r.used += len;
    r.peak = r.peak.max(r.used);
    Ok(a)
}

/// Maps an allocation exported by process `pid` into this process's device region and
/// registers it as a device allocation; returns its address here.
pub fn import(pid: u32, e: &Export) -> Result<u64, ShareError> {
    let total: u64 = e.pieces.iter().map(|p| p.pages as u64 * PAGE).sum();
    if e.pieces.is_empty()
        || e.size == 0
        || e.offset >= PAGE
        || e.offset + e.size > total
        || e.pieces.iter().any(|p| p.pages == 0)
    {
        return Err(ShareError::BadHandle);
    }
    let mut fds = Vec::with_capacity(e.pieces.len());
    for p in &e.pieces {
        let fd = open_peer_memfd(pid, p.fd, &memfd_name(pid, p.id))?;
        let size = std::fs::File::from(fd.try_clone().map_err(|_| ShareError::MapFailed)?)
            .metadata()
            .map_err(|_| ShareError::BadHandle)?
            .len();
        if (p.fd_page as u64 + p.pages as u64) * PAGE > size {
            return Err(ShareError::BadHandle);
        }
        fds.push(fd);
    }
    IMPORTED.store(true, Ordering::Release);
    let lo = take_pages(&mut REGION.lock(), total)?;
    let mut at = lo;
    for (p, fd) in e.pieces.iter().zip(&fds) {
        let len = p.pages as u64 * PAGE;
        // SAFETY: [at, at + len) was just taken from our region's free list: no allocation and
        // no Rust object lives there.
        let offset = p.fd_page as u64 * PAGE;
        if !unsafe { super::map_fd_fixed(at, len, fd.as_raw_fd(), offset, READ_WRITE) } {
            give_back(lo, total);
            return Err(ShareError::MapFailed);
        }
        at += len;
    }
    // The descriptors close here; the mappings keep the pages.
    let ptr = lo + e.offset;
    MAP.write().insert(ptr, e.size);
    IMPORTS.lock().insert(ptr, Import { lo, len: total });
    Ok(ptr)
}

/// Unmaps an allocation [`import`] mapped at `ptr`.
pub fn close(ptr: u64) -> Result<(), ShareError> {
    let im = IMPORTS
        .lock()
        .remove(&ptr)
        .ok_or(ShareError::NotAllocated)?;
    MAP.write().remove(&ptr);
    give_back(im.lo, im.len);
    Ok(())
}

/// Returns an importer's page range to the region: private anonymous pages again, and free.
fn give_back(lo: u64, len: u64) {
    // SAFETY: [lo, lo + len) is a range `take_pages` handed out and nothing lives there any
    // more; an anonymous mapping replaces the shared pages in place.
    unsafe {
        libc::mmap(
            lo as *mut libc::c_void,
            len as usize,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        );
    }
    let mut r = REGION.lock();
    r.used -= len;
    super::release(&mut r, lo, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_keeps_contents_and_freeing_unshares() {
        let a = super::super::alloc(10_000).unwrap();
        let b = super::super::alloc(300).unwrap();
        // SAFETY: both are live allocations of the region.
        unsafe {
            std::ptr::write_bytes(a as *mut u8, 0x5a, 10_000);
            std::ptr::write_bytes(b as *mut u8, 0x33, 300);
        }
        let e = export(a).unwrap();
        assert_eq!(e.size, 10_000);
        assert!(e.pieces.len() <= 3);
        assert!(is_shared(a) && is_shared(a + 9_999));
        // SAFETY: still live; the contents survived the remapping.
        unsafe {
            assert_eq!(*((a + 5000) as *const u8), 0x5a);
            assert_eq!(*(b as *const u8), 0x33);
        }
        // Exporting again gives the same pieces.
        assert_eq!(export(a).unwrap(), e);
        // The memfd holds the same bytes as the exporter's pages.
        let fd = open_peer_memfd(
            std::process::id(),
            e.pieces[0].fd,
            &memfd_name(std::process::id(), e.pieces[0].id),
        )
        .unwrap();
        let mut byte = [0u8; 1];
        // SAFETY: a valid descriptor and a one-byte buffer.
        let n = unsafe {
            libc::pread(
                fd.as_raw_fd(),
                byte.as_mut_ptr().cast(),
                1,
                ((e.pieces[0].fd_page as u64) * PAGE + e.offset) as i64,
            )
        };
        assert_eq!((n, byte[0]), (1, 0x5a));
        assert_eq!(
            open_peer_memfd(std::process::id(), e.pieces[0].fd, "cuda-shim-ipc-0-0").unwrap_err(),
            ShareError::BadHandle
        );
        // Mapped a second time (as another process would), the views alias.
        let c = import(std::process::id(), &e).unwrap();
        assert_eq!(c % 256, a % 4096 % 256);
        assert!(super::super::contains(c, 10_000) && !super::super::contains(c, 10_001));
        // SAFETY: both map the same memfd pages read-write.
        unsafe {
            *((a + 7) as *mut u8) = 0x77;
            assert_eq!(*((c + 7) as *const u8), 0x77);
            *((c + 9_000) as *mut u8) = 0x11;
            assert_eq!(*((a + 9_000) as *const u8), 0x11);
        }
        assert_eq!(
            super::super::free(c),
            Err(super::super::MemError::NotAllocated)
        );
        super::super::free(a).unwrap();
        // The importer's view stays valid after the exporter freed it.
        // SAFETY: still mapped until closed.
        assert_eq!(unsafe { *((c + 7) as *const u8) }, 0x77);
        close(c).unwrap();
        assert!(!super::super::contains(c, 1));
        assert_eq!(close(c), Err(ShareError::NotAllocated));
        // The pages only `a` touched are private again.
        assert!(!is_shared(a + 4096));
        super::super::free(b).unwrap();
        // (Whether `a` can still be exported is not asked: other tests of this process may
        // have been given its address again.)
    }
}
