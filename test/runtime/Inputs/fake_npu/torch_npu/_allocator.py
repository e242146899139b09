"""A caching allocator over host memory, shaped like torch_npu's.

Blocks are 512-byte multiples carved from 1 MiB segments. A block is freed
when the last tensor over its storage dies (the storage releases the
memoryview it was made from), and goes back to the free list of its pool;
the next allocation of that size from the same pool gets it back (last
freed, first reused). Allocations made while a graph captures on this
thread come from the graph's pool, as in torch's private graph pools. Every
allocation and free is announced through utils._npu_trace, as torch_npu's
allocator does once the trace is activated.
"""
import ctypes
import threading
import weakref

import torch

try:
    from .utils import _npu_trace as _trace
except ImportError:  # hidden: a torch_npu without trace hooks
    _trace = None

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


def _carve(size):
    seg, used = _bump
    if seg is None or used + size > len(seg):
        seg = bytearray(max(SEGMENT, size))
        _segments.append(seg)
        _bump[0], _bump[1], used = seg, 0, 0
    _bump[1] = used + size
    base = ctypes.addressof((ctypes.c_char * len(seg)).from_buffer(seg))
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
            seg, base, offset = _carve(size)
            ptr = base + offset
            _where[ptr] = (seg, offset)
    view = memoryview(seg)[offset:offset + size]
    weakref.finalize(view, _release, ptr, pool, size).atexit = False
    t = torch.frombuffer(view, dtype=dtype)[:numel].view(*shape)
    del view
    if _trace:
        _trace.fire_allocation(ptr)
    return t


def _release(ptr, pool, size):
    with _lock:
        _free.setdefault((pool, size), []).append(ptr)
    if _trace:
        _trace.fire_deallocation(ptr)


def alias(t):
    """A tensor over t's memory that owns none of it (from_blob without a
    deleter): the memory stays valid here since segments are never freed."""
    if t.numel() == 0:
        return t
    raw = (ctypes.c_char * (t.numel() * t.element_size())).from_address(t.data_ptr())
    return torch.frombuffer(raw, dtype=t.dtype).view(t.shape)
