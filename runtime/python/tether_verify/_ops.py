"""Task uses: the tensors a captured (or updated) task bakes in.

While a capture or a task update runs on this thread, a TorchFunctionMode
sees every torch function and overridable op called at the program's level
(torch_npu's and torch's ops go through __torch_function__; the mode is off
inside them, so an op's own internals are not seen) and reports each tensor
argument and result as used by the task on the current stream.
"""
import threading

from . import _native
from . import _state

_local = threading.local()


def storage_range(t):
    """(first byte, bytes) of a tensor's storage: blocks are known by their
    first byte (see _allocator)."""
    try:
        s = t.untyped_storage()
    except AttributeError:  # torch < 2.0
        s = t.storage()
    return int(s.data_ptr()), int(s.nbytes())


def _tensors(values, torch, depth=0):
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif depth < 2 and isinstance(v, (list, tuple)):
            yield from _tensors(v, torch, depth + 1)
        elif depth < 2 and isinstance(v, dict):
            yield from _tensors(v.values(), torch, depth + 1)


def _mode_class():
    import torch
    from torch.overrides import TorchFunctionMode

    class TaskUses(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if _state.in_weak_ref_helper():
                return func(*args, **kwargs)
            stream = _state.current_stream()
            for t in _tensors((args, kwargs), torch):
                _use(stream, t)
            out = func(*args, **kwargs)
            for t in _tensors((out,), torch):
                _use(stream, t)
            return out

    return TaskUses


def _use(stream, t):
    ptr, size = storage_range(t)
    if size:
        _native._c_task_uses(0, stream, ptr, size, id(t))


_TaskUses = None


def available():
    global _TaskUses
    if _TaskUses is None:
        try:
            _TaskUses = _mode_class()
        except ImportError:  # torch without TorchFunctionMode (< 1.13)
            _TaskUses = False
    return bool(_TaskUses)


def start():
    """Report task uses on this thread until stop()."""
    if not available():
        return
    stack = getattr(_local, "modes", None)
    if stack is None:
        stack = _local.modes = []
    mode = _TaskUses()
    mode.__enter__()
    stack.append(mode)


def stop():
    stack = getattr(_local, "modes", None)
    if stack:
        stack.pop().__exit__(None, None, None)
