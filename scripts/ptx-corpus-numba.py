"""Compiles the numba-cuda kernels of engine/tests/data/corpus_src/numba/*.py to PTX, without a
GPU: numba.cuda.compile_ptx types and lowers each Python function to NVVM IR and hands it to the
toolkit's libNVVM, never touching the driver. Called by scripts/build-ptx-corpus.sh, which
installs numba-cuda pinned into the cache and passes the paths; all kernels are compiled in this
one process because importing numba is the slow part.

  python3 ptx-corpus-numba.py SITE_DIR OUT_DIR CC[,CC...] SOURCE.py [SOURCE.py ...]

SITE_DIR: the `pip install --target` directory of numba-cuda (added as a site directory, so
that its .pth redirector makes `numba.cuda` the numba-cuda package).

Each SOURCE.py defines KERNELS = [(name, function, signature, options)]; options are keyword
arguments of compile_ptx (device, abi, fastmath, debug, lineinfo, opt). Writes
OUT_DIR/numba.<module>.<name>.compute_<cc>.ptx for each entry and compute capability (e.g. 75).
"""

import importlib.util
import os
import site
import sys
import time
import traceback


def main():
    site_dir, out_dir, ccs, sources = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4:]
    t0 = time.time()
    site.addsitedir(site_dir)
    from numba import cuda

    import numba.cuda.dispatcher as dispatcher

    # numba-cuda 0.30.4 compiles a kernel without a device, but a device function it calls (a
    # user's @cuda.jit(device=True) function, or a library overload built on one, such as
    # array.view) is compiled by Dispatcher.compile_device for
    # `get_current_device().compute_capability`, which initialises the driver and, with no GPU,
    # fails: "CudaSupportError: Error at driver init: CUDA driver library cannot be found." The
    # stand-in below answers with the capability being compiled for, which is what a device of
    # that capability would answer; nothing else of the driver is used.
    class StandInDevice:
        compute_capability = None

    device = StandInDevice()
    dispatcher.get_current_device = lambda: device
    t_import = time.time() - t0
    sys.dont_write_bytecode = True  # no __pycache__ beside the corpus sources in the repository
    count = 0
    for cc in ccs:
        major, minor = int(cc[:-1]), int(cc[-1])
        device.compute_capability = (major, minor)
        for src in sources:
            # Loaded afresh for each capability: a dispatcher caches the device functions it
            # compiled, by argument types only, as it would in a process with one device.
            mod_name = os.path.splitext(os.path.basename(src))[0]
            spec = importlib.util.spec_from_file_location(f"corpus_numba_{mod_name}", src)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            for name, func, sig, opts in mod.KERNELS:
                pyfunc = getattr(func, "py_func", func)
                try:
                    ptx, _ = cuda.compile_ptx(pyfunc, sig, cc=(major, minor), **opts)
                except Exception as e:  # name the kernel, then fail the build
                    traceback.print_exc()
                    sys.exit(f"ptx-corpus-numba: {src}: {name} for cc {cc}: {type(e).__name__}: {e}")
                out = os.path.join(out_dir, f"numba.{mod_name}.{name}.compute_{cc}.ptx")
                with open(out + ".tmp", "w") as f:
                    f.write(ptx)
                os.replace(out + ".tmp", out)
                count += 1
    print(
        f"ptx-corpus-numba: {count} PTX files in {time.time() - t0:.1f} s "
        f"(numba import {t_import:.1f} s)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
