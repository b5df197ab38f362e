//! `cuGraphDebugDotPrint`: a Graphviz DOT description of a graph. Each graph (the graph
//! itself, its child graphs, conditional bodies) is a `subgraph cluster_<id>`; each node a box
//! labelled with its position in the graph, its type and its key parameters (kernel name,
//! memcpy direction, ...); each dependency an edge `a -> b`. The flags add detail as the
//! driver's do: `*_NODE_PARAMS` the parameters of that node type, `HANDLES` the node and
//! function handles, `EXTRA_TOPO_INFO` edge numbers, `RUNTIME_TYPES` cudart's type names,
//! `VERBOSE` everything.

use crate::errors::{CuResult, INVALID_VALUE};
use crate::work::GRAPHS;
use crate::work::{Graph, Kind};
use abi::*;
use std::ffi::{c_char, c_uint, CStr};
use std::fmt::Write as _;

const VERBOSE: u32 = 1 << 0;
const RUNTIME_TYPES: u32 = 1 << 1;
const KERNEL: u32 = 1 << 2;
const MEMCPY: u32 = 1 << 3;
const MEMSET: u32 = 1 << 4;
const HOST: u32 = 1 << 5;
const EVENT: u32 = 1 << 6;
const HANDLES: u32 = 1 << 10;
const MEM_ALLOC: u32 = 1 << 11;
const MEM_FREE: u32 = 1 << 12;
const TOPO: u32 = 1 << 14;
const CONDITIONAL: u32 = 1 << 15;

fn type_name(k: &Kind, runtime: bool) -> &'static str {
    let (driver, rt) = match k {
        Kind::Empty => ("EMPTY", "Empty"),
        Kind::Kernel(_) => ("KERNEL", "Kernel"),
        Kind::Memcpy(_) => ("MEMCPY", "Memcpy"),
        Kind::Memset(_) => ("MEMSET", "Memset"),
        Kind::Host(_) => ("HOST", "Host"),
        Kind::EventRecord(_) => ("EVENT_RECORD", "EventRecord"),
        Kind::EventWait(_) => ("WAIT_EVENT", "WaitEvent"),
        Kind::Child(_) => ("GRAPH", "Graph"),
        Kind::MemAlloc(_) => ("MEM_ALLOC", "MemAlloc"),
        Kind::MemFree(_) => ("MEM_FREE", "MemFree"),
        Kind::Conditional(_) => ("CONDITIONAL", "Conditional"),
    };
    if runtime {
        rt
    } else {
        driver
    }
}

fn memory_type(t: CUmemorytype) -> &'static str {
    match t.0 {
        1 => "Host",
        2 => "Device",
        3 => "Array",
        4 => "Unified",
        _ => "Unknown",
    }
}

