"""What the driver does with a built CUDA file: can its kernel k run on device 0?

scripts/gpu/inspect-on-gpu.sh runs this once per file, in a child process, and compares the answer
with `cuarch inspect`'s verdict. Nothing of cuarch is used: the file's CUDA code is found here, from
the ELF, fatbin and ar formats, and handed to libcuda as the CUDA runtime hands it:

  * .ptx, .cubin, .fatbin: cuModuleLoadData on the file's bytes (PTX with a NUL after it);
  * an ELF (executable, .so, .o): every fatbin of its .nv_fatbin section, each loaded as the runtime
    loads a registered fatbin; with no .nv_fatbin, the relocatable fatbins of __nv_relfatbin (-rdc
    objects) are device-linked first (cuLinkAddData CU_JIT_INPUT_FATBINARY, cuLinkComplete), as a
    program's device link would;
  * a static library (.a): each ELF member, as above.

A module "runs k" when it loads, has the kernel (k or _Z1kPf) and a launch of k on 32 threads with a
real buffer synchronises without error. The file runs when every member that holds CUDA code has one
module that runs k: a fatbin that fails to load is fine when another module of the same member runs k
(the runtime never loads a fatbin whose kernels are not launched). Prints one line:
  runs        k launched (from: the modules that ran it)
  fails: WHY  the driver's error for each piece
  none        no CUDA code found
--list: print the pieces found, without CUDA (to check the parser on a machine without a GPU).
"""
import ctypes
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50


def elf_sections(b):
    """{name: bytes} of an ELF64 file, or None when b is not one."""
    if b[:4] != b"\x7fELF" or b[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    if shoff == 0 or shnum == 0:
        return {}
    def header(i):
        return struct.unpack_from("<IIQQQQ", b, shoff + i * shentsize)  # name, type, flags, addr, offset, size
    names = header(shstrndx)
    out = {}
    for i in range(shnum):
        name, kind, _, _, off, size = header(i)
        if kind == 8:  # SHT_NOBITS
            continue
        n = b[names[4] + name:b.index(b"\0", names[4] + name)].decode()
        out[n] = b[off:off + size]
    return out


def fatbins(section):
    """Each fatbin (header and entries) in a .nv_fatbin or __nv_relfatbin section, in order."""
    out, at = [], 0
    while at + 16 <= len(section):
        magic, _, header_size, size = struct.unpack_from("<IHHQ", section, at)
        if magic != FATBIN_MAGIC:
            at += 8  # alignment padding between fatbins
            continue
        out.append(section[at:at + header_size + size])
        at += (header_size + size + 7) & ~7
    return out


def ar_members(b):
    """The ELF members of a static library (ar), as (name, bytes)."""
    at, out = 8, []
    while at + 60 <= len(b):
        name, size = b[at:at + 16].decode(errors="replace").strip(), int(b[at + 48:at + 58].decode().strip())
        data = b[at + 60:at + 60 + size]
        if data[:4] == b"\x7fELF":
            out.append((name, data))
        at += 60 + size + (size & 1)
    return out


def pieces(path):
    """[(member, [(how, bytes)])]: what the driver is handed, per member that holds CUDA code."""
    b = open(path, "rb").read()
    if path.endswith(".ptx"):
        return [(path, [("ptx", b + b"\0")])]
    if b[:4] == struct.pack("<I", FATBIN_MAGIC):
        return [(path, [("fatbin", b)])]
    if b[:8] == b"!<arch>\n":
        members = ar_members(b)
    else:
        members = [(path, b)]
    out = []
    for name, data in members:
        s = elf_sections(data)
        if s is None:
            continue
        if struct.unpack_from("<H", data, 0x12)[0] == 190 and ".nv_fatbin" not in s:  # EM_CUDA: a cubin
            out.append((name, [("cubin", data)]))
        elif s.get(".nv_fatbin"):
            out.append((name, [("fatbin", f) for f in fatbins(s[".nv_fatbin"])]))
        elif s.get("__nv_relfatbin"):
            out.append((name, [("link", f) for f in fatbins(s["__nv_relfatbin"])]))
    return out


def main():
    listing = sys.argv[1] == "--list"
    path = sys.argv[-1]
    found = pieces(path)
    if listing:
        for name, ps in found:
            print(name + ": " + " ".join(f"{how}:{len(p)}" for how, p in ps))
        return
    if not found:
        print("none")
        return
    cuda = ctypes.CDLL("libcuda.so.1")
    def sym(*names):
        for n in names:
            if hasattr(cuda, n):
                return getattr(cuda, n)
        raise AttributeError(names[0])
    def err(rc):
        s = ctypes.c_char_p()
        cuda.cuGetErrorName(rc, ctypes.byref(s))
        return (s.value or b"?").decode()
    def check(rc, what):
        if rc != 0:
            print(f"setup {what} failed: {err(rc)}")
            sys.exit(3)
    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    buf = ctypes.c_uint64()
    check(sym("cuMemAlloc_v2", "cuMemAlloc")(ctypes.byref(buf), ctypes.c_size_t(128)), "cuMemAlloc")
    link_create = sym("cuLinkCreate_v2", "cuLinkCreate")
    link_add = sym("cuLinkAddData_v2", "cuLinkAddData")

    def load(how, data):
        """(module, None) or (None, why)."""
        keep = ctypes.create_string_buffer(data, len(data))
        if how == "link":
            state = ctypes.c_void_p()
            rc = link_create(0, None, None, ctypes.byref(state))
            if rc == 0:
                rc = link_add(state, 2, keep, ctypes.c_size_t(len(data)), b"piece", 0, None, None)  # CU_JIT_INPUT_FATBINARY
            cubin, size = ctypes.c_void_p(), ctypes.c_size_t()
            if rc == 0:
                rc = cuda.cuLinkComplete(state, ctypes.byref(cubin), ctypes.byref(size))
            if rc != 0:
                cuda.cuLinkDestroy(state)
                return None, "device link: " + err(rc)
            keep = ctypes.string_at(cubin.value, size.value)
            cuda.cuLinkDestroy(state)
        mod = ctypes.c_void_p()
        rc = cuda.cuModuleLoadData(ctypes.byref(mod), keep)
        return (mod, None) if rc == 0 else (None, "cuModuleLoadData: " + err(rc))

    def runs_k(mod):
        fn = ctypes.c_void_p()
        if all(cuda.cuModuleGetFunction(ctypes.byref(fn), mod, n) != 0 for n in (b"_Z1kPf", b"k")):
            return "no kernel k"
        arg = ctypes.c_uint64(buf.value)
        params = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
        rc = cuda.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, None, params, None)
        if rc == 0:
            rc = cuda.cuCtxSynchronize()
        return None if rc == 0 else "launch: " + err(rc)

    ran, why = [], []
    for name, ps in found:
        ok = False
        for i, (how, data) in enumerate(ps):
            mod, e = load(how, data)
            if mod:
                e = runs_k(mod)
                cuda.cuModuleUnload(mod)
            if e is None:
                ok = True
                ran.append(f"{how} {i + 1}/{len(ps)}")
                break
            why.append(f"{how} {i + 1}/{len(ps)}: {e}")
        if not ok:
            print("fails: " + "; ".join(why))
            return
    print("runs (from: " + ", ".join(ran) + ")")


if __name__ == "__main__":
    main()
