//! Calls of device functions by a warp: a frame per call saves what the callee may clobber,
//! lanes run their own callees (indirect calls), and return in groups when some of them wait
//! at a barrier inside the callee.

use super::access::*;
use super::cta::{Cta, Fault};
use super::regfile::*;
use super::warp::*;
use crate::ir::*;

impl Warp {
    /// `Op::Call`: see there.
    pub(super) fn call(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        site: u32,
    ) -> Result<(), Fault> {
        let prog = cta.prog;
        let s = &prog.sites[site as usize];
        let sp = prog.sp.expect("calls allocate the stack pointer") as usize;
        let mut which = [0u8; 32];
        if let Some(sel) = s.sel {
            for l in lanes(em) {
                let a = get(regs, sel, l);
                match s
                    .callees
                    .iter()
                    .position(|&f| prog.funcs[f as usize].addr == a)
                {
                    Some(k) => which[l] = k as u8,
                    None => return Err(cta.fault_bad_call(self, pc, l, a)),
                }
            }
        }
        let bytes = s.save.map_or(0, |f| prog.funcs[f as usize].frame_bytes) as u64;
        for l in lanes(em) {
            if regs[sp * 32 + l] + bytes > cta.stack_size as u64 {
                let depth = self.call_depth() + 1;
                let callee = &prog.funcs[s.callees[which[l] as usize] as usize].name;
                return Err(cta.fault_stack(
                    self,
                    pc,
                    l,
                    &format!("call of '{callee}' at depth {depth} needs {bytes} bytes more"),
                ));
            }
        }
        let id = match self.free_calls.pop() {
            Some(id) => id,
            None => {
                self.calls.push(CallFrame {
                    site,
                    mask: 0,
                    pending: 0,
                    used: false,
                    which,
                    regs: Vec::new(),
                    local: Vec::new(),
                });
                self.calls.len() as u32 - 1
            }
        };
        let wid = self.id;
        let fr = &mut self.calls[id as usize];
        fr.site = site;
        fr.mask = em;
        fr.pending = em;
        fr.used = true;
        fr.which = which;
        fr.regs.clear();
        fr.local.clear();
        fr.regs.extend_from_slice(&regs[sp * 32..sp * 32 + 32]);
        if let Some(f) = s.save {
            let f = &prog.funcs[f as usize];
            for &(a, b) in &f.regs {
                fr.regs
                    .extend_from_slice(&regs[a as usize * 32..b as usize * 32]);
            }
            for l in lanes(em) {
                for &(o, n) in &f.locals {
                    fr.local
                        .extend_from_slice(cta.local_at(wid, l, o, n as usize));
                }
            }
            for l in lanes(em) {
                regs[sp * 32 + l] += bytes;
            }
        }
        // The caller's entry (on top: its pc is already the `CallRet`) waits on this frame.
        // Lanes whose guard is false make no call: as if the guard were a branch around it,
        // they go on after the `CallRet`, where the calling lanes (an entry of their own)
        // rejoin them; so they can reach a barrier the callee waits at.
        let top = self.stack.last_mut().expect("a call runs on an entry");
        if em != 0 && em != top.mask {
            top.pc = pc + 2;
            self.stack.push(Entry {
                pc: pc + 1,
                mask: em,
                rpc: pc + 2,
                park: NO_PARK,
                call: id,
            });
        } else {
            top.call = id;
        }
        // Arguments: per lane, gather every value first (an actual may be the callee's own
        // formal under recursion), then scatter into the formals.
        let mut buf: Vec<u8> = Vec::new();
        for l in lanes(em) {
            let callee = &prog.funcs[s.callees[which[l] as usize] as usize];
            buf.clear();
            for (a, f) in s.args.iter().zip(&callee.params) {
                let n = f.bytes();
                match *a {
                    Actual::Val(v) => {
                        buf.extend_from_slice(&get(regs, v, l).to_le_bytes());
                        buf.resize(buf.len() - 8 + n.min(8), 0);
                        buf.resize(buf.len() + n.saturating_sub(8), 0);
                    }
                    Actual::Local(o) => {
                        buf.extend_from_slice(cta.local_at(self.id, l, o, n));
                    }
                }
            }
            let mut k = 0;
            for f in &callee.params {
                let n = f.bytes();
                store_loc(cta, self.id, regs, *f, l, &buf[k..k + n]);
                k += n;
            }
        }
        // One group of lanes per distinct callee, the first on top of the stack.
        for k in (0..s.callees.len()).rev() {
            let mut m = 0u32;
            for l in lanes(em) {
                if which[l] as usize == k {
                    m |= 1 << l;
                }
            }
            if m != 0 {
                let f = &prog.funcs[s.callees[k] as usize];
                self.stack.push(Entry {
                    pc: f.entry,
                    mask: m,
                    rpc: f.exit,
                    park: NO_PARK,
                    call: NO_CALL,
                });
            }
        }
        Ok(())
    }

