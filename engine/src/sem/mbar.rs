//! mbarrier objects (ISA 9.7.13.15). The object is opaque and 8 bytes in shared memory, so its
//! whole state lives in that word: a CTA runs on one host thread and its shared memory is private
//! to it, so the operations need no host atomics. Layout (ours; the ISA leaves it to the
//! implementation):
//!
//! | bits   | field                                               |
//! |--------|-----------------------------------------------------|
//! | 0..20  | pending arrival count of the current phase          |
//! | 20..40 | expected arrival count                              |
//! | 40..61 | tx-count, 21-bit two's complement                   |
//! | 62     | valid (set by `init`, cleared by `inval`)           |
//! | 63     | parity of the current phase                         |
//!
//! The state an arrive returns is the word before the arrive-on: its phase bit says which phase
//! it belongs to and its low bits the pending count before it (`mbarrier.pending_count`).

/// Largest expected or pending arrival count, and largest tx-count magnitude.
pub const MAX: u32 = (1 << 20) - 1;
const VALID: u64 = 1 << 62;
const PHASE: u64 = 1 << 63;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct St {
    pending: u32,
    expected: u32,
    tx: i32,
    phase: bool,
}

fn decode(w: u64) -> St {
    let tx = ((w >> 40) & 0x1f_ffff) as i32;
    St {
        pending: (w & MAX as u64) as u32,
        expected: ((w >> 20) & MAX as u64) as u32,
        // Sign-extend the 21-bit field.
        tx: (tx << 11) >> 11,
        phase: w & PHASE != 0,
    }
}

fn encode(s: St) -> u64 {
    VALID
        | s.pending as u64
        | (s.expected as u64) << 20
        | ((s.tx as u32 as u64) & 0x1f_ffff) << 40
        | if s.phase { PHASE } else { 0 }
}

/// Fails unless `w` holds an initialized object.
pub fn check(w: u64) -> Result<(), &'static str> {
    if w & VALID == 0 {
        Err("operation on an mbarrier object that is not initialized (undefined behaviour)")
    } else {
        Ok(())
    }
}

/// `mbarrier.init`: phase 0, expected and pending arrivals `count`, tx-count 0.
pub fn init(count: u32) -> Result<u64, &'static str> {
    if count == 0 || count > MAX {
        return Err("mbarrier.init count outside [1, 2^20-1]");
    }
    Ok(encode(St {
        pending: count,
        expected: count,
        tx: 0,
        phase: false,
    }))
}

/// Completes the phase if nothing is pending: next phase, pending count reloaded.
fn settle(mut s: St) -> St {
    if s.pending == 0 && s.tx == 0 {
        s.phase = !s.phase;
        s.pending = s.expected;
    }
    s
}

/// An arrive-on of `count` (after an expect-tx of `tx`, and lowering the expected count first
/// when `drop`). Returns the new word.
pub fn arrive(
    w: u64,
    count: u32,
    drop: bool,
    tx: Option<u32>,
    no_complete: bool,
) -> Result<u64, &'static str> {
    check(w)?;
    let mut s = decode(w);
    if count == 0 || count > MAX {
        return Err("mbarrier arrive count outside [1, 2^20-1]");
    }
    if let Some(t) = tx {
        s.tx = add_tx(s.tx, t as i64)?;
    }
    if drop {
        if count > s.expected {
            return Err("mbarrier.arrive_drop count exceeds the expected arrival count");
        }
        s.expected -= count;
    }
    if count > s.pending {
        return Err("mbarrier arrive-on count exceeds the pending arrival count");
    }
    s.pending -= count;
    let n = settle(s);
    if no_complete && n.phase != s.phase {
        return Err("mbarrier.arrive.noComplete completed the phase (undefined behaviour)");
    }
    Ok(encode(n))
}

fn add_tx(tx: i32, d: i64) -> Result<i32, &'static str> {
    let t = tx as i64 + d;
    if t.unsigned_abs() > MAX as u64 {
        return Err("mbarrier tx-count outside [-(2^20-1), 2^20-1]");
    }
    Ok(t as i32)
}

