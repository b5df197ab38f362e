//! The register estimate (`Kernel::num_regs`, what CU_FUNC_ATTRIBUTE_NUM_REGS reports and
//! launches are checked against) compared with what NVIDIA's assembler allocates: `ptxas
//! -arch=sm_90 -v` ("Used N registers") over the compute_75 to compute_90 files of the PTX
//! corpus (`scripts/build-ptx-corpus.sh`: nvcc, NVRTC and numba-cuda output). ptxas's answers
//! are cached beside the corpus, keyed by the PTX's content and the assembler's version, so a
//! rerun takes a few seconds. Prints the distribution of the ratio estimate / ptxas.
//!
//! What must hold, each from ptxas's own numbers:
//! - no kernel gets more registers than its launch bounds leave (the limit ptxas itself keeps:
//!   checked against ptxas's count too), so a launch within them always fits;
//! - a block of 1024 or 512 threads (as far as the kernel's bounds allow) that ptxas's count
//!   lets run on the GPU (at most 64 or 128 registers) also passes the launch check with the
//!   estimate;
//! - the median ratio lies in [0.75, 1.35]: a liveness count of the PTX's values misses what
//!   ptxas adds (scheduling loads early, unrolled address arithmetic) and what it removes
//!   (rematerialised constants), either way by a few registers, which on the corpus's median
//!   kernel of about 30 registers is within a third.
//!
//! Needs the toolkit; says so and passes when it is missing.

use engine::Module;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus PTX files, or None when the toolkit is unavailable.
fn corpus() -> Option<Vec<PathBuf>> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/build-ptx-corpus.sh"
    );
    let out = Command::new("bash").arg(script).output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("install-toolkit")
            || err.contains("No module named pip")
            || (err.contains("from PyPI") && err.contains("ERROR: "))
        {
            eprintln!("SKIPPED: the CUDA toolkit is not available; CI installs it\n{err}");
            return None;
        }
        panic!("build-ptx-corpus.sh failed:\n{err}");
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(PathBuf::from)
            .collect(),
    )
}

fn ptxas() -> PathBuf {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/install-toolkit.sh");
    let out = Command::new("bash").arg(script).output().expect("bash");
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Path::new(&root).join("bin/ptxas")
}

/// FNV-1a, for cache keys that stay the same across Rust versions.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// `kernel -> registers` from `ptxas -v` output.
fn parse_ptxas(out: &str) -> BTreeMap<String, u32> {
    let mut regs = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in out.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            current = rest.split('\'').next().map(str::to_string);
        } else if let Some(rest) = line.split("Used ").nth(1) {
            if let (Some(k), Some(n)) = (current.take(), rest.strip_suffix_word()) {
                regs.insert(k, n);
            }
        }
    }
    regs
}

trait Count {
    fn strip_suffix_word(&self) -> Option<u32>;
}
impl Count for str {
    /// `"21 registers, ..."` -> 21.
    fn strip_suffix_word(&self) -> Option<u32> {
        let (n, rest) = self.split_once(' ')?;
        rest.starts_with("registers").then(|| n.parse().ok())?
    }
}

/// ptxas's registers per entry of `file` (None when ptxas rejects it), cached.
fn ptxas_regs(
    ptxas: &Path,
    version: &str,
    file: &Path,
    cache: &Path,
) -> Option<BTreeMap<String, u32>> {
    let text = std::fs::read(file).ok()?;
    let key = fnv(&[text.as_slice(), version.as_bytes(), b"sm_90"].concat());
    let cached = cache.join(format!("{key:016x}.txt"));
    let out = match std::fs::read_to_string(&cached) {
        Ok(s) => s,
        Err(_) => {
            let o = Command::new(ptxas)
                .args(["-arch=sm_90", "-v", "-o", "/dev/null"])
                .arg(file)
                .output()
                .ok()?;
            let mut s = String::from_utf8_lossy(&o.stderr).into_owned();
            s += &String::from_utf8_lossy(&o.stdout);
            if !o.status.success() {
                s = "FAILED\n".to_string() + &s;
            }
            let tmp = cached.with_extension("tmp");
            std::fs::write(&tmp, &s).ok()?;
            std::fs::rename(&tmp, &cached).ok()?;
            s
        }
    };
    (!out.starts_with("FAILED")).then(|| parse_ptxas(&out))
}

/// The most registers per thread with which `blocks` blocks of `threads` threads fit on an SM
/// of 65536 registers: registers per warp in units of 256 and a block's warps rounded up to
/// the 4 register file partitions (CUDA occupancy calculator's rules), at most 255.
fn bound(threads: u32, blocks: u32) -> u32 {
    let warps = threads.div_ceil(32).div_ceil(4) * 4;
    let per_thread = 65536 / (blocks.max(1) * warps * 32);
    (per_thread / 8 * 8).min(255)
}

