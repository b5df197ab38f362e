//! Modules (`cuModule*`), libraries (`cuLibrary*`, what cudart 12+/13 use), functions and
//! kernels. An image is PTX text, a fatbin or a fatbin wrapper; the PTX is handed to
//! `engine::Module::load`. Load diagnostics go to stderr and, when given, to the JIT error log.

pub mod jit_compilers;
pub mod link;

use crate::config;
use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE, NOT_FOUND};
use crate::fatbin::{self, FatbinError};
use crate::handles::Registry;
use crate::{context, device, trace};
use abi::*;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// Loaded modules (a library's module included).
pub static MODULES: Registry<Module> = Registry::new(INVALID_HANDLE);
/// Function handles handed out (`cuModuleGetFunction`, `cuKernelGetFunction`).
pub static FUNCTIONS: Registry<Function> = Registry::new(INVALID_HANDLE);
/// Kernel handles handed out (`cuLibraryGetKernel`).
pub static KERNELS: Registry<Kernel> = Registry::new(INVALID_HANDLE);
/// Loaded libraries.
pub static LIBRARIES: Registry<Library> = Registry::new(INVALID_HANDLE);

/// A `CUfunction`; a `CUkernel` is accepted too (cudart 13 launches kernels cast to functions,
/// and the real driver accepts a function of the same context for the `cuKernel*` calls).
pub fn function<P>(h: *mut P) -> CuResult<Arc<Function>> {
    if let Some(f) = FUNCTIONS.find(h) {
        return Ok(f);
    }
    KERNELS
        .find(h)
        .map(|k| k.function.clone())
        .ok_or(INVALID_HANDLE)
}

pub struct Module {
    pub engine: engine::Module,
    /// The sm of the PTX entry used (the device's for bare PTX text).
    pub ptx_sm: u32,
    /// The register limit the module was loaded (or linked) under: `CU_JIT_MAX_REGISTERS`.
    pub max_registers: Option<u32>,
    /// Function handles already handed out, by name (the same name gives the same handle).
    functions: Mutex<HashMap<String, usize>>,
    /// The context a `cuModuleLoad*` loaded it into, whose reset or destruction unloads it
    /// ([`release_context`]); `None` for a library's module, which belongs to no context.
    pub ctx: Option<usize>,
}

pub struct Function {
    pub module: Arc<Module>,
    pub kernel: Arc<engine::Kernel>,
    /// Registers per thread (CU_FUNC_ATTRIBUTE_NUM_REGS, what launches and occupancy are
    /// charged): the kernel's estimate under its bounds and the module's JIT register limit.
    pub num_regs: u32,
    pub name: CString,
    /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (raised by cudaFuncSetAttribute).
    pub max_dynamic_shared: AtomicI32,
    pub carveout: AtomicI32,
    /// `cuFuncSetCacheConfig` / `cuKernelSetCacheConfig` (a `CUfunc_cache`).
    pub cache_config: AtomicI32,
    /// CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH (0: none).
    pub cluster_dims: [AtomicI32; 3],
    pub non_portable_cluster: AtomicI32,
    pub cluster_scheduling: AtomicI32,
    pub shared_memory_mode: AtomicI32,
}

/// A `CUkernel`: a library's kernel; launching it launches its function.
pub struct Kernel {
    pub function: Arc<Function>,
}

pub struct Library {
    pub module: Arc<Module>,
    pub module_handle: usize,
    kernels: Mutex<HashMap<String, usize>>,
}

/// Why an image did not load, mapped to a CUresult once.
pub(crate) enum LoadFailure {
    Image(FatbinError),
    /// A bare cubin (ELF with SASS): nothing to run here.
    Cubin {
        device_sm: u32,
    },
    Ptx(engine::LoadError),
    /// Linking PTX inputs failed: an undefined or duplicate symbol (CUDA_ERROR_INVALID_IMAGE,
    /// as the driver's linker reports "Undefined reference").
    Link(engine::LoadError),
    Unsupported(String),
    /// `CUDA_DISABLE_PTX_JIT=1`: the driver may not compile PTX, which is all the shim runs.
    JitDisabled,
}

impl LoadFailure {
    pub(crate) fn code(&self) -> CUresult {
        match self {
            LoadFailure::Image(FatbinError::NoPtx { .. }) | LoadFailure::Cubin { .. } => {
                CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU
            }
            LoadFailure::Image(_) | LoadFailure::Link(_) => CUresult::CUDA_ERROR_INVALID_IMAGE,
            LoadFailure::Ptx(e) => match e.kind {
                engine::LoadErrorKind::UnsupportedVersion => {
                    CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                }
                engine::LoadErrorKind::OutOfMemory => CUresult::CUDA_ERROR_OUT_OF_MEMORY,
                engine::LoadErrorKind::NotLoadable => CUresult::CUDA_ERROR_INVALID_IMAGE,
                _ => CUresult::CUDA_ERROR_INVALID_PTX,
            },
            LoadFailure::Unsupported(_) => CUresult::CUDA_ERROR_NOT_SUPPORTED,
            LoadFailure::JitDisabled => CUresult::CUDA_ERROR_JIT_COMPILATION_DISABLED,
        }
    }

    pub(crate) fn message(&self) -> String {
        match self {
            LoadFailure::Image(e) => e.to_string(),
            LoadFailure::Cubin { device_sm } => format!(
                "the image is a cubin (ELF with SASS only) and libcuda-shim runs PTX only: load \
                 the PTX instead (`nvcc -ptx`), or rebuild with \
                 `-gencode arch=compute_XX,code=compute_XX` for an XX <= {device_sm} \
                 (e.g. `-gencode arch=compute_80,code=compute_80`)"
            ),
            LoadFailure::Ptx(e) | LoadFailure::Link(e) => e.to_string(),
            LoadFailure::Unsupported(m) => m.clone(),
            LoadFailure::JitDisabled => "CUDA_DISABLE_PTX_JIT=1 forbids compiling PTX, and \
                                         libcuda-shim runs nothing but PTX"
                .into(),
        }
    }
}

