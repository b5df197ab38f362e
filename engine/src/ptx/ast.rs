//! The syntax tree of a PTX module. Instructions stay generic (opcode, modifiers, operands):
//! `lower` gives them meaning.
//!
//! Names, opcodes and modifiers are [`Name`]s: strings of up to 24 bytes (nearly all of them)
//! are stored inline, so building the tree allocates per statement, not per word. They deref to
//! `&str`.

use smallvec::SmallVec;

/// An identifier, opcode or modifier word: a `String` that keeps short text inline.
pub type Name = compact_str::CompactString;

/// The dotted modifiers of an instruction, in order: a list that holds up to four without
/// allocating. Derefs to `[Name]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mods(SmallVec<[Name; 4]>);

impl Mods {
    pub fn new() -> Mods {
        Mods(SmallVec::new())
    }
    pub fn push(&mut self, m: Name) {
        self.0.push(m);
    }
}

impl std::ops::Deref for Mods {
    type Target = [Name];
    fn deref(&self) -> &[Name] {
        &self.0
    }
}

impl std::ops::DerefMut for Mods {
    fn deref_mut(&mut self) -> &mut [Name] {
        &mut self.0
    }
}

impl<'a> IntoIterator for &'a Mods {
    type Item = &'a Name;
    type IntoIter = std::slice::Iter<'a, Name>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<const N: usize> PartialEq<[&str; N]> for Mods {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.0.len() == N && self.0.iter().zip(other).all(|(a, b)| a == b)
    }
}

/// The operands of an instruction (most have at most three).
pub type Operands = SmallVec<[Operand; 3]>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, special register, symbol or label, with an optional `.x`-style component.
    Name {
        // A `String`, not a `Name`, while isa::types clones it into its own `String`s.
        name: String,
        comp: Option<Name>,
    },
    Int(i64),
    /// Float literal as f64 bits; `single` when written `0fXXXXXXXX`.
    Float {
        bits: u64,
        single: bool,
    },
    /// `[base+offset]`, `[base]`, `[offset]`.
    Addr {
        base: Option<Name>,
        offset: i64,
    },
    /// `{a, b, ...}`.
    Vector(Vec<Operand>),
    /// `!%p`.
    Not(Box<Operand>),
    /// `%p|%q` (setp's second destination), `{a,b,c,d}|p` (tex/tld4 with a predicate).
    Pair(Box<Operand>, Box<Operand>),
    /// `(a, b)` in call syntax.
    List(Vec<Operand>),
    /// `sym+4` outside brackets (e.g. mov of a symbol address with offset).
    SymOff {
        name: String,
        offset: i64,
    },
    /// `[tex, sampler, {c0, c1}]`, `[tensorMap, {x, y}]`: a bracketed operand tuple of texture,
    /// surface and tensor instructions.
    Tuple(Vec<Operand>),
    /// `-r`: a negated register source (`vmad`).
    Neg(Box<Operand>),
    /// `sym[index]`: an element of an array variable.
    Index {
        name: String,
        index: Box<Operand>,
    },
}

#[derive(Clone, Debug)]
pub struct Instruction {
    pub pos: Pos,
    /// `(register, negated)` of an `@p` / `@!p` guard.
    pub guard: Option<(String, bool)>,
    pub opcode: Name,
    /// Dotted modifiers in order. A modifier written after an address operand (`[a].unified`,
    /// ISA 9.7.9.8) is appended here too.
    pub mods: Mods,
    pub operands: Operands,
}

