//! The lowered form a kernel runs as. Every op is typed and pre-resolved: registers are dense
//! indices, immediates are bit patterns, symbols are addresses or offsets in their state space,
//! branch targets and reconvergence points are instruction indices. Arithmetic ops are named
//! operations of [`crate::sem`] with their modifiers, each resolved at load to the function that
//! computes all 32 lanes at once, so the executor does one indirect call per instruction and the
//! lane loop vectorizes.

use std::fmt;

pub use crate::sem::{
    BinFn, BinOp, CmpOp, FloatMods, LaneOp, Lanes, QuadFn, QuadOp, Resolved, Scalar, ScalarFn,
    TerFn, TerOp, UnFn, UnOp,
};

pub type Reg = u32;
/// A resolved operation of each arity (see [`Resolved`]).
pub type Un = Resolved<UnOp, UnFn>;
pub type Bin = Resolved<BinOp, BinFn>;
pub type Ter = Resolved<TerOp, TerFn>;
pub type Quad = Resolved<QuadOp, QuadFn>;
pub type Compare = Resolved<CmpOp, BinFn>;
pub type PerLane = Resolved<LaneOp, ScalarFn>;

pub use crate::sem::addr::*;
pub use crate::tex::{Geom as TexGeom, Query as TexQuery, Sampler as TexSampler};

pub(crate) mod operands;
mod print;
pub(crate) mod regset;
mod surf;
pub use surf::*;
pub(crate) mod uninit;
pub(crate) mod verify;
pub use crate::sem::types::{AtomOp, AtomTy, ReduxOp, Rnd, ShflMode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(Reg),
    Imm(u64),
}

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
    /// `%aggr_smem_size`: shared memory including the reserved region (none here).
    AggrSmemSize,
    /// `%reserved_smem_offset_begin/end/_0/_1`: the reserved region is empty and sits after
    /// the CTA's shared memory.
    ReservedSmemEnd,
    /// `%clock_hi`: the upper half of `%clock64`.
    ClockHi,
    /// `%envreg<n>`: the driver's launch environment. For a cooperative launch `%envreg1`
    /// (high half) and `%envreg2` (low half) hold the grid workspace address that
    /// cooperative groups' `grid.sync()` uses; everything else reads as zero.
    Envreg(u8),
    /// `%cluster_ctaid.*`: the CTA's position inside its cluster.
    ClusterCtaid(u8),
    /// `%cluster_nctaid.*`: the launch's cluster shape.
    ClusterNctaid(u8),
    /// `%cluster_ctarank`: the CTA's linear rank inside its cluster.
    ClusterCtarank,
    /// `%cluster_nctarank`: CTAs per cluster.
    ClusterNctarank,
    /// `%clusterid.*`: the cluster's position in the grid of clusters.
    Clusterid(u8),
    /// `%nclusterid.*`: clusters per grid dimension.
    Nclusterid(u8),
    /// `%is_explicit_cluster`: 1 when the launch named a cluster shape (at launch time or by
    /// `.reqnctapercluster`), whatever its size: an explicit 1x1x1 cluster included (ISA 10.11).
    IsExplicitCluster,
    /// Not a PTX register: the generic address of the launch's global copy of the kernel
    /// parameter block (what `cvta.param` adds to a parameter's offset).
    ParamWindow,
    /// Registers that read as zero here: `%envreg<32>` other than the above,
    /// `%reserved_smem_offset_cap`, `%current_graph_exec` (not launched from a graph),
    /// `%pm0..7(_64)` (no performance monitor events are counted).
    Zero,
}

/// The reductions of `barrier.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRed {
    Popc,
    And,
    Or,
}

/// mbarrier operations (ISA 9.7.13.15). Operands `a`/`b` of [`Op::Mbar`] are given per variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarOp {
    /// `a` = expected arrival count.
    Init,
    Inval,
    /// An arrive-on of count `a`; `drop` also lowers the expected count by `a`; `tx` performs an
    /// expect-tx of `b` first; `no_complete` must not complete the phase.
    Arrive {
        drop: bool,
        tx: bool,
        no_complete: bool,
        /// `.shared::cluster` named. In a kernel of CTA pairs ([`Program::cta_pair`]) such an
        /// arrive-on at an address of the executing CTA's own (no rank field) goes to the even
        /// CTA of its pair, as CUTLASS's peer-bit-cleared address does on a GPU (see
        /// `exec::sched`).
        cluster: bool,
    },
    /// `a` = tx count.
    ExpectTx,
    CompleteTx,
    /// `test_wait` / `try_wait` on the phase of state `a`, or (`parity`) of parity `a`.
    Wait {
        parity: bool,
        try_: bool,
    },
    /// `cp.async.mbarrier.arrive`: copies are done at issue, so without `.noinc` the increment
    /// and the arrive-on cancel out; with it, an arrive-on.
    CpAsyncArrive {
        noinc: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
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
    /// `cudaGraphSetConditional(handle, value)`: the driver makes a conditional handle the
    /// address of its 32-bit condition variable, so this stores `value` there.
    GraphSetConditional,
    /// A function of the device runtime (dynamic parallelism), see `exec::devrt`.
    Devrt(DevrtCall),
}

