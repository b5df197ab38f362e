//! Run-time compilers that target SASS. A program that compiles with NVRTC for a real
//! architecture (`-arch=sm_90`) and asks for the cubin (`nvrtcGetCUBINSize`/`nvrtcGetCUBIN`)
//! would hand the shim an ELF with SASS only, which it cannot run. When the shim is preloaded,
//! these exports come first in the process's global scope, so a program linked with libnvrtc
//! calls them: each calls NVRTC's own function (found with `dlsym(RTLD_NEXT)`), and where NVRTC
//! has a cubin it returns instead a fatbin holding the same program's PTX, which NVRTC keeps
//! after an `sm_XX` compile (`nvrtcGetPTX` answers). `cuModuleLoadData`, `cuLibraryLoadData`
//! and `cuLinkAddData` (as a cubin or a fatbin) load that image; the trace says what was
//! returned. A program compiled for a virtual architecture (`compute_XX`) gets NVRTC's own
//! answers, errors included. `nvrtcCompileProgram` is interposed too, to keep each program's
//! `--maxrregcount`, which the image then carries.
//!
//! nvJitLink (numba-cuda's default link path, cuda.core's `Linker`) links PTX or LTO-IR into a
//! SASS cubin. The exports below follow each link handle (its options and inputs, as nvJitLink
//! accepted them) and, where nvJitLink has a cubin, return instead an image with PTX: the PTX
//! inputs as they are, and the others (LTO-IR, fatbins, objects) linked once more by nvJitLink
//! itself with `-lto -ptx`, which gives their PTX. One PTX text becomes a fatbin, several a
//! link image (see `link_image`) that the loaders link. An input with SASS only (a cubin) has no PTX:
//! the real cubin is returned then, with a message, and fails to load with the shim's advice.
//!
//! Reach: C and C++ programs call these symbols when the shim is preloaded (it comes first in
//! the global scope). cuda-python's bindings (`cuda.bindings.nvrtc`, `cuda.bindings.nvjitlink`,
//! used by cuda.core and numba-cuda) look each function up with `dlsym(RTLD_DEFAULT, name)`
//! before they `dlopen` the library, so they find the preloaded shim's too. nvJitLink's C
//! header calls versioned names (`__nvJitLinkCreate_13_5`): those of 13.0 to 13.5 are
//! interposed as well. Code that looks the functions up only through its own `dlopen` handle
//! (CuPy's NVRTC) does not reach these exports. For CuPy the shim sets
//! `CUPY_COMPILE_WITH_PTX=1` when it is preloaded (see [`ask_cupy_for_ptx`]).

use crate::boundary::{self, Reply};
use crate::config;
use crate::{fatbin, link_image, trace};
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

/// `nvrtcResult` values used here.
const NVRTC_SUCCESS: c_int = 0;
const NVRTC_ERROR_INTERNAL_ERROR: c_int = 11;

type GetSize = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type Get = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;