/// Reads `n` bytes at `p`.
///
/// # Safety
/// `p` must point to `n` readable bytes.
unsafe fn bytes<'a>(p: *const c_void, n: usize) -> &'a [u8] {
    // SAFETY: the caller's guarantee.
    unsafe { std::slice::from_raw_parts(p as *const u8, n) }
}

/// The fatbin at `p` (its header tells its length).
///
/// # Safety
/// `p` must point to a fatbin header; cudart and the API promise the whole fatbin follows.
unsafe fn fatbin_at<'a>(p: *const c_void) -> Result<&'a [u8], FatbinError> {
    if p.is_null() {
        return Err(FatbinError::Malformed("NULL fatbin pointer".into()));
    }
    // SAFETY: a fatbin starts with a 16-byte header.
    let len = fatbin::fatbin_len(unsafe { bytes(p, fatbin::FATBIN_HEADER_BYTES) })?;
    // SAFETY: the header states the length of what follows it.
    Ok(unsafe { bytes(p, len) })
}

/// The PTX of an image: one text, or several to link (the translation units of an
/// `-rdc=true` program, the inputs of a `cuLinkComplete` image), each with a name for
/// diagnostics; the sm of the PTX; notes for the info log (inputs left out, and why).
pub(crate) struct ImagePtx {
    pub inputs: Vec<(String, String)>,
    pub sm: u32,
    pub notes: Vec<String>,
    /// A link image's register limit (`CU_JIT_MAX_REGISTERS` of its `cuLinkCreate`).
    pub max_registers: Option<u32>,
}

/// The PTX of one fatbin of an `-rdc=true` program's prelinked list (or of a fatbin handed to
/// `cuLinkAddData`): `None` when it is NVIDIA's device runtime, which has no PTX for the
/// device and is left out (nothing here implements what it provides: dynamic parallelism).
pub(crate) fn relocatable_ptx(
    f: &[u8],
    sm: u32,
    notes: &mut Vec<String>,
) -> Result<Option<(String, String)>, FatbinError> {
    // Checked first: the device runtime holds PTX for the newest architecture only, which
    // must not be linked in either: the engine provides the device runtime itself (its calls
    // are system calls, its cooperative-groups functions PTX of the engine's own).
    if fatbin::is_device_runtime(&fatbin::parse(f)?) {
        let note = "left out NVIDIA's device runtime (libcudadevrt): the engine provides it";
        trace::trace!("{note}");
        notes.push(note.into());
        return Ok(None);
    }
    let (text, s) = fatbin::ptx_for_device(f, sm)?;
    Ok(Some((text, format!("fatbin@{:p}#sm_{s}", f.as_ptr()))))
}

/// The PTX text of an image and a name for diagnostics.
///
/// # Safety
/// `image` must be non-null and point to PTX text, a fatbin, a fatbin wrapper or a link image.
unsafe fn image_ptx(image: *const c_void) -> Result<ImagePtx, LoadFailure> {
    // SAFETY: every image kind is at least 4 bytes (PTX text is longer than its NUL).
    let magic = u32::from_le_bytes(unsafe { bytes(image, 4) }.try_into().unwrap());
    let sm = config::profile().sm();
    let one = |(text, name): (String, String), sm| ImagePtx {
        inputs: vec![(text, name)],
        sm,
        notes: Vec::new(),
        max_registers: None,
    };
    let from_fatbin = |f: &[u8]| {
        fatbin::ptx_for_device(f, sm)
            .map(|(t, s)| one((t, format!("fatbin@{:p}#sm_{s}", f.as_ptr())), s))
            .map_err(LoadFailure::Image)
    };
    match magic {
        fatbin::WRAPPER_MAGIC => {
            // SAFETY: the wrapper is 24 bytes: magic, version, fatbin pointer, prelinked list.
            let w = unsafe { bytes(image, 24) };
            let version = u32::from_le_bytes(w[4..8].try_into().unwrap());
            let fb = u64::from_le_bytes(w[8..16].try_into().unwrap()) as *const c_void;
            let list = u64::from_le_bytes(w[16..24].try_into().unwrap()) as *const *const c_void;
            if version == 2 && !list.is_null() {
                // `-rdc=true`: the prelinked list (NULL-terminated) holds the fatbin of every
                // translation unit with its relocatable PTX, plus the device runtime's. The
                // wrapper's own fatbin is the device-link output: empty for virtual
                // architectures, SASS otherwise; the PTX of the units is what runs.
                let mut out = ImagePtx {
                    inputs: Vec::new(),
                    sm,
                    notes: Vec::new(),
                    max_registers: None,
                };
                for i in 0.. {
                    // SAFETY: a NULL-terminated array of fatbin pointers (link.stub).
                    let p = unsafe { *list.add(i) };
                    if p.is_null() {
                        break;
                    }
                    // SAFETY: each entry points to a translation unit's fatbin.
                    let f = unsafe { fatbin_at(p) }.map_err(LoadFailure::Image)?;
                    let unit =
                        relocatable_ptx(f, sm, &mut out.notes).map_err(LoadFailure::Image)?;
                    if let Some((text, _)) = unit {
                        let name = format!("rdc-unit{i}@{p:p}");
                        out.inputs.push((text, name));
                    }
                }
                if out.inputs.is_empty() {
                    // SAFETY: the wrapper's second field points to the fatbin.
                    return from_fatbin(unsafe { fatbin_at(fb) }.map_err(LoadFailure::Image)?);
                }
                return Ok(out);
            }
            // SAFETY: the wrapper's second field points to the fatbin.
            from_fatbin(unsafe { fatbin_at(fb) }.map_err(LoadFailure::Image)?)
        }
        // SAFETY: the magic says a fatbin starts here.
        fatbin::FATBIN_MAGIC => {
            from_fatbin(unsafe { fatbin_at(image) }.map_err(LoadFailure::Image)?)
        }
        // "\x7fELF": a cubin.
        0x464c457f => Err(LoadFailure::Cubin { device_sm: sm }),
        crate::link_image::IMAGE_MAGIC_WORD => {
            // SAFETY: the magic says a link image starts here; it is complete (API contract).
            let (inputs, sm) = unsafe { crate::link_image::decode(image) }.map_err(|m| {
                LoadFailure::Image(FatbinError::Malformed(format!("link image: {m}")))
            })?;
            Ok(ImagePtx {
                inputs,
                sm,
                notes: Vec::new(),
                // SAFETY: a whole link image, as above.
                max_registers: unsafe { crate::link_image::max_registers(image) },
            })
        }
        _ => {
            // SAFETY: anything else must be NUL-terminated PTX text (the API's contract).
            let text = unsafe { CStr::from_ptr(image as *const c_char) };
            // The driver does not take text that starts with a UTF-8 byte-order mark for PTX:
            // CUDA_ERROR_INVALID_IMAGE, "Binary format ... is not recognized" (driver 580.159,
            // scripts/ground-truth/results/nonascii-h200.txt).
            if text.to_bytes().starts_with(b"\xef\xbb\xbf") {
                return Err(LoadFailure::Image(FatbinError::Malformed(
                    "image is neither a fatbin nor PTX text: it starts with a UTF-8 byte-order \
                     mark, and PTX is ASCII"
                        .into(),
                )));
            }
            // PTX is ASCII, and the driver refuses any other byte, in a comment too
            // (CUDA_ERROR_INVALID_PTX naming the line; the parser's check). Text that is not
            // UTF-8 is still handed to the parser when it says it is PTX (a `.version`), so that
            // the refusal is INVALID_PTX with that line, as the driver answers.
            let text = match text.to_str() {
                Ok(t) => t.to_string(),
                Err(_) => {
                    let lossy = text.to_string_lossy();
                    if !lossy.contains(".version") {
                        return Err(LoadFailure::Image(FatbinError::Malformed(
                            "image is neither a fatbin nor PTX text".into(),
                        )));
                    }
                    lossy.into_owned()
                }
            };
            Ok(one((text, format!("ptx@{image:p}")), sm))
        }
    }
}

