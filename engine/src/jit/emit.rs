//! Cranelift code for one segment ([`super::plan::Seg`]): the segment's ops op after op over
//! the warp's lanes as host vectors, [`LANES`] lanes per pass (see [`super`] for why).
//!
//! The function is `extern "C" fn(regs: *mut u64, mask: u32, ctx: *mut Ctx) -> u64`. It
//! returns 0 when every active lane ran through, or `l + 1` when a check failed in the pass
//! starting at lane `l` (lanes before it are done, with their old values of the registers in
//! `Seg::undo` saved in `ctx.undo`; the pass's lanes changed no register). Each op computes,
//! lane by lane, the bits its lane function in [`crate::sem`] computes: registers are 64-bit
//! slots holding the value zero-extended from its width, as `sem::Val::put` writes them.
//!
//! Values: a register's lanes are kept as `i32x4` vectors of their low 32 bits ([`Val::lo`],
//! one per four lanes) when the op that wrote them made 32-bit (or narrower) values, as
//! `i64x2` pairs of whole slots ([`Val::full`]) otherwise; the other view is derived when an op
//! needs it (a shuffle or a widening). Registers are read from the register file when a pass
//! starts and written back when it ends, so a failed check leaves them as they were.
//!
//! Memory: accesses whose base register [`super::plan::shapes`] predicts at `u + k * lane` form
//! groups per value of the base ([`Group`]), checked once per pass (the lanes lie so, and one
//! range covers every access of the group); the accesses are then straight code, and stores
//! by part of the pass go lane by lane. Other accesses go lane by lane through stack buffers,
//! each lane checked, in lane order.

use super::plan::{Seg, Shape};
use super::Ctx;
use crate::ir::operands::{operands, Operands};
use crate::ir::*;
use crate::sem::{Cmp, FBin, IBin};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, F64X2, I32, I32X4, I64, I64X2, I8, I8X16};
use cranelift_codegen::ir::{
    AbiParam, Block, ConstantData, Endianness, Function, InstBuilder, MemFlagsData as MemFlags,
    Signature, StackSlot, StackSlotData, StackSlotKind, Type, UserFuncName, Value,
};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::HashMap;
use std::mem::offset_of;

/// Four-lane groups per pass: 2 (eight lanes) measured best, compiling included; 8 (the whole
/// warp, no loop, no undo) runs fastest but compiles slowest (see the module comment of
/// [`super`]).
pub const G: usize = 2;
/// Lanes per pass.
pub const LANES: usize = 4 * G;
const PASSES: usize = 32 / LANES;
const PASS_BITS: u64 = if LANES == 32 {
    u32::MAX as u64
} else {
    (1 << LANES) - 1
};

/// The machine code of one segment: position independent (no relocations), so it can be
/// copied anywhere executable.
pub fn segment(
    isa: &dyn TargetIsa,
    prog: &Program,
    seg: &Seg,
    shapes: &[Shape],
) -> Result<Vec<u8>, String> {
    let mut sig = Signature::new(isa.default_call_conv());
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I32));
    sig.params.push(AbiParam::new(I64));
    sig.returns.push(AbiParam::new(I64));
    let mut func = Function::with_name_signature(UserFuncName::user(0, seg.start), sig);
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let mut e = Emit::new(&mut b, isa.default_call_conv());
        e.groups(prog, seg, shapes);
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

/// A register's lanes of the current pass.
#[derive(Clone)]
struct Val {
    /// Per four lanes, the low 32 bits of each slot (`i32x4`).
    lo: Option<Vec<Value>>,
    /// Per two lanes, the whole slots (`i64x2`).
    full: Option<Vec<Value>>,
    /// Whether each slot is `lo` zero-extended (then `full` may be left out).
    zext: bool,
}

impl Val {
    fn lo(v: Vec<Value>) -> Val {
        Val {
            lo: Some(v),
            full: None,
            zext: true,
        }
    }
    fn full(v: Vec<Value>) -> Val {
        Val {
            lo: None,
            full: Some(v),
            zext: false,
        }
    }
}

/// The accesses of a segment from one value of one base register (or none) in one space,
/// whose base the plan predicts affine over the lanes ([`super::plan::Shape`]): checked once
/// per pass, for all of them.
#[derive(Clone)]
struct Group {
    base: Option<Reg>,
    space: MSpace,
    /// Bytes between consecutive lanes' base values.
    k: i64,
    /// The lowest byte any lane's access touches, relative to lane 0's base value, and the
    /// bytes from there to the end of the highest.
    lo: i64,
    span: u64,
    /// The largest alignment an access of the group needs.
    align: u64,
}

struct Emit<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    vals: HashMap<Reg, Val>,
    groups: Vec<Group>,
    /// Per access (its pc), its group.
    acc_group: HashMap<u32, usize>,
    /// Per group, its checked host address in this pass.
    checked: HashMap<usize, Value>,
    /// The op being emitted.
    pc: u32,
    ctx: Value,
    /// This pass's slot of register 0 (`regs + pass * LANES * 8`).
    rp: Value,
    /// Active lanes of this pass (I64, bit l for lane `pass * LANES + l`).
    bits: Value,
    /// Per four lanes: the active lanes as an `i32x4` mask.
    amask: Vec<Value>,
    pass: Variable,
    count: Variable,
    /// `count` when the pass started: what a stopped run with an atomic reports (its
    /// finished passes' and iterations').
    count0: Variable,
    /// `count` when the iteration started: what a stopped run without one reports (its
    /// finished iterations').
    count_it: Variable,
    /// Back edges taken so far (a loop body's segment, [`Seg::back`]).
    iters: Variable,
    fail: Block,
    /// Addresses of the lane-by-lane path (one I64 per lane).
    addr_slot: StackSlot,
    /// Values of the lane-by-lane path: element k of lane l at `k * 128 + l * 4` (32-bit and
    /// narrower) or `k * 256 + l * 8` (64-bit).
    buf_slot: StackSlot,
    /// The lane of the current [`Emit::lane_each`] loop's body.
    lane_l: Value,
    call_conv: cranelift_codegen::isa::CallConv,
    /// A segment with a deferred store ([`Seg::defer`]): its values (element `k` of lane `l`
    /// at `k * 256 + l * 8` for 64-bit elements, `k * 128 + l * 4` for narrower ones), and per
    /// pass its checked host address and its storing lanes (at `16 * pass` and `+ 8`).
    defer: Option<(StackSlot, StackSlot)>,
    /// The deferred store, once emitted.
    deferred: Option<Deferred>,
}

/// What the end of a segment needs to do its deferred store ([`Seg::defer`]).
#[derive(Clone)]
struct Deferred {
    size: u8,
    /// Which elements are stored (not sunk).
    elems: Vec<bool>,
    k: i64,
    off: i64,
}

/// Flags of accesses the function makes to the register file, `Ctx` and its stack.
fn own() -> MemFlags {
    MemFlags::trusted()
}

fn little() -> MemFlags {
    MemFlags::new().with_endianness(Endianness::Little)
}

