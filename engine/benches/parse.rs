//! Front-end throughput: parse, and parse + lower (`Module::load`), in MB/s single-threaded, on
//! the nvcc-built PTX corpus (`scripts/build-ptx-corpus.sh`, skipped without the toolkit) and on
//! a generated 10 MB module; next to a native baseline that reads the same bytes (counts lines
//! and words), run in the same process.
//!
//!   cargo bench -p engine --bench parse

use engine::ptx::parser;
use engine::Module;
use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

/// A module of `kernels` nvcc-style kernels (loads, address arithmetic, loops, predicates,
/// floating point, shared memory, barriers), about 2.3 KB each.
fn generated(target_bytes: usize) -> String {
    let mut s = String::from(".version 9.0\n.target sm_90a\n.address_size 64\n\n");
    let mut k = 0;
    while s.len() < target_bytes {
        s += &format!(
            r#".visible .entry kernel_{k}(
	.param .u64 .ptr .global .align 4 kernel_{k}_param_0,
	.param .u64 .ptr .global .align 4 kernel_{k}_param_1,
	.param .u32 kernel_{k}_param_2
)
.maxntid 256, 1, 1
{{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<16>;
	.reg .f32 	%f<8>;
	.reg .b64 	%rd<10>;
	.shared .align 4 .b8 smem_{k}[1024];

	ld.param.u64 	%rd1, [kernel_{k}_param_0];
	ld.param.u64 	%rd2, [kernel_{k}_param_1];
	ld.param.u32 	%r2, [kernel_{k}_param_2];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r3, %tid.x;
	mov.u32 	%r4, %ctaid.x;
	mov.u32 	%r5, %ntid.x;
	mad.lo.s32 	%r6, %r4, %r5, %r3;
	setp.ge.s32 	%p1, %r6, %r2;
	@%p1 bra 	$L__BB{k}_4;
	mul.wide.s32 	%rd5, %r6, 4;
	add.s64 	%rd6, %rd3, %rd5;
	ld.global.f32 	%f1, [%rd6];
	mov.f32 	%f2, 0f00000000;
	mov.u32 	%r7, 0;
$L__BB{k}_2:
	fma.rn.f32 	%f2, %f1, 0f3F000000, %f2;
	add.s32 	%r7, %r7, 1;
	setp.lt.u32 	%p2, %r7, 16;
	@%p2 bra 	$L__BB{k}_2;
	shl.b32 	%r8, %r3, 2;
	mov.u32 	%r9, smem_{k};
	add.s32 	%r10, %r9, %r8;
	st.shared.f32 	[%r10], %f2;
	bar.sync 	0;
	xor.b32 	%r11, %r3, 1;
	shl.b32 	%r12, %r11, 2;
	add.s32 	%r13, %r9, %r12;
	ld.shared.f32 	%f3, [%r13];
	add.f32 	%f4, %f2, %f3;
	max.f32 	%f5, %f4, 0fBF800000;
	add.s64 	%rd7, %rd4, %rd5;
	st.global.f32 	[%rd7], %f5;
$L__BB{k}_4:
	ret;

}}

"#
        );
        k += 1;
    }
    s
}

/// Native baseline: one pass over the bytes counting lines and whitespace-separated words.
fn baseline(texts: &[&str]) -> usize {
    let mut n = 0usize;
    for t in texts {
        let mut in_word = false;
        for &b in t.as_bytes() {
            n += (b == b'\n') as usize;
            let w = !b.is_ascii_whitespace();
            n += (w && !in_word) as usize;
            in_word = w;
        }
    }
    n
}

/// Best of `reps` runs of `f`, in seconds.
fn time(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn report(what: &str, texts: &[&str], reps: usize, lower: bool) {
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let mb = bytes as f64 / 1e6;
    let tb = time(reps * 4, || {
        black_box(baseline(black_box(texts)));
    });
    let tp = time(reps, || {
        for t in texts {
            black_box(parser::parse(t).is_ok());
        }
    });
    let tl = if lower {
        time(reps, || {
            for t in texts {
                black_box(Module::load(t, "bench.ptx").is_ok());
            }
        })
    } else {
        f64::NAN
    };
    println!(
        "{what}: {mb:.1} MB | baseline (count lines+words) {:.0} MB/s | parse {:.0} MB/s \
         ({:.1} ms, {:.1}x baseline time) | parse+lower {:.0} MB/s ({:.1} ms)",
        mb / tb,
        mb / tp,
        tp * 1e3,
        tp / tb,
        mb / tl,
        tl * 1e3
    );
}

fn main() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/build-ptx-corpus.sh"
    );
    match Command::new("bash").arg(script).output() {
        _ if std::env::var_os("CUDA_SHIM_BENCH_NO_CORPUS").is_some() => {}
        Ok(o) if o.status.success() => {
            let files: Vec<String> = String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|p| std::fs::read_to_string(p).ok())
                .collect();
            let refs: Vec<&str> = files.iter().map(String::as_str).collect();
            report(
                &format!("nvcc corpus ({} files)", refs.len()),
                &refs,
                5,
                true,
            );
        }
        _ => println!("nvcc corpus: SKIPPED (the CUDA toolkit is not available)"),
    }
    let mb: usize = std::env::var("CUDA_SHIM_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let big = generated(mb << 20);
    let t = Instant::now();
    assert!(
        parser::parse(&big).is_ok(),
        "the generated module must parse"
    );
    println!(
        "generated {mb} MB module: parsed once in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    // Loading is timed once first: lowering cost is not the front end's, and may be slow.
    let t = Instant::now();
    if let Err(e) = Module::load(&big, "generated.ptx") {
        println!("generated module does not load: {e}");
    }
    let once = t.elapsed().as_secs_f64();
    println!(
        "generated {mb} MB module: loaded once in {:.1} ms",
        once * 1e3
    );
    report(&format!("generated {mb} MB module"), &[&big], 3, once < 2.0);
}
