"""`python -m cuda_shim SCRIPT [ARGS...]` or `python -m cuda_shim -m MODULE [ARGS...]`: loads the
shim into this interpreter (cuda_shim.load()) and runs the script or module as `python` would,
with the shim as its CUDA driver and no LD_PRELOAD (e.g. `python -m cuda_shim -m pytest tests/`).
"""

import os
import runpy
import sys

import cuda_shim

USAGE = "usage: python -m cuda_shim SCRIPT [ARGS...]\n       python -m cuda_shim -m MODULE [ARGS...]\n"


def main(argv):
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        sys.stderr.write(USAGE)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    try:
        cuda_shim.load()
    except cuda_shim.ShimError as e:
        sys.stderr.write(f"cuda_shim: {e}\n")
        return 1
    if argv[0] == "-m":
        # As `python -m MODULE`: argv[0] becomes the module's file, the working directory
        # leads sys.path.
        sys.argv = argv[1:]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        # As `python SCRIPT`: the script's directory leads sys.path.
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