impl<'a, 'b> Emit<'a, 'b> {
    fn new(b: &'a mut FunctionBuilder<'b>, call_conv: cranelift_codegen::isa::CallConv) -> Self {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let pass = b.declare_var(I64);
        let count = b.declare_var(I64);
        let count0 = b.declare_var(I64);
        let count_it = b.declare_var(I64);
        let iters = b.declare_var(I64);
        let zero = b.ins().iconst(I64, 0);
        for v in [pass, count, count0, count_it, iters] {
            b.def_var(v, zero);
        }
        let [_, _, ctx] = b.block_params(entry).try_into().unwrap();
        let fail = b.create_block();
        let addr_slot =
            b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 256, 4));
        let buf_slot =
            b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 512, 4));
        Emit {
            b,
            vals: HashMap::new(),
            groups: Vec::new(),
            acc_group: HashMap::new(),
            checked: HashMap::new(),
            pc: 0,
            ctx,
            rp: zero,
            bits: zero,
            amask: Vec::new(),
            pass,
            count,
            count0,
            count_it,
            iters,
            fail,
            addr_slot,
            buf_slot,
            lane_l: zero,
            call_conv,
            defer: None,
            deferred: None,
        }
    }

    /// The segment's accesses whose base the plan predicts affine, in groups by base value.
    fn groups(&mut self, prog: &Program, seg: &Seg, shapes: &[Shape]) {
        let mut defs: HashMap<Reg, u32> = HashMap::new();
        let mut by_key: HashMap<(Option<Reg>, u32, bool), usize> = HashMap::new();
        // Per group: lowest offset, highest end.
        let mut ext: Vec<(i64, i64)> = Vec::new();
        let mut ops = Operands::default();
        for pc in seg.start..seg.end {
            let inst = &prog.insts[pc as usize];
            let acc = match &inst.op {
                // (Parameters: a scalar load of their own, `Emit::param`.)
                Op::Ld {
                    space: MSpace::KParam,
                    ..
                } => None,
                Op::Ld {
                    space,
                    size,
                    n,
                    addr,
                    ..
                }
                | Op::St {
                    space,
                    size,
                    n,
                    addr,
                    ..
                } => Some((*space, *size as i64 * *n as i64, *addr)),
                _ => None,
            };
            if let Some((space, len, addr)) = acc {
                let align = (len as u64).min(16).next_power_of_two() as i64;
                if let Some(k) = super::plan::group_stride(shapes, addr, len) {
                    let key = (
                        addr.base,
                        addr.base.map_or(0, |r| *defs.get(&r).unwrap_or(&0)),
                        space == MSpace::Shared,
                    );
                    let g = *by_key.entry(key).or_insert_with(|| {
                        self.groups.push(Group {
                            base: addr.base,
                            space,
                            k,
                            lo: 0,
                            span: 0,
                            align: 1,
                        });
                        ext.push((i64::MAX, i64::MIN));
                        self.groups.len() - 1
                    });
                    ext[g].0 = ext[g].0.min(addr.off);
                    ext[g].1 = ext[g].1.max(addr.off + len);
                    self.groups[g].align = self.groups[g].align.max(align as u64);
                    self.acc_group.insert(pc, g);
                }
            }
            operands(prog, 0, inst, &mut ops);
            for &r in &ops.defs {
                *defs.entry(r).or_insert(0) += 1;
            }
        }
        for (g, &(lo, hi)) in self.groups.iter_mut().zip(&ext) {
            let reach = (LANES as i64 - 1) * g.k;
            g.lo = lo + reach.min(0);
            g.span = (hi + reach.max(0) - g.lo) as u64;
        }
    }

    fn body(&mut self, prog: &Program, seg: &Seg) {
        let entry = self.b.current_block().unwrap();
        let [regs, mask, _] = self.b.block_params(entry).try_into().unwrap();
        if seg.defer {
            let slot = |b: &mut FunctionBuilder, n| {
                b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, n, 4))
            };
            let vals = slot(self.b, 512);
            let at = slot(self.b, 16 * PASSES as u32);
            // (No lane stores in a pass that does not run.)
            let zero = self.b.ins().iconst(I64, 0);
            let a = self.b.ins().stack_addr(I64, at, 0);
            for p in 0..PASSES {
                self.b.ins().store(own(), zero, a, 16 * p as i32 + 8);
            }
            self.defer = Some((vals, at));
        }
        let head = self.b.create_block();
        let run = self.b.create_block();
        let next = self.b.create_block();
        let exit = self.b.create_block();
        // A loop over passes only when there are several: a loop would make Cranelift hoist
        // every constant of the body out of it, into spilled registers.
        if PASSES > 1 {
            self.b.ins().jump(head, &[]);
            // head: while pass < PASSES
            self.b.switch_to_block(head);
            let p = self.b.use_var(self.pass);
            let done = self.b.ins().icmp_imm_u(IntCC::Equal, p, PASSES as i64);
            self.b.ins().brif(done, exit, &[], run, &[]);
        } else {
            self.b.ins().jump(run, &[]);
        }

        // run: the pass's lanes through the segment (passes without active lanes skipped)
        self.b.switch_to_block(run);
        let p = self.b.use_var(self.pass);
        let off = self.b.ins().imul_imm_u(p, LANES as i64 * 8);
        self.rp = self.b.ins().iadd(regs, off);
        let m = self.b.ins().uextend(I64, mask);
        let sh = self.b.ins().imul_imm_u(p, LANES as i64);
        let m = self.b.ins().ushr(m, sh);
        self.bits = self.b.ins().band_imm_u(m, PASS_BITS as i64);
        let body = self.b.create_block();
        self.b.ins().brif(self.bits, body, &[], next, &[]);
        self.b.switch_to_block(body);
        let c = self.b.use_var(self.count);
        self.b.def_var(self.count0, c);
        self.amask = (0..G)
            .map(|g| {
                let b32 = self.b.ins().ireduce(I32, self.bits);
                let s = self.b.ins().splat(I32X4, b32);
                let k = self.vconst32([1 << (4 * g), 2 << (4 * g), 4 << (4 * g), 8 << (4 * g)]);
                let t = self.b.ins().band(s, k);
                let z = self.zero(I32X4);
                self.b.ins().icmp(IntCC::NotEqual, t, z)
            })
            .collect();
        if PASSES > 1 {
            // Keep the old values of the registers a stopped run restores (`Code::run`).
            for (j, &r) in seg.undo.iter().enumerate() {
                let undo = self
                    .b
                    .ins()
                    .load(I64, own(), self.ctx, offset_of!(Ctx, undo) as i32);
                let at = self.b.ins().iadd(undo, off);
                for k in 0..2 * G {
                    let v =
                        self.b
                            .ins()
                            .load(I64X2, own(), self.rp, r as i32 * 256 + 16 * k as i32);
                    self.b.ins().store(own(), v, at, (j * 256 + 16 * k) as i32);
                }
            }
        }
        self.vals.clear();
        self.checked.clear();
        for &r in &seg.ins {
            let v: Vec<Value> = (0..2 * G)
                .map(|k| {
                    self.b
                        .ins()
                        .load(I64X2, own(), self.rp, r as i32 * 256 + 16 * k as i32)
                })
                .collect();
            self.vals.insert(r, Val::full(v));
        }
        for pc in seg.start..seg.end {
            self.pc = pc;
            self.inst(&prog.insts[pc as usize]);
        }
        // Write back: plain stores when the whole pass is active, else merged with the slots.
        let outs: Vec<(Reg, Vec<Value>)> = seg
            .outs
            .iter()
            .map(|&r| (r, self.full(Src::Reg(r))))
            .collect();
        let wm = self.wide_masks(&self.amask.clone());
        let all = self
            .b
            .ins()
            .icmp_imm_u(IntCC::Equal, self.bits, PASS_BITS as i64);
        let plain = self.b.create_block();
        let merged = self.b.create_block();
        self.b.ins().brif(all, plain, &[], merged, &[]);
        self.b.switch_to_block(plain);
        for (r, v) in &outs {
            for (k, &x) in v.iter().enumerate() {
                self.b
                    .ins()
                    .store(own(), x, self.rp, *r as i32 * 256 + 16 * k as i32);
            }
        }
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(merged);
        for (r, v) in &outs {
            for (k, &x) in v.iter().enumerate() {
                let at = *r as i32 * 256 + 16 * k as i32;
                let old = self.b.ins().load(I64X2, own(), self.rp, at);
                let x = self.b.ins().bitselect(wm[k], x, old);
                self.b.ins().store(own(), x, self.rp, at);
            }
        }
        self.b.ins().jump(next, &[]);

        // next: pass + 1
        self.b.switch_to_block(next);
        if PASSES > 1 {
            let p = self.b.use_var(self.pass);
            let p1 = self.b.ins().iadd_imm_s(p, 1);
            self.b.def_var(self.pass, p1);
            self.b.ins().jump(head, &[]);
        } else {
            self.b.ins().jump(exit, &[]);
        }

        // exit: the deferred store, then again from the first pass (a loop body whose back
        // edge every active lane takes) or publish the guarded ops' count
        self.b.switch_to_block(exit);
        self.flush();
        if let Some(back) = seg.back {
            let first = if PASSES > 1 { head } else { run };
            self.back_edge(back, regs, mask, first);
        }
        self.store_count();
        let zero = self.b.ins().iconst(I64, 0);
        self.b.ins().return_(&[zero]);

        // fail: the first lane of the pass + 1 (and the count of what is kept: with an
        // atomic, the passes before it, else the iterations before it)
        self.b.switch_to_block(self.fail);
        let kept = if seg.atomic {
            self.count0
        } else {
            self.count_it
        };
        let c = self.b.use_var(kept);
        self.b.def_var(self.count, c);
        self.store_count();
        let p = self.b.use_var(self.pass);
        let l = self.b.ins().imul_imm_u(p, LANES as i64);
        let r = self.b.ins().iadd_imm_s(l, 1);
        self.b.ins().return_(&[r]);
    }

    /// The back edge of a loop body's segment, after its last pass and its deferred store:
    /// when every active lane's guard holds (`ctx.taken`) and fewer than `ctx.max_iters` have
    /// been taken, the next iteration starts at pass 0 (`head`); else the code continues in
    /// the current block, to return at the branch, which the interpreter then runs (divergent,
    /// not taken, or the time slice's last). Each iteration is a whole run of the segment, as
    /// if the interpreter had called it again: registers go through the register file, and
    /// the undo rows and the count of a stopped run are those of its last iteration.
    fn back_edge(&mut self, back: super::plan::Back, regs: Value, mask: Value, head: Block) {
        let taken = match back.guard {
            None => self.b.ins().iconst(I8, 1),
            Some((p, neg)) => {
                let bits = self.warp_pred_bits(regs, p);
                let bits = if neg { self.b.ins().bnot(bits) } else { bits };
                let m = self.b.ins().uextend(I64, mask);
                let t = self.b.ins().band(bits, m);
                self.b.ins().icmp(IntCC::Equal, t, m)
            }
        };
        let t64 = self.b.ins().uextend(I64, taken);
        (self.b.ins()).store(own(), t64, self.ctx, offset_of!(Ctx, taken) as i32);
        let n = self.b.use_var(self.iters);
        let max = (self.b.ins()).load(I64, own(), self.ctx, offset_of!(Ctx, max_iters) as i32);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, n, max);
        let go = self.b.ins().band(taken, more);
        let (again, ret) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(go, again, &[], ret, &[]);
        self.b.switch_to_block(again);
        let n1 = self.b.ins().iadd_imm_s(n, 1);
        self.b.def_var(self.iters, n1);
        (self.b.ins()).store(own(), n1, self.ctx, offset_of!(Ctx, iters) as i32);
        let c = self.b.use_var(self.count);
        self.b.def_var(self.count_it, c);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(self.pass, zero);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(ret);
    }

    /// The warp's lanes where predicate `p` (bit 0 of its slots in the register file) holds,
    /// as bits (I64, bit l for lane l), as the interpreter's `pred_mask` reads them.
    fn warp_pred_bits(&mut self, regs: Value, p: Reg) -> Value {
        let mut acc = self.b.ins().iconst(I64, 0);
        let s63 = self.b.ins().iconst(I32, 63);
        for k in 0..16 {
            let v = (self.b.ins()).load(I64X2, own(), regs, p as i32 * 256 + 16 * k);
            let v = self.b.ins().ishl(v, s63);
            let b = self.b.ins().vhigh_bits(I64, v);
            let b = self.b.ins().ishl_imm_u(b, 2 * k as i64);
            acc = self.b.ins().bor(acc, b);
        }
        acc
    }

    /// A deferred store in its pass: the group's checked address, the storing lanes and their
    /// values kept for [`Emit::flush`].
    #[allow(clippy::too_many_arguments)]
    fn defer_store(
        &mut self,
        pa: Value,
        k: i64,
        off: i64,
        size: u8,
        vals: &[Option<Vec<Value>>],
        on: Value,
    ) {
        let (vslot, aslot) = self.defer.expect("a deferring segment");
        let esz: i64 = if size == 8 { 8 } else { 4 };
        let p = self.b.use_var(self.pass);
        let po = self.b.ins().imul_imm_u(p, 16);
        let ab = self.b.ins().stack_addr(I64, aslot, 0);
        let at = self.b.ins().iadd(ab, po);
        self.b.ins().store(own(), pa, at, 0);
        self.b.ins().store(own(), on, at, 8);
        let vo = self.b.ins().imul_imm_u(p, LANES as i64 * esz);
        let vb = self.b.ins().stack_addr(I64, vslot, 0);
        let vb = self.b.ins().iadd(vb, vo);
        for (e, v) in vals.iter().enumerate() {
            let Some(v) = v else { continue };
            for (j, &x) in v.iter().enumerate() {
                let o = e as i64 * 32 * esz + 16 * j as i64;
                self.b.ins().store(own(), x, vb, o as i32);
            }
        }
        self.deferred = Some(Deferred {
            size,
            elems: vals.iter().map(|v| v.is_some()).collect(),
            k,
            off,
        });
    }

    /// The deferred store of every pass, in lane order, after all passed their checks:
    /// vector stores for a whole pass of consecutive lanes, else lane by lane.
    fn flush(&mut self) {
        let (Some((vslot, aslot)), Some(d)) = (self.defer, self.deferred.clone()) else {
            return;
        };
        let esz: i64 = if d.size == 8 { 8 } else { 4 };
        let f = MemFlags::trusted();
        // A dry run (`Ctx::dry`, verify mode) stores nothing.
        let (end, wet) = (self.b.create_block(), self.b.create_block());
        let dry = (self.b.ins()).load(I64, f, self.ctx, offset_of!(Ctx, dry) as i32);
        self.b.ins().brif(dry, end, &[], wet, &[]);
        self.b.switch_to_block(wet);
        let pv = self.b.declare_var(I64);
        let zero = self.b.ins().iconst(I64, 0);
        self.b.def_var(pv, zero);
        let (head, body, next) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let p = self.b.use_var(pv);
        let done = self.b.ins().icmp_imm_u(IntCC::Equal, p, PASSES as i64);
        self.b.ins().brif(done, end, &[], body, &[]);
        self.b.switch_to_block(body);
        let po = self.b.ins().imul_imm_u(p, 16);
        let ab = self.b.ins().stack_addr(I64, aslot, 0);
        let at = self.b.ins().iadd(ab, po);
        let pa = self.b.ins().load(I64, own(), at, 0);
        let on = self.b.ins().load(I64, own(), at, 8);
        let vo = self.b.ins().imul_imm_u(p, LANES as i64 * esz);
        let vb = self.b.ins().stack_addr(I64, vslot, 0);
        let vb = self.b.ins().iadd(vb, vo);
        let slow = self.b.create_block();
        if d.k == d.size as i64 && d.elems == [true] && (d.size == 4 || d.size == 8) {
            let fast = self.b.create_block();
            let all = self.b.ins().icmp_imm_u(IntCC::Equal, on, PASS_BITS as i64);
            self.b.ins().brif(all, fast, &[], slow, &[]);
            self.b.switch_to_block(fast);
            let ty = if d.size == 8 { I64X2 } else { I32X4 };
            for j in 0..(LANES as i64 * esz / 16) as i32 {
                let x = self.b.ins().load(ty, own(), vb, 16 * j);
                self.b.ins().store(f, x, pa, d.off as i32 + 16 * j);
            }
            self.b.ins().jump(next, &[]);
        } else {
            self.b.ins().jump(slow, &[]);
        }
        self.b.switch_to_block(slow);
        let (lh, _, after) = self.lane_each(on);
        let l = self.lane_l;
        let lk = self.b.ins().imul_imm_u(l, d.k);
        let a = self.b.ins().iadd(pa, lk);
        let lo = self.b.ins().imul_imm_u(l, esz);
        let vp = self.b.ins().iadd(vb, lo);
        let ty = if d.size == 8 { I64 } else { I32 };
        for (e, &stored) in d.elems.iter().enumerate() {
            if stored {
                let v = self
                    .b
                    .ins()
                    .load(ty, own(), vp, (e as i64 * 32 * esz) as i32);
                let o = (d.off + e as i64 * d.size as i64) as i32;
                self.scalar_store(v, a, o, d.size, f);
            }
        }
        self.b.ins().jump(lh, &[]);
        self.b.switch_to_block(after);
        self.b.ins().jump(next, &[]);
        self.b.switch_to_block(next);
        let p1 = self.b.ins().iadd_imm_s(p, 1);
        self.b.def_var(pv, p1);
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(end);
    }

    fn store_count(&mut self) {
        let c = self.b.use_var(self.count);
        self.b
            .ins()
            .store(own(), c, self.ctx, offset_of!(Ctx, count) as i32);
    }

    // ---- constants and views ----

    fn zero(&mut self, ty: Type) -> Value {
        match ty {
            I32X4 => self.vconst32([0; 4]),
            _ => self.vconst64([0; 2]),
        }
    }

    fn vconst32(&mut self, v: [u32; 4]) -> Value {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(I32X4, c)
    }

    fn vconst64(&mut self, v: [u64; 2]) -> Value {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(I64X2, c)
    }

    fn splat32(&mut self, v: u32) -> Value {
        self.vconst32([v; 4])
    }

    fn splat64(&mut self, v: u64) -> Value {
        self.vconst64([v; 2])
    }

    /// The low 32 bits of two `i64x2` as one `i32x4`.
    fn narrow(&mut self, a: Value, b: Value) -> Value {
        let a = self.b.ins().bitcast(I8X16, little(), a);
        let b = self.b.ins().bitcast(I8X16, little(), b);
        let mask: Vec<u8> = [0u8, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27].to_vec();
        let m = self.b.func.dfg.immediates.push(ConstantData::from(mask));
        let s = self.b.ins().shuffle(a, b, m);
        self.b.ins().bitcast(I32X4, little(), s)
    }

    /// Operand `s`'s lanes' low 32 bits, per four lanes.
    fn lo(&mut self, s: Src) -> Vec<Value> {
        let r = match s {
            Src::Imm(v) => {
                let c = self.splat32(v as u32);
                return vec![c; G];
            }
            Src::Reg(r) => r,
        };
        let v = self.vals.get(&r).expect("a segment's registers are loaded");
        if let Some(lo) = &v.lo {
            return lo.clone();
        }
        let full = v.full.clone().unwrap();
        let lo: Vec<Value> = (0..G)
            .map(|g| self.narrow(full[2 * g], full[2 * g + 1]))
            .collect();
        self.vals.get_mut(&r).unwrap().lo = Some(lo.clone());
        lo
    }

    /// Operand `s`'s whole slots, per two lanes.
    /// Each lane's address `base + off` of `addr`, as 64-bit lane vectors, also stored to the
    /// address slot at `slot_a` (lane `l` at `8 l`), where the lane-by-lane paths read them.
    fn lane_addresses(&mut self, addr: Addr, slot_a: Value) -> Vec<Value> {
        let bases = match addr.base {
            Some(r) => self.full(Src::Reg(r)),
            None => vec![self.splat64(0); 2 * G],
        };
        let off = self.splat64(addr.off as u64);
        let mut out = Vec::with_capacity(bases.len());
        for (j, &x) in bases.iter().enumerate() {
            let x = self.b.ins().iadd(x, off);
            self.b.ins().store(own(), x, slot_a, 16 * j as i32);
            out.push(x);
        }
        out
    }

    /// An atomic's operands in the buffer at `slot`: `a`'s lanes at 0, `b`'s (if any) at 256,
    /// whole 64-bit slots, as the interpreter passes them.
    fn spill_operands(&mut self, slot: Value, a: Src, b: Option<Src>) {
        for (o, s) in [(0, Some(a)), (256, b)] {
            let Some(s) = s else { continue };
            for (j, &x) in self.full(s).iter().enumerate() {
                self.b.ins().store(own(), x, slot, o + 16 * j as i32);
            }
        }
    }

    fn full(&mut self, s: Src) -> Vec<Value> {
        let r = match s {
            Src::Imm(v) => {
                let c = self.splat64(v);
                return vec![c; 2 * G];
            }
            Src::Reg(r) => r,
        };
        let v = self.vals.get(&r).expect("a segment's registers are loaded");
        if let Some(full) = &v.full {
            return full.clone();
        }
        debug_assert!(v.zext);
        let lo = v.lo.clone().unwrap();
        let full = self.widen(&lo, false);
        self.vals.get_mut(&r).unwrap().full = Some(full.clone());
        full
    }

    /// `i32x4`s as `i64x2` pairs, sign- or zero-extended.
    fn widen(&mut self, lo: &[Value], signed: bool) -> Vec<Value> {
        let mut out = Vec::with_capacity(2 * lo.len());
        for &x in lo {
            if signed {
                out.push(self.b.ins().swiden_low(x));
                out.push(self.b.ins().swiden_high(x));
            } else {
                out.push(self.b.ins().uwiden_low(x));
                out.push(self.b.ins().uwiden_high(x));
            }
        }
        out
    }

    /// `i32x4` lane masks as `i64x2` lane masks.
    fn wide_masks(&mut self, m: &[Value]) -> Vec<Value> {
        self.widen(m, true)
    }

    fn set(&mut self, r: Reg, v: Val) {
        self.vals.insert(r, v);
    }

    /// Per four lanes, the lanes where predicate `p` (bit 0 of its slots) is `!neg`.
    fn pred_mask(&mut self, p: Reg, neg: bool) -> Vec<Value> {
        let lo = self.lo(Src::Reg(p));
        let s31 = self.b.ins().iconst(I32, 31);
        lo.iter()
            .map(|&x| {
                let t = self.b.ins().ishl(x, s31);
                let m = self.b.ins().sshr(t, s31);
                if neg {
                    self.b.ins().bnot(m)
                } else {
                    m
                }
            })
            .collect()
    }

    /// Lane masks as bits (I64, bit l for lane l of the pass).
    fn mask_bits(&mut self, m: &[Value]) -> Value {
        let mut acc = self.b.ins().iconst(I64, 0);
        for (g, &x) in m.iter().enumerate() {
            let b = self.b.ins().vhigh_bits(I64, x);
            let b = self.b.ins().ishl_imm_u(b, 4 * g as i64);
            acc = self.b.ins().bor(acc, b);
        }
        acc
    }

    // ---- ops ----

    fn inst(&mut self, inst: &Inst) {
        let Some((p, neg)) = inst.guard else {
            self.op(&inst.op, None, self.bits);
            return;
        };
        let gm = self.pred_mask(p, neg);
        let gbits = self.mask_bits(&gm);
        let on = self.b.ins().band(gbits, self.bits);
        let n = self.b.ins().popcnt(on);
        let c = self.b.use_var(self.count);
        let c = self.b.ins().iadd(c, n);
        self.b.def_var(self.count, c);
        self.op(&inst.op, Some(&gm), on);
    }

    /// Writes `v` to `d` where guard mask `gm` holds (everywhere without one).
    fn write(&mut self, d: Reg, v: Val, gm: Option<&[Value]>) {
        let Some(gm) = gm else {
            self.set(d, v);
            return;
        };
        let old = self
            .vals
            .get(&d)
            .cloned()
            .expect("a guarded write reads its register");
        let out = if old.zext && v.zext {
            let (o, n) = (old.lo.clone().unwrap(), v.lo.clone().unwrap());
            let lo = (0..G)
                .map(|g| self.b.ins().bitselect(gm[g], n[g], o[g]))
                .collect();
            Val::lo(lo)
        } else {
            let o = self.full(Src::Reg(d));
            self.vals.insert(d, v);
            let n = self.full(Src::Reg(d));
            let wm = self.wide_masks(gm);
            let full = (0..2 * G)
                .map(|k| self.b.ins().bitselect(wm[k], n[k], o[k]))
                .collect();
            Val::full(full)
        };
        self.set(d, out);
    }

    fn op(&mut self, op: &Op, gm: Option<&[Value]>, on: Value) {
        match op {
            Op::Un { op, d, a, .. } => match op.op() {
                UnOp::Mov { bits } => {
                    let v = match (*a, bits) {
                        (Src::Reg(r), 64) => self.vals[&r].clone(),
                        (_, 64) => Val::full(self.full(*a)),
                        (_, 32) => Val::lo(self.lo(*a)),
                        _ => {
                            let x = self.lo(*a);
                            Val::lo(self.low_bits(&x, bits))
                        }
                    };
                    self.write(*d, v, gm);
                }
                _ => unreachable!(),
            },
            Op::Bin { op, d, a, b, .. } => {
                let v = self.bin(op.op(), *a, *b);
                self.write(*d, v, gm);
            }
            Op::Ter { op, d, a, b, c, .. } => {
                let v = self.ter(op.op(), *a, *b, *c);
                self.write(*d, v, gm);
            }
            Op::Setp {
                op, a, b, d, dn, ..
            } => {
                let m = self.cmp(op.op(), *a, *b);
                let one = self.splat32(1);
                if let Some(d) = d {
                    let t = m.iter().map(|&x| self.b.ins().band(x, one)).collect();
                    self.write(*d, Val::lo(t), gm);
                }
                if let Some(dn) = dn {
                    let f = m.iter().map(|&x| self.b.ins().band_not(one, x)).collect();
                    self.write(*dn, Val::lo(f), gm);
                }
            }
            Op::Cvt { d, a, dst, src, .. } => {
                let v = self.cvt_int(*a, *dst, *src);
                self.write(*d, v, gm);
            }
            Op::Sreg { d, s } => {
                let v = self.sreg(*s);
                self.write(*d, v, gm);
            }
            Op::Ld {
                space: MSpace::KParam,
                size,
                sext,
                d,
                addr,
                ..
            } => {
                let v = self.param(addr.off, *size, *sext);
                if let Some(r) = d[0] {
                    self.write(r, v, gm);
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
                let vals = self.access(*space, *addr, *size, *n, *sext, None, on);
                for (k, dk) in d.iter().enumerate().take(*n as usize) {
                    let Some(r) = dk else { continue };
                    let v = vals[k].clone();
                    self.write(*r, v, gm);
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
                let vals: Vec<Option<Vec<Value>>> = (0..*n as usize)
                    .map(|k| {
                        (sink & (1 << k) == 0).then(|| match size {
                            8 => self.full(s[k]),
                            _ => self.lo(s[k]),
                        })
                    })
                    .collect();
                self.access(*space, *addr, *size, *n, false, Some(&vals), on);
            }
            Op::Atom {
                space,
                op,
                ty,
                d,
                addr,
                a,
                b,
            } => {
                let v = match (space, ty) {
                    (MSpace::Shared, AtomTy::U32 | AtomTy::S32 | AtomTy::U64 | AtomTy::S64) => {
                        self.atomic_shared(*op, *ty, *addr, *a, *b, gm, on, d.is_some())
                    }
                    _ => Some(self.atomic(*space, *op, *ty, *addr, *a, *b, on)),
                };
                if let (Some(d), Some(v)) = (d, v) {
                    self.write(*d, v, gm);
                }
            }
            _ => unreachable!("not a compiled op"),
        }
    }

    /// A special register the plan admits: the launch's uniform geometry from `Ctx::sreg`,
    /// `%tid` from the warp's rows at `Ctx::tid`, `%laneid` the lane's number.
    fn sreg(&mut self, s: SReg) -> Val {
        let f = own();
        let uniform = |i: usize| (offset_of!(Ctx, sreg) + 4 * i) as i32;
        let at = match s {
            SReg::Ntid(k) => uniform(k as usize),
            SReg::Ctaid(k) => uniform(3 + k as usize),
            SReg::Nctaid(k) => uniform(6 + k as usize),
            SReg::Tid(k) => {
                let rows = self
                    .b
                    .ins()
                    .load(I64, f, self.ctx, offset_of!(Ctx, tid) as i32);
                let p = self.b.use_var(self.pass);
                let o = self.b.ins().imul_imm_u(p, LANES as i64 * 4);
                let at = self.b.ins().iadd(rows, o);
                let lo = (0..G)
                    .map(|g| {
                        let o = k as i32 * 128 + 16 * g as i32;
                        self.b.ins().load(I32X4, f, at, o)
                    })
                    .collect();
                return Val::lo(lo);
            }
            SReg::Laneid => {
                let p = self.b.use_var(self.pass);
                let l0 = self.b.ins().imul_imm_u(p, LANES as i64);
                let l0 = self.b.ins().ireduce(I32, l0);
                let l0 = self.b.ins().splat(I32X4, l0);
                let lo = (0..G)
                    .map(|g| {
                        let b = 4 * g as u32;
                        let k = self.vconst32([b, b + 1, b + 2, b + 3]);
                        self.b.ins().iadd(l0, k)
                    })
                    .collect();
                return Val::lo(lo);
            }
            _ => unreachable!("the plan admits only these special registers"),
        };
        let x = self.b.ins().load(I32, f, self.ctx, at);
        let v = self.b.ins().splat(I32X4, x);
        Val::lo(vec![v; G])
    }

    /// A kernel parameter's `size` bytes at offset `off` (aligned, the plan says), the same in
    /// every lane: the offset checked against `Ctx::params_len` as the interpreter's
    /// `Cta::place_warp` checks it, a failed check leaving for the interpreter (which reports
    /// the fault).
    fn param(&mut self, off: i64, size: u8, sext: bool) -> Val {
        let f = own();
        let len = self
            .b
            .ins()
            .load(I64, f, self.ctx, offset_of!(Ctx, params_len) as i32);
        let inside =
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, len, off + size as i64);
        self.branch_ok(inside);
        let p = self
            .b
            .ins()
            .load(I64, f, self.ctx, offset_of!(Ctx, params) as i32);
        let x = self.scalar_load(p, off as i32, size, sext);
        if size == 8 {
            let v = self.b.ins().splat(I64X2, x);
            Val::full(vec![v; 2 * G])
        } else {
            let v = self.b.ins().splat(I32X4, x);
            self.loaded(vec![v; G], size, sext)
        }
    }

    /// An `atom`/`red` by the lanes `on` of the pass, in lane order: on global memory (other
    /// host threads see it) a host atomic per lane, inline for the integer ops the host has,
    /// else through `exec::jit_atomic` (the interpreter's own), floats on shared memory
    /// through it too. First every lane's address is
    /// checked (a failed check then leaves before any lane of the pass changed memory, see
    /// `plan`), then the lanes run. The old values, as whole slots.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        space: MSpace,
        op: AtomOp,
        ty: AtomTy,
        addr: Addr,
        a: Src,
        b: Src,
        on: Value,
    ) -> Val {
        let w = crate::sem::atomic::atom_width(ty) as u64;
        let what = crate::exec::jit_atomic_what(op, ty, space == MSpace::Shared)
            .expect("the plan admits only these types");
        let slot_a = self.b.ins().stack_addr(I64, self.addr_slot, 0);
        let slot_v = self.b.ins().stack_addr(I64, self.buf_slot, 0);
        self.lane_addresses(addr, slot_a);
        self.spill_operands(slot_v, a, Some(b));
        // Pass 1: check every lane, the host pointer replacing the address.
        let (lh, lb, after) = self.lane_each(on);
        let l = self.lane_l;
        let l8 = self.b.ins().ishl_imm_u(l, 3);
        let at = self.b.ins().iadd(slot_a, l8);
        let x = self.b.ins().load(I64, own(), at, 0);
        let p = self.place(space, x, w, w);
        self.b.ins().store(own(), p, at, 0);
        self.b.ins().jump(lh, &[]);
        let _ = lb;
        self.b.switch_to_block(after);
        // Pass 2: the lanes' atomics in lane order, each old value over its lane's `a`.
        let mut sig = Signature::new(self.call_conv);
        for _ in 0..4 {
            sig.params.push(AbiParam::new(I64));
        }
        sig.returns.push(AbiParam::new(I64));
        let sigref = self.b.import_signature(sig);
        let (lh, _, after) = self.lane_each(on);
        let l = self.lane_l;
        let l8 = self.b.ins().ishl_imm_u(l, 3);
        let at = self.b.ins().iadd(slot_a, l8);
        let p = self.b.ins().load(I64, own(), at, 0);
        let vp = self.b.ins().iadd(slot_v, l8);
        let av = self.b.ins().load(I64, own(), vp, 0);
        let bv = self.b.ins().load(I64, own(), vp, 256);
        // Integer ops the host has as one atomic instruction (or a compare-exchange loop,
        // which is what the interpreter's `fetch_update` is): inline; the others by call.
        use cranelift_codegen::ir::AtomicRmwOp as R;
        let signed = matches!(ty, AtomTy::S32 | AtomTy::S64);
        let inline = match (op, ty) {
            (_, AtomTy::F32 | AtomTy::F64) => None,
            (AtomOp::Add, _) => Some(Some(R::Add)),
            (AtomOp::And, _) => Some(Some(R::And)),
            (AtomOp::Or, _) => Some(Some(R::Or)),
            (AtomOp::Xor, _) => Some(Some(R::Xor)),
            (AtomOp::Exch, _) => Some(Some(R::Xchg)),
            (AtomOp::Min, _) => Some(Some(if signed { R::Smin } else { R::Umin })),
            (AtomOp::Max, _) => Some(Some(if signed { R::Smax } else { R::Umax })),
            (AtomOp::Cas, _) => Some(None),
            _ => None,
        };
        let vty = if w == 8 { I64 } else { I32 };
        let old = match inline {
            Some(rop) => {
                let (a1, b1) = if w == 8 {
                    (av, bv)
                } else {
                    (self.b.ins().ireduce(I32, av), self.b.ins().ireduce(I32, bv))
                };
                let old = match rop {
                    Some(rop) => self
                        .b
                        .ins()
                        .atomic_rmw(vty, MemFlags::trusted(), rop, p, a1),
                    None => self.b.ins().atomic_cas(MemFlags::trusted(), p, a1, b1),
                };
                if w == 8 {
                    old
                } else {
                    self.b.ins().uextend(I64, old)
                }
            }
            None => {
                let wv = self.b.ins().iconst(I64, what as i64);
                let f = self
                    .b
                    .ins()
                    .load(I64, own(), self.ctx, offset_of!(Ctx, atomic) as i32);
                let call = self.b.ins().call_indirect(sigref, f, &[p, av, bv, wv]);
                self.b.inst_results(call)[0]
            }
        };
        self.b.ins().store(own(), old, vp, 0);
        self.b.ins().jump(lh, &[]);
        self.b.switch_to_block(after);
        let v: Vec<Value> = (0..2 * G)
            .map(|j| self.b.ins().load(I64X2, own(), slot_v, 16 * j as i32))
            .collect();
        Val::full(v)
    }

    /// An integer `atom`/`red` on this CTA's shared memory, inline: no other host thread
    /// touches that memory, so a plain read-modify-write per lane, in lane order, is the
    /// interpreter's (`exec::access::atomic_private` of `sem::atomic::rmw`). The lanes'
    /// addresses are checked together first, as vectors (a failed check leaves before any lane
    /// of the pass changed memory); a whole pass runs unrolled, a part of one lane by lane.
    /// The old values, when `want`.
    #[allow(clippy::too_many_arguments)]
    fn atomic_shared(
        &mut self,
        op: AtomOp,
        ty: AtomTy,
        addr: Addr,
        a: Src,
        b: Src,
        gm: Option<&[Value]>,
        on: Value,
        want: bool,
    ) -> Option<Val> {
        let w = crate::sem::atomic::atom_width(ty) as u64;
        let f = MemFlags::trusted();
        let slot_a = self.b.ins().stack_addr(I64, self.addr_slot, 0);
        let slot_v = self.b.ins().stack_addr(I64, self.buf_slot, 0);
        let offs = self.lane_addresses(addr, slot_a);
        // The check of `place` over the active lanes: aligned and below 2^24 (this CTA's own
        // memory), ending inside it (then `end` is below 2^24 + 8: a signed compare suffices).
        let act: Vec<Value> = match gm {
            Some(gm) => (0..G)
                .map(|g| self.b.ins().band(self.amask[g], gm[g]))
                .collect(),
            None => self.amask.clone(),
        };
        let wm = self.wide_masks(&act);
        let badbits = self.splat64(!((1u64 << CLUSTER_RANK_SHIFT) - 1) | (w - 1));
        let slen = self
            .b
            .ins()
            .load(I64, f, self.ctx, offset_of!(Ctx, shared_len) as i32);
        let slen = self.b.ins().splat(I64X2, slen);
        let wv = self.splat64(w);
        let zero = self.zero(I64X2);
        let mut any = None;
        for (j, &x) in offs.iter().enumerate() {
            let t = self.b.ins().band(x, badbits);
            let bad = self.b.ins().icmp(IntCC::NotEqual, t, zero);
            let end = self.b.ins().iadd(x, wv);
            let past = self.b.ins().icmp(IntCC::SignedGreaterThan, end, slen);
            let bad = self.b.ins().bor(bad, past);
            let bad = self.b.ins().band(bad, wm[j]);
            any = Some(match any {
                None => bad,
                Some(y) => self.b.ins().bor(y, bad),
            });
        }
        let any = self.b.ins().vany_true(any.unwrap());
        let ok = self.b.ins().bxor_imm_u(any, 1);
        self.branch_ok(ok);
        let base = self
            .b
            .ins()
            .load(I64, f, self.ctx, offset_of!(Ctx, shared) as i32);
        let vty = if w == 8 { I64 } else { I32 };
        let signed = matches!(ty, AtomTy::S32 | AtomTy::S64);
        // Old values at 128 + l * w.
        let res = 128i32;
        let ws = w as i32;
        let full = self.b.create_block();
        let part = self.b.create_block();
        let join = self.b.create_block();
        let all = self.b.ins().icmp_imm_u(IntCC::Equal, on, PASS_BITS as i64);
        self.b.ins().brif(all, full, &[], part, &[]);

        // full: every lane of the pass, unrolled, operands straight from the vectors.
        self.b.switch_to_block(full);
        let lane_of = |e: &mut Self, s: Src, l: usize| -> Value {
            match (s, w) {
                (Src::Imm(v), 8) => e.b.ins().iconst(I64, v as i64),
                (Src::Imm(v), _) => e.b.ins().iconst(I32, v as u32 as i64),
                (_, 8) => {
                    let v = e.full(s);
                    e.b.ins().extractlane(v[l / 2], (l % 2) as u8)
                }
                _ => {
                    let v = e.lo(s);
                    e.b.ins().extractlane(v[l / 4], (l % 4) as u8)
                }
            }
        };
        for l in 0..LANES {
            let x = self.b.ins().extractlane(offs[l / 2], (l % 2) as u8);
            let p = self.b.ins().iadd(base, x);
            let av = lane_of(self, a, l);
            let bv = match op {
                AtomOp::Cas => lane_of(self, b, l),
                _ => av,
            };
            let old = self.b.ins().load(vty, f, p, 0);
            let new = self.rmw_int(op, signed, vty, old, av, bv);
            self.b.ins().store(f, new, p, 0);
            if want {
                self.b.ins().store(own(), old, slot_v, res + ws * l as i32);
            }
        }
        self.b.ins().jump(join, &[]);

        // part: the active lanes in lane order, operands through the stack (a's whole slots
        // at 0, b's at 256).
        self.b.switch_to_block(part);
        self.spill_operands(slot_v, a, (op == AtomOp::Cas).then_some(b));
        let (lh, _, after) = self.lane_each(on);
        let l = self.lane_l;
        let l8 = self.b.ins().ishl_imm_u(l, 3);
        let at = self.b.ins().iadd(slot_a, l8);
        let x = self.b.ins().load(I64, own(), at, 0);
        let p = self.b.ins().iadd(base, x);
        let vp = self.b.ins().iadd(slot_v, l8);
        let av = self.b.ins().load(vty, own(), vp, 0);
        let bv = match op {
            AtomOp::Cas => self.b.ins().load(vty, own(), vp, 256),
            _ => av,
        };
        let old = self.b.ins().load(vty, f, p, 0);
        let new = self.rmw_int(op, signed, vty, old, av, bv);
        self.b.ins().store(f, new, p, 0);
        if want {
            let lw = self.b.ins().imul_imm_u(l, w as i64);
            let rp = self.b.ins().iadd(slot_v, lw);
            self.b.ins().store(own(), old, rp, res);
        }
        self.b.ins().jump(lh, &[]);
        self.b.switch_to_block(after);
        self.b.ins().jump(join, &[]);

        self.b.switch_to_block(join);
        if !want {
            return None;
        }
        Some(if w == 8 {
            let v = (0..2 * G)
                .map(|j| self.b.ins().load(I64X2, own(), slot_v, res + 16 * j as i32))
                .collect();
            Val::full(v)
        } else {
            let v = (0..G)
                .map(|j| self.b.ins().load(I32X4, own(), slot_v, res + 16 * j as i32))
                .collect();
            Val::lo(v)
        })
    }

    /// `sem::atomic::rmw`'s new value for the integer ops, on `vty` values.
    fn rmw_int(
        &mut self,
        op: AtomOp,
        signed: bool,
        vty: Type,
        old: Value,
        av: Value,
        bv: Value,
    ) -> Value {
        match op {
            AtomOp::Add => self.b.ins().iadd(old, av),
            AtomOp::And => self.b.ins().band(old, av),
            AtomOp::Or => self.b.ins().bor(old, av),
            AtomOp::Xor => self.b.ins().bxor(old, av),
            AtomOp::Exch => av,
            AtomOp::Min | AtomOp::Max => {
                let cc = match (op, signed) {
                    (AtomOp::Min, true) => IntCC::SignedLessThan,
                    (AtomOp::Min, false) => IntCC::UnsignedLessThan,
                    (_, true) => IntCC::SignedGreaterThan,
                    (_, false) => IntCC::UnsignedGreaterThan,
                };
                let c = self.b.ins().icmp(cc, old, av);
                self.b.ins().select(c, old, av)
            }
            AtomOp::Inc => {
                // old >= a ? 0 : old + 1
                let c = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, old, av);
                let z = self.b.ins().iconst(vty, 0);
                let o1 = self.b.ins().iadd_imm_s(old, 1);
                self.b.ins().select(c, z, o1)
            }
            AtomOp::Dec => {
                // old == 0 || old > a ? a : old - 1
                let z = self.b.ins().icmp_imm_u(IntCC::Equal, old, 0);
                let gt = self.b.ins().icmp(IntCC::UnsignedGreaterThan, old, av);
                let c = self.b.ins().bor(z, gt);
                let o1 = self.b.ins().iadd_imm_s(old, -1);
                self.b.ins().select(c, av, o1)
            }
            AtomOp::Cas => {
                // old == a ? b : old
                let c = self.b.ins().icmp(IntCC::Equal, old, av);
                self.b.ins().select(c, bv, old)
            }
        }
    }

    /// Opens a loop over the set bits of `on` in ascending order: returns its head, its body
    /// (current, with the lane in `lane_l`) and the block after it. The body ends by jumping
    /// to the head.
    fn lane_each(&mut self, on: Value) -> (Block, Block, Block) {
        let lv = self.b.declare_var(I64);
        self.b.def_var(lv, on);
        let lh = self.b.create_block();
        let lb = self.b.create_block();
        let after = self.b.create_block();
        self.b.ins().jump(lh, &[]);
        self.b.switch_to_block(lh);
        let m = self.b.use_var(lv);
        self.b.ins().brif(m, lb, &[], after, &[]);
        self.b.switch_to_block(lb);
        self.lane_l = self.b.ins().ctz(m);
        let m1 = self.b.ins().iadd_imm_s(m, -1);
        let m2 = self.b.ins().band(m, m1);
        self.b.def_var(lv, m2);
        (lh, lb, after)
    }

    /// `cvt` between integer types without saturation, as `sem::cvt::cvt_int_lanes`: the
    /// source's bits extended by its signedness, then the destination's extended by its own,
    /// to the whole slot.
    fn cvt_int(&mut self, a: Src, dst: Scalar, src: Scalar) -> Val {
        let (sb, ss) = src.int().unwrap();
        let (db, ds) = dst.int().unwrap();
        if sb == 64 && db == 64 {
            return Val::full(self.full(a));
        }
        // The low 32 bits of the source extended from its width (within 32 bits).
        let x = self.lo(a);
        let ext32 = |e: &mut Self, x: Vec<Value>, bits: u32, signed: bool| -> Vec<Value> {
            if bits >= 32 {
                return x;
            }
            if !signed {
                return e.low_bits(&x, bits);
            }
            let sh = e.b.ins().iconst(I32, 32 - bits as i64);
            x.iter()
                .map(|&v| {
                    let t = e.b.ins().ishl(v, sh);
                    e.b.ins().sshr(t, sh)
                })
                .collect()
        };
        if db == 64 {
            // sb < 64: the source's value, extended to 64 bits by its signedness.
            let v = ext32(self, x, sb, ss);
            return Val::full(self.widen(&v, ss));
        }
        // db <= 32: only the low db bits of the extended source count.
        let v = if sb < db { ext32(self, x, sb, ss) } else { x };
        let v = ext32(self, v, db, ds);
        if ds {
            let full = self.widen(&v, true);
            Val {
                lo: Some(v),
                full: Some(full),
                zext: false,
            }
        } else {
            Val::lo(v)
        }
    }

    fn low_bits(&mut self, x: &[Value], bits: u32) -> Vec<Value> {
        if bits >= 32 {
            return x.to_vec();
        }
        let m = self.splat32(((1u64 << bits) - 1) as u32);
        x.iter().map(|&v| self.b.ins().band(v, m)).collect()
    }

    /// A 16-bit operand's lanes as 32-bit values, sign- or zero-extended.
    fn ext16(&mut self, x: Vec<Value>, signed: bool) -> Vec<Value> {
        if signed {
            let s16 = self.b.ins().iconst(I32, 16);
            x.iter()
                .map(|&v| {
                    let t = self.b.ins().ishl(v, s16);
                    self.b.ins().sshr(t, s16)
                })
                .collect()
        } else {
            self.low_bits(&x, 16)
        }
    }

    /// Operand `s` of an integer op of `bits` (16, 32: `i32x4` per four lanes, 16-bit values
    /// extended; 64: `i64x2` per two lanes).
    fn int_in(&mut self, s: Src, bits: u32, signed: bool) -> Vec<Value> {
        match bits {
            64 => self.full(s),
            32 => self.lo(s),
            _ => {
                let x = self.lo(s);
                self.ext16(x, signed)
            }
        }
    }

    /// An integer op's result lanes as a register value.
    fn int_out(&mut self, v: Vec<Value>, bits: u32) -> Val {
        match bits {
            64 => Val::full(v),
            32 => Val::lo(v),
            _ => Val::lo(self.low_bits(&v, bits)),
        }
    }

    fn bin(&mut self, op: BinOp, a: Src, b: Src) -> Val {
        match op {
            BinOp::Int(op, t) => {
                let (bits, signed) = t.int().unwrap();
                let x = self.int_in(a, bits, signed);
                if matches!(op, IBin::Shl | IBin::Shr) {
                    return self.shift(op, x, b, bits, signed);
                }
                let y = self.int_in(b, bits, signed);
                let r = x
                    .iter()
                    .zip(&y)
                    .map(|(&x, &y)| {
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
                    })
                    .collect();
                self.int_out(r, bits)
            }
            BinOp::MulWide(t) if t.int().unwrap().0 == 16 => {
                // The 32-bit product of two 16-bit values, zero-extended to the slot.
                let signed = t.int().unwrap().1;
                let x = self.lo(a);
                let x = self.ext16(x, signed);
                let y = self.lo(b);
                let y = self.ext16(y, signed);
                let r = x
                    .iter()
                    .zip(&y)
                    .map(|(&x, &y)| self.b.ins().imul(x, y))
                    .collect();
                Val::lo(r)
            }
            BinOp::MulWide(t) => {
                let (_, signed) = t.int().unwrap();
                let x = self.lo(a);
                let y = self.lo(b);
                let x = self.widen(&x, signed);
                let y = self.widen(&y, signed);
                let r = x
                    .iter()
                    .zip(&y)
                    .map(|(&x, &y)| self.b.ins().imul(x, y))
                    .collect();
                Val::full(r)
            }
            BinOp::Float { op, ty, .. } => {
                let (x, y) = (self.float_in(a, ty), self.float_in(b, ty));
                let r: Vec<Value> = x
                    .iter()
                    .zip(&y)
                    .map(|(&x, &y)| match op {
                        FBin::Add => self.b.ins().fadd(x, y),
                        FBin::Sub => self.b.ins().fsub(x, y),
                        FBin::Mul => self.b.ins().fmul(x, y),
                        _ => unreachable!(),
                    })
                    .collect();
                let r = self.first_nan(r, &[x, y], ty);
                self.float_out(r, ty)
            }
            _ => unreachable!(),
        }
    }

    /// `shl`/`shr` of lanes `x` by operand `b` (an unsigned 32-bit amount; past the width,
    /// shl gives 0, shr.u 0 and shr.s the sign). An immediate amount is one vector shift; a
    /// register's amounts differ per lane and host vectors shift all lanes alike, so those
    /// lanes are shifted one by one.
    fn shift(&mut self, op: IBin, x: Vec<Value>, b: Src, bits: u32, signed: bool) -> Val {
        let r: Vec<Value> = if let Src::Imm(v) = b {
            let amt = v as u32;
            let big = amt >= bits;
            let lane_ty = if bits == 64 { I64X2 } else { I32X4 };
            x.iter()
                .map(|&v| match (op, signed, big) {
                    (IBin::Shl, _, true) | (_, false, true) => self.zero(lane_ty),
                    (IBin::Shl, _, false) => {
                        let a = self.b.ins().iconst(I32, amt as i64);
                        self.b.ins().ishl(v, a)
                    }
                    (_, true, _) => {
                        let a = self.b.ins().iconst(I32, amt.min(bits - 1) as i64);
                        self.b.ins().sshr(v, a)
                    }
                    (_, false, false) => {
                        let a = self.b.ins().iconst(I32, amt as i64);
                        self.b.ins().ushr(v, a)
                    }
                })
                .collect()
        } else {
            let amts = self.lo(b);
            let (lane_ty, per) = if bits == 64 { (I64, 2) } else { (I32, 4) };
            let mut out = Vec::with_capacity(x.len());
            for (k, &v) in x.iter().enumerate() {
                let mut acc = v;
                for l in 0..per {
                    let lane = k * per + l;
                    let xv = self.b.ins().extractlane(v, l as u8);
                    let am = self.b.ins().extractlane(amts[lane / 4], (lane % 4) as u8);
                    let s = self.shift1(op, xv, am, lane_ty, bits, signed);
                    acc = self.b.ins().insertlane(acc, s, l as u8);
                }
                out.push(acc);
            }
            out
        };
        self.int_out(r, bits)
    }

    /// One lane's shift: `x` (I32 holding an extended 16- or 32-bit value, or I64), `amt` I32.
    fn shift1(
        &mut self,
        op: IBin,
        x: Value,
        amt: Value,
        ty: Type,
        bits: u32,
        signed: bool,
    ) -> Value {
        let big = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, amt, bits as i64);
        let lim = self.b.ins().iconst(I32, bits as i64 - 1);
        let m = self.b.ins().umin(amt, lim);
        let m = if ty == I64 {
            self.b.ins().uextend(I64, m)
        } else {
            m
        };
        let z = self.b.ins().iconst(ty, 0);
        match (op, signed) {
            (IBin::Shl, _) => {
                let s = self.b.ins().ishl(x, m);
                self.b.ins().select(big, z, s)
            }
            (_, true) => self.b.ins().sshr(x, m),
            _ => {
                let s = self.b.ins().ushr(x, m);
                self.b.ins().select(big, z, s)
            }
        }
    }

    fn float_in(&mut self, s: Src, ty: Scalar) -> Vec<Value> {
        if ty == Scalar::F64 {
            let v = self.full(s);
            v.iter()
                .map(|&x| self.b.ins().bitcast(F64X2, little(), x))
                .collect()
        } else {
            let v = self.lo(s);
            v.iter()
                .map(|&x| self.b.ins().bitcast(F32X4, little(), x))
                .collect()
        }
    }

    fn float_out(&mut self, v: Vec<Value>, ty: Scalar) -> Val {
        if ty == Scalar::F64 {
            Val::full(
                v.iter()
                    .map(|&x| self.b.ins().bitcast(I64X2, little(), x))
                    .collect(),
            )
        } else {
            Val::lo(
                v.iter()
                    .map(|&x| self.b.ins().bitcast(I32X4, little(), x))
                    .collect(),
            )
        }
    }

    /// `sem::float`'s `first_nan!`: per lane, the first NaN operand quieted, else `r`. A NaN
    /// operand makes the result NaN, so the selects run only when some lane of `r` is NaN.
    fn first_nan(&mut self, r: Vec<Value>, ops: &[Vec<Value>], ty: Scalar) -> Vec<Value> {
        let (vty, ity, quiet) = if ty == Scalar::F64 {
            (F64X2, I64X2, crate::sem::float::QUIET64)
        } else {
            (F32X4, I32X4, crate::sem::float::QUIET32 as u64)
        };
        let mut any = None;
        for &x in &r {
            let n = self.b.ins().fcmp(FloatCC::Unordered, x, x);
            any = Some(match any {
                None => n,
                Some(a) => self.b.ins().bor(a, n),
            });
        }
        let any = self.b.ins().vany_true(any.unwrap());
        let vars: Vec<Variable> = r.iter().map(|_| self.b.declare_var(vty)).collect();
        for (v, &x) in vars.iter().zip(&r) {
            self.b.def_var(*v, x);
        }
        let fix = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(any, fix, &[], join, &[]);
        self.b.switch_to_block(fix);
        let q = if ity == I64X2 {
            self.splat64(quiet)
        } else {
            self.splat32(quiet as u32)
        };
        for (k, v) in vars.iter().enumerate() {
            let mut out = self.b.ins().bitcast(ity, little(), r[k]);
            for x in ops.iter().rev() {
                let x = x[k];
                let nan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
                let bits = self.b.ins().bitcast(ity, little(), x);
                let qb = self.b.ins().bor(bits, q);
                out = self.b.ins().bitselect(nan, qb, out);
            }
            let out = self.b.ins().bitcast(vty, little(), out);
            self.b.def_var(*v, out);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        vars.iter().map(|&v| self.b.use_var(v)).collect()
    }

    fn ter(&mut self, op: TerOp, a: Src, b: Src, c: Src) -> Val {
        match op {
            TerOp::MadLo(t) => {
                let (bits, signed) = t.int().unwrap();
                let x = self.int_in(a, bits, signed);
                let y = self.int_in(b, bits, signed);
                let z = self.int_in(c, bits, signed);
                let r = (0..x.len())
                    .map(|k| {
                        let m = self.b.ins().imul(x[k], y[k]);
                        self.b.ins().iadd(m, z[k])
                    })
                    .collect();
                self.int_out(r, bits)
            }
            TerOp::Selp { bits } => {
                let Src::Reg(p) = c else {
                    unreachable!("selp's predicate is a register")
                };
                let m = self.pred_mask(p, false);
                if bits > 32 {
                    let (x, y) = (self.full(a), self.full(b));
                    let wm = self.wide_masks(&m);
                    Val::full(
                        (0..2 * G)
                            .map(|k| self.b.ins().bitselect(wm[k], x[k], y[k]))
                            .collect(),
                    )
                } else {
                    let (x, y) = (self.lo(a), self.lo(b));
                    let r: Vec<Value> = (0..G)
                        .map(|g| self.b.ins().bitselect(m[g], x[g], y[g]))
                        .collect();
                    Val::lo(self.low_bits(&r, bits))
                }
            }
            TerOp::Fma { ty, .. } => {
                let x = self.float_in(a, ty);
                let y = self.float_in(b, ty);
                let z = self.float_in(c, ty);
                let r = (0..x.len())
                    .map(|k| self.b.ins().fma(x[k], y[k], z[k]))
                    .collect();
                let r = self.first_nan(r, &[x, y, z], ty);
                self.float_out(r, ty)
            }
            _ => unreachable!(),
        }
    }

    /// Per four lanes, an `i32x4` mask of the lanes where the comparison holds.
    fn cmp(&mut self, op: CmpOp, a: Src, b: Src) -> Vec<Value> {
        let m: Vec<Value> = match op {
            CmpOp::Int(c, t) => {
                let (bits, signed) = t.int().unwrap();
                let x = self.int_in(a, bits, signed);
                let y = self.int_in(b, bits, signed);
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
                x.iter()
                    .zip(&y)
                    .map(|(&x, &y)| self.b.ins().icmp(cc, x, y))
                    .collect()
            }
            CmpOp::Float(c, t) => {
                let x = self.float_in(a, t);
                let y = self.float_in(b, t);
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
                // (The x86-64 backend has no vector `one` and `ueq`: composed of two.)
                x.iter()
                    .zip(&y)
                    .map(|(&x, &y)| match cc {
                        FloatCC::OrderedNotEqual => {
                            let o = self.b.ins().fcmp(FloatCC::Ordered, x, y);
                            let n = self.b.ins().fcmp(FloatCC::NotEqual, x, y);
                            self.b.ins().band(o, n)
                        }
                        FloatCC::UnorderedOrEqual => {
                            let u = self.b.ins().fcmp(FloatCC::Unordered, x, y);
                            let e = self.b.ins().fcmp(FloatCC::Equal, x, y);
                            self.b.ins().bor(u, e)
                        }
                        _ => self.b.ins().fcmp(cc, x, y),
                    })
                    .collect()
            }
        };
        if m.len() == G {
            m
        } else {
            (0..G)
                .map(|g| self.narrow(m[2 * g], m[2 * g + 1]))
                .collect()
        }
    }

    // ---- memory ----

    /// The host address of lane 0's base value of group `g` (what the group's accesses add
    /// their offsets and `l * k` to), after one check per pass that the base's lanes lie as the
    /// group predicts (`a0 + l * k`) and one range check covering every access of the group.
    fn group_ptr(&mut self, gi: usize) -> Value {
        if let Some(&p) = self.checked.get(&gi) {
            return p;
        }
        let g = self.groups[gi].clone();
        let a0 = match g.base {
            None => self.b.ins().iconst(I64, 0),
            Some(r) => {
                let fb = self.full(Src::Reg(r));
                let a0 = self.b.ins().extractlane(fb[0], 0);
                let s = self.b.ins().splat(I64X2, a0);
                let mut all = None;
                for (j, &v) in fb.iter().enumerate() {
                    let k = g.k as u64;
                    let want = if j == 0 {
                        // (Lane 0 is a0 itself.)
                        let e = self.vconst64([0, k]);
                        self.b.ins().iadd(s, e)
                    } else {
                        let e = self.vconst64([
                            (2 * j as u64).wrapping_mul(k),
                            (2 * j as u64 + 1).wrapping_mul(k),
                        ]);
                        self.b.ins().iadd(s, e)
                    };
                    let c = self.b.ins().icmp(IntCC::Equal, v, want);
                    all = Some(match all {
                        None => c,
                        Some(a) => self.b.ins().band(a, c),
                    });
                }
                let ok = self.b.ins().vall_true(all.unwrap());
                self.branch_ok(ok);
                a0
            }
        };
        let lo = self.b.ins().iadd_imm_s(a0, g.lo);
        let p = self.place(g.space, lo, g.span, g.align);
        let p = self.b.ins().iadd_imm_s(p, -g.lo);
        self.checked.insert(gi, p);
        p
    }

    /// A load (`st` None: the loaded elements as register values) or a store (`st`: per
    /// element, its lanes, None for a sunk one) of `n` elements of `size` bytes a lane, by the
    /// lanes `on` of the pass.
    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        space: MSpace,
        addr: Addr,
        size: u8,
        n: u8,
        sext: bool,
        st: Option<&[Option<Vec<Value>>]>,
        on: Value,
    ) -> Vec<Val> {
        let load_ty = if size == 8 { I64X2 } else { I32X4 };
        let per_group = if size == 8 { 2 } else { 1 };
        let nv = G * per_group;
        let len = size as i64 * n as i64;
        let Some(&gi) = self.acc_group.get(&self.pc) else {
            return self.lane_loop(space, addr, size, n, sext, st, on, None);
        };
        let k = self.groups[gi].k;
        let pa = self.group_ptr(gi);
        let off = addr.off;
        let at = |l: i64, e: i64| (off + l * k + e * size as i64) as i32;
        let Some(vals) = st else {
            // Loads: every lane of the pass (all were checked), no branch.
            let mut out = Vec::new();
            for e in 0..n as i64 {
                let v: Vec<Value> = if k == 0 {
                    let s = self.scalar_load(pa, at(0, e), size, sext);
                    let v = self.b.ins().splat(load_ty, s);
                    vec![v; nv]
                } else if k == len && n == 1 && (size == 4 || size == 8) {
                    (0..nv)
                        .map(|j| {
                            self.b.ins().load(
                                load_ty,
                                MemFlags::trusted(),
                                pa,
                                off as i32 + 16 * j as i32,
                            )
                        })
                        .collect()
                } else if k == len && n == 1 && size == 2 {
                    (0..G)
                        .map(|g| {
                            let o = off as i32 + 8 * g as i32;
                            let f = MemFlags::trusted();
                            match sext {
                                true => self.b.ins().sload16x4(f, pa, o),
                                false => self.b.ins().uload16x4(f, pa, o),
                            }
                        })
                        .collect()
                } else if k == len && n == 1 && size == 1 && G == 2 {
                    let f = MemFlags::trusted();
                    let x = match sext {
                        true => self.b.ins().sload8x8(f, pa, off as i32),
                        false => self.b.ins().uload8x8(f, pa, off as i32),
                    };
                    match sext {
                        true => vec![self.b.ins().swiden_low(x), self.b.ins().swiden_high(x)],
                        false => vec![self.b.ins().uwiden_low(x), self.b.ins().uwiden_high(x)],
                    }
                } else {
                    let per = 4 / per_group;
                    let mut v: Vec<Value> = (0..nv).map(|_| self.zero(load_ty)).collect();
                    for l in 0..LANES {
                        let s = self.scalar_load(pa, at(l as i64, e), size, sext);
                        v[l / per] = self.b.ins().insertlane(v[l / per], s, (l % per) as u8);
                    }
                    v
                };
                out.push(self.loaded(v, size, sext));
            }
            return out;
        };
        if self.defer.is_some() && space == MSpace::Global {
            self.defer_store(pa, k, off, size, vals, on);
            return Vec::new();
        }
        // Stores: straight when the whole pass stores, else lane by lane.
        let full = self.b.create_block();
        let part = self.b.create_block();
        let join = self.b.create_block();
        let all = self.b.ins().icmp_imm_u(IntCC::Equal, on, PASS_BITS as i64);
        self.b.ins().brif(all, full, &[], part, &[]);
        self.b.switch_to_block(full);
        let f = MemFlags::trusted();
        if k == len && n == 1 && (size == 4 || size == 8) {
            if let Some(v) = &vals[0] {
                for (j, &x) in v.iter().enumerate() {
                    self.b.ins().store(f, x, pa, off as i32 + 16 * j as i32);
                }
            }
        } else {
            let per = 4 / per_group;
            // Lane order (with k = 0, the last lane's value stays).
            let lanes: Vec<usize> = if k == 0 {
                vec![LANES - 1]
            } else {
                (0..LANES).collect()
            };
            for l in lanes {
                for (e, v) in vals.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let x = self.b.ins().extractlane(v[l / per], (l % per) as u8);
                    self.scalar_store(x, pa, at(l as i64, e as i64), size, f);
                }
            }
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(part);
        self.lane_loop(space, addr, size, n, sext, st, on, Some((pa, k)));
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
        Vec::new()
    }

    /// Loaded lanes as a register value.
    fn loaded(&mut self, v: Vec<Value>, size: u8, sext: bool) -> Val {
        match (size, sext) {
            (8, _) => Val::full(v),
            (_, true) => {
                let full = self.widen(&v, true);
                Val {
                    lo: Some(v),
                    full: Some(full),
                    zext: false,
                }
            }
            _ => Val::lo(v),
        }
    }

    /// An access lane by lane, in lane order (two lanes may store to one address), through
    /// stack buffers of the values: `affine` (the group's checked host address and stride)
    /// places lane `l` at `pa + l * k`, else each lane's address is read from its base register
    /// and checked on its own.
    #[allow(clippy::too_many_arguments)]
    fn lane_loop(
        &mut self,
        space: MSpace,
        addr: Addr,
        size: u8,
        n: u8,
        sext: bool,
        st: Option<&[Option<Vec<Value>>]>,
        on: Value,
        affine: Option<(Value, i64)>,
    ) -> Vec<Val> {
        let len = size as u64 * n as u64;
        let align = len.min(16).next_power_of_two();
        let elt = |k: usize| if size == 8 { k * 256 } else { k * 128 };
        let load_ty = if size == 8 { I64X2 } else { I32X4 };
        let per_group = if size == 8 { 2 } else { 1 };
        let slot_v = self.b.ins().stack_addr(I64, self.buf_slot, 0);
        let slot_a = self.b.ins().stack_addr(I64, self.addr_slot, 0);
        if affine.is_none() {
            self.lane_addresses(addr, slot_a);
        }
        if let Some(vals) = st {
            for (k, v) in vals.iter().enumerate() {
                let Some(v) = v else { continue };
                for (j, &x) in v.iter().enumerate() {
                    self.b
                        .ins()
                        .store(own(), x, slot_v, (elt(k) + 16 * j) as i32);
                }
            }
        }
        let esz: i64 = if size == 8 { 8 } else { 4 };
        let (lh, _, after) = self.lane_each(on);
        let l = self.lane_l;
        let (p, base_off) = match affine {
            Some((pa, k)) => {
                let lk = self.b.ins().imul_imm_u(l, k);
                (self.b.ins().iadd(pa, lk), addr.off)
            }
            None => {
                let l8 = self.b.ins().ishl_imm_u(l, 3);
                let at = self.b.ins().iadd(slot_a, l8);
                let a = self.b.ins().load(I64, own(), at, 0);
                (self.place(space, a, len, align), 0)
            }
        };
        let lofs = self.b.ins().imul_imm_u(l, esz);
        let vp = self.b.ins().iadd(slot_v, lofs);
        for k in 0..n as usize {
            let o = (base_off + (k * size as usize) as i64) as i32;
            let f = MemFlags::trusted();
            match st {
                None => {
                    let v = self.scalar_load(p, o, size, sext);
                    self.b.ins().store(own(), v, vp, elt(k) as i32);
                }
                Some(vals) => {
                    if vals[k].is_none() {
                        continue;
                    }
                    let ty = if size == 8 { I64 } else { I32 };
                    let v = self.b.ins().load(ty, own(), vp, elt(k) as i32);
                    self.scalar_store(v, p, o, size, f);
                }
            }
        }
        self.b.ins().jump(lh, &[]);
        self.b.switch_to_block(after);
        if st.is_some() {
            return Vec::new();
        }
        (0..n as usize)
            .map(|k| {
                let v: Vec<Value> = (0..G * per_group)
                    .map(|j| {
                        self.b
                            .ins()
                            .load(load_ty, own(), slot_v, (elt(k) + 16 * j) as i32)
                    })
                    .collect();
                self.loaded(v, size, sext)
            })
            .collect()
    }

    /// One lane's element: 8 and 16 bits extended to I32 as `sext` says, 32 bits as I32,
    /// 64 as I64.
    fn scalar_load(&mut self, p: Value, o: i32, size: u8, sext: bool) -> Value {
        let f = MemFlags::trusted();
        match (size, sext) {
            (1, false) => self.b.ins().uload8(I32, f, p, o),
            (1, true) => self.b.ins().sload8(I32, f, p, o),
            (2, false) => self.b.ins().uload16(I32, f, p, o),
            (2, true) => self.b.ins().sload16(I32, f, p, o),
            (4, _) => self.b.ins().load(I32, f, p, o),
            _ => self.b.ins().load(I64, f, p, o),
        }
    }

    fn scalar_store(&mut self, v: Value, p: Value, o: i32, size: u8, f: MemFlags) {
        match size {
            1 => self.b.ins().istore8(f, v, p, o),
            2 => self.b.ins().istore16(f, v, p, o),
            _ => self.b.ins().store(f, v, p, o),
        };
    }

    /// The host pointer of an access of `len` bytes at `a` (I64), after the checks the
    /// interpreter's fast paths make (`Cta::own_shared`, `Cta::place_warp` through the
    /// per-worker cache of allocations), `a` aligned to `align`; a failed check leaves for the
    /// `fail` block.
    fn place(&mut self, space: MSpace, a: Value, len: u64, align: u64) -> Value {
        let f = MemFlags::trusted();
        match space {
            MSpace::Shared => {
                // Aligned and below 2^24 (no cluster rank field: this CTA's own memory) in one
                // test, then ending inside it: `a + len` cannot wrap, and `shared_len` is at
                // most 2^24 (`warp.rs`), so every byte of the range is below 2^24 too.
                let bad = self.b.ins().band_imm_u(
                    a,
                    (!((1u64 << CLUSTER_RANK_SHIFT) - 1) | (align - 1)) as i64,
                );
                let ok = self.b.ins().icmp_imm_u(IntCC::Equal, bad, 0);
                self.branch_ok(ok);
                let end = self.b.ins().iadd_imm_s(a, len as i64);
                let slen = self
                    .b
                    .ins()
                    .load(I64, f, self.ctx, offset_of!(Ctx, shared_len) as i32);
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, slen);
                self.branch_ok(inside);
                let base = self
                    .b
                    .ins()
                    .load(I64, f, self.ctx, offset_of!(Ctx, shared) as i32);
                self.b.ins().iadd(base, a)
            }
            MSpace::Global => {
                // [a, a + len) inside one of the cached allocations (no wrap: a + len is
                // compared only when a itself is inside).
                let mis = self.b.ins().band_imm_u(a, (align - 1) as i64);
                let ok = self.b.ins().icmp_imm_u(IntCC::Equal, mis, 0);
                self.branch_ok(ok);
                let end = self.b.ins().iadd_imm_s(a, len as i64);
                let wrap = self.b.ins().icmp(IntCC::UnsignedLessThan, end, a);
                let nowrap = self.b.ins().bxor_imm_u(wrap, 1);
                self.branch_ok(nowrap);
                let hit = self.b.create_block();
                for k in 0..super::GCACHE {
                    let at = (offset_of!(Ctx, gcache) + k * 16) as i32;
                    let lo = self.b.ins().load(I64, f, self.ctx, at);
                    let hi = self.b.ins().load(I64, f, self.ctx, at + 8);
                    let ge = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, a, lo);
                    let le = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, hi);
                    let h = self.b.ins().band(ge, le);
                    let miss = self.b.create_block();
                    self.b.ins().brif(h, hit, &[], miss, &[]);
                    self.b.switch_to_block(miss);
                }
                self.b.ins().jump(self.fail, &[]);
                self.b.switch_to_block(hit);
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
}
