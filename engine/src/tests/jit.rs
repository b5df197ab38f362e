//! The compiling tier against the interpreter: random well-formed kernels (integer and float
//! arithmetic of every width the tier compiles, comparisons, selects, guarded ops, divergent
//! branches, shared memory read and written by other lanes, global loads and stores, atomics
//! of every integer op and the float adds on shared and global memory, on words the lanes
//! contend for and on their own, loops with a uniform and with a divergent exit, and ops the
//! tier leaves to the interpreter in between) run on both tiers and in verify mode; every
//! output bit must agree. The interpreter is the reference: these tests check the tier against it,
//! the interpreter's own tests check it against the ISA.
//!
//! `CUDA_SHIM_JIT_FUZZ=N` runs N kernels instead of the quick default (`cargo test -p engine
//! --release jit_fuzz -- --nocapture` for a long run).

use super::{cfg, download, upload, HEAD};
use crate::jit::{self, Mode};
use crate::{launch, mem, Kernel, Module};
use std::sync::Arc;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Registers of the generated kernels: 8 of each kind, all live from the prologue on.
const NR: usize = 8;
/// Words each thread reads from `in` and writes to `out`.
const WORDS: usize = 6 * NR;
const THREADS: u32 = 64;
const BLOCKS: u32 = 2;
/// Shared words per CTA: fewer than threads, so lanes share words.
const SHARED: usize = 48;
/// Words past the outputs that the body's global stores write.
const EXTRA: usize = 2304;

fn r(g: &mut Rng) -> String {
    format!("%r{}", g.below(NR))
}
fn rd(g: &mut Rng) -> String {
    format!("%rd{}", g.below(NR))
}
fn f(g: &mut Rng) -> String {
    format!("%f{}", g.below(NR))
}
fn fd(g: &mut Rng) -> String {
    format!("%fd{}", g.below(NR))
}
fn p(g: &mut Rng) -> String {
    format!("%p{}", g.below(4))
}

/// A 32-bit operand: a register, or an immediate now and then.
fn r_or_imm(g: &mut Rng) -> String {
    if g.below(4) == 0 {
        format!(
            "{}",
            *g.pick(&[0i64, 1, 2, 31, 32, 33, -1, 0x7fff_ffff, -0x8000_0000, 1000])
        )
    } else {
        r(g)
    }
}

