//! The driver crate stays in layers: no module of `libcuda-shim/src` imports, directly or
//! through others, a module that imports it (`scripts/module-graph.py`, which ARCHITECTURE.md
//! describes). A new import circle fails here, naming its modules.

use std::process::Command;

#[test]
fn the_driver_crate_has_no_import_circle() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new("python3")
        .arg(repo.join("scripts/module-graph.py"))
        .arg(repo.join("libcuda-shim/src"))
        .args(["--tests", "--max-scc", "1"])
        .output()
        .expect("run python3 scripts/module-graph.py");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "libcuda-shim/src has import circles:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("0 cycles"), "{text}");
}
