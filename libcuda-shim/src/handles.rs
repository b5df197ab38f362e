//! The registry of live handles. Every `CUcontext`, `CUmodule`, `CUfunction`, `CUlibrary`,
//! `CUkernel`, `CUstream`, `CUevent`, `CUgraph`, `CUgraphNode` and `CUgraphExec` handed out is the address of an object kept alive here,
//! so a dangling or garbage handle is detected by a map lookup (CUDA_ERROR_INVALID_HANDLE or
//! CUDA_ERROR_INVALID_CONTEXT) instead of being dereferenced.

use crate::context::Context;
use crate::errors::{CuResult, INVALID_CONTEXT, INVALID_HANDLE, INVALID_VALUE};
use crate::graph::exec::GraphExec;
use crate::graph::{Graph, Node};
use crate::module::{Function, Kernel, Library, Module};
use crate::stream::event::Event;
use crate::stream::Stream;
use once_cell::sync::Lazy;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Clone)]
pub enum Object {
    Context(Arc<Context>),
    Module(Arc<Module>),
    Function(Arc<Function>),
    Library(Arc<Library>),
    Kernel(Arc<Kernel>),
    Stream(Arc<Stream>),
    Event(Arc<Event>),
    Graph(Arc<Graph>),
    GraphNode(Arc<Node>),
    GraphExec(Arc<GraphExec>),
}

static REGISTRY: Lazy<RwLock<HashMap<usize, Object>>> = Lazy::new(Default::default);

fn address(object: &Object) -> usize {
    match object {
        Object::Context(o) => Arc::as_ptr(o) as usize,
        Object::Module(o) => Arc::as_ptr(o) as usize,
        Object::Function(o) => Arc::as_ptr(o) as usize,
        Object::Library(o) => Arc::as_ptr(o) as usize,
        Object::Kernel(o) => Arc::as_ptr(o) as usize,
        Object::Stream(o) => Arc::as_ptr(o) as usize,
        Object::Event(o) => Arc::as_ptr(o) as usize,
        Object::Graph(o) => Arc::as_ptr(o) as usize,
        Object::GraphNode(o) => Arc::as_ptr(o) as usize,
        Object::GraphExec(o) => Arc::as_ptr(o) as usize,
    }
}

/// Registers an object; its handle is its address (unique while it lives, and it lives at least
/// as long as it is registered).
pub fn insert(object: Object) -> usize {
    let h = address(&object);
    REGISTRY.write().insert(h, object);
    h
}

/// Unregisters a handle, returning the object.
pub fn remove(handle: usize) -> Option<Object> {
    REGISTRY.write().remove(&handle)
}

pub fn get(handle: usize) -> Option<Object> {
    REGISTRY.read().get(&handle).cloned()
}

pub fn context<T>(h: *mut T) -> CuResult<Arc<Context>> {
    match get(h as usize) {
        Some(Object::Context(c)) => Ok(c),
        _ => Err(INVALID_CONTEXT),
    }
}

pub fn module<T>(h: *mut T) -> CuResult<Arc<Module>> {
    match get(h as usize) {
        Some(Object::Module(m)) => Ok(m),
        _ => Err(INVALID_HANDLE),
    }
}

/// A `CUfunction`; a `CUkernel` is accepted too (cudart 13 launches kernels cast to functions).
pub fn function<T>(h: *mut T) -> CuResult<Arc<Function>> {
    match get(h as usize) {
        Some(Object::Function(f)) => Ok(f),
        Some(Object::Kernel(k)) => Ok(k.function.clone()),
        _ => Err(INVALID_HANDLE),
    }
}

pub fn library<T>(h: *mut T) -> CuResult<Arc<Library>> {
    match get(h as usize) {
        Some(Object::Library(l)) => Ok(l),
        _ => Err(INVALID_HANDLE),
    }
}

/// A `CUkernel`; a `CUfunction` is accepted too, as the real driver does for the
/// `cuKernel*` calls given a function of the same context.
pub fn kernel<T>(h: *mut T) -> CuResult<Arc<Function>> {
    function(h)
}

pub fn event<T>(h: *mut T) -> CuResult<Arc<Event>> {
    match get(h as usize) {
        Some(Object::Event(e)) => Ok(e),
        _ => Err(INVALID_HANDLE),
    }
}

/// A created stream (the special handles NULL, `CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD` are
/// resolved by `stream::resolve` before this).
pub fn stream<T>(h: *mut T) -> CuResult<Arc<Stream>> {
    match get(h as usize) {
        Some(Object::Stream(s)) => Ok(s),
        _ => Err(INVALID_HANDLE),
    }
}

pub fn graph<T>(h: *mut T) -> CuResult<Arc<Graph>> {
    match get(h as usize) {
        Some(Object::Graph(g)) => Ok(g),
        _ => Err(INVALID_VALUE),
    }
}

pub fn graph_node<T>(h: *mut T) -> CuResult<Arc<Node>> {
    match get(h as usize) {
        Some(Object::GraphNode(n)) => Ok(n),
        _ => Err(INVALID_VALUE),
    }
}

pub fn graph_exec<T>(h: *mut T) -> CuResult<Arc<GraphExec>> {
    match get(h as usize) {
        Some(Object::GraphExec(e)) => Ok(e),
        _ => Err(INVALID_VALUE),
    }
}

/// The first live handle for which `wanted` holds.
pub fn find(wanted: impl Fn(&Object) -> bool) -> Option<usize> {
    REGISTRY
        .read()
        .iter()
        .find(|(_, o)| wanted(o))
        .map(|(&h, _)| h)
}

/// Removes every handle for which `doomed` holds (used when a module or context goes away).
pub fn remove_where(doomed: impl Fn(&Object) -> bool) {
    REGISTRY.write().retain(|_, o| !doomed(o));
}