/// expect-tx (`d` > 0) or complete-tx (`d` < 0); complete-tx may complete the phase.
pub fn tx(w: u64, d: i64) -> Result<u64, &'static str> {
    check(w)?;
    let mut s = decode(w);
    s.tx = add_tx(s.tx, d)?;
    Ok(encode(if d < 0 { settle(s) } else { s }))
}

/// Whether the phase `state` (returned by an arrive in the current or the preceding phase) has
/// completed: the object has moved on to another phase.
pub fn state_complete(w: u64, state: u64) -> bool {
    (w ^ state) & PHASE != 0
}

/// Whether the phase of parity `p` (the current or the preceding one) has completed.
pub fn parity_complete(w: u64, p: u32) -> bool {
    (w >> 63) as u32 != p & 1
}

/// `mbarrier.pending_count`: the pending count before the arrive that returned `state`.
pub fn pending_count(state: u64) -> u64 {
    state & MAX as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lifecycle the ISA describes (9.7.13.15.4-7), step by step.
    #[test]
    fn phases_counts_and_tx() {
        assert!(init(0).is_err());
        assert!(init(1 << 20).is_err());
        let w = init(3).unwrap();
        assert_eq!(
            decode(w),
            St {
                pending: 3,
                expected: 3,
                tx: 0,
                phase: false
            }
        );
        // Two arrivals of count 1: pending 3 -> 2 -> 1, still phase 0.
        let w1 = arrive(w, 1, false, None, false).unwrap();
        assert_eq!(pending_count(w), 3);
        let w2 = arrive(w1, 1, false, None, false).unwrap();
        assert_eq!(decode(w2).pending, 1);
        assert!(!state_complete(w2, w));
        assert!(!parity_complete(w2, 0));
        // The third completes phase 0: phase 1, pending reloaded to 3.
        let w3 = arrive(w2, 1, false, None, false).unwrap();
        assert_eq!(
            decode(w3),
            St {
                pending: 3,
                expected: 3,
                tx: 0,
                phase: true
            }
        );
        assert!(state_complete(w3, w) && state_complete(w3, w2));
        assert!(parity_complete(w3, 0) && !parity_complete(w3, 1));
        // noComplete that would complete is undefined: reported.
        assert!(arrive(w3, 3, false, None, true).is_err());
        assert!(arrive(w3, 2, false, None, true).is_ok());
        // Count above the pending count.
        assert!(arrive(w3, 4, false, None, false).is_err());
        // arrive_drop of 1: expected 3 -> 2 for this and later phases; pending 3 -> 2.
        let d = arrive(w3, 1, true, None, false).unwrap();
        assert_eq!(
            decode(d),
            St {
                pending: 2,
                expected: 2,
                tx: 0,
                phase: true
            }
        );
        let d = arrive(d, 2, false, None, false).unwrap();
        assert_eq!(
            decode(d),
            St {
                pending: 2,
                expected: 2,
                tx: 0,
                phase: false
            }
        );
        // tx: expect 32 bytes with the last arrival; the phase waits for complete-tx.
        let t = init(1).unwrap();
        let t = arrive(t, 1, false, Some(32), false).unwrap();
        assert_eq!(
            decode(t),
            St {
                pending: 0,
                expected: 1,
                tx: 32,
                phase: false
            }
        );
        let t = tx(t, -16).unwrap();
        assert!(!decode(t).phase);
        let t = tx(t, -16).unwrap();
        assert_eq!(
            decode(t),
            St {
                pending: 1,
                expected: 1,
                tx: 0,
                phase: true
            }
        );
        // complete-tx before expect-tx: negative tx-count, then the expect brings it to 0 but
        // only an arrival completes the phase.
        let t = tx(t, -8).unwrap();
        assert_eq!(decode(t).tx, -8);
        let t = tx(t, 8).unwrap();
        assert_eq!(
            decode(t),
            St {
                pending: 1,
                expected: 1,
                tx: 0,
                phase: true
            }
        );
        assert!(tx(t, MAX as i64 + 1).is_err());
        // Operations on an uninitialized (zero) word are reported.
        assert!(arrive(0, 1, false, None, false).is_err());
        assert!(check(0).is_err());
    }
}
