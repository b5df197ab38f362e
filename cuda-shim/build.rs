//! Builds the driver library this tool carries. `cargo install` builds only a package's
//! binaries and throws its target directory away, so the installed tool must hold the library
//! itself: a nested cargo builds the `libcuda-shim` cdylib (same lock file, profile and
//! jobserver; its own target directory, `shim-embed` beside this build's, so that neither build
//! waits on the other's lock), without debug information, and this script compresses it for
//! `src/main.rs` to include. The workspace's default members leave this package out, so the
//! checkout's own builds (whose `cuda-shim` uses the `libcuda.so` beside it) never pay for a
//! second build of the engine.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.parent().unwrap_or(&manifest_dir).to_path_buf();
    // What the library is built from: the driver's crates and the lock file.
    for input in [
        "abi/src",
        "abi/Cargo.toml",
        "engine/src",
        "engine/Cargo.toml",
        "libcuda-shim/src",
        "libcuda-shim/build.rs",
        "libcuda-shim/Cargo.toml",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    println!("cargo:rerun-if-changed=build.rs");

    let out_dir = PathBuf::from(env("OUT_DIR"));
    let nested_target = target_dir_of(&out_dir)
        .unwrap_or_else(|| out_dir.clone())
        .join("shim-embed");
    let profile = match env("PROFILE").as_str() {
        "debug" => "dev".to_string(),
        p => p.to_string(),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .arg("build")
        .arg("--manifest-path")
        .arg(workspace.join("libcuda-shim/Cargo.toml"))
        .args(["--lib", "--profile", &profile, "--target-dir"])
        .arg(&nested_target)
        .env(
            format!("CARGO_PROFILE_{}_STRIP", profile.to_uppercase()),
            "debuginfo",
        )
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the library to carry: {e}"));
    assert!(
        status.success(),
        "the nested build of the library cuda-shim carries failed"
    );
    let profile_dir = if profile == "dev" { "debug" } else { &profile };
    let library = nested_target.join(profile_dir).join("libcuda.so");
    let bytes = std::fs::read(&library)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", library.display()));
    let packed = zstd::bulk::compress(&bytes, 10).expect("zstd compression of the library");
    let packed_path = out_dir.join("libcuda.so.zst");
    std::fs::write(&packed_path, &packed).expect("cannot write the compressed library");
    // FNV-1a: a name for the cache file, not a security measure.
    let digest = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    // The value `src/main.rs` includes.
    let carried = format!(
        "cuda::cli::Embedded {{ packed: include_bytes!({:?}), len: {}, digest: \"{digest:016x}\" }}",
        packed_path.display().to_string(),
        bytes.len()
    );
    std::fs::write(out_dir.join("carried.rs"), carried).expect("cannot write carried.rs");
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo did not set {name}"))
}

/// The target directory of a build from its `OUT_DIR`
/// (`<target>/<profile>/build/<package>-<hash>/out`).
fn target_dir_of(out_dir: &Path) -> Option<PathBuf> {
    let build = out_dir.ancestors().find(|p| p.ends_with("build"))?;
    Some(build.parent()?.parent()?.to_path_buf())
}