/// One random instruction (maybe several lines, maybe with a guard).
fn inst(g: &mut Rng, label: &mut u32) -> String {
    let guard = match g.below(5) {
        0 => format!("@{} ", p(g)),
        1 => format!("@!{} ", p(g)),
        _ => String::new(),
    };
    let s = match g.below(32) {
        0..=3 => {
            let op = g.pick(&["add", "sub", "mul.lo", "min", "max", "and", "or", "xor"]);
            let ty = g.pick(&["s32", "u32"]);
            let op = if op.len() <= 3 && ["and", "or", "xor"].contains(op) {
                format!("{op}.b32")
            } else {
                format!("{op}.{ty}")
            };
            format!("{op} {}, {}, {};", r(g), r(g), r_or_imm(g))
        }
        4 => {
            let op = g.pick(&["add", "sub", "mul.lo", "min", "max"]);
            let ty = g.pick(&["s64", "u64"]);
            format!("{op}.{ty} {}, {}, {};", rd(g), rd(g), rd(g))
        }
        5 => {
            let op = g.pick(&["shl.b32", "shr.u32", "shr.s32", "shr.b32"]);
            format!("{op} {}, {}, {};", r(g), r(g), r_or_imm(g))
        }
        6 => {
            let op = g.pick(&["shl.b64", "shr.u64", "shr.s64"]);
            format!("{op} {}, {}, {};", rd(g), rd(g), r_or_imm(g))
        }
        7 => format!(
            "mad.lo.{} {}, {}, {}, {};",
            g.pick(&["s32", "u32"]),
            r(g),
            r(g),
            r(g),
            r(g)
        ),
        8 => format!(
            "mul.wide.{} {}, {}, {};",
            g.pick(&["s32", "u32"]),
            rd(g),
            r(g),
            r(g)
        ),
        9 | 10 => {
            let op = g.pick(&["add.rn", "sub.rn", "mul.rn", "add", "mul"]);
            format!("{op}.f32 {}, {}, {};", f(g), f(g), f(g))
        }
        11 => format!("fma.rn.f32 {}, {}, {}, {};", f(g), f(g), f(g), f(g)),
        12 => {
            let op = g.pick(&["add.rn", "mul.rn", "sub"]);
            format!("{op}.f64 {}, {}, {};", fd(g), fd(g), fd(g))
        }
        13 => format!("fma.rn.f64 {}, {}, {}, {};", fd(g), fd(g), fd(g), fd(g)),
        14 => {
            let c = g.pick(&["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]);
            let ty = if c.len() == 2 && "lolshihs".contains(c) {
                "u32"
            } else {
                g.pick(&["s32", "u32", "b32"])
            };
            let ty = if ty == "b32" && !["eq", "ne"].contains(c) {
                "s32"
            } else {
                ty
            };
            format!("setp.{c}.{ty} {}, {}, {};", p(g), r(g), r_or_imm(g))
        }
        15 => {
            let c = g.pick(&[
                "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
                "num", "nan",
            ]);
            if g.below(2) == 0 {
                format!("setp.{c}.f32 {}|{}, {}, {};", p(g), p(g), f(g), f(g))
            } else {
                format!("setp.{c}.f64 {}, {}, {};", p(g), fd(g), fd(g))
            }
        }
        16 => match g.below(3) {
            0 => format!("selp.b32 {}, {}, {}, {};", r(g), r(g), r_or_imm(g), p(g)),
            1 => format!("selp.f32 {}, {}, {}, {};", f(g), f(g), f(g), p(g)),
            _ => format!("selp.b64 {}, {}, {}, {};", rd(g), rd(g), rd(g), p(g)),
        },
        17 => match g.below(3) {
            0 => format!("mov.b32 {}, {};", r(g), r_or_imm(g)),
            1 => format!("mov.b32 {}, {};", f(g), r(g)),
            _ => format!("mov.b64 {}, {};", rd(g), rd(g)),
        },
        // Shared memory that other lanes read and write (words shared by several lanes).
        18 | 19 => {
            let k = g.below(SHARED);
            let w = format!("%rs{}", g.below(2));
            if g.below(2) == 0 {
                format!("st.shared.u32 [{w}+{}], {};", 4 * k % 64, r(g))
            } else {
                format!("ld.shared.u32 {}, [{w}+{}];", r(g), 4 * k % 64)
            }
        }
        // An op the tier leaves to the interpreter.
        20 => format!("popc.b32 {}, {};", r(g), r(g)),
        // Global loads of every shape the tier predicts: back to back (`%gb`, `%gc`, `%gw`,
        // `%gq`: 1, 4, 8 and 16 bytes a lane), one address (`%gu`), a stride (`%ra`), and
        // accesses whose shape does not match their size (lane by lane).
        21 | 22 => {
            let o = g.below(64) as i64;
            match g.below(11) {
                0 => format!("ld.global.{} {}, [%gb+{o}];", g.pick(&["u8", "s8"]), r(g)),
                1 => format!(
                    "ld.global.{} {}, [%gc+{}];",
                    g.pick(&["u16", "s16"]),
                    r(g),
                    2 * o
                ),
                2 => format!("ld.global.v2.u16 {{{}, {}}}, [%gc+{}];", r(g), r(g), 4 * o),
                3 => format!("ld.global.u32 {}, [%gc+{}];", r(g), 4 * o),
                4 => format!("ld.global.f32 {}, [%gc+{}];", f(g), 4 * o),
                5 => format!("ld.global.u64 {}, [%gw+{}];", rd(g), 8 * o),
                6 => format!("ld.global.v2.u32 {{{}, {}}}, [%gw+{}];", r(g), r(g), 8 * o),
                7 => format!(
                    "ld.global.v4.u32 {{{}, {}, {}, {}}}, [%gq+{}];",
                    r(g),
                    r(g),
                    r(g),
                    r(g),
                    16 * o
                ),
                8 => format!("ld.global.u32 {}, [%gu+{}];", r(g), 4 * o),
                9 => format!("ld.global.v2.f32 {{{}, {}}}, [%gu+{}];", f(g), f(g), 8 * o),
                _ => format!("ld.global.f32 {}, [%ra+{}];", f(g), 4 * (o % WORDS as i64)),
            }
        }
        // Integer conversions of every width, and 16-bit wide multiplies.
        23 => {
            let t32 = ["u8", "s8", "u16", "s16", "u32", "s32"];
            match g.below(4) {
                0 => format!("cvt.{}.{} {}, {};", g.pick(&t32), g.pick(&t32), r(g), r(g)),
                1 => format!(
                    "cvt.{}.{} {}, {};",
                    g.pick(&["u64", "s64"]),
                    g.pick(&t32),
                    rd(g),
                    r(g)
                ),
                2 => format!(
                    "cvt.{}.{} {}, {};",
                    g.pick(&t32),
                    g.pick(&["u64", "s64"]),
                    r(g),
                    rd(g)
                ),
                _ => format!("cvt.u16.u32 %h{}, {};", g.below(2), r(g)),
            }
        }
        24 => format!(
            "mul.wide.{} {}, %h{}, %h{};",
            g.pick(&["u16", "s16"]),
            r(g),
            g.below(2),
            g.below(2)
        ),
        // Global stores past the outputs: back to back per thread, or to one address per CTA
        // by warp 0 only (the last lane's value stays; warps of a CTA may interleave
        // differently on the two tiers, so only one warp writes there).
        25 => {
            let o = g.below(8) as i64;
            return match g.below(3) {
                0 => format!("{guard}st.global.u32 [%ob+{}], {};\n", 512 * o, r(g)),
                1 => format!("{guard}st.global.u16 [%ob+{}], {};\n", 512 * o + 2, r(g)),
                _ => format!("@%pw st.global.u32 [%obu+{}], {};\n", 4 * o, r_or_imm(g)),
            };
        }
        // Atomics on shared memory: per-thread words that lanes share (`%rs0`), and words all
        // lanes contend for (`%rs1`), returning the old values or not (`red`).
        26 | 27 => {
            let base = if g.below(2) == 0 { "%rs0" } else { "%rs1" };
            atomic(g, "shared", base, 0, 64)
        }
        28 => atomic(g, "shared", "%rs1", 0, 64),
        // Atomics on global memory: each thread's own words (`%ob`), and words all the lanes of
        // a CTA contend for (`%obu`; each CTA has its own, so that host threads running other
        // CTAs cannot change the order).
        29 => match g.below(2) {
            0 => {
                let o = 512 * g.below(8) as i64;
                atomic(g, "global", "%ob", o, 4)
            }
            _ => atomic(g, "global", "%obu", 64, 128),
        },
        // Special registers of the launch's geometry and kernel parameters (whole, in parts,
        // narrow and sign-extended), which segments compile.
        30 => match g.below(3) {
            0 => format!(
                "mov.u32 {}, %{};",
                r(g),
                g.pick(&[
                    "tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y",
                    "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "laneid"
                ])
            ),
            1 => {
                let (ty, size) = *g.pick(&[
                    ("u8", 1),
                    ("s8", 1),
                    ("u16", 2),
                    ("s16", 2),
                    ("u32", 4),
                    ("s32", 4),
                ]);
                let off = size * g.below(8 / size);
                format!("ld.param.{ty} {}, [in+{off}];", r(g))
            }
            // (Only `in`: the three runs of a kernel share its input buffer, but each has an
            // output buffer of its own, whose address a loaded `out` would put in the results;
            // the runs found it at the same address only while no other test allocated.)
            _ => format!("ld.param.u64 {}, [in];", rd(g)),
        },
        // A divergent branch over a few instructions, or a loop of them.
        _ => {
            *label += 1;
            let l = *label;
            let mut body = String::new();
            for _ in 0..1 + g.below(4) {
                let i = inst(g, label);
                if !i.contains("bra") {
                    body += &i;
                    body += "\n";
                }
            }
            if g.below(2) == 0 {
                return counted_loop(g, l, &body);
            }
            return format!("@{} bra L{l};\n{body}L{l}:\n", p(g));
        }
    };
    format!("{guard}{s}\n")
}

/// `body` as a loop of a few iterations, the same number for every lane or (the loop's exit
/// divergent) a number per lane, counted in registers of its own (the body, which has no
/// branch, does not touch them).
fn counted_loop(g: &mut Rng, l: u32, body: &str) -> String {
    let trip = match g.below(2) {
        0 => format!("mov.u32 %lt, {};\n", 1 + g.below(6)),
        _ => format!(
            "and.b32 %lt, %tid, {};\nadd.u32 %lt, %lt, 1;\n",
            g.pick(&[1, 3, 7])
        ),
    };
    format!(
        "{trip}mov.u32 %lc, 0;\nLL{l}:\n{body}add.u32 %lc, %lc, 1;\n\
         setp.lt.u32 %pl, %lc, %lt;\n@%pl bra LL{l};\n"
    )
}

/// An `atom` or `red` on `space` at `[base + off + k]` for a `k` below `span` that the type's
/// alignment allows (only 32-bit types when `span` is 4, or when the base is `%rs0`, which is
/// 4-aligned only).
fn atomic(g: &mut Rng, space: &str, base: &str, off: i64, span: i64) -> String {
    let wide = span > 4 && base != "%rs0" && g.below(3) == 0;
    let (op, ty) = if wide {
        *g.pick(&[
            ("add", "u64"),
            ("min", "u64"),
            ("min", "s64"),
            ("max", "u64"),
            ("max", "s64"),
            ("and", "b64"),
            ("or", "b64"),
            ("xor", "b64"),
            ("exch", "b64"),
            ("cas", "b64"),
            ("add", "f64"),
        ])
    } else {
        *g.pick(&[
            ("add", "u32"),
            ("add", "s32"),
            ("min", "u32"),
            ("min", "s32"),
            ("max", "u32"),
            ("max", "s32"),
            ("inc", "u32"),
            ("dec", "u32"),
            ("and", "b32"),
            ("or", "b32"),
            ("xor", "b32"),
            ("exch", "b32"),
            ("cas", "b32"),
            ("add", "f32"),
        ])
    };
    let size = if wide { 8 } else { 4 };
    let at = format!(
        "[{base}+{}]",
        off + size * g.below((span / size) as usize) as i64
    );
    let (d, a, b) = match ty {
        "f32" => (f(g), f(g), f(g)),
        "f64" => (fd(g), fd(g), fd(g)),
        _ if wide => (rd(g), rd(g), rd(g)),
        _ => (r(g), r_or_imm(g), r_or_imm(g)),
    };
    if op == "cas" {
        return format!("atom.{space}.cas.{ty} {d}, {at}, {a}, {b};");
    }
    if g.below(4) == 0 && op != "exch" {
        return format!("red.{space}.{op}.{ty} {at}, {a};");
    }
    format!("atom.{space}.{op}.{ty} {d}, {at}, {a};")
}

fn kernel(seed: u64, len: usize) -> String {
    let mut g = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut label = 0;
    let mut body = String::new();
    for _ in 0..len {
        body += &inst(&mut g, &mut label);
    }
    let mut load = String::new();
    let mut store = String::new();
    for k in 0..NR {
        // Each thread's words: r, f, then the low and high halves of rd and fd.
        load += &format!("ld.global.u32 %r{k}, [%ra+{}];\n", 4 * k);
        load += &format!("ld.global.f32 %f{k}, [%ra+{}];\n", 4 * (NR + k));
        load += &format!("ld.global.u64 %rd{k}, [%ra+{}];\n", 4 * (2 * NR) + 8 * k);
        load += &format!("ld.global.f64 %fd{k}, [%ra+{}];\n", 4 * (4 * NR) + 8 * k);
        store += &format!("st.global.u32 [%rb+{}], %r{k};\n", 4 * k);
        store += &format!("st.global.f32 [%rb+{}], %f{k};\n", 4 * (NR + k));
        store += &format!("st.global.u64 [%rb+{}], %rd{k};\n", 4 * (2 * NR) + 8 * k);
        store += &format!("st.global.f64 [%rb+{}], %fd{k};\n", 4 * (4 * NR) + 8 * k);
    }
    for k in 0..4 {
        load += &format!("and.b32 %t, %r{k}, 1;\nsetp.ne.u32 %p{k}, %t, 0;\n");
    }
    load += "cvt.u16.u32 %h0, %r0;\ncvt.u16.u32 %h1, %r1;\n";
    format!(
        "{HEAD}.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<{NR}>;
    .reg .b64 %rd<{NR}>;
    .reg .f32 %f<{NR}>;
    .reg .f64 %fd<{NR}>;
    .reg .b32 %rs<2>;
    .reg .b32 %t, %tid, %gid;
    .reg .b64 %ra, %rb, %o;
    .reg .b64 %gb, %gc, %gw, %gq, %gu, %ob, %obu, %x;
    .reg .b16 %h<2>;
    .reg .pred %pw, %pl;
    .reg .b32 %lc, %lt;
    .shared .align 8 .b8 sh[{}];
    ld.param.u64 %ra, [in];
    ld.param.u64 %rb, [out];
    mov.u32 %tid, %tid.x;
    mov.u32 %t, %ctaid.x;
    mad.lo.u32 %gid, %t, {THREADS}, %tid;
    mul.wide.u32 %o, %gid, {};
    add.u64 %ra, %ra, %o;
    add.u64 %rb, %rb, %o;
    mov.u32 %rs0, sh;
    mul.lo.u32 %t, %tid, 4;
    rem.u32 %t, %t, {};
    add.u32 %rs0, %rs0, %t;
    mov.u32 %rs1, sh;
    ld.param.u64 %gu, [in];
    cvt.u64.u32 %x, %gid;
    add.u64 %gb, %gu, %x;
    shl.b64 %x, %x, 2;
    add.u64 %gc, %gu, %x;
    shl.b64 %x, %x, 1;
    add.u64 %gw, %gu, %x;
    shl.b64 %x, %x, 1;
    add.u64 %gq, %gu, %x;
    ld.param.u64 %ob, [out];
    add.u64 %ob, %ob, {};
    mov.u32 %t, %ctaid.x;
    mul.wide.u32 %x, %t, 256;
    add.u64 %obu, %ob, %x;
    add.u64 %obu, %obu, 8192;
    cvt.u64.u32 %x, %gid;
    shl.b64 %x, %x, 2;
    add.u64 %ob, %ob, %x;
    setp.lt.u32 %pw, %tid, 32;
    st.shared.u32 [%rs0], %tid;
    bar.sync 0;
{load}{body}    bar.sync 0;
{store}    ret;
}}
",
        SHARED * 4 + 64,
        WORDS * 4,
        SHARED * 4,
        WORDS * 4 * (THREADS * BLOCKS) as usize
    )
}

