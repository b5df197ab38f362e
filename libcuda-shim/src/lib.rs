//! libcuda-shim: a drop-in `libcuda.so.1` that runs CUDA programs on the CPU.
//!
//! Built as `libcuda.so` (soname `libcuda.so.1`) for programs, and as an rlib for the
//! `cuda-shim` tool. Public Rust API:
//! - [`config::profile`]: the emulated device ([`profile::Profile`] implements `Display`);
//! - [`entry_points`]: every exported driver entry point with its status (the README's support
//!   table is generated from it).
//!
//! Layers (ARCHITECTURE.md has the rules; `scripts/module-graph.py` checks there is no import
//! circle): `exports` (the one table of entry points) on top; below it the folders of calls,
//! `cudart/`, `graph/`, `context/`, `launch/`, `memory/`, `stream/`, `module/`; then `work/`
//! (the units of work); and at the bottom the files of this directory: the objects (contexts,
//! queues, streams, modules, what is known of each allocation) and what everything shares
//! (`boundary`, `handles`, `config`, `profile`, `trace`, `errors`, ...).

pub mod boundary;
pub mod cli;
pub mod config;
pub mod context;
pub mod cudart;
pub mod device;
pub mod errors;
pub mod exports;
pub mod fatbin;
pub mod graph;
pub mod handles;
pub mod host_frames;
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
pub mod sanitizer;
pub mod stats;
pub mod stream;
pub mod stream_attrs;
pub mod trace;
pub mod work;

pub use exports::{entry_points, EntryPoint};