    /// `Op::CallRet`: see there.
    pub(super) fn call_ret(
        &mut self,
        cta: &mut Cta,
        regs: &mut [u64],
        pc: u32,
        em: u32,
        site: u32,
    ) -> Result<(), Fault> {
        let prog = cta.prog;
        let sp = prog.sp.unwrap() as usize;
        // The frame the entry's call pushed (the entry is on top: it runs this op).
        let id = self.stack.last().map_or(NO_CALL, |e| e.call);
        if self
            .calls
            .get(id as usize)
            .is_none_or(|f| f.site != site || !f.used)
        {
            return Err(cta.fault_internal(self, pc, "call frames out of step"));
        }
        if let Some(e) = self.stack.last_mut() {
            e.call = NO_CALL;
        }
        let f = &self.calls[id as usize];
        let s = &prog.sites[site as usize];
        // The entry's lanes: all the calling lanes, or a group of them that left the callee
        // while others still wait in it.
        let live = f.pending & em;
        // Return values, gathered per lane before the caller's state comes back.
        let mut buf: Vec<u8> = Vec::new();
        let mut offs = [0usize; 33];
        for l in lanes(live) {
            offs[l] = buf.len();
            let callee = &prog.funcs[s.callees[f.which[l] as usize] as usize];
            for r in &callee.rets {
                let n = r.bytes();
                load_loc(cta, self.id, regs, *r, l, n, &mut buf);
            }
        }
        // Only the returning lanes' state comes back: the warp's other lanes may have run
        // (and called) meanwhile, on other paths, or still be in the callee.
        let restore = |regs: &mut [u64], r: usize, saved: &[u64]| {
            let row = &mut regs[r * 32..r * 32 + 32];
            if live == FULL {
                row.copy_from_slice(saved);
            } else {
                for l in lanes(live) {
                    row[l] = saved[l];
                }
            }
        };
        restore(regs, sp, &f.regs[..32]);
        let mut k = 32;
        if let Some(fi) = s.save {
            let fu = &prog.funcs[fi as usize];
            for &(a, b) in &fu.regs {
                for r in a as usize..b as usize {
                    restore(regs, r, &f.regs[k..k + 32]);
                    k += 32;
                }
            }
            // Saved lane by lane for every calling lane.
            let per: usize = fu.locals.iter().map(|&(_, n)| n as usize).sum();
            for (k, l) in lanes(f.mask).enumerate() {
                if live >> l & 1 == 0 {
                    continue;
                }
                let mut j = k * per;
                for &(o, n) in &fu.locals {
                    let n = n as usize;
                    cta.local_at(self.id, l, o, n)
                        .copy_from_slice(&f.local[j..j + n]);
                    j += n;
                }
            }
        }
        for l in lanes(live) {
            let callee = &prog.funcs[s.callees[f.which[l] as usize] as usize];
            let mut k = offs[l];
            for (d, r) in s.rets.iter().zip(&callee.rets) {
                let n = r.bytes();
                let v = &buf[k..k + n];
                k += n;
                let m = d.bytes().min(n);
                match *d {
                    Loc::Reg(..) => store_loc(cta, self.id, regs, *d, l, v),
                    Loc::Local(o, _) => {
                        store_loc(cta, self.id, regs, Loc::Local(o, m as u32), l, &v[..m])
                    }
                }
            }
        }
        self.drop_call(id, em);
        Ok(())
    }

    /// Lanes `lanes` of call frame `id` returned (or its entry was dropped, `lanes` 0): frees
    /// the frame once no lane that made the call is left in the callee.
    pub(super) fn drop_call(&mut self, id: u32, lanes: u32) {
        let exited = self.exited;
        let Some(f) = self.calls.get_mut(id as usize) else {
            return;
        };
        f.pending &= !lanes;
        if f.used && f.pending & !exited == 0 {
            f.used = false;
            self.free_calls.push(id);
        }
    }

    /// Calls in progress.
    pub(super) fn call_depth(&self) -> usize {
        self.calls.len() - self.free_calls.len()
    }
}
