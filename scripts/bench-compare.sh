#!/usr/bin/env bash
# The executor benchmark (engine/benches/executor.rs) of a base revision against the working
# tree, in one invocation: both are built, then run alternately ROUNDS times on the same
# machine, and the table gives each workload's best executor time, the change, and the change of
# the medians (on a noisy machine the two disagree).
#
#   scripts/bench-compare.sh BASE_REV [ROUNDS] [-- BENCH_ARGS...]
#
# e.g. `scripts/bench-compare.sh main~3 5 -- --threads 1`. The base is built in a worktree under
# target/bench-compare (kept between runs, so a second comparison against the same base
# rebuilds nothing). A workload more than 3% slower than the base is flagged.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/bench-compare.sh BASE_REV [ROUNDS] [-- BENCH_ARGS...]}
shift
rounds=5
if [[ $# -gt 0 && $1 != -- ]]; then
  rounds=$1
  shift
fi
[[ ${1:-} == -- ]] && shift
work=target/bench-compare
mkdir -p "$work"

# The bench executable cargo builds (its path is printed as `Executable ... (PATH)`).
build() {
  (cd "$1" && CARGO_TARGET_DIR=$2 cargo bench -p engine --bench executor --no-run 2>&1) |
    sed -n 's/.*Executable .*(\(.*\))/\1/p' | tail -1
}

rev=$(git rev-parse --verify "$base^{commit}")
src=$work/base-src
if [[ ! -e $src/.git ]]; then
  git worktree add --detach "$src" "$rev" >/dev/null
else
  git -C "$src" checkout -q --detach "$rev"
fi
base_bin=$(build "$src" "$PWD/$work/base-target")
head_bin=$(build . "$PWD/target")
# cargo prints the path relative to the package it built, unless its target dir is absolute.
[[ $base_bin == /* ]] || base_bin=$src/$base_bin
[[ $head_bin == /* ]] || head_bin=$PWD/$head_bin
for bin in "$base_bin" "$head_bin"; do
  [[ -x $bin ]] || { echo "bench-compare: no benchmark executable at '$bin'" >&2; exit 1; }
done

out=$work/runs
rm -rf "$out" && mkdir -p "$out"
for ((k = 1; k <= rounds; k++)); do
  "$base_bin" "$@" >"$out/base.$k"
  "$head_bin" "$@" >"$out/head.$k"
done

python3 - "$out" "$rounds" "$(git rev-parse --short "$rev")" <<'EOF'
import re, sys
out, rounds, rev = sys.argv[1], int(sys.argv[2]), sys.argv[3]
row = re.compile(r"^(.+?)\s+([\d.]+)ms\s+\d+\s")
def times(which):
    t = {}
    for k in range(1, rounds + 1):
        for line in open(f"{out}/{which}.{k}"):
            m = row.match(line)
            if m:
                t.setdefault(m.group(1).strip(), []).append(float(m.group(2)))
    return t
def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
b, h = times("base"), times("head")
print(f"executor benchmark, {rounds} alternating runs: base {rev} vs working tree")
print(f"(best decides; the median shows how noisy the machine was)")
print(f"{'workload':<26} {'base ms':>10} {'head ms':>10} {'change':>8}   {'median change':>13}")
worst = 0.0
for name in b:
    if name not in h:
        continue
    ch = (min(h[name]) / min(b[name]) - 1) * 100
    med = (median(h[name]) / median(b[name]) - 1) * 100
    worst = max(worst, ch)
    flag = "  <- slower than 3%" if ch > 3 else ""
    print(f"{name:<26} {min(b[name]):>10.1f} {min(h[name]):>10.1f} {ch:>+7.1f}%   {med:>+12.1f}%{flag}")
sys.exit(1 if worst > 3 else 0)
EOF