/// The device runtime's functions that device code calls by name: CUDA 12's `__cudaCDP2*`
/// names, and the same functions under their CUDA 11 names (`cudaLaunchDeviceV2`, ...), as
/// `cuda_device_runtime_api.h` declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevrtCall {
    GetParameterBuffer,
    GetParameterBufferV2,
    LaunchDevice,
    LaunchDeviceV2,
    Malloc,
    Free,
    GetLastError,
    PeekAtLastError,
    GetErrorString,
    GetErrorName,
    GetDeviceCount,
    GetDevice,
    DeviceGetAttribute,
    DeviceGetLimit,
    DeviceGetCacheConfig,
    DeviceGetSharedMemConfig,
    StreamCreateWithFlags,
    StreamDestroy,
    StreamWaitEvent,
    EventCreateWithFlags,
    EventRecord,
    EventRecordWithFlags,
    EventDestroy,
    FuncGetAttributes,
    MemcpyAsync,
    Memcpy2DAsync,
    Memcpy3DAsync,
    MemsetAsync,
    Memset2DAsync,
    Memset3DAsync,
    RuntimeGetVersion,
    OccupancyMaxActiveBlocksPerMultiprocessor,
    OccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
}

impl DevrtCall {
    /// Each function: its name without prefix, and its parameter and return counts.
    const TABLE: &'static [(&'static str, DevrtCall, usize, usize)] = &[
        ("GetParameterBuffer", DevrtCall::GetParameterBuffer, 2, 1),
        (
            "GetParameterBufferV2",
            DevrtCall::GetParameterBufferV2,
            4,
            1,
        ),
        ("LaunchDevice", DevrtCall::LaunchDevice, 6, 1),
        ("LaunchDeviceV2", DevrtCall::LaunchDeviceV2, 2, 1),
        ("Malloc", DevrtCall::Malloc, 2, 1),
        ("Free", DevrtCall::Free, 1, 1),
        ("GetLastError", DevrtCall::GetLastError, 0, 1),
        ("PeekAtLastError", DevrtCall::PeekAtLastError, 0, 1),
        ("GetErrorString", DevrtCall::GetErrorString, 1, 1),
        ("GetErrorName", DevrtCall::GetErrorName, 1, 1),
        ("GetDeviceCount", DevrtCall::GetDeviceCount, 1, 1),
        ("GetDevice", DevrtCall::GetDevice, 1, 1),
        ("DeviceGetAttribute", DevrtCall::DeviceGetAttribute, 3, 1),
        ("DeviceGetLimit", DevrtCall::DeviceGetLimit, 2, 1),
        (
            "DeviceGetCacheConfig",
            DevrtCall::DeviceGetCacheConfig,
            1,
            1,
        ),
        (
            "DeviceGetSharedMemConfig",
            DevrtCall::DeviceGetSharedMemConfig,
            1,
            1,
        ),
        (
            "StreamCreateWithFlags",
            DevrtCall::StreamCreateWithFlags,
            2,
            1,
        ),
        ("StreamDestroy", DevrtCall::StreamDestroy, 1, 1),
        ("StreamWaitEvent", DevrtCall::StreamWaitEvent, 3, 1),
        (
            "EventCreateWithFlags",
            DevrtCall::EventCreateWithFlags,
            2,
            1,
        ),
        ("EventRecord", DevrtCall::EventRecord, 2, 1),
        (
            "EventRecordWithFlags",
            DevrtCall::EventRecordWithFlags,
            3,
            1,
        ),
        ("EventDestroy", DevrtCall::EventDestroy, 1, 1),
        ("FuncGetAttributes", DevrtCall::FuncGetAttributes, 2, 1),
        ("MemcpyAsync", DevrtCall::MemcpyAsync, 5, 1),
        ("Memcpy2DAsync", DevrtCall::Memcpy2DAsync, 8, 1),
        ("Memcpy3DAsync", DevrtCall::Memcpy3DAsync, 2, 1),
        ("MemsetAsync", DevrtCall::MemsetAsync, 4, 1),
        ("Memset2DAsync", DevrtCall::Memset2DAsync, 6, 1),
        ("Memset3DAsync", DevrtCall::Memset3DAsync, 4, 1),
        ("RuntimeGetVersion", DevrtCall::RuntimeGetVersion, 1, 1),
        (
            "OccupancyMaxActiveBlocksPerMultiprocessor",
            DevrtCall::OccupancyMaxActiveBlocksPerMultiprocessor,
            4,
            1,
        ),
        (
            "OccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            DevrtCall::OccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
            5,
            1,
        ),
    ];

    /// The function `name` calls: `__cudaCDP2X` (CUDA 12 and later) or `cudaX` (CUDA 11).
    pub fn by_name(name: &str) -> Option<DevrtCall> {
        let base = name
            .strip_prefix("__cudaCDP2")
            .or_else(|| name.strip_prefix("cuda"))?;
        Self::TABLE
            .iter()
            .find(|(n, ..)| *n == base)
            .map(|&(_, c, ..)| c)
    }

    /// Its parameters and return values.
    pub fn arity(self) -> (usize, usize) {
        let &(_, _, p, r) = Self::TABLE
            .iter()
            .find(|(_, c, ..)| *c == self)
            .expect("every call is in the table");
        (p, r)
    }
}

