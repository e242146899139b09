"""Block events with sizes and pools: the C++ allocator trace adapter.

torch's Python trace hooks (_allocator) give a block's address only. The
caching allocators of c10 CUDA (torch >= 2.1) and torch_npu offer
attachAllocatorTraceTracker(std::function<void(const TraceEntry&)>), whose
entries carry the size, stream and pool too; trace_adapter.cpp hands it
tether::trace::feed. It is compiled here at first use, against the headers
of the torch (and torch_npu) that runs, with the compiler on PATH (or $CXX),
into $XDG_CACHE_HOME/tether/trace-adapter/<backend>-<key>/adapter.so, the
key hashing everything the binary depends on; later runs only load it.
Nothing is written anywhere else.
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from ._version import __version__

_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.join(_HERE, "trace_adapter.cpp")

# backend -> (module shipping the allocator, its header, namespace, the
# libraries defining attachAllocatorTraceTracker in the module's lib/).
_BACKENDS = {
    "npu": ("torch_npu", "torch_npu/csrc/core/npu/NPUCachingAllocator.h",
            "c10_npu::NPUCachingAllocator", ["torch_npu"]),
    "cuda": ("torch", "c10/cuda/CUDACachingAllocator.h",
             "c10::cuda::CUDACachingAllocator", ["c10_cuda", "c10"]),
}


class Unavailable(Exception):
    """Why the adapter cannot be attached (said once, by _allocator)."""


def attach(backend):
    """Attach the adapter to `backend`'s allocator: None, or why not."""
    try:
        _attach(backend)
        return None
    except Unavailable as e:
        return str(e)
    except Exception as e:  # never the user's program's problem
        return "internal error: %s: %s" % (type(e).__name__, e)


def _attach(backend):
    module_name, header, namespace, libs = _BACKENDS[backend]
    module = sys.modules.get(module_name)
    torch = sys.modules.get("torch")
    if module is None or torch is None:
        raise Unavailable("%s is not imported" % module_name)
    root = os.path.dirname(os.path.abspath(module.__file__))
    candidates = _includes(backend, root, torch)
    includes = [d for d in candidates if os.path.isdir(d)]
    found = next((os.path.join(d, header) for d in includes
                  if os.path.isfile(os.path.join(d, header))), None)
    if found is None:
        raise Unavailable("no %s in %s" % (header, ", ".join(candidates)))
    with open(found, errors="replace") as f:
        if "attachAllocatorTraceTracker" not in f.read():
            raise Unavailable(
                "%s of torch %s has no attachAllocatorTraceTracker (c10 CUDA "
                "has it from torch 2.1)" % (found, torch.__version__))
    lib_dir = os.path.join(root, "lib")
    lib_files = [os.path.join(lib_dir, "lib%s.so" % n) for n in libs]
    for path in lib_files:
        if not os.path.isfile(path):
            raise Unavailable("no %s" % path)
    cxx = _compiler()
    tether_lib = _loaded_library("libtether_verify.so")
    flags = ["-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden",
             "-DTETHER_ALLOCATOR_HEADER=<%s>" % header,
             "-DTETHER_ALLOCATOR_NS=%s" % namespace,
             "-I", os.path.join(_HERE, "include")]
    abi = getattr(getattr(torch, "_C", None), "_GLIBCXX_USE_CXX11_ABI", None)
    if abi is not None:  # TraceEntry's layout depends on std::string's
        flags.append("-D_GLIBCXX_USE_CXX11_ABI=%d" % int(abi))
    for d in includes:
        flags += ["-isystem", d]
    link = ["-L", lib_dir] + ["-l" + n for n in libs] + [
        "-Wl,-rpath," + lib_dir, tether_lib,
        "-Wl,-rpath," + os.path.dirname(tether_lib)]
    key = _key(backend, torch, module, cxx, flags + link,
               [found, _SOURCE, os.path.join(_HERE, "include", "tether",
                                             "trace_tracker.hpp"),
                tether_lib] + lib_files)
    entry = os.path.join(_cache_root(), "%s-%s" % (backend, key))
    so = os.path.join(entry, "adapter.so")
    fn, rebuild = None, False
    if os.path.exists(so):
        try:
            fn = _load(so)
        except OSError as e:
            why = _first_line(str(e))
            if why.startswith(so + ": "):
                why = why[len(so) + 2:]
            _say("tether_verify: the cached trace adapter %s is unusable "
                 "(%s); rebuilding it" % (so, why))
            rebuild = True
    if fn is None:
        fn = _build(backend, entry, [cxx] + flags + [_SOURCE], link,
                    announce=not rebuild)
    if fn() != 1:
        raise Unavailable("%s did not attach" % so)


