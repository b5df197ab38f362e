#!/usr/bin/env bash
# Runs the project's test corpus under each sanitizer tool and reports every program that the
# tool found errors in, against the list of programs whose purpose is such an error
# (scripts/sanitize-corpus.expected). Exit status 1 when a program not on that list reports an
# error: a false positive of the tool, or a bug in a test program.
#
#   scripts/sanitize-corpus.sh [TOOL...] [-- CARGO-TEST-ARGS...]
#
# TOOL: memcheck, racecheck, synccheck, initcheck; all four by default.
# Every program the test suite runs inherits CUDA_SHIM_CHECK=TOOL and writes its reports to
# target/sanitize-corpus/TOOL/NAME.PID.log (CUDA_SHIM_CHECK_LOG), so what the programs print is
# unchanged; the tests' own verdicts are kept in cargo.log beside them (a test whose program
# plants a fault may fail under a tool, which turns some faults into launch failures). The
# default test targets are the package's, less those that run no CUDA program of their own
# (layers), and the two that build the shim again elsewhere (recipes, python_package).
set -uo pipefail
cd "$(dirname "$0")/.."
tools=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do tools+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
if [ $# -eq 0 ]; then
  set -- $(sed -n 's/^name = "\(.*\)"/\1/p' tests/Cargo.toml | grep -v -x -e tests -e layers -e recipes -e python_package | sed 's/^/--test /')
fi
expected=scripts/sanitize-corpus.expected
out=target/sanitize-corpus
cargo build --release -p libcuda-shim >/dev/null 2>&1 || { echo "cargo build failed" >&2; exit 2; }
status=0
for tool in "${tools[@]}"; do
  case $tool in
    memcheck) words=memcheck ;;
    racecheck | synccheck | initcheck) words=$tool ;;
    *) echo "unknown tool $tool" >&2; exit 2 ;;
  esac
  dir=$out/$tool
  rm -rf "$dir" && mkdir -p "$dir"
  start=$(date +%s)
  CUDA_SHIM_CHECK=$words CUDA_SHIM_CHECK_LOG="$PWD/$dir/%n.%p.log" \
    cargo test --release -p tests --no-fail-fast "$@" >"$dir/cargo.log" 2>&1
  secs=$(($(date +%s) - start))
  runs=$(find "$dir" -name '*.log' ! -name cargo.log | wc -l)
  # Per log: the program and its count of errors (racecheck: errors and warnings).
  found=$(for f in "$dir"/*.*.log; do
    [ -e "$f" ] || continue
    name=$(basename "$f"); name=${name%.*.log}
    n=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
      -e 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$f" | head -1)
    [ -n "$n" ] && [ "$n" != 0 ] && echo "$name"
  done | sort | uniq -c)
  tests=$(grep -c '^test .* \.\.\. ' "$dir/cargo.log")
  failed=$(grep '^test .* FAILED$' "$dir/cargo.log" | sed 's/^test \(.*\) \.\.\. FAILED/\1/' | tr '\n' ' ')
  echo "== $tool: $runs program runs in $tests tests, ${secs}s; tests failing under the tool: ${failed:-none}"
  while read -r count name; do
    [ -z "$name" ] && continue
    why=$(awk -v t="$tool" -v n="$name" '$1 == t && $2 == n { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$expected")
    if [ -n "$why" ]; then
      echo "   expected  $name ($count runs): $why"
    else
      echo "   UNEXPECTED $name ($count runs with errors): see $dir/$name.*.log"
      status=1
    fi
  done <<<"$found"
done
exit $status
