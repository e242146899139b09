"""Block events from the caching allocator.

First choice, the C++ trace adapter (_adapter): sizes, streams and pools
from attachAllocatorTraceTracker. Else torch's own Python trace hooks:
torch (torch.utils._cuda_trace, torch.cuda._gpu_trace) and torch_npu
(torch_npu.utils._npu_trace) call Python back on every block the caching
allocator hands out or takes back, once the trace is activated. The
callbacks carry the block's address only: blocks are known to the ledger by
their first byte, and every tensor event names its storage's first byte, so
they meet there.
"""
import sys

from . import _adapter
from . import _native
from . import _state

# (trace module, allocation registrar, deallocation registrar, activator in
# torch's or torch_npu's _C), per backend, newest first.
_TRACES = {
    "npu": [("torch_npu.utils._npu_trace",
             "register_callback_for_npu_memory_allocation",
             "register_callback_for_npu_memory_deallocation",
             ("torch_npu._C", "_activate_npu_trace"))],
    "cuda": [("torch.cuda._gpu_trace",
              "register_callback_for_memory_allocation",
              "register_callback_for_memory_deallocation",
              ("torch._C", "_activate_gpu_trace")),
             ("torch.utils._cuda_trace",
              "register_callback_for_cuda_memory_allocation",
              "register_callback_for_cuda_memory_deallocation",
              ("torch._C", "_activate_cuda_trace"))],
}

attached = set()  # backends whose allocator feeds the ledger
adapted = set()  # ... through the C++ adapter (no Python hooks then)
_no_adapter = {}  # backend -> why the adapter is not attached
_warned = False


def _on_alloc(ptr):
    stream, pool = _state.allocation_context()
    _native._c_alloc(0, int(ptr), 1, stream, pool)


def _on_free(ptr):
    _native._c_free(0, int(ptr))


def attach(backend):
    """Feed the ledger from `backend`'s allocator if torch can; True if so."""
    if backend in attached:
        return True
    # The adapter first: with it, the Python hooks are not registered, so
    # no block is fed twice. Tried once per backend (a compile may fail).
    if backend not in _no_adapter:
        reason = _adapter.attach(backend)
        if reason is None:
            attached.add(backend)
            adapted.add(backend)
            return True
        _no_adapter[backend] = reason
    for module_name, on_alloc, on_free, (c_module, activate) in _TRACES[backend]:
        trace = _import(module_name)
        if trace is None or not hasattr(trace, on_alloc):
            continue
        getattr(trace, on_alloc)(_on_alloc)
        getattr(trace, on_free)(_on_free)
        activator = getattr(_import(c_module), activate, None)
        if activator is not None:
            activator()
        attached.add(backend)
        return True
    return False


def _import(name):
    if name in sys.modules:
        return sys.modules[name]
    try:
        __import__(name)
    except Exception:  # absent, or broken without a device: no trace
        return None
    return sys.modules.get(name)


def warn_if_blind(backend):
    """Once per run: what cannot be seen without the adapter, or without any
    block events, and what was missing."""
    global _warned
    if _warned or backend in adapted:
        return
    _warned = True
    no_adapter = _no_adapter.get(backend, "not tried")
    if backend in attached:
        line = (
            "tether_verify: no C++ allocator trace for torch.%s (%s): blocks "
            "come from torch's Python trace hooks, which give no sizes, so "
            "a block is known by its first byte (reports say 1 B) and "
            "tether-weak-ref-before-capture-end [pinned-range-taken] misses a "
            "block that takes a pinned range from below its start; the other "
            "checks are reported" % (backend, no_adapter))
    else:
        tried = " or ".join(t[0] for t in _TRACES.get(backend, []))
        line = (
            "tether_verify: no allocator trace for torch.%s (%s not available; "
            "no C++ trace adapter: %s): blocks freed or reused during capture "
            "are not seen, so tether-weak-ref-before-capture-end cannot be "
            "reported; tether-double-weak-ref and tether-weak-ref-of-maybe-null "
            "still are" % (backend, tried or "no trace hooks known", no_adapter))
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
