//! The IR's verifier: the invariants the executor relies on without checking, checked once after
//! lowering (in debug builds, at every load; in release builds, by the tests and by
//! `cuda-shim check --emit-ir`).
//!
//! - every register an instruction reads or writes exists and has a recorded width (registers
//!   are untyped 64-bit slots; the operand types were checked against the ISA at lowering, and
//!   a predicate may live in a 32-bit temporary, e.g. `set`'s comparison);
//! - every function's code is `entry..=exit` with `End` at `exit`, and branches stay inside it;
//! - every branch's reconvergence point post-dominates it: no path from the branch reaches the
//!   end of its function without passing through it (so divergent lanes always meet again);
//! - a call is followed by its `CallRet`, and names a call site whose callees exist.

use super::operands::{operands, successors, Operands};
use super::*;

/// What is wrong, at which instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub pc: Option<usize>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pc {
            Some(pc) => write!(f, "IR instruction {pc}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

pub fn verify(p: &Program) -> Result<(), VerifyError> {
    let n = p.insts.len();
    let err = |pc: Option<usize>, message: String| Err(VerifyError { pc, message });
    if p.info.len() != n {
        return err(
            None,
            format!("{} instructions but {} infos", n, p.info.len()),
        );
    }
    if (p.reg_words.len() as u32) < p.nregs {
        return err(
            None,
            format!("{} registers but {} widths", p.nregs, p.reg_words.len()),
        );
    }
    let Some(kernel) = p.funcs.first() else {
        return err(None, "no functions".into());
    };
    if (kernel.entry, kernel.exit) != (p.entry, p.exit) {
        return err(None, "the kernel is not function 0".into());
    }
    // The function each instruction belongs to.
    let mut func_of = vec![usize::MAX; n];
    for (fi, f) in p.funcs.iter().enumerate() {
        if f.entry > f.exit || f.exit as usize >= n {
            return err(
                None,
                format!("function {fi} spans {}..={}", f.entry, f.exit),
            );
        }
        if !matches!(p.insts[f.exit as usize].op, Op::End) {
            return err(
                Some(f.exit as usize),
                format!("function {fi} does not end in End"),
            );
        }
        for pc in f.entry..=f.exit {
            if func_of[pc as usize] != usize::MAX {
                return err(
                    Some(pc as usize),
                    format!("in functions {} and {fi}", func_of[pc as usize]),
                );
            }
            func_of[pc as usize] = fi;
        }
    }
    let mut o = Operands::default();
    let mut succ = Vec::new();
    for (pc, inst) in p.insts.iter().enumerate() {
        let fi = func_of[pc];
        if fi == usize::MAX {
            continue; // between functions: never reached
        }
        let f = &p.funcs[fi];
        let inside = |t: u32| (f.entry..=f.exit).contains(&t);
        if let Op::Call { site } | Op::CallRet { site } = inst.op {
            let Some(s) = p.sites.get(site as usize) else {
                return err(Some(pc), format!("call site {site} does not exist"));
            };
            if let Some(&c) = s.callees.iter().find(|&&c| c as usize >= p.funcs.len()) {
                return err(Some(pc), format!("callee {c} does not exist"));
            }
        }
        if let Op::Call { site } = inst.op {
            if !matches!(p.insts.get(pc + 1).map(|i| &i.op), Some(Op::CallRet { site: s }) if *s == site)
            {
                return err(Some(pc), "a call not followed by its CallRet".into());
            }
        }
        operands(p, fi, inst, &mut o);
        if let Some(&r) = o.uses.iter().chain(&o.defs).find(|&&r| r >= p.nregs) {
            return err(
                Some(pc),
                format!("register %{r} out of range ({})", p.nregs),
            );
        }
        let (targets, rpc): (&[u32], u32) = match &inst.op {
            Op::Bra { target, rpc } => (std::slice::from_ref(target), *rpc),
            Op::Brx { targets, rpc, .. } => (targets, *rpc),
            _ => continue,
        };
        if let Some(t) = targets.iter().find(|&&t| !inside(t)) {
            return err(Some(pc), format!("branch to {t}, outside its function"));
        }
        if !inside(rpc) || rpc as usize == pc {
            return err(Some(pc), format!("reconvergence point {rpc} is not valid"));
        }
        // Post-dominance: walk forward from the branch; reaching the function's end (or an
        // exit) without passing the reconvergence point is a path that never meets again.
        let mut seen = vec![false; (f.exit - f.entry + 1) as usize];
        successors(inst, pc as u32, &mut succ);
        let mut work: Vec<u32> = succ.clone();
        while let Some(q) = work.pop() {
            if q == rpc || !inside(q) || std::mem::replace(&mut seen[(q - f.entry) as usize], true)
            {
                continue;
            }
            successors(&p.insts[q as usize], q, &mut succ);
            // An exit or trap leaves through the function's end.
            if succ.is_empty() && rpc != f.exit {
                return err(
                    Some(pc),
                    format!("reconvergence point {rpc} does not post-dominate: {q} ends the path"),
                );
            }
            work.extend_from_slice(&succ);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Module;

    /// A kernel with one divergent branch: `if (tid < 4) out[tid] = 1;`.
    const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n\
        .reg .pred %p<2>;\n.reg .b32 %r<3>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [out];\n\
        mov.u32 %r1, %tid.x;\n\
        setp.ge.u32 %p1, %r1, 4;\n\
        @%p1 bra DONE;\n\
        mul.wide.u32 %rd2, %r1, 4;\n\
        add.s64 %rd3, %rd1, %rd2;\n\
        st.global.u32 [%rd3], 1;\n\
        DONE:\n\
        ret;\n}\n";

    fn program() -> Program {
        let m = Module::load(PTX, "v.ptx").unwrap();
        let k = m.kernel("k").unwrap();
        (*k.program).clone()
    }

    fn branch(p: &Program) -> usize {
        p.insts
            .iter()
            .position(|i| matches!(i.op, Op::Bra { .. }))
            .unwrap()
    }

    #[test]
    fn lowered_code_verifies() {
        assert_eq!(verify(&program()), Ok(()));
    }

    #[test]
    fn a_reconvergence_point_that_does_not_post_dominate_is_refused() {
        let mut p = program();
        let pc = branch(&p);
        let Op::Bra { target, .. } = p.insts[pc].op else {
            unreachable!()
        };
        // The fall-through: the taken path reaches the end without passing it.
        p.insts[pc].op = Op::Bra {
            target,
            rpc: pc as u32 + 1,
        };
        let e = verify(&p).unwrap_err();
        assert_eq!(e.pc, Some(pc));
        assert!(e.message.contains("does not post-dominate"), "{e}");
    }

    #[test]
    fn a_branch_out_of_its_function_is_refused() {
        let mut p = program();
        let pc = branch(&p);
        let past = p.insts.len() as u32 + 3;
        p.insts[pc].op = Op::Bra {
            target: past,
            rpc: p.exit,
        };
        assert!(verify(&p)
            .unwrap_err()
            .message
            .contains("outside its function"));
    }

    #[test]
    fn a_register_out_of_range_is_refused() {
        let mut p = program();
        let pc = branch(&p) + 1;
        let Op::Bin { op, fl, a, b, .. } = p.insts[pc].op.clone() else {
            panic!("expected mul.wide after the branch, got {}", p.insts[pc].op)
        };
        let d = p.nregs;
        p.insts[pc].op = Op::Bin { op, fl, d, a, b };
        let e = verify(&p).unwrap_err();
        assert!(e.message.contains("out of range"), "{e}");
    }

    #[test]
    fn the_text_names_each_operation_with_its_modifiers() {
        let text = program().to_string();
        for want in [
            "= setp.ge.u32 %",
            "mul.wide.u32",
            "st.global.b32 [",
            "// setp.ge.u32 (line 11)",
        ] {
            assert!(text.contains(want), "{want:?} missing from:\n{text}");
        }
    }
}
