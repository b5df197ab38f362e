//! The IR's textual form: what `cuda-shim check --emit-ir` prints and file tests match.
//!
//! One instruction per line: its index, its guard, the operation with its resolved modifiers
//! and operands, and, after `//`, the PTX instruction and line it came from. Registers are
//! `%N` (dense indices; the predicate file is not told apart), immediates are decimal below
//! 2^16 and hexadecimal above. The form is for reading and for substring checks; nothing parses
//! it back.

use super::*;
use std::fmt::{self, Display, Formatter, Write};

struct R(Reg);
impl Display for R {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl Display for Src {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match *self {
            Src::Reg(r) => write!(f, "%{r}"),
            Src::Imm(v) if v < 1 << 16 => write!(f, "{v}"),
            Src::Imm(v) => write!(f, "{v:#x}"),
        }
    }
}

impl Display for Addr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match (self.base, self.off) {
            (Some(b), 0) => write!(f, "[%{b}]"),
            (Some(b), o) if o < 0 => write!(f, "[%{b}-{}]", o.unsigned_abs()),
            (Some(b), o) => write!(f, "[%{b}+{o}]"),
            (None, o) => write!(f, "[{o:#x}]"),
        }
    }
}

impl Display for MSpace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MSpace::Global => "global",
            MSpace::Shared => "shared",
            MSpace::Local => "local",
            MSpace::KParam => "param",
            MSpace::Generic => "generic",
        })
    }
}

impl Display for FloatMods {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.ftz {
            f.write_str(".ftz")?;
        }
        if self.sat {
            f.write_str(".sat")?;
        }
        Ok(())
    }
}

/// An operation's name with `.ftz`/`.sat` where PTX writes them, before the type.
fn with(op: &impl Display, fl: FloatMods) -> String {
    let name = op.to_string();
    match name.rfind('.') {
        Some(k) if !fl.is_none() => format!("{}{fl}{}", &name[..k], &name[k..]),
        _ => name,
    }
}

/// A comma-separated list.
fn list<T: Display>(f: &mut Formatter<'_>, items: impl IntoIterator<Item = T>) -> fmt::Result {
    for (k, x) in items.into_iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

/// Optional destinations (`_` for none).
fn dests(f: &mut Formatter<'_>, ds: &[Option<Reg>]) -> fmt::Result {
    f.write_str("{")?;
    for (k, d) in ds.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        match d {
            Some(r) => write!(f, "%{r}")?,
            None => f.write_str("_")?,
        }
    }
    f.write_str("}")
}

use crate::sem::lower_name as lc;

