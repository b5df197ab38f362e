//! Control-flow analysis at load time: basic blocks of each function and their immediate
//! post-dominators, which are the reconvergence points of divergent branches.

use crate::ir::{Inst, Op};

/// Fills in `rpc` of every branch in `insts[start..=end]`, where `insts[end]` is the function's
/// `End` (its single exit node). Uses the Cooper-Harvey-Kennedy dominator algorithm on the
/// reversed CFG.
pub fn set_reconvergence(insts: &mut [Inst], start: usize, end: usize) {
    let n = end + 1 - start;
    // Leaders: the first instruction, branch targets, and instructions after a branch or exit.
    let mut leader = vec![false; n];
    leader[0] = true;
    leader[n - 1] = true;
    for pc in start..end {
        match insts[pc].op {
            Op::Bra { target, .. } => {
                leader[target as usize - start] = true;
                leader[pc + 1 - start] = true;
            }
            Op::Brx { ref targets, .. } => {
                for &t in targets {
                    leader[t as usize - start] = true;
                }
                leader[pc + 1 - start] = true;
            }
            Op::Exit | Op::Trap => leader[pc + 1 - start] = true,
            _ => {}
        }
    }
    let mut block_of = vec![0usize; n];
    let mut starts = Vec::new();
    for i in 0..n {
        if leader[i] {
            starts.push(i);
        }
        block_of[i] = starts.len() - 1;
    }
    let nb = starts.len();
    let exit_b = nb - 1;
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for b in 0..exit_b {
        let last = if b + 1 < nb { starts[b + 1] - 1 } else { n - 1 };
        let inst = &insts[start + last];
        match inst.op {
            Op::Bra { target, .. } => {
                succs[b].push(block_of[target as usize - start]);
                if inst.guard.is_some() {
                    succs[b].push(block_of[last + 1]);
                }
            }
            // `brx.idx`: an edge to every listed target (and past it when guarded).
            Op::Brx { ref targets, .. } => {
                for &t in targets {
                    let tb = block_of[t as usize - start];
                    if !succs[b].contains(&tb) {
                        succs[b].push(tb);
                    }
                }
                if inst.guard.is_some() {
                    succs[b].push(block_of[last + 1]);
                }
            }
            Op::Exit | Op::Trap if inst.guard.is_none() => succs[b].push(exit_b),
            Op::Exit | Op::Trap => {
                succs[b].push(exit_b);
                succs[b].push(block_of[last + 1]);
            }
            _ => succs[b].push(block_of[last + 1]),
        }
    }
    // Reverse CFG: edges n -> preds_cfg(n); root = exit. Postorder by iterative DFS.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut po_num = vec![usize::MAX; nb];
    let mut order = Vec::with_capacity(nb);
    let mut visited = vec![false; nb];
    let mut stack = vec![(exit_b, 0usize)];
    visited[exit_b] = true;
    while let Some(&mut (v, ref mut k)) = stack.last_mut() {
        if *k < preds[v].len() {
            let w = preds[v][*k];
            *k += 1;
            if !visited[w] {
                visited[w] = true;
                stack.push((w, 0));
            }
        } else {
            po_num[v] = order.len();
            order.push(v);
            stack.pop();
        }
    }
    let mut ipdom = vec![usize::MAX; nb];
    ipdom[exit_b] = exit_b;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().rev() {
            if b == exit_b {
                continue;
            }
            let mut new = usize::MAX;
            for &s in &succs[b] {
                if ipdom[s] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    s
                } else {
                    let (mut x, mut y) = (s, new);
                    while x != y {
                        while po_num[x] < po_num[y] {
                            x = ipdom[x];
                        }
                        while po_num[y] < po_num[x] {
                            y = ipdom[y];
                        }
                    }
                    x
                };
            }
            if new != usize::MAX && ipdom[b] != new {
                ipdom[b] = new;
                changed = true;
            }
        }
    }
    for b in 0..exit_b {
        let last = if b + 1 < nb { starts[b + 1] - 1 } else { n - 1 };
        // Blocks that cannot reach the exit (infinite loops) reconverge only at the exit.
        let p = if ipdom[b] == usize::MAX {
            exit_b
        } else {
            ipdom[b]
        };
        match insts[start + last].op {
            Op::Bra { ref mut rpc, .. } | Op::Brx { ref mut rpc, .. } => {
                *rpc = (start + starts[p]) as u32
            }
            _ => {}
        }
    }
}
