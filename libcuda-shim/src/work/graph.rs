//! Graphs and their nodes, and what a node does ([`Kind`]): the unit of work. Stream capture
//! builds graphs out of the work streams are given, the node calls (`crate::graph`) build them
//! explicitly, and executable graphs run them; each of those imports this module, and this
//! module imports none of them. A node's parameters are validated and copied before a [`Kind`]
//! is made (kernel arguments included), as the driver does, so the caller's storage may go
//! away.
//!
//! Handles: a `CUgraph` is the address of a [`Graph`], a `CUgraphNode` that of a [`Node`],
//! registered in [`GRAPHS`] and [`NODES`]. Nodes are kept in creation order, which is the order
//! `cuGraphGetNodes` reports and `cuGraphExecUpdate` pairs them in.

use crate::errors::INVALID_VALUE;
use crate::handles::Registry;
use crate::module::Function;
use crate::work::cond::{self, CondHandle};
use crate::work::graph_alloc::GraphAlloc;
use crate::work::launch_attrs::LaunchAttrs;
use crate::work::user_objects::Refs;
use abi::*;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Weak};

/// A kernel node's launch: the function, its shape and a copy of its parameter block.
#[derive(Clone)]
pub struct KernelNode {
    /// The handle the program gave (`CUfunction`, or a `CUkernel` in `kern`).
    pub handle: usize,
    /// Whether `handle` came in `kern` (a `CUkernel`), as cudart 13 passes it.
    pub via_kernel: bool,
    pub function: Arc<Function>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub params: Vec<u8>,
    /// The node's launch attributes (cluster shape, priority, ...): set by
    /// cuGraphKernelNodeSetAttribute or recorded from a captured cuLaunchKernelEx.
    pub attrs: LaunchAttrs,
}

/// What a node does.
#[derive(Clone)]
pub enum Kind {
    Empty,
    Kernel(KernelNode),
    Memcpy(CUDA_MEMCPY3D),
    Memset(CUDA_MEMSET_NODE_PARAMS),
    Host(CUDA_HOST_NODE_PARAMS),
    EventRecord(CUevent),
    EventWait(CUevent),
    /// The node owns this graph (a clone of the one the program gave).
    Child(Arc<Graph>),
    /// A memory allocation node (see `crate::graph::mem`).
    MemAlloc(Arc<GraphAlloc>),
    /// A memory free node: the address of a graph allocation.
    MemFree(u64),
    /// An IF, WHILE or SWITCH node (see `crate::graph::conditional`).
    Conditional(CondNode),
}

// SAFETY: the raw pointers inside are program addresses (device or host memory, host function
// user data, event handles) kept as plain values; they are only dereferenced by the work a
// launch submits, under the same contract as the equivalent stream calls.
unsafe impl Send for Kind {}

// SAFETY: as above; a Kind is never mutated through a shared reference.
unsafe impl Sync for Kind {}

impl Kind {
    pub fn node_type(&self) -> CUgraphNodeType {
        use CUgraphNodeType as T;
        match self {
            Kind::Empty => T::CU_GRAPH_NODE_TYPE_EMPTY,
            Kind::Kernel(_) => T::CU_GRAPH_NODE_TYPE_KERNEL,
            Kind::Memcpy(_) => T::CU_GRAPH_NODE_TYPE_MEMCPY,
            Kind::Memset(_) => T::CU_GRAPH_NODE_TYPE_MEMSET,
            Kind::Host(_) => T::CU_GRAPH_NODE_TYPE_HOST,
            Kind::EventRecord(_) => T::CU_GRAPH_NODE_TYPE_EVENT_RECORD,
            Kind::EventWait(_) => T::CU_GRAPH_NODE_TYPE_WAIT_EVENT,
            Kind::Child(_) => T::CU_GRAPH_NODE_TYPE_GRAPH,
            Kind::MemAlloc(_) => T::CU_GRAPH_NODE_TYPE_MEM_ALLOC,
            Kind::MemFree(_) => T::CU_GRAPH_NODE_TYPE_MEM_FREE,
            Kind::Conditional(_) => T::CU_GRAPH_NODE_TYPE_CONDITIONAL,
        }
    }
}

