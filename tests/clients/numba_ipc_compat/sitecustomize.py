# Used only to run numba-cuda's IPC tests through the client runner:
#   PYTHONPATH=tests/clients/numba_ipc_compat /work/shared/clients/numba.sh LIB numba.cuda.tests.cudapy.test_ipc
# Without it those tests fail in Python, before any driver call (on a GPU too).
# numba-cuda 0.30.4 pickles IPC handles through `CUipcMemHandle.reserved`, which cuda-bindings
# 13.5.0 no longer exposes (the type has only getPtr()). This gives the type back a `reserved`
# property (the 64 bytes at getPtr()) so numba's own IPC tests reach the driver.
import ctypes

try:
    from cuda.bindings import driver as _d

    class _Handle(_d.CUipcMemHandle):
        @property
        def reserved(self):
            return ctypes.string_at(self.getPtr(), 64)

        @reserved.setter
        def reserved(self, v):
            b = bytes(v)[:64]
            ctypes.memmove(self.getPtr(), b, len(b))

    _get = _d.cuIpcGetMemHandle

    def cuIpcGetMemHandle(dptr):
        err, h = _get(dptr)
        out = _Handle()
        if h is not None:
            out.reserved = ctypes.string_at(h.getPtr(), 64)
        return err, out

    _d.CUipcMemHandle = _Handle
    _d.cuIpcGetMemHandle = cuIpcGetMemHandle
except Exception:
    pass
