//! Modifier decoding: the words after an opcode, taken one by one so that a word no arm
//! consumed is reported.

use super::*;

/// Qualifiers of ld/ldu/st that do not change what a single-threaded-per-CTA executor with
/// sequentially consistent host memory computes: memory order and scope (every access is
/// already as strong), cache operators and eviction priorities, `.nc`, `.unified`.
pub(super) const LD_ST_QUALIFIERS: &[&str] = &[
    "weak",
    "volatile",
    "relaxed",
    "acquire",
    "release",
    "mmio",
    "cta",
    "gpu",
    "sys",
    "cluster",
    "nc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
    "L2::evict_normal",
    "L2::evict_first",
    "L2::evict_last",
    "L2::64B",
    "L2::128B",
    "L2::256B",
    "L2::cache_hint",
    "unified",
];

/// Memory-order and scope qualifiers of atom/red (every atomic here is a sequentially
/// consistent host atomic, which satisfies each of them) and the L2 cache hint.
pub(super) const ATOM_QUALIFIERS: &[&str] = &[
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "sc",
    "cta",
    "gpu",
    "sys",
    "cluster",
    "L2::cache_hint",
];

/// The modifiers of one instruction: each is taken once by lowering; any left over makes the
/// instruction unsupported (never silently ignored).
pub(super) struct Mods<'a> {
    i: &'a Instruction,
    /// The modifiers as `str`s, read once.
    words: smallvec::SmallVec<[&'a str; 8]>,
    /// Which modifiers a lowering has read (inline: instructions have a few).
    used: smallvec::SmallVec<[bool; 16]>,
}

/// `a == b` for the short words of modifiers, without a call to `memcmp`.
#[inline]
pub(super) fn same_word(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

impl<'a> Mods<'a> {
    pub(super) fn new(i: &'a Instruction) -> Self {
        Mods {
            i,
            words: i.mods.iter().map(|m| m.as_str()).collect(),
            used: smallvec::SmallVec::from_elem(false, i.mods.len()),
        }
    }
    pub(super) fn take(&mut self, w: &str) -> bool {
        for (k, m) in self.words.iter().enumerate() {
            if !self.used[k] && same_word(m, w) {
                self.used[k] = true;
                return true;
            }
        }
        false
    }
    /// Marks every unused modifier that is one of `ws`.
    pub(super) fn ignore(&mut self, ws: &[&str]) {
        for (k, m) in self.words.iter().enumerate() {
            if !self.used[k] && ws.iter().any(|w| same_word(w, m)) {
                self.used[k] = true;
            }
        }
    }
    /// The next unused type word, with the packed and bf16 float types read as the bit types of
    /// their width (for data movement, which does not interpret them).
    pub(super) fn ty_data(&mut self) -> R<T> {
        for (k, m) in self.i.mods.iter().enumerate() {
            if !self.used[k] {
                let t = match m.as_str() {
                    "f16x2" | "bf16x2" => Some(T::B(32)),
                    "bf16" => Some(T::B(16)),
                    w => ty_word(w),
                };
                if let Some(t) = t {
                    self.used[k] = true;
                    return Ok(t);
                }
            }
        }
        self.no_type()
    }
    /// No type word lowering knows: with modifiers left over (a packed type such as `.u16x2`,
    /// or an instruction form lowering does not know), the ISA table decides; with none, the
    /// instruction lacks its type.
    pub(super) fn no_type<X>(&self) -> R<X> {
        if self.used.iter().any(|u| !u) {
            unsupported(self.i)
        } else {
            invalid(self.i.pos, format!("'{}' lacks a type", self.i.full_name()))
        }
    }
    /// The next unused type word.
    pub(super) fn ty(&mut self) -> R<T> {
        for (k, m) in self.i.mods.iter().enumerate() {
            if !self.used[k] {
                if let Some(t) = ty_word(m) {
                    self.used[k] = true;
                    return Ok(t);
                }
            }
        }
        self.no_type()
    }
    pub(super) fn vec(&mut self) -> u8 {
        if self.take("v2") {
            2
        } else if self.take("v4") {
            4
        } else if self.take("v8") {
            8
        } else {
            1
        }
    }
    pub(super) fn space(&mut self) -> Option<AS> {
        for (w, s) in [
            ("global", AS::Global),
            ("shared", AS::Shared),
            ("shared::cta", AS::Shared),
            // A `.shared::cluster` address names its CTA itself (`ir::CLUSTER_RANK_SHIFT`).
            ("shared::cluster", AS::Shared),
            ("local", AS::Local),
            ("param", AS::Param),
            ("param::entry", AS::Param),
            ("param::func", AS::Param),
            ("const", AS::Const),
        ] {
            if self.take(w) {
                return Some(s);
            }
        }
        None
    }
    pub(super) fn rnd(&mut self) -> Rnd {
        for (w, r) in [
            ("rn", Rnd::Rn),
            ("rz", Rnd::Rz),
            ("rm", Rnd::Rm),
            ("rp", Rnd::Rp),
            ("rni", Rnd::Rni),
            ("rzi", Rnd::Rzi),
            ("rmi", Rnd::Rmi),
            ("rpi", Rnd::Rpi),
        ] {
            if self.take(w) {
                return r;
            }
        }
        Rnd::None
    }
    pub(super) fn cmp(&mut self) -> Option<Cmp> {
        for (w, c) in [
            ("eq", Cmp::Eq),
            ("ne", Cmp::Ne),
            ("lt", Cmp::Lt),
            ("le", Cmp::Le),
            ("gt", Cmp::Gt),
            ("ge", Cmp::Ge),
            ("lo", Cmp::Lt),
            ("ls", Cmp::Le),
            ("hi", Cmp::Gt),
            ("hs", Cmp::Ge),
            ("equ", Cmp::Equ),
            ("neu", Cmp::Neu),
            ("ltu", Cmp::Ltu),
            ("leu", Cmp::Leu),
            ("gtu", Cmp::Gtu),
            ("geu", Cmp::Geu),
            ("num", Cmp::Num),
            ("nan", Cmp::Nan),
        ] {
            if self.take(w) {
                // lo/ls/hi/hs compare unsigned: the type word must be unsigned (checked by the
                // integer type the caller picks), so they map onto the ordered forms.
                return Some(c);
            }
        }
        None
    }
    pub(super) fn boolop(&mut self) -> Option<BoolOp> {
        if self.take("and") {
            Some(BoolOp::And)
        } else if self.take("or") {
            Some(BoolOp::Or)
        } else if self.take("xor") {
            Some(BoolOp::Xor)
        } else {
            None
        }
    }
    pub(super) fn done(&self) -> R<()> {
        if self.used.iter().all(|&u| u) {
            Ok(())
        } else {
            unsupported(self.i)
        }
    }
}

/// The IEEE rounding of `.rn/.rz/.rm/.rp`.
pub(super) fn ieee_mode(r: Rnd) -> Option<Mode> {
    Some(match r {
        Rnd::Rn => Mode::Rn,
        Rnd::Rz => Mode::Rz,
        Rnd::Rm => Mode::Rm,
        Rnd::Rp => Mode::Rp,
        _ => return None,
    })
}

/// A directed rounding (the host cannot do these; round-to-nearest it can).
pub(super) fn directed(r: Rnd) -> Option<Mode> {
    ieee_mode(r).filter(|&m| m != Mode::Rn)
}
