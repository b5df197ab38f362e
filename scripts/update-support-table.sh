#!/usr/bin/env bash
# Regenerates the driver entry point table in README.md (between the BEGIN/END markers) from
# the export table in libcuda-shim/src/exports.rs. A test fails when the README is out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p libcuda-shim >&2
target_dir=${CARGO_TARGET_DIR:-target}
table=$(mktemp)
"$target_dir"/release/cuda-shim support-table >"$table"
awk -v table="$table" '
  /<!-- BEGIN entry-points/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /<!-- END entry-points/ { skip = 0 }
  !skip { print }
' README.md >README.md.new
mv README.md.new README.md
rm -f "$table"