def _includes(backend, root, torch):
    """torch's headers (the directories torch.utils.cpp_extension's
    include_paths() names, without importing it: it pulls in setuptools),
    torch_npu's own and ACL's for npu, the CUDA toolkit's for cuda."""
    base = os.path.join(os.path.dirname(os.path.abspath(torch.__file__)),
                        "include")
    torch_dirs = [base, os.path.join(base, "torch", "csrc", "api", "include")]
    if backend == "npu":
        inc = os.path.join(root, "include")
        return [inc, os.path.join(inc, "third_party", "acl", "inc")] + torch_dirs
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or \
        "/usr/local/cuda"
    return torch_dirs + [os.path.join(cuda, "include")]


def _compiler():
    name = os.environ.get("CXX")
    candidates = [name] if name else ["c++", "g++", "clang++"]
    for c in candidates:
        path = shutil.which(c)
        if path:
            return path
    raise Unavailable("no C++ compiler: %s" % (
        "CXX=%s not found" % name if name else "no c++, g++ or clang++ on PATH"))


def _loaded_library(name):
    """The libtether_verify.so the binding loaded: the adapter must feed the
    same ledgers, so it links that very file."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.rstrip("\n").split(None, 5)[-1]
            if os.path.basename(path) == name:
                return path
    raise Unavailable("%s is not loaded" % name)


def _key(backend, torch, module, cxx, args, files):
    h = hashlib.sha256()
    parts = [__version__, backend, torch.__version__,
             str(getattr(module, "__version__", "")), sys.version] + args
    for path in [cxx] + files:
        st = os.stat(path)
        parts.append("%s %d %d" % (os.path.realpath(path), st.st_size,
                                   st.st_mtime_ns))
    h.update("\0".join(parts).encode())
    return h.hexdigest()[:16]


def _cache_root():
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG rule: relative paths are ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tether", "trace-adapter")


def _load(path):
    lib = ctypes.CDLL(path)
    try:
        fn = lib.tether_trace_adapter_attach
    except AttributeError as e:
        raise OSError(str(e))
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn


def _build(backend, entry, compile_cmd, link, announce):
    """Compile into a private directory of the entry, load it from there,
    then rename it into place: concurrent runs each rename a complete file,
    and a broken file already loaded under the final name is never reused.
    A compile may take a while against real torch headers, so it is said
    (once: a rebuild has said so already)."""
    try:
        os.makedirs(entry, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".build-", dir=entry)
    except OSError as e:
        raise Unavailable("cannot write the cache %s: %s" % (entry, e.strerror))
    try:
        out = os.path.join(tmp, "adapter.so")
        if announce:
            _say("tether_verify: compiling the allocator trace adapter for "
                 "torch.%s into %s (once)" % (backend, entry))
        try:
            r = subprocess.run(compile_cmd + ["-o", out] + link,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Unavailable("%s could not run: %s" % (compile_cmd[0], e))
        log = os.path.join(entry, "build.log")
        with open(os.path.join(tmp, "build.log"), "wb") as f:
            f.write(b" ".join(a.encode() for a in compile_cmd + ["-o", out] + link))
            f.write(b"\n" + r.stdout)
        os.replace(os.path.join(tmp, "build.log"), log)
        if r.returncode != 0:
            errors = [ln for ln in r.stdout.decode(errors="replace").splitlines()
                      if "error" in ln]
            raise Unavailable("%s could not compile it (exit %d, see %s)%s" % (
                compile_cmd[0], r.returncode, log,
                ": " + errors[0] if errors else ""))
        try:
            fn = _load(out)
        except OSError as e:
            raise Unavailable("the adapter %s compiled does not load: %s" % (
                compile_cmd[0], _first_line(str(e))))
        os.replace(out, os.path.join(entry, "adapter.so"))
        return fn
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _first_line(s):
    return s.strip().splitlines()[0] if s.strip() else s


def _say(line):
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
