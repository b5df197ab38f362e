//! The JIT linker (`cuLinkCreate`, `cuLinkAddData`, `cuLinkAddFile`, `cuLinkComplete`,
//! `cuLinkDestroy`): collects PTX inputs and links them with `engine::Module::link`.
//!
//! Inputs: PTX text; fatbins (their PTX for the device); host objects and archives (the PTX of
//! the fatbins embedded in them, `nvcc -rdc=true -c` output). NVIDIA's device runtime
//! (`libcudadevrt.a`, or its fatbin) has no PTX for the device and is left out with a note in
//! the info log: the engine provides the device runtime itself (`engine::Module::link`).
//! A bare cubin has no PTX at all (CUDA_ERROR_NO_BINARY_FOR_GPU, as `cuModuleLoadData` says for
//! one); NVVM IR is CUDA_ERROR_NOT_SUPPORTED.
//!
//! Output image ("cubin" of `cuLinkComplete`): a link image (`link_image`) holding the
//! inputs' PTX.
//!
//! Options: those given to `cuLinkCreate` hold for the whole link. As in the driver, their
//! `optionValues` array must stay valid until `cuLinkDestroy`: the error and info logs (and
//! their sizes, CU_JIT_WALL_TIME) are written back into it after every `cuLinkAddData` /
//! `cuLinkAddFile` and at `cuLinkComplete`. Options given to an add call receive that call's
//! logs.

use crate::config;
use crate::errors::{CuResult, INVALID_HANDLE, INVALID_VALUE};
use crate::fatbin::{self, FatbinError};
use crate::module::{self, JitLog, LoadFailure};
use crate::{context, link_image, trace};
use abi::*;
use once_cell::sync::Lazy;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::{c_char, c_uint, c_void, CStr};

/// One pending link.
struct LinkState {
    /// The options of `cuLinkCreate` (kept as addresses: the caller keeps them alive until
    /// `cuLinkDestroy`, as the API requires).
    n_options: c_uint,
    options: usize,
    values: usize,
    /// The option values as `cuLinkCreate` got them: log writes replace the buffer sizes by
    /// the lengths written, and every write starts again from the caller's sizes.
    initial_values: Vec<usize>,
    /// (PTX, name) of each input, in order.
    inputs: Vec<(String, String)>,
    /// The logs so far: errors of the inputs, notes (inputs left out).
    log: JitLog,
    /// The image of the last `cuLinkComplete`, owned by the state.
    image: Vec<u8>,
    /// `CU_JIT_MAX_REGISTERS` of `cuLinkCreate`: the image's kernels are "compiled" under it.
    max_registers: Option<u32>,
    /// An add failed on a prototype mismatch: `cuLinkComplete` fails as the driver's does.
    failed: bool,
}

/// Checks `added` against the inputs already in the link: a function's `.extern` prototype
/// must match its definition in another input (nvlink's "Prototype doesn't match"). Other link
/// errors (undefined references) wait for `cuLinkComplete`.
fn prototypes_match(
    earlier: &[(String, String)],
    added: Vec<(String, String)>,
) -> Result<Vec<(String, String)>, LoadFailure> {
    // Re-reading every earlier input on each add costs a parse of the whole link so far: only
    // an `.extern .func` declaration can disagree with another input's definition.
    let declares_extern = |t: &(String, String)| {
        t.0.match_indices(".extern")
            .any(|(i, _)| t.0[i + 7..].trim_start().starts_with(".func"))
    };
    if earlier.is_empty() || !(earlier.iter().chain(&added)).any(declares_extern) {
        return Ok(added);
    }
    let all: Vec<(&str, &str)> = (earlier.iter().chain(&added))
        .map(|(t, n)| (t.as_str(), n.as_str()))
        .collect();
    match engine::Module::check_links(&all) {
        Err(e)
            if e.diagnostics
                .iter()
                .any(|d| d.message.starts_with("Prototype doesn't match")) =>
        {
            Err(LoadFailure::Link(e))
        }
        _ => Ok(added),
    }
}

/// Live link states by handle (the address of their box): a garbage handle is a lookup miss.
static STATES: Lazy<Mutex<HashMap<usize, Box<LinkState>>>> = Lazy::new(Default::default);