/// Loads one PTX text, or links several (undefined and duplicate symbols are
/// CUDA_ERROR_INVALID_IMAGE, as the driver's linker reports them).
pub(crate) fn load_ptx(inputs: &[(String, String)]) -> Result<engine::Module, LoadFailure> {
    if let [(text, name)] = inputs {
        return engine::Module::load(text, name).map_err(LoadFailure::Ptx);
    }
    let refs: Vec<(&str, &str)> = inputs
        .iter()
        .map(|(t, n)| (t.as_str(), n.as_str()))
        .collect();
    engine::Module::check_links(&refs).map_err(|e| match e.kind {
        engine::LoadErrorKind::InvalidPtx => LoadFailure::Link(e),
        _ => LoadFailure::Ptx(e),
    })?;
    engine::Module::link(&refs).map_err(LoadFailure::Ptx)
}

/// Loads an image into a registered module; reports failures on stderr. `max_registers` is
/// the load's `CU_JIT_MAX_REGISTERS`; a link image keeps the one it was linked under.
unsafe fn load_image(
    image: *const c_void,
    max_registers: Option<u32>,
    ctx: Option<usize>,
    log: &mut JitLog,
) -> CuResult<(Arc<Module>, usize)> {
    // SAFETY: forwarded contract.
    let started = std::time::Instant::now();
    // SAFETY: every image kind is at least 4 bytes (as `image_ptx` reads them).
    let link_image = u32::from_le_bytes(unsafe { bytes(image, 4) }.try_into().unwrap())
        == crate::link_image::IMAGE_MAGIC_WORD;
    // SAFETY: forwarded contract.
    let result = unsafe { image_ptx(image) }.and_then(|img| {
        if crate::config::ptx_jit_disabled() {
            return Err(LoadFailure::JitDisabled);
        }
        // A link image was "compiled" under its link's options, as a cubin is.
        let regs = if link_image {
            img.max_registers
        } else {
            max_registers
        };
        load_ptx(&img.inputs).map(|m| (m, img.sm, img.inputs.len(), img.notes, regs))
    });
    log.wall_ms = started.elapsed().as_secs_f32() * 1000.0;
    match result {
        Ok((engine, ptx_sm, units, notes, max_registers)) => {
            log.info = format!(
                "libcuda-shim: loaded {} kernel(s) from sm_{ptx_sm} PTX",
                engine.kernels().len()
            );
            if units > 1 {
                log.info += &format!(" ({units} linked inputs)");
            }
            let device_sm = config::profile().sm();
            if ptx_sm > device_sm {
                log.info += &format!(
                    " (newer than the emulated sm_{device_sm}: the image has no older PTX)"
                );
            }
            for n in notes {
                log.info += &format!("\nlibcuda-shim: {n}");
            }
            let module = Arc::new(Module {
                engine,
                ptx_sm,
                max_registers,
                functions: Mutex::new(HashMap::new()),
                ctx,
            });
            let h = MODULES.insert(module.clone());
            Ok((module, h))
        }
        Err(f) => {
            let msg = f.message();
            trace::warn(&format!("cannot load module: {msg}"));
            log.error = msg;
            Err(f.code())
        }
    }
}

/// The JIT log buffers of cuModuleLoadDataEx / cuLibraryLoadData, and the load's wall time.
#[derive(Default)]
pub(crate) struct JitLog {
    pub error: String,
    pub info: String,
    pub wall_ms: f32,
}