/// A conditional node: its handle, type and body graphs (owned by the node, made when it is
/// added), and the array of body handles `phGraph_out` points to.
#[derive(Clone)]
pub struct CondNode {
    pub handle: Arc<CondHandle>,
    pub ty: CUgraphConditionalNodeType,
    pub bodies: Vec<Arc<Graph>>,
    pub out: Arc<Vec<usize>>,
}

/// Live graphs: created, cloned, captured, and the child graphs and conditional bodies nodes
/// own.
pub static GRAPHS: Registry<Graph> = Registry::new(INVALID_VALUE);

/// Live nodes of those graphs.
pub static NODES: Registry<Node> = Registry::new(INVALID_VALUE);

pub struct Node {
    pub graph: Weak<Graph>,
    /// Position in the graph's creation order when it was added (cuGraphNodeGetLocalId).
    pub local_id: u32,
    /// The node this one was cloned from (cuGraphNodeFindInClone), 0 if none.
    pub origin: usize,
    pub kind: Mutex<Kind>,
    /// The `kernelParams` array cuGraphKernelNodeGetParams hands out: pointers into the
    /// node's parameter copy, valid until the node's parameters change.
    pub(crate) scratch: Mutex<Vec<usize>>,
}

impl Node {
    pub fn handle(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }
}

#[derive(Default)]
pub struct Inner {
    /// In creation order.
    pub nodes: Vec<Arc<Node>>,
    /// (from, to) node handles, in the order they were added.
    pub edges: Vec<(usize, usize)>,
    next_id: u32,
}

pub struct Graph {
    pub id: u32,
    pub inner: Mutex<Inner>,
    /// The user-object references this graph owns (cuGraphRetainUserObject).
    pub user_objects: Mutex<Refs>,
    /// The conditional handles made for this graph (cuGraphConditionalHandleCreate).
    pub conds: Mutex<Vec<Arc<CondHandle>>>,
}

static NEXT_GRAPH_ID: AtomicU32 = AtomicU32::new(1);

impl Graph {
    /// A new empty graph, registered as a handle.
    pub fn create() -> Arc<Graph> {
        let g = Arc::new(Graph {
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            inner: Mutex::new(Inner::default()),
            user_objects: Mutex::new(Refs::default()),
            conds: Mutex::new(Vec::new()),
        });
        GRAPHS.insert(g.clone());
        g
    }

    pub fn handle(self: &Arc<Self>) -> CUgraph {
        Arc::as_ptr(self) as CUgraph
    }

    /// Adds a node after `deps` (nodes of this graph) and registers it.
    pub fn add(self: &Arc<Self>, kind: Kind, deps: &[usize], origin: usize) -> Arc<Node> {
        let mut inner = self.inner.lock();
        let node = Arc::new(Node {
            graph: Arc::downgrade(self),
            local_id: inner.next_id,
            origin,
            kind: Mutex::new(kind),
            scratch: Mutex::new(Vec::new()),
        });
        inner.next_id += 1;
        let h = node.handle();
        inner.nodes.push(node.clone());
        for &d in deps {
            inner.edges.push((d, h));
        }
        NODES.insert(node.clone());
        node
    }

    /// Whether `h` is a node of this graph.
    pub(crate) fn contains(inner: &Inner, h: usize) -> bool {
        inner.nodes.iter().any(|n| n.handle() == h)
    }

    /// Whether the graph (or a child graph) has memory or conditional nodes, which make it
    /// one that cannot be cloned or used as a child graph (cuGraphClone, cuGraphAddChildGraphNode).
    pub fn has_special_nodes(&self) -> bool {
        self.inner
            .lock()
            .nodes
            .iter()
            .any(|n| match &*n.kind.lock() {
                Kind::MemAlloc(_) | Kind::MemFree(_) | Kind::Conditional(_) => true,
                Kind::Child(c) => c.has_special_nodes(),
                _ => false,
            })
    }

