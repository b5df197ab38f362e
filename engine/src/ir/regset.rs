//! A set of registers as a bit set: what the register estimate's and the uninitialised-read
//! analyses' dataflow passes over the IR carry from instruction to instruction.

#[derive(Clone, PartialEq, Eq)]
pub(crate) struct RegSet(pub(crate) Vec<u64>);

impl RegSet {
    /// The empty set of registers below `n`.
    pub(crate) fn new(n: usize) -> RegSet {
        RegSet(vec![0; n.div_ceil(64)])
    }
    /// Every register (below the set's capacity): the identity of [`RegSet::intersect`].
    pub(crate) fn all(n: usize) -> RegSet {
        RegSet(vec![u64::MAX; n.div_ceil(64)])
    }
    pub(crate) fn has(&self, i: u32) -> bool {
        self.0[i as usize / 64] >> (i % 64) & 1 != 0
    }
    pub(crate) fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }
    pub(crate) fn unset(&mut self, i: u32) {
        self.0[i as usize / 64] &= !(1 << (i % 64));
    }
    /// The members, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (self.0.iter().enumerate()).flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros();
                    w &= w - 1;
                    k as u32 * 64 + b
                })
            })
        })
    }
    pub(crate) fn union(&mut self, o: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    /// Keeps only the members `o` has too; returns whether the set changed.
    pub(crate) fn intersect(&mut self, o: &RegSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            changed |= *a & b != *a;
            *a &= b;
        }
        changed
    }
}
