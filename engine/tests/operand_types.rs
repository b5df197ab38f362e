//! Operand type checking (PTX ISA 9.4, and 9.4.1 for ld/st/cvt): small instructions over
//! registers of every type, each with ptxas's verdict (ptxas 13.5 of the pinned toolkit,
//! `ptxas -arch=sm_90a`, or `sm_100a`/`sm_120a` for the instructions of [`CASES_SM100A`] and
//! [`CASES_SM120A`]; its error, when it rejects, is in the comment). The engine must agree:
//! accept what ptxas accepts, and reject as invalid PTX, with a diagnostic naming the
//! instruction, the operand and the types, what this table records ptxas rejecting. When the
//! toolkit is present, `ptxas_agrees_with_the_table` re-runs ptxas on every case.

use engine::LoadErrorKind;
use std::path::PathBuf;
use std::process::Command;

/// Registers named after their declared type (`u16` is a `.u16` register, `p` a predicate).
const HEAD: &str = "\
.version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 pp)
{
.reg .b8 b8; .reg .b16 b16; .reg .b32 b32; .reg .b64 b64; .reg .b128 b128;
.reg .s8 s8; .reg .s16 s16; .reg .s32 s32; .reg .s64 s64;
.reg .u8 u8; .reg .u16 u16; .reg .u32 u32; .reg .u64 u64;
.reg .f16 f16; .reg .f32 f32; .reg .f64 f64; .reg .f16x2 f16x2;
.reg .pred p;
.reg .b64 x64;
";

fn module(inst: &str) -> String {
    module_for(inst, "sm_90a")
}

fn module_for(inst: &str, arch: &str) -> String {
    format!("{}{inst}\nret;\n}}\n", HEAD.replace("sm_90a", arch))
}

/// `(instruction, ptxas accepts it)`.
const CASES: &[(&str, bool)] = &[
    // ---- Table 26: bit-size types agree with any type of their size ----
    ("add.u32 u32, s32, b32;", true),
    ("add.f32 f32, b32, f32;", true),
    ("add.f32 b32, b32, b32;", true),
    ("and.b16 f16, f16, f16;", true),
    ("and.b32 f32, f32, f32;", true),
    ("add.f16 f16, f16, b16;", true),
    ("add.bf16 b16, b16, b16;", true),
    ("add.rn.bf16x2 b32, b32, b32;", true),
    ("mov.b32 f32, b32;", true),
    ("mov.b16 b16, f16;", true),
    ("mov.b32 b32, f16x2;", true),
    // ptxas treats an .f16x2 register as 32 raw bits for integer instructions.
    ("add.s32 f16x2, f16x2, f16x2;", true),
    // ---- Table 26: sizes must match, floats only with floats or bit-size ----
    ("add.u32 u32, u16, u32;", false), // Arguments mismatch for instruction 'add'
    ("add.s32 u32, f32, u32;", false), // Arguments mismatch for instruction 'add'
    ("add.u32 u64, u32, u32;", false), // Arguments mismatch for instruction 'add'
    ("add.u32 u32, b64, u32;", false), // Arguments mismatch for instruction 'add'
    ("add.u16 u16, u8, u16;", false),  // Arguments mismatch for instruction 'add'
    ("add.f32 u32, b32, f32;", false), // Arguments mismatch for instruction 'add'
    ("add.f32 f32, u32, f32;", false), // Arguments mismatch for instruction 'add'
    ("add.u16 u16, f16, u16;", false), // Arguments mismatch for instruction 'add'
    ("add.u32 u32, p, u32;", false),   // Arguments mismatch for instruction 'add'
    ("add.bf16 u16, u16, u16;", false), // Arguments mismatch for instruction 'add'
    ("add.bf16 f16, f16, f16;", false), // Arguments mismatch for instruction 'add'
    ("add.f16x2 u32, u32, u32;", false), // Arguments mismatch for instruction 'add'
    ("add.f16x2 f32, f32, f32;", false), // Arguments mismatch for instruction 'add'
    ("add.rn.bf16x2 u32, u32, u32;", false), // Arguments mismatch for instruction 'add'
    ("mov.u32 f32, u32;", false),      // Arguments mismatch for instruction 'mov'
    ("mov.u32 u64, u32;", false),      // Arguments mismatch for instruction 'mov'
    ("cvta.to.global.u64 u64, u32;", false), // Arguments mismatch for instruction 'cvta.to'
    ("cvta.to.global.u64 u64, f64;", false), // Arguments mismatch for instruction 'cvta.to'
    ("cvta.to.global.u64 u64, s64;", true),
    // ---- literals ----
    ("mov.b32 b32, 0f3f800000;", true),
    ("mov.f32 f32, 0d3ff0000000000000;", true),
    ("mov.f64 f64, 0f3f800000;", true),
    ("mov.b64 b64, 0d3ff0000000000000;", true),
    ("mov.b64 b64, 1.0;", true),
    ("mov.f32 f32, 1.5;", true),
    ("mov.pred p, 1;", true),
    ("and.pred p, p, 1;", true),
    ("mov.b16 f16, 0x3c00;", true),
    ("mov.u32 u32, -1;", true),
    ("fma.rn.f32 f32, f32, f32, 0d0000000000000000;", true),
    ("mov.f32 f32, 1;", false), // Arguments mismatch for instruction 'mov'
    ("mul.f32 f32, f32, 2;", false), // Arguments mismatch for instruction 'mul'
    ("add.f16 f16, f16, 0f3f800000;", false), // Arguments mismatch for instruction 'add'
    ("add.f16x2 f16x2, f16x2, 0;", false), // Arguments mismatch for instruction 'add'
    ("mov.u32 u32, 0f3f800000;", false), // Arguments mismatch for instruction 'mov'
    ("add.u32 u32, 0f3f800000, u32;", false), // Arguments mismatch for instruction 'add'
    ("mov.b32 b32, 1.0;", false), // Arguments mismatch for instruction 'mov'
    ("mov.b32 b32, 0d3ff0000000000000;", false), // Arguments mismatch for instruction 'mov'
    ("mov.b64 b64, 0f3f800000;", false), // Arguments mismatch for instruction 'mov'
    ("mov.b16 b16, 0f3f800000;", false), // Arguments mismatch for instruction 'mov'
    ("mov.pred p, 1.0;", false), // Arguments mismatch for instruction 'mov'
    // ---- mov packing and unpacking: elements split the bit-size type ----
    ("mov.b64 b64, {u32, s32};", true),
    ("mov.b64 f64, {u32, u32};", true),
    ("mov.b64 {u16, u16, u16, u16}, b64;", true),
    ("mov.b32 {f16, f16}, b32;", true),
    ("mov.b64 b64, {u16, u32};", false), // Incompatible elements of vector expression
    // Vector with elements of different types are not allowed in mov instruction
    ("mov.b64 b64, {u32, f32};", false),
    // ---- 9.4.1: ld/ldu destinations may be wider (Table 28) ----
    ("ld.global.u8 u32, [x64];", true),
    ("ld.global.s8 s64, [x64];", true),
    ("ld.global.b8 f32, [x64];", true),
    ("ld.global.b16 f32, [x64];", true),
    ("ld.global.f32 b64, [x64];", true),
    ("ld.global.s32 f16x2, [x64];", true),
    ("ld.param.u32 u64, [pp];", true),
    ("ldu.global.u8 u32, [x64];", true),
    ("ld.global.nc.u8 u32, [x64];", true),
    ("ld.global.v2.u8 {u32, u32}, [x64];", true),
    ("ld.global.v2.u32 {u32, _}, [x64];", true),
    ("ld.global.u32 u16, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.u32 f32, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.f32 u32, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.f32 f64, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.f32 f16x2, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.s64 f16x2, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.b32 f16, [x64];", false), // Arguments mismatch for instruction 'ld'
    ("ld.global.u8 p, [x64];", false),    // Arguments mismatch for instruction 'ld'
    ("ld.global.v2.u32 {u32, u16}, [x64];", false), // Incompatible elements of vector expression
    ("ld.global.v2.u32 {u32, s32}, [x64];", true),
    ("ld.global.v2.u32 {u32, b32}, [x64];", true),
    // Vector with elements of different types are not allowed in ld instruction
    ("ld.global.v2.b32 {u32, f32}, [x64];", false),
    // ---- 9.4.1: st sources may be wider (Table 27) ----
    ("st.global.u8 [x64], u64;", true),
    ("st.global.b16 [x64], f32;", true),
    ("st.global.u32 [x64], 1;", true),
    ("st.global.f32 [x64], 0f3f800000;", true),
    ("st.global.b64 [x64], 0d3ff0000000000000;", true),
    ("st.global.v2.f32 [x64], {f32, b32};", true),
    ("st.global.u32 [x64], u16;", false), // Arguments mismatch for instruction 'st'
    ("st.global.f32 [x64], f64;", false), // Arguments mismatch for instruction 'st'
    ("st.global.f32 [x64], 1;", false),   // Arguments mismatch for instruction 'st'
    ("st.global.u32 [x64], 0f3f800000;", false), // Arguments mismatch for instruction 'st'
    ("st.global.b64 [x64], 0f3f800000;", false), // Arguments mismatch for instruction 'st'
    ("st.global.v2.u8 [x64], {u32, u16};", false), // Incompatible elements of vector expression
    // ---- 9.4.1: cvt operands may be wider, except floating-point ones ----
    ("cvt.u16.u32 u32, u32;", true),
    ("cvt.u32.u8 u32, u32;", true),
    ("cvt.rn.f32.u16 f32, u64;", true),
    ("cvt.f32.f16 f32, b32;", true),
    ("cvt.rn.f16.f32 b64, f32;", true),
    ("cvt.rzi.s8.f32 s32, f32;", true),
    ("cvt.rzi.u8.f32 f16x2, f32;", true),
    ("cvt.u32.u16 u32, b16;", true),
    ("cvt.u32.u16 u32, f16;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.u32.u64 u32, u32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.f64.f32 f64, f64;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f32.f64 f32, b32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f32.f64 f64, f64;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rzi.s32.f32 s16, f32;", false), // Arguments mismatch for instruction 'cvt'
    // ---- 9.7.9.21: conversions with .bf16/.bf16x2/.tf32/fp8 types check sizes exactly ----
    ("cvt.rn.bf16.f32 b16, f32;", true),
    ("cvt.rn.bf16.f32 b16, b32;", true),
    ("cvt.rn.bf16.f32 b32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.bf16.f32 u16, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.bf16.f32 b16, b64;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16.f32 b64, b64;", true),   // (no .bf16: wider registers, 9.4.1)
    ("cvt.rna.tf32.f32 b32, f32;", true),
    ("cvt.rna.tf32.f32 u32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rna.tf32.f32 b64, f32;", false), // Arguments mismatch for instruction 'cvt'
    // ---- 9.7.9.21: packing conversions (two sources, or a packed source) ----
    ("cvt.rn.f16x2.f32 f16x2, f32, f32;", true),
    ("cvt.rn.f16x2.f32 b64, b64, f32;", true),
    ("cvt.rn.f16x2.f32 u32, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.f32 b32, f32, f16;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.f32 b32, f32, u32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.bf16x2.f32 b32, f32, b32;", true),
    ("cvt.rn.bf16x2.f32 f16x2, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.bf16x2.f32 b32, f32, b64;", false),   // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.satfinite.e4m3x2.f32 b16, f32, f32;", true),
    ("cvt.rn.satfinite.e4m3x2.f32 b32, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.satfinite.e4m3x2.f32 u16, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.satfinite.e4m3x2.f32 b16, f32, f64;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.satfinite.e4m3x2.f16x2 b16, f16x2;", true),
    ("cvt.rn.satfinite.e4m3x2.f16x2 b16, u32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.e4m3x2 f16x2, b16;", true),
    ("cvt.rn.f16x2.e4m3x2 b64, b16;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.e4m3x2 b32, u16;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.e4m3x2 b32, b32;", false), // Arguments mismatch for instruction 'cvt'
    // ---- 9.7.9.22: cvt.pack (d .u32, a and b .s32, c .b32; each may be wider) ----
    ("cvt.pack.sat.u16.s32 u32, s32, s32;", true),
    ("cvt.pack.sat.u16.s32 b64, b32, u32;", true),
    ("cvt.pack.sat.u4.s32.b32 u32, s32, s32, f32;", true),
    ("cvt.pack.sat.u16.s32 f32, s32, s32;", false), // Arguments mismatch for instruction 'cvt.pack'
    ("cvt.pack.sat.u16.s32 u16, s32, s32;", false), // Arguments mismatch for instruction 'cvt.pack'
    ("cvt.pack.sat.u16.s32 u32, s16, s32;", false), // Arguments mismatch for instruction 'cvt.pack'
    ("cvt.pack.sat.u16.s32 u32, s32, f32;", false), // Arguments mismatch for instruction 'cvt.pack'
    ("cvt.pack.sat.u4.s32.b32 u32, s32, s32, u16;", false), // Arguments mismatch for instruction 'cvt.pack'
    // ---- 9.7.14.4.1: wmma fragments (register count and type per shape and type) ----
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2}, [x64];", true),
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {b32, b32, b32, b32, b32, b32, b32, b32}, [x64], s32;", true),
    // Argument vector size mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {b32, b32, b32, b32}, [x64];", false),
    // Illegal vector size: 7
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {b32, b32, b32, b32, b32, b32, b32}, [x64];", false),
    // Vector expected for argument 0
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 b32, [x64];", false),
    // Arguments mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {u32, u32, u32, u32, u32, u32, u32, u32}, [x64];", false),
    // Arguments mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {b32, b32, b32, b32, b32, b32, b32, b32}, [x64], u64;", false),
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {f16x2, f16x2, f16x2, f16x2}, [x64];", true),
    // Argument vector size mismatch for instruction 'wmma.load.c'
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {b32, b32, b32, b32, b32, b32, b32, b32}, [x64];", false),
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {f32, f32, f32, f32, f32, f32, f32, f32}, [x64];", true),
    // Arguments mismatch for instruction 'wmma.load.c'
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {u32, u32, u32, u32, u32, u32, u32, u32}, [x64];", false),
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {u32, u32, u32, u32, u32, u32, u32, u32}, [x64];", true),
    // Arguments mismatch for instruction 'wmma.load.c'
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {f32, f32, f32, f32, f32, f32, f32, f32}, [x64];", false),
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {s32, s32}, [x64];", true),
    // Arguments mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {f32, f32}, [x64];", false),
    ("wmma.load.a.sync.aligned.row.m8n32k16.global.s8 {b32}, [x64];", true),
    // Argument vector size mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m8n32k16.global.s8 {b32, b32}, [x64];", false),
    ("wmma.load.b.sync.aligned.col.m8n32k16.global.s8 {b32, b32, b32, b32}, [x64];", true),
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {b32, b32, b32, b32}, [x64];", true),
    // Arguments mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 {u32, u32, u32, u32}, [x64];", false),
    // Arguments mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {f32, f32, f32, f32}, [x64];", false),
    ("wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {f32}, [x64];", true),
    ("wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {b64}, [x64];", true),
    // Vector expected for argument 0
    ("wmma.load.a.sync.aligned.row.m8n8k4.global.f64 f64, [x64];", false),
    ("wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {f64, f64}, [x64];", true),
    // Argument vector size mismatch for instruction 'wmma.load.c'
    ("wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {f64}, [x64];", false),
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [x64], {s32, s32, s32, s32, s32, s32, s32, s32}, u32;", true),
    // Argument vector size mismatch for instruction 'wmma.store.d'
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [x64], {f32, f32, f32, f32};", false),
    // Arguments mismatch for instruction 'wmma.store.d'
    ("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [x64], {u32, u32, u32, u32, u32, u32, u32, u32};", false),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32 {f16x2, f16x2, f16x2, f16x2}, {f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2}, {b32, b32, b32, b32, b32, b32, b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", true),
    // Argument vector size mismatch for instruction 'wmma.mma'
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32 {f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2}, {f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2}, {b32, b32, b32, b32, b32, b32, b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", false),
    // Arguments mismatch for instruction 'wmma.mma'
    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {f32, f32, f32, f32, f32, f32, f32, f32}, {f32, f32, f32, f32, f32, f32, f32, f32}, {b32, b32, b32, b32, b32, b32, b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", false),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {s32, s32, s32, s32, s32, s32, s32, s32}, {b32, b32}, {b32, b32}, {s32, s32, s32, s32, s32, s32, s32, s32};", true),
    // Argument vector size mismatch for instruction 'wmma.mma'
    ("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {s32, s32, s32, s32, s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32}, {s32, s32, s32, s32, s32, s32, s32, s32};", false),
    ("wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32 {f32, f32, f32, f32, f32, f32, f32, f32}, {b32, b32, b32, b32, b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", true),
    // Argument vector size mismatch for instruction 'wmma.mma'
    ("wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32 {f32, f32, f32, f32, f32, f32, f32, f32}, {b32, b32}, {b32, b32, b32, b32, b32, b32, b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", false),
    ("wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {f32, f32, f32, f32, f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", true),
    ("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {f64, f64}, {f64}, {f64}, {f64, f64};", true),
    // Argument vector size mismatch for instruction 'wmma.mma'
    ("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64 {f64}, {f64}, {f64}, {f64};", false),
    ("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {s32, s32}, {b32}, {b32}, {s32, s32};", true),
    // Argument vector size mismatch for instruction 'wmma.mma'
    ("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {s32, s32}, {b32, b32}, {b32}, {s32, s32};", false),
    // ---- 9.7.14.5, 9.7.14.6.2: mma fragments (M*K/32, K*N/32, M*N/32 elements a thread) ----
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {f32, f32, f32, f32}, {f16x2, f16x2, f16x2, f16x2}, {b32, b32}, {f32, f32, f32, f32};", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {f32, f32, f32, f32}, {b32, b32}, {b32, b32}, {f32, f32, f32, f32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {u32, u32, u32, u32}, {b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {b32, b32}, {f32, f32, f32, f32}, {b32, b32}, {b32, b32};", false),
    ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {f32, f32, f32, f32, f32, f32, f32, f32}, {b32, b32}, {b32, b32}, {f32, f32, f32, f32, f32, f32, f32, f32};", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {b32, b32, b32, b32}, {b32, b32}, {b32, b32}, {b32, b32};", false),
    ("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {f32, f32, f32, f32}, {b32, b32}, {b32}, {f32, f32, f32, f32};", true),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {f32, f32, f32, f32}, {f32, f32}, {b32}, {f32, f32, f32, f32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {f32, f32, f32, f32}, {u32, u32, u32, u32}, {b32, b32}, {f32, f32, f32, f32};", false),
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {f32, f32, f32, f32}, {u32, u32, u32, u32}, {b32, b32}, {f32, f32, f32, f32};", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32}, {f32, f32, f32, f32};", false),
    ("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {f64, f64, f64, f64}, {f64, f64, f64, f64, f64, f64, f64, f64}, {b64, b64, b64, b64}, {f64, f64, f64, f64};", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {f64, f64}, {f64, f64}, {f64}, {f64, f64};", false),
    ("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {u32, u32, u32, u32}, {b32, b32, b32, b32}, {b32, b32}, {s32, s32, s32, s32};", true),
    // Illegal vector size: 4
    ("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {s32, s32}, {b32}, {b32}, {s32, s32, s32, s32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32 {s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32};", false),
    ("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32}, {s32, s32, s32, s32};", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {s32, s32}, {b32, b32}, {b32}, {s32, s32};", false),
    ("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {u32, u32, u32, u32}, {b32, b32}, {b32, b32}, {f32, f32, f32, f32}, b32, 0;", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {f32, f32, f32, f32}, {b32, b32, b32, b32, b32, b32, b32, b32}, {b32, b32, b32, b32}, {f32, f32, f32, f32}, b32, 0;", false),
    // ---- 9.7.10.3: tex (destination and coordinate vectors, lod, gradients, e, f) ----
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}];", true),
    ("tex.2d.v4.f32.f32 {u32, u32, u32, u32}, [x64, {s32, s32}];", true),
    // Illegal vector size: 3
    ("tex.2d.v4.f32.f32 {f32, f32, f32}, [x64, {f32, f32}];", false),
    // Operand vector size doesn't match geometry for instruction 'tex'
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32}];", false),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v4.f32.f32 {f64, f64, f64, f64}, [x64, {f32, f32}];", false),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v4.u32.s32 {f32, f32, f32, f32}, [x64, {s32, s32}];", false),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v4.f32.s32 {f32, f32, f32, f32}, [x64, {f32, f32}];", false),
    // Operand vector size doesn't match geometry for instruction 'tex'
    ("tex.2dms.v4.f32.s32 {f32, f32, f32, f32}, [x64, {s32, s32}];", false),
    ("tex.3d.v4.f32.f32 {f32, f32, f32, f32}|p, [x64, {f32, f32, f32, f32}];", true),
    ("tex.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32}];", true),
    // Array index in the 'tex' instruction has unexpected type. Expecting type .u32
    ("tex.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}];", false),
    ("tex.2d.v2.f16x2.f32 {f16x2, f16x2}, [x64, {f32, f32}];", true),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v2.f16x2.f32 {u32, u32}, [x64, {f32, f32}];", false),
    // Argument vector size mismatch for instruction 'tex'
    ("tex.2d.v2.f16x2.f32 {f16x2, f16x2, f16x2, f16x2}, [x64, {f32, f32}];", false),
    ("tex.2d.v4.f16.f32 {f16, f16, f16, f16}, [x64, {f32, f32}];", true),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v4.f16.f32 {b32, b32, b32, b32}, [x64, {f32, f32}];", false),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {s32, s32}, f32;", true),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {f32, f32};", false),
    // Arguments mismatch for instruction 'tex'
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {s32, s32}, u32;", false),
    ("tex.level.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], f32;", true),
    // Arguments mismatch for instruction 'tex.level'
    ("tex.level.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], u32;", false),
    // Arguments mismatch for instruction 'tex.level'
    ("tex.level.2d.v4.f32.s32 {f32, f32, f32, f32}, [x64, {s32, s32}], f32;", false),
    ("tex.grad.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {f32, f32}, {b32, b32};", true),
    // Arguments mismatch for instruction 'tex.grad'
    ("tex.grad.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {u32, u32}, {f32, f32};", false),
    // 9.7.10.3: integer literals among .f32 coordinates: leading integer or bit-size
    // registers only.
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, u32}];", true),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, b32}];", true),
    ("tex.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, u32, u32, u32}];", true),
    ("tex.a2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, 1, u32, u32}];", true),
    ("tex.a2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, 1, u32, u32}];", true),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, 1}];", false), // ptxas: segmentation fault
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {b32, 1}];", false), // ptxas: segmentation fault
    ("tex.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, 1, u32, u32}];", false), // ptxas: segmentation fault
    ("tex.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, 1}];", false), // ptxas: segmentation fault
    // Vector with elements of different types are not allowed in tex instruction
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, f32}];", false),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, 1.0}];", true),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1.0, 1.0}];", true),
    ("tex.2d.v4.f32.s32 {f32, f32, f32, f32}, [x64, {s32, 1}];", true),
    ("tex.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, f32}];", true),
    // Vector with elements of different types are not allowed in tex instruction
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, 1}];", false),
    // Vector with elements of different types are not allowed in tex instruction
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, 1.0}];", false),
    // Vector with elements of different types are not allowed in tex instruction
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f16x2, 1}];", false),
    // Vector with elements of different types are not allowed in tex instruction
    ("tex.a2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, 1, f32, f32}];", false),
    // Vector with elements of different types are not allowed in tex instruction
    ("tex.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32, f32, 1}];", false),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, 2}];", false), // Arguments mismatch for instruction 'tex'
    ("tex.1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1}];", false), // Arguments mismatch for instruction 'tex'
    ("tex.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {1, 1}];", false), // Arguments mismatch for instruction 'tex'
    // 9.7.10.3: the gradients have one element per dimension (4 for 3d and cube), the offset
    // at least as many.
    ("tex.grad.1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32}], {f32}, {f32};", true),
    ("tex.grad.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32}], {f32}, {f32};", true),
    ("tex.grad.a2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32, f32, f32}], {f32, f32}, {f32, f32};", true),
    ("tex.grad.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32, f32, f32}], {f32, f32, f32, f32}, {f32, f32, f32, f32};", true),
    ("tex.grad.cube.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32, f32, f32}], {f32, f32, f32, f32}, {f32, f32, f32, f32};", true),
    ("tex.grad.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {f32, f32}, {f32, f32}, {s32, s32};", true),
    // Operand vector size doesn't match geometry for instruction 'tex.grad'
    ("tex.grad.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {f32}, {f32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex.grad'
    ("tex.grad.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {f32, f32, f32, f32}, {f32, f32, f32, f32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex.grad'
    ("tex.grad.1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32}], {f32, f32}, {f32, f32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex.grad'
    ("tex.grad.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32}], {f32, f32}, {f32, f32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex.grad'
    ("tex.grad.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {f32, f32}, {f32, f32}, {s32};", false),
    ("tex.1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32}], {s32};", true),
    ("tex.1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32}], {s32, s32};", true),
    ("tex.a1d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32}], {s32};", true),
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {s32, s32, s32, s32};", true),
    ("tex.a2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32, f32, f32}], {s32, s32};", true),
    ("tex.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32, f32, f32}], {s32, s32, s32, s32};", true),
    // Operand vector size doesn't match geometry for instruction 'tex'
    ("tex.2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32}], {s32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex'
    ("tex.a2d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {u32, f32, f32, f32}], {s32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex'
    ("tex.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32, f32, f32}], {s32, s32};", false),
    // Operand vector size doesn't match geometry for instruction 'tex.level'
    ("tex.level.3d.v4.f32.f32 {f32, f32, f32, f32}, [x64, {f32, f32, f32, f32}], f32, {s32, s32};", false),
    // ---- 9.7.14.4.1 wmma, 9.7.14.5.14 mma, 9.7.14.6.2 mma.sp: .f16x2 registers in integer
    // fragments: sub-byte and single-bit multiplicands and the .u8/.s8 multiplicands of mma
    // are 32 raw bits, .u8/.s8 wmma multiplicands and .s32 accumulators are integers ----
    ("wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {f16x2}, [x64];", true),
    ("wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {f16x2}, [x64];", true),
    // Arguments mismatch for instruction 'wmma.load.a'
    ("wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {f16x2, f16x2}, [x64];", false),
    // Arguments mismatch for instruction 'wmma.load.c'
    ("wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2, f16x2}, [x64];", false),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {s32, s32, s32, s32}, {f16x2, f16x2, f16x2, f16x2}, {f16x2, f16x2}, {s32, s32, s32, s32};", true),
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {u32, u32, u32, u32}, {b32, b32, b32, b32}, {b32, b32}, {b32, b32, b32, b32};", true),
    ("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {s32, s32}, {f16x2}, {f16x2}, {s32, s32};", true),
    ("mma.sync.aligned.m8n8k128.row.col.and.popc.s32.b1.b1.s32 {s32, s32}, {f16x2}, {f16x2}, {s32, s32};", true),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {f16x2, f16x2, f16x2, f16x2}, {b32, b32, b32, b32}, {b32, b32}, {s32, s32, s32, s32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32}, {f16x2, f16x2, f16x2, f16x2};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32, b32}, {s32, s32, s32, s32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32};", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32};", false),
    // A sparse .f32 accumulator is any 32-bit register; a sparse .s32 one an integer.
    ("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {s32, s32, s32, s32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {f16x2, f16x2, f16x2, f16x2}, b32, 0;", true),
    ("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {u32, u32, u32, u32}, {f16x2, f16x2, f16x2, f16x2}, {f16x2, f16x2, f16x2, f16x2}, {b32, b32, b32, b32}, b32, 0;", true),
    // Arguments mismatch for instruction 'mma'
    ("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {f16x2, f16x2, f16x2, f16x2}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {s32, s32, s32, s32}, b32, 0;", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {s32, s32, s32, s32}, b32, 0;", false),
    // Arguments mismatch for instruction 'mma'
    ("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {u32, u32, u32, u32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {f16x2, f16x2, f16x2, f16x2}, b32, 0;", false),
    // ---- 9.7.11.1 suld, 9.7.11.2 sust: `.vec = { none, .v2, .v4 }`: `none` means no word ----
    ("suld.b.1d.b32.trap {u32}, [x64, {s32}];", true),
    ("sust.b.1d.b32.trap [x64, {s32}], {u32};", true),
    ("sust.b.1d.v2.b32.trap [x64, {s32}], {u32, u32};", true),
    ("suld.b.1d.none.b32.trap {u32}, [x64, {s32}];", false), // Unknown modifier '.none'
    ("sust.b.1d.none.b32.trap [x64, {s32}], {u32};", false), // Unknown modifier '.none'
    // ---- operands whose type the ISA fixes independently of the instruction type ----
    ("shl.b64 u64, u64, s32;", true),
    ("shl.b64 u64, u64, b32;", true),
    ("shr.s16 s16, s16, u32;", true),
    ("shl.b64 u64, u64, u64;", false), // Arguments mismatch for instruction 'shl'
    ("shl.b64 u64, u64, u16;", false), // Arguments mismatch for instruction 'shl'
    ("bfe.u32 u32, u32, s32, 8;", true),
    ("bfe.u32 u32, u32, u16, 8;", false), // Arguments mismatch for instruction 'bfe'
    ("bfe.u64 u64, u64, u64, 8;", false), // Arguments mismatch for instruction 'bfe'
    ("popc.b64 s32, u64;", true),
    ("popc.b64 u64, u64;", false), // Arguments mismatch for instruction 'popc'
    ("clz.b32 u16, u32;", false),  // Arguments mismatch for instruction 'clz'
    ("mul.wide.u16 u32, u16, u16;", true),
    ("mul.wide.s32 s64, u32, u32;", true),
    ("mul.wide.u32 u32, u32, u32;", false), // Arguments mismatch for instruction 'mul.wide'
    ("mad.wide.u32 u64, u32, u32, u32;", false), // Arguments mismatch for instruction 'mad.wide'
    ("setp.eq.f16x2 p|p, f16x2, b32;", true),
    ("setp.eq.f16x2 p|p, u32, b32;", false), // Arguments mismatch for instruction 'setp'
    ("setp.eq.f32 p, f32, 0;", false),       // Arguments mismatch for instruction 'setp'
    ("setp.eq.u32 p, u32, 0f00000000;", false), // Arguments mismatch for instruction 'setp'
    ("set.eq.f32.u32 f32, u32, u32;", true),
    ("set.eq.u32.f32 u32, f32, f32;", true),
    ("set.eq.u32.f32 f32, f32, f32;", false), // Arguments mismatch for instruction 'set'
    ("selp.u32 u32, u32, 1, 1;", true),
    ("selp.u32 u32, u32, u32, !p;", true),
    ("selp.f32 f32, f32, 0f00000000, p;", true),
    ("selp.u32 u32, u32, u32, u32;", false), // Arguments mismatch for instruction 'selp'
    ("slct.u32.s32 u32, u32, u32, s32;", true),
    ("slct.u32.s32 u32, u32, u32, f32;", false), // Arguments mismatch for instruction 'slct'
    ("slct.f32.f32 f32, f32, f32, u32;", false), // Arguments mismatch for instruction 'slct'
    ("testp.finite.f32 p, u32;", false),         // Arguments mismatch for instruction 'testp'
    ("lop3.b32 u32, u32, u32, u32, 0x96;", true),
    ("lop3.b32 u32, u32, u32, u64, 0x96;", false), // Arguments mismatch for instruction 'lop3'
    ("prmt.b32 u32, u32, u32, u32;", true),
    ("prmt.b32 u32, u32, u32, u16;", false), // Arguments mismatch for instruction 'prmt'
    ("bmsk.clamp.b32 u32, s32, b32;", true),
    ("bmsk.clamp.b32 u32, u32, u16;", false), // Arguments mismatch for instruction 'bmsk'
    ("bmsk.clamp.b32 f32, u32, u32;", false), // Arguments mismatch for instruction 'bmsk'
    ("dp4a.u32.u32 u32, u32, u32, u32;", true),
    ("dp4a.u32.u32 u32, u32, u32, u16;", false), // Arguments mismatch for instruction 'dp4a'
    ("nanosleep.u32 s32;", true),
    ("nanosleep.u32 u64;", false), // Arguments mismatch for instruction 'nanosleep'
    // ---- atomics and warp collectives ----
    ("atom.global.add.u32 u32, [x64], s32;", true),
    ("atom.global.add.f32 f32, [x64], b32;", true),
    ("atom.global.cas.b32 u32, [x64], u32, f32;", true),
    ("atom.global.b128.cas b128, [x64], b128, b128;", true),
    ("red.global.v2.f16.add.noftz [x64], {b16, b16};", true),
    ("atom.global.add.u32 u64, [x64], u32;", false), // Arguments mismatch for instruction 'atom'
    ("atom.global.add.u32 u32, [x64], u64;", false), // Arguments mismatch for instruction 'atom'
    ("atom.global.b128.cas b64, [x64], b64, b64;", false), // Arguments mismatch for instruction 'atom'
    ("red.global.add.u32 [x64], u64;", false), // Arguments mismatch for instruction 'red'
    ("red.global.v2.f16.add.noftz [x64], {b32, b32};", false), // Arguments mismatch for instruction 'red'
    ("shfl.sync.bfly.b32 f32, f32, 1, 31, -1;", true),
    ("shfl.sync.bfly.b32 u32|p, u32, 1, 31, u32;", true),
    ("shfl.sync.bfly.b32 u64, u32, 1, 31, -1;", false), // Arguments mismatch for instruction 'shfl'
    ("shfl.sync.bfly.b32 u32, u32, u16, 31, -1;", false), // Arguments mismatch for instruction 'shfl'
    ("vote.sync.ballot.b32 f32, p, -1;", true),
    ("vote.sync.any.pred p, !p, u32;", true),
    ("vote.sync.ballot.b32 u64, p, -1;", false), // Arguments mismatch for instruction 'vote'
    ("vote.sync.any.pred p, p, u16;", false),    // Arguments mismatch for instruction 'vote'
    ("vote.sync.any.pred u32, p, -1;", false),   // Arguments mismatch for instruction 'vote'
    ("match.any.sync.b64 u32, u64, -1;", true),
    ("match.any.sync.b64 u64, u64, -1;", false), // Arguments mismatch for instruction 'match'
    ("redux.sync.add.s32 s32, u32, -1;", true),
    ("redux.sync.add.u32 u32, u32, u16;", false), // Arguments mismatch for instruction 'redux'
    ("elect.sync u32|p, -1;", true),
    ("elect.sync u64|p, -1;", false), // Arguments mismatch for instruction 'elect'
    ("elect.sync _|p, u16;", false),  // Arguments mismatch for instruction 'elect'
    ("activemask.b32 u32;", true),
    ("activemask.b32 u64;", false), // Arguments mismatch for instruction 'activemask'
    // ---- 9.7.13.15: mbarrier (64-bit integer state, .u32 counts and parities) ----
    ("mbarrier.init.shared.b64 [x64], u32;", true),
    ("mbarrier.init.shared.b64 [x64], s32;", true),
    ("mbarrier.init.shared.b64 [x64], b32;", true),
    // Arguments mismatch for instruction 'mbarrier.init'
    ("mbarrier.init.shared.b64 [x64], u64;", false),
    // Arguments mismatch for instruction 'mbarrier.init'
    ("mbarrier.init.shared.b64 [x64], u16;", false),
    // Arguments mismatch for instruction 'mbarrier.init'
    ("mbarrier.init.shared.b64 [x64], f32;", false),
    ("mbarrier.arrive.shared.b64 b64, [x64];", true),
    ("mbarrier.arrive.shared.b64 u64, [x64];", true),
    // Arguments mismatch for instruction 'mbarrier.arrive'
    ("mbarrier.arrive.shared.b64 f64, [x64];", false),
    // Arguments mismatch for instruction 'mbarrier.arrive'
    ("mbarrier.arrive.shared.b64 u32, [x64];", false),
    ("mbarrier.arrive.shared.b64 b64, [x64], u32;", true),
    // Arguments mismatch for instruction 'mbarrier.arrive'
    ("mbarrier.arrive.shared.b64 b64, [x64], u64;", false),
    // Arguments mismatch for instruction 'mbarrier.arrive'
    ("mbarrier.arrive.shared.b64 b64, [x64], f32;", false),
    ("mbarrier.arrive.shared.b64 _, [x64];", true),
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 b64, [x64], u32;", true),
    // Arguments mismatch for instruction 'mbarrier.arrive.expect_tx'
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 b64, [x64], u64;", false),
    // Arguments mismatch for instruction 'mbarrier.arrive.expect_tx'
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 b64, [x64], u16;", false),
    ("mbarrier.test_wait.shared.b64 p, [x64], b64;", true),
    // Arguments mismatch for instruction 'mbarrier.test_wait'
    ("mbarrier.test_wait.shared.b64 p, [x64], u32;", false),
    // Arguments mismatch for instruction 'mbarrier.test_wait'
    ("mbarrier.test_wait.shared.b64 u32, [x64], b64;", false),
    // Arguments mismatch for instruction 'mbarrier.test_wait'
    ("mbarrier.test_wait.shared.b64 p, [x64], f64;", false),
    ("mbarrier.test_wait.parity.shared.b64 p, [x64], u32;", true),
    // Arguments mismatch for instruction 'mbarrier.test_wait.parity'
    ("mbarrier.test_wait.parity.shared.b64 p, [x64], b64;", false),
    // Arguments mismatch for instruction 'mbarrier.test_wait.parity'
    ("mbarrier.test_wait.parity.shared.b64 p, [x64], f32;", false),
    ("mbarrier.try_wait.parity.shared::cta.b64 p, [x64], u32;", true),
    ("mbarrier.try_wait.parity.shared::cta.b64 p, [x64], u32, u32;", true),
    // Arguments mismatch for instruction 'mbarrier.try_wait.parity'
    ("mbarrier.try_wait.parity.shared::cta.b64 p, [x64], u32, u64;", false),
    // Arguments mismatch for instruction 'mbarrier.try_wait.parity'
    ("mbarrier.try_wait.parity.shared::cta.b64 p, [x64], u64;", false),
    ("mbarrier.try_wait.shared::cta.b64 p, [x64], b64;", true),
    ("mbarrier.try_wait.shared::cta.b64 p, [x64], b64, u32;", true),
    // Arguments mismatch for instruction 'mbarrier.try_wait'
    ("mbarrier.try_wait.shared::cta.b64 p, [x64], u32;", false),
    // Arguments mismatch for instruction 'mbarrier.try_wait'
    ("mbarrier.try_wait.shared::cta.b64 b32, [x64], b64;", false),
    ("mbarrier.pending_count.b64 u32, b64;", true),
    // Arguments mismatch for instruction 'mbarrier.pending_count'
    ("mbarrier.pending_count.b64 u64, b64;", false),
    // Arguments mismatch for instruction 'mbarrier.pending_count'
    ("mbarrier.pending_count.b64 u32, u32;", false),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [x64], u32;", true),
    // Arguments mismatch for instruction 'mbarrier.expect_tx'
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [x64], u64;", false),
    // Arguments mismatch for instruction 'mbarrier.complete_tx'
    ("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [x64], u64;", false),
    ("mbarrier.arrive_drop.shared.b64 b64, [x64], u32;", true),
    // Arguments mismatch for instruction 'mbarrier.arrive_drop'
    ("mbarrier.arrive_drop.shared.b64 b64, [x64], u16;", false),
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [x64], u32;", true),
    // Arguments mismatch for instruction 'mbarrier.arrive'
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [x64], u64;", false),
    // ---- 9.7.1 packed .u16x2/.s16x2 (.b32 or .f16x2 registers), 9.7.9.23 mapa ----
    // Arguments mismatch for instruction 'add'
    ("add.u16x2 u32, u32, u32;", false),
    ("add.u16x2 b32, b32, b32;", true),
    // Arguments mismatch for instruction 'add'
    ("add.u16x2 s32, s32, s32;", false),
    // Arguments mismatch for instruction 'add'
    ("add.u16x2 f32, u32, u32;", false),
    // Arguments mismatch for instruction 'add'
    ("add.u16x2 f16x2, u32, u32;", false),
    // Arguments mismatch for instruction 'add'
    ("add.u16x2 u64, u32, u32;", false),
    // Arguments mismatch for instruction 'add'
    ("add.s16x2 u32, u32, 1;", false),
    // Arguments mismatch for instruction 'min'
    ("min.u16x2 u32, u32, u32;", false),
    // Arguments mismatch for instruction 'min'
    ("min.s16x2 f32, u32, u32;", false),
    ("mapa.shared::cluster.u32 u32, u32, u32;", true),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.shared::cluster.u32 u32, u32, u16;", false),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.shared::cluster.u32 u32, u32, u64;", false),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.shared::cluster.u32 u64, u32, u32;", false),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.shared::cluster.u32 f32, u32, u32;", false),
    ("mapa.u64 u64, u64, u32;", true),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.u64 u64, u64, u64;", false),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.u64 u64, u32, u32;", false),
    // Arguments mismatch for instruction 'mapa'
    ("mapa.shared::cluster.u64 u32, u64, u32;", false),
    ("mapa.shared::cluster.u64 u64, u64, u32;", true),
    ("max.relu.s16x2 b32, b32, b32;", true),
    ("min.u16x2 b32, b32, f16x2;", true),
    // Arguments mismatch for instruction 'add'
    ("add.u16x2 b32, b32, 1;", false),
    // Arguments mismatch for instruction 'add'
    ("add.s16x2 b32, b32, -1;", false),
    // ---- special registers have their own types (ISA chapter 10) ----
    ("mov.u16 u16, %tid.x;", true),
    ("mov.u16 u16, %ntid.y;", true),
    ("mov.s32 s32, %tid.x;", true),
    ("mov.b32 f32, %tid.x;", true),
    ("mov.u64 u64, %clock64;", true),
    ("mov.u64 u64, %globaltimer;", true),
    ("mov.u32 u32, %lanemask_lt;", true),
    ("mov.u32 u32, %pm3;", true),
    ("mov.pred p, %is_explicit_cluster;", true),
    ("cvt.u64.u32 u64, %tid.x;", true),
    ("mov.u32 u32, %gridid;", true),
    ("mov.u64 u64, %tid.x;", false), // Arguments mismatch for instruction 'mov'
    ("mov.b64 b64, %laneid;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u16 u16, %laneid;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u32 u32, %globaltimer;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u32 u32, %pm0_64;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u64 u64, %dynamic_smem_size;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u32 u32, %is_explicit_cluster;", false), // Arguments mismatch for instruction 'mov'
    ("cvt.u64.u64 u64, %tid.x;", false), // Arguments mismatch for instruction 'cvt'
    ("mov.u32 u32, %clock_hi;", true),
    ("mov.u32 u32, %envreg3;", true),
    ("mov.u32 u32, %reserved_smem_offset_begin;", true),
    ("mov.u64 u64, %current_graph_exec;", true),
    ("mov.u16 u16, %nctaid.z;", true),
    ("mov.v4.u16 {u16, u16, u16, u16}, %ntid;", true),
    ("mov.b64 {u32, u32}, %clock64;", true),
    ("mov.u16 u16, %clock_hi;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u64 u64, %envreg3;", false),  // Arguments mismatch for instruction 'mov'
    ("mov.u16 u16, %warpid;", false),   // Arguments mismatch for instruction 'mov'
    ("mov.u16 u16, %clusterid.x;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u64 u64, %reserved_smem_offset_1;", false), // Arguments mismatch for instruction 'mov'
    ("mov.u32 u32, %current_graph_exec;", false), // Arguments mismatch for instruction 'mov'
    ("mov.v4.u64 {u64, u64, u64, u64}, %ntid;", false), // Arguments mismatch for instruction 'mov'
    ("cvt.u32.u32 u32, %is_explicit_cluster;", false), // Arguments mismatch for instruction 'cvt'
    // ---- ISA 10: special registers are read by mov and cvt only ----
    ("cvt.u32.u64 u32, %clock64;", true),
    ("cvt.sat.u16.u32 u16, %tid.x;", true),
    ("cvt.u32.s16 u32, %tid.x;", true),
    ("cvt.u8.u16 u8, %tid.x;", true),
    ("mov.b32 f32, %tid.x;", true),
    ("mov.pred p, %is_explicit_cluster;", true),
    ("add.u32 u32, u32, WARP_SZ;", true), // a constant, not a special register
    ("@%is_explicit_cluster add.u32 u32, u32, 1;", true), // a guard, not an operand
    ("@!%is_explicit_cluster add.u32 u32, u32, 1;", true),
    // Special register argument not allowed for instruction 'mov'
    ("mov.f32 f32, %tid.x;", false),
    // Special register argument not allowed for instruction 'cvt' (any floating-point type)
    ("cvt.rn.f32.u32 f32, %tid.x;", false),
    ("cvt.rn.f64.u64 f64, %clock64;", false),
    ("cvt.rn.f16.u32 f16, %tid.x;", false),
    ("cvt.rn.bf16.u32 b16, %tid.x;", false),
    // Special register argument not allowed for instruction '...'
    ("add.u32 u32, %tid.x, 1;", false),
    ("add.u32 u32, u32, %tid.x;", false),
    ("add.u64 u64, %clock64, 1;", false),
    ("mad.lo.u32 u32, %ctaid.x, %ntid.x, %tid.x;", false),
    ("mul.wide.u32 u64, %tid.x, 4;", false),
    ("and.b32 u32, %laneid, 1;", false),
    ("and.pred p, p, %is_explicit_cluster;", false),
    ("shl.b32 u32, u32, %tid.x;", false),
    ("setp.eq.u32 p, %tid.x, 0;", false),
    ("selp.u32 u32, %tid.x, 1, p;", false),
    ("brev.b64 u64, %clock64;", false),
    ("testp.finite.f32 p, %tid.x;", false),
    ("st.global.u32 [x64], %tid.x;", false),
    ("atom.global.add.u32 u32, [x64], %tid.x;", false),
    ("red.global.add.u32 [x64], %tid.x;", false),
    ("shfl.sync.idx.b32 u32, u32, %laneid, 31, -1;", false),
    ("vote.sync.ballot.b32 u32, p, %lanemask_lt;", false),
    ("nanosleep.u32 %clock;", false),
    ("bar.sync %warpid;", false),
    ("bar.sync 0, %ntid.x;", false),
    ("cvta.to.global.u64 u64, %clock64;", false),
    ("isspacep.global p, %clock64;", false),
    // ---- vector elements may be special registers; then only sizes are checked ----
    ("st.global.v2.u32 [x64], {%tid.x, %tid.y};", true),
    (
        "st.global.v4.u32 [x64], {%tid.x, %tid.y, %tid.z, %laneid};",
        true,
    ),
    ("st.global.v2.u32 [x64], {%clock64, %clock64};", true),
    ("st.global.v2.u16 [x64], {%tid.x, %tid.y};", true),
    ("st.global.v2.f32 [x64], {%tid.x, f32};", true),
    ("st.global.v2.f32 [x64], {u32, %tid.x};", true),
    ("st.global.v2.u32 [x64], {f32, %tid.x};", true),
    ("st.global.v2.f64 [x64], {%clock64, f64};", true),
    ("st.global.v2.u64 [x64], {%gridid, u64};", true),
    ("red.global.v2.f32.add [x64], {%tid.x, f32};", true),
    ("mov.b64 u64, {%tid.x, f32};", true),
    ("mov.v2.u32 {u32, u32}, {%tid.x, %tid.y};", true),
    ("st.global.v2.u64 [x64], {%tid.x, %tid.y};", false), // Arguments mismatch for instruction 'st'
    ("mov.b32 u32, {%tid.x, %tid.y};", false), // Arguments mismatch for instruction 'mov'
    ("st.global.v2.b16 [x64], {%tid.x, b16};", false), // Incompatible elements of vector expression
    ("st.global.v2.u32 [x64], {%gridid, u32};", false), // Incompatible elements of vector expression
    ("st.global.v2.u64 [x64], {%clock64, %tid.x};", false), // Incompatible elements of vector expression
    ("mov.v2.u32 {u32, u32}, {%tid.x, %clock64};", false), // Incompatible elements of vector expression
    // Vector with elements of different types are not allowed in st instruction
    ("st.global.v4.u32 [x64], {%tid.x, f32, u32, u32};", false),
];

/// Cases of instructions that need sm_100a (`-arch=sm_100a`).
const CASES_SM100A: &[(&str, bool)] = &[
    // ---- 9.7.9.21: .rs conversions take .b32 random bits ----
    ("cvt.rs.f16x2.f32 b64, f32, b64, b32;", true),
    ("cvt.rs.f16x2.f32 b32, f32, f32, u32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rs.f16x2.f32 b32, f32, f32, b64;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rs.bf16x2.f32 b32, f32, f32, b32;", true),
    ("cvt.rs.bf16x2.f32 b32, f32, b64, b32;", false), // Arguments mismatch for instruction 'cvt'
    // ---- 9.7.9.21: fp4/fp6 pairs, ue8m0x2 ----
    ("cvt.rn.satfinite.e2m1x2.f32 b8, f32, f32;", true),
    ("cvt.rn.satfinite.e2m1x2.f32 b16, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.satfinite.e2m1x2.f32 u8, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.e2m1x2 b32, b8;", true),
    ("cvt.rn.f16x2.e2m1x2 b32, b16;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.satfinite.e2m3x2.f32 b16, f32, b32;", true),
    ("cvt.rn.satfinite.e2m3x2.f32 b8, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.f16x2.e3m2x2 f16x2, b16;", true),
    ("cvt.rn.f16x2.e3m2x2 b32, f16;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rz.satfinite.ue8m0x2.f32 b16, f32, f32;", true),
    ("cvt.rz.satfinite.ue8m0x2.f32 s16, f32, f32;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rz.satfinite.ue8m0x2.bf16x2 b16, b32;", true),
    ("cvt.rz.satfinite.ue8m0x2.bf16x2 b16, f16x2;", false), // Arguments mismatch for instruction 'cvt'
    ("cvt.rn.bf16x2.ue8m0x2 b32, b16;", true),
    ("cvt.rn.bf16x2.ue8m0x2 u32, b16;", false), // Arguments mismatch for instruction 'cvt'
    // ---- 9.7.9.21: four f32 sources to x4 types ----
    (
        "cvt.rs.satfinite.e4m3x4.f32 b32, {f32, f32, b32, f32}, b32;",
        true,
    ),
    (
        "cvt.rs.satfinite.e2m1x4.f32 b16, {f32, f32, f32, f32}, b32;",
        true,
    ),
    (
        "cvt.rs.satfinite.e4m3x4.f32 b16, {f32, f32, f32, f32}, b32;",
        false,
    ), // Arguments mismatch for instruction 'cvt'
    (
        "cvt.rs.satfinite.e2m1x4.f32 b32, {f32, f32, f32, f32}, b32;",
        false,
    ), // Arguments mismatch for instruction 'cvt'
    (
        "cvt.rs.satfinite.e4m3x4.f32 b32, {f32, f32, f32, f32}, f32;",
        false,
    ), // Arguments mismatch for instruction 'cvt'
    (
        "cvt.rs.satfinite.e4m3x4.f32 b32, {f64, f64, f64, f64}, b32;",
        false,
    ), // Arguments mismatch for instruction 'cvt'
    // Vector with elements of different types are not allowed in cvt instruction
    (
        "cvt.rs.satfinite.e4m3x4.f32 b32, {u32, f32, f32, f32}, b32;",
        false,
    ),
];

/// Cases of instructions that need sm_120a (`-arch=sm_120a`).
const CASES_SM120A: &[(&str, bool)] = &[
    ("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32};", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {f32, f32, f32, f32}, {b32, b32}, {b32, b32}, {f32, f32, f32, f32};", false),
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32, b32}, {f32, f32, f32, f32}, b32, {0, 0}, b32, {0, 0};", true),
    // Illegal vector size
    ("mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0 {f32, f32, f32, f32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {f32, f32, f32, f32}, b32, {0, 0}, b32, {0, 0};", false),
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {b32, b32, b32, b32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, {b32, b32, b32, b32}, b32, 0;", true),
    // Argument vector size mismatch for instruction 'mma'
    ("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32 {b32, b32, b32, b32}, {b32, b32, b32, b32}, {b32, b32}, {b32, b32, b32, b32}, b32, 0;", false),
];

/// Every case with the target it is assembled for.
fn all_cases() -> impl Iterator<Item = (&'static str, bool, &'static str)> {
    (CASES.iter().map(|&(i, ok)| (i, ok, "sm_90a")))
        .chain(CASES_SM100A.iter().map(|&(i, ok)| (i, ok, "sm_100a")))
        .chain(CASES_SM120A.iter().map(|&(i, ok)| (i, ok, "sm_120a")))
}

#[test]
fn operand_types_are_checked_as_ptxas_checks_them() {
    let mut wrong = Vec::new();
    for (inst, ok, arch) in all_cases() {
        let c = engine::check(&module_for(inst, arch), "t.ptx", true);
        match (&c.error, ok) {
            (None, true) => {}
            (Some(e), false) => {
                let d = &e.diagnostics[0];
                // The diagnostic names the instruction, the line of the instruction, and the
                // ISA rule.
                // A modifier the opcode does not take is named with the opcode.
                let name = inst.split(' ').next().unwrap();
                let opcode = name.split('.').next().unwrap();
                if e.kind != LoadErrorKind::InvalidPtx
                    || d.line != 12
                    || !(d.message.contains(&format!("'{name}'"))
                        || d.message
                            .contains(&format!("is not a modifier of '{opcode}'")))
                    || !d.message.contains("(PTX ISA ")
                {
                    wrong.push(format!("{inst}: rejected, but not as expected: {e}"));
                }
            }
            (None, false) => wrong.push(format!("{inst}: accepted, ptxas rejects it")),
            (Some(e), true) => wrong.push(format!("{inst}: rejected, ptxas accepts it: {e}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn diagnostics_name_the_operand_and_both_types() {
    let e = engine::check(&module("add.u32 u32, u16, u32;"), "t.ptx", true)
        .error
        .unwrap();
    assert_eq!(
        e.to_string(),
        "t.ptx:12:1: error: 'add.u32': operand 2 'u16' is declared .u16; the instruction type \
         .u32 requires a bit-size or integer register of 32 bits (PTX ISA 9.4)"
    );
    let e = engine::check(&module("ld.global.f32 u32, [x64];"), "t.ptx", true)
        .error
        .unwrap();
    assert!(
        e.to_string().contains(
            "'ld.global.f32': operand 1 'u32' is declared .u32; the instruction type .f32 \
             requires a .f32 register or a bit-size register of at least 32 bits (PTX ISA 9.4.1)"
        ),
        "{e}"
    );
    // The loader reports the same diagnostic (CUDA_ERROR_INVALID_PTX at the driver).
    let e = engine::Module::load(&module("mul.f32 f32, f32, 2;"), "m.ptx").unwrap_err();
    assert_eq!(e.kind, LoadErrorKind::InvalidPtx);
    assert!(
        e.to_string()
            .starts_with("m.ptx:12:1: error: 'mul.f32': operand 3 is an integer literal"),
        "{e}"
    );
}

/// ptxas of the pinned toolkit, or None (and a message) when it is missing.
fn ptxas() -> Option<PathBuf> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/install-toolkit.sh");
    let r = Command::new("bash")
        .arg(script)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("bin/ptxas"))
        .filter(|p| p.exists());
    if r.is_none() {
        eprintln!("SKIPPED: the CUDA toolkit (scripts/install-toolkit.sh) is not available; CI installs it");
    }
    r
}

/// The verdicts of the table are ptxas's own.
#[test]
fn ptxas_agrees_with_the_table() {
    let Some(ptxas) = ptxas() else { return };
    let dir = std::env::temp_dir().join(format!("engine-operand-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut wrong = Vec::new();
    for (k, (inst, ok, arch)) in all_cases().enumerate() {
        let f = dir.join(format!("c{k}.ptx"));
        std::fs::write(&f, module_for(inst, arch)).unwrap();
        let out = Command::new(&ptxas)
            .args([&format!("-arch={arch}"), "-o", "/dev/null"])
            .arg(&f)
            .output()
            .unwrap();
        if out.status.success() != ok {
            wrong.push(format!(
                "{inst}: ptxas {} it: {}",
                if ok { "rejects" } else { "accepts" },
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
