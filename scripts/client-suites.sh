#!/usr/bin/env bash
# Runs the Python clients' own test suites on the shim (preloaded) and writes a summary:
#   numba-cuda  its whole suite (numba.cuda.tests, ~2,060 tests), one pytest process per test
#               module, so a kernel fault (a sticky error, as on a GPU) fails only its module;
#   CuPy        (CUPY_COMPILE_WITH_PTX=1: CuPy looks NVRTC up through its own dlopen handle,
#               so the shim cannot turn its cubins into PTX) tests/clients/cupy_smoke.py (17 checks against NumPy) and a subset of CuPy's own
#               tests (from its sdist: the files in CUPY_TESTS below);
#   cuda-python tests/clients/cuda_python_check.py (NVRTC, nvJitLink, graphs, clusters, memory).
# `cargo test -p tests --test clients` runs a quick subset of the same; this is the full run.
#
#   scripts/client-suites.sh [--only numba|cupy|cuda-python] [path/to/libcuda.so]
#
# The library defaults to target/release/libcuda.so (built first with cargo build --release).
# The clients are installed, pinned, by scripts/install-python-clients.sh.
# Output: target/client-suites/ (CLIENT_SUITES_OUT overrides): summary.md, each suite's log, and
# per-test tables (*.tsv: module or class, test, status, seconds, message).
# Environment: CLIENT_SUITES_JOBS (processes at a time, default 2), NUMBA_FILE_TIMEOUT (per test
# module, default 1800 s), CLIENT_TEST_TIMEOUT (per test, default 300 s), CUPY_SUITE_TIMEOUT
# (CuPy's tests in all, default 3600 s).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

only=""
lib=""
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) lib=$1; shift ;;
  esac
done
if [ -z "$lib" ]; then
  cargo build --release -p libcuda-shim >&2 || exit 2
  lib=$repo/target/release/libcuda.so
fi
[ -f "$lib" ] || { echo "client-suites: no library at $lib" >&2; exit 2; }
lib=$(cd "$(dirname "$lib")" && pwd -P)/$(basename "$lib")

venv=$(bash scripts/install-python-clients.sh) || exit 2
py=$venv/bin/python
out=${CLIENT_SUITES_OUT:-$repo/target/client-suites}
mkdir -p "$out"
jobs=${CLIENT_SUITES_JOBS:-2}
test_timeout=${CLIENT_TEST_TIMEOUT:-300}
summary=$out/summary.md
{
  echo "# Python clients on libcuda-shim"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), library $lib ($(git rev-parse --short HEAD 2>/dev/null)),"
  echo "profile ${CUDA_SHIM_DEVICE:-h100}, clients from $(basename "$venv")."
  echo
} >"$summary"
status=0

# Per-test table (class, test, status, seconds, message) from JUnit files; prints the counts
# `total passed failed errors skipped xfailed`.
junit_table() {
  "$py" - "$@" <<'PYEOF'
import glob, os, sys, xml.etree.ElementTree as ET
junit_dir, table = sys.argv[1], sys.argv[2]
rows = []
for x in sorted(glob.glob(os.path.join(junit_dir, "*.xml"))):
    try:
        root = ET.parse(x).getroot()
    except ET.ParseError:
        continue
    for tc in root.iter("testcase"):
        kids = {c.tag: c for c in tc}
        if "failure" in kids:
            st, c = "failed", kids["failure"]
        elif "error" in kids:
            st, c = "error", kids["error"]
        elif "skipped" in kids:
            c = kids["skipped"]
            st = "xfailed" if c.get("type") == "pytest.xfail" else "skipped"
        else:
            st, c = "passed", None
        msg = (c.get("message") or "").replace("\t", " ").replace("\n", " ")[:300] if c is not None else ""
        cls = tc.get("classname", "")
        if cls.startswith(".") or not cls:  # --pyargs ids lack the module: the file is named after it
            cls = os.path.basename(x)[:-4] + cls
        rows.append((cls, tc.get("name", ""), st, "%.2f" % float(tc.get("time", 0) or 0), msg))
with open(table, "w") as f:
    f.write("class\ttest\tstatus\tseconds\tmessage\n")
    for r in rows:
        f.write("\t".join(r) + "\n")
n = {k: sum(1 for r in rows if r[2] == k) for k in ("passed", "failed", "error", "skipped", "xfailed")}
print(len(rows), n["passed"], n["failed"], n["error"], n["skipped"], n["xfailed"])
PYEOF
}

