//! The host's call stack at a driver call, with names: what the sanitizer's report of a failed
//! API call shows, as compute-sanitizer's does ("... on CUDA API call to cudaMemcpy", then the
//! program's frames). The driver sees the runtime's calls, not the program's, so the report
//! names the CUDA runtime function the program called when the stack holds one.
//!
//! Return addresses come from glibc's `backtrace` (the unwinder, through `.eh_frame`). `dladdr`
//! names the object of each; a symbol comes from `dladdr` when the object exports it, or else
//! from the object's own ELF symbol table: a program linked with the static cudart (nvcc's
//! default) exports none of its functions, `cudaMemcpy` and `main` included. Only the error
//! path of a checked run pays for any of this.

use object::{Object, ObjectKind, ObjectSymbol, SymbolKind};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

/// One frame of the stack.
pub struct Frame {
    /// The object's file name (without its directory).
    pub object: String,
    /// The return address less the object's load address, as compute-sanitizer prints it.
    pub offset: usize,
    /// The function holding the return address, as the symbol table spells it.
    pub symbol: Option<String>,
    /// Where the object is loaded, and its path (for [`function`]).
    base: usize,
    path: String,
}

extern "C" {
    // glibc's <execinfo.h>.
    fn backtrace(buffer: *mut *mut c_void, size: c_int) -> c_int;
}

/// The calling thread's stack, innermost frame first (this function's caller), at most `max`
/// frames.
pub fn capture(max: usize) -> Vec<Frame> {
    let mut addrs = vec![std::ptr::null_mut::<c_void>(); max + 1];
    // SAFETY: the buffer holds max + 1 pointers.
    let n = unsafe { backtrace(addrs.as_mut_ptr(), addrs.len() as c_int) }.max(0) as usize;
    addrs[..n]
        .iter()
        .skip(1)
        .map(|&a| frame(a as usize))
        .collect()
}

fn frame(addr: usize) -> Frame {
    // SAFETY: dladdr only reads the loader's tables; `info` is plain data it fills.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let found = unsafe { libc::dladdr(addr as *const c_void, &mut info) } != 0;
    let cstr = |p: *const c_char| {
        // SAFETY: dladdr's strings are NUL-terminated and live as long as the object.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    let base = if found { info.dli_fbase as usize } else { 0 };
    let mut path = cstr(info.dli_fname).unwrap_or_default();
    if path.is_empty() {
        // The main program (glibc names it with an empty string).
        path = std::fs::read_link("/proc/self/exe")
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
    }
    // (A return address is one past the call: look up the byte before it.)
    let symbol = cstr(info.dli_sname).or_else(|| symbols(&path)?.at(addr - 1, base));
    Frame {
        object: path.rsplit('/').next().unwrap_or("").to_string(),
        offset: addr.wrapping_sub(base),
        symbol,
        base,
        path,
    }
}

/// The address of the function `name` in the object of `frame`, from its symbol table.
pub fn function(frame: &Frame, name: &str) -> Option<usize> {
    let table = symbols(&frame.path)?;
    let &(start, _, _) = table.funcs.iter().find(|f| f.2 == name)?;
    Some(if table.relative {
        frame.base + start
    } else {
        start
    })
}

/// The functions of one object, sorted by address.
struct Table {
    /// (address, size, name); addresses relative to the load address when `relative`.
    funcs: Vec<(usize, usize, String)>,
    /// A position-independent object (shared library or PIE): symbol values are offsets.
    relative: bool,
}

impl Table {
    fn at(&self, addr: usize, base: usize) -> Option<String> {
        let a = if self.relative {
            addr.checked_sub(base)?
        } else {
            addr
        };
        let i = self.funcs.partition_point(|f| f.0 <= a).checked_sub(1)?;
        let (start, size, name) = &self.funcs[i];
        (a < start + (*size).max(1)).then(|| name.clone())
    }
}

/// Symbol tables read so far, by path (None: unreadable).
fn symbols(path: &str) -> Option<Arc<Table>> {
    static CACHE: Lazy<Mutex<HashMap<String, Option<Arc<Table>>>>> = Lazy::new(Default::default);
    if let Some(t) = CACHE.lock().get(path) {
        return t.clone();
    }
    let table = read(path).map(Arc::new);
    CACHE.lock().insert(path.to_string(), table.clone());
    table
}

fn read(path: &str) -> Option<Table> {
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let mut funcs: Vec<(usize, usize, String)> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == SymbolKind::Text && s.address() != 0)
        .filter_map(|s| {
            Some((
                s.address() as usize,
                s.size() as usize,
                s.name().ok()?.into(),
            ))
        })
        .collect();
    funcs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    funcs.dedup_by(|a, b| a.0 == b.0);
    Some(Table {
        funcs,
        relative: file.kind() != ObjectKind::Executable,
    })
}

/// A C++ name demangled by the C++ runtime the program has loaded (nvcc programs link
/// libstdc++); the name as it is when there is none, or for a C name.
pub fn demangle(name: &str) -> String {
    type Demangle =
        unsafe extern "C" fn(*const c_char, *mut c_char, *mut usize, *mut c_int) -> *mut c_char;
    static CXA: Lazy<Option<Demangle>> = Lazy::new(|| {
        // SAFETY: a lookup by name in the loaded objects.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__cxa_demangle".as_ptr()) };
        // SAFETY: __cxa_demangle has this signature in the Itanium C++ ABI.
        (!p.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, Demangle>(p) })
    });
    let (Some(f), true, Ok(c)) = (*CXA, name.starts_with("_Z"), std::ffi::CString::new(name))
    else {
        return name.to_string();
    };
    let mut status: c_int = -1;
    // SAFETY: a NUL-terminated name; NULL output buffer asks for a malloc'd result.
    let out = unsafe {
        f(
            c.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut status,
        )
    };
    if out.is_null() || status != 0 {
        return name.to_string();
    }
    // SAFETY: a NUL-terminated string from malloc, freed once copied.
    let s = unsafe { CStr::from_ptr(out) }
        .to_string_lossy()
        .into_owned();
    unsafe { libc::free(out as *mut c_void) };
    s
}
