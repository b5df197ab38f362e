# Ground-truth probe: which non-ASCII bytes in PTX the driver JIT refuses. Needs only python3 and the
# driver (libcuda.so.1); run on a GPU machine: `python3 scripts/ground-truth/nonascii_probe.py`.
# Each line: case, the CUresult of cuModuleLoadDataEx, the first line of the JIT error log.
import ctypes as C
L=C.CDLL("libcuda.so.1");L.cuInit(0);d=C.c_int();L.cuDeviceGet(C.byref(d),0);x=C.c_void_p();L.cuDevicePrimaryCtxRetain(C.byref(x),d);L.cuCtxSetCurrent(x)
H=b".version 8.0\n.target sm_80\n.address_size 64\n";B=b".visible .entry k() { ret; }\n"
def ld(w,p):
 g=C.create_string_buffer(4096);o=(C.c_int*2)(5,6);v=(C.c_void_p*2)(C.cast(g,C.c_void_p).value,4096);m=C.c_void_p()
 r=L.cuModuleLoadDataEx(C.byref(m),C.c_char_p(p),2,o,v);print(w,r,g.value.decode('latin1').split('\n')[0])
ld("latin1 comment",H+b"// caf\xe9 \xff\n"+B)
ld("utf8 comment",H+b"// caf\xc3\xa9\n"+B)
ld("utf8 block comment",H+b"/* caf\xc3\xa9 */\n"+B)
ld("utf8 .file",H+b".file 1 \"/tmp/caf\xc3\xa9.cu\"\n"+B)
ld("bom",b"\xef\xbb\xbf"+H+B)
ld("utf8 after last line",H+B+b"// \xc3\xa9")
ld("utf8 line 6 in body",H+b".visible .entry k()\n{\n ret; // \xc3\xa9\n}\n")
ld("ascii control",H+B)