/// Checks JIT options as the driver does before loading: each must be one `cuda.h` defines.
/// Their values are accepted whatever they ask (targets, optimisation levels, cache modes,
/// verbosity): PTX is interpreted, not compiled, so none changes what runs.
pub(crate) unsafe fn check_jit_options(n: c_uint, options: *mut CUjit_option) -> CuResult {
    if n == 0 {
        return Ok(());
    }
    // SAFETY: `options` holds `n` entries (API contract; null was refused before).
    let opts = unsafe { std::slice::from_raw_parts(options, n as usize) };
    if opts
        .iter()
        .any(|o| o.0 >= CUjit_option::CU_JIT_NUM_OPTIONS.0)
    {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

/// The value of `CU_JIT_MAX_REGISTERS` among the options (an unsigned int in the value slot),
/// if given and not 0.
///
/// # Safety
/// `options` and `values` must hold `n` entries when `n > 0` (checked non-null by the caller).
pub(crate) unsafe fn jit_max_registers(
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> Option<u32> {
    if n == 0 || options.is_null() || values.is_null() {
        return None;
    }
    // SAFETY: both arrays hold `n` entries (caller's contract).
    let (opts, vals) = unsafe {
        (
            std::slice::from_raw_parts(options, n as usize),
            std::slice::from_raw_parts(values, n as usize),
        )
    };
    let i = opts
        .iter()
        .position(|&o| o == CUjit_option::CU_JIT_MAX_REGISTERS)?;
    Some(vals[i] as usize as u32).filter(|&r| r > 0)
}

/// Writes the logs into the option buffers and the sizes back, as the driver does.
pub(crate) unsafe fn write_jit_log(
    log: &JitLog,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) {
    if n == 0 || options.is_null() || values.is_null() {
        return;
    }
    // SAFETY (whole function): both arrays hold `n` entries (API contract); log buffers are
    // `size` bytes as the matching *_SIZE_BYTES option says.
    unsafe {
        let opts = std::slice::from_raw_parts(options, n as usize);
        let vals = std::slice::from_raw_parts_mut(values, n as usize);
        for (buf_opt, size_opt, text) in [
            (
                CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
                CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                &log.error,
            ),
            (
                CUjit_option::CU_JIT_INFO_LOG_BUFFER,
                CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                &log.info,
            ),
        ] {
            let Some(bi) = opts.iter().position(|&o| o == buf_opt) else {
                continue;
            };
            let buf = vals[bi] as *mut u8;
            let Some(si) = opts.iter().position(|&o| o == size_opt) else {
                continue;
            };
            let size = vals[si] as usize;
            if buf.is_null() || size == 0 {
                continue;
            }
            let k = text.len().min(size - 1);
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf, k);
            *buf.add(k) = 0;
            vals[si] = k as *mut c_void;
        }
        if let Some(i) = opts
            .iter()
            .position(|&o| o == CUjit_option::CU_JIT_WALL_TIME)
        {
            // The option's value slot itself holds the float (milliseconds).
            *(&mut vals[i] as *mut *mut c_void as *mut f32) = log.wall_ms;
        }
    }
}

unsafe fn load_with_options(
    module: *mut CUmodule,
    image: *const c_void,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> CuResult {
    if module.is_null() || image.is_null() || (n > 0 && (options.is_null() || values.is_null())) {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { check_jit_options(n, options) }?;
    let ctx = context::active()?;
    let mut log = JitLog::default();
    // SAFETY: forwarded contract.
    let regs = unsafe { jit_max_registers(n, options, values) };
    // SAFETY: forwarded contract.
    let r = unsafe { load_image(image, regs, Some(ctx.handle() as usize), &mut log) };
    // SAFETY: forwarded contract.
    unsafe { write_jit_log(&log, n, options, values) };
    let (_, h) = r?;
    // SAFETY: checked non-null.
    unsafe { *module = h as CUmodule };
    Ok(())
}

pub(crate) unsafe fn load_data(module: *mut CUmodule, image: *const c_void) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { load_with_options(module, image, 0, std::ptr::null_mut(), std::ptr::null_mut()) }
}

pub(crate) unsafe fn load_data_ex(
    module: *mut CUmodule,
    image: *const c_void,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { load_with_options(module, image, n, options, values) }
}

pub(crate) unsafe fn load_file(module: *mut CUmodule, fname: *const c_char) -> CuResult {
    if module.is_null() || fname.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let data = read_image_file(fname)?;
    // SAFETY: `data` is a NUL-terminated copy of the file, alive during the load.
    unsafe { load_data(module, data.as_ptr() as *const c_void) }
}

/// The file a path names (PTX text, a fatbin or a cubin), NUL-terminated for PTX.
pub(crate) fn read_image_file(fname: *const c_char) -> CuResult<Vec<u8>> {
    // SAFETY: checked non-null by the callers; a NUL-terminated path.
    let path = unsafe { CStr::from_ptr(fname) }
        .to_string_lossy()
        .into_owned();
    let mut data = std::fs::read(&path).map_err(|_| CUresult::CUDA_ERROR_FILE_NOT_FOUND)?;
    data.push(0);
    Ok(data)
}

/// Unregisters a module and every function handle into it.
fn drop_module(m: &Arc<Module>) {
    // Unloading waits for the work queued so far (launches keep their module alive anyway)
    // and is a device printf flush point, as in CUDA.
    match context::current() {
        Ok(ctx) => ctx.wait_idle(),
        Err(_) => crate::printf::flush(),
    }
    MODULES.remove_where(|x| std::ptr::eq(x, &**m));
    forget_references(Arc::as_ptr(m) as usize);
    FUNCTIONS.remove_where(|f| Arc::ptr_eq(&f.module, m));
    KERNELS.remove_where(|k| Arc::ptr_eq(&k.function.module, m));
}

/// Unloads the modules loaded into a context that is being reset or destroyed, with their
/// function handles: a stale `CUmodule` is then CUDA_ERROR_INVALID_HANDLE, and so is a stale
/// `CUfunction` once the context lives again, as the real driver answers (driver 580.159,
/// scripts/ground-truth/results/limits-and-stale-h200.txt). Libraries, which belong to no
/// context, stay. Work queued before has finished (the caller waited); a launch in flight
/// would hold its module anyway.
pub(crate) fn release_context(ctx: usize) {
    let doomed = |m: &Module| m.ctx == Some(ctx);
    while let Some(h) = MODULES.position(doomed) {
        MODULES.remove(h);
        forget_references(h);
    }
    FUNCTIONS.remove_where(|f| doomed(&f.module));
    KERNELS.remove_where(|k| doomed(&k.function.module));
}

/// The device address of `m`'s module-scope variable `name` of the opaque type `ty` (`texref`,
/// `surfref`): CUDA_ERROR_NOT_FOUND for a name the module does not define with that type.
fn opaque_variable(m: &Module, name: *const c_char, ty: &str) -> CuResult<u64> {
    let g = m.engine.global(c_name(name)?).ok_or(NOT_FOUND)?;
    if g.ty != ty {
        return Err(NOT_FOUND);
    }
    Ok(g.address)
}

/// cuModuleGetTexRef: the reference of a `.texref` variable (`memory::texref`).
pub(crate) unsafe fn get_tex_ref(
    out: *mut CUtexref,
    module: CUmodule,
    name: *const c_char,
) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let m = MODULES.get(module)?;
    let var = opaque_variable(&m, name, "texref")?;
    let h = crate::memory::texref::for_variable(Arc::as_ptr(&m) as usize, var);
    // SAFETY: checked non-null.
    unsafe { *out = h as CUtexref };
    Ok(())
}

/// cuModuleGetSurfRef: the reference of a `.surfref` variable (`memory::surface_ref`).
pub(crate) unsafe fn get_surf_ref(
    out: *mut CUsurfref,
    module: CUmodule,
    name: *const c_char,
) -> CuResult {
    context::active()?;
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let m = MODULES.get(module)?;
    let var = opaque_variable(&m, name, "surfref")?;
    let h = crate::memory::surface_ref::for_variable(Arc::as_ptr(&m) as usize, var);
    // SAFETY: checked non-null.
    unsafe { *out = h as CUsurfref };
    Ok(())
}

/// Forgets the texture and surface references of the module with handle `module`, and the
/// textures and surfaces bound through them.
fn forget_references(module: usize) {
    crate::memory::texref::release(module);
    crate::memory::surface_ref::release(module);
}

pub(crate) unsafe fn unload(module: CUmodule) -> CuResult {
    let m = MODULES.get(module)?;
    drop_module(&m);
    Ok(())
}

fn c_name<'a>(name: *const c_char) -> CuResult<&'a str> {
    if name.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; the API takes NUL-terminated names.
    unsafe { CStr::from_ptr(name) }
        .to_str()
        .map_err(|_| NOT_FOUND)
}

/// The function handle for `name` in `m` (created once).
pub(crate) fn function_handle(m: &Arc<Module>, name: &str) -> CuResult<usize> {
    let mut fns = m.functions.lock();
    if let Some(&h) = fns.get(name) {
        return Ok(h);
    }
    let kernel = m.engine.kernel(name).ok_or(NOT_FOUND)?;
    let p = config::profile();
    let f = Arc::new(Function {
        module: m.clone(),
        max_dynamic_shared: AtomicI32::new(
            (p.shared_per_block - kernel.static_shared_bytes as i32).max(0),
        ),
        carveout: AtomicI32::new(-1),
        cache_config: AtomicI32::new(0),
        // A compile-time cluster shape (`__cluster_dims__`, `.reqnctapercluster`) is the
        // function's required one, as the driver reports it.
        cluster_dims: kernel
            .cluster_dims
            .unwrap_or([0; 3])
            .map(|d| AtomicI32::new(d as i32)),
        non_portable_cluster: AtomicI32::new(0),
        cluster_scheduling: AtomicI32::new(0),
        shared_memory_mode: AtomicI32::new(0),
        name: CString::new(name).map_err(|_| NOT_FOUND)?,
        num_regs: kernel.num_regs_with_limit(m.max_registers),
        kernel,
    });
    let h = FUNCTIONS.insert(f);
    fns.insert(name.to_string(), h);
    Ok(h)
}

pub(crate) unsafe fn get_function(
    func: *mut CUfunction,
    module: CUmodule,
    name: *const c_char,
) -> CuResult {
    if func.is_null() {
        return Err(INVALID_VALUE);
    }
    // The module first: a module unloaded by a reset is an invalid handle even while the reset
    // primary context is current (the real driver answers so, rather than
    // CUDA_ERROR_CONTEXT_IS_DESTROYED).
    let m = MODULES.get(module)?;
    context::active()?;
    let h = function_handle(&m, c_name(name)?)?;
    // SAFETY: checked non-null.
    unsafe { *func = h as CUfunction };
    Ok(())
}

fn global(m: &Module, name: &str, dptr: *mut CUdeviceptr, bytes: *mut usize) -> CuResult {
    let g = m.engine.global(name).ok_or(NOT_FOUND)?;
    // SAFETY: each out-pointer is optional and written only when non-null.
    unsafe {
        if !dptr.is_null() {
            *dptr = g.address;
        }
        if !bytes.is_null() {
            *bytes = g.size;
        }
    }
    Ok(())
}

pub(crate) unsafe fn get_global(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    module: CUmodule,
    name: *const c_char,
) -> CuResult {
    context::active()?;
    let m = MODULES.get(module)?;
    global(&m, c_name(name)?, dptr, bytes)
}

pub(crate) unsafe fn get_function_count(count: *mut c_uint, module: CUmodule) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    let m = MODULES.get(module)?;
    // SAFETY: checked non-null.
    unsafe { *count = m.engine.kernels().len() as c_uint };
    Ok(())
}

/// Writes up to `n` handles of `m`'s kernels, in module order, made by `handle`.
unsafe fn enumerate<T>(
    out: *mut *mut T,
    n: c_uint,
    m: &Arc<Module>,
    handle: impl Fn(&str) -> CuResult<usize>,
) -> CuResult {
    if out.is_null() || n == 0 {
        return Err(INVALID_VALUE);
    }
    for (i, k) in m.engine.kernels().iter().take(n as usize).enumerate() {
        let h = handle(&k.name)?;
        // SAFETY: the caller's buffer holds `n` handles.
        unsafe { *out.add(i) = h as *mut T };
    }
    Ok(())
}

pub(crate) unsafe fn enumerate_functions(
    functions: *mut CUfunction,
    n: c_uint,
    module: CUmodule,
) -> CuResult {
    let m = MODULES.get(module)?;
    // SAFETY: forwarded contract.
    unsafe { enumerate(functions, n, &m, |name| function_handle(&m, name)) }
}

// ---- Libraries.

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn library_load_data(
    library: *mut CUlibrary,
    code: *const c_void,
    jit_options: *mut CUjit_option,
    jit_values: *mut *mut c_void,
    num_jit_options: c_uint,
    lib_options: *mut CUlibraryOption,
    lib_values: *mut *mut c_void,
    num_lib_options: c_uint,
) -> CuResult {
    if library.is_null() || code.is_null() {
        return Err(INVALID_VALUE);
    }
    if (num_jit_options > 0 && (jit_options.is_null() || jit_values.is_null()))
        || (num_lib_options > 0 && (lib_options.is_null() || lib_values.is_null()))
    {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { check_jit_options(num_jit_options, jit_options) }?;
    // A library is context-independent, but loading one needs an initialised device; the
    // real driver loads into the current context when there is one.
    let mut log = JitLog::default();
    // SAFETY: forwarded contract.
    let regs = unsafe { jit_max_registers(num_jit_options, jit_options, jit_values) };
    // SAFETY: forwarded contract.
    let r = unsafe { load_image(code, regs, None, &mut log) };
    // SAFETY: forwarded contract.
    unsafe { write_jit_log(&log, num_jit_options, jit_options, jit_values) };
    let (module, module_handle) = r?;
    let lib = Arc::new(Library {
        module,
        module_handle,
        kernels: Mutex::new(HashMap::new()),
    });
    let h = LIBRARIES.insert(lib);
    // SAFETY: checked non-null.
    unsafe { *library = h as CUlibrary };
    Ok(())
}

pub(crate) unsafe fn library_unload(library: CUlibrary) -> CuResult {
    let lib = LIBRARIES.get(library)?;
    LIBRARIES.remove(library as usize);
    drop_module(&lib.module);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn library_load_from_file(
    library: *mut CUlibrary,
    file_name: *const c_char,
    jit_options: *mut CUjit_option,
    jit_values: *mut *mut c_void,
    num_jit_options: c_uint,
    lib_options: *mut CUlibraryOption,
    lib_values: *mut *mut c_void,
    num_lib_options: c_uint,
) -> CuResult {
    if library.is_null() || file_name.is_null() {
        return Err(INVALID_VALUE);
    }
    let data = read_image_file(file_name)?;
    // SAFETY: `data` is a NUL-terminated copy of the file, alive during the load; the rest is
    // the caller's contract.
    unsafe {
        library_load_data(
            library,
            data.as_ptr() as *const c_void,
            jit_options,
            jit_values,
            num_jit_options,
            lib_options,
            lib_values,
            num_lib_options,
        )
    }
}

/// The `CUkernel` handle of `name` in `lib` (created once).
fn kernel_handle(lib: &Library, name: &str) -> CuResult<usize> {
    let mut kernels = lib.kernels.lock();
    Ok(match kernels.get(name) {
        Some(&h) => h,
        None => {
            let fh = function_handle(&lib.module, name)?;
            let function = function(fh as *mut c_void)?;
            let h = KERNELS.insert(Arc::new(Kernel { function }));
            kernels.insert(name.to_string(), h);
            h
        }
    })
}

pub(crate) unsafe fn library_get_kernel(
    kernel: *mut CUkernel,
    library: CUlibrary,
    name: *const c_char,
) -> CuResult {
    if kernel.is_null() {
        return Err(INVALID_VALUE);
    }
    let lib = LIBRARIES.get(library)?;
    let h = kernel_handle(&lib, c_name(name)?)?;
    // SAFETY: checked non-null.
    unsafe { *kernel = h as CUkernel };
    Ok(())
}

pub(crate) unsafe fn library_enumerate_kernels(
    kernels: *mut CUkernel,
    n: c_uint,
    library: CUlibrary,
) -> CuResult {
    let lib = LIBRARIES.get(library)?;
    // SAFETY: forwarded contract.
    unsafe { enumerate(kernels, n, &lib.module, |name| kernel_handle(&lib, name)) }
}

pub(crate) unsafe fn kernel_get_library(library: *mut CUlibrary, kernel: CUkernel) -> CuResult {
    if library.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(kernel)?;
    let h = LIBRARIES
        .position(|l| Arc::ptr_eq(&l.module, &f.module))
        .ok_or(NOT_FOUND)?;
    // SAFETY: checked non-null.
    unsafe { *library = h as CUlibrary };
    Ok(())
}

pub(crate) unsafe fn library_get_module(module: *mut CUmodule, library: CUlibrary) -> CuResult {
    if module.is_null() {
        return Err(INVALID_VALUE);
    }
    let lib = LIBRARIES.get(library)?;
    context::active()?;
    // SAFETY: checked non-null.
    unsafe { *module = lib.module_handle as CUmodule };
    Ok(())
}

pub(crate) unsafe fn library_get_global(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    library: CUlibrary,
    name: *const c_char,
) -> CuResult {
    let lib = LIBRARIES.get(library)?;
    context::active()?;
    global(&lib.module, c_name(name)?, dptr, bytes)
}

/// `cuLibraryGetManaged`: a `__managed__` variable (`.global .attribute(.managed)`). cudart 13
/// asks for each one it registered and stores the address in the host's shadow pointer. Device
/// memory is host memory here, so the variable's device address serves the host too. A name
/// that is not a managed variable is CUDA_ERROR_NOT_FOUND. No context is needed: cudart 13
/// asks at start-up, before it makes one current (managed memory belongs to no context).
pub(crate) unsafe fn library_get_managed(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    library: CUlibrary,
    name: *const c_char,
) -> CuResult {
    let lib = LIBRARIES.get(library)?;
    let name = c_name(name)?;
    if !lib.module.engine.global(name).is_some_and(|g| g.managed) {
        return Err(NOT_FOUND);
    }
    global(&lib.module, name, dptr, bytes)
}

/// `cuLibraryGetUnifiedFunction`: the address of a `.func .attribute(.unified)`, which a GPU
/// lets host and device code call through one pointer. Device functions here are interpreted
/// and have no host-callable address, so one that exists is CUDA_ERROR_NOT_SUPPORTED (said on
/// stderr); any other name is CUDA_ERROR_NOT_FOUND, as the driver answers.
pub(crate) unsafe fn library_get_unified_function(
    fptr: *mut *mut c_void,
    library: CUlibrary,
    name: *const c_char,
) -> CuResult {
    let lib = LIBRARIES.get(library)?;
    if fptr.is_null() {
        return Err(INVALID_VALUE);
    }
    let name = c_name(name)?;
    if !lib.module.engine.is_unified_function(name) {
        return Err(NOT_FOUND);
    }
    trace::warn(&format!(
        "cuLibraryGetUnifiedFunction({name}): unified (host-callable) device functions are not \
         supported: device code is interpreted and has no host address"
    ));
    Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
}

pub(crate) unsafe fn library_get_kernel_count(count: *mut c_uint, library: CUlibrary) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    let lib = LIBRARIES.get(library)?;
    // SAFETY: checked non-null.
    unsafe { *count = lib.module.engine.kernels().len() as c_uint };
    Ok(())
}

// ---- Kernels and functions.

pub(crate) unsafe fn kernel_get_function(func: *mut CUfunction, kernel: CUkernel) -> CuResult {
    if func.is_null() {
        return Err(INVALID_VALUE);
    }
    context::active()?;
    let f = function(kernel)?;
    let h = function_handle(&f.module, f.name.to_str().unwrap_or_default())?;
    // SAFETY: checked non-null.
    unsafe { *func = h as CUfunction };
    Ok(())
}

/// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the device's limit, lowered by `.maxntid` and by
/// the register file (the most whole warps whose registers pass the launch's check).
pub(crate) fn max_threads_per_block(f: &Function) -> u32 {
    let p = config::profile();
    let k = &f.kernel;
    let by_regs = (1..=p.max_threads_per_block as u32 / 32)
        .rev()
        .map(|w| w * 32)
        .find(|&t| p.regs_fit(f.num_regs, t as u64))
        .unwrap_or(32);
    let mut v = (p.max_threads_per_block as u32).min(by_regs);
    if k.max_threads_per_block > 0 {
        v = v.min(k.max_threads_per_block);
    }
    v
}

fn attribute(f: &Function, attrib: CUfunction_attribute) -> CuResult<c_int> {
    use CUfunction_attribute as F;
    let p = config::profile();
    let k = &f.kernel;
    let load = |a: &AtomicI32| a.load(Ordering::Acquire);
    Ok(match attrib {
        F::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => max_threads_per_block(f) as c_int,
        F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => k.static_shared_bytes as c_int,
        // The module's user constant bank: its `.const` variables, the same for every kernel
        // of the module whether it reads them or not (400 on an H100 for every kernel of a
        // module declaring `__constant__ int cdata[100]`, driver 580).
        F::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES => f.module.engine.const_bytes as c_int,
        F::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => k.local_bytes_per_thread as c_int,
        F::CU_FUNC_ATTRIBUTE_NUM_REGS => f.num_regs as c_int,
        // "The PTX virtual architecture version for which the function was compiled", major
        // * 10 + minor: the `.target` of the PTX (80 for compute_80, whatever its `.version`),
        // which CUB's dispatch compares with the architectures it was built for.
        F::CU_FUNC_ATTRIBUTE_PTX_VERSION => {
            f.module.engine.target_sm.unwrap_or(f.module.ptx_sm) as c_int
        }
        // The PTX is "compiled" for the device itself.
        F::CU_FUNC_ATTRIBUTE_BINARY_VERSION => p.sm() as c_int,
        F::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA => 0,
        F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => load(&f.max_dynamic_shared),
        F::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => load(&f.carveout),
        F::CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET => 0,
        F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH => load(&f.cluster_dims[0]),
        F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT => load(&f.cluster_dims[1]),
        F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => load(&f.cluster_dims[2]),
        F::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => load(&f.non_portable_cluster),
        F::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => load(&f.cluster_scheduling),
        F::CU_FUNC_ATTRIBUTE_DEVICE_NODE_UPDATE_SUPPORTED => 0,
        F::CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE => load(&f.shared_memory_mode),
        _ => return Err(INVALID_VALUE),
    })
}

fn set_attribute(f: &Function, attrib: CUfunction_attribute, value: c_int) -> CuResult {
    use CUfunction_attribute as F;
    let p = config::profile();
    let store = |a: &AtomicI32| a.store(value, Ordering::Release);
    match attrib {
        F::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
            // Up to the opt-in limit less the function's static shared memory.
            if value < 0
                || value as i64 + f.kernel.static_shared_bytes as i64
                    > p.shared_per_block_optin as i64
            {
                return Err(INVALID_VALUE);
            }
            store(&f.max_dynamic_shared);
        }
        F::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
            if !(-1..=100).contains(&value) {
                return Err(INVALID_VALUE);
            }
            store(&f.carveout);
        }
        F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
        | F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT
        | F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => {
            // All zero or all positive is checked at launch, as the driver does.
            if value < 0 || p.cc_major < 9 {
                return Err(INVALID_VALUE);
            }
            // "If the value is set during compile time, it cannot be set at runtime."
            if f.kernel.cluster_dims.is_some() {
                return Err(CUresult::CUDA_ERROR_NOT_PERMITTED);
            }
            store(
                &f.cluster_dims
                    [(attrib.0 - F::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH.0) as usize],
            );
        }
        F::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => {
            if !(0..=1).contains(&value) || p.cc_major < 9 {
                return Err(INVALID_VALUE);
            }
            store(&f.non_portable_cluster);
        }
        F::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => {
            if !(0..=3).contains(&value) {
                return Err(INVALID_VALUE);
            }
            store(&f.cluster_scheduling);
        }
        F::CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE => {
            if !(0..=4).contains(&value) {
                return Err(INVALID_VALUE);
            }
            store(&f.shared_memory_mode);
        }
        // The others are read-only.
        _ => return Err(INVALID_VALUE),
    }
    Ok(())
}

