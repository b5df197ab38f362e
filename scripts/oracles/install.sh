#!/usr/bin/env bash
# Creates the Python environment that regenerates the tensor-core test oracles in this folder
# (mma-vectors.py -> mma-mmasim.txt, mma-kinds.py -> mma-kinds-mmasim.txt, tcgen05-kinds.py ->
# tcgen05-kinds-mmasim.txt; the last two replay their programs' inputs with replay.py) with mmasim, a published bit-accurate model of NVIDIA's mma.
# For test oracles only: nothing here is ever a runtime or build dependency of the shim, and the
# generated data file is committed so that tests never need this environment.
#
#   scripts/oracles/install.sh [VENV_DIR]     (default: target/oracle-venv under the repo root)
#
# The CUDA wheel of torch works on a CPU-only machine; to fetch the much smaller CPU wheel instead,
# run with PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu (2.9.1+cpu also satisfies the pin).
# mmasim compiles a small C++ extension with ninja the first time it is imported (needs a C++
# compiler); mma-vectors.py puts the environment's bin/ on PATH itself.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${1:-$root/target/oracle-venv}"

python3 -m venv "$venv"
"$venv/bin/pip" install --quiet "torch==2.9.1" "mmasim==2.1.1" "numpy==2.4.6" ninja
echo "$venv"