run_numba() {
  local run=$out/numba
  rm -rf "$run"; mkdir -p "$run/junit" "$run/logs"
  cp tests/clients/numba_cuda_conftest.py tests/clients/pytest.ini "$run/"
  echo "client-suites: numba-cuda, one process per test module, $jobs at a time" >&2
  local started=$SECONDS
  # The modules of numba.cuda.tests, then one pytest each.
  (cd "$run" && "$py" - "$lib" "$jobs" "${NUMBA_FILE_TIMEOUT:-1800}" -- \
      -m pytest -p numba_cuda_conftest -p no:cacheprovider -rfE -v --color=no \
      --timeout="$test_timeout" <<'PYEOF'
import concurrent.futures as cf, importlib.util, os, subprocess, sys, time
lib, jobs, limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pytest = sys.argv[sys.argv.index("--") + 1:]
mods = []
for root in importlib.util.find_spec("numba.cuda.tests").submodule_search_locations:
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if f.startswith("test_") and f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f[:-3]), root).replace(os.sep, ".")
                mods.append("numba.cuda.tests." + rel)
def one(m):
    t0 = time.time()
    with open(os.path.join("logs", m + ".log"), "wb") as log:
        try:
            rc = subprocess.run([sys.executable, *pytest, "--junitxml", os.path.join("junit", m + ".xml"),
                                 "--pyargs", m], stdout=log, stderr=subprocess.STDOUT,
                                timeout=limit, env=dict(os.environ, PYTHONPATH=os.getcwd(), LD_PRELOAD=lib)).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return m, rc, time.time() - t0
with cf.ThreadPoolExecutor(max(jobs, 1)) as ex:
    for m, rc, dt in ex.map(one, sorted(set(mods))):
        print(f"module {m} rc={rc} {dt:.1f}s", flush=True)
PYEOF
  ) >"$run/modules.log" 2>&1 </dev/null
  # (LD_PRELOAD is set for each module's pytest only: the driver script needs no device.)
  local counts
  counts=$(junit_table "$run/junit" "$out/numba.tsv")
  read -r total p f e s x <<<"$counts"
  {
    echo "## numba-cuda (numba.cuda.tests, one process per module)"
    echo
    echo "$total tests: **$p passed, $f failed, $e errors**, $s skipped, $x xfailed; wall $((SECONDS - started)) s."
    echo "Per test: numba.tsv; per module: numba/modules.log and numba/logs/."
    echo
    awk -F'\t' 'NR > 1 && ($3 == "failed" || $3 == "error") { printf "- `%s::%s` %s: %s\n", $1, $2, $3, substr($5, 1, 160) }' "$out/numba.tsv"
    echo
  } >>"$summary"
  [ "$f" = 0 ] && [ "$e" = 0 ] && [ "$p" -gt 0 ] || status=1
}

# ok/FAIL lines of a check script -> summary.
run_checks() {
  local title=$1 name=$2 script=$3
  shift 3
  local started=$SECONDS
  echo "client-suites: $title" >&2
  (cd "$out" && env "$@" LD_PRELOAD="$lib" timeout -k 30 900 "$py" "$repo/tests/clients/$script") \
    >"$out/$name.log" 2>&1
  local rc=$?
  {
    echo "## $title"
    echo
    echo "$(tail -n 1 "$out/$name.log") (exit $rc, wall $((SECONDS - started)) s)"
    echo
    grep -aE '^(ok|FAIL) ' "$out/$name.log" | sed 's/^/- /'
    echo
  } >>"$summary"
  [ "$rc" = 0 ] || status=1
}