    /// A deep copy (child graphs included), registered; cloned nodes remember their origin.
    /// The copy owns as many user-object references as the original.
    pub fn deep_clone(self: &Arc<Self>) -> Arc<Graph> {
        let copy = Graph::create();
        *copy.user_objects.lock() = self.user_objects.lock().duplicate();
        let inner = self.inner.lock();
        let mut map = std::collections::HashMap::new();
        for n in &inner.nodes {
            let kind = match &*n.kind.lock() {
                Kind::Child(g) => Kind::Child(g.deep_clone()),
                k => k.clone(),
            };
            let c = copy.add(kind, &[], n.handle());
            map.insert(n.handle(), c.handle());
        }
        copy.inner.lock().edges = inner.edges.iter().map(|(a, b)| (map[a], map[b])).collect();
        copy
    }

    /// Unregisters the graph, its nodes, its child graphs and conditional bodies, and
    /// releases what it owns: its user-object references and conditional handles.
    pub fn unregister(self: &Arc<Self>) {
        let nodes = std::mem::take(&mut self.inner.lock().nodes);
        for n in &nodes {
            match &*n.kind.lock() {
                Kind::Child(g) => g.unregister(),
                Kind::Conditional(c) => c.bodies.iter().for_each(|b| b.unregister()),
                _ => {}
            }
            NODES.remove(n.handle());
        }
        self.inner.lock().nodes = nodes;
        GRAPHS.remove(Arc::as_ptr(self) as usize);
        cond::forget(&std::mem::take(&mut *self.conds.lock()));
        // Taken out first: a destructor may run now, with no lock held.
        let refs = std::mem::take(&mut *self.user_objects.lock());
        drop(refs);
    }
}

/// The nodes of `g` in a topological order (ties broken by creation order), or the first node
/// on a cycle.
pub fn topological(g: &Graph) -> Result<Vec<Arc<Node>>, usize> {
    let inner = g.inner.lock();
    let index: std::collections::HashMap<usize, usize> = inner
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.handle(), i))
        .collect();
    let mut indegree = vec![0usize; inner.nodes.len()];
    for (_, b) in &inner.edges {
        indegree[index[b]] += 1;
    }
    let mut done = vec![false; inner.nodes.len()];
    let mut order = Vec::with_capacity(inner.nodes.len());
    while order.len() < inner.nodes.len() {
        let Some(i) = (0..inner.nodes.len()).find(|&i| !done[i] && indegree[i] == 0) else {
            let stuck = (0..inner.nodes.len()).find(|&i| !done[i]).unwrap();
            return Err(inner.nodes[stuck].handle());
        };
        done[i] = true;
        let h = inner.nodes[i].handle();
        for (a, b) in &inner.edges {
            if *a == h {
                indegree[index[b]] -= 1;
            }
        }
        order.push(inner.nodes[i].clone());
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topological_order_follows_edges_and_finds_cycles() {
        let g = Graph::create();
        let a = g.add(Kind::Empty, &[], 0);
        let b = g.add(Kind::Empty, &[], 0);
        let c = g.add(Kind::Empty, &[b.handle()], 0);
        // a after c: creation order alone would put a first.
        g.inner.lock().edges.push((c.handle(), a.handle()));
        let order: Vec<usize> = topological(&g)
            .unwrap()
            .iter()
            .map(|n| n.handle())
            .collect();
        assert_eq!(order, vec![b.handle(), c.handle(), a.handle()]);
        g.inner.lock().edges.push((a.handle(), b.handle()));
        assert!(topological(&g).is_err());
        let copy = g.deep_clone();
        assert_eq!(copy.inner.lock().edges.len(), 3);
        assert!(copy
            .inner
            .lock()
            .nodes
            .iter()
            .any(|n| n.origin == a.handle()));
        copy.unregister();
        g.unregister();
        assert!(NODES.get(a.handle() as CUgraphNode).is_err());
    }
}