/// The library's own function `name`: the next definition after this library in the lookup
/// order, or, when the library was loaded privately (`RTLD_LOCAL`), its definition in the
/// already loaded `soname`. Not cached while missing: the library may be loaded later.
fn next_symbol(name: &CStr, soname: &CStr, slot: &'static OnceLock<usize>) -> Option<usize> {
    if let Some(&p) = slot.get() {
        return Some(p);
    }
    // SAFETY: dlsym with a NUL-terminated name; RTLD_NEXT searches the objects after this one.
    let mut p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    if p.is_null() {
        // SAFETY: RTLD_NOLOAD only finds an object already loaded; the handle is released.
        unsafe {
            let h = libc::dlopen(soname.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
            if !h.is_null() {
                p = libc::dlsym(h, name.as_ptr());
                libc::dlclose(h);
            }
        }
    }
    (!p.is_null()).then(|| *slot.get_or_init(|| p as usize))
}

macro_rules! nvrtc_fn {
    ($name:literal, $ty:ty) => {{
        static SLOT: OnceLock<usize> = OnceLock::new();
        next_symbol($name, c"libnvrtc.so.13", &SLOT).map(|p| {
            // SAFETY: NVRTC's exported function of this name has this signature (nvrtc.h).
            unsafe { std::mem::transmute::<usize, $ty>(p) }
        })
    }};
}

macro_rules! nvjitlink_fn {
    ($name:literal, $ty:ty) => {{
        static SLOT: OnceLock<usize> = OnceLock::new();
        next_symbol($name, c"libnvJitLink.so.13", &SLOT).map(|p| {
            // SAFETY: nvJitLink's exported function of this name has this signature
            // (nvJitLink.h).
            unsafe { std::mem::transmute::<usize, $ty>(p) }
        })
    }};
}

/// The image handed out for a program NVRTC compiled to a cubin: a fatbin with its PTX, or
/// `None` when NVRTC has no PTX for it (the cubin is returned then, and fails to load with
/// the shim's message).
unsafe fn ptx_image(prog: *mut c_void, caller: &str) -> Option<Vec<u8>> {
    let size_fn = nvrtc_fn!(c"nvrtcGetPTXSize", GetSize)?;
    let get_fn = nvrtc_fn!(c"nvrtcGetPTX", Get)?;
    let mut n = 0usize;
    // SAFETY: NVRTC's own functions on the caller's program handle.
    let rc = unsafe { size_fn(prog, &mut n) };
    if rc != NVRTC_SUCCESS || n == 0 {
        trace::trace!(
            "{caller}: NVRTC keeps no PTX for this program (nvrtcGetPTXSize: {rc}); \
             returning NVRTC's SASS cubin, which libcuda-shim cannot load"
        );
        return None;
    }
    let mut text = vec![0u8; n];
    // SAFETY: `text` holds the n bytes NVRTC asked for.
    let rc = unsafe { get_fn(prog, text.as_mut_ptr() as *mut c_char) };
    if rc != NVRTC_SUCCESS {
        return None;
    }
    let len = text.iter().position(|&b| b == 0).unwrap_or(text.len());
    let text = String::from_utf8_lossy(&text[..len]);
    let limit = NVRTC_REG_LIMITS.lock().get(&(prog as usize)).copied();
    let image = match limit {
        None => fatbin::ptx_only(&text),
        Some(_) => link_image::encode(
            &[(text.into_owned(), "nvrtc".into())],
            config::profile().sm(),
            limit,
        ),
    };
    trace::trace!(
        "{caller}: the program was compiled for a real architecture (SASS); returning a \
         {}-byte fatbin with its PTX instead of the cubin (libcuda-shim runs PTX)",
        image.len()
    );
    Some(image)
}

/// CuPy compiles with NVRTC through its own `dlopen` handle, which the exports above do not
/// reach, and loads the cubin it asks for; with `CUPY_COMPILE_WITH_PTX=1` it asks NVRTC for PTX
/// instead. When the shim is preloaded its constructor runs before the program's `main` (so
/// before Python copies its environment into `os.environ`) and sets that variable unless the
/// user set it. Only while the process has one thread: `setenv` is not safe while another
/// thread may read the environment (the shim loaded later, by `dlopen`, leaves it alone, and
/// `cuda-shim run` sets it for the program in any case).
#[ctor::ctor]
fn ask_cupy_for_ptx() {
    let single_threaded = std::fs::read_dir("/proc/self/task").is_ok_and(|d| d.count() == 1);
    if single_threaded && std::env::var_os("CUPY_COMPILE_WITH_PTX").is_none() {
        // SAFETY: the process has a single thread (checked above), so nothing reads the
        // environment concurrently.
        unsafe { std::env::set_var("CUPY_COMPILE_WITH_PTX", "1") };
    }
}

/// The register limit (`--maxrregcount=N`) each NVRTC program was compiled under, by handle:
/// NVRTC's cubin obeys it, so the PTX image handed out instead carries it (a link image with
/// a register limit, as cuLink* makes) and NUM_REGS and the launch check follow it.
static NVRTC_REG_LIMITS: Lazy<Mutex<HashMap<usize, u32>>> = Lazy::new(Default::default);

/// `-maxrregcount=N` or `--maxrregcount=N` (also `-maxrregcount N` split over two options), as
/// NVRTC and nvJitLink spell it.
fn max_registers_option<'a>(options: impl IntoIterator<Item = &'a str>) -> Option<u32> {
    let mut it = options.into_iter();
    let mut found = None;
    while let Some(o) = it.next() {
        let o = o.trim().trim_start_matches('-');
        if let Some(n) = o.strip_prefix("maxrregcount=") {
            found = n.trim().parse().ok().or(found);
        } else if o == "maxrregcount" {
            found = it.next().and_then(|n| n.trim().parse().ok()).or(found);
        }
    }
    found
}

type CompileFn = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type DestroyProgramFn = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

