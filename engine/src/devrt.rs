//! The device runtime's functions that PTX calls by name and that lowering cannot implement as
//! a single operation: cooperative groups' grid handle and grid barrier (`cudaCGSynchronize`
//! waits for every CTA of the grid, so it is a loop in device code, not a host call). They are
//! PTX (`devrt.ptx`), linked into every module that calls one of them and defines none, as
//! nvlink links NVIDIA's libcudadevrt (whose archive holds machine code only). The rest of the
//! device runtime, dynamic parallelism's launches, streams and allocations, are system calls
//! (`ir::DevrtCall`, run by `exec::devrt`).

use crate::ptx::ast;

/// The library's PTX.
pub(crate) const LIBRARY: &str = include_str!("devrt.ptx");

/// Its name in diagnostics.
pub(crate) const NAME: &str = "<cuda-shim device runtime>";

/// The functions the library defines.
const PROVIDES: &[&str] = &[
    "cudaCGGetIntrinsicHandle",
    "cudaCGSynchronize",
    "cudaCGSynchronizeGrid",
    "cudaCGGetSize",
    "cudaCGGetRank",
];

/// Whether `mods` declare one of the library's functions without any of them defining it.
pub(crate) fn needed(mods: &[ast::Module]) -> bool {
    let all = || mods.iter().flat_map(|m| m.functions.iter());
    let declared = all().any(|f| f.body.is_none() && PROVIDES.contains(&f.name.as_str()));
    declared && !all().any(|f| f.body.is_some() && PROVIDES.contains(&f.name.as_str()))
}