impl SysCall {
    /// The runtime function `name` names, if the runtime provides one by that name.
    pub fn by_name(name: &str) -> Option<SysCall> {
        Some(match name {
            "vprintf" => SysCall::Vprintf,
            "__assertfail" => SysCall::AssertFail,
            "malloc" => SysCall::Malloc,
            "free" => SysCall::Free,
            "cudaGraphSetConditional" => SysCall::GraphSetConditional,
            _ => SysCall::Devrt(DevrtCall::by_name(name)?),
        })
    }

    /// Its parameters and (at most) return values.
    pub fn arity(self) -> (usize, usize) {
        match self {
            SysCall::Vprintf => (2, 1),
            SysCall::AssertFail => (5, 0),
            SysCall::Malloc => (1, 1),
            SysCall::Free => (1, 0),
            SysCall::GraphSetConditional => (2, 0),
            SysCall::Devrt(d) => d.arity(),
        }
    }
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

#[derive(Clone, Debug)]
pub enum Op {
    /// `fl`: `.ftz`/`.sat` of an f32 operation, applied around it.
    Un {
        op: Un,
        fl: FloatMods,
        d: Reg,
        a: Src,
    },
    Bin {
        op: Bin,
        fl: FloatMods,
        d: Reg,
        a: Src,
        b: Src,
    },
    Ter {
        op: Ter,
        fl: FloatMods,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    Quad {
        op: Quad,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    /// `d = op(cfg, a, b, c)` per active lane: families with many modifier combinations (half
    /// precision, packed, narrow conversions, video) whose configuration is data, not code.
    Lane {
        op: PerLane,
        d: Reg,
        a: Src,
        b: Src,
        c: Src,
    },
    /// setp: `op` yields 0/1 per lane; `dn` receives the complement (`p|q`); `comb` combines
    /// with a predicate operand (`.and/.or/.xor`, optionally negated).
    Setp {
        op: Compare,
        fl: FloatMods,
        a: Src,
        b: Src,
        d: Option<Reg>,
        dn: Option<Reg>,
        comb: Option<(BoolOp, Src, bool)>,
    },
    Cvt {
        d: Reg,
        a: Src,
        dst: Scalar,
        src: Scalar,
        rnd: Rnd,
        sat: bool,
        ftz: bool,
    },
    /// Arithmetic with the condition-code carry flag, kept per lane in the hidden register `cc`:
    /// `cin` reads it (addc/subc/madc), `cout` writes the carry out (`.cc`). One flag for all:
    /// sub computes `a + ~b + cin` (cin 1 for sub.cc, CC.CF for subc) and its carry-out is the
    /// flag, so after a subtraction CF = 1 means no borrow, as the hardware has it.
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
    /// `n` elements of `size` bytes (up to 8: the 256-bit `.v8.b32`/`.v4.b64` of sm_100); a
    /// `None` element (the sink `_`) is not read.
    Ld {
        space: MSpace,
        size: u8,
        sext: bool,
        n: u8,
        d: [Option<Reg>; 8],
        addr: Addr,
    },
    /// `n` elements of `size` bytes; the elements whose bit is set in `sink` (the `_` of a
    /// 256-bit store) are not written.
    St {
        space: MSpace,
        size: u8,
        n: u8,
        sink: u8,
        s: [Src; 8],
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
    /// Vector `atom`/`red` (sm_90): `n` adjacent elements of `ty`, each updated atomically on
    /// its own (the ISA guarantees no more), old values to `d`.
    AtomVec {
        space: MSpace,
        op: AtomOp,
        ty: AtomTy,
        n: u8,
        d: [Option<Reg>; 8],
        addr: Addr,
        b: [Src; 8],
    },
    /// `atom.cas.b128` / `atom.exch.b128` (sm_90): 16 naturally aligned bytes updated atomically.
    /// `d`, `b` and `c` name register pairs (the low half in the register, the high half in the
    /// next one); `c` is cas's new value.
    Atom128 {
        space: MSpace,
        cas: bool,
        d: Option<Reg>,
        addr: Addr,
        b: Reg,
        c: Reg,
    },
    /// Branch to `target`; `rpc` is where divergent lanes reconverge (immediate post-dominator).
    Bra {
        target: u32,
        rpc: u32,
    },
    /// `brx.idx`: each active lane branches to `targets[idx]` (lanes grouped by target, each
    /// group its own path to `rpc`, the immediate post-dominator of the branch). An index past
    /// the list is undefined in the ISA and reported as a launch error here.
    Brx {
        idx: Src,
        targets: Vec<u32>,
        rpc: u32,
    },
    /// Call of a device function (direct, or indirect through a function pointer): pushes a
    /// [`CallSite`] frame (saving the caller's registers and locals when the callee may
    /// re-enter it), copies the arguments into each lane's callee's formals and runs the callees,
    /// one group of lanes per distinct target. Executed even with no active lane, so that the
    /// `CallRet` that follows always finds its frame.
    Call {
        site: u32,
    },
    /// Right after a `Call` (unguarded): for the lanes of the entry that made the call (all of
    /// them, or a group that left the callee while others still wait in it), reads the return
    /// values, restores those lanes' saved state and stack pointer, writes the return values to
    /// their destinations; the frame goes when every calling lane is back.
    CallRet {
        site: u32,
    },
    /// `stacksave`: the lane's stack pointer (a `.local` address).
    StackSave {
        d: Reg,
    },
    /// `stackrestore`.
    StackRestore {
        a: Src,
    },
    /// `alloca`: lowers the stack pointer by `size` (aligned down to `align`) and returns it.
    Alloca {
        d: Reg,
        size: Src,
        align: u32,
    },
    /// First op of a re-entrant function with `.local` variables: allocates the activation's
    /// frame on the stack like `Alloca` and sets `d`, the function's frame base, to it. Every
    /// activation has its own frame, so a pointer to a caller's local stays valid in callees;
    /// the `CallRet` that restores the stack pointer frees it.
    Frame {
        d: Reg,
        size: u32,
        align: u32,
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
    /// `barrier{.cta}.sync/.arrive/.red`: `red` is the reduction of `barrier.red` (operator,
    /// destination, the predicate operand, already complemented if written `!c`).
    Bar {
        id: Src,
        count: Option<Src>,
        arrive: bool,
        red: Option<(BarRed, Reg, Src)>,
        /// The `.aligned` forms (all of `bar`): a warp's threads all execute it together.
        aligned: bool,
    },
    /// `barrier.cluster.arrive` (`wait` false) or `barrier.cluster.wait` (see
    /// `exec::cluster::ClusterBar`).
    ClusterBar {
        wait: bool,
    },
    /// An operation on an mbarrier object in shared memory (see [`MbarOp`]); `d` receives the
    /// state (arrive) or the completion predicate (waits).
    Mbar {
        op: MbarOp,
        space: MSpace,
        addr: Addr,
        d: Option<Reg>,
        a: Src,
        b: Src,
    },
    /// `cp.async` from global to shared memory, performed at once (a valid execution of the
    /// asynchronous copy: completion is only observable through the waits, which then find it
    /// done). `src_size` bytes are read (the rest of `size` zero-filled); `ignore` set reads none.
    CpAsync {
        dst: Addr,
        dspace: MSpace,
        src: Addr,
        sspace: MSpace,
        size: u8,
        src_size: Option<Src>,
        ignore: Option<Src>,
    },
    /// `mask`: the membermask of `.sync` forms (an executing lane outside it is reported).
    Shfl {
        mode: ShflMode,
        d: Reg,
        p: Option<Reg>,
        a: Src,
        b: Src,
        c: Src,
        mask: Option<Src>,
    },
    Vote {
        mode: VoteMode,
        d: Reg,
        a: Src,
        neg: bool,
        mask: Option<Src>,
    },
    /// `bar.warp.sync`: lanes run in lockstep here, so only the membermask is checked.
    WarpSync {
        mask: Src,
    },
    /// `match.any/all.sync` on 32 or 64-bit values.
    Match {
        all: bool,
        bits: u32,
        d: Option<Reg>,
        p: Option<Reg>,
        a: Src,
        mask: Src,
    },
    Redux {
        op: ReduxOp,
        d: Reg,
        a: Src,
        mask: Src,
    },
    /// `elect.sync d|p`: the lowest active lane of the mask is the leader.
    Elect {
        d: Option<Reg>,
        p: Option<Reg>,
        mask: Src,
    },
    Activemask {
        d: Reg,
    },
    /// `isspacep`: 1 when the generic address is in the space. `cluster`: `.shared::cluster`
    /// (any CTA of the cluster) rather than `.shared{::cta}` (the executing CTA's only).
    Isspacep {
        d: Reg,
        a: Src,
        space: MSpace,
        cluster: bool,
    },
    /// `tex` and `tld4` on a texture object (unified mode, ISA 9.7.10.3-4): per lane, the
    /// handle `tex` names a texture registered with [`crate::tex`] (see [`TexOp`]).
    Tex(Box<TexOp>),
    /// `txq` on a texture object (ISA 9.7.10.5): `d` = the attribute `query` of the texture
    /// `tex` names, of mipmap level `level` (`txq.level`; else level 0).
    Txq {
        d: Reg,
        tex: Src,
        query: TexQuery,
        level: Option<Src>,
    },
    /// `suld`, `sust`, `sured` and `suq` on a surface object (ISA 9.7.11; see [`SurfOp`]).
    Surf(Box<SurfOp>),
    /// A warp-wide matrix operation (ISA 9.7.14): the warp's 32 lanes take part together.
    Matrix(Box<MatrixOp>),
    /// `cp.async.bulk` and `cp.async.bulk.tensor` (ISA 9.7.9.25.4-5), by each active lane.
    Bulk(Box<BulkOp>),
    /// `tcgen05.mma` (ISA 9.7.16.10.9.1), issued by each active lane on its own operands and
    /// completed at issue.
    TcMma(Box<TcMma>),
    /// `tcgen05.cp` and `tcgen05.shift` (ISA 9.7.16.9), issued by each active lane and
    /// completed at issue.
    TcCopy(Box<TcCopy>),
    /// `tcgen05.commit` (ISA 9.7.16.12.1): an arrive-on (count 1) on the mbarrier at `addr` by
    /// each active lane, whose earlier tcgen05 operations are all complete; then the warp gives
    /// way to the others, as the asynchronous operations it tracks would take time on a GPU.
    /// With `.multicast::cluster` (`mask`: the 16-bit ctaMask), the arrive-on is on the
    /// mbarrier at `addr`'s offset in each CTA of the mask instead.
    TcCommit {
        space: MSpace,
        addr: Addr,
        mask: Option<Src>,
    },
    /// `clusterlaunchcontrol.try_cancel` (ISA 9.7.13.17), by each active lane: cancels the
    /// launch of a cluster (a CTA, without clusters) that has not started, which then never
    /// runs, writes the 16-byte response ([`crate::sem::clc`]) at `addr` and completes 16
    /// bytes of transactions on the mbarrier at `mbar`; with `.multicast::cluster::all`, at
    /// `addr`'s and `mbar`'s offsets in every CTA of the cluster. `space`: `.shared::cta`, or
    /// generic for both addresses.
    ClcTryCancel {
        space: MSpace,
        addr: Addr,
        mbar: Addr,
        multicast: bool,
    },
    Nop,
    /// Counts the active lanes of the next op, an instruction whose bits may differ from a
    /// GPU's, in the fidelity counter `slot` (emitted only while the run summary counts them:
    /// [`crate::fidelity`]). Not an instruction of the program: it is left out of the
    /// thread-instruction count.
    Tally {
        slot: u16,
    },
    Trap,
    /// `brkpt`: with no debugger attached, a launch error.
    Brkpt,
}

/// A `tex` or `tld4`: sampled at `coords` (as the geometry reads them: the array index first
/// for the layered ones; integer texel indices when `int_coords`) into the destinations `d`
/// (four, or two `.f16x2`); `pred`: the residency predicate `d|p`; `gather`: `tld4`'s
/// channel; `offset`: the texel offset vector `e`; `sampler`: an explicit `.samplerref`.
#[derive(Clone, Debug)]
pub struct TexOp {
    pub d: [Option<Reg>; 4],
    pub pred: Option<Reg>,
    pub tex: Src,
    pub coords: [Src; 4],
    pub geom: TexGeom,
    pub int_coords: bool,
    pub result: TexResult,
    pub gather: Option<u8>,
    pub lod: TexLod,
    pub offset: Option<[Src; 3]>,
    /// The `.samplerref` named (the independent mode): its static fields.
    pub sampler: Option<TexSampler>,
}

impl TexOp {
    /// The coordinate operands the geometry reads.
    pub fn coord_count(&self) -> usize {
        self.geom.indexed() as usize + self.geom.dims()
    }
}

/// How a `tex` picks its mipmap level (ISA 9.7.10.2): `.base`, `.level lod`, or
/// `.grad dPdx, dPdy` (the first `geom.dims()` elements of each).
#[derive(Clone, Copy, Debug)]
pub enum TexLod {
    Base,
    Level(Src),
    Grad([Src; 3], [Src; 3]),
}

/// The matrix operations of a warp (ISA 9.7.14), whose fragments `crate::sem::fragment` lays
/// out and whose arithmetic is `crate::sem::mma`'s.
#[derive(Clone, Debug)]
pub enum MatrixOp {
    /// `mma.sync` and `wmma.mma.sync`: `D = A * B + C`.
    Mma(Mma),
    /// `wmma.load` (`store` false) of a fragment into `regs`, or `wmma.store` of `regs`; the
    /// matrix is stored by rows (`row`) or columns, `stride` elements apart (default: the
    /// leading dimension).
    Wmma {
        store: bool,
        frag: Frag,
        row: bool,
        space: MSpace,
        addr: Addr,
        stride: Option<Src>,
        regs: Vec<Src>,
    },
    /// `ldmatrix.m8n8.b16` (`store` false) into `regs`, or `stmatrix.m8n8.b16` of `regs`:
    /// `ldmatrix` / `stmatrix` of matrices of `shape` held in `regs`; each matrix's rows in
    /// memory at the addresses of consecutive lanes (row `r` of matrix `q` at lane
    /// `rows * q + r`, 16 bytes each).
    Ldst {
        store: bool,
        shape: LdstShape,
        space: MSpace,
        addr: Addr,
        regs: Vec<Src>,
    },
    /// `movmatrix.m8n8.trans.b16`: the transpose of the 8x8 matrix of 16-bit elements `a`.
    Movmatrix { d: Reg, a: Src },
    /// `wgmma.mma_async` (ISA 9.7.15), run at issue: each warp computes its 16 rows of D.
    Wgmma(Wgmma),
    /// The warp-wide Tensor Memory instructions of `tcgen05` (ISA 9.7.16.7-8).
    Tmem(TmemOp),
}

/// The shapes of `tcgen05.ld` / `tcgen05.st` (ISA 9.7.16.2.3): lanes x bits per repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmemShape {
    S16x64b,
    S16x128b,
    S16x256b,
    S32x32b,
    /// Two 16x32b accesses, the second `immHalfSplitoff` columns further.
    S16x32bx2,
}

/// A warp's `tcgen05` Tensor Memory operation (`pair`: `.cta_group::2`, with the warp of the
/// peer CTA that issues it too).
#[derive(Clone, Debug)]
pub enum TmemOp {
    /// `tcgen05.alloc`: `ncols` columns, their address stored at `addr`.
    Alloc {
        space: MSpace,
        addr: Addr,
        ncols: Src,
        pair: bool,
    },
    /// `tcgen05.dealloc` of `ncols` columns at `taddr`.
    Dealloc { taddr: Src, ncols: Src, pair: bool },
    /// `tcgen05.relinquish_alloc_permit`.
    Relinquish,
    /// `tcgen05.ld` (`store` false) into `regs` or `tcgen05.st` of `regs`, `num` repetitions of
    /// `shape` at `taddr` (`split`: the second half's column offset of `.16x32bx2`); `pack`:
    /// `.pack::16b` / `.unpack::16b`, each register two 16-bit cells of adjacent columns.
    Ldst {
        store: bool,
        shape: TmemShape,
        num: u32,
        pack: bool,
        taddr: Addr,
        split: u32,
        regs: Vec<Src>,
    },
}

/// The matrices of `ldmatrix` and `stmatrix` (ISA 9.7.14.5.15-16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LdstShape {
    /// `.m8n8.b16`: 8x8 matrices of 16-bit elements, one register each; `.trans` transposes.
    M8n8 { trans: bool },
    /// `ldmatrix.m16n16.trans.b8` (sm_100a/sm_120a): 16x16 bytes, two registers each, 16 rows;
    /// `src_bits` 4 or 6 with `.b8x16.b4x16_p64` / `.b8x16.b6x16_p32` (each row 16 packed
    /// elements and padding, decompressed to bytes), 0 for plain bytes.
    M16n16 { src_bits: u8 },
    /// `ldmatrix.m8n16.b8x16.b4x16_p64` / `.b6x16_p32`: 8 rows of 16 decompressed bytes.
    M8n16 { src_bits: u8 },
    /// `stmatrix.m16n8.trans.b8`: 16x8 bytes stored transposed, 8 rows of 16 bytes.
    M16n8,
}

impl LdstShape {
    /// Rows (row addresses) of one matrix.
    pub fn rows(self) -> usize {
        match self {
            LdstShape::M16n16 { .. } => 16,
            _ => 8,
        }
    }

    /// Registers of one matrix.
    pub fn regs(self) -> usize {
        match self {
            LdstShape::M16n16 { .. } => 2,
            _ => 1,
        }
    }
}

/// The `.kind` of a `tcgen05.mma` (ISA 9.7.16.10.9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcKind {
    F16,
    Tf32,
    I8,
    F8f6f4,
    Mxf8f6f4,
    Mxf4,
    Mxf4nvf4,
}

/// The scale factors of a block-scaled `tcgen05.mma` (ISA 9.7.16.10.7): `scale_A` and
/// `scale_B` at Tensor Memory addresses `a` and `b`, `vec` of them per row of A and column
/// of B (`.scale_vec::NX`, or what `.block16` / `.block32` or no qualifier stand for).
#[derive(Clone, Copy, Debug)]
pub struct TcScale {
    pub a: Addr,
    pub b: Addr,
    pub vec: u8,
}

/// `tcgen05.mma` of one `kind`: `D = A * B (+ D when enable_d)`, D at Tensor Memory address
/// `d`, A at Tensor Memory address `a` (`a_tmem`) or described by the shared-memory
/// descriptor `a`, B by the descriptor `b`, shapes and types in the instruction descriptor
/// `idesc` (ISA 9.7.16.4.2), all read at issue; the block-scaled kinds with `scale`.
#[derive(Clone, Debug)]
pub struct TcMma {
    pub kind: TcKind,
    pub scale: Option<TcScale>,
    pub d: Addr,
    pub a_tmem: bool,
    pub a: Src,
    pub b: Src,
    pub idesc: Src,
    pub enable_d: Src,
    /// `disable-output-lane`: four words (eight with `pair`, the last four `Imm(0)` without)
    /// of a mask, bit `i` (from the first word's least significant bit) set to leave Tensor
    /// Memory lane `i` of D as it was.
    pub disable: Option<[Src; 8]>,
    /// `scale-input-d`: D is accumulated as `D * 2^scale_d`.
    pub scale_d: u8,
    /// `.cta_group::2`: the MMA of the CTA pair, each CTA holding its half of A and D in its
    /// Tensor Memory and its half of B in its shared memory.
    pub pair: bool,
}

/// The shapes of `tcgen05.cp` (ISA 9.7.16.2.3) with their `.multicast`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpShape {
    S128x256b,
    S128x128b,
    S4x256b,
    /// `.64x128b.warpx2::02_13`.
    S64x128bW0213,
    /// `.64x128b.warpx2::01_23`.
    S64x128bW0123,
    /// `.32x128b.warpx4`.
    S32x128bW4,
}

/// `tcgen05.cp` of the shared-memory matrix that descriptor `desc` describes into Tensor
/// Memory at `taddr` (`shape`; `src_bits` 4 or 6: `.b8x16.b4x16_p64` / `.b8x16.b6x16_p32`
/// decompression, else 0), or `tcgen05.shift.down` of the 32 lanes at `taddr` (`shape` None).
/// `pair`: `.cta_group::2`, in both CTAs of the pair.
#[derive(Clone, Debug)]
pub struct TcCopy {
    pub shape: Option<CpShape>,
    pub src_bits: u8,
    pub taddr: Addr,
    pub desc: Src,
    pub pair: bool,
}

/// `wgmma.mma_async`: `D = A * B + D` (or `A * B` when `scale_d` is false) of shape m64nNkK,
/// A from registers or a matrix descriptor, B from a descriptor. `.b1` products are
/// `.and.popc`, the only operation the ISA gives wgmma.
#[derive(Clone, Debug)]
pub struct Wgmma {
    pub n: u32,
    pub k: u32,
    /// `wgmma.mma_async.sp`: the metadata register and the sparsity selector. A (registers or
    /// shared memory) then holds the packed non-zero half of each row, 64 x K/2, laid out as a
    /// dense A of K/2 (see `crate::sem::fragment::sparse_columns`).
    pub sparse: Option<(Src, u32)>,
    pub a_ty: crate::sem::mma::El,
    pub b_ty: crate::sem::mma::El,
    pub d_ty: crate::sem::mma::El,
    pub sat: bool,
    pub d: Vec<Reg>,
    /// A's descriptor, or A's fragment registers.
    pub a_desc: Option<Src>,
    pub a: Vec<Src>,
    pub b_desc: Src,
    pub scale_d: Src,
    /// `imm-scale-a/b` of -1: the operand negated.
    pub neg_a: bool,
    pub neg_b: bool,
    /// `imm-trans-a/b`: M/N-major rather than K-major in shared memory.
    pub trans_a: bool,
    pub trans_b: bool,
}

/// A bulk copy, performed at issue (a valid execution of the asynchronous copy: its completion
/// is only observable through the mbarrier or the bulk async-group, which then find it done).
/// Linear copies move `size` bytes from `src` to `dst`; tensor copies move a box of the tensor
/// map `tensor` between global memory and the shared box at `dst` (loads) or `src` (stores).
/// `mbar`: the mbarrier whose transaction count the copy's bytes complete.
#[derive(Clone, Debug)]
pub struct BulkOp {
    pub dst: (MSpace, Addr),
    pub src: (MSpace, Addr),
    pub size: Option<Src>,
    pub tensor: Option<TensorRef>,
    pub mbar: Option<(MSpace, Addr)>,
    /// `.multicast::cluster`: the 16-bit ctaMask. The copy lands at `dst`'s offset in the
    /// shared memory of each CTA of the cluster whose rank's bit is set, and completes the
    /// mbarrier at `mbar`'s offset in each of them.
    pub multicast: Option<Src>,
    /// `.cta_group::2` (tensor loads, sm_100): the mbarrier may be in the destination CTA's
    /// peer (`%cluster_ctarank ^ 1`), and with multicast each destination's complete-tx goes
    /// to the CTA of its pair whose rank has the parity of `mbar`'s CTA (`exec::bulk`).
    pub pair: bool,
    /// `cp.reduce.async.bulk`: each element of the destination becomes `op` of itself and
    /// the source's element, atomically per element; the type, or the tensor map's.
    pub reduce: Option<(AtomOp, Option<AtomTy>)>,
    /// `st.bulk`: `size` zero bytes (a multiple of 8) are written at `dst`; `src` is unused.
    pub zero: bool,
    /// `.cp_mask` (shared to global, sm_100): the 16-bit byteMask; byte `i` of each 16 bytes
    /// is copied only where its bit `i` is set.
    pub byte_mask: Option<Src>,
    /// `.ignore_oob` (global to shared, PTX ISA 9.2): the first and last bytes of the copy
    /// that lie outside the source's memory, not read and not written.
    pub ignore_oob: Option<[Src; 2]>,
}

/// The tensor operand `[tensorMap, {coords}]` of a tensor copy, and its direction.
#[derive(Clone, Debug)]
pub struct TensorRef {
    /// Where the 128-byte tensor map is (a kernel parameter, or a generic, global or const
    /// address).
    pub map: (MSpace, Addr),
    /// Signed element coordinates, innermost first; their count is the copy's dimensionality.
    pub coords: Vec<Src>,
    /// Global memory to shared (`true`) or shared to global.
    pub load: bool,
    /// An im2col load: its offsets, one per spatial dimension (W, H, D), as 16-bit values
    /// (`crate::sem::im2col` walks the column); `.im2col::w` and `.im2col::w::128`: wHalo and
    /// wOffset.
    pub im2col: Option<Vec<Src>>,
    pub mode: TensorMode,
}

/// The `.load_mode` of a tensor copy (ISA 9.7.9.25.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorMode {
    Tile,
    Im2col,
    Im2colW,
    Im2colW128,
    /// 2-D, four rows: coordinates {column, row0, row1, row2, row3}.
    Gather4,
    Scatter4,
}

