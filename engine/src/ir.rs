//! The lowered form a kernel runs as. Every op is typed and pre-resolved: registers are dense
//! indices, immediates are bit patterns, symbols are addresses or offsets in their state space,
//! branch targets and reconvergence points are instruction indices. Arithmetic ops carry a
//! function that computes all 32 lanes at once (chosen at load for the op and type), so the
//! executor does one indirect call per instruction and the lane loop vectorizes.

use std::fmt;

pub type Reg = u32;
pub type Lanes = [u64; 32];
pub type UnFn = fn(&Lanes, &mut Lanes);
pub type BinFn = fn(&Lanes, &Lanes, &mut Lanes);
pub type TerFn = fn(&Lanes, &Lanes, &Lanes, &mut Lanes);
pub type QuadFn = fn(&Lanes, &Lanes, &Lanes, &Lanes, &mut Lanes);

/// Generic-address windows for shared and local memory: non-canonical on every 64-bit host, so
/// they can never collide with a device (host) address. The low 32 bits are the offset in the
/// window, so truncating a generic shared address to 32 bits yields the shared address as on
/// hardware.
pub const SHARED_WINDOW: u64 = 0xC000_0000_0000_0000;
pub const LOCAL_WINDOW: u64 = 0xD000_0000_0000_0000;
pub const WINDOW_SIZE: u64 = 1 << 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(Reg),
    Imm(u64),
}

/// Flags applied around float ops on f32 values: flush subnormal inputs and results to zero,
/// and clamp the result to [0, 1] (NaN -> 0).
pub const FL_FTZ: u8 = 1;
pub const FL_SAT: u8 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MSpace {
    /// Global and const: device addresses, checked against the allocation map.
    Global,
    Shared,
    /// Per-thread local memory (also holds `.param` variables of device functions).
    Local,
    /// The kernel's parameter block.
    KParam,
    /// Resolved per lane through the shared and local windows, else global.
    Generic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: Option<Reg>,
    pub off: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SReg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Gridid,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    Clock64,
    Globaltimer,
    DynamicSmemSize,
    TotalSmemSize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomTy {
    U32,
    S32,
    U64,
    S64,
    F32,
    F64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// Scalar types as cvt sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F32,
    F64,
}

impl Ty {
    pub fn bits(self) -> u32 {
        match self {
            Ty::U8 | Ty::S8 => 8,
            Ty::U16 | Ty::S16 | Ty::F16 => 16,
            Ty::U32 | Ty::S32 | Ty::F32 => 32,
            Ty::U64 | Ty::S64 | Ty::F64 => 64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }
    pub fn float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }
}

/// Rounding of cvt: `Rn`..`Rp` for float results, `Rni`..`Rpi` round a float to an integral value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    None,
    Rn,
    Rz,
    Rm,
    Rp,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Rnd {
    /// The directed IEEE modes (`.rz/.rm/.rp`), which need exact arithmetic; None otherwise.
    pub fn directed(self) -> Option<crate::softfloat::Mode> {
        use crate::softfloat::Mode;
        match self {
            Rnd::Rz => Some(Mode::Rz),
            Rnd::Rm => Some(Mode::Rm),
            Rnd::Rp => Some(Mode::Rp),
            _ => None,
        }
    }
}

/// Extended-precision arithmetic (add.cc, addc, sub.cc, subc, mad.cc, madc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryOp {
    Add,
    Sub,
    MadLo,
    MadHi,
}

/// The extern functions the runtime provides (nvcc calls them by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SysCall {
    Vprintf,
    AssertFail,
    Malloc,
    Free,
}

