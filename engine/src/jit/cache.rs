//! The on-disk cache of compiled code (`CUDA_SHIM_CACHE_DIR`, chosen by the driver through
//! [`super::set_cache_dir`]): a test suite that relaunches the same program pays compiling once.
//!
//! An entry is the machine code of a program's kept segments ([`super::Code::compile`]), which
//! is position independent (`emit::segment` refuses code needing relocations), so it can be
//! mapped anywhere as it is. Its name is the hex of a SHA-256 [`key`] over everything the code
//! depends on: the program's IR (not the PTX text: lowering depends on the profile and the
//! module's variables' addresses, and the IR has all of it), this build of the engine (the
//! ELF build id of the object holding this code, so a rebuilt shim never loads its
//! predecessor's code; no build id, no cache), the host ISA and the flags Cranelift was given
//! (a directory shared between hosts must not hand AVX-512 code to a host without it), and the
//! emission constants.
//!
//! Several processes may share a directory: a writer writes a unique temporary file beside the
//! entry and renames it into place (atomic: a reader sees a whole entry or none); a reader
//! checks the magic, the format, the key echoed in the entry, the lengths and a SHA-256 of the
//! whole entry, and takes any mismatch, truncation or I/O error for a miss (the program is
//! compiled again and the entry rewritten). The directory must belong to the user and be
//! writable by nobody else (its entries are code that runs as it is); otherwise, or when it
//! cannot be created, the cache is off, and when entries cannot be written, writing is, each
//! with one line in the driver's trace and nothing on stderr.
//!
//! Size: at most [`MAX_BYTES`]; past that the entries used longest ago (a hit refreshes an
//! entry's modification time) are removed down to three quarters of it. A process checks at its
//! first write and after every [`MAX_BYTES`]/16 it wrote, so a directory outgrows the bound by
//! at most that much per writing process.

use super::{emit, note, plan, Ctx, GCACHE};
use crate::ir::{Inst, Program};
use cranelift_codegen::isa::TargetIsa;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

pub type Key = [u8; 32];

const MAGIC: [u8; 8] = *b"CUSHJIT\0";
/// Bumped when the entry layout changes (it is in the key too).
const FORMAT: u32 = 4;
/// The bound of a directory's entries, in bytes.
pub const MAX_BYTES: u64 = 512 << 20;
/// Larger files are not entries (a program's segments make kilobytes to a few megabytes).
const MAX_ENTRY: u64 = 64 << 20;
const SUFFIX: &str = ".jit";
/// Temporary files older than this are left over by a writer that died: removed on eviction.
const STALE_TMP: Duration = Duration::from_secs(600);

/// A cache directory.
pub struct Cache {
    dir: PathBuf,
    /// Whether the directory exists and is private (checked at first use).
    usable: OnceLock<bool>,
    /// Set when a write failed: nothing more is written by this process.
    no_writes: AtomicBool,
    /// Bytes written since the size was last checked (`u64::MAX`: never checked).
    since_check: AtomicU64,
}

/// What an entry holds: which of the planned segments were kept, their code, and how long
/// compiling them took the process that wrote it.
pub(super) struct Entry {
    pub kept: Vec<u32>,
    pub blobs: Vec<Vec<u8>>,
    pub compiled_ns: u64,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache {
            dir: dir.into(),
            usable: OnceLock::new(),
            no_writes: AtomicBool::new(false),
            since_check: AtomicU64::new(u64::MAX),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the entry of `key`.
    pub fn path(&self, key: &Key) -> PathBuf {
        let mut name = String::with_capacity(64 + SUFFIX.len());
        for b in key {
            let _ = write!(name, "{b:02x}");
        }
        self.dir.join(name + SUFFIX)
    }

    /// Creates the directory (private) if needed; false, with a trace line, if that fails or
    /// it is not private.
    fn open(&self) -> bool {
        *self.usable.get_or_init(|| {
            let d = self.dir.display();
            if let Err(e) = fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.dir)
            {
                note(&format!(
                    "jit cache: cannot create {d} ({e}); the cache is off"
                ));
                return false;
            }
            match fs::metadata(&self.dir) {
                Ok(m) if m.is_dir() => {
                    // SAFETY: geteuid has no preconditions.
                    let me = unsafe { libc::geteuid() };
                    if m.uid() != me || m.mode() & 0o022 != 0 {
                        note(&format!(
                            "jit cache: {d} belongs to another user or others may write it; \
                             the cache is off (its entries are code that runs as it is)"
                        ));
                        return false;
                    }
                    true
                }
                Ok(_) => {
                    note(&format!(
                        "jit cache: {d} is not a directory; the cache is off"
                    ));
                    false
                }
                Err(e) => {
                    note(&format!("jit cache: {d}: {e}; the cache is off"));
                    false
                }
            }
        })
    }

