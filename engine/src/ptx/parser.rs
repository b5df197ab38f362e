//! Recursive-descent parser for PTX modules. It knows the grammar of directives and the generic
//! shape of instructions; it never decides whether an instruction is valid (lowering does).

use super::ast::*;
use super::lexer::{lex, Tok, Token};

#[derive(Debug)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// The newest `.version` the engine accepts (nvcc 13.5 emits 9.5).
pub const MAX_VERSION: (u32, u32) = (9, 5);

pub enum Error {
    Parse(ParseError),
    /// `.version` newer than [`MAX_VERSION`], at the given position.
    Version(ParseError),
}

type R<T> = Result<T, ParseError>;

struct Parser {
    toks: Vec<Token>,
    i: usize,
}

fn space_of(w: &str) -> Option<Space> {
    Some(match w {
        "reg" => Space::Reg,
        "sreg" => Space::Sreg,
        "const" => Space::Const,
        "global" => Space::Global,
        "local" => Space::Local,
        "param" => Space::Param,
        "shared" | "shared::cta" | "shared::cluster" => Space::Shared,
        "tex" => Space::Tex,
        _ => return None,
    })
}

const LINKING: &[&str] = &["visible", "extern", "weak", "common"];

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }
    fn pos(&self) -> Pos {
        let t = &self.toks[self.i];
        Pos {
            line: t.line,
            col: t.col,
        }
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.i].tok.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        let p = self.pos();
        Err(ParseError {
            line: p.line,
            col: p.col,
            message: msg.into(),
        })
    }
    fn describe(&self) -> String {
        match self.peek() {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Dot(s) => format!("'.{s}'"),
            Tok::Int(v) => format!("'{v}'"),
            Tok::Float { .. } => "a float literal".into(),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Eof => "end of file".into(),
        }
    }
    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(format!("expected '{c}', found {}", self.describe()))
        }
    }
    fn ident(&mut self) -> R<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.err(format!("expected an identifier, found {}", self.describe())),
        }
    }
    fn int(&mut self) -> R<i64> {
        let neg = self.eat_punct('-');
        match *self.peek() {
            Tok::Int(v) => {
                self.bump();
                Ok(if neg {
                    (v as i64).wrapping_neg()
                } else {
                    v as i64
                })
            }
            _ => self.err(format!("expected an integer, found {}", self.describe())),
        }
    }
    /// Skips the rest of the current line (for `.loc`, `.file`: no terminating `;`).
    fn skip_line(&mut self) {
        let line = self.toks[self.i].line;
        while self.toks[self.i].line == line && *self.peek() != Tok::Eof {
            self.bump();
        }
    }
    fn skip_to_semi(&mut self) -> R<()> {
        while !self.eat_punct(';') {
            if *self.peek() == Tok::Eof {
                return self.err("expected ';' before end of file");
            }
            self.bump();
        }
        Ok(())
    }
    fn skip_braces(&mut self) -> R<()> {
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.bump() {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                Tok::Eof => return self.err("unterminated '{'"),
                _ => {}
            }
        }
        Ok(())
    }

    fn module(&mut self) -> Result<Module, Error> {
        let mut m = Module {
            address_size: 64,
            ..Default::default()
        };
        let mut saw_version = false;
        loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::Dot(d) => match d.as_str() {
                    "version" => {
                        self.bump();
                        let (maj, min) = match self.bump() {
                            Tok::Float {
                                bits,
                                single: false,
                            } => {
                                let v = f64::from_bits(bits);
                                (v.trunc() as u32, ((v - v.trunc()) * 10.0).round() as u32)
                            }
                            Tok::Int(v) => (v as u32, 0),
                            _ => return Err(Error::Parse(self.mkerr(pos, "malformed .version"))),
                        };
                        if (maj, min) > MAX_VERSION {
                            return Err(Error::Version(self.mkerr(
                                pos,
                                &format!(
                                    "PTX version {maj}.{min} is newer than the supported {}.{}",
                                    MAX_VERSION.0, MAX_VERSION.1
                                ),
                            )));
                        }
                        m.version = (maj, min);
                        saw_version = true;
                    }
                    "target" => {
                        self.bump();
                        loop {
                            m.target.push(self.ident().map_err(Error::Parse)?);
                            if !self.eat_punct(',') {
                                break;
                            }
                        }
                    }
                    "address_size" => {
                        self.bump();
                        m.address_size = self.int().map_err(Error::Parse)? as u32;
                        if m.address_size != 64 && m.address_size != 32 {
                            return Err(Error::Parse(self.mkerr(pos, "bad .address_size")));
                        }
                    }
                    "file" | "loc" => self.skip_line(),
                    "section" => {
                        self.bump();
                        self.bump();
                        self.skip_braces().map_err(Error::Parse)?;
                    }
                    "pragma" | "alias" => self.skip_to_semi().map_err(Error::Parse)?,
                    _ => {
                        if !saw_version {
                            return Err(Error::Parse(
                                self.mkerr(pos, "a PTX module must begin with .version"),
                            ));
                        }
                        self.top_decl(&mut m).map_err(Error::Parse)?
                    }
                },
                _ => {
                    return Err(Error::Parse(self.mkerr(
                        pos,
                        &format!("unexpected {} at module scope", self.describe()),
                    )))
                }
            }
        }
        if !saw_version {
            return Err(Error::Parse(
                self.mkerr(self.pos(), "missing .version directive"),
            ));
        }
        Ok(m)
    }

    fn mkerr(&self, p: Pos, m: &str) -> ParseError {
        ParseError {
            line: p.line,
            col: p.col,
            message: m.to_string(),
        }
    }

    fn top_decl(&mut self, m: &mut Module) -> R<()> {
        let pos = self.pos();
        let mut attrs = Vec::new();
        while let Tok::Dot(d) = self.peek() {
            if LINKING.contains(&d.as_str()) {
                attrs.push(d.clone());
                self.bump();
            } else {
                break;
            }
        }
        match self.peek().clone() {
            Tok::Dot(d) if d == "entry" || d == "func" => {
                self.bump();
                let f = self.function(pos, d == "entry", attrs)?;
                m.functions.push(f);
                Ok(())
            }
            Tok::Dot(d) if space_of(&d).is_some() => {
                let vars = self.var_decl(attrs)?;
                self.expect_punct(';')?;
                m.globals.extend(vars);
                Ok(())
            }
            _ => self.err(format!("unexpected {} at module scope", self.describe())),
        }
    }

    fn param_list(&mut self) -> R<Vec<VarDecl>> {
        self.expect_punct('(')?;
        let mut v = Vec::new();
        if self.eat_punct(')') {
            return Ok(v);
        }
        loop {
            let mut d = self.var_decl(Vec::new())?;
            v.append(&mut d);
            if self.eat_punct(')') {
                return Ok(v);
            }
            self.expect_punct(',')?;
        }
    }

    fn function(&mut self, pos: Pos, is_entry: bool, attrs: Vec<String>) -> R<Function> {
        let mut ret_params = Vec::new();
        if !is_entry && self.is_punct('(') {
            ret_params = self.param_list()?;
        }
        let name = self.ident()?;
        let mut params = Vec::new();
        if self.is_punct('(') {
            params = self.param_list()?;
        }
        let mut directives = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Dot(d) if d == "pragma" => {
                    self.skip_to_semi()?;
                }
                Tok::Dot(d) => {
                    self.bump();
                    let mut vals = Vec::new();
                    while let Tok::Int(v) = *self.peek() {
                        self.bump();
                        vals.push(v);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                    directives.push((d, vals));
                }
                _ => break,
            }
        }
        let body = if self.eat_punct(';') {
            None
        } else {
            self.expect_punct('{')?;
            Some(self.statements()?)
        };
        Ok(Function {
            pos,
            is_entry,
            attrs,
            name,
            ret_params,
            params,
            directives,
            body,
        })
    }

    /// Statements up to and including the closing `}`.
    fn statements(&mut self) -> R<Vec<Statement>> {
        let mut out = Vec::new();
        loop {
            let pos = self.pos();
            match self.peek().clone() {
                Tok::Punct('}') => {
                    self.bump();
                    return Ok(out);
                }
                Tok::Punct('{') => {
                    self.bump();
                    out.push(Statement::Block(self.statements()?));
                }
                Tok::Eof => return self.err("unexpected end of file inside a function body"),
                Tok::Dot(d) => match d.as_str() {
                    "loc" | "file" => {
                        self.skip_line();
                        out.push(Statement::Other(pos));
                    }
                    "pragma" => {
                        self.skip_to_semi()?;
                        out.push(Statement::Other(pos));
                    }
                    _ => {
                        let mut attrs = Vec::new();
                        while let Tok::Dot(d) = self.peek() {
                            if LINKING.contains(&d.as_str()) {
                                attrs.push(d.clone());
                                self.bump();
                            } else {
                                break;
                            }
                        }
                        match self.peek() {
                            Tok::Dot(d) if space_of(d).is_some() => {}
                            _ => {
                                return self
                                    .err(format!("unexpected directive {}", self.describe()))
                            }
                        }
                        for v in self.var_decl(attrs)? {
                            out.push(Statement::Var(v));
                        }
                        self.expect_punct(';')?;
                    }
                },
                Tok::Ident(name) if *self.peek_at(1) == Tok::Punct(':') => {
                    self.bump();
                    self.bump();
                    if matches!(self.peek(), Tok::Dot(d) if d == "callprototype") {
                        self.skip_to_semi()?;
                        out.push(Statement::Other(pos));
                    } else {
                        out.push(Statement::Label(name, pos));
                    }
                }
                Tok::Punct('@') | Tok::Ident(_) => out.push(Statement::Inst(self.instruction()?)),
                _ => return self.err(format!("unexpected {}", self.describe())),
            }
        }
    }

    fn instruction(&mut self) -> R<Instruction> {
        let mut guard = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            guard = Some((self.ident()?, neg));
        }
        let pos = self.pos();
        let opcode = self.ident()?;
        let mut mods = Vec::new();
        while let Tok::Dot(d) = self.peek() {
            mods.push(d.clone());
            self.bump();
        }
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand()?);
                if self.eat_punct(';') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(Instruction {
            pos,
            guard,
            opcode,
            mods,
            operands,
        })
    }

    fn operand(&mut self) -> R<Operand> {
        match self.peek().clone() {
            Tok::Punct('!') => {
                self.bump();
                Ok(Operand::Not(Box::new(self.operand()?)))
            }
            Tok::Punct('-') => {
                self.bump();
                match self.bump() {
                    Tok::Int(v) => Ok(Operand::Int((v as i64).wrapping_neg())),
                    Tok::Float { bits, single } => Ok(Operand::Float {
                        bits: bits ^ (1 << 63),
                        single,
                    }),
                    _ => self.err("expected a number after '-'"),
                }
            }
            Tok::Int(v) => {
                self.bump();
                Ok(Operand::Int(v as i64))
            }
            Tok::Float { bits, single } => {
                self.bump();
                Ok(Operand::Float { bits, single })
            }
            Tok::Punct('[') => {
                self.bump();
                let mut base = None;
                let mut offset = 0i64;
                match self.peek().clone() {
                    Tok::Ident(s) => {
                        self.bump();
                        base = Some(s);
                    }
                    Tok::Int(_) | Tok::Punct('-') => offset = self.int()?,
                    _ => return self.err(format!("malformed address: {}", self.describe())),
                }
                while self.is_punct('+') || self.is_punct('-') {
                    let neg = self.bump() == Tok::Punct('-');
                    let v = self.int()?;
                    offset = offset.wrapping_add(if neg { v.wrapping_neg() } else { v });
                }
                self.expect_punct(']')?;
                Ok(Operand::Addr { base, offset })
            }
            Tok::Punct('{') => {
                self.bump();
                let mut v = Vec::new();
                loop {
                    v.push(self.operand()?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
                Ok(Operand::Vector(v))
            }
            Tok::Punct('(') => {
                self.bump();
                let mut v = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        v.push(self.operand()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(Operand::List(v))
            }
            Tok::Ident(name) => {
                self.bump();
                let mut comp = None;
                if let Tok::Dot(c) = self.peek() {
                    comp = Some(c.clone());
                    self.bump();
                }
                let op = Operand::Name {
                    name: name.clone(),
                    comp,
                };
                if self.eat_punct('|') {
                    return Ok(Operand::Pair(Box::new(op), Box::new(self.operand()?)));
                }
                if self.is_punct('+') {
                    self.bump();
                    let off = self.int()?;
                    return Ok(Operand::SymOff { name, offset: off });
                }
                Ok(op)
            }
            _ => self.err(format!("expected an operand, found {}", self.describe())),
        }
    }

    /// `[attrs] .space [.align N] [.ptr ...] [.vN] .type name[<N>][dims] [= init] {, name ...}`
    fn var_decl(&mut self, mut attrs: Vec<String>) -> R<Vec<VarDecl>> {
        let pos = self.pos();
        let space = match self.bump() {
            Tok::Dot(d) => match space_of(&d) {
                Some(s) => s,
                None => return self.err(format!("expected a state space, found '.{d}'")),
            },
            _ => return self.err("expected a state space"),
        };
        let (mut align, mut vec, mut ty, mut ptr_attrs) = (None, 1, None::<String>, Vec::new());
        while let Tok::Dot(d) = self.peek().clone() {
            self.bump();
            match d.as_str() {
                "align" => align = Some(self.int()? as u32),
                "v2" => vec = 2,
                "v4" => vec = 4,
                "v8" => vec = 8,
                "ptr" => ptr_attrs.push(d),
                "global" | "const" | "local" | "shared" if !ptr_attrs.is_empty() => {
                    ptr_attrs.push(d)
                }
                _ if LINKING.contains(&d.as_str()) || d == "attribute" => attrs.push(d),
                _ => ty = Some(d),
            }
            // `.attribute(.managed)`: skip the parenthesised list.
            if self.is_punct('(') {
                while !self.eat_punct(')') {
                    if *self.peek() == Tok::Eof {
                        return self.err("unterminated '('");
                    }
                    self.bump();
                }
            }
        }
        let ty = match ty {
            Some(t) => t,
            None => return self.err("variable declaration without a type"),
        };
        let mut out = Vec::new();
        loop {
            let vpos = self.pos();
            let name = self.ident()?;
            let mut count = None;
            if self.eat_punct('<') {
                count = Some(self.int()? as u32);
                self.expect_punct('>')?;
            }
            let mut dims = Vec::new();
            while self.eat_punct('[') {
                if self.eat_punct(']') {
                    dims.push(None);
                } else {
                    dims.push(Some(self.int()? as u64));
                    self.expect_punct(']')?;
                }
            }
            let init = if self.eat_punct('=') {
                Some(self.init()?)
            } else {
                None
            };
            out.push(VarDecl {
                pos: if out.is_empty() { pos } else { vpos },
                space,
                attrs: attrs.clone(),
                align,
                vec,
                ty: ty.clone(),
                name,
                count,
                dims,
                init,
                ptr_attrs: ptr_attrs.clone(),
            });
            if !(space == Space::Reg && self.eat_punct(',')) {
                break;
            }
        }
        Ok(out)
    }

    fn init(&mut self) -> R<Init> {
        match self.peek().clone() {
            Tok::Punct('{') => {
                self.bump();
                let mut v = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        v.push(self.init()?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(Init::List(v))
            }
            Tok::Float { bits, single } => {
                self.bump();
                Ok(Init::Float { bits, single })
            }
            Tok::Punct('-') if matches!(self.peek_at(1), Tok::Float { .. }) => {
                self.bump();
                match self.bump() {
                    Tok::Float { bits, single } => Ok(Init::Float {
                        bits: bits ^ (1 << 63),
                        single,
                    }),
                    _ => unreachable!(),
                }
            }
            Tok::Int(_) | Tok::Punct('-') => Ok(Init::Int(self.int()?)),
            Tok::Ident(s) => {
                self.bump();
                let (name, generic) = if (s == "generic" || s == "mask") && self.eat_punct('(') {
                    let n = self.ident()?;
                    self.expect_punct(')')?;
                    (n, s == "generic")
                } else {
                    (s, false)
                };
                let mut offset = 0;
                while self.is_punct('+') || self.is_punct('-') {
                    let neg = self.bump() == Tok::Punct('-');
                    let v = self.int()?;
                    offset += if neg { -v } else { v };
                }
                Ok(Init::Sym {
                    name,
                    offset,
                    generic,
                })
            }
            _ => self.err(format!("malformed initializer: {}", self.describe())),
        }
    }
}

/// Parses a whole module.
pub fn parse(src: &str) -> Result<Module, Error> {
    let toks = lex(src).map_err(|e| {
        Error::Parse(ParseError {
            line: e.line,
            col: e.col,
            message: e.message,
        })
    })?;
    let mut p = Parser { toks, i: 0 };
    p.module()
}
