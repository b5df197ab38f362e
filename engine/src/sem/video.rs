//! Scalar video instructions (ISA 9.7.18.1): vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr,
//! vset, as one `Op::Lane` function whose configuration word holds the operation, operand
//! types, selectors, saturation and secondary operation or merge. The stages follow the ISA's
//! pseudo-code: extract and extend to 33 bits, operate (34-bit result), optionally saturate,
//! then an optional secondary operation with `c` or a merge into `c`. Also `vmad` (9.7.18.1.3)
//! and the SIMD forms vadd2 .. vset4 (9.7.18.2), each one `Op::Lane` function.

/// Primary operations, in configuration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VOp {
    Add,
    Sub,
    AbsDiff,
    Min,
    Max,
    Shl,
    Shr,
    Set,
}

/// Byte and half-word selectors `.b0 .. .b3`, `.h0`, `.h1`; `WORD` when none is given.
pub const WORD: u8 = 7;

pub fn sel_word(w: &str) -> Option<u8> {
    Some(match w {
        "b0" => 0,
        "b1" => 1,
        "b2" => 2,
        "b3" => 3,
        "h0" => 4,
        "h1" => 5,
        _ => return None,
    })
}

/// The configuration of one instruction (see [`scalar`]).
#[derive(Clone, Copy, Debug)]
pub struct Cfg {
    pub op: VOp,
    pub dsigned: bool,
    pub asigned: bool,
    pub bsigned: bool,
    pub asel: u8,
    pub bsel: u8,
    /// Merge destination selector, or `WORD`.
    pub dsel: u8,
    pub sat: bool,
    /// 0 none, 1 `.add`, 2 `.min`, 3 `.max`.
    pub secop: u8,
    /// Shifts: `.clamp` (else `.wrap`).
    pub clamp: bool,
    /// vset: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge.
    pub cmp: u8,
}

impl Cfg {
    /// The configuration a word holds ([`Cfg::word`] undone), for the textual form.
    pub fn from_word(w: u64) -> Cfg {
        const OPS: [VOp; 8] = [
            VOp::Add,
            VOp::Sub,
            VOp::AbsDiff,
            VOp::Min,
            VOp::Max,
            VOp::Shl,
            VOp::Shr,
            VOp::Set,
        ];
        Cfg {
            op: OPS[(w & 7) as usize],
            dsigned: w >> 4 & 1 != 0,
            asigned: w >> 5 & 1 != 0,
            bsigned: w >> 6 & 1 != 0,
            asel: (w >> 8 & 15) as u8,
            bsel: (w >> 12 & 15) as u8,
            dsel: (w >> 16 & 15) as u8,
            sat: w >> 20 & 1 != 0,
            secop: (w >> 21 & 3) as u8,
            clamp: w >> 23 & 1 != 0,
            cmp: (w >> 24 & 7) as u8,
        }
    }
    pub fn word(self) -> u64 {
        self.op as u64
            | (self.dsigned as u64) << 4
            | (self.asigned as u64) << 5
            | (self.bsigned as u64) << 6
            | (self.asel as u64) << 8
            | (self.bsel as u64) << 12
            | (self.dsel as u64) << 16
            | (self.sat as u64) << 20
            | (self.secop as u64) << 21
            | (self.clamp as u64) << 23
            | (self.cmp as u64) << 24
    }
}

/// partSelectSignExtend: the selected byte, half-word or word, sign- or zero-extended.
fn part(v: u64, signed: bool, sel: u8) -> i64 {
    let v = v as u32;
    match (sel, signed) {
        (0..=3, false) => ((v >> (8 * sel)) & 0xff) as i64,
        (0..=3, true) => (v >> (8 * sel)) as u8 as i8 as i64,
        (4 | 5, false) => ((v >> (16 * (sel - 4))) & 0xffff) as i64,
        (4 | 5, true) => (v >> (16 * (sel - 4))) as u16 as i16 as i64,
        (_, false) => v as i64,
        (_, true) => v as i32 as i64,
    }
}