impl Instruction {
    /// `opcode.mod1.mod2`, as diagnostics name it.
    pub fn full_name(&self) -> Name {
        // Written into a buffer first: most names fit one inline `Name`.
        let mut buf = [0u8; 24];
        let len = self.opcode.len() + self.mods.iter().map(|m| m.len() + 1).sum::<usize>();
        if len <= buf.len() {
            buf[..self.opcode.len()].copy_from_slice(self.opcode.as_bytes());
            let mut k = self.opcode.len();
            for m in &self.mods {
                buf[k] = b'.';
                buf[k + 1..k + 1 + m.len()].copy_from_slice(m.as_bytes());
                k += 1 + m.len();
            }
            // SAFETY: `buf[..len]` is the opcode and the modifiers (each a `str`) joined by
            // ASCII dots: valid UTF-8.
            return Name::new(unsafe { std::str::from_utf8_unchecked(&buf[..len]) });
        }
        let mut s = Name::with_capacity(len);
        s.push_str(&self.opcode);
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
    /// `sym`, `sym+off`, `generic(sym)+off`; `mask(...)` (ISA 5.4.4, `0xFF00(generic(sym))`)
    /// extracts the masked bits of the address, shifted down to bit 0.
    Sym {
        name: Name,
        offset: i64,
        generic: bool,
        mask: Option<u64>,
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
    pub ty: Name,
    pub name: String,
    /// `%r<100>`: declares `%r0` .. `%r99`.
    pub count: Option<u32>,
    /// Array dimensions; `None` for an unsized `[]`.
    pub dims: Vec<Option<u64>>,
    pub init: Option<Init>,
    #[allow(dead_code)] // kept so the tree is complete; lowering does not need it yet
    /// `.ptr` attributes of kernel parameters (`.ptr.global.align 16` gives `["global",
    /// "align 16"]`); kept for completeness.
    pub ptr_attrs: Vec<String>,
    /// `.samplerref` initializer fields: `{ filter_mode = nearest }` gives
    /// `[("filter_mode", "nearest")]`.
    pub fields: Vec<(String, String)>,
}

/// A `.callprototype`: the signature of an indirect call.
#[derive(Clone, Debug)]
pub struct Prototype {
    pub pos: Pos,
    pub ret_params: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// `.noreturn`, `.abi_preserve N`, ...
    pub directives: Vec<(String, Vec<u64>)>,
}

/// A `.loc` directive: file, line, column, and the inlining context if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    /// `function_name SYM[+off]`.
    pub function_name: Option<(String, i64)>,
    /// `inlined_at FILE LINE COL`.
    pub inlined_at: Option<(u32, u32, u32)>,
}

/// One value of a `.section` data directive: `c`, `sym`, `sym+c`, `a-b`, `a-b+c`, ...
#[derive(Clone, Debug, PartialEq)]
pub struct SectionValue {
    /// Symbols (labels, section names, variables) added (`true`) or subtracted (`false`).
    pub syms: Vec<(String, bool)>,
    pub offset: i64,
}

/// An item of a `.section` body.
#[derive(Clone, Debug, PartialEq)]
pub enum SectionItem {
    Label(String),
    /// `.b8` / `.b16` / `.b32` / `.b64` with its values (`bits` = 8, 16, 32, 64).
    Data {
        bits: u32,
        values: Vec<SectionValue>,
    },
}

/// A `.section NAME { ... }` debug section, or an `@@DWARF` line (`raw`).
#[derive(Clone, Debug)]
pub struct Section {
    pub pos: Pos,
    pub name: String,
    pub items: Vec<SectionItem>,
    /// The text of an `@@DWARF` line.
    pub raw: Option<String>,
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
    pub attrs: Vec<String>,
    pub name: String,
    pub ret_params: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// Performance directives: `(name, values)`, e.g. `("maxntid", [256, 1, 1])`.
    pub directives: Vec<(String, Vec<u64>)>,
    /// `None` for a declaration without a body.
    pub body: Option<Vec<Statement>>,
    /// `.pragma` strings of the header and body.
    pub pragmas: Vec<String>,
    /// `label: .branchtargets L1, L2;` of the body (any scope).
    pub branch_targets: Vec<(String, Vec<String>)>,
    /// `label: .calltargets f1, f2;` of the body (any scope).
    pub call_targets: Vec<(String, Vec<String>)>,
    /// `label: .callprototype ...;` of the body (any scope).
    pub prototypes: Vec<(String, Prototype)>,
    /// `.loc` directives of the body with the position of the statement that follows each.
    pub locs: Vec<(Pos, Loc)>,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub version: (u32, u32),
    pub target: Vec<String>,
    pub address_size: u32,
    pub functions: Vec<Function>,
    pub globals: Vec<VarDecl>,
    /// `.alias alias, aliasee;`
    pub aliases: Vec<(String, String)>,
    /// `.file N "name" [, timestamp, size]`.
    pub files: Vec<(u32, String)>,
    /// `.section` bodies and `@@DWARF` lines.
    pub sections: Vec<Section>,
    /// Module-scope `.pragma` strings.
    pub pragmas: Vec<String>,
}
