"""Compiles the CUDA C++ sources of engine/tests/data/corpus_src/nvrtc/ to PTX with NVRTC, the way
runtime-compiling programs do: through libnvrtc's C API (here via ctypes), sources and headers
passed in memory, templates instantiated by name expressions. Called by
scripts/build-ptx-corpus.sh, which installs the pinned pip nvidia-cuda-nvrtc into the cache and
passes the library and the jobs.

  python3 ptx-corpus-nvrtc.py LIBNVRTC INCLUDE_DIR JOBS < jobs
      jobs: NUL-separated triples SOURCE, ARCH (e.g. 90a), OUT

Every program gets --gpu-architecture=compute_<ARCH> --std=c++17 and the headers of
corpus_src/nvrtc/include/ as in-memory headers (jitify style: the application embeds its
headers and hands them to nvrtcCreateProgram; no include path needed for them). INCLUDE_DIR is
the toolkit's include directory, passed as --include-path only to sources that ask for it.
Directives in a source's comments:

  // nvrtc-options: OPTION ...        more options (e.g. -default-device, --use_fast_math, -DN=4)
  // nvrtc-name-expression: EXPR      nvrtcAddNameExpression(EXPR) before compiling; after
                                      compiling, nvrtcGetLoweredName(EXPR) must name a symbol
                                      defined in the PTX
  // nvrtc-toolkit-include            add --include-path=INCLUDE_DIR and INCLUDE_DIR/cccl (for
                                      cuda_fp16.h, cooperative_groups.h, cuda/std headers)
"""

import ctypes
import glob
import os
import sys
from concurrent.futures import ThreadPoolExecutor

nvrtc = None


def check(result, what, prog=None):
    if result != 0:
        msg = nvrtc.nvrtcGetErrorString(result).decode()
        log = ""
        if prog is not None:
            size = ctypes.c_size_t()
            nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value)
            nvrtc.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode(errors="replace")
        raise RuntimeError(f"{what}: {msg}\n{log}")


def cstrings(items):
    arr = (ctypes.c_char_p * len(items))()
    arr[:] = [s.encode() for s in items]
    return arr


def directives(text, key):
    out = []
    for line in text.splitlines():
        line = line.strip()
        prefix = f"// {key}:"
        if line.startswith(prefix):
            out.append(line[len(prefix):].strip())
        elif line == f"// {key}":
            out.append("")
    return out


def compile_one(src, arch, out, headers, include_dir):
    text = open(src).read()
    options = [f"--gpu-architecture=compute_{arch}", "--std=c++17"]
    for opts in directives(text, "nvrtc-options"):
        options += opts.split()
    if directives(text, "nvrtc-toolkit-include"):
        options += [f"--include-path={include_dir}", f"--include-path={include_dir}/cccl"]
    names = directives(text, "nvrtc-name-expression")

    prog = ctypes.c_void_p()
    header_names = sorted(headers)
    check(
        nvrtc.nvrtcCreateProgram(
            ctypes.byref(prog),
            text.encode(),
            os.path.basename(src).encode(),
            len(header_names),
            cstrings([headers[h] for h in header_names]),
            cstrings(header_names),
        ),
        f"{src}: nvrtcCreateProgram",
    )
    try:
        for n in names:
            check(nvrtc.nvrtcAddNameExpression(prog, n.encode()), f"{src}: add {n}")
        check(
            nvrtc.nvrtcCompileProgram(prog, len(options), cstrings(options)),
            f"{src} for compute_{arch} ({' '.join(options)})",
            prog,
        )
        size = ctypes.c_size_t()
        check(nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size)), f"{src}: PTX size")
        buf = ctypes.create_string_buffer(size.value)
        check(nvrtc.nvrtcGetPTX(prog, buf), f"{src}: PTX")
        ptx = buf.value.decode()
        for n in names:
            lowered = ctypes.c_char_p()
            check(nvrtc.nvrtcGetLoweredName(prog, n.encode(), ctypes.byref(lowered)), f"{src}: {n}")
            sym = lowered.value.decode()
            if sym not in ptx:
                raise RuntimeError(f"{src}: lowered name {sym} of {n} is not in the PTX")
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    with open(out + ".tmp", "w") as f:
        f.write(ptx)
    os.replace(out + ".tmp", out)
    print(f"build-ptx-corpus: nvrtc {os.path.basename(src)} for compute_{arch}", file=sys.stderr)


def main():
    global nvrtc
    lib, include_dir, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    nvrtc = ctypes.CDLL(lib)
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    fields = sys.stdin.buffer.read().decode().split("\0")
    work = [fields[i : i + 3] for i in range(0, len(fields) - 2, 3)]
    if not work:
        return
    src_dir = os.path.dirname(work[0][0])
    headers = {}
    for h in sorted(glob.glob(os.path.join(src_dir, "include", "*"))):
        headers[os.path.basename(h)] = open(h).read()
    # NVRTC compiles in the calling thread and releases the GIL inside ctypes calls, so threads
    # give real parallelism.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(compile_one, s, a, o, headers, include_dir) for s, a, o in work]
        failed = [str(f.exception()) for f in futures if f.exception() is not None]
    if failed:
        sys.exit("ptx-corpus-nvrtc: failed:\n" + "\n".join(failed))


if __name__ == "__main__":
    main()