pub(crate) unsafe fn kernel_get_attribute(
    value: *mut c_int,
    attrib: CUfunction_attribute,
    kernel: CUkernel,
    dev: CUdevice,
) -> CuResult {
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    device::check(dev)?;
    let v = attribute(&*function(kernel)?, attrib)?;
    // SAFETY: checked non-null.
    unsafe { *value = v };
    Ok(())
}

pub(crate) unsafe fn kernel_set_attribute(
    attrib: CUfunction_attribute,
    value: c_int,
    kernel: CUkernel,
    dev: CUdevice,
) -> CuResult {
    device::check(dev)?;
    set_attribute(&*function(kernel)?, attrib, value)
}

pub(crate) unsafe fn kernel_set_cache_config(
    kernel: CUkernel,
    config: CUfunc_cache,
    dev: CUdevice,
) -> CuResult {
    device::check(dev)?;
    let f = function(kernel)?;
    if config.0 > 3 {
        return Err(INVALID_VALUE);
    }
    f.cache_config.store(config.0 as i32, Ordering::Release);
    Ok(())
}

unsafe fn write_name(out: *mut *const c_char, f: &Function) -> CuResult {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    // The CString lives as long as the function object, which the registry keeps alive
    // until its module is unloaded, as the API promises for the returned name.
    // SAFETY: checked non-null.
    unsafe { *out = f.name.as_ptr() };
    Ok(())
}

