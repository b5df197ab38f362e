//! Tokens of PTX text, each with its line and column (1-based) for diagnostics.
//!
//! The lexer is a streaming iterator over the source bytes: tokens borrow their text from the
//! source, so lexing allocates nothing. A malformed token (unterminated comment or string,
//! malformed literal, stray character) is returned as [`Tok::Error`]; the parser reports it with
//! its position when it reaches it.

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok<'a> {
    /// An identifier: `foo`, `%r1`, `$L__BB0_2`, `_` (the sink), `__local_depot0`.
    Ident(&'a str),
    /// A dotted word, without its dot: `.reg`, `.u32`, `.shared::cta`, `.m16n8k16`,
    /// `.L2::cache_hint`, `.x`, `.2d`.
    Dot(&'a str),
    /// An integer literal (decimal, hex, octal, binary) and whether it is unsigned (`U` suffix,
    /// or too large for `.s64`), as ISA 4.5.1 defines.
    Int(u64, bool),
    /// A float literal as f64 bits; `single` is true for the `0f` form (value exact as f32).
    Float {
        bits: u64,
        single: bool,
    },
    /// A string literal, without its quotes (escapes kept as written).
    Str(&'a str),
    /// Punctuation and operators: `{ } [ ] ( ) ; , : + - ! @ < > = | * / ~ & ^ ? %` and the
    /// two-character operators `<< >> <= >= == != && ||`.
    Punct(&'static str),
    /// A malformed token; the message says why.
    Error(&'static str),
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    pub line: u32,
    pub col: u32,
    /// Byte range of the token in the source.
    pub start: u32,
    pub end: u32,
}

/// Character classes, one table lookup per byte: bit 0 `followsym`, bit 1 `ident_start`.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let alpha = b.is_ascii_alphabetic();
        if alpha || b.is_ascii_digit() || b == b'_' || b == b'$' {
            t[c] |= 1;
        }
        if alpha || b == b'_' || b == b'$' || b == b'%' {
            t[c] |= 2;
        }
        c += 1;
    }
    t
};

#[inline]
fn ident_start(c: u8) -> bool {
    CLASS[c as usize] & 2 != 0
}

#[inline]
fn followsym(c: u8) -> bool {
    CLASS[c as usize] & 1 != 0
}

const PUNCT1: &[&str] = &[
    "{", "}", "[", "]", "(", ")", ";", ",", ":", "+", "-", "!", "@", "<", ">", "=", "|", "*", "/",
    "~", "&", "^", "?", "%",
];
const PUNCT2: &[&str] = &["<<", ">>", "<=", ">=", "==", "!=", "&&", "||"];

pub struct Lexer<'a> {
    src: &'a str,
    b: &'a [u8],
    i: usize,
    line: u32,
    lstart: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            b: src.as_bytes(),
            i: 0,
            line: 1,
            lstart: 0,
        }
    }

    pub fn src(&self) -> &'a str {
        self.src
    }

    /// Skips whitespace and comments; an unterminated comment gives its line and column.
    fn skip_trivia(&mut self) -> Result<(), (u32, u32)> {
        let b = self.b;
        while self.i < b.len() {
            let c = b[self.i];
            if c == b'\n' {
                self.i += 1;
                self.line += 1;
                self.lstart = self.i;
            } else if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0b || c == 0x0c {
                self.i += 1;
            } else if c == b'/' && b.get(self.i + 1) == Some(&b'/') {
                while self.i < b.len() && b[self.i] != b'\n' {
                    self.i += 1;
                }
            } else if c == b'/' && b.get(self.i + 1) == Some(&b'*') {
                let mut j = self.i + 2;
                let at = (self.line, (self.i - self.lstart + 1) as u32);
                loop {
                    if j + 1 >= b.len() {
                        return Err(at);
                    }
                    if b[j] == b'*' && b[j + 1] == b'/' {
                        j += 2;
                        break;
                    }
                    if b[j] == b'\n' {
                        self.line += 1;
                        self.lstart = j + 1;
                    }
                    j += 1;
                }
                self.i = j;
            } else {
                break;
            }
        }
        Ok(())
    }

    pub fn next_token(&mut self) -> Token<'a> {
        if let Err((line0, col0)) = self.skip_trivia() {
            let start = self.i as u32;
            self.i = self.b.len();
            return Token {
                tok: Tok::Error("unterminated comment"),
                line: line0,
                col: col0,
                start,
                end: start,
            };
        }
        let b = self.b;
        let start = self.i;
        let line = self.line;
        let col = (start - self.lstart + 1) as u32;
        let tok = if start >= b.len() {
            Tok::Eof
        } else {
            let c = b[start];
            if c.is_ascii_alphabetic()
                || ((c == b'_' || c == b'$' || c == b'%') && {
                    // `_` alone is the sink; `%` or `$` alone is not an identifier.
                    c == b'_' || b.get(start + 1).is_some_and(|&n| followsym(n))
                })
            {
                let mut i = start + 1;
                while i < b.len() && followsym(b[i]) {
                    i += 1;
                }
                self.i = i;
                Tok::Ident(&self.src[start..i])
            } else if c == b'.' && b.get(start + 1).is_some_and(|&n| ident_start(n)) {
                self.dot_word(start)
            } else if c == b'.' && b.get(start + 1).is_some_and(u8::is_ascii_digit) {
                // `.5` is a float literal, `.2d` / `.16x64b` a dotted word.
                let mut j = start + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let exp = matches!(b.get(j), Some(b'e' | b'E'))
                    && match b.get(j + 1) {
                        Some(d) if d.is_ascii_digit() => true,
                        Some(b'+' | b'-') => b.get(j + 2).is_some_and(u8::is_ascii_digit),
                        _ => false,
                    };
                if exp || !b.get(j).is_some_and(|&n| followsym(n)) {
                    self.number(start)
                } else {
                    self.dot_word(start)
                }
            } else if c.is_ascii_digit() {
                self.number(start)
            } else if c == b'"' {
                let mut i = start + 1;
                let mut tok = Tok::Error("unterminated string");
                while i < b.len() && b[i] != b'\n' {
                    if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] != b'\n' {
                        i += 2;
                        continue;
                    }
                    if b[i] == b'"' {
                        tok = Tok::Str(&self.src[start + 1..i]);
                        i += 1;
                        break;
                    }
                    i += 1;
                }
                self.i = i.min(b.len());
                tok
            } else {
                // Most punctuation is one character and cannot start a two-character operator.
                let two = match c {
                    b'<' | b'>' | b'=' | b'!' | b'&' | b'|' => b
                        .get(start..start + 2)
                        .and_then(|s| PUNCT2.iter().find(|p| p.as_bytes() == s).copied()),
                    _ => None,
                };
                if let Some(p) = two {
                    self.i = start + 2;
                    Tok::Punct(p)
                } else if let Some(p) = PUNCT1.iter().find(|p| p.as_bytes()[0] == c) {
                    self.i = start + 1;
                    Tok::Punct(p)
                } else {
                    // Skip the whole (possibly multi-byte) character.
                    let mut i = start + 1;
                    while i < b.len() && !self.src.is_char_boundary(i) {
                        i += 1;
                    }
                    self.i = i;
                    Tok::Error("unexpected character")
                }
            }
        };
        Token {
            tok,
            line,
            col,
            start: start as u32,
            end: self.i as u32,
        }
    }

    /// A dotted word starting at `start` (the dot). Words may contain `::`
    /// (`.shared::cta`, `.L2::cache_hint`, `.mbarrier::complete_tx::bytes`).
    fn dot_word(&mut self, start: usize) -> Tok<'a> {
        let b = self.b;
        let mut i = start + 1;
        while i < b.len() {
            if followsym(b[i]) {
                i += 1;
            } else if b[i] == b':' && b.get(i + 1) == Some(&b':') {
                i += 2;
            } else {
                break;
            }
        }
        self.i = i;
        Tok::Dot(&self.src[start + 1..i])
    }

    fn number(&mut self, start: usize) -> Tok<'a> {
        let b = self.b;
        let at = |k: usize| b.get(k).copied().unwrap_or(0);
        let mut i = start;
        // 0fXXXXXXXX (f32 bits) and 0dXXXXXXXXXXXXXXXX (f64 bits).
        if at(i) == b'0' && matches!(at(i + 1), b'f' | b'F' | b'd' | b'D') {
            let single = matches!(at(i + 1), b'f' | b'F');
            let mut j = i + 2;
            while j < b.len() && b[j].is_ascii_hexdigit() {
                j += 1;
            }
            self.i = j;
            let digits = &self.src[i + 2..j];
            if digits.len() != if single { 8 } else { 16 } || followsym(at(j)) {
                self.i = self.skip_word(j);
                return Tok::Error("malformed hexadecimal float literal");
            }
            let v = u64::from_str_radix(digits, 16).unwrap_or(0);
            let bits = if single {
                (f32::from_bits(v as u32) as f64).to_bits()
            } else {
                v
            };
            return Tok::Float { bits, single };
        }
        if at(i) == b'0' && matches!(at(i + 1), b'x' | b'X' | b'b' | b'B') {
            let radix = if matches!(at(i + 1), b'x' | b'X') {
                16
            } else {
                2
            };
            let mut j = i + 2;
            while j < b.len() && (b[j] as char).is_digit(radix) {
                j += 1;
            }
            let v = u64::from_str_radix(&self.src[i + 2..j], radix);
            return self.int_end(j, v.ok());
        }
        while at(i).is_ascii_digit() {
            i += 1;
        }
        // Decimal floating point: digits [. digits] [e[+-]digits] (ISA 4.5.2), or `.digits`.
        let frac = at(i) == b'.' && !ident_start(at(i + 1));
        let exp_at = |k: usize| {
            matches!(at(k), b'e' | b'E')
                && (at(k + 1).is_ascii_digit()
                    || (matches!(at(k + 1), b'+' | b'-') && at(k + 2).is_ascii_digit()))
        };
        if frac || exp_at(i) {
            if frac {
                i += 1;
                while at(i).is_ascii_digit() {
                    i += 1;
                }
            }
            if exp_at(i) {
                i += 2;
                while at(i).is_ascii_digit() {
                    i += 1;
                }
            }
            self.i = i;
            if followsym(at(i)) {
                self.i = self.skip_word(i);
                return Tok::Error("malformed float literal");
            }
            return match self.src[start..i].parse::<f64>() {
                Ok(v) => Tok::Float {
                    bits: v.to_bits(),
                    single: false,
                },
                Err(_) => Tok::Error("malformed float literal"),
            };
        }
        let s = &self.src[start..i];
        let v = if s.len() > 1 && s.starts_with('0') {
            u64::from_str_radix(&s[1..], 8).ok()
        } else {
            s.parse::<u64>().ok()
        };
        self.int_end(i, v)
    }

    /// Finishes an integer literal at `j`: optional `U` suffix, nothing glued after it.
    fn int_end(&mut self, mut j: usize, v: Option<u64>) -> Tok<'a> {
        let mut unsigned = false;
        if self.b.get(j) == Some(&b'U') {
            unsigned = true;
            j += 1;
        }
        self.i = j;
        if self.b.get(j).is_some_and(|&c| followsym(c)) {
            self.i = self.skip_word(j);
            return Tok::Error("malformed integer literal");
        }
        match v {
            Some(v) => Tok::Int(v, unsigned || v > i64::MAX as u64),
            None => Tok::Error("malformed integer literal"),
        }
    }

    fn skip_word(&self, mut j: usize) -> usize {
        while j < self.b.len() && followsym(self.b[j]) {
            j += 1;
        }
        j
    }
}

/// Lexes the whole text (for tests and tools; the parser streams).
pub fn lex(src: &str) -> Vec<Token<'_>> {
    let mut l = Lexer::new(src);
    let mut v = Vec::new();
    loop {
        let t = l.next_token();
        let end = t.tok == Tok::Eof;
        v.push(t);
        if end {
            return v;
        }
    }
}
