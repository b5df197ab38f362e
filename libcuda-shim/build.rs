//! Two jobs: give the driver library its soname, and, for an installed `cuda-shim`, embed a
//! copy of the library in the tool.
//!
//! Embedding: `cargo install` builds only the binaries of a package and throws the rest of its
//! target directory away, so a `cuda-shim` installed that way would find no `libcuda.so` beside
//! it. It therefore carries one: this script builds the package's cdylib with a nested cargo
//! (same manifest, lock file, profile and jobserver, its own target directory so that the two
//! builds never wait on each other's locks), strips and compresses it, and the tool writes it
//! out on first use (`src/bin/cuda-shim.rs`, `embedded_library`). A build in the checkout's own
//! `target/` is a development build: there the library is built beside the tool anyway, and
//! building it twice would double every rebuild. `CUDA_SHIM_EMBED=1` or `0` overrides the
//! choice (the Python wheel's script sets 1).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    // Programs and cudart find the driver by soname: dlopen("libcuda.so.1") and DT_NEEDED
    // libcuda.so.1 both match a preloaded library whose DT_SONAME is libcuda.so.1.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    println!("cargo::rustc-check-cfg=cfg(embedded_library)");
    println!("cargo:rerun-if-env-changed=CUDA_SHIM_EMBED");
    println!("cargo:rerun-if-changed=build.rs");

    let manifest_dir = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env("OUT_DIR"));
    let target_dir = target_dir_of(&out_dir);
    let workspace = manifest_dir.parent().unwrap_or(&manifest_dir).to_path_buf();
    let embed = match std::env::var("CUDA_SHIM_EMBED").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        Ok(other) => panic!("CUDA_SHIM_EMBED={other:?}: expected 1 or 0"),
        Err(_) => target_dir.as_deref() != Some(workspace.join("target").as_path()),
    };
    if !embed {
        return;
    }
    // Whatever the library is built from: the workspace's crates and its lock file.
    for input in ["abi/src", "engine/src", "libcuda-shim/src", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", workspace.join(input).display());
    }
    for manifest in ["Cargo.toml", "abi", "engine", "libcuda-shim"] {
        let path = workspace.join(manifest);
        let path = if path.is_dir() {
            path.join("Cargo.toml")
        } else {
            path
        };
        println!("cargo:rerun-if-changed={}", path.display());
    }

    let nested_target = target_dir
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
        .arg(manifest_dir.join("Cargo.toml"))
        .args(["--lib", "--profile", &profile, "--target-dir"])
        .arg(&nested_target)
        // The nested build must not embed again, and its copy needs no debug information.
        .env("CUDA_SHIM_EMBED", "0")
        .env(
            format!("CARGO_PROFILE_{}_STRIP", profile.to_uppercase()),
            "debuginfo",
        )
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build the library to embed: {e}"));
    assert!(
        status.success(),
        "the nested build of the library to embed in cuda-shim failed"
    );
    let profile_dir = if profile == "dev" { "debug" } else { &profile };
    let library = nested_target.join(profile_dir).join("libcuda.so");
    let bytes = std::fs::read(&library)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", library.display()));
    let packed = zstd::bulk::compress(&bytes, 10).expect("zstd compression of the library");
    let packed_path = out_dir.join("libcuda.so.zst");
    std::fs::write(&packed_path, &packed).expect("cannot write the compressed library");
    // The cache file's name carries a digest of the bytes, so that two builds of one version
    // never share a file (FNV-1a: a name, not a security measure).
    let digest = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    println!("cargo:rustc-cfg=embedded_library");
    println!(
        "cargo:rustc-env=CUDA_SHIM_EMBEDDED_PATH={}",
        packed_path.display()
    );
    println!("cargo:rustc-env=CUDA_SHIM_EMBEDDED_DIGEST={digest:016x}");
    println!("cargo:rustc-env=CUDA_SHIM_EMBEDDED_LEN={}", bytes.len());
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
