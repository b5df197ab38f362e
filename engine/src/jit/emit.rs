//! Cranelift code for one segment ([`super::plan::Seg`]): a loop over the warp's active lanes
//! that runs the segment's ops for one lane with its registers in host registers, then the
//! next lane.
//!
//! The function is `extern "C" fn(regs: *mut u64, mask: u32, ctx: *mut Ctx) -> u64`. It
//! returns 0 when every active lane ran through, or `l + 1` when lane `l` failed a check
//! (lanes before it are done, with their old values of the registers in `Seg::undo` saved in
//! `ctx.undo`; lane `l` changed nothing). Each op computes the bits its lane function in
//! [`crate::sem`] computes: registers are 64-bit slots holding the value zero-extended from
//! its width, as `sem::Val::put` writes them.

use super::plan::Seg;
use super::Ctx;
use crate::ir::*;
use crate::sem::{Cmp, FBin, IBin};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8};
use cranelift_codegen::ir::{
    AbiParam, Function, InstBuilder, MemFlagsData as MemFlags, Signature, Type, UserFuncName, Value,
};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::HashMap;
use std::mem::offset_of;

/// The machine code of one segment: position independent (no relocations), so it can be
/// copied anywhere executable.
pub fn segment(isa: &dyn TargetIsa, prog: &Program, seg: &Seg) -> Result<Vec<u8>, String> {
    let mut sig = Signature::new(isa.default_call_conv());
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I32));
    sig.params.push(AbiParam::new(I64));
    sig.returns.push(AbiParam::new(I64));
    let mut func = Function::with_name_signature(UserFuncName::user(0, seg.start), sig);
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let mut e = Emit::new(&mut b);
        e.body(prog, seg);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());
    }
    let mut ctx = Context::for_function(func);
    let code = ctx
        .compile(isa, &mut Default::default())
        .map_err(|e| format!("{:?}", e.inner))?;
    if !code.buffer.relocs().is_empty() {
        return Err("code needs relocations".into());
    }
    Ok(code.code_buffer().to_vec())
}

struct Emit<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    vars: HashMap<Reg, Variable>,
    /// Per lane: the lane's slot of register 0 (`regs + l * 8`).
    lp: Value,
    ctx: Value,
    lane: Variable,
    count: Variable,
    fail: cranelift_codegen::ir::Block,
}

/// Flags of accesses the function makes to the register file and `Ctx`: in bounds, aligned.
fn own() -> MemFlags {
    MemFlags::trusted()
}