fn with_state<T>(state: CUlinkState, f: impl FnOnce(&mut LinkState) -> T) -> CuResult<T> {
    let mut states = STATES.lock();
    let s = states.get_mut(&(state as usize)).ok_or(INVALID_HANDLE)?;
    Ok(f(s))
}

/// Appends a line to a log.
fn push_line(text: &mut String, line: &str) {
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(line);
}

impl LinkState {
    /// Writes the accumulated logs into the `cuLinkCreate` option buffers.
    fn write_logs(&self) {
        // SAFETY: the options given to cuLinkCreate stay valid until cuLinkDestroy (API
        // contract); they were checked when the state was created.
        unsafe {
            let mut vals: Vec<*mut c_void> = (self.initial_values.iter())
                .map(|&v| v as *mut c_void)
                .collect();
            module::write_jit_log(
                &self.log,
                self.n_options,
                self.options as *mut CUjit_option,
                vals.as_mut_ptr(),
            );
            if self.n_options > 0 {
                let out = std::slice::from_raw_parts_mut(
                    self.values as *mut *mut c_void,
                    self.n_options as usize,
                );
                out.copy_from_slice(&vals);
            }
        }
    }
}

pub(crate) unsafe fn create(
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
    state_out: *mut CUlinkState,
) -> CuResult {
    if state_out.is_null() || (n > 0 && (options.is_null() || values.is_null())) {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { module::check_jit_options(n, options) }?;
    context::active()?;
    let initial_values = if n == 0 {
        Vec::new()
    } else {
        // SAFETY: `values` holds `n` entries (API contract; null was refused above).
        unsafe { std::slice::from_raw_parts(values, n as usize) }
            .iter()
            .map(|&v| v as usize)
            .collect()
    };
    // SAFETY: forwarded contract (both arrays hold `n` entries).
    let max_registers = unsafe { module::jit_max_registers(n, options, values) };
    let state = Box::new(LinkState {
        max_registers,
        initial_values,
        n_options: n,
        options: options as usize,
        values: values as usize,
        inputs: Vec::new(),
        log: JitLog::default(),
        image: Vec::new(),
        failed: false,
    });
    let h = &*state as *const LinkState as usize;
    STATES.lock().insert(h, state);
    // SAFETY: checked non-null.
    unsafe { *state_out = h as CUlinkState };
    Ok(())
}

/// The PTX inputs of one added item, plus notes for the info log.
fn inputs_of(
    kind: CUjitInputType,
    data: &[u8],
    name: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<(String, String)>, LoadFailure> {
    let sm = config::profile().sm();
    let image = |e: FatbinError| LoadFailure::Image(e);
    let named = |v: Option<(String, String)>| v.map(|(t, n)| (t, format!("{name}:{n}")));
    match kind {
        CUjitInputType::CU_JIT_INPUT_PTX => {
            let text = data.split(|&b| b == 0).next().unwrap_or_default();
            // A byte that is not UTF-8 becomes U+FFFD, which the parser refuses as non-ASCII
            // with its line, as the driver refuses any non-ASCII byte of PTX.
            Ok(vec![(
                String::from_utf8_lossy(text).into_owned(),
                name.to_string(),
            )])
        }
        CUjitInputType::CU_JIT_INPUT_FATBINARY => {
            // A fatbin, or the host-side wrapper that points to one.
            let f = if data.len() >= 24
                && u32::from_le_bytes(data[..4].try_into().unwrap()) == fatbin::WRAPPER_MAGIC
            {
                let p = u64::from_le_bytes(data[8..16].try_into().unwrap()) as *const u8;
                if p.is_null() {
                    return Err(image(FatbinError::Malformed("NULL fatbin pointer".into())));
                }
                // SAFETY: a wrapper points to a fatbin; its header gives its length.
                let len = fatbin::fatbin_len(unsafe {
                    std::slice::from_raw_parts(p, fatbin::FATBIN_HEADER_BYTES)
                })
                .map_err(image)?;
                // SAFETY: as above.
                unsafe { std::slice::from_raw_parts(p, len) }
            } else {
                let len = fatbin::fatbin_len(data).map_err(image)?;
                data.get(..len)
                    .ok_or_else(|| image(FatbinError::Malformed("truncated fatbin".into())))?
            };
            let unit = module::relocatable_ptx(f, sm, notes).map_err(image)?;
            Ok(named(unit).into_iter().collect())
        }
        CUjitInputType::CU_JIT_INPUT_OBJECT | CUjitInputType::CU_JIT_INPUT_LIBRARY => {
            // `nvcc -rdc=true -c` objects (and archives of them) embed each unit's fatbin.
            let fatbins = fatbin::embedded_fatbins(data);
            let mut out = Vec::new();
            for f in &fatbins {
                if let Some(u) = module::relocatable_ptx(f, sm, notes).map_err(image)? {
                    out.extend(named(Some(u)));
                }
            }
            if fatbins.is_empty() {
                let what = if kind == CUjitInputType::CU_JIT_INPUT_OBJECT {
                    "object"
                } else {
                    "library"
                };
                return Err(image(FatbinError::Malformed(format!(
                    "the {what} '{name}' embeds no fatbin: build it with \
                     `nvcc -rdc=true -gencode arch=compute_XX,code=compute_XX`"
                ))));
            }
            Ok(out)
        }
        // What NVRTC's cubin calls return under the shim (a fatbin with the program's PTX,
        // see `jit_compilers`) arrives here as a "cubin"; a real cubin has SASS only.
        CUjitInputType::CU_JIT_INPUT_CUBIN
            if data.len() >= fatbin::FATBIN_HEADER_BYTES
                && u32::from_le_bytes(data[..4].try_into().unwrap()) == fatbin::FATBIN_MAGIC =>
        {
            inputs_of(CUjitInputType::CU_JIT_INPUT_FATBINARY, data, name, notes)
        }
        CUjitInputType::CU_JIT_INPUT_CUBIN => Err(LoadFailure::Cubin { device_sm: sm }),
        CUjitInputType::CU_JIT_INPUT_NVVM => Err(LoadFailure::Unsupported(format!(
            "'{name}' is NVVM IR (link-time optimization input): libcuda-shim links PTX only"
        ))),
        _ => Err(LoadFailure::Unsupported(String::new())),
    }
}

/// Adds one item; `data` is its bytes.
unsafe fn add(
    state: CUlinkState,
    kind: CUjitInputType,
    data: &[u8],
    name: &str,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> CuResult {
    let mut notes = Vec::new();
    let mut log = JitLog::default();
    let started = std::time::Instant::now();
    let result = inputs_of(kind, data, name, &mut notes).and_then(|inputs| {
        // PTX errors show at add time, as the driver compiles each input when it is added.
        for (text, n) in &inputs {
            if let Err(e) = engine::Module::check_links(&[(text.as_str(), n.as_str())]) {
                // An input on its own may leave references undefined: only syntax counts here.
                if !e
                    .diagnostics
                    .iter()
                    .all(|d| d.message.starts_with("Undefined reference"))
                {
                    return Err(LoadFailure::Ptx(e));
                }
            }
        }
        Ok(inputs)
    });
    log.wall_ms = started.elapsed().as_secs_f32() * 1000.0;
    let r = with_state(state, |s| {
        for note in &notes {
            push_line(&mut s.log.info, &format!("libcuda-shim: {note}"));
            push_line(&mut log.info, &format!("libcuda-shim: {note}"));
        }
        let r = match result.and_then(|inputs| prototypes_match(&s.inputs, inputs)) {
            Ok(inputs) => {
                s.inputs.extend(inputs);
                Ok(())
            }
            Err(LoadFailure::Link(e)) => {
                // The driver's linker binds each input as it is added: a prototype that does
                // not match an earlier input's fails this add and every later cuLinkComplete
                // with CUDA_ERROR_INVALID_SOURCE (measured on an H100, driver 580.159).
                let msg = e.to_string();
                trace::warn(&format!("cuLinkAdd: cannot add '{name}': {msg}"));
                push_line(&mut s.log.error, &msg);
                log.error = msg;
                s.failed = true;
                Err(CUresult::CUDA_ERROR_INVALID_SOURCE)
            }
            Err(f) => {
                let msg = f.message();
                trace::warn(&format!("cuLinkAdd: cannot add '{name}': {msg}"));
                push_line(&mut s.log.error, &msg);
                log.error = msg;
                Err(f.code())
            }
        };
        s.write_logs();
        r
    })?;
    // SAFETY: the add call's own options (checked by the callers).
    unsafe { module::write_jit_log(&log, n, options, values) };
    r
}

/// Checks an add call's arguments as the driver does: the handle, then the type, then the
/// options.
unsafe fn check_add(
    state: CUlinkState,
    kind: CUjitInputType,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> CuResult {
    with_state(state, |_| ())?;
    if kind.0 >= CUjitInputType::CU_JIT_NUM_INPUT_TYPES.0
        || (n > 0 && (options.is_null() || values.is_null()))
    {
        return Err(INVALID_VALUE);
    }
    // SAFETY: forwarded contract.
    unsafe { module::check_jit_options(n, options) }
}

fn c_str_or(name: *const c_char, default: &str) -> String {
    if name.is_null() {
        return default.to_string();
    }
    // SAFETY: a non-null name is NUL-terminated (API contract).
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn add_data(
    state: CUlinkState,
    kind: CUjitInputType,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { check_add(state, kind, n, options, values) }?;
    if data.is_null() || size == 0 {
        return Err(INVALID_VALUE);
    }
    // SAFETY: `data` holds `size` bytes (API contract).
    let bytes = unsafe { std::slice::from_raw_parts(data as *const u8, size) };
    let name = c_str_or(name, &format!("input@{data:p}"));
    // SAFETY: forwarded contract.
    unsafe { add(state, kind, bytes, &name, n, options, values) }
}

pub(crate) unsafe fn add_file(
    state: CUlinkState,
    kind: CUjitInputType,
    path: *const c_char,
    n: c_uint,
    options: *mut CUjit_option,
    values: *mut *mut c_void,
) -> CuResult {
    // SAFETY: forwarded contract.
    unsafe { check_add(state, kind, n, options, values) }?;
    if path.is_null() {
        return Err(INVALID_VALUE);
    }
    let name = c_str_or(path, "");
    let data = std::fs::read(&name).map_err(|_| CUresult::CUDA_ERROR_FILE_NOT_FOUND)?;
    // SAFETY: forwarded contract.
    unsafe { add(state, kind, &data, &name, n, options, values) }
}

pub(crate) unsafe fn complete(
    state: CUlinkState,
    cubin_out: *mut *mut c_void,
    size_out: *mut usize,
) -> CuResult {
    with_state(state, |s| {
        if cubin_out.is_null() {
            return Err(INVALID_VALUE);
        }
        if s.failed {
            s.write_logs();
            return Err(CUresult::CUDA_ERROR_INVALID_SOURCE);
        }
        let started = std::time::Instant::now();
        let refs: Vec<(&str, &str)> = s
            .inputs
            .iter()
            .map(|(t, n)| (t.as_str(), n.as_str()))
            .collect();
        // Resolve the symbols now (what the driver's linker reports here); the module is built
        // when the image is loaded.
        let r = if refs.is_empty() {
            Err(LoadFailure::Image(FatbinError::Malformed(
                "nothing to link: no PTX input was added".into(),
            )))
        } else {
            engine::Module::check_links(&refs).map_err(LoadFailure::Link)
        };
        s.log.wall_ms = started.elapsed().as_secs_f32() * 1000.0;
        let r = match r {
            Ok(()) => {
                s.image = link_image::encode(&s.inputs, config::profile().sm(), s.max_registers);
                push_line(
                    &mut s.log.info,
                    &format!(
                        "libcuda-shim: linked {} PTX input(s) into a {}-byte link image",
                        s.inputs.len(),
                        s.image.len()
                    ),
                );
                // SAFETY: checked non-null; size_out is optional.
                unsafe {
                    *cubin_out = s.image.as_mut_ptr() as *mut c_void;
                    if !size_out.is_null() {
                        *size_out = s.image.len();
                    }
                }
                Ok(())
            }
            Err(f) => {
                let msg = f.message();
                trace::warn(&format!("cuLinkComplete: {msg}"));
                push_line(&mut s.log.error, &msg);
                // A mismatch the adds could not see yet (its input was added while other
                // references were still open) is the same error as at add time.
                if msg.contains("Prototype doesn't match") {
                    Err(CUresult::CUDA_ERROR_INVALID_SOURCE)
                } else {
                    Err(f.code())
                }
            }
        };
        s.write_logs();
        r
    })?
}

pub(crate) unsafe fn destroy(state: CUlinkState) -> CuResult {
    STATES
        .lock()
        .remove(&(state as usize))
        .map(drop)
        .ok_or(INVALID_HANDLE)
}
