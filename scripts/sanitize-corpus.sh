#!/usr/bin/env bash
# Runs the project's test corpus under each sanitizer tool and reports every program that the
# tool found errors in, against the list of programs whose purpose is such an error
# (scripts/sanitize-corpus.expected). Exit status 1 when a program not on that list reports an
# error: a false positive of the tool, or a bug in a test program.
#
#   scripts/sanitize-corpus.sh [--report] [TOOL...] [-- CARGO-TEST-ARGS...]
#
# --report: judge the logs of the last run again (after editing the list), without running.
# TOOL: memcheck, racecheck, synccheck, initcheck; all four by default.
# Every program the test suite runs inherits CUDA_SHIM_CHECK=TOOL and writes its reports to
# target/sanitize-corpus/TOOL/NAME.PID.log (CUDA_SHIM_CHECK_LOG), so what the programs print is
# unchanged; the tests' own verdicts are kept in cargo.log beside them (a test whose program
# plants a fault may fail under a tool, which turns some faults into launch failures). The
# default test targets are the package's, less those that run no CUDA program of their own
# (layers), the sanitizer's own tests (planted bugs, under tools they choose), and the two that
# build the shim again elsewhere (recipes, python_package).
set -uo pipefail
cd "$(dirname "$0")/.."
tools=()
run=1
[ "${1:-}" = "--report" ] && { run=0; shift; }
while [ $# -gt 0 ] && [ "$1" != "--" ]; do tools+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck synccheck initcheck)
if [ $# -eq 0 ]; then
  set -- $(sed -n 's/^name = "\(.*\)"/\1/p' tests/Cargo.toml | grep -v -x -e tests -e layers -e sanitizer -e recipes -e python_package | sed 's/^/--test /')
fi
expected=scripts/sanitize-corpus.expected
out=target/sanitize-corpus
[ $run = 0 ] || cargo build --release -p libcuda-shim >/dev/null 2>&1 || { echo "cargo build failed" >&2; exit 2; }
status=0
for tool in "${tools[@]}"; do
  case $tool in
    memcheck) words=memcheck ;;
    racecheck | synccheck | initcheck) words=$tool ;;
    *) echo "unknown tool $tool" >&2; exit 2 ;;
  esac
  dir=$out/$tool
  start=$(date +%s)
  if [ $run = 1 ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    CUDA_SHIM_CHECK=$words CUDA_SHIM_CHECK_LOG="$PWD/$dir/%n.%p.log" \
      cargo test --release -p tests --no-fail-fast "$@" >"$dir/cargo.log" 2>&1
  fi
  secs=$(($(date +%s) - start))
  # Per log with errors: whether an entry of the list expects it. An entry names the program
  # (a glob: `arrays*` for the cudart 12 builds too), or PROGRAM:TEXT for those of its runs
  # whose reports contain TEXT (one Python interpreter runs many suites' tests).
  verdicts=$(for f in "$dir"/*.*.log; do
    [ -e "$f" ] || continue
    n=$(sed -n -e 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
      -e 's/.*RACECHECK SUMMARY: \([0-9]*\) hazard.*/\1/p' "$f" | head -1)
    { [ -z "$n" ] || [ "$n" = 0 ]; } && continue
    name=$(basename "$f"); name=${name%.*.log}
    why=$(grep -v '^#' "$expected" | while read -r t key rest; do
      pat=${key%%:*}
      # shellcheck disable=SC2053 # (a glob on purpose)
      [ "$t" = "$tool" ] && [[ $name == $pat ]] || continue
      if [ "$key" = "$pat" ] || grep -qF -- "${key#*:}" "$f"; then echo "$rest"; break; fi
    done)
    if [ -n "$why" ]; then echo "   expected   $name: $why"; else echo "   UNEXPECTED $name: see $dir/$name.*.log"; fi
  done | sort | uniq -c)
  tests=$(grep -c '^test .* \.\.\. ' "$dir/cargo.log")
  failed=$(grep '^test .* FAILED$' "$dir/cargo.log" | sed 's/^test \(.*\) \.\.\. FAILED/\1/' | tr '\n' ' ')
  runs=$(find "$dir" -name '*.log' ! -name cargo.log | wc -l)
  echo "== $tool: $runs program runs in $tests tests, ${secs}s; tests failing under the tool: ${failed:-none}"
  [ -n "$verdicts" ] && echo "$verdicts"
  grep -q UNEXPECTED <<<"$verdicts" && status=1
done
exit $status