/// The label lines of one node.
fn label(k: &Kind, index: usize, handle: usize, flags: u32) -> Vec<String> {
    let on = |f: u32| flags & (f | VERBOSE) != 0;
    let mut l = vec![
        index.to_string(),
        type_name(k, on(RUNTIME_TYPES)).to_string(),
    ];
    if on(HANDLES) {
        l.push(format!("node handle: {handle:#x}"));
    }
    match k {
        Kind::Kernel(kn) => {
            l.push(kn.function.kernel.name.to_string());
            if on(KERNEL) {
                l.push(format!("gridDim: {:?}", kn.grid));
                l.push(format!("blockDim: {:?}", kn.block));
                l.push(format!("sharedMemBytes: {}", kn.shared));
                l.push(format!("param bytes: {}", kn.params.len()));
            }
            if on(HANDLES) {
                l.push(format!("func handle: {:#x}", kn.handle));
            }
        }
        Kind::Memcpy(m) => {
            l.push(format!(
                "{} to {}",
                memory_type(m.srcMemoryType),
                memory_type(m.dstMemoryType)
            ));
            if on(MEMCPY) {
                l.push(format!("srcDevice: {:#x}", m.srcDevice));
                l.push(format!("srcHost: {:p}", m.srcHost));
                l.push(format!("dstDevice: {:#x}", m.dstDevice));
                l.push(format!("dstHost: {:p}", m.dstHost));
                l.push(format!(
                    "extent: {} x {} x {}",
                    m.WidthInBytes, m.Height, m.Depth
                ));
            }
        }
        Kind::Memset(m) if on(MEMSET) => {
            l.push(format!("dst: {:#x}", m.dst));
            l.push(format!("value: {:#x}", m.value));
            l.push(format!("elementSize: {}", m.elementSize));
            l.push(format!(
                "width: {} height: {} pitch: {}",
                m.width, m.height, m.pitch
            ));
        }
        Kind::Host(h) if on(HOST) => {
            l.push(format!("fn: {:#x}", h.fn_.map_or(0, |f| f as usize)));
            l.push(format!("userData: {:p}", h.userData));
        }
        Kind::EventRecord(e) | Kind::EventWait(e) if on(EVENT) => {
            l.push(format!("event: {:p}", *e));
        }
        Kind::MemAlloc(a) if on(MEM_ALLOC) => {
            l.push(format!("dptr: {:#x}", a.dptr));
            l.push(format!("bytesize: {}", a.size));
        }
        Kind::MemFree(p) if on(MEM_FREE) => l.push(format!("dptr: {p:#x}")),
        Kind::Conditional(c) => {
            use CUgraphConditionalNodeType as C;
            l.push(
                match c.ty {
                    C::CU_GRAPH_COND_TYPE_IF => "IF",
                    C::CU_GRAPH_COND_TYPE_WHILE => "WHILE",
                    _ => "SWITCH",
                }
                .to_string(),
            );
            if on(CONDITIONAL) {
                l.push(format!("handle: {:#x}", c.handle.cell));
                l.push(format!("default: {}", c.handle.default));
                l.push(format!("bodies: {}", c.bodies.len()));
            }
        }
        _ => {}
    }
    l
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes `g` as a cluster, its inner graphs as nested clusters, then its edges.
fn write_graph(out: &mut String, g: &Graph, flags: u32, depth: usize) {
    let pad = "\t".repeat(depth);
    let id = g.id;
    let _ = writeln!(out, "{pad}subgraph cluster_{id} {{");
    let _ = writeln!(out, "{pad}\tlabel=\"graph_{id}\" graph[style=\"dashed\"];");
    let inner = g.inner.lock();
    let name = |h: usize| -> String {
        let i = inner
            .nodes
            .iter()
            .position(|n| n.handle() == h)
            .unwrap_or(0);
        format!("graph_{id}_node_{i}")
    };
    for (i, n) in inner.nodes.iter().enumerate() {
        let kind = n.kind.lock().clone();
        let text = label(&kind, i, n.handle(), flags)
            .iter()
            .map(|s| escape(s))
            .collect::<Vec<_>>()
            .join("\\n");
        let shape = match kind {
            Kind::Child(_) | Kind::Conditional(_) => "folder",
            _ => "rectangle",
        };
        let _ = writeln!(
            out,
            "{pad}\t\"graph_{id}_node_{i}\"[style=\"solid\" shape=\"{shape}\" label=\"{text}\"];"
        );
        match &kind {
            Kind::Child(c) => write_graph(out, c, flags, depth + 1),
            Kind::Conditional(c) => c
                .bodies
                .iter()
                .for_each(|b| write_graph(out, b, flags, depth + 1)),
            _ => {}
        }
    }
    for (k, (a, b)) in inner.edges.iter().enumerate() {
        let extra = if flags & (TOPO | VERBOSE) != 0 {
            format!("[label=\"{k}\"]")
        } else {
            String::new()
        };
        let _ = writeln!(out, "{pad}\t\"{}\" -> \"{}\"{extra};", name(*a), name(*b));
    }
    let _ = writeln!(out, "{pad}}}");
}

/// The DOT text of `g`.
pub fn dot(g: &Graph, flags: u32) -> String {
    let mut out = String::from("digraph dot {\n");
    write_graph(&mut out, g, flags, 1);
    out.push_str("}\n");
    out
}

pub(crate) unsafe fn debug_dot_print(h: CUgraph, path: *const c_char, flags: c_uint) -> CuResult {
    let g = GRAPHS.get(h)?;
    if path.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: checked non-null; a NUL-terminated path.
    let path = unsafe { CStr::from_ptr(path) };
    let path = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(path.to_bytes());
    std::fs::write(path, dot(&g, flags)).map_err(|_| CUresult::CUDA_ERROR_OPERATING_SYSTEM)
}
