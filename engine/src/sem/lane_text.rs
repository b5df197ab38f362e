//! The textual form of a [`LaneOp`]: its configuration word decoded back into the PTX
//! modifiers it was built from, by the layouts beside each family's function (so the IR's
//! textual form names `add.rn.ftz.f16x2`, not a number).

use super::lane::*;
use super::narrow::{self as nw, HOp, BF, FTZ, NAN, NEGC, RELU, SAT, SATFINITE, X2, XORSIGN};
use super::softfloat::Mode;
use super::{lower_name as lc, video, LaneFamily, LaneOp, Scalar};
use std::fmt;

/// `.rn`, `.rz`, ... as printed after an operation.
fn rnd(m: Mode) -> String {
    format!(".{}", m.word())
}

/// `.w` when bit `b` of `cfg` is set.
fn flag(cfg: u64, b: u64, w: &'static str) -> &'static str {
    if cfg & b != 0 {
        w
    } else {
        ""
    }
}

/// The element type of the half families: `.f16`/`.bf16`, packed `x2`.
fn half_ty(cfg: u64) -> String {
    let t = if cfg & BF != 0 { "bf16" } else { "f16" };
    format!(".{t}{}", flag(cfg, X2, "x2"))
}

fn scalar_at(cfg: u64, shift: u32) -> Scalar {
    Scalar::ALL[((cfg >> shift) & 0xff) as usize % Scalar::ALL.len()]
}

impl fmt::Display for LaneOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.cfg;
        match self.family {
            LaneFamily::Half => {
                let op = nw::HOPS[(c & 0xff) as usize % nw::HOPS.len()];
                let (name, rounded) = match op {
                    HOp::Ex2 => ("ex2.approx", false),
                    HOp::Tanh => ("tanh.approx", false),
                    HOp::Add | HOp::Sub | HOp::Mul | HOp::Fma => ("", true),
                    _ => ("", false),
                };
                let name = if name.is_empty() {
                    lc(&op)
                } else {
                    name.into()
                };
                let r = if rounded {
                    rnd(nw::mode_of(c))
                } else {
                    String::new()
                };
                write!(
                    f,
                    "{name}{r}{}{}{}{}{}{}{}",
                    flag(c, nw::OOB, ".oob"),
                    flag(c, FTZ, ".ftz"),
                    flag(c, SAT, ".sat"),
                    flag(c, RELU, ".relu"),
                    flag(c, NAN, ".NaN"),
                    flag(c, XORSIGN, ".xorsign.abs"),
                    half_ty(c)
                )
            }
            LaneFamily::Mixed => {
                let op = nw::HOPS[(c & 0xff) as usize % nw::HOPS.len()];
                let t = if c & BF != 0 { "bf16" } else { "f16" };
                let r = rnd(nw::mode_of(c));
                write!(f, "{}{r}{}.f32.{t}", lc(&op), flag(c, SAT, ".sat"))
            }
            LaneFamily::HalfCmp => {
                let cmp = nw::CMPS[((c >> nw::CMP_SHIFT) & 0xff) as usize % nw::CMPS.len()];
                let b = match (c >> nw::BOOL_SHIFT) & 3 {
                    0 => "",
                    1 => ".and",
                    2 => ".or",
                    _ => ".xor",
                };
                let neg = if b.is_empty() {
                    ""
                } else {
                    flag(c, NEGC, " !c")
                };
                write!(
                    f,
                    "setp.{}{b}{}{}{neg}",
                    lc(&cmp),
                    flag(c, FTZ, ".ftz"),
                    half_ty(c)
                )
            }
            LaneFamily::HalfBit => write!(f, "extract.pred bit {c}"),
            LaneFamily::Set => {
                let t = match (c >> nw::KIND_SHIFT) & 7 {
                    0 => "f16",
                    1 => "bf16",
                    2 => "f32",
                    3 => "u16",
                    _ => "u32",
                };
                write!(f, "set.{t}{}", flag(c, X2, "x2"))
            }
            LaneFamily::Cvt => {
                let (d, s) = (scalar_at(c, 48), scalar_at(c, 56));
                let pack = match (c >> 21) & 3 {
                    0 => "",
                    1 => " (packed from two sources)",
                    _ => " (both halves)",
                };
                let r = if c & (1 << 20) != 0 {
                    ".rna".to_string()
                } else {
                    rnd(nw::mode_of(c))
                };
                write!(
                    f,
                    "cvt{r}{}{}{}{}.{d}.{s}{pack}",
                    flag(c, FTZ, ".ftz"),
                    flag(c, SAT, ".sat"),
                    flag(c, RELU, ".relu"),
                    flag(c, SATFINITE, ".satfinite")
                )
            }
            LaneFamily::CvtRs => {
                let part = match (c >> nw::RS_SHIFT) & 7 {
                    nw::RS_HALVES => "x2",
                    nw::RS_X4_HI | nw::RS_E2M1_HI => "x4 (upper pair)",
                    _ => "x4 (lower pair)",
                };
                write!(
                    f,
                    "cvt.rs{}{}.{}{part}.f32",
                    flag(c, RELU, ".relu"),
                    flag(c, SATFINITE, ".satfinite"),
                    scalar_at(c, 48)
                )
            }
            LaneFamily::CvtPack => {
                let s = if c & 0x100 != 0 { 's' } else { 'u' };
                write!(f, "cvt.pack.sat.{s}{}.s32", c & 0xff)
            }
            LaneFamily::Bf16ToF32 => f.write_str("cvt.f32.bf16"),
            LaneFamily::F32x2 => {
                let op = ["add", "sub", "mul", "fma"][(c & 3) as usize];
                let m = Mode::from_u8((c >> X2_MODE_SHIFT) as u8 & 3);
                write!(f, "{op}{}{}.f32x2", rnd(m), flag(c, X2_FTZ, ".ftz"))
            }
            LaneFamily::Packed16 => {
                let op = match c & (P_MIN | P_MAX) {
                    0 => "add",
                    P_MIN => "min",
                    _ => "max",
                };
                let s = if c & P_SIGNED != 0 { 's' } else { 'u' };
                write!(f, "{op}{}.{s}16x2", flag(c, P_RELU, ".relu"))
            }
            LaneFamily::MinMaxF32 => write!(
                f,
                "{}{}{}{}.f32{}",
                if c & F_MAX != 0 { "max" } else { "min" },
                flag(c, F_FTZ, ".ftz"),
                flag(c, F_NAN, ".NaN"),
                flag(c, F_XORSIGN, ".xorsign.abs"),
                flag(c, F_THREE, " (three inputs)")
            ),
            LaneFamily::Slct => write!(
                f,
                "slct{}.b{}.{}",
                flag(c, SLCT_FTZ, ".ftz"),
                c & 0xff,
                if c & SLCT_F32 != 0 { "f32" } else { "s32" }
            ),
            LaneFamily::Mapa | LaneFamily::GetCtarank => write!(
                f,
                "{}{}.u{}",
                if self.family == LaneFamily::Mapa {
                    "mapa"
                } else {
                    "getctarank"
                },
                if c == 64 { "" } else { ".shared::cluster" },
                if c == 64 { 64 } else { 32 }
            ),
            LaneFamily::MbarPendingCount => f.write_str("mbarrier.pending_count.b64"),
            LaneFamily::Video => write!(f, "video {:?}", video::Cfg::from_word(c)),
            LaneFamily::Vmad => write!(f, "vmad {:?}", video::MadCfg::from_word(c)),
            LaneFamily::VideoSimd => write!(f, "video.simd {:?}", video::SimdCfg::from_word(c)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_ops_print_their_modifiers() {
        let half = nw::half_cfg(HOp::Fma, nw::mode_bits(Mode::Rz) | FTZ | SAT | X2);
        assert_eq!(
            LaneOp {
                family: LaneFamily::Half,
                cfg: half
            }
            .to_string(),
            "fma.rz.ftz.sat.f16x2"
        );
        let cmp = nw::cmp_cfg(super::super::Cmp::Ltu, 1, true, BF);
        assert_eq!(
            LaneOp {
                family: LaneFamily::HalfCmp,
                cfg: cmp
            }
            .to_string(),
            "setp.ltu.and.bf16 !c"
        );
        let cvt = nw::cvt_cfg(Scalar::E4m3, Scalar::F32, Mode::Rn, false, 1, SATFINITE);
        assert_eq!(
            LaneOp {
                family: LaneFamily::Cvt,
                cfg: cvt
            }
            .to_string(),
            "cvt.rn.satfinite.e4m3.f32 (packed from two sources)"
        );
        let x2 = X2_FMA | X2_FTZ | (2 << X2_MODE_SHIFT);
        assert_eq!(
            LaneOp {
                family: LaneFamily::F32x2,
                cfg: x2
            }
            .to_string(),
            "fma.rm.ftz.f32x2"
        );
        let p = P_MAX | P_SIGNED | P_RELU;
        assert_eq!(
            LaneOp {
                family: LaneFamily::Packed16,
                cfg: p
            }
            .to_string(),
            "max.relu.s16x2"
        );
    }
}
