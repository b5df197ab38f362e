//! Compile time of the compiling tier (`engine::jit`) per kernel of the PTX corpus
//! (`scripts/build-ptx-corpus.sh`, skipped without the toolkit): each kernel compiled without a
//! cache (cold), then with an empty cache directory (a miss: compiled and written), then again
//! (warm: loaded from the entry). Prints the totals, the slowest kernels and the largest module
//! of the corpus; `--per-kernel` prints every kernel.
//!
//!   cargo bench -p engine --bench jit_compile [-- --per-kernel]
//!
//! Single-threaded, one compile per kernel and mode (compiling is deterministic; the times are
//! the first and only, as a process meets them).

use engine::jit::cache::Cache;
use engine::Module;
use std::process::Command;

struct Row {
    module: String,
    kernel: String,
    ops: usize,
    segments: usize,
    cold: f64,
    miss: f64,
    warm: f64,
}

fn ms(ns: u64) -> f64 {
    ns as f64 * 1e-6
}

fn main() {
    let per_kernel = std::env::args().any(|a| a == "--per-kernel");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/build-ptx-corpus.sh"
    );
    let out = match Command::new("bash").arg(script).output() {
        Ok(o) if o.status.success() => o,
        _ => {
            println!("jit compile: SKIPPED (the CUDA toolkit is not available)");
            return;
        }
    };
    let dir = std::env::temp_dir().join(format!("jit-compile-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut rows = Vec::new();
    let mut modules = Vec::new();
    for path in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(m) = Module::load(&text, path) else {
            continue;
        };
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let first = rows.len();
        for k in m.kernels() {
            // A fresh `Cache` per kernel and mode, as separate processes would have; a
            // directory per kernel, since kernels of modules built for other architectures
            // often lower to the same IR, and so share an entry.
            let Some(cold) = k.jit_compile(None) else {
                continue;
            };
            let at = dir.join(rows.len().to_string());
            let miss = k.jit_compile(Some(&Cache::new(&at))).unwrap();
            let warm = k.jit_compile(Some(&Cache::new(&at))).unwrap();
            assert!(!miss.cached && warm.cached, "{name} {}", k.name);
            rows.push(Row {
                module: name.clone(),
                kernel: k.name.clone(),
                ops: k.ir_ops(),
                segments: cold.segments,
                cold: ms(cold.ns),
                miss: ms(miss.ns),
                warm: ms(warm.ns),
            });
        }
        modules.push((text.len(), name, first..rows.len()));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if rows.is_empty() {
        println!("jit compile: no kernel of the corpus compiles");
        return;
    }
    let sum = |f: fn(&Row) -> f64, r: &[Row]| r.iter().map(f).sum::<f64>();
    if per_kernel {
        println!(
            "{:<44} {:<40} {:>6} {:>5} {:>9} {:>9} {:>9}",
            "module", "kernel", "ops", "segs", "cold ms", "miss ms", "warm ms"
        );
        for r in &rows {
            let k: String = r.kernel.chars().take(40).collect();
            println!(
                "{:<44} {k:<40} {:>6} {:>5} {:>9.2} {:>9.2} {:>9.3}",
                r.module, r.ops, r.segments, r.cold, r.miss, r.warm
            );
        }
    }
    let mut cold: Vec<f64> = rows.iter().map(|r| r.cold).collect();
    cold.sort_by(f64::total_cmp);
    let pct = |p: usize| cold[(cold.len() - 1) * p / 100];
    println!(
        "corpus: {} kernels with compiled segments in {} modules; cold (no cache) {:.1} ms in \
         all, per kernel median {:.2} ms, 90th percentile {:.2} ms, max {:.2} ms; written to \
         an empty cache {:.1} ms; warm (loaded from the cache) {:.1} ms in all",
        rows.len(),
        modules.len(),
        sum(|r| r.cold, &rows),
        pct(50),
        pct(90),
        pct(100),
        sum(|r| r.miss, &rows),
        sum(|r| r.warm, &rows),
    );
    let mut slow: Vec<&Row> = rows.iter().collect();
    slow.sort_by(|a, b| b.cold.total_cmp(&a.cold));
    for r in slow.iter().take(5) {
        let k: String = r.kernel.chars().take(60).collect();
        println!(
            "  slowest: {} {k} ({} ops, {} segments): cold {:.1} ms, warm {:.2} ms",
            r.module, r.ops, r.segments, r.cold, r.warm
        );
    }
    let (bytes, name, range) = modules.iter().max_by_key(|m| m.0).unwrap();
    let r = &rows[range.clone()];
    println!(
        "largest module: {name} ({:.1} MB of PTX): {} kernels compiled, cold {:.1} ms, warm {:.1} ms",
        *bytes as f64 / 1e6,
        r.len(),
        sum(|r| r.cold, r),
        sum(|r| r.warm, r),
    );
}