/// The fragment one `wmma.load/store` moves: the role, the shape and the element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frag {
    pub role: crate::sem::fragment::Role,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub el: crate::sem::mma::El,
}

/// `mma`/`wmma.mma`: shape, element types and the fragments (the registers of A, B and C may
/// hold immediates; `d` receives D).
#[derive(Clone, Debug)]
pub struct Mma {
    /// `mma.sp`: the metadata register and the sparsity selector (A's fragment then holds the
    /// packed non-zero half of A, see `crate::sem::fragment::sparse_columns`).
    pub sparse: Option<(Src, u32)>,
    /// The layouts of A (by rows) and B (by columns) for m8n8k4 `.f16`; always so otherwise.
    pub a_row: bool,
    pub b_col: bool,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a_ty: crate::sem::mma::El,
    pub b_ty: crate::sem::mma::El,
    pub c_ty: crate::sem::mma::El,
    pub d_ty: crate::sem::mma::El,
    /// The `wmma` fragment layout rather than `mma`'s.
    pub wmma: bool,
    /// `.satfinite` of the integer forms.
    pub sat: bool,
    /// `.xor`/`.and` of the `.b1` forms.
    pub bit_op: Option<crate::sem::mma::BitOp>,
    /// The rounding of `.f64` forms.
    pub rnd: crate::sem::softfloat::Mode,
    /// A `.kind::` form of sm_120a (f8f6f4, or a block-scaled one with `scale`): the tensor
    /// core takes fp8/fp6/fp4 natively.
    pub kind: bool,
    /// `.block_scale`: the scale factors and their selectors.
    pub scale: Option<Box<BlockScale>>,
    pub d: Vec<Reg>,
    pub a: Vec<Src>,
    pub b: Vec<Src>,
    pub c: Vec<Src>,
}