/// An argument of a system call: a `.param` variable in local memory (offset, bytes), or a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SysArg {
    Local(u32, u32),
    Reg(Reg),
    Imm(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SysRet {
    Local(u32, u32),
    Reg(Reg),
}

pub enum Op {
    Un {
        f: UnFn,
        fl: u8,
        d: Reg,
        a: Src,
    },
    Bin {
        f: BinFn,
        fl: u8,
        d: Reg,
        a: Src,
        b: Src,
    },
    Ter {
        f: TerFn,
        fl: u8,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    Quad {
        f: QuadFn,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    /// setp: `f` yields 0/1 per lane; `dn` receives the complement (`p|q`); `comb` combines with
    /// a predicate operand (`.and/.or/.xor`, optionally negated).
    Setp {
        f: BinFn,
        fl: u8,
        a: Src,
        b: Src,
        d: Option<Reg>,
        dn: Option<Reg>,
        comb: Option<(BoolOp, Src, bool)>,
    },
    Cvt {
        d: Reg,
        a: Src,
        dst: Ty,
        src: Ty,
        rnd: Rnd,
        sat: bool,
        ftz: bool,
    },
    /// Arithmetic with the condition-code carry flag, kept per lane in the hidden register `cc`:
    /// `cin` reads it (addc/subc/madc), `cout` writes the carry (or borrow) out (`.cc`).
    Carry {
        op: CarryOp,
        bits: u32,
        signed: bool,
        cin: bool,
        cout: bool,
        cc: Reg,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `mov.b64 d, {a, b}`: concatenates `parts` of `bits` each, first part lowest.
    Pack {
        d: Reg,
        parts: Vec<Src>,
        bits: u32,
    },
    /// `mov.b64 {a, b}, s`.
    Unpack {
        ds: Vec<Option<Reg>>,
        a: Src,
        bits: u32,
    },
    Sreg {
        d: Reg,
        s: SReg,
    },
    /// Loads `n` elements of `size` bytes; `sext` sign-extends each to 64 bits.
    Ld {
        space: MSpace,
        size: u8,
        sext: bool,
        n: u8,
        d: [Option<Reg>; 4],
        addr: Addr,
    },
    St {
        space: MSpace,
        size: u8,
        n: u8,
        s: [Src; 4],
        addr: Addr,
    },
    Atom {
        space: MSpace,
        op: AtomOp,
        ty: AtomTy,
        d: Option<Reg>,
        addr: Addr,
        a: Src,
        b: Src,
    },
    /// Branch to `target`; `rpc` is where divergent lanes reconverge (immediate post-dominator).
    Bra {
        target: u32,
        rpc: u32,
    },
    /// Call of a device function (lowered into this kernel's code): copy argument bytes in local
    /// memory, then run from `entry` until its exit `exit`.
    Call {
        entry: u32,
        exit: u32,
        copies: Vec<(u32, u32, u32)>,
    },
    /// Copies return values back after a call: `(from, to, bytes)` in local memory.
    CopyLocal {
        copies: Vec<(u32, u32, u32)>,
    },
    /// A call of a runtime-provided extern function.
    Sys {
        call: SysCall,
        args: Vec<SysArg>,
        ret: Option<SysRet>,
    },
    Exit,
    /// The end of a function: never executed (reaching it pops the reconvergence entry).
    End,
    Bar {
        id: Src,
        count: Option<Src>,
        arrive: bool,
    },
    Shfl {
        mode: ShflMode,
        d: Reg,
        p: Option<Reg>,
        a: Src,
        b: Src,
        c: Src,
    },
    Vote {
        mode: VoteMode,
        d: Reg,
        a: Src,
        neg: bool,
    },
    Activemask {
        d: Reg,
    },
    /// `isspacep`: 1 when the generic address is in the space.
    Isspacep {
        d: Reg,
        a: Src,
        space: MSpace,
    },
    Nop,
    Trap,
}

pub struct Inst {
    pub op: Op,
    /// `(predicate register, negated)`.
    pub guard: Option<(Reg, bool)>,
}

/// Side table of an instruction for diagnostics: PTX line and full opcode name.
#[derive(Clone, Debug)]
pub struct InstInfo {
    pub line: u32,
    pub name: String,
}

/// One kernel, lowered with every device function it calls.
pub struct Program {
    pub insts: Vec<Inst>,
    pub info: Vec<InstInfo>,
    pub entry: u32,
    pub exit: u32,
    pub nregs: u32,
    pub shared_static: u32,
    /// Offset of dynamic (`extern .shared`) memory in the shared window.
    pub dyn_shared_off: u32,
    pub local_bytes: u32,
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("insts", &self.insts.len())
            .field("nregs", &self.nregs)
            .field("shared_static", &self.shared_static)
            .field("local_bytes", &self.local_bytes)
            .finish()
    }
}
