//! The README stays true: its driver support table is the one the export table generates.

use std::process::Command;
use tests::*;

#[test]
fn driver_support_table_is_current() {
    let out = Command::new(&shim().cli)
        .arg("support-table")
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let begin = readme
        .find("<!-- BEGIN entry-points")
        .expect("README lacks the BEGIN entry-points marker");
    let start = begin + readme[begin..].find('\n').unwrap() + 1;
    let end = readme
        .find("<!-- END entry-points")
        .expect("README lacks the END entry-points marker");
    assert!(
        readme[start..end] == table,
        "README.md's entry point table is out of date: run scripts/update-support-table.sh"
    );
}

#[test]
fn readme_starts_with_the_two_commands() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let head: String = readme.lines().take(8).collect::<Vec<_>>().join("\n");
    assert!(head.contains("scripts/run-example.sh"), "{head}");
    assert!(head.contains("cargo test"), "{head}");
    assert!(repo().join("scripts/run-example.sh").exists());
}