/// Input words: random bits with special values mixed in (NaNs with payloads, infinities,
/// zeros of both signs, subnormals, extremes of the integers).
fn inputs(seed: u64) -> Vec<u32> {
    let mut g = Rng(seed ^ 0x5555_aaaa_1234_5678 | 1);
    let special = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7fa0_0001,
        0xffc1_2345,
        0x0000_0001,
        0x807f_ffff,
        0x3f80_0000,
        0xbf80_0000,
        0x7fff_ffff,
        0xffff_ffff,
        1,
        31,
        32,
        0x7ff8_0000,
        0xfff0_0000,
        0x7ff0_0000,
    ];
    (0..WORDS * (THREADS * BLOCKS) as usize)
        .map(|_| match g.below(4) {
            0 => *g.pick(&special),
            1 => g.below(64) as u32,
            _ => g.next() as u32,
        })
        .collect()
}

fn run(k: &Arc<Kernel>, src: &str, input: u64, mode: Mode) -> Vec<u32> {
    k.set_jit(Some(mode));
    let n = WORDS * (THREADS * BLOCKS) as usize + EXTRA;
    let out = upload(&vec![0u32; n]);
    let mut params = input.to_le_bytes().to_vec();
    params.extend(out.to_le_bytes());
    launch(k, &cfg(BLOCKS, THREADS), &params).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let r = download(out, n);
    mem::free(out).unwrap();
    r
}