pub(crate) unsafe fn kernel_get_name(name: *mut *const c_char, kernel: CUkernel) -> CuResult {
    if name.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(kernel)?;
    // SAFETY: forwarded contract.
    unsafe { write_name(name, &f) }
}

unsafe fn param_info(f: &Function, index: usize, offset: *mut usize, size: *mut usize) -> CuResult {
    let p = f.kernel.params.get(index).ok_or(INVALID_VALUE)?;
    // SAFETY: each out-pointer is optional and written only when non-null.
    unsafe {
        if !offset.is_null() {
            *offset = p.offset;
        }
        if !size.is_null() {
            *size = p.size;
        }
    }
    Ok(())
}

pub(crate) unsafe fn kernel_get_param_info(
    kernel: CUkernel,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { param_info(&*function(kernel)?, index, offset, size) }
}

pub(crate) unsafe fn kernel_get_param_count(kernel: CUkernel, count: *mut usize) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(kernel)?;
    // SAFETY: checked non-null.
    unsafe { *count = f.kernel.params.len() };
    Ok(())
}

pub(crate) unsafe fn func_get_attribute(
    value: *mut c_int,
    attrib: CUfunction_attribute,
    func: CUfunction,
) -> CuResult {
    if value.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(func)?;
    let v = attribute(&f, attrib)?;
    // SAFETY: checked non-null.
    unsafe { *value = v };
    Ok(())
}

