//! libcuda-shim: a drop-in `libcuda.so.1` that runs CUDA programs on the CPU.
//!
//! Built as `libcuda.so` (soname `libcuda.so.1`) for programs, and as an rlib for the
//! `cuda-shim` tool. Public Rust API:
//! - [`profile::current`]: the emulated device ([`profile::Profile`] implements `Display`);
//! - [`entry_points`]: every exported driver entry point with its status (the README's support
//!   table is generated from it).
//!
//! Layout: `exports` (the one table of entry points) -> the modules named for what they do
//! (`device`, `context`, `memory`, `array` (CUDA arrays), `module` + `fatbin`, `launch` + `occupancy`, `vmm` (virtual memory management), `stream`, `event`, `graph` +
//! `graph_exec` + `capture`, with `graph_mem`, `conditional`, `user_object`, `graph_dot`), with
//! `legacy` + `legacy_launch` (the pre-3.2 ABI names and the pre-cuLaunchKernel launch API),
//! `profiler`, `queue` (the per-stream work queues and their worker threads), `printf` (device printf flush
//! points), `handles` (registry of live handles), `proc_address`, `export_tables` + `integrity` (what
//! NVIDIA's cudart needs), `trace`, `config`, `inject` (fault injection) and `errors`.

pub mod boundary;
pub mod config;
pub mod context;
pub mod cudart;
pub mod device;
pub mod errors;
pub mod exports;
pub mod fatbin;
pub mod graph;
pub mod handles;
pub mod init;
pub mod inject;
pub mod launch;
pub mod link_image;
pub mod memory;
pub mod module;
pub mod printf;
pub mod profile;
pub mod profiler;
pub mod queue;
pub mod stream;
pub mod stream_attrs;
pub mod trace;
pub mod work;

pub use exports::{entry_points, EntryPoint};
