"""libcuda-shim for Python: CUDA clients (numba-cuda, CuPy, cuda-python) run on the CPU.

    import cuda_shim
    cuda_shim.load()      # before the first CUDA call of the process
    import cupy           # ... and CuPy, numba-cuda, cuda-python use the shim as their driver

`load()` loads the shim's driver library into the running interpreter with RTLD_GLOBAL. Its
ELF soname is libcuda.so.1, so when a client later opens the driver by that name (cuda-bindings
through cuda-pathfinder, CuPy through cudart), the dynamic loader hands back the object already
loaded instead of searching for a file: no LD_PRELOAD and no library path are needed. Being
global and loaded first, the shim's NVRTC and nvJitLink entry points also precede NVIDIA's for
code that looks them up with dlsym(RTLD_DEFAULT), as cuda-bindings does (README: run-time
compilers).

Also `python -m cuda_shim SCRIPT|-m MODULE [ARGS...]` (load, then run), and the pytest plugin
`pytest -p cuda_shim.pytest_plugin`. The library comes from the `cuda-shim` tool installed with
this package (`cuda-shim library`), or from the file CUDA_SHIM_LIBRARY names.

Only this process is affected: a child process that is a new program (subprocess, or
multiprocessing's "spawn") must load the shim itself, or be started with `cuda-shim run`.
"""

import ctypes
import mmap
import os
import shutil
import subprocess
import sys
import threading

__all__ = ["ShimError", "library_path", "load", "loaded"]

# The driver's name as clients ask for it, and what the shim's device names carry (the
# library's own text, so a shim loaded some other way, e.g. preloaded, is recognised).
_SONAME = "libcuda.so.1"
_MARKER = b" (libcuda-shim)"

_lock = threading.Lock()
_loaded = None  # (path, ctypes.CDLL or None) once load() succeeded


class ShimError(RuntimeError):
    """The shim cannot be found or cannot become this process's CUDA driver."""


def library_path():
    """The path of the shim's driver library: the file CUDA_SHIM_LIBRARY names, else the copy
    the installed `cuda-shim` tool carries (`cuda-shim library` writes it to the user's cache
    directory on first use and prints its path)."""
    named = os.environ.get("CUDA_SHIM_LIBRARY")
    if named:
        if not os.path.isfile(named):
            raise ShimError(f"CUDA_SHIM_LIBRARY={named}: no such file")
        return named
    tool = _tool()
    done = subprocess.run([tool, "library"], capture_output=True, text=True)
    if done.returncode != 0:
        raise ShimError(f"`{tool} library` failed: {done.stderr.strip()}")
    return done.stdout.strip()


def loaded():
    """The path of the shim when it is this process's driver (loaded by load(), or preloaded),
    else None."""
    if _loaded is not None:
        return _loaded[0]
    path = _driver_in_process()
    return path if path is not None and _is_shim(path) else None