/// The kernels this run generates: quick by default, `CUDA_SHIM_JIT_FUZZ` for long runs.
fn budget() -> u64 {
    std::env::var("CUDA_SHIM_JIT_FUZZ")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

#[test]
fn jit_fuzz_random_kernels_agree_bit_for_bit_on_both_tiers() {
    let (mut compiled, mut looped) = (0, 0);
    for seed in 0..budget() {
        let src = kernel(seed, 12 + (seed as usize % 40));
        let m = Module::load(&src, "fuzz.ptx").unwrap_or_else(|e| panic!("{e}\n{src}"));
        let k = m.kernel("k").unwrap();
        let input = upload(&inputs(seed));
        let before = jit::mismatches();
        let interp = run(&k, &src, input, Mode::Off);
        let on = run(&k, &src, input, Mode::On);
        let verify = run(&k, &src, input, Mode::Verify);
        mem::free(input).unwrap();
        if let Some(w) = (0..interp.len()).find(|&w| interp[w] != on[w]) {
            panic!(
                "seed {seed}: word {w} (thread {}, word {}) is {:#x} interpreted, {:#x} compiled\n{src}",
                w / WORDS,
                w % WORDS,
                interp[w],
                on[w]
            );
        }
        assert_eq!(
            interp, verify,
            "seed {seed}: verify mode keeps the interpreter's results"
        );
        assert_eq!(
            jit::mismatches(),
            before,
            "seed {seed}: verify mode found a difference\n{src}"
        );
        if let Some(s) = k.jit_summary() {
            compiled += 1;
            looped += s.looped;
        }
    }
    // The generator must exercise the tier, not only the interpreter.
    assert!(
        compiled * 2 > budget(),
        "only {compiled} kernels had compiled segments"
    );
    assert!(looped > 0, "no loop took its back edge in compiled code");
}

/// A compiled segment whose shared load leaves the CTA's shared memory: the launch fails with
/// the interpreter's report (same kernel, block, thread, PTX line and address), and the lanes
/// before the faulting one, which the segment had already run, are undone first.
/// The error of a launch of `threads` threads of kernel `k` of `src` (which faults) on the
/// interpreter, the compiling tier and in verify mode; the kernel must have compiled segments.
fn fault_messages(src: &str, threads: u32) -> Vec<String> {
    let mut msgs = Vec::new();
    for mode in [Mode::Off, Mode::On, Mode::Verify] {
        let m = Module::load(src, "fault.ptx").unwrap();
        let k = m.kernel("k").unwrap();
        k.set_jit(Some(mode));
        let e = launch(&k, &cfg(1, threads), &0u64.to_le_bytes()).unwrap_err();
        msgs.push(e.to_string());
        if mode == Mode::On {
            assert!(
                k.jit_summary().is_some_and(|s| s.segments > 0),
                "the faulting access is compiled"
            );
        }
    }
    msgs
}

#[test]
fn jit_fault_in_a_compiled_segment_reports_as_the_interpreter_does() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<8>;
    .shared .align 4 .b8 sh[256];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, sh;
    mul.lo.u32 %r3, %r1, 4;
    add.u32 %r3, %r3, %r2;
    add.u32 %r3, %r3, 128;
    ld.shared.u32 %r4, [%r3];
    add.u32 %r4, %r4, 1;
    ret;
}}
"
    );
    let msgs = fault_messages(&src, 64);
    // Thread 32 is the first whose address (32*4 + 128 = 256) is past the 256 bytes.
    assert!(msgs[0].contains("thread (32,0,0)"), "{}", msgs[0]);
    assert_eq!(msgs[0], msgs[1]);
    assert_eq!(msgs[0], msgs[2]);
}

/// A segment with atomics whose check fails in its second pass (a block 12 threads wide: the
/// load's predicted stride holds for lanes 0-7, not for lanes 8-15, where `%tid.x` starts
/// again): the first pass's lanes keep their atomics, the interpreter runs the segment for
/// the others, and every old value and the counters come out as the interpreter's.
#[test]
fn jit_atomic_segment_stopped_part_way_resumes_as_the_interpreter() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 in, .param .u64 out)
{{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b32 sh[4];
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %tid.y;
    mad.lo.u32 %r2, %r1, 12, %r0;
    ld.param.u64 %rd0, [in];
    ld.param.u64 %rd1, [out];
    mov.u32 %r9, sh;
    mov.u32 %r10, 0;
    st.shared.u32 [%r9], %r10;
    st.shared.u32 [%r9+4], %r10;
    bar.sync 0;
    mul.wide.u32 %rd2, %r0, 4;
    add.u64 %rd3, %rd0, %rd2;
    ld.global.u32 %r3, [%rd3];
    add.u32 %r4, %r3, %r2;
    atom.shared.add.u32 %r5, [%r9], %r4;
    xor.b32 %r6, %r5, %r2;
    bar.sync 0;
    atom.global.exch.b32 %r7, [%rd1], %r2;
    mul.lo.u32 %r8, %r7, 3;
    mul.wide.u32 %rd4, %r2, 8;
    add.u64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5+8], %r6;
    st.global.u32 [%rd5+12], %r8;
    ret;
}}
"
    );
    let input = upload(&(0..12u32).map(|i| i * 0x1001 + 7).collect::<Vec<_>>());
    let mut outs: Vec<Vec<u32>> = Vec::new();
    for mode in [Mode::Off, Mode::On, Mode::Verify] {
        let m = Module::load(&src, "resume.ptx").unwrap();
        let k = m.kernel("k").unwrap();
        k.set_jit(Some(mode));
        let n = 2 + 2 * 48;
        let out = upload(&vec![0u32; n]);
        let mut params = input.to_le_bytes().to_vec();
        params.extend(out.to_le_bytes());
        let mut c = cfg(1, 12);
        c.block = [12, 4, 1];
        launch(&k, &c, &params).unwrap();
        outs.push(download(out, n));
        mem::free(out).unwrap();
        if mode == Mode::On {
            let segs = k.jit_summary().map_or(0, |s| s.segments);
            assert!(segs >= 2, "the atomics are compiled ({segs} segments)");
        }
    }
    mem::free(input).unwrap();
    assert_eq!(outs[0], outs[1], "compiled");
    assert_eq!(outs[0], outs[2], "verify");
}

