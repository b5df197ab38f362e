//! Real compiler output as a parser corpus: `scripts/build-ptx-corpus.sh` builds PTX with three
//! pinned compilers from PyPI (cached by content hash):
//! - nvcc: the CUDA C++ sources of `tests/data/corpus_src/*.cu`, compute_75 .. compute_120a;
//! - NVRTC (libnvrtc through its C API): `tests/data/corpus_src/nvrtc/*.cu`, runtime-compiled
//!   code (name expressions, in-memory headers, `-default-device`, `__grid_constant__`), for
//!   compute_75/80/90/100a; files `nvrtc.*`;
//! - numba-cuda (`numba.cuda.compile_ptx` through libNVVM, no GPU): the kernels listed in
//!   `tests/data/corpus_src/numba/*.py`, for cc 7.5/8.0/9.0/10.0; files `numba.*`.
//!
//! Every file must parse and lower to IR (`check --lower-only`: compiler output is valid PTX by
//! definition, so no instruction may be rejected as invalid), except the files of
//! [`EXPECTED_FAILURES`]; a plain load may still reject an instruction the executor cannot run
//! (unsupported, reported and counted per compiler, not asserted), never as invalid PTX. Needs
//! the toolkit; says so and passes when it is missing.
//!
//! Run with `--nocapture` to see the counts per compiler and which files fail to load and why.

use engine::ptx::parser::{self, Error};
use engine::Module;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// Known engine gaps: corpus files that fail to parse or lower, each with the exact diagnostic
/// (the whole failure line of this test, less the file's content hash). An entry matches the
/// files whose name starts with its first field (e.g. `"nvrtc.grid_constant_params.compute_75."`)
/// and tolerates exactly that diagnostic; any other failure of those files still fails the test.
/// An entry that no longer fails is reported so that it can be removed. Each entry names the
/// report to the lowering engineer (minimal reproduction) it waits for.
///
/// Empty: every nvcc, NVRTC and numba-cuda file parses and passes `--lower-only`.
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

/// The corpus PTX files, or None when the toolkit is unavailable.
pub fn corpus() -> Option<Vec<PathBuf>> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/build-ptx-corpus.sh"
    );
    let out = Command::new("bash").arg(script).output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        // The toolkit, NVRTC or numba-cuda could not be installed (pip prints "ERROR: ..."
        // after the script's "installing ... from PyPI"); a compile error is a failure.
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

/// Which compiler produced a corpus file, from its name.
fn compiler(name: &str) -> &'static str {
    if name.starts_with("nvrtc.") {
        "nvrtc"
    } else if name.starts_with("numba.") {
        "numba-cuda"
    } else {
        "nvcc"
    }
}

/// Per-compiler counts.
#[derive(Default)]
struct Counts {
    files: usize,
    bytes: usize,
    lower_only: usize,
    loaded: usize,
    unsupported: usize,
    expected_failures: usize,
}

/// `name` without the content hash the cache puts before `.ptx` (so diagnostics are stable).
fn stable(name: &str) -> String {
    let stem = name.strip_suffix(".ptx").unwrap_or(name);
    match stem.rsplit_once('.') {
        Some((head, key)) if key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()) => {
            format!("{head}.ptx")
        }
        _ => name.to_string(),
    }
}

#[test]
fn every_corpus_file_parses_and_lowering_failures_are_reported() {
    let Some(files) = corpus() else { return };
    let mut failures = Vec::new();
    let mut load_failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut counts: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut expected_seen = vec![false; EXPECTED_FAILURES.len()];
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let c = counts.entry(compiler(&name)).or_default();
        c.files += 1;
        c.bytes += text.len();
        let mut file_failures = Vec::new();
        match parser::parse(&text) {
            Ok(_) => {}
            Err(Error::Parse(e)) | Err(Error::Version(e)) => {
                let line = text.lines().nth(e.line as usize - 1).unwrap_or("").trim();
                file_failures.push(format!(
                    "{name}:{}:{}: {} [{line}]",
                    e.line, e.col, e.message
                ));
            }
        }
        if file_failures.is_empty() {
            match std::panic::catch_unwind(|| engine::check(&text, &name, true)) {
                Ok(s) if s.ok() => c.lower_only += 1,
                Ok(s) => file_failures.push(format!("check --lower-only: {}", s.error.unwrap())),
                Err(_) => file_failures.push(format!("{name}: check --lower-only panicked")),
            }
            match std::panic::catch_unwind(|| Module::load(&text, &name).map(|_| ())) {
                Ok(Ok(())) => c.loaded += 1,
                Ok(Err(e)) if e.kind == engine::LoadErrorKind::InvalidPtx => {
                    file_failures.push(format!("plain load rejected valid PTX: {e}"))
                }
                Ok(Err(e)) => {
                    c.unsupported += 1;
                    // Group by message without the position.
                    let d = &e.diagnostics[0];
                    load_failures
                        .entry(format!("{:?}: {}", e.kind, d.message))
                        .or_default()
                        .push(format!("{name}:{}", d.line));
                }
                Err(_) => file_failures.push(format!("{name}: Module::load panicked")),
            }
        }
        for f in file_failures {
            let f = f.replace(&name, &stable(&name));
            match EXPECTED_FAILURES
                .iter()
                .position(|(file, diag)| name.starts_with(file) && f == *diag)
            {
                Some(i) => {
                    expected_seen[i] = true;
                    c.expected_failures += 1;
                }
                None => failures.push(f),
            }
        }
    }
    let total = |f: fn(&Counts) -> usize| counts.values().map(f).sum::<usize>();
    println!(
        "PTX corpus: {} files, {:.1} MB, {} pass --lower-only, {} loaded, {} failed to load \
         (unsupported), {} expected failures, {} unexpected failures",
        files.len(),
        total(|c| c.bytes) as f64 / 1e6,
        total(|c| c.lower_only),
        total(|c| c.loaded),
        total(|c| c.unsupported),
        total(|c| c.expected_failures),
        failures.len()
    );
    for (compiler, c) in &counts {
        println!(
            "  {compiler}: {} files, {:.1} MB, {} pass --lower-only, {} loaded, {} unsupported, \
             {} expected failures",
            c.files,
            c.bytes as f64 / 1e6,
            c.lower_only,
            c.loaded,
            c.unsupported,
            c.expected_failures
        );
    }
    for (m, f) in &load_failures {
        println!("  {m}: {} file(s), e.g. {}", f.len(), f[0]);
    }
    for (i, (file, diag)) in EXPECTED_FAILURES.iter().enumerate() {
        if !expected_seen[i] {
            println!("  expected failure no longer seen, remove it: {file} {diag}");
        }
    }
    // Each compiler must contribute: a source whose build silently produced nothing would
    // otherwise pass unnoticed.
    for (compiler, min) in [("nvcc", 40), ("nvrtc", 24), ("numba-cuda", 100)] {
        let n = counts.get(compiler).map_or(0, |c| c.files);
        assert!(n >= min, "corpus too small: {n} {compiler} files (< {min})");
    }
    assert!(
        failures.is_empty(),
        "{} corpus files failed to parse or lower:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn expected_failure_names_drop_the_content_hash() {
    assert_eq!(
        stable("nvrtc.half_precision.compute_80.19a111457213a821.ptx"),
        "nvrtc.half_precision.compute_80.ptx"
    );
    assert_eq!(
        stable("numba.kernels.saxpy.compute_75.ptx"),
        "numba.kernels.saxpy.compute_75.ptx"
    );
}