/// Whether a block of `threads` threads of `regs` registers passes the hardware's launch check
/// (cuda_occupancy.h: registers per warp in units of 256, warps rounded up to 4 partitions).
fn fits(regs: u32, threads: u32) -> bool {
    (regs * 32).div_ceil(256) * 256 * threads.div_ceil(32).div_ceil(4) * 4 <= 65536
}

struct Row {
    file: String,
    kernel: String,
    shim: u32,
    ptxas: u32,
    /// What the kernel's bounds allow (1024 without).
    max_threads: u32,
}

#[test]
fn register_estimate_against_ptxas() {
    let Some(files) = corpus() else { return };
    let started = std::time::Instant::now();
    let ptxas = ptxas();
    let version = Command::new(&ptxas)
        .arg("--version")
        .output()
        .expect("ptxas");
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    let cache = files[0].parent().unwrap().join("ptxas-regs");
    std::fs::create_dir_all(&cache).unwrap();
    // The files an sm_90 device runs as they are: those for compute_75 to compute_90 (not the
    // architecture-specific 90a and later ones).
    let files: Vec<PathBuf> = (files.into_iter())
        .filter(|f| {
            let n = f.file_name().unwrap().to_string_lossy();
            ["75", "80", "86", "89", "90"]
                .iter()
                .any(|a| n.contains(&format!(".compute_{a}.")))
        })
        .collect();
    // ptxas on two threads (the slow part, once).
    let chunks: Vec<Vec<PathBuf>> = (0..2)
        .map(|k| files.iter().skip(k).step_by(2).cloned().collect())
        .collect();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (chunks.iter())
            .map(|c| {
                let (ptxas, version, cache) = (&ptxas, &version, &cache);
                s.spawn(move || {
                    c.iter()
                        .map(|f| (f.clone(), ptxas_regs(ptxas, version, f, cache)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut rows = Vec::new();
    let mut over_bound = Vec::new();
    for (file, reference) in results {
        let Some(reference) = reference else { continue };
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let Ok(m) = Module::load(&text, &name) else {
            continue;
        };
        for k in m.kernels() {
            let Some(&p) = reference.get(&k.name) else {
                continue;
            };
            if let Some(t) = k.reg_bounds.max_threads {
                let b = bound(t, k.reg_bounds.min_blocks.unwrap_or(1));
                assert!(p <= b, "{name}: {}: ptxas {p} above the bound {b}", k.name);
                if k.num_regs > b {
                    over_bound.push(format!("{name}: {}: {} > {b}", k.name, k.num_regs));
                }
            }
            if let Some(n) = k.reg_bounds.maxnreg {
                assert!(k.num_regs <= n.max(24), "{name}: {} over .maxnreg", k.name);
            }
            rows.push(Row {
                file: name.clone(),
                kernel: k.name.clone(),
                shim: k.num_regs,
                ptxas: p,
                max_threads: k.reg_bounds.max_threads.unwrap_or(1024),
            });
        }
    }
    assert!(rows.len() >= 100, "only {} kernels compared", rows.len());
    let mut ratios: Vec<f64> = rows
        .iter()
        .map(|r| r.shim as f64 / r.ptxas as f64)
        .collect();
    ratios.sort_by(f64::total_cmp);
    let q = |x: f64| ratios[((ratios.len() - 1) as f64 * x).round() as usize];
    eprintln!(
        "register estimate / ptxas -v (sm_90), {} kernels of {} files in {:.1} s: \
         min {:.2}  p10 {:.2}  p25 {:.2}  median {:.2}  p75 {:.2}  p90 {:.2}  max {:.2}",
        rows.len(),
        files.len(),
        started.elapsed().as_secs_f64(),
        q(0.0),
        q(0.1),
        q(0.25),
        q(0.5),
        q(0.75),
        q(0.9),
        q(1.0)
    );
    let mut by_ratio: Vec<&Row> = rows.iter().collect();
    by_ratio.sort_by(|a, b| (a.shim * b.ptxas).cmp(&(b.shim * a.ptxas)));
    for r in by_ratio.iter().take(5).chain(by_ratio.iter().rev().take(5)) {
        eprintln!(
            "  {:>3} vs ptxas {:>3}  {} {}",
            r.shim, r.ptxas, r.file, r.kernel
        );
    }
    let refused: Vec<String> = (rows.iter())
        .filter(|r| {
            [1024, 512]
                .iter()
                .any(|&t| t <= r.max_threads && fits(r.ptxas, t) && !fits(r.shim, t))
        })
        .map(|r| format!("{} {}: {} (ptxas {})", r.file, r.kernel, r.shim, r.ptxas))
        .collect();
    eprintln!(
        "launches ptxas's count allows that the estimate refuses: {}",
        refused.len()
    );
    for r in &refused {
        eprintln!("  {r}");
    }
    assert!(
        over_bound.is_empty(),
        "estimates above the launch bounds:\n{}",
        over_bound.join("\n")
    );
    assert!(refused.is_empty(), "launches refused that the GPU runs");
    let median = q(0.5);
    assert!((0.75..=1.35).contains(&median), "median ratio {median:.2}");
}