/// Special registers and kernel parameters in compiled segments, in blocks whose rows a warp
/// spans partly (`%tid.y` and `%tid.z` change inside a warp, the last warp is partial) and in
/// blocks whose rows are wider than a warp: every value as the interpreter's, on a grid of
/// several CTAs in each dimension, under a guard too.
#[test]
fn jit_special_registers_and_parameters_agree_with_the_interpreter() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out, .param .u32 a, .param .u16 b, .param .u8 c)
{{
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %tid.y;
    mov.u32 %r2, %tid.z;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %ntid.y;
    mov.u32 %r5, %ntid.z;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ctaid.y;
    mov.u32 %r8, %ctaid.z;
    mov.u32 %r9, %nctaid.x;
    mov.u32 %r10, %nctaid.y;
    mov.u32 %r11, %nctaid.z;
    mov.u32 %r12, %laneid;
    ld.param.u32 %r13, [a];
    ld.param.s16 %r14, [b];
    ld.param.u8 %r15, [c];
    ld.param.u64 %rd0, [out];
    setp.lt.u32 %p, %r0, 3;
    @%p ld.param.s8 %r15, [a+1];
    @%p mov.u32 %r12, %tid.y;
    mad.lo.u32 %r16, %r2, %r4, %r1;
    mad.lo.u32 %r16, %r16, %r3, %r0;
    mad.lo.u32 %r17, %r8, %r10, %r7;
    mad.lo.u32 %r17, %r17, %r9, %r6;
    mul.lo.u32 %r18, %r3, %r4;
    mul.lo.u32 %r18, %r18, %r5;
    mad.lo.u32 %r16, %r17, %r18, %r16;
    mul.wide.u32 %rd1, %r16, 64;
    add.u64 %rd1, %rd0, %rd1;
    st.global.v4.u32 [%rd1], {{%r0, %r1, %r2, %r3}};
    st.global.v4.u32 [%rd1+16], {{%r4, %r5, %r6, %r7}};
    st.global.v4.u32 [%rd1+32], {{%r8, %r9, %r10, %r11}};
    st.global.v4.u32 [%rd1+48], {{%r12, %r13, %r14, %r15}};
    ret;
}}
"
    );
    for (grid, block) in [
        ([3, 2, 2], [12, 5, 2]),
        ([2, 3, 1], [16, 16, 1]),
        ([2, 1, 2], [64, 2, 1]),
        ([1, 1, 1], [7, 3, 3]),
    ] {
        let threads = (grid.iter().product::<u32>() * block.iter().product::<u32>()) as usize;
        let n = threads * 16;
        let mut outs: Vec<Vec<u32>> = Vec::new();
        for mode in [Mode::Off, Mode::On, Mode::Verify] {
            let m = Module::load(&src, "sreg.ptx").unwrap();
            let k = m.kernel("k").unwrap();
            k.set_jit(Some(mode));
            let out = upload(&vec![0u32; n]);
            let mut params = out.to_le_bytes().to_vec();
            params.extend(0x8081_fe7fu32.to_le_bytes());
            params.extend(0x9234u16.to_le_bytes());
            params.push(0xc5);
            let mut c = cfg(1, 1);
            (c.grid, c.block) = (grid, block);
            let before = jit::mismatches();
            launch(&k, &c, &params).unwrap();
            assert_eq!(jit::mismatches(), before, "verify mode found a difference");
            outs.push(download(out, n));
            mem::free(out).unwrap();
            if mode == Mode::On {
                let ops = k.jit_summary().map_or(0, |s| s.ops);
                assert!(ops >= 30, "the special registers are compiled ({ops} ops)");
            }
        }
        assert_eq!(outs[0], outs[1], "compiled, block {block:?}");
        assert_eq!(outs[0], outs[2], "verify, block {block:?}");
        // (Spot check of the reference: thread (1,0,0) of CTA (0,0,0).)
        assert_eq!(outs[0][16..20], [1, 0, 0, block[0]]);
    }
}

/// A global store after global loads of the words other lanes store (the previous and the next
/// lane's): the segment defers its store until every pass has loaded, so each lane loads the
/// old words as on the interpreter, where all lanes load before any stores. In a block 12
/// threads wide the rows lie 16 words apart, so the second pass's check fails: nothing may
/// have been stored by then (the interpreter runs the segment again from its start). Eight
/// CTAs, each on its own words: a worker's first run of the segment in a launch fails its
/// check (its allocation cache is cold), the others run compiled.
#[test]
fn jit_deferred_store_after_loads_of_other_lanes_words_agrees_with_the_interpreter() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %tid.y;
    shl.b32 %r7, %r1, 4;
    add.u32 %r2, %r7, %r0;
    mov.u32 %r8, %ctaid.x;
    ld.param.u64 %rd3, [buf];
    mul.wide.u32 %rd0, %r8, 512;
    add.u64 %rd0, %rd0, %rd3;
    mul.wide.u32 %rd1, %r2, 4;
    add.u64 %rd2, %rd0, %rd1;
    ld.global.u32 %r3, [%rd2+68];
    ld.global.u32 %r4, [%rd2+60];
    ld.global.u32 %r5, [%rd2+64];
    mul.lo.u32 %r6, %r3, 3;
    xor.b32 %r6, %r6, %r4;
    add.u32 %r6, %r6, %r5;
    add.u32 %r6, %r6, %r2;
    st.global.u32 [%rd2+64], %r6;
    ret;
}}
"
    );
    for block in [[16, 2, 1], [12, 2, 1], [8, 3, 1], [32, 1, 1]] {
        let init: Vec<u32> = (0..8 * 128u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 5)
            .collect();
        let mut outs: Vec<Vec<u32>> = Vec::new();
        for mode in [Mode::Off, Mode::On, Mode::Verify] {
            let m = Module::load(&src, "defer.ptx").unwrap();
            let k = m.kernel("k").unwrap();
            k.set_jit(Some(mode));
            let buf = upload(&init);
            let mut c = cfg(8, 1);
            c.block = block;
            let before = jit::mismatches();
            launch(&k, &c, &buf.to_le_bytes()).unwrap();
            assert_eq!(jit::mismatches(), before, "verify mode found a difference");
            outs.push(download(buf, init.len()));
            mem::free(buf).unwrap();
            if mode == Mode::On {
                let ops = k.jit_summary().map_or(0, |s| s.ops);
                assert!(
                    ops >= 15,
                    "the loads and the store are compiled ({ops} ops)"
                );
            }
        }
        assert_eq!(outs[0], outs[1], "compiled, block {block:?}");
        assert_eq!(outs[0], outs[2], "verify, block {block:?}");
        assert_ne!(outs[0], init);
    }
}