/// # Safety
/// NVRTC's contract: `prog` a program handle, `options` `n` C strings.
#[no_mangle]
pub unsafe extern "C" fn nvrtcCompileProgram(
    prog: *mut c_void,
    n: c_int,
    options: *const *const c_char,
) -> c_int {
    guarded::<NVRTC_ERROR_INTERNAL_ERROR>("nvrtcCompileProgram", || {
        let Some(real) = nvrtc_fn!(c"nvrtcCompileProgram", CompileFn) else {
            trace::warn("nvrtcCompileProgram called, but no NVRTC library is loaded");
            return NVRTC_ERROR_INTERNAL_ERROR;
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { real(prog, n, options) };
        if rc == NVRTC_SUCCESS && !options.is_null() {
            // SAFETY: NVRTC read the same `n` strings.
            let opts: Vec<String> = (0..n.max(0) as usize)
                .map(|i| c_string(unsafe { *options.add(i) }))
                .collect();
            let limit = max_registers_option(opts.iter().map(String::as_str));
            let mut limits = NVRTC_REG_LIMITS.lock();
            match limit {
                Some(l) => limits.insert(prog as usize, l),
                None => limits.remove(&(prog as usize)),
            };
        }
        rc
    })
}

/// # Safety
/// NVRTC's contract: `prog` points to a program handle.
#[no_mangle]
pub unsafe extern "C" fn nvrtcDestroyProgram(prog: *mut *mut c_void) -> c_int {
    guarded::<NVRTC_ERROR_INTERNAL_ERROR>("nvrtcDestroyProgram", || {
        let Some(real) = nvrtc_fn!(c"nvrtcDestroyProgram", DestroyProgramFn) else {
            trace::warn("nvrtcDestroyProgram called, but no NVRTC library is loaded");
            return NVRTC_ERROR_INTERNAL_ERROR;
        };
        if !prog.is_null() {
            // SAFETY: the caller's pointer to its handle (NVRTC checks it too).
            NVRTC_REG_LIMITS.lock().remove(&(unsafe { *prog } as usize));
        }
        // SAFETY: forwarded contract.
        unsafe { real(prog) }
    })
}

/// A status code of NVRTC or nvJitLink, whose internal error is `INTERNAL` (their codes
/// differ: 11 is nvJitLink's INCOMPATIBLE_OPTIONS).
struct Status<const INTERNAL: c_int>(c_int);

impl<const INTERNAL: c_int> Reply for Status<INTERNAL> {
    fn on_panic() -> Self {
        Status(INTERNAL)
    }
    fn describe(&self, line: &mut String) {
        line.push_str(&format!(" -> {}", self.0));
    }
}

/// Runs an interposed function's body through the C boundary's guard, as the driver's exports
/// do: a panic becomes the library's internal error (never unwinds into C) and is reported, and
/// the call is traced.
fn guarded<const INTERNAL: c_int>(name: &str, body: impl FnOnce() -> c_int) -> c_int {
    boundary::guard(name, |_| {}, || Status::<INTERNAL>(body())).0
}

/// # Safety
/// NVRTC's contract: `prog` a program handle, `size` writable.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBINSize(prog: *mut c_void, size: *mut usize) -> c_int {
    guarded::<NVRTC_ERROR_INTERNAL_ERROR>("nvrtcGetCUBINSize", || {
        let Some(real) = nvrtc_fn!(c"nvrtcGetCUBINSize", GetSize) else {
            trace::warn("nvrtcGetCUBINSize called, but no NVRTC library is loaded");
            return NVRTC_ERROR_INTERNAL_ERROR;
        };
        // NVRTC answers first: a bad handle or NULL pointer keeps its error, and a program
        // compiled for a virtual architecture its size 0 (NVRTC 13.5: success, no cubin).
        // SAFETY: forwarded contract.
        let rc = unsafe { real(prog, size) };
        // SAFETY: NVRTC accepted `size` as writable when it succeeded.
        if rc != NVRTC_SUCCESS || unsafe { *size } == 0 {
            return rc;
        }
        // SAFETY: forwarded contract.
        if let Some(image) = unsafe { ptx_image(prog, "nvrtcGetCUBINSize") } {
            // SAFETY: NVRTC accepted `size` as writable.
            unsafe { *size = image.len() };
        }
        NVRTC_SUCCESS
    })
}

/// # Safety
/// NVRTC's contract: `prog` a program handle, `cubin` as large as `nvrtcGetCUBINSize` said.
#[no_mangle]
pub unsafe extern "C" fn nvrtcGetCUBIN(prog: *mut c_void, cubin: *mut c_char) -> c_int {
    guarded::<NVRTC_ERROR_INTERNAL_ERROR>("nvrtcGetCUBIN", || {
        let (Some(real_size), Some(real)) = (
            nvrtc_fn!(c"nvrtcGetCUBINSize", GetSize),
            nvrtc_fn!(c"nvrtcGetCUBIN", Get),
        ) else {
            trace::warn("nvrtcGetCUBIN called, but no NVRTC library is loaded");
            return NVRTC_ERROR_INTERNAL_ERROR;
        };
        let mut n = 0usize;
        // SAFETY: NVRTC's own function on the caller's handle.
        if unsafe { real_size(prog, &mut n) } != NVRTC_SUCCESS || n == 0 || cubin.is_null() {
            // NVRTC's own answer for a program without a cubin or a NULL buffer.
            // SAFETY: forwarded contract.
            return unsafe { real(prog, cubin) };
        }
        // SAFETY: forwarded contract.
        match unsafe { ptx_image(prog, "nvrtcGetCUBIN") } {
            Some(image) => {
                // SAFETY: the caller sized `cubin` by nvrtcGetCUBINSize, which gave this length.
                unsafe {
                    std::ptr::copy_nonoverlapping(image.as_ptr(), cubin as *mut u8, image.len())
                };
                NVRTC_SUCCESS
            }
            // SAFETY: forwarded contract.
            None => unsafe { real(prog, cubin) },
        }
    })
}

