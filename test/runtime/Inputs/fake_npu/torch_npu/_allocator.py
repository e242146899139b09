"""A caching allocator over host memory, shaped like torch_npu's.

Blocks are 512-byte multiples carved from 1 MiB segments. A block is freed
when the last tensor over its storage dies (the storage releases the
memoryview it was made from), and goes back to the free list of its pool;
the next allocation of that size from the same pool gets it back (last
freed, first reused). Allocations made while a graph captures on this
thread come from the graph's pool, as in torch's private graph pools. Every
allocation and free is announced through utils._npu_trace, as torch_npu's
allocator does once the trace is activated, and, when a test has built
lib/libtorch_npu.so (from ../csrc/), to the C++ trace trackers attached to
it, with the block's size, stream and pool (segments too), as torch_npu's
C++ allocator does.
"""
import ctypes
import os
import threading
import weakref

import torch

try:
    from .utils import _npu_trace as _trace
except ImportError:  # hidden: a torch_npu without trace hooks
    _trace = None

# TraceEntry::Action of include/torch_npu/csrc/core/npu/NPUCachingAllocator.h
ALLOC, FREE_COMPLETED, SEGMENT_ALLOC = 0, 2, 3
_lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib",
                    "libtorch_npu.so")
_cxx_trace = ctypes.CDLL(_lib).fake_npu_trace if os.path.exists(_lib) else None
if _cxx_trace is not None:
    _cxx_trace.restype = None
    _cxx_trace.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
                           ctypes.c_size_t, ctypes.c_ulonglong, ctypes.c_ulonglong]


def _announce(action, ptr, size, pool):
    """To the C++ trackers: the pool as torch's MempoolId_t, a graph's
    private pool (capture id, 0), a graph_pool_handle() (0, id)."""
    if _cxx_trace is None:
        return
    from .npu import current_stream  # npu imports this module
    if pool is None:
        pool_id = (0, 0)
    elif pool[0] == "private":
        pool_id = (pool[1], 0)
    else:
        pool_id = pool
    _cxx_trace(action, ptr, size, current_stream().npu_stream, *pool_id)


BLOCK = 512
SEGMENT = 1 << 20

_lock = threading.Lock()
_segments = []  # bytearrays, never freed (aliases may outlive blocks)
_free = {}  # (pool, size) -> [offset addresses]
_bump = [None, 0]  # current segment, next free offset in it
_local = threading.local()


def set_capture_pool(pool):
    """The pool allocations of this thread come from (None: the default)."""
    _local.pool = pool


def _carve(size, pool):
    seg, used = _bump
    if seg is None or used + size > len(seg):
        seg = bytearray(max(SEGMENT, size))
        _segments.append(seg)
        _bump[0], _bump[1], used = seg, 0, 0
        fresh = True
    else:
        fresh = False
    _bump[1] = used + size
    base = ctypes.addressof((ctypes.c_char * len(seg)).from_buffer(seg))
    if fresh:
        _announce(SEGMENT_ALLOC, base, len(seg), pool)
    return seg, base, used


_where = {}  # address -> (segment, offset in it)


def empty(shape, dtype=torch.float32):
    """torch.empty(shape, device="npu"): a tensor owning one block."""
    numel = 1
    for n in shape:
        numel *= n
    nbytes = numel * torch.empty((), dtype=dtype).element_size()
    size = max(BLOCK, -(-nbytes // BLOCK) * BLOCK)
    pool = getattr(_local, "pool", None)
    with _lock:
        reuse = _free.get((pool, size))
        if reuse:
            ptr = reuse.pop()
            seg, offset = _where[ptr]
        else:
            seg, base, offset = _carve(size, pool)
            ptr = base + offset
            _where[ptr] = (seg, offset)
    view = memoryview(seg)[offset:offset + size]
    weakref.finalize(view, _release, ptr, pool, size).atexit = False
    t = torch.frombuffer(view, dtype=dtype)[:numel].view(*shape)
    del view
    _announce(ALLOC, ptr, size, pool)
    if _trace:
        _trace.fire_allocation(ptr)
    return t


def _release(ptr, pool, size):
    with _lock:
        _free.setdefault((pool, size), []).append(ptr)
    _announce(FREE_COMPLETED, ptr, size, pool)
    if _trace:
        _trace.fire_deallocation(ptr)


def alias(t):
    """A tensor over t's memory that owns none of it (from_blob without a
    deleter): the memory stays valid here since segments are never freed."""
    if t.numel() == 0:
        return t
    raw = (ctypes.c_char * (t.numel() * t.element_size())).from_address(t.data_ptr())
    return torch.frombuffer(raw, dtype=t.dtype).view(t.shape)
