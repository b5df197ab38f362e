//! The units of work: graphs, their nodes and what each node does ([`Kind`]), with the objects
//! a node holds (conditional handles, graph allocations, user-object references) and a kernel
//! node's launch attributes. Everything that makes or runs work (stream capture, copies,
//! launches, events, the graph calls, executable graphs) imports this; it imports none of them.

pub mod cond;
pub mod graph;
pub mod graph_alloc;
pub mod launch_attrs;
pub mod user_objects;

pub use graph::{topological, CondNode, Graph, KernelNode, Kind, Node, GRAPHS, NODES};
pub use graph_alloc::GraphAlloc;
pub use launch_attrs::LaunchAttrs;