impl Display for Op {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Op::Un { op, fl, d, a } => write!(f, "{} = {} {a}", R(*d), with(op, *fl)),
            Op::Bin { op, fl, d, a, b } => write!(f, "{} = {} {a}, {b}", R(*d), with(op, *fl)),
            Op::Ter { op, fl, d, a, b, c } => write!(f, "{} = {op}{fl} {a}, {b}, {c}", R(*d)),
            Op::Quad { op, d, a, b, c, e } => write!(f, "{} = {op} {a}, {b}, {c}, {e}", R(*d)),
            Op::Lane { op, d, a, b, c } => write!(f, "{} = {op} {a}, {b}, {c}", R(*d)),
            Op::Setp {
                op,
                fl,
                a,
                b,
                d,
                dn,
                comb,
            } => {
                dests(f, &[*d, *dn])?;
                write!(f, " = {} {a}, {b}", with(op, *fl))?;
                if let Some((bop, c, neg)) = comb {
                    write!(f, " {} {}{c}", lc(bop), if *neg { "!" } else { "" })?;
                }
                Ok(())
            }
            Op::Cvt {
                d,
                a,
                dst,
                src,
                rnd,
                sat,
                ftz,
            } => {
                write!(f, "{} = cvt", R(*d))?;
                if *rnd != Rnd::None {
                    write!(f, ".{}", lc(rnd))?;
                }
                if *ftz {
                    f.write_str(".ftz")?;
                }
                if *sat {
                    f.write_str(".sat")?;
                }
                write!(f, ".{dst}.{src} {a}")
            }
            Op::Carry {
                op,
                bits,
                signed,
                cin,
                cout,
                cc,
                d,
                a,
                b,
                c,
            } => write!(
                f,
                "{} = carry.{}{}{}.{}{bits} {a}, {b}, {c} (cc %{cc})",
                R(*d),
                lc(op),
                if *cin { ".cin" } else { "" },
                if *cout { ".cout" } else { "" },
                if *signed { 's' } else { 'u' },
            ),
            Op::Pack { d, parts, bits } => {
                write!(f, "{} = pack.b{bits} {{", R(*d))?;
                list(f, parts)?;
                f.write_str("}")
            }
            Op::Unpack { ds, a, bits } => {
                dests(f, ds)?;
                write!(f, " = unpack.b{bits} {a}")
            }
            Op::Sreg { d, s } => write!(f, "{} = sreg {s:?}", R(*d)),
            Op::Ld {
                space,
                size,
                sext,
                n,
                d,
                addr,
            } => {
                dests(f, &d[..*n as usize])?;
                let s = if *sext { "s" } else { "b" };
                write!(f, " = ld.{space}.{s}{} {addr}", *size as u32 * 8)
            }
            Op::St {
                space,
                size,
                n,
                sink,
                s,
                addr,
            } => {
                write!(f, "st.{space}.b{} {addr}, {{", *size as u32 * 8)?;
                for (k, v) in s[..*n as usize].iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    if sink & (1 << k) != 0 {
                        f.write_str("_")?;
                    } else {
                        write!(f, "{v}")?;
                    }
                }
                f.write_str("}")
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
                dests(f, &[*d])?;
                write!(f, " = atom.{space}.{}.{ty:?} {addr}, {a}, {b}", lc(op))
            }
            Op::AtomVec {
                space,
                op,
                ty,
                n,
                d,
                addr,
                b,
            } => {
                dests(f, &d[..*n as usize])?;
                write!(f, " = atom.{space}.{}.v{n}.{ty:?} {addr}, {{", lc(op))?;
                list(f, &b[..*n as usize])?;
                f.write_str("}")
            }
            Op::Atom128 {
                space,
                cas,
                d,
                addr,
                b,
                c,
            } => {
                dests(f, &[*d])?;
                let op = if *cas { "cas" } else { "exch" };
                write!(f, " = atom.{space}.{op}.b128 {addr}, %{b}, %{c}")
            }
            Op::Bra { target, rpc } => write!(f, "bra {target} (rpc {rpc})"),
            Op::Brx { idx, targets, rpc } => {
                write!(f, "brx {idx} [")?;
                list(f, targets)?;
                write!(f, "] (rpc {rpc})")
            }
            Op::Call { site } => write!(f, "call site {site}"),
            Op::CallRet { site } => write!(f, "callret site {site}"),
            Op::Exit => f.write_str("exit"),
            Op::End => f.write_str("end"),
            Op::Tex(t) => {
                dests(f, &t.d)?;
                if let Some(p) = t.pred {
                    write!(f, "|{p}")?;
                }
                match t.gather {
                    Some(c) => write!(f, " = tld4.{}", ["r", "g", "b", "a"][c as usize % 4])?,
                    None => f.write_str(" = tex")?,
                }
                let ct = if t.int_coords { "s32" } else { "f32" };
                write!(f, ".{:?}.{}.{ct} [{}, {{", t.geom, lc(&t.result), t.tex)?;
                list(f, &t.coords[..t.coord_count()])?;
                f.write_str("}]")?;
                let n = t.geom.dims();
                match &t.lod {
                    TexLod::Base => {}
                    TexLod::Level(l) => write!(f, ", level {l}")?,
                    TexLod::Grad(dx, dy) => {
                        f.write_str(", grad {")?;
                        list(f, &dx[..n])?;
                        f.write_str("}, {")?;
                        list(f, &dy[..n])?;
                        f.write_str("}")?;
                    }
                }
                if let Some(e) = &t.offset {
                    f.write_str(", offset {")?;
                    list(f, &e[..n])?;
                    f.write_str("}")?;
                }
                Ok(())
            }
            Op::Txq {
                d,
                tex,
                query,
                level,
            } => {
                write!(f, "{d} = txq.{query:?} [{tex}]")?;
                match level {
                    Some(l) => write!(f, ", level {l}"),
                    None => Ok(()),
                }
            }
            Op::Nop => f.write_str("nop"),
            Op::Tally { slot } => write!(f, "tally {slot}"),
            Op::Trap => f.write_str("trap"),
            Op::Brkpt => f.write_str("brkpt"),
            // The rest: the variant's fields as Rust writes them.
            other => write!(f, "{}", lc_first(&format!("{other:?}"))),
        }
    }
}

/// `Bar { id: .. }` as `bar { id: .. }`: the variant name in lower case, the fields as they are.
fn lc_first(s: &str) -> String {
    let end = s.find([' ', '{', '(']).unwrap_or(s.len());
    s[..end].to_lowercase() + &s[end..]
}

impl Display for Program {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "program: {} registers, {} shared bytes (dynamic at {}), {} local bytes per thread",
            self.nregs, self.shared_static, self.dyn_shared_off, self.local_bytes
        )?;
        for (k, func) in self.funcs.iter().enumerate() {
            write!(
                f,
                "func {k} {}: entry {}, exit {}, params (",
                func.name, func.entry, func.exit
            )?;
            list(f, func.params.iter().map(|l| format!("{l:?}")))?;
            f.write_str(")")?;
            if !func.rets.is_empty() {
                f.write_str(" -> (")?;
                list(f, func.rets.iter().map(|l| format!("{l:?}")))?;
                f.write_str(")")?;
            }
            writeln!(f)?;
        }
        for (k, s) in self.sites.iter().enumerate() {
            let mut line = format!("site {k}: callees {:?}", s.callees);
            if let Some(sel) = s.sel {
                let _ = write!(line, " via {sel}");
            }
            writeln!(f, "{line}, args {:?}, rets {:?}", s.args, s.rets)?;
        }
        for (k, inst) in self.insts.iter().enumerate() {
            let mut text = format!("{k:5}: ");
            if let Some((p, neg)) = inst.guard {
                let _ = write!(text, "@{}%{p} ", if neg { "!" } else { "" });
            }
            let _ = write!(text, "{}", inst.op);
            match self.info.get(k) {
                Some(info) => writeln!(f, "{text:<60} // {} (line {})", info.name, info.line)?,
                None => writeln!(f, "{text}")?,
            }
        }
        Ok(())
    }
}
