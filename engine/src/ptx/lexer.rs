//! Tokens of PTX text, each with its line and column (1-based) for diagnostics.

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// An identifier: `foo`, `%r1`, `$L__BB0_2`, `_` (the sink), `__local_depot0`.
    Ident(String),
    /// A dotted word: `.reg`, `.u32`, `.shared::cta`, `.m16n8k16`, `.L2::cache_hint`, `.x`.
    Dot(String),
    /// An integer literal (decimal, hex, octal, binary); the `U` suffix is accepted and dropped.
    Int(u64),
    /// A float literal as f64 bits; `single` is true for the `0f` form (value exact as f32).
    Float {
        bits: u64,
        single: bool,
    },
    Str(String),
    Punct(char),
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug)]
pub struct LexError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

fn ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%'
}

fn ident_cont(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

pub fn lex(src: &str) -> Result<Vec<Token>, LexError> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 4);
    let (mut i, mut line, mut lstart) = (0usize, 1u32, 0usize);
    while i < b.len() {
        let c = b[i];
        let col = (i - lstart + 1) as u32;
        let l0 = line;
        let err = |m: &str| LexError {
            line: l0,
            col,
            message: m.to_string(),
        };
        if c == b'\n' {
            i += 1;
            line += 1;
            lstart = i;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            loop {
                if i + 1 >= b.len() {
                    return Err(err("unterminated comment"));
                }
                if b[i] == b'*' && b[i + 1] == b'/' {
                    i += 2;
                    break;
                }
                if b[i] == b'\n' {
                    line += 1;
                    lstart = i + 1;
                }
                i += 1;
            }
            continue;
        }
        let start = i;
        let tok = if ident_start(c) {
            i += 1;
            while i < b.len() && ident_cont(b[i]) {
                i += 1;
            }
            Tok::Ident(src[start..i].to_string())
        } else if c == b'.'
            && b.get(i + 1)
                .is_some_and(|&n| ident_start(n) || n.is_ascii_digit())
        {
            i += 1;
            // Modifiers may contain `::` (`.shared::cta`, `.L2::cache_hint`).
            while i < b.len() && (ident_cont(b[i]) || (b[i] == b':' && b.get(i + 1) == Some(&b':')))
            {
                i += if b[i] == b':' { 2 } else { 1 };
            }
            Tok::Dot(src[start + 1..i].to_string())
        } else if c.is_ascii_digit() {
            lex_number(b, &mut i).map_err(|m| err(&m))?
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\n' {
                    return Err(err("unterminated string"));
                }
                i += 1;
            }
            if i >= b.len() {
                return Err(err("unterminated string"));
            }
            i += 1;
            Tok::Str(src[start + 1..i - 1].to_string())
        } else if b"{}[]();,:+-!@<>=|*/~&^?".contains(&c) {
            i += 1;
            Tok::Punct(c as char)
        } else {
            return Err(err(&format!("unexpected character '{}'", c as char)));
        };
        out.push(Token { tok, line, col });
    }
    let col = (b.len() - lstart + 1) as u32;
    out.push(Token {
        tok: Tok::Eof,
        line,
        col,
    });
    Ok(out)
}

fn lex_number(b: &[u8], i: &mut usize) -> Result<Tok, String> {
    let start = *i;
    let rest = |k: usize| b.get(k).copied().unwrap_or(0);
    // 0fXXXXXXXX (f32 bits) and 0dXXXXXXXXXXXXXXXX (f64 bits).
    if b[start] == b'0' && matches!(rest(start + 1), b'f' | b'F' | b'd' | b'D') {
        let single = matches!(rest(start + 1), b'f' | b'F');
        let n = if single { 8 } else { 16 };
        let digits = b
            .get(start + 2..start + 2 + n)
            .ok_or("truncated float literal")?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err("malformed float literal".into());
        }
        let v = u64::from_str_radix(std::str::from_utf8(digits).unwrap(), 16).unwrap();
        *i = start + 2 + n;
        let bits = if single {
            (f32::from_bits(v as u32) as f64).to_bits()
        } else {
            v
        };
        return Ok(Tok::Float { bits, single });
    }
    if b[start] == b'0' && matches!(rest(start + 1), b'x' | b'X' | b'b' | b'B') {
        let radix = if matches!(rest(start + 1), b'x' | b'X') {
            16
        } else {
            2
        };
        *i = start + 2;
        while *i < b.len() && b[*i].is_ascii_hexdigit() {
            *i += 1;
        }
        let s = std::str::from_utf8(&b[start + 2..*i]).unwrap();
        let v = u64::from_str_radix(s, radix).map_err(|_| "malformed integer literal")?;
        if rest(*i) == b'U' {
            *i += 1;
        }
        return Ok(Tok::Int(v));
    }
    while *i < b.len() && b[*i].is_ascii_digit() {
        *i += 1;
    }
    // Decimal floating point: digits '.' digits [eE[+-]digits].
    if rest(*i) == b'.' && rest(*i + 1).is_ascii_digit() || matches!(rest(*i), b'e' | b'E') {
        if rest(*i) == b'.' {
            *i += 1;
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
        }
        if matches!(rest(*i), b'e' | b'E') {
            *i += 1;
            if matches!(rest(*i), b'+' | b'-') {
                *i += 1;
            }
            while *i < b.len() && b[*i].is_ascii_digit() {
                *i += 1;
            }
        }
        let s = std::str::from_utf8(&b[start..*i]).unwrap();
        let v: f64 = s.parse().map_err(|_| "malformed float literal")?;
        return Ok(Tok::Float {
            bits: v.to_bits(),
            single: false,
        });
    }
    let s = std::str::from_utf8(&b[start..*i]).unwrap();
    let v = if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(&s[1..], 8)
    } else {
        s.parse::<u64>()
    }
    .map_err(|_| "malformed integer literal")?;
    if rest(*i) == b'U' {
        *i += 1;
    }
    Ok(Tok::Int(v))
}