impl<'a, 'b> Emit<'a, 'b> {
    fn new(b: &'a mut FunctionBuilder<'b>) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let lane = b.declare_var(I64);
        let count = b.declare_var(I64);
        let zero = b.ins().iconst(I64, 0);
        b.def_var(lane, zero);
        b.def_var(count, zero);
        let [_, _, ctx] = b.block_params(entry).try_into().unwrap();
        let fail = b.create_block();
        Emit {
            b,
            vars: HashMap::new(),
            lp: zero,
            ctx,
            lane,
            count,
            fail,
        }
    }

    fn body(&mut self, prog: &Program, seg: &Seg) {
        let entry = self.b.current_block().unwrap();
        let [regs, mask, _] = self.b.block_params(entry).try_into().unwrap();
        let head = self.b.create_block();
        let check = self.b.create_block();
        let body = self.b.create_block();
        let next = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[]);

        // head: while lane < 32
        self.b.switch_to_block(head);
        let l = self.b.use_var(self.lane);
        let done = self.b.ins().icmp_imm_u(IntCC::Equal, l, 32);
        self.b.ins().brif(done, exit, &[], check, &[]);

        // check: skip inactive lanes
        self.b.switch_to_block(check);
        let l32 = self.b.ins().ireduce(I32, l);
        let bit = self.b.ins().ushr(mask, l32);
        let bit = self.b.ins().band_imm_u(bit, 1);
        self.b.ins().brif(bit, body, &[], next, &[]);

        // body: the lane's run through the segment
        self.b.switch_to_block(body);
        let off = self.b.ins().ishl_imm_u(l, 3);
        self.lp = self.b.ins().iadd(regs, off);
        for &r in &seg.ins {
            let v = self.b.ins().load(I64, own(), self.lp, r as i32 * 256);
            if seg.undo.contains(&r) {
                let j = seg.undo.iter().position(|&x| x == r).unwrap() as i32;
                let undo = self
                    .b
                    .ins()
                    .load(I64, own(), self.ctx, offset_of!(Ctx, undo) as i32);
                let at = self.b.ins().iadd(undo, off);
                self.b.ins().store(own(), v, at, j * 256);
            }
            let var = self.var(r);
            self.b.def_var(var, v);
        }
        for pc in seg.start..seg.end {
            self.inst(&prog.insts[pc as usize]);
        }
        for &r in &seg.outs {
            let v = self.get(Src::Reg(r));
            self.b.ins().store(own(), v, self.lp, r as i32 * 256);
        }
        self.b.ins().jump(next, &[]);

        // next: lane + 1
        self.b.switch_to_block(next);
        let l = self.b.use_var(self.lane);
        let l1 = self.b.ins().iadd_imm_s(l, 1);
        self.b.def_var(self.lane, l1);
        self.b.ins().jump(head, &[]);

        // exit: publish the guarded ops' count
        self.b.switch_to_block(exit);
        self.store_count();
        let zero = self.b.ins().iconst(I64, 0);
        self.b.ins().return_(&[zero]);

        // fail: lane + 1
        self.b.switch_to_block(self.fail);
        self.store_count();
        let l = self.b.use_var(self.lane);
        let r = self.b.ins().iadd_imm_s(l, 1);
        self.b.ins().return_(&[r]);
    }

    fn store_count(&mut self) {
        let c = self.b.use_var(self.count);
        self.b
            .ins()
            .store(own(), c, self.ctx, offset_of!(Ctx, count) as i32);
    }

    fn var(&mut self, r: Reg) -> Variable {
        if let Some(v) = self.vars.get(&r) {
            return *v;
        }
        let v = self.b.declare_var(I64);
        self.vars.insert(r, v);
        v
    }

    fn get(&mut self, s: Src) -> Value {
        match s {
            Src::Imm(v) => self.b.ins().iconst(I64, v as i64),
            Src::Reg(r) => {
                let v = self.var(r);
                self.b.use_var(v)
            }
        }
    }

    fn set(&mut self, r: Reg, v: Value) {
        let var = self.var(r);
        self.b.def_var(var, v);
    }

    /// The low `bits` bits of a slot, zero-extended (`sem::Val::put` of a `bits`-wide value).
    fn low_bits(&mut self, v: Value, bits: u32) -> Value {
        match bits {
            64.. => v,
            b => self.b.ins().band_imm_u(v, ((1u64 << b) - 1) as i64),
        }
    }

    /// The low `ty` bits of a slot.
    fn narrow(&mut self, v: Value, ty: Type) -> Value {
        if ty == I64 {
            v
        } else {
            self.b.ins().ireduce(ty, v)
        }
    }

    /// A `ty` value as a slot, zero-extended.
    fn widen(&mut self, v: Value, ty: Type) -> Value {
        if ty == I64 {
            v
        } else {
            self.b.ins().uextend(I64, v)
        }
    }

    fn float_in(&mut self, s: Src, ty: Type) -> Value {
        let v = self.get(s);
        let i = if ty == F32 { self.narrow(v, I32) } else { v };
        self.b.ins().bitcast(ty, MemFlags::new(), i)
    }

    fn float_out(&mut self, v: Value, ty: Type) -> Value {
        if ty == F32 {
            let i = self.b.ins().bitcast(I32, MemFlags::new(), v);
            self.widen(i, I32)
        } else {
            self.b.ins().bitcast(I64, MemFlags::new(), v)
        }
    }

    fn inst(&mut self, inst: &Inst) {
        let Some((p, neg)) = inst.guard else {
            self.op(&inst.op);
            return;
        };
        let pv = self.get(Src::Reg(p));
        let pv = self.b.ins().band_imm_u(pv, 1);
        let on = if neg {
            self.b.ins().bxor_imm_u(pv, 1)
        } else {
            pv
        };
        let c = self.b.use_var(self.count);
        let c = self.b.ins().iadd(c, on);
        self.b.def_var(self.count, c);
        // The op runs in a block of its own, entered when the guard holds: the frontend joins
        // each register it writes with the register's old value.
        let run = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(on, run, &[], join, &[]);
        self.b.switch_to_block(run);
        self.op(&inst.op);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    fn op(&mut self, op: &Op) {
        match op {
            Op::Un { op, d, a, .. } => match op.op() {
                UnOp::Mov { bits } => {
                    let v = self.get(*a);
                    let v = self.low_bits(v, bits);
                    self.set(*d, v);
                }
                _ => unreachable!(),
            },
            Op::Bin { op, d, a, b, .. } => {
                let v = self.bin(op.op(), *a, *b);
                self.set(*d, v);
            }
            Op::Ter { op, d, a, b, c, .. } => {
                let v = self.ter(op.op(), *a, *b, *c);
                self.set(*d, v);
            }
            Op::Setp {
                op, a, b, d, dn, ..
            } => {
                let t = self.cmp(op.op(), *a, *b);
                let t = self.b.ins().uextend(I64, t);
                if let Some(d) = d {
                    self.set(*d, t);
                }
                if let Some(dn) = dn {
                    let f = self.b.ins().bxor_imm_u(t, 1);
                    self.set(*dn, f);
                }
            }
            Op::Ld {
                space,
                size,
                sext,
                n,
                d,
                addr,
            } => {
                let len = *size as u64 * *n as u64;
                let p = self.place(*space, *addr, len);
                for (k, dk) in d.iter().enumerate().take(*n as usize) {
                    let Some(r) = dk else { continue };
                    let off = (k * *size as usize) as i32;
                    let f = MemFlags::trusted();
                    let v = match (size, sext) {
                        (1, false) => self.b.ins().uload8(I64, f, p, off),
                        (1, true) => self.b.ins().sload8(I64, f, p, off),
                        (2, false) => self.b.ins().uload16(I64, f, p, off),
                        (2, true) => self.b.ins().sload16(I64, f, p, off),
                        (4, false) => self.b.ins().uload32(f, p, off),
                        (4, true) => self.b.ins().sload32(f, p, off),
                        _ => self.b.ins().load(I64, f, p, off),
                    };
                    self.set(*r, v);
                }
            }
            Op::St {
                space,
                size,
                n,
                sink,
                s,
                addr,
            } => {
                let len = *size as u64 * *n as u64;
                let vals: Vec<(usize, Value)> = (0..*n as usize)
                    .filter(|k| sink & (1 << k) == 0)
                    .map(|k| (k, self.get(s[k])))
                    .collect();
                let p = self.place(*space, *addr, len);
                for (k, v) in vals {
                    let off = (k * *size as usize) as i32;
                    let f = MemFlags::trusted();
                    match size {
                        1 => self.b.ins().istore8(f, v, p, off),
                        2 => self.b.ins().istore16(f, v, p, off),
                        4 => self.b.ins().istore32(f, v, p, off),
                        _ => self.b.ins().store(f, v, p, off),
                    };
                }
            }
            _ => unreachable!("not a compiled op"),
        }
    }

    /// The host pointer of this lane's access of `len` bytes at `addr`, after the checks the
    /// interpreter's fast paths make (`Cta::own_shared`, `Cta::place_warp` through the
    /// per-worker cache of allocations); a failed check leaves for the `fail` block.
    fn place(&mut self, space: MSpace, addr: Addr, len: u64) -> Value {
        let a = match addr.base {
            Some(r) => {
                let v = self.get(Src::Reg(r));
                self.b.ins().iadd_imm_s(v, addr.off)
            }
            None => self.b.ins().iconst(I64, addr.off),
        };
        let align = len.min(16).next_power_of_two();
        let mis = self.b.ins().band_imm_u(a, (align - 1) as i64);
        let ok = self.b.ins().icmp_imm_u(IntCC::Equal, mis, 0);
        let f = MemFlags::trusted();
        match space {
            MSpace::Shared => {
                // Below 2^24 (no cluster rank field: this CTA's own memory) and ending inside it.
                let high = self.b.ins().ushr_imm_u(a, CLUSTER_RANK_SHIFT as i64);
                let own = self.b.ins().icmp_imm_u(IntCC::Equal, high, 0);
                let end = self.b.ins().iadd_imm_s(a, len as i64);
                let slen = self
                    .b
                    .ins()
                    .load(I64, f, self.ctx, offset_of!(Ctx, shared_len) as i32);
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, slen);
                let ok = self.b.ins().band(ok, own);
                let ok = self.b.ins().band(ok, inside);
                self.branch_ok(ok);
                let base = self
                    .b
                    .ins()
                    .load(I64, f, self.ctx, offset_of!(Ctx, shared) as i32);
                self.b.ins().iadd(base, a)
            }
            MSpace::Global => {
                // [a, a + len) inside one of the cached allocations (no wrap: a + len is
                // compared only when a itself is inside).
                let end = self.b.ins().iadd_imm_s(a, len as i64);
                let wrap = self.b.ins().icmp(IntCC::UnsignedLessThan, end, a);
                let nowrap = self.b.ins().bxor_imm_u(wrap, 1);
                let mut any = self.b.ins().iconst(I8, 0);
                for k in 0..super::GCACHE {
                    let at = (offset_of!(Ctx, gcache) + k * 16) as i32;
                    let lo = self.b.ins().load(I64, f, self.ctx, at);
                    let hi = self.b.ins().load(I64, f, self.ctx, at + 8);
                    let ge = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, lo);
                    let le = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, hi);
                    let hit = self.b.ins().band(ge, le);
                    any = self.b.ins().bor(any, hit);
                }
                let ok = self.b.ins().band(ok, any);
                let ok = self.b.ins().band(ok, nowrap);
                self.branch_ok(ok);
                a
            }
            _ => unreachable!(),
        }
    }

    fn branch_ok(&mut self, ok: Value) {
        let cont = self.b.create_block();
        self.b.ins().brif(ok, cont, &[], self.fail, &[]);
        self.b.switch_to_block(cont);
    }

    fn int_ty(t: Scalar) -> (Type, bool) {
        let (bits, signed) = t.int().unwrap();
        (
            match bits {
                16 => I16,
                32 => I32,
                _ => I64,
            },
            signed,
        )
    }

    fn fty(t: Scalar) -> Type {
        if t == Scalar::F64 {
            F64
        } else {
            F32
        }
    }

    fn bin(&mut self, op: BinOp, a: Src, b: Src) -> Value {
        match op {
            BinOp::Int(op, t) => {
                let (ty, signed) = Self::int_ty(t);
                let x = self.get(a);
                let x = self.narrow(x, ty);
                let yv = self.get(b);
                let bits = ty.bits() as i64;
                let r = match op {
                    IBin::Shl | IBin::Shr => {
                        // The amount is an unsigned 32-bit value; past the width, shl gives 0,
                        // shr.u 0 and shr.s the sign.
                        let amt = self.narrow(yv, I32);
                        let big =
                            self.b
                                .ins()
                                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, amt, bits);
                        let lim = self.b.ins().iconst(I32, bits - 1);
                        let m = self.b.ins().umin(amt, lim);
                        let m = if ty == I32 { m } else { self.widen_to(m, ty) };
                        match (op, signed) {
                            (IBin::Shl, _) => {
                                let s = self.b.ins().ishl(x, m);
                                let z = self.b.ins().iconst(ty, 0);
                                self.b.ins().select(big, z, s)
                            }
                            (_, true) => self.b.ins().sshr(x, m),
                            _ => {
                                let s = self.b.ins().ushr(x, m);
                                let z = self.b.ins().iconst(ty, 0);
                                self.b.ins().select(big, z, s)
                            }
                        }
                    }
                    _ => {
                        let y = self.narrow(yv, ty);
                        let i = self.b.ins();
                        match (op, signed) {
                            (IBin::Add, _) => i.iadd(x, y),
                            (IBin::Sub, _) => i.isub(x, y),
                            (IBin::MulLo, _) => i.imul(x, y),
                            (IBin::And, _) => i.band(x, y),
                            (IBin::Or, _) => i.bor(x, y),
                            (IBin::Xor, _) => i.bxor(x, y),
                            (IBin::Min, true) => i.smin(x, y),
                            (IBin::Min, false) => i.umin(x, y),
                            (IBin::Max, true) => i.smax(x, y),
                            (IBin::Max, false) => i.umax(x, y),
                            _ => unreachable!(),
                        }
                    }
                };
                self.widen(r, ty)
            }
            BinOp::MulWide(t) => {
                let (_, signed) = Self::int_ty(t);
                let x = self.get(a);
                let y = self.get(b);
                let (x, y) = (self.narrow(x, I32), self.narrow(y, I32));
                let i = self.b.ins();
                let (x, y) = if signed {
                    (i.sextend(I64, x), self.b.ins().sextend(I64, y))
                } else {
                    (i.uextend(I64, x), self.b.ins().uextend(I64, y))
                };
                self.b.ins().imul(x, y)
            }
            BinOp::Float { op, ty, .. } => {
                let fty = Self::fty(ty);
                let x = self.float_in(a, fty);
                let y = self.float_in(b, fty);
                let r = match op {
                    FBin::Add => self.b.ins().fadd(x, y),
                    FBin::Sub => self.b.ins().fsub(x, y),
                    FBin::Mul => self.b.ins().fmul(x, y),
                    _ => unreachable!(),
                };
                let r = self.first_nan(r, &[x, y], fty);
                self.float_out(r, fty)
            }
            _ => unreachable!(),
        }
    }

    /// `sem::float`'s `first_nan!`: the first NaN operand, quieted, else `r`.
    fn first_nan(&mut self, r: Value, ops: &[Value], ty: Type) -> Value {
        let ity = if ty == F32 { I32 } else { I64 };
        let quiet = if ty == F32 {
            crate::sem::float::QUIET32 as i64
        } else {
            crate::sem::float::QUIET64 as i64
        };
        let mut out = r;
        for &x in ops.iter().rev() {
            let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
            let bits = self.b.ins().bitcast(ity, MemFlags::new(), x);
            let q = self.b.ins().bor_imm_u(bits, quiet);
            let q = self.b.ins().bitcast(ty, MemFlags::new(), q);
            out = self.b.ins().select(nan, q, out);
        }
        out
    }

    fn widen_to(&mut self, v: Value, ty: Type) -> Value {
        if ty.bits() > 32 {
            self.b.ins().uextend(ty, v)
        } else {
            self.b.ins().ireduce(ty, v)
        }
    }

    fn ter(&mut self, op: TerOp, a: Src, b: Src, c: Src) -> Value {
        match op {
            TerOp::MadLo(t) => {
                let (ty, _) = Self::int_ty(t);
                let x = self.get(a);
                let y = self.get(b);
                let z = self.get(c);
                let (x, y, z) = (self.narrow(x, ty), self.narrow(y, ty), self.narrow(z, ty));
                let m = self.b.ins().imul(x, y);
                let r = self.b.ins().iadd(m, z);
                self.widen(r, ty)
            }
            TerOp::Selp { bits } => {
                let x = self.get(a);
                let y = self.get(b);
                let p = self.get(c);
                let p = self.b.ins().band_imm_u(p, 1);
                let r = self.b.ins().select(p, x, y);
                self.low_bits(r, bits)
            }
            TerOp::Fma { ty, .. } => {
                let fty = Self::fty(ty);
                let x = self.float_in(a, fty);
                let y = self.float_in(b, fty);
                let z = self.float_in(c, fty);
                let r = self.b.ins().fma(x, y, z);
                let r = self.first_nan(r, &[x, y, z], fty);
                self.float_out(r, fty)
            }
            _ => unreachable!(),
        }
    }

    /// 0 or 1, as an I8.
    fn cmp(&mut self, op: CmpOp, a: Src, b: Src) -> Value {
        match op {
            CmpOp::Int(c, t) => {
                let (ty, signed) = Self::int_ty(t);
                let x = self.get(a);
                let y = self.get(b);
                let (x, y) = (self.narrow(x, ty), self.narrow(y, ty));
                let cc = match (c, signed) {
                    (Cmp::Eq, _) => IntCC::Equal,
                    (Cmp::Ne, _) => IntCC::NotEqual,
                    (Cmp::Lt, true) => IntCC::SignedLessThan,
                    (Cmp::Le, true) => IntCC::SignedLessThanOrEqual,
                    (Cmp::Gt, true) => IntCC::SignedGreaterThan,
                    (Cmp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
                    (Cmp::Lt, false) => IntCC::UnsignedLessThan,
                    (Cmp::Le, false) => IntCC::UnsignedLessThanOrEqual,
                    (Cmp::Gt, false) => IntCC::UnsignedGreaterThan,
                    (Cmp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
                    _ => unreachable!(),
                };
                self.b.ins().icmp(cc, x, y)
            }
            CmpOp::Float(c, t) => {
                let fty = Self::fty(t);
                let x = self.float_in(a, fty);
                let y = self.float_in(b, fty);
                // As `sem::cmp::cmp_float`: ordered comparisons are false on NaN, the `u`
                // forms true.
                let cc = match c {
                    Cmp::Eq => FloatCC::Equal,
                    Cmp::Ne => FloatCC::OrderedNotEqual,
                    Cmp::Lt => FloatCC::LessThan,
                    Cmp::Le => FloatCC::LessThanOrEqual,
                    Cmp::Gt => FloatCC::GreaterThan,
                    Cmp::Ge => FloatCC::GreaterThanOrEqual,
                    Cmp::Equ => FloatCC::UnorderedOrEqual,
                    Cmp::Neu => FloatCC::NotEqual,
                    Cmp::Ltu => FloatCC::UnorderedOrLessThan,
                    Cmp::Leu => FloatCC::UnorderedOrLessThanOrEqual,
                    Cmp::Gtu => FloatCC::UnorderedOrGreaterThan,
                    Cmp::Geu => FloatCC::UnorderedOrGreaterThanOrEqual,
                    Cmp::Num => FloatCC::Ordered,
                    Cmp::Nan => FloatCC::Unordered,
                };
                self.b.ins().fcmp(cc, x, y)
            }
        }
    }
}