/// `d = f(cfg, a, b, c)` for the scalar video instructions.
pub fn scalar(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let Cfg {
        op,
        dsigned,
        asigned,
        bsigned,
        asel,
        bsel,
        dsel,
        sat,
        secop,
        clamp,
        cmp,
    } = Cfg::from_word(cfg);
    let ta = part(a, asigned, asel) as i128;
    // Shift amounts are always unsigned.
    let bs = bsigned && !matches!(op, VOp::Shl | VOp::Shr);
    let mut tb = part(b, bs, bsel) as i128;
    let mut tmp: i128 = match op {
        VOp::Add => ta + tb,
        VOp::Sub => ta - tb,
        VOp::AbsDiff => (ta - tb).abs(),
        VOp::Min => ta.min(tb),
        VOp::Max => ta.max(tb),
        VOp::Shl | VOp::Shr => {
            if clamp {
                tb = tb.min(32);
            } else {
                tb &= 0x1f;
            }
            if op == VOp::Shl {
                ta << tb
            } else {
                ta >> tb
            }
        }
        VOp::Set => {
            let r = match cmp {
                0 => ta == tb,
                1 => ta != tb,
                2 => ta < tb,
                3 => ta <= tb,
                4 => ta > tb,
                _ => ta >= tb,
            };
            r as i128
        }
    };
    // vset's result and c are unsigned.
    let dsigned = dsigned && op != VOp::Set;
    if sat && op != VOp::Set {
        let (lo, hi): (i128, i128) = match (dsel, dsigned) {
            (0..=3, true) => (i8::MIN as i128, i8::MAX as i128),
            (0..=3, false) => (0, u8::MAX as i128),
            (4 | 5, true) => (i16::MIN as i128, i16::MAX as i128),
            (4 | 5, false) => (0, u16::MAX as i128),
            (_, true) => (i32::MIN as i128, i32::MAX as i128),
            (_, false) => (0, u32::MAX as i128),
        };
        tmp = tmp.clamp(lo, hi);
    }
    let cv = part(c, dsigned, WORD) as i128;
    let r = if dsel != WORD {
        let t = tmp as u64;
        let c = c & 0xffff_ffff;
        match dsel {
            0..=3 => (t & 0xff) << (8 * dsel) | c & !(0xffu64 << (8 * dsel)),
            _ => (t & 0xffff) << (16 * (dsel - 4)) | c & !(0xffffu64 << (16 * (dsel - 4))),
        }
    } else {
        (match secop {
            1 => tmp + cv,
            2 => tmp.min(cv),
            3 => tmp.max(cv),
            _ => tmp,
        }) as u64
    };
    r & 0xffff_ffff
}

/// `vmad` configuration (ISA 9.7.18.1.3).
#[derive(Clone, Copy, Debug)]
pub struct MadCfg {
    pub asigned: bool,
    pub bsigned: bool,
    pub asel: u8,
    pub bsel: u8,
    /// Exactly one of a and b negated: the product is negated.
    pub negp: bool,
    pub negc: bool,
    pub po: bool,
    pub sat: bool,
    /// Right shift of the scale: 0, 7 (`.shr7`) or 15 (`.shr15`).
    pub shr: u8,
}

impl MadCfg {
    /// The configuration a word holds ([`MadCfg::word`] undone), for the textual form.
    pub fn from_word(w: u64) -> MadCfg {
        MadCfg {
            asigned: w & 1 != 0,
            bsigned: w >> 1 & 1 != 0,
            negp: w >> 2 & 1 != 0,
            negc: w >> 3 & 1 != 0,
            po: w >> 4 & 1 != 0,
            sat: w >> 5 & 1 != 0,
            asel: (w >> 8 & 15) as u8,
            bsel: (w >> 12 & 15) as u8,
            shr: (w >> 16 & 31) as u8,
        }
    }
    pub fn word(self) -> u64 {
        self.asigned as u64
            | (self.bsigned as u64) << 1
            | (self.negp as u64) << 2
            | (self.negc as u64) << 3
            | (self.po as u64) << 4
            | (self.sat as u64) << 5
            | (self.asel as u64) << 8
            | (self.bsel as u64) << 12
            | (self.shr as u64) << 16
    }
}

