#!/usr/bin/env bash
# Installs the Python clients whose own test suites run on the shim, pinned, into one virtual
# environment under the toolkit cache, and prints the environment's directory (its bin/python runs
# them). Idempotent: a complete environment is reused; changing a pin makes a new one.
# Nothing from NVIDIA is committed to this repository; tests/clients.rs and
# scripts/client-suites.sh call this script.
#
#   scripts/install-python-clients.sh            -> prints e.g. ~/.cache/libcuda-shim/python-clients-<key>
#   scripts/install-python-clients.sh --cupy-tests
#       -> also unpacks CuPy's own tests (they are in its sdist, not in the wheel) and prints their
#          directory instead (it holds tests/ and pyproject.toml)
#
# The clients: numba-cuda 0.30.4 (+ numba 0.68.1) with NVIDIA's NVVM, NVRTC and nvJitLink 13.5.37,
# CuPy (cupy-cuda13x 14.2.0), cuda-python (cuda-core 1.2.2, cuda-bindings 13.5.0), and pytest with
# the plugins their suites use. nvJitLink is installed, as users have it: numba-cuda then links
# LTO-IR to a SASS cubin through it, and the shim recovers the PTX (README: run-time compilers).
#
# CUDA_SHIM_TOOLKIT_CACHE overrides the cache root.
set -euo pipefail

want_cupy_tests=0
case "${1:-}" in
  "") ;;
  --cupy-tests) want_cupy_tests=1 ;;
  *)
    echo "usage: $0 [--cupy-tests]" >&2
    exit 2
    ;;
esac

NVIDIA_VERSION=13.5.37
CUPY_VERSION=14.2.0
PACKAGES=(
  "numba-cuda[cu13]==0.30.4"
  "numba==0.68.1"
  "llvmlite==0.50.0"
  "numpy==2.4.6"
  "cupy-cuda13x==$CUPY_VERSION"
  "cuda-core==1.2.2"
  "cuda-bindings==13.5.0"
  "cuda-pathfinder==1.9.0"
  "cuda-toolkit==13.5.0"
  "nvidia-nvvm==$NVIDIA_VERSION"
  "nvidia-cuda-nvrtc==$NVIDIA_VERSION"
  "nvidia-cuda-runtime==$NVIDIA_VERSION"
  "nvidia-nvjitlink==$NVIDIA_VERSION"
  "pytest==9.2.0"
  "pytest-timeout==2.4.0"
  "pytest-xdist==3.8.0"
  "pytest-benchmark==5.3.1"
  "filecheck==1.0.6"
  "hypothesis>=6.37.2,<6.55.0"
  "psutil"
  "cffi"
  "ml_dtypes"
  "mpmath"
  "packaging"
)

cache_root=${CUDA_SHIM_TOOLKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcuda-shim}
key=$(printf '%s\n' "${PACKAGES[@]}" | sha256sum | cut -c1-12)
venv="$cache_root/python-clients-$key"
stamp="$venv/.complete"

if [ ! -f "$stamp" ]; then
  python=$(command -v python3.11 || command -v python3 || command -v python)
  rm -rf "$venv.tmp"
  mkdir -p "$cache_root"
  echo "installing the Python clients (numba-cuda, CuPy, cuda-python) from PyPI into $venv" >&2
  # A venv records its own path in its scripts, so it is built in place under a temporary name
  # only for the download; python -m pip and python -m pytest do not use those scripts.
  "$python" -m venv "$venv.tmp"
  "$venv.tmp/bin/python" -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    "${PACKAGES[@]}" >&2
  rm -rf "$venv"
  mv "$venv.tmp" "$venv"
  printf '%s\n' "${PACKAGES[@]}" >"$stamp"
fi

if ! "$venv/bin/python" -c 'import numba.cuda, cupy, cuda.core, cuda.bindings.nvrtc, pytest' 2>/dev/null; then
  echo "install-python-clients: $venv does not import its packages; remove it and rerun" >&2
  exit 1
fi

if [ "$want_cupy_tests" = 0 ]; then
  echo "$venv"
  exit 0
fi

tests="$cache_root/cupy-$CUPY_VERSION-tests"
if [ ! -f "$tests/.complete" ]; then
  rm -rf "$tests" "$tests.tmp"
  mkdir -p "$tests.tmp/sdist"
  echo "fetching CuPy $CUPY_VERSION's tests (its sdist) into $tests" >&2
  # Only downloaded, never built: the stub flag lets the sdist's metadata step run without CUDA.
  CUPY_INSTALL_USE_STUB=1 "$venv/bin/python" -m pip download --quiet --disable-pip-version-check \
    --no-deps --no-binary cupy "cupy==$CUPY_VERSION" -d "$tests.tmp/sdist" >&2
  tar -xzf "$tests.tmp/sdist/cupy-$CUPY_VERSION.tar.gz" -C "$tests.tmp" --strip-components=1 \
    "cupy-$CUPY_VERSION/tests" "cupy-$CUPY_VERSION/pyproject.toml"
  rm -rf "$tests.tmp/sdist"
  mv "$tests.tmp" "$tests"
  touch "$tests/.complete"
fi
echo "$tests"