/// The scale factors of a block-scaled `mma` (ISA 9.7.14.3): `vec` factors per row of A and
/// per column of B (`.scale_vec::1X/2X/4X`), of type `stype`, chosen from the `a`/`b` words of
/// the warp's lanes by the selectors `(byte-id, thread-id)`.
#[derive(Clone, Debug)]
pub struct BlockScale {
    pub stype: crate::sem::mma::Scale,
    pub vec: u32,
    pub a: Src,
    pub a_sel: [Src; 2],
    pub b: Src,
    pub b_sel: [Src; 2],
}

/// The type of `tex`'s results (`.dtype`): four 32-bit ones, four `.f16` or two `.f16x2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexResult {
    F32,
    S32,
    U32,
    F16,
    F16x2,
}

/// Where a formal parameter, an argument or a return value lives: a register of `bits`, or
/// `bytes` of local memory at an offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Reg(Reg, u32),
    Local(u32, u32),
}

impl Loc {
    pub fn bytes(self) -> usize {
        match self {
            Loc::Reg(_, bits) => bits.div_ceil(8).clamp(1, 8) as usize,
            Loc::Local(_, n) => n as usize,
        }
    }
}

/// An actual argument: a value (register or immediate) or a `.param` variable of the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actual {
    Val(Src),
    Local(u32),
}

