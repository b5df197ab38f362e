//! Modifier decoding: the words after an opcode, taken one by one so that a word no arm
//! consumed is reported.

use super::*;

/// What ld/ldu/st/atom/red may say that does not change what a single-threaded-per-CTA executor
/// with sequentially consistent host memory computes: memory order and scope (every access is
/// already as strong, every atomic a sequentially consistent host atomic), cache operators,
/// eviction priorities, prefetch sizes and cache hints, `.nc`, `.unified`.
pub(super) const MEMORY_QUALIFIERS: &[ModKind] = &[ModKind::Order, ModKind::Scope, ModKind::Cache];

/// The modifiers of one instruction, with the kind the ISA table gave each ([`ModKind`]): each
/// is taken once by lowering, typed ones by their kind (`ty`, `rnd`, `cmp`, `space`, ...),
/// the others by their text (`take`); any left over makes the instruction unsupported (never
/// silently ignored).
pub(super) struct Mods<'a> {
    i: &'a Instruction,
    /// The modifiers as `str`s, read once.
    words: smallvec::SmallVec<[&'a str; 8]>,
    kinds: &'a [ModKind],
    /// Which modifiers a lowering has read (inline: instructions have a few).
    used: smallvec::SmallVec<[bool; 16]>,
}

/// `a == b` for the short words of modifiers, without a call to `memcmp`.
#[inline]
pub(super) fn same_word(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

impl<'a> Mods<'a> {
    /// `kinds` has one kind per modifier of `i` ([`crate::isa::Decoded::kinds`]).
    pub(super) fn new(i: &'a Instruction, kinds: &'a [ModKind]) -> Self {
        debug_assert_eq!(kinds.len(), i.mods.len());
        Mods {
            i,
            words: i.mods.iter().map(|m| m.as_str()).collect(),
            kinds,
            used: smallvec::SmallVec::from_elem(false, i.mods.len()),
        }
    }
    /// The first unused modifier of kind `k`, marked used, with what `read` makes of it
    /// (`None` leaves it unused).
    fn take_kind<X>(&mut self, k: ModKind, read: impl Fn(&str) -> Option<X>) -> Option<X> {
        for (j, w) in self.words.iter().enumerate() {
            if !self.used[j] && self.kinds.get(j) == Some(&k) {
                if let Some(x) = read(w) {
                    self.used[j] = true;
                    return Some(x);
                }
            }
        }
        None
    }
    /// Marks every unused modifier of the kinds `ks` used.
    pub(super) fn ignore_kinds(&mut self, ks: &[ModKind]) {
        for j in 0..self.words.len() {
            if !self.used[j] && self.kinds.get(j).is_some_and(|k| ks.contains(k)) {
                self.used[j] = true;
            }
        }
    }
    pub(super) fn ftz(&mut self) -> bool {
        self.take_kind(ModKind::Ftz, |_| Some(())).is_some()
    }
    pub(super) fn sat(&mut self) -> bool {
        self.take_kind(ModKind::Sat, |_| Some(())).is_some()
    }
    /// Takes the word `w`, whatever its kind: the operation words of [`ModKind::Word`], and the
    /// few typed words an instruction requires verbatim (`mbarrier`'s `.b64`, `.shared::cluster`).
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
        let t = self.take_kind(ModKind::Type, |w| {
            let t = TypeWord::parse(w)?;
            Some(match t.k {
                TyKind::H2 | TyKind::Bf2 => T::B(32),
                TyKind::Bf => T::B(16),
                _ => T::of(t),
            })
        });
        t.map_or_else(|| self.no_type(), Ok)
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
        let t = self.take_kind(ModKind::Type, |w| TypeWord::parse(w).map(T::of));
        t.map_or_else(|| self.no_type(), Ok)
    }
    /// Every unused type word, in order (marked used).
    pub(super) fn types(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(w) = self.take_kind(ModKind::Type, |w| Some(w.to_string())) {
            out.push(w);
        }
        out
    }
    pub(super) fn vec(&mut self) -> u8 {
        let n = self.take_kind(ModKind::Vector, |w| w[1..].parse::<u8>().ok());
        n.unwrap_or(1)
    }
    pub(super) fn space(&mut self) -> Option<AS> {
        self.take_kind(ModKind::Space, |w| {
            Some(match w {
                "global" => AS::Global,
                "shared" | "shared::cta" => AS::Shared,
                // A `.shared::cluster` address names its CTA itself (`ir::CLUSTER_RANK_SHIFT`).
                "shared::cluster" => AS::Shared,
                "local" => AS::Local,
                "param" | "param::entry" | "param::func" => AS::Param,
                "const" => AS::Const,
                _ => return None,
            })
        })
    }
    pub(super) fn rnd(&mut self) -> Rnd {
        let r = self.take_kind(ModKind::Round, |w| {
            Some(match w {
                "rn" => Rnd::Rn,
                "rz" => Rnd::Rz,
                "rm" => Rnd::Rm,
                "rp" => Rnd::Rp,
                "rni" => Rnd::Rni,
                "rzi" => Rnd::Rzi,
                "rmi" => Rnd::Rmi,
                "rpi" => Rnd::Rpi,
                _ => return None,
            })
        });
        r.unwrap_or(Rnd::None)
    }
    pub(super) fn cmp(&mut self) -> Option<Cmp> {
        self.take_kind(ModKind::Cmp, |w| {
            Some(match w {
                "eq" => Cmp::Eq,
                "ne" => Cmp::Ne,
                // lo/ls/hi/hs compare unsigned: the type word must be unsigned (checked by the
                // integer type the caller picks), so they map onto the ordered forms.
                "lt" | "lo" => Cmp::Lt,
                "le" | "ls" => Cmp::Le,
                "gt" | "hi" => Cmp::Gt,
                "ge" | "hs" => Cmp::Ge,
                "equ" => Cmp::Equ,
                "neu" => Cmp::Neu,
                "ltu" => Cmp::Ltu,
                "leu" => Cmp::Leu,
                "gtu" => Cmp::Gtu,
                "geu" => Cmp::Geu,
                "num" => Cmp::Num,
                "nan" => Cmp::Nan,
                _ => return None,
            })
        })
    }
    pub(super) fn boolop(&mut self) -> Option<BoolOp> {
        self.take_kind(ModKind::Bool, |w| {
            Some(match w {
                "and" => BoolOp::And,
                "or" => BoolOp::Or,
                "xor" => BoolOp::Xor,
                _ => return None,
            })
        })
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