def load():
    """Makes the shim this process's CUDA driver, libcuda.so.1, and returns its path.

    Call it before the first CUDA call. Importing a client first is fine: CuPy and cuda-python
    open the driver at their first call, and numba-cuda, which looks for it at import, is made
    to look again. Calling it again, or where the shim is preloaded already (`cuda-shim
    run`), changes nothing. Raises ShimError when another libcuda.so.1 (NVIDIA's driver) is
    loaded already: a process keeps the driver it opened first, so the shim cannot take over.
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded[0]
        present = _driver_in_process()
        if present is not None:
            if not _is_shim(present):
                raise ShimError(
                    f"a CUDA driver is loaded in this process already ({present}), so "
                    "libcuda-shim cannot take its place: call cuda_shim.load() before anything "
                    "makes a CUDA call (or run the program with `cuda-shim run`)"
                )
            # Opened already, maybe without RTLD_GLOBAL (numba-cuda's ctypes lookup at import
            # finds a shim on the library path): promote it, so that cuda-bindings' lookups of
            # NVRTC and nvJitLink with dlsym(RTLD_DEFAULT) find its functions first.
            try:
                handle = ctypes.CDLL(present, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL | os.RTLD_NOW)
            except OSError:
                handle = None
            _loaded = (present, handle)
        else:
            path = library_path()
            try:
                handle = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
            except OSError as e:
                raise ShimError(f"cannot load {path}: {e}") from e
            # The clients ask for libcuda.so.1; make sure that name now means this object.
            if _driver_in_process() is None:
                raise ShimError(f"{path} does not answer to {_SONAME} (is it libcuda-shim?)")
            _loaded = (path, handle)
        _ask_cupy_for_ptx()
        _retry_numba_driver()
        return _loaded[0]


def _tool():
    """The `cuda-shim` executable installed with this package (its RECORD names it, wherever
    pip put scripts: a venv's bin/, ~/.local/bin, a --prefix), else the first on PATH."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        for f in distribution("cuda-shim").files or ():
            if f.name == "cuda-shim":
                path = os.path.normpath(f.locate())
                if os.access(path, os.X_OK):
                    return path
    except (ImportError, PackageNotFoundError):
        pass
    path = shutil.which("cuda-shim")
    if path is None:
        raise ShimError(
            "cannot find the cuda-shim tool (installed with this package, or on PATH); "
            "or name the library in CUDA_SHIM_LIBRARY"
        )
    return path


def _driver_in_process():
    """The file of the object loaded as libcuda.so.1 in this process, if any. RTLD_NOLOAD only
    looks among loaded objects (matching names and sonames), never loads."""
    try:
        handle = ctypes.CDLL(_SONAME, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return None
    return _file_of(handle) or _SONAME


class _LinkMap(ctypes.Structure):
    # The head of glibc's struct link_map (<link.h>): l_addr, then l_name.
    _fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p)]


def _file_of(handle):
    """The file a dlopen handle was loaded from (dlinfo RTLD_DI_LINKMAP), or None."""
    try:
        dlinfo = ctypes.CDLL(None).dlinfo
    except AttributeError:
        # glibc before 2.34 keeps dlinfo in libdl, which the interpreter may not have loaded.
        try:
            dlinfo = ctypes.CDLL("libdl.so.2").dlinfo
        except (OSError, AttributeError):
            return None
    dlinfo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    link_map = ctypes.POINTER(_LinkMap)()
    RTLD_DI_LINKMAP = 2
    if dlinfo(handle._handle, RTLD_DI_LINKMAP, ctypes.byref(link_map)) != 0 or not link_map:
        return None
    name = link_map.contents.l_name
    return os.fsdecode(name) if name else None


def _is_shim(path):
    """Whether the library at path is libcuda-shim (it carries the shim's device names)."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(_MARKER) >= 0
    except (OSError, ValueError):
        return False


def _ask_cupy_for_ptx():
    """CuPy compiles with NVRTC through its own dlopen handle, where the shim cannot hand back
    PTX for the cubin it asks for (README: run-time compilers); with CUPY_COMPILE_WITH_PTX=1 it
    asks for PTX instead. The preloaded shim and `cuda-shim run` set it; here it is set in
    os.environ (so child processes get it too), unless the user set it, and in CuPy's compiler
    module too if that was imported already, since it reads the variable once, at import."""
    if "CUPY_COMPILE_WITH_PTX" in os.environ:
        return
    os.environ["CUPY_COMPILE_WITH_PTX"] = "1"
    compiler = sys.modules.get("cupy.cuda.compiler")
    if compiler is not None and hasattr(compiler, "_use_ptx"):
        compiler._use_ptx = True


def _retry_numba_driver():
    """numba-cuda looks for the driver when `numba.cuda` is imported (its module-level Driver()
    opens libcuda with ctypes) and keeps the failure. If it was imported before load() and found
    none, it looks again now, finding the shim; a driver it did find is left alone."""
    module = sys.modules.get("numba.cuda.cudadrv.driver")
    driver = getattr(module, "driver", None)
    if driver is None or getattr(driver, "pid", 0) is not None:
        return
    if getattr(driver, "initialization_error", None) and not getattr(driver, "devices", None):
        driver.__init__()
