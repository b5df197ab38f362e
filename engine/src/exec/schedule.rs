//! Seeded schedules (`set_schedule`): CTAs and warps run in an order drawn from a seed, so that
//! a race between them can be reproduced (same seed, same interleaving, same result) and
//! explored (other seeds, other interleavings). The default schedule does not draw anything.
//!
//! With a seed, a launch runs on one host thread; its CTAs (clusters) are taken in a permuted
//! order; in every round of a CTA its warps run in a shuffled order, each for a random time
//! slice of 1 to 32 backward branches, so loops interleave too. Each launch draws from the seed
//! and its sequence number among the seeded launches of its host thread (counted from the last
//! `set_schedule`), so a program's launches differ from each other but not from run to run.

use std::sync::atomic::{AtomicU64, Ordering};

/// The seed, valid while `SET` is 1.
static SEED: AtomicU64 = AtomicU64::new(0);
static SET: AtomicU64 = AtomicU64::new(0);
thread_local! {
    /// Seeded launches made by this host thread: a program's launches from one thread are
    /// numbered the same in every run, whatever other threads launch.
    static LAUNCHES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

pub fn set_schedule(seed: Option<u64>) {
    SEED.store(seed.unwrap_or(0), Ordering::Relaxed);
    SET.store(seed.is_some() as u64, Ordering::Relaxed);
    LAUNCHES.with(|n| n.set(0));
}

pub fn schedule() -> Option<u64> {
    (SET.load(Ordering::Relaxed) != 0).then(|| SEED.load(Ordering::Relaxed))
}

/// The seed of the next seeded launch, if schedules are seeded.
pub fn launch_seed() -> Option<u64> {
    let seed = schedule()?;
    let n = LAUNCHES.with(|n| n.replace(n.get() + 1));
    Some(mix(seed ^ mix(n)))
}

/// SplitMix64's finaliser: a bijective scrambling of 64 bits.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Copy, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
    /// Uniform enough in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The order in which a seeded launch takes its CTAs (clusters): a shuffled table when the grid
/// is small enough to list, else an affine map `a * i + b mod n` with `a` prime to `n` (a
/// permutation without a table of `n` entries, less random but cheap for huge grids).
#[derive(Clone, Debug)]
pub enum Permutation {
    Table(Vec<u64>),
    Affine { a: u64, b: u64, n: u64 },
}

/// Grids up to this many units are shuffled exactly.
const TABLE_MAX: u64 = 1 << 20;

impl Permutation {
    pub fn new(rng: &mut Rng, n: u64) -> Permutation {
        let n = n.max(1);
        if n <= TABLE_MAX {
            let mut t: Vec<u64> = (0..n).collect();
            for k in (1..t.len()).rev() {
                t.swap(k, rng.below(k as u64 + 1) as usize);
            }
            return Permutation::Table(t);
        }
        let mut a = rng.below(n).max(1);
        while gcd(a, n) != 1 {
            a = a % n + 1;
        }
        Permutation::Affine {
            a,
            b: rng.below(n),
            n,
        }
    }
    pub fn at(&self, i: u64) -> u64 {
        match self {
            Permutation::Table(t) => t[i as usize],
            Permutation::Affine { a, b, n } => {
                ((*a as u128 * i as u128 + *b as u128) % *n as u128) as u64
            }
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_bijections() {
        let mut rng = Rng::new(7);
        for n in [1u64, 2, 3, 12, 97, 1000, TABLE_MAX + 3] {
            let p = Permutation::new(&mut rng, n);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let j = p.at(i) as usize;
                assert!(!seen[j], "{n}: {j} twice");
                seen[j] = true;
            }
        }
    }
}