    /// Whether there is a file for `key` (not checked: [`Cache::load`] checks it; touches
    /// nothing, not even the directory).
    pub(super) fn holds(&self, key: &Key) -> bool {
        self.path(key).exists()
    }

    /// The entry of `key` for a program of `nsegs` planned segments, if there is a sound one.
    pub(super) fn load(&self, key: &Key, nsegs: usize) -> Option<Entry> {
        if !self.open() {
            return None;
        }
        let path = self.path(key);
        let mut f = fs::File::open(&path).ok()?;
        let mut buf = Vec::new();
        // (`take`: a file that grew past any entry's size is not read whole.)
        if (&mut f).take(MAX_ENTRY + 1).read_to_end(&mut buf).is_err() {
            return None;
        }
        match decode(&buf, key, nsegs) {
            Some(e) => {
                // The entry was used now: the last to be evicted. (Best effort.)
                let _ = f.set_modified(SystemTime::now());
                Some(e)
            }
            None => {
                note(&format!(
                    "jit cache: {} is damaged; compiling again",
                    path.display()
                ));
                None
            }
        }
    }

    /// Writes the entry of `key` (atomically: a temporary file renamed into place).
    pub(super) fn store(&self, key: &Key, nsegs: usize, e: &Entry) {
        if self.no_writes.load(Ordering::Relaxed) || !self.open() {
            return;
        }
        let bytes = encode(key, nsegs, e);
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = self.dir.join(format!(
            ".tmp-{}-{}-{nanos}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(&bytes)?;
            drop(f);
            fs::rename(&tmp, self.path(key))
        })();
        if let Err(err) = written {
            let _ = fs::remove_file(&tmp);
            if !self.no_writes.swap(true, Ordering::Relaxed) {
                note(&format!(
                    "jit cache: cannot write to {} ({err}); compiled code is not kept",
                    self.dir.display()
                ));
            }
            return;
        }
        let n = bytes.len() as u64;
        let since = self.since_check.load(Ordering::Relaxed);
        if since == u64::MAX || since.saturating_add(n) >= MAX_BYTES / 16 {
            self.since_check.store(0, Ordering::Relaxed);
            self.evict(MAX_BYTES);
        } else {
            self.since_check.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Removes the entries used longest ago while the directory holds more than `max` bytes
    /// (down to three quarters of it), and stale temporary files. Races with other processes
    /// doing the same are harmless: a file removed twice is an error ignored, and a reader
    /// holding an entry open keeps reading it.
    pub(crate) fn evict(&self, max: u64) {
        let Ok(dir) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        let mut entries = Vec::new();
        let mut total = 0u64;
        for d in dir.flatten() {
            let name = d.file_name();
            let name = name.to_string_lossy();
            let Ok(m) = d.metadata() else { continue };
            let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if name.starts_with(".tmp-") {
                if now.duration_since(modified).is_ok_and(|a| a > STALE_TMP) {
                    let _ = fs::remove_file(d.path());
                }
            } else if name.ends_with(SUFFIX) && m.is_file() {
                total += m.len();
                entries.push((modified, m.len(), d.path()));
            }
        }
        if total <= max {
            return;
        }
        entries.sort();
        for (_, len, path) in entries {
            if total <= max / 4 * 3 {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

/// `magic | format u32 | key | planned segments u32 | kept u32 | compiled_ns u64 |
/// (segment u32, length u32) per kept segment | the code | SHA-256 of all before`, little
/// endian.
fn encode(key: &Key, nsegs: usize, e: &Entry) -> Vec<u8> {
    let code: usize = e.blobs.iter().map(Vec::len).sum();
    let mut b = Vec::with_capacity(64 + 8 * e.kept.len() + code + 32);
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&FORMAT.to_le_bytes());
    b.extend_from_slice(key);
    b.extend_from_slice(&(nsegs as u32).to_le_bytes());
    b.extend_from_slice(&(e.kept.len() as u32).to_le_bytes());
    b.extend_from_slice(&e.compiled_ns.to_le_bytes());
    for (i, blob) in e.kept.iter().zip(&e.blobs) {
        b.extend_from_slice(&i.to_le_bytes());
        b.extend_from_slice(&(blob.len() as u32).to_le_bytes());
    }
    for blob in &e.blobs {
        b.extend_from_slice(blob);
    }
    let sum = Sha256::digest(&b);
    b.extend_from_slice(&sum);
    b
}

/// The entry `b` holds, if it is whole, of this format and key, for `nsegs` segments.
fn decode(b: &[u8], key: &Key, nsegs: usize) -> Option<Entry> {
    let body_len = b.len().checked_sub(32)?;
    let (body, sum) = b.split_at(body_len);
    if Sha256::digest(body).as_slice() != sum {
        return None;
    }
    let mut r = body;
    let mut take = |n: usize| -> Option<&[u8]> {
        if r.len() < n {
            return None;
        }
        let (h, t) = r.split_at(n);
        r = t;
        Some(h)
    };
    let u32_of = |s: &[u8]| u32::from_le_bytes(s.try_into().unwrap());
    if take(8)? != MAGIC || u32_of(take(4)?) != FORMAT || take(32)? != key {
        return None;
    }
    if u32_of(take(4)?) as usize != nsegs {
        return None;
    }
    let kept_n = u32_of(take(4)?) as usize;
    if kept_n > nsegs {
        return None;
    }
    let compiled_ns = u64::from_le_bytes(take(8)?.try_into().unwrap());
    let mut kept = Vec::with_capacity(kept_n);
    let mut lens = Vec::with_capacity(kept_n);
    for _ in 0..kept_n {
        let i = u32_of(take(4)?);
        let len = u32_of(take(4)?) as usize;
        // Strictly rising segment indices, each planned, each with code.
        if (i as usize) >= nsegs || kept.last().is_some_and(|&p| p >= i) || len == 0 {
            return None;
        }
        kept.push(i);
        lens.push(len);
    }
    let mut blobs = Vec::with_capacity(kept_n);
    for len in lens {
        blobs.push(take(len)?.to_vec());
    }
    if !r.is_empty() {
        return None;
    }
    Some(Entry {
        kept,
        blobs,
        compiled_ns,
    })
}

/// Feeds formatted text to the hash without building it first.
struct Hashing(Sha256);

impl std::fmt::Write for Hashing {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.update(s.as_bytes());
        Ok(())
    }
}

/// The key of `prog`'s code on `isa`: None when this build has no build id (its code could
/// not be told from another build's).
pub(super) fn key(prog: &Program, isa: &dyn TargetIsa) -> Option<Key> {
    let id = build_id()?;
    let mut h = Hashing(Sha256::new());
    let _ = writeln!(
        h,
        "libcuda-shim jit cache {FORMAT}; engine {}",
        env!("CARGO_PKG_VERSION")
    );
    h.0.update(id);
    let _ = writeln!(h, "\n{}\n{}", isa.triple(), isa.flags());
    for v in isa.isa_flags() {
        let _ = writeln!(h, "{v}");
    }
    let _ = writeln!(
        h,
        "lanes {} undo {} gcache {} ctx {}",
        emit::LANES,
        plan::MAX_UNDO,
        GCACHE,
        std::mem::size_of::<Ctx>()
    );
    // Every field but the diagnostics side table (PTX lines and names, which no code uses):
    // destructured, so a new field is a compile error here until it is keyed or explained.
    let Program {
        insts,
        info: _,
        entry,
        exit,
        nregs,
        reg_words,
        shared_static,
        dyn_shared_off,
        local_bytes,
        funcs,
        sites,
        sp,
        uses_alloca,
        param_window,
        zeroed,
        cta_pair,
    } = prog;
    let _ = writeln!(
        h,
        "{entry} {exit} {nregs} {reg_words:?} {shared_static} {dyn_shared_off} {local_bytes} \
         {funcs:?} {sites:?} {sp:?} {uses_alloca} {param_window} {zeroed:?} {cta_pair}"
    );
    for Inst { op, guard } in insts {
        // (Debug of an op prints every operand and modifier; a resolved lane function prints
        // as its operation, not its address.)
        let _ = writeln!(h, "{guard:?} {op:?}");
    }
    Some(h.0.finalize().into())
}

/// The GNU build id of the object this code is in (the driver library, or a test binary).
fn build_id() -> Option<&'static [u8]> {
    static ID: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    ID.get_or_init(|| {
        struct Find {
            addr: usize,
            id: Option<Vec<u8>>,
        }
        unsafe extern "C" fn each(
            info: *mut libc::dl_phdr_info,
            _size: libc::size_t,
            data: *mut libc::c_void,
        ) -> libc::c_int {
            // SAFETY: dl_iterate_phdr passes a valid info for the call's duration, and `data`
            // is the `Find` below.
            let (info, find) = unsafe { (&*info, &mut *(data as *mut Find)) };
            if info.dlpi_phdr.is_null() {
                return 0;
            }
            // SAFETY: the object's program headers, dlpi_phnum of them.
            let phdrs =
                unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
            let base = info.dlpi_addr as usize;
            let inside = phdrs.iter().any(|p| {
                let lo = base.wrapping_add(p.p_vaddr as usize);
                p.p_type == libc::PT_LOAD && (lo..lo + p.p_memsz as usize).contains(&find.addr)
            });
            if !inside {
                return 0;
            }
            for p in phdrs.iter().filter(|p| p.p_type == libc::PT_NOTE) {
                // SAFETY: a note segment is loaded (inside a PT_LOAD) and p_memsz long.
                let notes = unsafe {
                    std::slice::from_raw_parts(
                        base.wrapping_add(p.p_vaddr as usize) as *const u8,
                        p.p_memsz as usize,
                    )
                };
                if let Some(id) = gnu_build_id(notes, p.p_align.max(4) as usize) {
                    find.id = Some(id.to_vec());
                }
            }
            1
        }
        let mut find = Find {
            addr: build_id as fn() -> Option<&'static [u8]> as usize,
            id: None,
        };
        // SAFETY: `each` matches the callback type and only reads what it is given.
        unsafe { libc::dl_iterate_phdr(Some(each), &mut find as *mut Find as *mut libc::c_void) };
        if find.id.is_none() {
            note("jit cache: this build has no build id; the cache is off");
        }
        find.id
    })
    .as_deref()
}

/// The descriptor of the `NT_GNU_BUILD_ID` note in `notes` (entries aligned to `align`), if one
/// is long enough to tell builds apart.
fn gnu_build_id(mut notes: &[u8], align: usize) -> Option<&[u8]> {
    let word = |s: &[u8], i: usize| u32::from_ne_bytes(s[i..i + 4].try_into().unwrap()) as usize;
    while notes.len() >= 12 {
        let (namesz, descsz, ty) = (word(notes, 0), word(notes, 4), word(notes, 8));
        let name_end = 12usize.checked_add(namesz)?;
        let desc_at = name_end.checked_next_multiple_of(align)?;
        let desc_end = desc_at.checked_add(descsz)?;
        if desc_end > notes.len() {
            return None;
        }
        if ty == 3 && &notes[12..name_end] == b"GNU\0" && descsz >= 8 {
            return Some(&notes[desc_at..desc_end]);
        }
        let next = desc_end.checked_next_multiple_of(align)?.min(notes.len());
        notes = &notes[next..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::gnu_build_id;

    /// A note: namesz, descsz, type, the name and the descriptor, each padded to 4 bytes.
    fn note(name: &[u8], ty: u32, desc: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&(name.len() as u32).to_ne_bytes());
        v.extend_from_slice(&(desc.len() as u32).to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        for part in [name, desc] {
            v.extend_from_slice(part);
            v.resize(v.len().next_multiple_of(4), 0);
        }
        v
    }

    #[test]
    fn build_id_is_the_gnu_note_of_type_3() {
        let id: Vec<u8> = (1..=20).collect();
        // An ABI tag note (type 1) first, then the build id.
        let notes = [note(b"GNU\0", 1, &[0; 16]), note(b"GNU\0", 3, &id)].concat();
        assert_eq!(gnu_build_id(&notes, 4), Some(&id[..]));
        // Another owner's type 3 is not it; nor is a build id too short to tell builds apart.
        assert_eq!(gnu_build_id(&note(b"XYZ\0", 3, &id), 4), None);
        assert_eq!(gnu_build_id(&note(b"GNU\0", 3, &id[..4]), 4), None);
        // Truncated: no id, and no read past the end.
        for cut in 0..notes.len() - 20 {
            assert_eq!(gnu_build_id(&notes[..cut], 4), None, "{cut}");
        }
        // This test binary has one (the cache's other tests depend on it).
        assert!(super::build_id().is_some_and(|id| id.len() >= 8));
    }
}