/// `d = f(cfg, a, b, c)` for `vmad`, following the ISA's pseudo-code: 33-bit extended inputs,
/// the product exact in 128 bits, `~tmp + 1` for a negated product (or `~c + 1` for a negated
/// c, or `+1` for `.po`), c extended by the sign of the final result, an arithmetic shift for
/// the scale, then the optional 32-bit clamp. The clamp is applied to the exact value: the
/// pseudo-code's 64-bit truncation before it only matters for |result| >= 2^63, which no
/// operand combination reaches except a u32*u32 product in a signed-final form, where the
/// exact clamp gives the mathematically right S32_MAX.
pub fn vmad(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let MadCfg {
        asigned,
        bsigned,
        asel,
        bsel,
        negp,
        negc,
        po,
        sat,
        shr,
    } = MadCfg::from_word(cfg);
    let ta = part(a, asigned, asel) as i128;
    let tb = part(b, bsigned, bsel) as i128;
    let signed_final = asigned || bsigned || negp || negc;
    let mut tmp = ta * tb;
    let mut c32 = c as u32;
    let mut lsb = 0;
    if po {
        lsb = 1;
    } else if negp {
        tmp = !tmp;
        lsb = 1;
    } else if negc {
        c32 = !c32;
        lsb = 1;
    }
    let c128 = if signed_final {
        c32 as i32 as i128
    } else {
        c32 as i128
    };
    tmp = tmp + c128 + lsb;
    let mut r = tmp >> shr;
    if sat {
        r = if signed_final {
            r.clamp(i32::MIN as i128, i32::MAX as i128)
        } else {
            r.clamp(0, u32::MAX as i128)
        };
    }
    r as u64 & 0xffff_ffff
}

/// Operations of the SIMD video instructions (ISA 9.7.18.2), in configuration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SOp {
    Add,
    Sub,
    Avrg,
    AbsDiff,
    Min,
    Max,
    Set,
}

/// Configuration of one SIMD video instruction: `n` = 2 (half-words) or 4 (bytes); `asel` and
/// `bsel` hold, per element i (3 bits each, element 0 lowest), which half-word (0..3) or byte
/// (0..7) of the 64-bit pair `{b, a}` it takes; `mask` the positions written (bit i).
#[derive(Clone, Copy, Debug)]
pub struct SimdCfg {
    pub op: SOp,
    pub n: u8,
    pub dsigned: bool,
    pub asigned: bool,
    pub bsigned: bool,
    pub sat: bool,
    /// `.add`: accumulate the masked results into c instead of merging.
    pub add: bool,
    pub mask: u8,
    pub asel: u16,
    pub bsel: u16,
    /// vset: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge.
    pub cmp: u8,
}

impl SimdCfg {
    /// The configuration a word holds ([`SimdCfg::word`] undone), for the textual form.
    pub fn from_word(w: u64) -> SimdCfg {
        const OPS: [SOp; 8] = [
            SOp::Add,
            SOp::Sub,
            SOp::Avrg,
            SOp::AbsDiff,
            SOp::Min,
            SOp::Max,
            SOp::Set,
            SOp::Set,
        ];
        SimdCfg {
            op: OPS[(w & 7) as usize],
            n: if w >> 3 & 1 != 0 { 4 } else { 2 },
            dsigned: w >> 4 & 1 != 0,
            asigned: w >> 5 & 1 != 0,
            bsigned: w >> 6 & 1 != 0,
            sat: w >> 7 & 1 != 0,
            add: w >> 8 & 1 != 0,
            mask: (w >> 9 & 15) as u8,
            cmp: (w >> 13 & 7) as u8,
            asel: (w >> 16 & 0xffff) as u16,
            bsel: (w >> 32 & 0xffff) as u16,
        }
    }
    pub fn word(self) -> u64 {
        self.op as u64
            | ((self.n == 4) as u64) << 3
            | (self.dsigned as u64) << 4
            | (self.asigned as u64) << 5
            | (self.bsigned as u64) << 6
            | (self.sat as u64) << 7
            | (self.add as u64) << 8
            | (self.mask as u64) << 9
            | (self.cmp as u64) << 13
            | (self.asel as u64) << 16
            | (self.bsel as u64) << 32
    }
}

