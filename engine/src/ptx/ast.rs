//! The syntax tree of a PTX module. Instructions stay generic (opcode, modifiers, operands):
//! `lower` gives them meaning.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, special register, symbol or label, with an optional `.x`-style component.
    Name {
        name: String,
        comp: Option<String>,
    },
    Int(i64),
    /// Float literal as f64 bits; `single` when written `0fXXXXXXXX`.
    Float {
        bits: u64,
        single: bool,
    },
    /// `[base+offset]`, `[base]`, `[offset]`.
    Addr {
        base: Option<String>,
        offset: i64,
    },
    /// `{a, b, ...}`.
    Vector(Vec<Operand>),
    /// `!%p`.
    Not(Box<Operand>),
    /// `%p|%q` (setp's second destination).
    Pair(Box<Operand>, Box<Operand>),
    /// `(a, b)` in call syntax.
    List(Vec<Operand>),
    /// `sym+4` outside brackets (e.g. mov of a symbol address with offset).
    SymOff {
        name: String,
        offset: i64,
    },
}

#[derive(Clone, Debug)]
pub struct Instruction {
    pub pos: Pos,
    /// `(register, negated)` of an `@p` / `@!p` guard.
    pub guard: Option<(String, bool)>,
    pub opcode: String,
    pub mods: Vec<String>,
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// `opcode.mod1.mod2`, as diagnostics name it.
    pub fn full_name(&self) -> String {
        let mut s = self.opcode.clone();
        for m in &self.mods {
            s.push('.');
            s.push_str(m);
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
}

/// Initializer element of a variable: a number or the address of a symbol (plus offset).
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Int(i64),
    Float {
        bits: u64,
        single: bool,
    },
    Sym {
        name: String,
        offset: i64,
        generic: bool,
    },
    List(Vec<Init>),
}

#[derive(Clone, Debug)]
pub struct VarDecl {
    pub pos: Pos,
    pub space: Space,
    /// `.visible`, `.extern`, `.weak`, `.common` and other linking or attribute words.
    pub attrs: Vec<String>,
    pub align: Option<u32>,
    /// `.v2` / `.v4` (1 when scalar).
    pub vec: u32,
    /// Element type word (`b32`, `f32`, `pred`, ...).
    pub ty: String,
    pub name: String,
    /// `%r<100>`: declares `%r0` .. `%r99`.
    pub count: Option<u32>,
    /// Array dimensions; `None` for an unsized `[]`.
    pub dims: Vec<Option<u64>>,
    pub init: Option<Init>,
    #[allow(dead_code)] // kept so the tree is complete; lowering does not need it yet
    /// `.ptr` attributes of kernel parameters (`.ptr.global.align 16`); kept for completeness.
    pub ptr_attrs: Vec<String>,
}

#[derive(Clone, Debug)]
pub enum Statement {
    Inst(Instruction),
    Label(String, Pos),
    Var(VarDecl),
    /// `{ ... }`: a nested scope.
    Block(Vec<Statement>),
    /// `label: .callprototype ...;` and other directives with no run-time effect.
    Other(#[allow(dead_code)] Pos),
}

#[derive(Clone, Debug)]
pub struct Function {
    pub pos: Pos,
    pub is_entry: bool,
    #[allow(dead_code)] // linking attributes: needed once modules are linked
    pub attrs: Vec<String>,
    pub name: String,
    pub ret_params: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// Performance directives: `(name, values)`, e.g. `("maxntid", [256, 1, 1])`.
    pub directives: Vec<(String, Vec<u64>)>,
    /// `None` for a declaration without a body.
    pub body: Option<Vec<Statement>>,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub version: (u32, u32),
    pub target: Vec<String>,
    pub address_size: u32,
    pub functions: Vec<Function>,
    pub globals: Vec<VarDecl>,
}