/// An atomic in a compiled segment whose address leaves shared memory for a lane of the second
/// pass: the launch fails with the interpreter's report.
#[test]
fn jit_atomic_fault_reports_as_the_interpreter_does() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<8>;
    .shared .align 4 .b8 sh[256];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, sh;
    mul.lo.u32 %r3, %r1, 4;
    add.u32 %r3, %r3, %r2;
    add.u32 %r3, %r3, 216;
    atom.shared.add.u32 %r4, [%r3], %r1;
    add.u32 %r4, %r4, 1;
    ret;
}}
"
    );
    let msgs = fault_messages(&src, 32);
    // Thread 10 is the first whose word (10*4 + 216 = 256) is past the 256 bytes.
    assert!(msgs[0].contains("thread (10,0,0)"), "{}", msgs[0]);
    assert_eq!(msgs[0], msgs[1]);
    assert_eq!(msgs[0], msgs[2]);
}

/// A segment whose prediction fails on every run is switched off after [`jit::MAX_FAILS`]
/// failed checks in a row, and the interpreter runs it from then on; one that fails now and
/// then (here once a launch: each launch's first global access finds the worker's allocation
/// cache empty) stays on however often that happens. Kernel `a`'s loop loads at
/// `tid.x * 4`, predicted to step by 4 a lane, in a block 12 threads wide: in every warp some
/// pass's lanes wrap around to `tid.x` = 0, so each of the two warps' 100 runs of the loop's
/// segment fails; the first [`jit::MAX_FAILS`] of them stop and the rest are not tried.
/// Kernel `b`'s segment stops in its first warp of each launch only, the second warp's run
/// passing (the interpreter filled the cache).
#[test]
fn jit_segment_that_always_fails_its_check_is_switched_off() {
    let src = format!(
        "{HEAD}.visible .entry a(.param .u64 buf)
{{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %tid.y;
    mad.lo.u32 %r2, %r1, 12, %r0;
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd2, %r0, 4;
    add.u64 %rd3, %rd0, %rd2;
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
$L:
    ld.global.u32 %r3, [%rd3];
    add.u32 %r4, %r4, %r3;
    add.u32 %r4, %r4, %r5;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, 100;
    @%p1 bra $L;
    mul.wide.u32 %rd4, %r2, 4;
    add.u64 %rd5, %rd0, %rd4;
    st.global.u32 [%rd5+64], %r4;
    ret;
}}
.visible .entry b(.param .u64 buf)
{{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd0, %rd1;
    ld.global.u32 %r1, [%rd2];
    add.u32 %r1, %r1, 1;
    st.global.u32 [%rd2], %r1;
    ret;
}}
"
    );
    let n = 16 + 48;
    let init: Vec<u32> = (0..n as u32).map(|i| i * 0x101 + 3).collect();
    let mut outs: Vec<Vec<u32>> = Vec::new();
    for mode in [Mode::Off, Mode::On] {
        let m = Module::load(&src, "fails.ptx").unwrap();
        let a = m.kernel("a").unwrap();
        a.set_jit(Some(mode));
        let buf = upload(&init);
        let mut c = cfg(1, 48);
        c.block = [12, 4, 1];
        launch(&a, &c, &buf.to_le_bytes()).unwrap();
        outs.push(download(buf, n));
        mem::free(buf).unwrap();
        if mode == Mode::On {
            let s = a.jit_summary().expect("compiled");
            assert_eq!(s.stops, jit::MAX_FAILS as u64, "{s:?}");
            assert_eq!(s.off, 1, "{s:?}");
        }
    }
    assert_eq!(outs[0], outs[1], "the interpreter's results");

    let m = Module::load(&src, "fails.ptx").unwrap();
    let b = m.kernel("b").unwrap();
    b.set_jit(Some(Mode::On));
    let buf = upload(&init);
    let launches = 2 * jit::MAX_FAILS;
    for _ in 0..launches {
        launch(&b, &cfg(1, 64), &buf.to_le_bytes()).unwrap();
    }
    let got: Vec<u32> = download(buf, n);
    mem::free(buf).unwrap();
    let want: Vec<u32> = init.iter().map(|v| v + launches).collect();
    assert_eq!(got, want);
    let s = b.jit_summary().expect("compiled");
    assert_eq!((s.stops, s.off), (launches as u64, 0), "{s:?}");
}

/// One launch of kernel `k` of `src` on one tier: its error, if any, the buffers it was given
/// (`k`'s parameters, one pointer each) as they are after it, and the thread-instructions it
/// counted.
#[derive(Debug, PartialEq)]
struct TierRun {
    err: Option<String>,
    bufs: Vec<Vec<u32>>,
    executed: u64,
}