/// `d = f(cfg, a, b, c)` for vadd2 .. vset4, following the ISA's pseudo-code: extract and
/// extend the selected elements of `{b, a}`, operate, clamp (`.sat`) to the element range of
/// the destination type, then either merge (masked positions take the result truncated to the
/// element, the others c's element) or accumulate (`.add`: d = c + the masked results, modulo
/// 2^32). For vset2/vset4 the ISA's prose says unmasked positions come from b but its
/// pseudo-code (and the other SIMD forms) take c: the pseudo-code is followed.
pub fn simd(cfg: u64, a: u64, b: u64, c: u64) -> u64 {
    let SimdCfg {
        op,
        n,
        dsigned,
        asigned,
        bsigned,
        sat,
        add,
        mask,
        asel,
        bsel,
        cmp,
    } = SimdCfg::from_word(cfg);
    let (n, ebits) = (n as u64, if n == 4 { 8 } else { 16 });
    let pair = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let emask = (1u64 << ebits) - 1;
    let ext = |v: u64, k: u64, signed: bool| -> i64 {
        let e = v >> (k * ebits) & emask;
        if signed && e >> (ebits - 1) & 1 != 0 {
            e as i64 - (1i64 << ebits)
        } else {
            e as i64
        }
    };
    let mut d = if add { c as u32 } else { 0 };
    for i in 0..n {
        let sa = (asel >> (3 * i) & 7) as u64;
        let sb = (bsel >> (3 * i) & 7) as u64;
        let va = ext(pair, sa, asigned);
        let vb = ext(pair, sb, bsigned);
        let mut t = match op {
            SOp::Add => va + vb,
            SOp::Sub => va - vb,
            SOp::Avrg => {
                let s = va + vb;
                if s >= 0 {
                    (s + 1) >> 1
                } else {
                    s >> 1
                }
            }
            SOp::AbsDiff => (va - vb).abs(),
            SOp::Min => va.min(vb),
            SOp::Max => va.max(vb),
            SOp::Set => {
                (match cmp {
                    0 => va == vb,
                    1 => va != vb,
                    2 => va < vb,
                    3 => va <= vb,
                    4 => va > vb,
                    _ => va >= vb,
                }) as i64
            }
        };
        if sat && op != SOp::Set {
            t = if dsigned {
                t.clamp(-(1 << (ebits - 1)), (1 << (ebits - 1)) - 1)
            } else {
                t.clamp(0, emask as i64)
            };
        }
        let on = mask >> i & 1 != 0;
        if add {
            if on {
                d = d.wrapping_add(t as u32);
            }
        } else {
            let v = if on { t as u64 } else { c >> (i * ebits) };
            d |= ((v & emask) << (i * ebits)) as u32;
        }
    }
    d as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(op: VOp, d: bool, a: bool, b: bool) -> Cfg {
        Cfg {
            op,
            dsigned: d,
            asigned: a,
            bsigned: b,
            asel: WORD,
            bsel: WORD,
            dsel: WORD,
            sat: false,
            secop: 0,
            clamp: false,
            cmp: 0,
        }
    }

    /// Each case is the ISA pseudo-code evaluated by hand.
    #[test]
    fn scalar_video_pseudocode() {
        let f = |c: Cfg, a: u32, b: u32, cc: u32| {
            scalar(c.word(), a as u64, b as u64, cc as u64) as u32
        };
        // vadd.s32.u32.s32.sat r1, r2.b0, r3.h0: ta = 0xff (unsigned byte 255), tb = h0 of
        // 0x8000 sign-extended = -32768: 255 - 32768 = -32513.
        let mut c = cfg(VOp::Add, true, false, true);
        c.asel = 0;
        c.bsel = 4;
        c.sat = true;
        assert_eq!(f(c, 0x1234_56ff, 0x0001_8000, 0), (-32513i32) as u32);
        // Saturation of a word sum: s32 0x7fffffff + 1 clamps to S32_MAX; u32 0 - 1 to 0.
        let mut c = cfg(VOp::Add, true, true, true);
        c.sat = true;
        assert_eq!(f(c, 0x7fff_ffff, 1, 0), 0x7fff_ffff);
        let mut c = cfg(VOp::Sub, false, false, false);
        c.sat = true;
        assert_eq!(f(c, 0, 1, 0), 0);
        // Without .sat the low 32 bits: 0 - 1 = 0xffffffff.
        assert_eq!(f(cfg(VOp::Sub, false, false, false), 0, 1, 0), u32::MAX);
        // vabsdiff.s32.s32.s32.sat r1.h0, r2.b0, r3.b2, c: |(-2) - 0x7f| = 129, clamped to the
        // s16 range (unchanged), merged into the low half of c = 0xabcd1234 -> 0xabcd0081.
        let mut c = cfg(VOp::AbsDiff, true, true, true);
        c.asel = 0;
        c.bsel = 2;
        c.sat = true;
        c.dsel = 4;
        assert_eq!(f(c, 0xfe, 0x007f_0000, 0xabcd_1234), 0xabcd_0081);
        // Same into .b3 with u32 dtype and .sat: 129 fits u8: 0x81 in bits 24..32.
        c.dsigned = false;
        c.dsel = 3;
        assert_eq!(f(c, 0xfe, 0x007f_0000, 0xabcd_1234), 0x81cd_1234);
        // s8 saturation on a byte merge: 129 > S8_MAX = 127.
        c.dsigned = true;
        assert_eq!(f(c, 0xfe, 0x007f_0000, 0xabcd_1234), 0x7fcd_1234);
        // vmin.s32.s32.s32.sat.add r1, r2, r3, c: min(-5, 3) + 10 = 5.
        let mut c = cfg(VOp::Min, true, true, true);
        c.sat = true;
        c.secop = 1;
        assert_eq!(f(c, -5i32 as u32, 3, 10), 5);
        // vmax.u32.s32.u32.max: max(-5, 3) = 3, secondary max with c = 7 -> 7.
        let mut c = cfg(VOp::Max, false, true, false);
        c.secop = 3;
        assert_eq!(f(c, -5i32 as u32, 3, 7), 7);
        // Mixed signedness: vmax.s32.u32.s32 of 0xffffffff (4294967295) and -1: 4294967295,
        // written as its low 32 bits.
        assert_eq!(
            f(cfg(VOp::Max, true, false, true), u32::MAX, u32::MAX, 0),
            u32::MAX
        );
        // vshl.s32.u32.u32.clamp r1, r2, r3 with r3 = 40: clamped to 32 -> 1 << 32, low 32
        // bits 0; .wrap takes 40 & 31 = 8: 1 << 8.
        let mut c = cfg(VOp::Shl, true, false, false);
        c.clamp = true;
        assert_eq!(f(c, 1, 40, 0), 0);
        c.clamp = false;
        assert_eq!(f(c, 1, 40, 0), 256);
        // vshl with .sat on s32: 1 << 31 = 2^31 > S32_MAX -> 0x7fffffff.
        c.sat = true;
        assert_eq!(f(c, 1, 31, 0), 0x7fff_ffff);
        // vshr.s32.s32.u32.wrap: arithmetic shift of -256 by h1 of 0x00040000 = 4: -16.
        let mut c = cfg(VOp::Shr, true, true, false);
        c.bsel = 5;
        assert_eq!(f(c, -256i32 as u32, 0x0004_0000, 0), -16i32 as u32);
        // vshr.u32.u32.u32: logical: 0x80000000 >> 4 = 0x08000000.
        assert_eq!(
            f(cfg(VOp::Shr, false, false, false), 0x8000_0000, 4, 0),
            0x0800_0000
        );
        // vset.s32.u32.lt: -1 (signed) < 0xffffffff (unsigned 4294967295): 1.
        let mut c = cfg(VOp::Set, false, true, false);
        c.cmp = 2;
        assert_eq!(f(c, u32::MAX, u32::MAX, 0), 1);
        // vset.u32.u32.ne r1.b1, r2, r3.h1, c: 5 != h1(0x00050000) = 5 is false: 0 into byte 1.
        let mut c = cfg(VOp::Set, false, false, false);
        c.cmp = 1;
        c.bsel = 5;
        c.dsel = 1;
        assert_eq!(f(c, 5, 0x0005_0000, 0xffff_ffff), 0xffff_00ff);
        // vset with secondary .add: (3 >= 3) + 41 = 42.
        let mut c = cfg(VOp::Set, false, false, false);
        c.cmp = 5;
        c.secop = 1;
        assert_eq!(f(c, 3, 3, 41), 42);
    }
}