run_cupy_upstream() {
  local tests run=$out/cupy
  tests=$(bash scripts/install-python-clients.sh --cupy-tests) || { status=1; return; }
  rm -rf "$run"; mkdir -p "$run"
  # Tests that need only NVRTC-compiled kernels, plus test_sort.py (CuPy's prebuilt Thrust).
  local CUPY_TESTS=(
    tests/cupy_tests/core_tests/test_elementwise.py
    tests/cupy_tests/core_tests/test_reduction.py
    tests/cupy_tests/core_tests/test_userkernel.py
    tests/cupy_tests/core_tests/test_ndarray_elementwise_op.py
    tests/cupy_tests/core_tests/test_ndarray_reduction.py
    tests/cupy_tests/core_tests/test_ndarray_indexing.py
    tests/cupy_tests/core_tests/test_ndarray_adv_indexing.py
    tests/cupy_tests/core_tests/test_scan.py
    tests/cupy_tests/indexing_tests/test_indexing.py
    tests/cupy_tests/sorting_tests/test_sort.py
  )
  local started=$SECONDS
  echo "client-suites: CuPy's own tests (subset)" >&2
  (cd "$tests" && CUPY_COMPILE_WITH_PTX=1 CUPY_ACCELERATORS= CUPY_CACHE_DIR=$run/kernel-cache LD_PRELOAD="$lib" \
      timeout -k 30 "${CUPY_SUITE_TIMEOUT:-3600}" "$py" -m pytest -p no:cacheprovider -rfE -v \
      --color=no --timeout="$test_timeout" --junitxml "$run/junit.xml" \
      -m 'not slow and not multi_gpu' "${CUPY_TESTS[@]}") >"$out/cupy-upstream.log" 2>&1
  local counts
  counts=$(junit_table "$run" "$out/cupy-upstream.tsv")
  read -r total p f e s x <<<"$counts"
  local pct
  pct=$(awk -v p="$p" -v f="$f" -v e="$e" 'BEGIN { n = p + f + e; printf "%.1f", n ? 100 * p / n : 0 }')
  {
    echo "## CuPy: its own tests (subset: ${#CUPY_TESTS[@]} files, not slow, not multi_gpu)"
    echo
    echo "$total tests: **$p passed, $f failed, $e errors** ($pct% of those run), $s skipped, $x xfailed; wall $((SECONDS - started)) s."
    echo "Per test: cupy-upstream.tsv; log: cupy-upstream.log."
    echo
    awk -F'\t' 'NR > 1 && ($3 == "failed" || $3 == "error") { printf "- `%s::%s` %s: %s\n", $1, $2, $3, substr($5, 1, 160) }' \
      "$out/cupy-upstream.tsv" | head -n 200
    echo
  } >>"$summary"
  [ "$f" = 0 ] && [ "$e" = 0 ] || status=1
}

case $only in
  ""|numba|cupy|cuda-python) ;;
  *) echo "client-suites: --only numba, cupy or cuda-python" >&2; exit 2 ;;
esac
if [ -z "$only" ] || [ "$only" = cuda-python ]; then
  run_checks "cuda-python (cuda.core, cuda.bindings): tests/clients/cuda_python_check.py" \
    cuda-python cuda_python_check.py
fi
if [ -z "$only" ] || [ "$only" = cupy ]; then
  run_checks "CuPy smoke: tests/clients/cupy_smoke.py" cupy-smoke cupy_smoke.py \
    CUPY_COMPILE_WITH_PTX=1 CUPY_ACCELERATORS= CUPY_CACHE_DIR="$out/cupy-smoke-cache"
  run_cupy_upstream
fi
if [ -z "$only" ] || [ "$only" = numba ]; then
  run_numba
fi
cat "$summary"
exit $status