// ---- nvJitLink -------------------------------------------------------------------------------

/// `nvJitLinkResult` values used here.
const NVJITLINK_SUCCESS: c_int = 0;
const NVJITLINK_ERROR_INTERNAL: c_int = 6;
/// `nvJitLinkInputType`: PTX text and LTO-IR (the others hold SASS or containers).
const NVJITLINK_INPUT_PTX: c_int = 2;
const NVJITLINK_INPUT_LTOIR: c_int = 3;

type Handle = *mut c_void;
type CreateFn = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Handle) -> c_int;
type AddDataFn = unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int;
type AddFileFn = unsafe extern "C" fn(Handle, c_int, *const c_char) -> c_int;
type CompleteFn = unsafe extern "C" fn(Handle) -> c_int;
type SizeFn = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type CopyFn = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;
type LogFn = unsafe extern "C" fn(Handle, *mut c_char) -> c_int;

/// What a link handle was given, as nvJitLink accepted it.
#[derive(Default)]
struct LinkRecord {
    options: Vec<String>,
    /// (input type, bytes, name)
    inputs: Vec<(c_int, Vec<u8>, String)>,
    /// The image handed out for this link once built (the size call and the copy agree).
    image: Option<Vec<u8>>,
}

static LINKS: Lazy<Mutex<HashMap<usize, LinkRecord>>> = Lazy::new(|| Mutex::new(HashMap::new()));

fn c_string(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: nvJitLink's contract: NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// # Safety
/// nvJitLink's contract.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkCreate(
    handle: *mut Handle,
    n: u32,
    options: *const *const c_char,
) -> c_int {
    guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkCreate", || {
        let Some(real) = nvjitlink_fn!(c"nvJitLinkCreate", CreateFn) else {
            trace::warn("nvJitLinkCreate called, but no nvJitLink library is loaded");
            return NVJITLINK_ERROR_INTERNAL;
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { real(handle, n, options) };
        if rc == NVJITLINK_SUCCESS && !handle.is_null() {
            let options = (0..n as usize)
                // SAFETY: nvJitLink accepted `n` option strings.
                .map(|i| c_string(unsafe { *options.add(i) }))
                .collect();
            // SAFETY: nvJitLink wrote the handle.
            let h = unsafe { *handle } as usize;
            LINKS.lock().insert(
                h,
                LinkRecord {
                    options,
                    ..Default::default()
                },
            );
        }
        rc
    })
}

/// # Safety
/// nvJitLink's contract.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkDestroy(handle: *mut Handle) -> c_int {
    guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkDestroy", || {
        let Some(real) = nvjitlink_fn!(c"nvJitLinkDestroy", DestroyFn) else {
            return NVJITLINK_ERROR_INTERNAL;
        };
        let h = if handle.is_null() {
            0
        } else {
            // SAFETY: nvJitLink's contract: a pointer to a handle.
            unsafe { *handle as usize }
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { real(handle) };
        if rc == NVJITLINK_SUCCESS {
            LINKS.lock().remove(&h);
        }
        rc
    })
}

fn record_input(h: Handle, kind: c_int, data: Vec<u8>, name: String) {
    if let Some(r) = LINKS.lock().get_mut(&(h as usize)) {
        r.inputs.push((kind, data, name));
        r.image = None;
    }
}

/// # Safety
/// nvJitLink's contract.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkAddData(
    h: Handle,
    kind: c_int,
    data: *const c_void,
    size: usize,
    name: *const c_char,
) -> c_int {
    guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkAddData", || {
        let Some(real) = nvjitlink_fn!(c"nvJitLinkAddData", AddDataFn) else {
            return NVJITLINK_ERROR_INTERNAL;
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { real(h, kind, data, size, name) };
        if rc == NVJITLINK_SUCCESS && !data.is_null() {
            // SAFETY: nvJitLink read `size` bytes at `data`.
            let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, size) }.to_vec();
            record_input(h, kind, bytes, c_string(name));
        }
        rc
    })
}

/// # Safety
/// nvJitLink's contract.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkAddFile(h: Handle, kind: c_int, path: *const c_char) -> c_int {
    guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkAddFile", || {
        let Some(real) = nvjitlink_fn!(c"nvJitLinkAddFile", AddFileFn) else {
            return NVJITLINK_ERROR_INTERNAL;
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { real(h, kind, path) };
        if rc == NVJITLINK_SUCCESS {
            let path = c_string(path);
            match std::fs::read(&path) {
                Ok(bytes) => record_input(h, kind, bytes, path),
                Err(e) => trace::warn(&format!("nvJitLinkAddFile: cannot read {path}: {e}")),
            }
        }
        rc
    })
}

