//! Real compiler output as a parser corpus: `scripts/build-ptx-corpus.sh` compiles the CUDA C++
//! sources of `tests/data/corpus_src/` with the pinned nvcc for compute_75 .. compute_120a
//! (cached by content hash). Every file must parse and lower to IR (`check --lower-only`: nvcc's
//! output is valid PTX by definition, so no instruction may be rejected as invalid); a plain load
//! may still reject an instruction the executor cannot run (unsupported, reported, not
//! asserted), never as invalid PTX. Needs the toolkit; says so and passes when it is missing.
//!
//! Run with `--nocapture` to see which files fail to lower and why.

use engine::ptx::parser::{self, Error};
use engine::Module;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// The corpus PTX files, or None when the toolkit is unavailable.
pub fn corpus() -> Option<Vec<PathBuf>> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/build-ptx-corpus.sh"
    );
    let out = Command::new("bash").arg(script).output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("install-toolkit") || err.contains("pip") {
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

#[test]
fn every_corpus_file_parses_and_lowering_failures_are_reported() {
    let Some(files) = corpus() else { return };
    assert!(files.len() >= 40, "corpus too small: {}", files.len());
    let mut parse_failures = Vec::new();
    let mut lower_failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut bytes, mut loaded, mut lower_only) = (0usize, 0usize, 0usize);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        bytes += text.len();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match parser::parse(&text) {
            Ok(_) => {}
            Err(Error::Parse(e)) | Err(Error::Version(e)) => {
                let line = text.lines().nth(e.line as usize - 1).unwrap_or("").trim();
                parse_failures.push(format!(
                    "{name}:{}:{}: {} [{line}]",
                    e.line, e.col, e.message
                ));
                continue;
            }
        }
        match std::panic::catch_unwind(|| engine::check(&text, &name, true)) {
            Ok(c) if c.ok() => lower_only += 1,
            Ok(c) => parse_failures.push(format!("check --lower-only: {}", c.error.unwrap())),
            Err(_) => parse_failures.push(format!("{name}: check --lower-only panicked")),
        }
        match std::panic::catch_unwind(|| Module::load(&text, &name).map(|_| ())) {
            Ok(Ok(())) => loaded += 1,
            Ok(Err(e)) if e.kind == engine::LoadErrorKind::InvalidPtx => {
                parse_failures.push(format!("plain load rejected valid PTX: {e}"))
            }
            Ok(Err(e)) => {
                // Group by message without the position.
                let d = &e.diagnostics[0];
                lower_failures
                    .entry(format!("{:?}: {}", e.kind, d.message))
                    .or_default()
                    .push(format!("{name}:{}", d.line));
            }
            Err(_) => parse_failures.push(format!("{name}: Module::load panicked")),
        }
    }
    println!(
        "PTX corpus: {} files, {:.1} MB, all parsed: {}, {lower_only} pass --lower-only, \
         {loaded} loaded, {} failed to load",
        files.len(),
        bytes as f64 / 1e6,
        parse_failures.is_empty(),
        lower_failures.values().map(Vec::len).sum::<usize>()
    );
    for (m, f) in &lower_failures {
        println!("  {m}: {} file(s), e.g. {}", f.len(), f[0]);
    }
    assert!(
        parse_failures.is_empty(),
        "{} corpus files failed to parse or lower:\n{}",
        parse_failures.len(),
        parse_failures.join("\n")
    );
}
