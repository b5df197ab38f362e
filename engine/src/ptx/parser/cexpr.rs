//! Constant expressions (ISA 4.5.4-4.5.6): the C-like operators over `.s64`, `.u64` and
//! `.f64` values with the ISA's conversion rules, evaluated while parsing so the tree holds
//! plain numbers.

use super::*;

/// A constant-expression value (ISA 4.5.5): `.s64`, `.u64`, `.f64`, or an exact `0f` single.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum CV {
    S(i64),
    U(u64),
    F(f64),
    F32(f32),
}

impl CV {
    pub(super) fn is_int(self) -> bool {
        matches!(self, CV::S(_) | CV::U(_))
    }
    pub(super) fn bits(self) -> u64 {
        match self {
            CV::S(v) => v as u64,
            CV::U(v) => v,
            CV::F(f) => f.to_bits(),
            CV::F32(f) => (f as f64).to_bits(),
        }
    }
    pub(super) fn truth(self) -> bool {
        self.bits() != 0
    }
}

pub(super) fn b2s(b: bool) -> CV {
    CV::S(b as i64)
}

impl<'a> Parser<'a> {
    /// Whether the current token can start a constant expression.
    pub(super) fn starts_cexpr(&self) -> bool {
        match self.peek() {
            Tok::Int(..) | Tok::Float { .. } => true,
            Tok::Ident(s) => s == "WARP_SZ",
            Tok::Punct(p) => matches!(p, "-" | "+" | "~" | "!" | "("),
            _ => false,
        }
    }

    /// A constant expression (ISA 4.5.4): C precedence, 64-bit signed/unsigned rules.
    pub(super) fn cexpr(&mut self) -> R<CV> {
        self.enter()?;
        let r = self.ternary();
        self.leave();
        r
    }

    pub(super) fn ternary(&mut self) -> R<CV> {
        let pos = self.pos();
        let c = self.binary(0)?;
        if !self.eat_punct("?") {
            return Ok(c);
        }
        if !c.is_int() {
            return Err(self.at_err(pos, "the condition of '?:' must be an integer"));
        }
        let a = self.cexpr()?;
        self.expect_punct(":")?;
        let b = self.cexpr()?;
        let (a, b) = self.convert(pos, a, b)?;
        Ok(if c.truth() { a } else { b })
    }

    /// The usual arithmetic conversions (ISA 4.5.5): both unsigned if either is; floats stay
    /// floats; mixing integers and floats is an error (PTX has no such casts).
    pub(super) fn convert(&self, pos: Pos, a: CV, b: CV) -> R<(CV, CV)> {
        Ok(match (a, b) {
            (CV::S(x), CV::S(y)) => (CV::S(x), CV::S(y)),
            (CV::S(_) | CV::U(_), CV::S(_) | CV::U(_)) => (CV::U(a.bits()), CV::U(b.bits())),
            (CV::F(x), CV::F(y)) => (CV::F(x), CV::F(y)),
            (CV::F32(_), _) | (_, CV::F32(_)) => {
                return Err(self.at_err(
                    pos,
                    "a 0f single-precision literal cannot be used in a constant expression",
                ))
            }
            _ => {
                return Err(self.at_err(
                    pos,
                    "constant expression mixes integer and floating-point operands",
                ))
            }
        })
    }

    pub(super) fn binop_prec(&self) -> Option<(&'static str, u32)> {
        let Tok::Punct(p) = self.peek() else {
            return None;
        };
        let prec = match p {
            "||" => 1,
            "&&" => 2,
            "|" => 3,
            "^" => 4,
            "&" => 5,
            "==" | "!=" => 6,
            "<" | ">" | "<=" | ">=" => 7,
            "<<" | ">>" => 8,
            "+" | "-" => 9,
            "*" | "/" | "%" => 10,
            _ => return None,
        };
        Some((p, prec))
    }