/// Runs kernel `k` of `src` over `c` on the interpreter, the compiling tier and in verify
/// mode, each on fresh copies of `bufs`; every tier must end as the interpreter does (verify
/// mode finding no difference). Returns the interpreter's run and the compiling tier's
/// summary.
fn on_each_tier(src: &str, c: &crate::LaunchConfig, bufs: &[Vec<u32>]) -> (TierRun, jit::Summary) {
    let mut runs = Vec::new();
    let mut summary = None;
    for mode in [Mode::Off, Mode::On, Mode::Verify] {
        let m = Module::load(src, "loop.ptx").unwrap_or_else(|e| panic!("{e}\n{src}"));
        let k = m.kernel("k").unwrap();
        k.set_jit(Some(mode));
        let ptrs: Vec<u64> = bufs.iter().map(|b| upload(b)).collect();
        let params: Vec<u8> = ptrs.iter().flat_map(|p| p.to_le_bytes()).collect();
        let before = jit::mismatches();
        let err = launch(&k, c, &params).err().map(|e| e.to_string());
        assert_eq!(jit::mismatches(), before, "verify mode found a difference");
        let bufs = (ptrs.iter().zip(bufs))
            .map(|(&p, b)| {
                let v = download(p, b.len());
                mem::free(p).unwrap();
                v
            })
            .collect();
        let executed = k.executed.load(std::sync::atomic::Ordering::Relaxed);
        runs.push(TierRun {
            err,
            bufs,
            executed,
        });
        if mode == Mode::On {
            summary = k.jit_summary();
        }
    }
    assert_eq!(runs[0], runs[1], "compiled");
    assert_eq!(runs[0], runs[2], "verify");
    (runs.swap_remove(0), summary.expect("compiled"))
}

/// `on_each_tier` with a time limit: a compiled loop that never returned to the interpreter
/// would hang the test instead of failing it.
fn on_each_tier_within(
    secs: u64,
    src: String,
    c: crate::LaunchConfig,
    bufs: Vec<Vec<u32>>,
) -> (TierRun, jit::Summary) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(on_each_tier(&src, &c, &bufs)));
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .expect("the launches did not finish in time")
}

/// A loop whose body is one segment, every lane taking its back edge: 200 iterations per
/// warp, each loading a word, storing one (a deferred store: the segment loads global memory
/// too) and stepping its pointer. The compiled code takes the back edge itself, hundreds of
/// times; every word and the thread-instruction count come out as interpreted, and as the
/// arithmetic says.
#[test]
fn jit_uniform_loop_runs_its_iterations_compiled() {
    const N: usize = 200;
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd0, %rd1;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
$L:
    ld.global.u32 %r3, [%rd2];
    mad.lo.u32 %r2, %r2, 3, %r3;
    xor.b32 %r2, %r2, %r1;
    st.global.u32 [%rd2+{}], %r2;
    add.u64 %rd2, %rd2, 256;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p0, %r1, {N};
    @%p0 bra $L;
    ret;
}}
",
        64 * N * 4
    );
    let mut init: Vec<u32> = (0..64 * N as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b9) >> 7)
        .collect();
    init.extend(vec![0u32; 64 * N]);
    let (run, s) = on_each_tier(&src, &cfg(1, 64), &[init.clone()]);
    for t in 0..64 {
        let mut acc = 0u32;
        for i in 0..N {
            acc = acc.wrapping_mul(3).wrapping_add(init[i * 64 + t]) ^ i as u32;
            assert_eq!(
                run.bufs[0][64 * N + i * 64 + t],
                acc,
                "thread {t}, iteration {i}"
            );
        }
    }
    // Two warps, 199 back edges each; a warp's first run may stop (a cold allocation cache).
    assert!(s.looped >= 2 * (N as u64 - 2), "{s:?}");
}

/// A loop whose trip count differs per lane (20 + tid % 8 iterations, a guarded op inside):
/// the first 20 back edges are taken by every lane, compiled; then the lanes leave one group
/// after another, each divergent branch interpreted, and the lanes still looping loop
/// compiled again.
#[test]
fn jit_loop_with_a_divergent_exit_agrees_with_the_interpreter() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    mov.u32 %r0, %tid.x;
    and.b32 %r5, %r0, 7;
    add.u32 %r5, %r5, 20;
    mov.u32 %r1, 0;
    mov.u32 %r2, 1;
$L:
    mad.lo.u32 %r2, %r2, 1664525, %r0;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 add.u32 %r2, %r2, 7;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p0, %r1, %r5;
    @%p0 bra $L;
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r2;
    ret;
}}
"
    );
    let (run, s) = on_each_tier(&src, &cfg(1, 96), &[vec![0u32; 96]]);
    for t in 0..96u32 {
        let mut acc = 1u32;
        for i in 0..20 + t % 8 {
            acc = acc.wrapping_mul(1664525).wrapping_add(t);
            if i == 5 {
                acc = acc.wrapping_add(7);
            }
        }
        assert_eq!(run.bufs[0][t as usize], acc, "thread {t}");
    }
    // Per warp: 19 back edges together, then one for each of the 7 groups still looping,
    // taken by its lanes alone after the divergent branch (interpreted) that left it there.
    assert!(s.looped >= 3 * 19, "{s:?}");
}

/// A histogram loop: each iteration loads a word and adds 1 to its bin in shared memory with
/// `atom.shared.add`, keeping the old values. Atomics in a loop that stays compiled: the bins
/// as the arithmetic says, the old values (which depend on the lanes' order) as interpreted.
#[test]
fn jit_loop_with_a_shared_atomic_agrees_with_the_interpreter() {
    const N: usize = 50;
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    .reg .pred %p<2>;
    .shared .align 4 .b32 hist[16];
    mov.u32 %r0, %tid.x;
    mov.u32 %r9, hist;
    setp.lt.u32 %p1, %r0, 16;
    shl.b32 %r8, %r0, 2;
    add.u32 %r8, %r8, %r9;
    mov.u32 %r7, 0;
    @%p1 st.shared.u32 [%r8], %r7;
    bar.sync 0;
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd0, %rd1;
    mov.u32 %r1, 0;
    mov.u32 %r2, 0;
$L:
    ld.global.u32 %r3, [%rd2];
    and.b32 %r3, %r3, 15;
    shl.b32 %r3, %r3, 2;
    add.u32 %r3, %r3, %r9;
    atom.shared.add.u32 %r4, [%r3], 1;
    mad.lo.u32 %r2, %r2, 33, %r4;
    add.u64 %rd2, %rd2, 256;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p0, %r1, {N};
    @%p0 bra $L;
    bar.sync 0;
    add.u64 %rd3, %rd0, {};
    add.u64 %rd4, %rd3, %rd1;
    st.global.u32 [%rd4], %r2;
    @%p1 ld.shared.u32 %r5, [%r8];
    @%p1 st.global.u32 [%rd4+256], %r5;
    ret;
}}
",
        64 * N * 4
    );
    let mut init: Vec<u32> = (0..64 * N as u32)
        .map(|i| i.wrapping_mul(0x2545_f491) >> 11)
        .collect();
    init.extend(vec![0u32; 128]);
    let (run, s) = on_each_tier(&src, &cfg(1, 64), &[init.clone()]);
    let mut bins = [0u32; 16];
    for v in &init[..64 * N] {
        bins[(v & 15) as usize] += 1;
    }
    assert_eq!(run.bufs[0][64 * N + 64..64 * N + 80], bins);
    assert!(s.looped >= 2 * (N as u64 - 2), "{s:?}");
}