/// The function a `.func` line names: after `.func` and its optional return parameter list.
fn func_name(after_func: &str) -> &str {
    let mut rest = after_func.trim_start();
    if rest.starts_with('(') {
        rest = rest.find(')').map_or("", |k| &rest[k + 1..]).trim_start();
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The functions the PTX inputs declare `.extern` and do not define themselves: those the
/// LTO-IR inputs must provide.
fn externs_of_ptx(texts: &[(String, String)]) -> Vec<String> {
    let (mut declared, mut own) = (Vec::new(), std::collections::HashSet::new());
    for (text, _) in texts {
        for line in text.lines() {
            let Some(k) = line.find(".func") else {
                continue;
            };
            let name = func_name(&line[k + 5..]);
            if name.is_empty() {
                continue;
            }
            if line[..k].contains(".extern") {
                declared.push(name.to_string());
            } else {
                own.insert(name.to_string());
            }
        }
    }
    declared.retain(|n| !own.contains(n));
    declared.sort();
    declared.dedup();
    declared
}

/// LTO-IR that keeps `names` alive through `-lto -ptx`: a link to PTX is a whole program, so
/// nvJitLink drops a function that no LTO-IR input uses, even one a PTX input calls. A global
/// holding each function's address keeps it (its type need not match: the definition's
/// wins). Compiled by NVRTC (loaded here if the program has not).
fn keep_alive_ltoir(names: &[String], arch: &str) -> Result<Vec<u8>, String> {
    type CreateFn = unsafe extern "C" fn(
        *mut *mut c_void,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int;
    type CompileFn = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
    type DestroyFn = unsafe extern "C" fn(*mut *mut c_void) -> c_int;
    // SAFETY: dlopen of NVIDIA's NVRTC by soname; kept loaded for the process's lifetime.
    unsafe {
        libc::dlopen(
            c"libnvrtc.so.13".as_ptr(),
            libc::RTLD_LAZY | libc::RTLD_GLOBAL,
        )
    };
    let (Some(create), Some(compile), Some(size_fn), Some(get_fn), Some(destroy)) = (
        nvrtc_fn!(c"nvrtcCreateProgram", CreateFn),
        nvrtc_fn!(c"nvrtcCompileProgram", CompileFn),
        nvrtc_fn!(c"nvrtcGetLTOIRSize", GetSize),
        nvrtc_fn!(c"nvrtcGetLTOIR", Get),
        nvrtc_fn!(c"nvrtcDestroyProgram", DestroyFn),
    ) else {
        return Err("NVRTC is not available to keep the PTX inputs' functions".into());
    };
    let mut src = String::new();
    for n in names {
        src.push_str(&format!(
            "extern \"C\" __device__ void {n}();\n\
             extern \"C\" __device__ void (*__libcuda_shim_keep_{n})() = {n};\n"
        ));
    }
    let src = CString::new(src).map_err(|e| e.to_string())?;
    let opts: Vec<CString> = [arch, "-rdc=true", "-dlto"]
        .iter()
        .filter_map(|o| CString::new(*o).ok())
        .collect();
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut prog: *mut c_void = std::ptr::null_mut();
    // SAFETY: NVRTC's own functions on a program of our own; buffers sized as it says.
    unsafe {
        let name = c"libcuda_shim_keep.cu";
        let rc = create(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        if rc != NVRTC_SUCCESS {
            return Err(format!("nvrtcCreateProgram: {rc}"));
        }
        let mut n = 0usize;
        let result = if compile(prog, ptrs.len() as c_int, ptrs.as_ptr()) != NVRTC_SUCCESS {
            Err("NVRTC could not compile the keep-alive unit".to_string())
        } else if size_fn(prog, &mut n) != NVRTC_SUCCESS || n == 0 {
            Err("NVRTC made no LTO-IR".to_string())
        } else {
            let mut ir = vec![0u8; n];
            if get_fn(prog, ir.as_mut_ptr() as *mut c_char) == NVRTC_SUCCESS {
                Ok(ir)
            } else {
                Err("nvrtcGetLTOIR failed".to_string())
            }
        };
        destroy(&mut prog);
        result
    }
}

/// Makes the functions `names` of a whole-program PTX `.visible`, so the PTX inputs that call
/// them link against them (the link to PTX made them internal).
fn make_visible(ptx: &str, names: &[String]) -> String {
    let mut out = String::with_capacity(ptx.len() + 16 * names.len());
    for line in ptx.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(".func") {
            if names.iter().any(|n| n == func_name(rest)) {
                out.push_str(".visible ");
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The PTX of the link's non-PTX inputs: nvJitLink links them again with `-lto -ptx`. `keep`
/// are functions the PTX inputs call, which must survive the link and be visible.
fn ptx_of_other_inputs(record: &LinkRecord, keep: &[String]) -> Result<Option<String>, String> {
    // NVIDIA's device runtime (libcudadevrt.a) is machine code only; the engine provides it
    // (its calls are system calls, its cooperative-groups functions PTX of the engine's own).
    let others: Vec<_> = record
        .inputs
        .iter()
        .filter(|(k, _, _)| *k != NVJITLINK_INPUT_PTX)
        .filter(|(_, _, name)| !is_device_runtime(name))
        .collect();
    if others.is_empty() {
        return Ok(None);
    }
    let (Some(create), Some(destroy), Some(add), Some(complete), Some(size_fn), Some(get_fn)) = (
        nvjitlink_fn!(c"nvJitLinkCreate", CreateFn),
        nvjitlink_fn!(c"nvJitLinkDestroy", DestroyFn),
        nvjitlink_fn!(c"nvJitLinkAddData", AddDataFn),
        nvjitlink_fn!(c"nvJitLinkComplete", CompleteFn),
        nvjitlink_fn!(c"nvJitLinkGetLinkedPtxSize", SizeFn),
        nvjitlink_fn!(c"nvJitLinkGetLinkedPtx", CopyFn),
    ) else {
        return Err("nvJitLink lacks a function this needs".into());
    };
    let mut options: Vec<CString> = record
        .options
        .iter()
        .filter(|o| !matches!(o.as_str(), "-lto" | "-ptx"))
        .filter_map(|o| CString::new(o.as_str()).ok())
        .collect();
    options.push(c"-lto".into());
    options.push(c"-ptx".into());
    let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let mut h: Handle = std::ptr::null_mut();
    // SAFETY: nvJitLink's own functions on a handle of our own; buffers sized as it says.
    unsafe {
        let rc = create(&mut h, ptrs.len() as u32, ptrs.as_ptr());
        if rc != NVJITLINK_SUCCESS {
            return Err(format!("nvJitLinkCreate(-lto -ptx): {rc}"));
        }
        let mut result = Ok(None);
        let mut others: Vec<(c_int, Vec<u8>, String)> = others.into_iter().cloned().collect();
        if !keep.is_empty() {
            let arch = record
                .options
                .iter()
                .find(|o| o.starts_with("-arch="))
                .cloned()
                .unwrap_or_else(|| format!("-arch=sm_{}", config::profile().sm()));
            match keep_alive_ltoir(keep, &arch) {
                Ok(ir) => others.push((NVJITLINK_INPUT_LTOIR, ir, "libcuda-shim keep".into())),
                Err(why) => trace::warn(&format!(
                    "nvJitLink: the PTX inputs call {keep:?}, which the link to PTX may drop: {why}"
                )),
            }
        }
        for (kind, data, name) in &others {
            let name = CString::new(name.as_str()).unwrap_or_default();
            let rc = add(
                h,
                *kind,
                data.as_ptr() as *const c_void,
                data.len(),
                name.as_ptr(),
            );
            if rc != NVJITLINK_SUCCESS {
                result = Err(format!(
                    "input '{}' (type {kind}) has no PTX form ({rc}): {}",
                    name.to_string_lossy(),
                    error_log(h)
                ));
                break;
            }
        }
        if result.is_ok() {
            let rc = complete(h);
            let mut n = 0usize;
            result = if rc != NVJITLINK_SUCCESS {
                Err(format!("linking to PTX failed ({rc}): {}", error_log(h)))
            } else if size_fn(h, &mut n) != NVJITLINK_SUCCESS || n == 0 {
                Err("nvJitLink made no PTX".into())
            } else {
                let mut text = vec![0u8; n];
                if get_fn(h, text.as_mut_ptr() as *mut c_void) != NVJITLINK_SUCCESS {
                    Err("nvJitLinkGetLinkedPtx failed".into())
                } else {
                    let len = text.iter().position(|&b| b == 0).unwrap_or(n);
                    let ptx = String::from_utf8_lossy(&text[..len]);
                    Ok(Some(if keep.is_empty() {
                        ptx.into_owned()
                    } else {
                        make_visible(&ptx, keep)
                    }))
                }
            };
        }
        destroy(&mut h);
        result
    }
}

/// Whether a link input named `name` is NVIDIA's device runtime library.
fn is_device_runtime(name: &str) -> bool {
    std::path::Path::new(name)
        .file_name()
        .and_then(|f| f.to_str())
        .is_some_and(|f| f.starts_with("libcudadevrt"))
}

/// nvJitLink's error log of a handle of our own.
unsafe fn error_log(h: Handle) -> String {
    let (Some(size_fn), Some(get_fn)) = (
        nvjitlink_fn!(c"nvJitLinkGetErrorLogSize", SizeFn),
        nvjitlink_fn!(c"nvJitLinkGetErrorLog", LogFn),
    ) else {
        return String::new();
    };
    let mut n = 0usize;
    // SAFETY: nvJitLink's own functions; the buffer is as large as it says.
    unsafe {
        if size_fn(h, &mut n) != NVJITLINK_SUCCESS || n == 0 {
            return String::new();
        }
        let mut log = vec![0u8; n];
        if get_fn(h, log.as_mut_ptr() as *mut c_char) != NVJITLINK_SUCCESS {
            return String::new();
        }
        let len = log.iter().position(|&b| b == 0).unwrap_or(n);
        String::from_utf8_lossy(&log[..len]).trim().to_string()
    }
}

/// The image handed out for a link nvJitLink made a cubin of (built once per link), or `None`
/// when its PTX cannot be had (the real cubin is returned then).
fn linked_image(h: Handle, caller: &str) -> Option<Vec<u8>> {
    // A copy, so that the lock is not held while nvJitLink links (other threads link too).
    let record = {
        let links = LINKS.lock();
        let r = links.get(&(h as usize))?;
        if let Some(image) = &r.image {
            return Some(image.clone());
        }
        LinkRecord {
            options: r.options.clone(),
            inputs: r.inputs.clone(),
            image: None,
        }
    };
    let mut texts: Vec<(String, String)> = record
        .inputs
        .iter()
        .filter(|(k, _, _)| *k == NVJITLINK_INPUT_PTX)
        .map(|(_, data, name)| {
            let len = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            (
                String::from_utf8_lossy(&data[..len]).into_owned(),
                name.clone(),
            )
        })
        .collect();
    let keep = externs_of_ptx(&texts);
    match ptx_of_other_inputs(&record, &keep) {
        Ok(Some(text)) => texts.push((text, "nvJitLink -lto -ptx".into())),
        Ok(None) => {}
        Err(why) => {
            trace::warn(&format!(
                "{caller}: nvJitLink linked SASS, and libcuda-shim, which runs PTX only, cannot \
                 get this link's PTX: {why}; the SASS cubin is returned and will not load"
            ));
            return None;
        }
    }
    // `-maxrregcount=N` limits the registers of the link's kernels: the link image carries it
    // (as a cuLink* image carries CU_JIT_MAX_REGISTERS) so NUM_REGS and the launch check
    // follow it.
    let max_registers = max_registers_option(record.options.iter().map(String::as_str));
    let image = match texts.as_slice() {
        [] => return None,
        [(text, _)] if max_registers.is_none() => fatbin::ptx_only(text),
        _ => link_image::encode(&texts, config::profile().sm(), max_registers),
    };
    trace::trace!(
        "{caller}: nvJitLink linked {} input(s) to a SASS cubin; returning a {}-byte image with \
         their PTX ({} text(s)) instead (libcuda-shim runs PTX)",
        record.inputs.len(),
        image.len(),
        texts.len()
    );
    if let Some(r) = LINKS.lock().get_mut(&(h as usize)) {
        r.image = Some(image.clone());
    }
    Some(image)
}

/// # Safety
/// nvJitLink's contract.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkGetLinkedCubinSize(h: Handle, size: *mut usize) -> c_int {
    guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkGetLinkedCubinSize", || {
        let Some(real) = nvjitlink_fn!(c"nvJitLinkGetLinkedCubinSize", SizeFn) else {
            return NVJITLINK_ERROR_INTERNAL;
        };
        // SAFETY: forwarded contract.
        let rc = unsafe { real(h, size) };
        // SAFETY: nvJitLink wrote `size` when it succeeded.
        if rc != NVJITLINK_SUCCESS || unsafe { *size } == 0 {
            return rc;
        }
        if let Some(image) = linked_image(h, "nvJitLinkGetLinkedCubinSize") {
            // SAFETY: as above.
            unsafe { *size = image.len() };
        }
        rc
    })
}

/// # Safety
/// nvJitLink's contract: `cubin` as large as `nvJitLinkGetLinkedCubinSize` said.
#[no_mangle]
pub unsafe extern "C" fn nvJitLinkGetLinkedCubin(h: Handle, cubin: *mut c_void) -> c_int {
    guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkGetLinkedCubin", || {
        let (Some(real_size), Some(real)) = (
            nvjitlink_fn!(c"nvJitLinkGetLinkedCubinSize", SizeFn),
            nvjitlink_fn!(c"nvJitLinkGetLinkedCubin", CopyFn),
        ) else {
            return NVJITLINK_ERROR_INTERNAL;
        };
        let mut n = 0usize;
        // SAFETY: nvJitLink's own function on the caller's handle.
        if unsafe { real_size(h, &mut n) } != NVJITLINK_SUCCESS || n == 0 || cubin.is_null() {
            // SAFETY: forwarded contract.
            return unsafe { real(h, cubin) };
        }
        match linked_image(h, "nvJitLinkGetLinkedCubin") {
            Some(image) => {
                // SAFETY: the caller sized `cubin` by nvJitLinkGetLinkedCubinSize.
                unsafe {
                    std::ptr::copy_nonoverlapping(image.as_ptr(), cubin as *mut u8, image.len())
                };
                NVJITLINK_SUCCESS
            }
            // SAFETY: forwarded contract.
            None => unsafe { real(h, cubin) },
        }
    })
}

/// nvJitLink's header makes `nvJitLinkCreate` and the others static inline functions that call
/// versioned symbols (`__nvJitLinkCreate_13_5` with the 13.5 header); a C or C++ program calls
/// those. Each version's symbol here runs the same interposition as the unversioned one
/// (which calls nvJitLink's unversioned export: libnvJitLink.so.13 has both, one implementation).
macro_rules! versioned_nvjitlink {
    ($($v:literal),*) => {
        $(
            const _: () = {
                /// # Safety
                /// nvJitLink's contract.
                #[export_name = concat!("__nvJitLinkCreate_", $v)]
                pub unsafe extern "C" fn create(
                    handle: *mut Handle,
                    n: u32,
                    options: *const *const c_char,
                ) -> c_int {
                    // SAFETY: forwarded contract.
                    unsafe { nvJitLinkCreate(handle, n, options) }
                }
                /// # Safety
                /// nvJitLink's contract.
                #[export_name = concat!("__nvJitLinkDestroy_", $v)]
                pub unsafe extern "C" fn destroy(handle: *mut Handle) -> c_int {
                    // SAFETY: forwarded contract.
                    unsafe { nvJitLinkDestroy(handle) }
                }
                /// # Safety
                /// nvJitLink's contract.
                #[export_name = concat!("__nvJitLinkAddData_", $v)]
                pub unsafe extern "C" fn add_data(
                    h: Handle,
                    kind: c_int,
                    data: *const c_void,
                    size: usize,
                    name: *const c_char,
                ) -> c_int {
                    // SAFETY: forwarded contract.
                    unsafe { nvJitLinkAddData(h, kind, data, size, name) }
                }
                /// # Safety
                /// nvJitLink's contract.
                #[export_name = concat!("__nvJitLinkAddFile_", $v)]
                pub unsafe extern "C" fn add_file(h: Handle, kind: c_int, path: *const c_char) -> c_int {
                    // SAFETY: forwarded contract.
                    unsafe { nvJitLinkAddFile(h, kind, path) }
                }
                /// # Safety
                /// nvJitLink's contract.
                #[export_name = concat!("__nvJitLinkGetLinkedCubinSize_", $v)]
                pub unsafe extern "C" fn cubin_size(h: Handle, size: *mut usize) -> c_int {
                    // SAFETY: forwarded contract.
                    unsafe { nvJitLinkGetLinkedCubinSize(h, size) }
                }
                /// # Safety
                /// nvJitLink's contract.
                #[export_name = concat!("__nvJitLinkGetLinkedCubin_", $v)]
                pub unsafe extern "C" fn cubin(h: Handle, out: *mut c_void) -> c_int {
                    // SAFETY: forwarded contract.
                    unsafe { nvJitLinkGetLinkedCubin(h, out) }
                }
            };
        )*
    };
}

versioned_nvjitlink!("13_0", "13_1", "13_2", "13_3", "13_4", "13_5");

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in an interposed function answers its own library's internal error (NVRTC's 11,
    /// nvJitLink's 6: nvrtc.h and nvJitLink.h), and other results pass through.
    #[test]
    fn a_panic_becomes_the_library_internal_error() {
        assert_eq!(
            guarded::<NVRTC_ERROR_INTERNAL_ERROR>("nvrtcTest", || panic!("planted")),
            11
        );
        assert_eq!(
            guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkTest", || panic!("planted")),
            6
        );
        assert_eq!(
            guarded::<NVJITLINK_ERROR_INTERNAL>("nvJitLinkTest", || 3),
            3
        );
    }

    #[test]
    fn functions_the_ptx_inputs_need_from_lto_ir() {
        // As NVRTC writes a PTX unit that calls functions defined elsewhere (and one of its own).
        let user =
            ".extern .func  (.param .b64 func_retval0) NRT_Allocate\n(\n\t.param .b64 p\n)\n;\n\
                    .extern .func NRT_Free\n(\n\t.param .b64 p\n)\n;\n\
                    .extern .func own(\n);\n.visible .func own()\n{\n\tret;\n}\n";
        let texts = [(user.to_string(), "user".to_string())];
        assert_eq!(externs_of_ptx(&texts), ["NRT_Allocate", "NRT_Free"]);
        // The link to PTX leaves them internal: declaration and definition become visible.
        let linked = ".func  (.param .b64 func_retval0) NRT_Allocate\n(\n)\n;\n\
                      .func  (.param .b64 func_retval0) NRT_Allocate(\n)\n{\n}\n\
                      .func NRT_Allocated()\n{\n}\n";
        let out = make_visible(linked, &["NRT_Allocate".to_string()]);
        assert_eq!(
            out.matches(".visible .func  (.param .b64 func_retval0) NRT_Allocate")
                .count(),
            2
        );
        assert!(out.contains("\n.func NRT_Allocated()"));
    }
}