    /// Precedence climbing over the binary operators of Table 4 (all left-associative).
    pub(super) fn binary(&mut self, min: u32) -> R<CV> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.binop_prec() {
            if prec <= min {
                break;
            }
            let pos = self.pos();
            self.bump();
            self.enter()?;
            let rhs = self.binary(prec);
            self.leave();
            lhs = self.apply(pos, op, lhs, rhs?)?;
        }
        Ok(lhs)
    }

    pub(super) fn apply(&self, pos: Pos, op: &str, a: CV, b: CV) -> R<CV> {
        let int_only = |s: &Self| -> R<()> {
            if a.is_int() && b.is_int() {
                Ok(())
            } else {
                Err(s.at_err(pos, format!("operator '{op}' needs integer operands")))
            }
        };
        match op {
            "<<" | ">>" => {
                int_only(self)?;
                let n = b.bits();
                return Ok(match (op, a) {
                    ("<<", CV::S(x)) => CV::S(if n >= 64 { 0 } else { x << n }),
                    ("<<", _) => CV::U(if n >= 64 { 0 } else { a.bits() << n }),
                    (_, CV::S(x)) => CV::S(x >> n.min(63)),
                    _ => CV::U(if n >= 64 { 0 } else { a.bits() >> n }),
                });
            }
            "%" => {
                int_only(self)?;
                if b.bits() == 0 {
                    return Err(self.at_err(pos, "remainder by zero in constant expression"));
                }
                return Ok(CV::S((a.bits() % b.bits()) as i64));
            }
            "&&" | "||" => {
                int_only(self)?;
                return Ok(b2s(if op == "&&" {
                    a.truth() && b.truth()
                } else {
                    a.truth() || b.truth()
                }));
            }
            _ => {}
        }
        let (a, b) = self.convert(pos, a, b)?;
        Ok(match (a, b) {
            (CV::S(x), CV::S(y)) => match op {
                "+" => CV::S(x.wrapping_add(y)),
                "-" => CV::S(x.wrapping_sub(y)),
                "*" => CV::S(x.wrapping_mul(y)),
                "/" if y == 0 => {
                    return Err(self.at_err(pos, "division by zero in constant expression"))
                }
                "/" => CV::S(x.wrapping_div(y)),
                "&" => CV::S(x & y),
                "|" => CV::S(x | y),
                "^" => CV::S(x ^ y),
                "<" => b2s(x < y),
                ">" => b2s(x > y),
                "<=" => b2s(x <= y),
                ">=" => b2s(x >= y),
                "==" => b2s(x == y),
                _ => b2s(x != y),
            },
            (CV::U(x), CV::U(y)) => match op {
                "+" => CV::U(x.wrapping_add(y)),
                "-" => CV::U(x.wrapping_sub(y)),
                "*" => CV::U(x.wrapping_mul(y)),
                "/" if y == 0 => {
                    return Err(self.at_err(pos, "division by zero in constant expression"))
                }
                "/" => CV::U(x / y),
                "&" => CV::U(x & y),
                "|" => CV::U(x | y),
                "^" => CV::U(x ^ y),
                "<" => b2s(x < y),
                ">" => b2s(x > y),
                "<=" => b2s(x <= y),
                ">=" => b2s(x >= y),
                "==" => b2s(x == y),
                _ => b2s(x != y),
            },
            (CV::F(x), CV::F(y)) => match op {
                "+" => CV::F(x + y),
                "-" => CV::F(x - y),
                "*" => CV::F(x * y),
                "/" => CV::F(x / y),
                "<" => b2s(x < y),
                ">" => b2s(x > y),
                "<=" => b2s(x <= y),
                ">=" => b2s(x >= y),
                "==" => b2s(x == y),
                "!=" => b2s(x != y),
                _ => return Err(self.at_err(pos, format!("operator '{op}' needs integers"))),
            },
            _ => unreachable!("convert returns matching kinds"),
        })
    }

    pub(super) fn unary(&mut self) -> R<CV> {
        let pos = self.pos();
        match self.peek() {
            Tok::Punct(p @ ("-" | "+" | "!" | "~")) => {
                self.bump();
                self.enter()?;
                let v = self.unary();
                self.leave();
                let v = v?;
                Ok(match (p, v) {
                    ("+", v) => v,
                    ("-", CV::S(x)) => CV::S(x.wrapping_neg()),
                    ("-", CV::U(x)) => CV::U(x.wrapping_neg()),
                    ("-", CV::F(x)) => CV::F(-x),
                    // Negating an exact single keeps it exact (compilers write `-0f...`).
                    ("-", CV::F32(x)) => CV::F32(-x),
                    ("!", v) if v.is_int() => b2s(!v.truth()),
                    ("~", v) if v.is_int() => CV::U(!v.bits()),
                    _ => return Err(self.at_err(pos, format!("operator '{p}' needs an integer"))),
                })
            }
            // Casts `(.s64)` / `(.u64)`.
            Tok::Punct("(") if matches!(self.peek_at(1), Tok::Dot(_)) => {
                self.bump();
                let Tok::Dot(t) = self.bump() else {
                    unreachable!()
                };
                if t != "s64" && t != "u64" {
                    return Err(self.at_err(pos, format!("invalid cast to '.{t}'")));
                }
                self.expect_punct(")")?;
                self.enter()?;
                let v = self.unary();
                self.leave();
                let v = v?;
                if !v.is_int() {
                    return Err(self.at_err(pos, "casts apply to integers only"));
                }
                Ok(if t == "s64" {
                    CV::S(v.bits() as i64)
                } else {
                    CV::U(v.bits())
                })
            }
            Tok::Punct("(") => {
                self.bump();
                let v = self.cexpr()?;
                self.expect_punct(")")?;
                Ok(v)
            }
            Tok::Int(v, unsigned) => {
                self.bump();
                Ok(if unsigned { CV::U(v) } else { CV::S(v as i64) })
            }
            Tok::Float { bits, single } => {
                self.bump();
                Ok(if single {
                    CV::F32(f64::from_bits(bits) as f32)
                } else {
                    CV::F(f64::from_bits(bits))
                })
            }
            Tok::Ident("WARP_SZ") => {
                self.bump();
                Ok(CV::S(32))
            }
            _ => self.expected("a constant expression"),
        }
    }

    /// An integer constant expression.
    pub(super) fn int_expr(&mut self) -> R<i64> {
        let pos = self.pos();
        let v = self.cexpr()?;
        if !v.is_int() {
            return Err(self.at_err(pos, "expected an integer constant expression"));
        }
        Ok(v.bits() as i64)
    }

    /// A non-negative integer constant expression no larger than `max`.
    pub(super) fn uint_expr(&mut self, what: &str, max: u64) -> R<u64> {
        self.uint_expr_above(what, max, 0)
    }

    /// [`Self::uint_expr`] with only operators binding tighter than precedence `min` (inside
    /// `<N>`, where `>` closes the count).
    pub(super) fn uint_expr_above(&mut self, what: &str, max: u64, min: u32) -> R<u64> {
        let pos = self.pos();
        self.enter()?;
        let v = if min == 0 {
            self.ternary()
        } else {
            self.binary(min)
        };
        self.leave();
        let v = v?;
        match v {
            CV::S(x) if x >= 0 && x as u64 <= max => Ok(x as u64),
            CV::U(x) if x <= max => Ok(x),
            _ => Err(self.at_err(pos, format!("invalid {what}"))),
        }
    }

    /// A comma-separated list of unsigned integers (directive values).
    pub(super) fn uint_list(&mut self, what: &str) -> R<Vec<u64>> {
        let mut v = vec![self.uint_expr(what, u64::MAX)?];
        while self.eat_punct(",") {
            v.push(self.uint_expr(what, u64::MAX)?);
        }
        Ok(v)
    }
}