/// A check that fails in a later iteration, in the third pass of the warp: lanes 16 to 31
/// switch to a second allocation in iteration 3, which the worker's allocation cache does not
/// hold yet (one CTA: nothing touched it before). The iterations before it stand (their
/// deferred stores made), the first passes' lanes of iteration 3 are undone, and the
/// interpreter runs iteration 3 from the loop's head before the code takes over again.
#[test]
fn jit_check_failing_in_a_later_iteration_keeps_the_iterations_before_it() {
    const N: usize = 8;
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .reg .pred %p<4>;
    mov.u32 %r0, %tid.x;
    ld.param.u64 %rd0, [a];
    ld.param.u64 %rd1, [b];
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r0, 4;
    add.u64 %rd4, %rd2, %rd3;
    setp.ge.u32 %p1, %r0, 16;
    mov.u32 %r1, 0;
    mov.u32 %r2, 5;
$L:
    setp.ge.u32 %p2, %r1, 3;
    and.pred %p3, %p1, %p2;
    selp.b64 %rd5, %rd1, %rd0, %p3;
    mul.wide.u32 %rd6, %r1, 128;
    add.u64 %rd7, %rd5, %rd6;
    add.u64 %rd7, %rd7, %rd3;
    ld.global.u32 %r3, [%rd7];
    mad.lo.u32 %r2, %r2, 7, %r3;
    st.global.u32 [%rd4], %r2;
    add.u64 %rd4, %rd4, 128;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p0, %r1, {N};
    @%p0 bra $L;
    ret;
}}
"
    );
    let a: Vec<u32> = (0..32 * N as u32).map(|i| i * 3 + 1).collect();
    let b: Vec<u32> = (0..32 * N as u32).map(|i| i * 5 + 1000).collect();
    let (run, s) = on_each_tier(
        &src,
        &cfg(1, 32),
        &[a.clone(), b.clone(), vec![0u32; 32 * N]],
    );
    for t in 0..32 {
        let mut acc = 5u32;
        for i in 0..N {
            let w = if t >= 16 && i >= 3 {
                b[i * 32 + t]
            } else {
                a[i * 32 + t]
            };
            acc = acc.wrapping_mul(7).wrapping_add(w);
            assert_eq!(run.bufs[2][i * 32 + t], acc, "thread {t}, iteration {i}");
        }
    }
    assert!(s.stops >= 1 && s.looped >= 3, "{s:?}");
}

/// A shared load leaving the CTA's shared memory in a later iteration (iteration 5, lane 24,
/// in the warp's last pass), after each iteration's deferred global store: the launch fails
/// with the interpreter's report, and the stores of iterations 0 to 4 are made, those of
/// iteration 5 not, on every tier.
#[test]
fn jit_fault_in_a_later_iteration_reports_as_the_interpreter_does() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    .reg .pred %p<2>;
    .shared .align 4 .b8 sh[256];
    mov.u32 %r0, %tid.x;
    mov.u32 %r5, sh;
    shl.b32 %r6, %r0, 2;
    add.u32 %r5, %r5, %r6;
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd1, %r0, 4;
    add.u64 %rd2, %rd0, %rd1;
    mov.u32 %r1, 0;
    mov.u32 %r2, 9;
$L:
    ld.shared.u32 %r3, [%r5];
    ld.global.u32 %r4, [%rd2];
    add.u32 %r2, %r2, %r3;
    mad.lo.u32 %r2, %r2, 3, %r4;
    st.global.u32 [%rd2+1024], %r2;
    add.u32 %r5, %r5, 32;
    add.u64 %rd2, %rd2, 128;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p0, %r1, 8;
    @%p0 bra $L;
    ret;
}}
"
    );
    let mut init: Vec<u32> = (0..256u32).map(|i| i * 11 + 2).collect();
    init.extend(vec![0u32; 256]);
    let (run, s) = on_each_tier(&src, &cfg(1, 32), &[init]);
    let err = run.err.expect("the launch faults");
    assert!(err.contains("thread (24,0,0)"), "{err}");
    let stored = |i: usize| run.bufs[0][256 + i * 32..256 + i * 32 + 32].to_vec();
    assert!((0..5).all(|i| stored(i).iter().all(|&w| w != 0)));
    assert_eq!(stored(5), vec![0; 32]);
    assert!(s.looped >= 3, "{s:?}");
}

/// A warp spinning on a shared word that another warp of its CTA sets (warp 1, which runs on
/// after the barrier, spins; warp 0 sets the word): the compiled loop
/// returns to the interpreter after as many back edges as the warp's time slice allows, the
/// interpreter lets the other warp run, and the spin ends; the iterations spun (stored) are
/// those of the interpreter, which yields after the same count.
#[test]
fn jit_spin_loop_waiting_on_another_warp_yields() {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 buf)
{{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    .shared .align 4 .b32 flag[1];
    mov.u32 %r0, %tid.x;
    mov.u32 %r5, flag;
    mov.u32 %r2, 0;
    setp.eq.u32 %p1, %r0, 0;
    @%p1 st.shared.u32 [%r5], %r2;
    bar.sync 0;
    setp.lt.u32 %p1, %r0, 32;
    @%p1 bra $SET;
$SPIN:
    ld.shared.u32 %r1, [%r5];
    add.u32 %r2, %r2, 1;
    setp.eq.u32 %p0, %r1, 0;
    @%p0 bra $SPIN;
    bra $OUT;
$SET:
    mov.u32 %r1, 7;
    st.shared.u32 [%r5], %r1;
$OUT:
    ld.param.u64 %rd0, [buf];
    mul.wide.u32 %rd1, %r0, 8;
    add.u64 %rd2, %rd0, %rd1;
    st.global.v2.u32 [%rd2], {{%r1, %r2}};
    ret;
}}
"
    );
    let (run, s) = on_each_tier_within(600, src, cfg(1, 64), vec![vec![0u32; 128]]);
    for t in 0..64 {
        assert_eq!(run.bufs[0][2 * t], 7, "thread {t}");
    }
    assert!(run.bufs[0][65] > 1, "warp 1 spun");
    assert!(s.looped > 0, "{s:?}");
}