/// A function lowered into a program (the kernel is function 0).
#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    /// Its function-pointer value ([`func_addr`]).
    pub addr: u64,
    pub entry: u32,
    pub exit: u32,
    pub params: Vec<Loc>,
    pub rets: Vec<Loc>,
    /// Its registers (`[start, end)` ranges) and local memory (`(offset, bytes)`): the state a
    /// re-entrant call must save. (A re-entrant function's `.local` variables are not in
    /// `locals`: they live in its frame on the stack, see [`Op::Frame`].)
    pub regs: Vec<(Reg, Reg)>,
    pub locals: Vec<(u32, u32)>,
    /// Stack bytes per thread one saved activation is charged against the stack limit: what
    /// a hardware ABI frame saves, the return address and the registers live across its calls
    /// ([`crate::frame::saved_bytes`]); its `.local` variables are charged when [`Op::Frame`]
    /// allocates them. 0 for functions no call saves.
    pub frame_bytes: u32,
}

/// One call instruction.
#[derive(Clone, Debug)]
pub struct CallSite {
    /// The function pointer of an indirect call; None for a direct call of `callees[0]`.
    pub sel: Option<Src>,
    /// Indices into [`Program::funcs`]: the callee, or every candidate of an indirect call.
    pub callees: Vec<u32>,
    pub args: Vec<Actual>,
    /// Destinations of the return values in the caller.
    pub rets: Vec<Loc>,
    /// The caller (index into `funcs`) whose registers and locals are saved around the call,
    /// when the callee may reach it again (recursion).
    pub save: Option<u32>,
}