pub(crate) unsafe fn func_set_attribute(
    func: CUfunction,
    attrib: CUfunction_attribute,
    value: c_int,
) -> CuResult {
    set_attribute(&*function(func)?, attrib, value)
}

pub(crate) unsafe fn func_set_cache_config(func: CUfunction, config: CUfunc_cache) -> CuResult {
    let f = function(func)?;
    if config.0 > 3 {
        return Err(INVALID_VALUE);
    }
    // A preference that the occupancy calculation honours (when no carveout is set).
    f.cache_config.store(config.0 as i32, Ordering::Release);
    Ok(())
}

pub(crate) unsafe fn func_set_shared_mem_config(
    func: CUfunction,
    config: CUsharedconfig,
) -> CuResult {
    function(func)?;
    if config.0 > 2 {
        return Err(INVALID_VALUE);
    }
    Ok(())
}

pub(crate) unsafe fn func_get_name(name: *mut *const c_char, func: CUfunction) -> CuResult {
    if name.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(func)?;
    // SAFETY: forwarded contract.
    unsafe { write_name(name, &f) }
}

pub(crate) unsafe fn func_get_module(module: *mut CUmodule, func: CUfunction) -> CuResult {
    if module.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(func)?;
    let h = Arc::as_ptr(&f.module) as usize;
    MODULES.get(h as *mut c_void).map_err(|_| INVALID_HANDLE)?;
    // SAFETY: checked non-null.
    unsafe { *module = h as CUmodule };
    Ok(())
}

pub(crate) unsafe fn func_get_param_info(
    func: CUfunction,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { param_info(&*function(func)?, index, offset, size) }
}

pub(crate) unsafe fn func_get_param_count(func: CUfunction, count: *mut usize) -> CuResult {
    if count.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = function(func)?;
    // SAFETY: checked non-null.
    unsafe { *count = f.kernel.params.len() };
    Ok(())
}

pub(crate) unsafe fn func_is_loaded(
    state: *mut CUfunctionLoadingState,
    func: CUfunction,
) -> CuResult {
    if state.is_null() {
        return Err(INVALID_VALUE);
    }
    function(func)?;
    // SAFETY: checked non-null.
    unsafe { *state = CUfunctionLoadingState::CU_FUNCTION_LOADING_STATE_LOADED };
    Ok(())
}

pub(crate) unsafe fn func_load(func: CUfunction) -> CuResult {
    function(func).map(|_| ())
}