#[derive(Clone)]
pub struct Inst {
    pub op: Op,
    /// `(predicate register, negated)`.
    pub guard: Option<(Reg, bool)>,
}

/// Side table of an instruction for diagnostics: PTX line and full opcode name.
#[derive(Clone, Debug)]
pub struct InstInfo {
    pub line: u32,
    /// `opcode.mods` (inline: most fit a [`Name`](crate::ptx::ast::Name) without allocating).
    pub name: crate::ptx::ast::Name,
}

/// One kernel, lowered with every device function it calls.
#[derive(Clone)]
pub struct Program {
    pub insts: Vec<Inst>,
    pub info: Vec<InstInfo>,
    pub entry: u32,
    pub exit: u32,
    pub nregs: u32,
    /// 32-bit hardware registers each register's value occupies: 1, 2 for 64-bit (and each
    /// half of a 128-bit) register, 0 for predicates (a file of their own) and the hidden
    /// registers of the emulation (carry flag, stack pointer, frame base).
    pub reg_words: Vec<u8>,
    pub shared_static: u32,
    /// Offset of dynamic (`extern .shared`) memory in the shared window.
    pub dyn_shared_off: u32,
    pub local_bytes: u32,
    pub funcs: Vec<Func>,
    pub sites: Vec<CallSite>,
    /// Hidden per-lane register: bytes of the thread's stack in use (frames of re-entrant calls
    /// and `alloca`s), present when the program calls functions or allocates on the stack.
    pub sp: Option<Reg>,
    /// Whether the stack holds memory (`alloca`, or frames of re-entrant functions): then each
    /// thread's local memory is followed by its stack.
    pub uses_alloca: bool,
    /// Some instruction names `.cta_group::2`: the kernel's CTAs work in pairs (9.7.16.5.1).
    pub cta_pair: bool,
    /// Whether the kernel takes generic addresses of its parameters (`cvta.param`,
    /// `isspacep.param`): each launch then copies the parameter block to global memory.
    pub param_window: bool,
    /// The registers a CTA's file must start zeroed with ([`uninit::maybe_uninit`]); `None`:
    /// all of them.
    pub zeroed: Option<Vec<Reg>>,
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
