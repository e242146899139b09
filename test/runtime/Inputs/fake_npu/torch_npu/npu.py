"""torch.npu / torch_npu.npu: streams, graphs, task groups and updates.

Capture records each op as a host "kernel" (a closure over non-owning
aliases of its tensors, as a real task holds raw addresses) instead of
running it; replay runs the kernels in order. A task group's kernels are
re-recorded by a task update (new arguments for the same task).
"""
import itertools
import threading

from . import _allocator

_ids = itertools.count(0x1000)
_local = threading.local()


class Stream:
    def __init__(self):
        self.npu_stream = next(_ids)


_default_stream = Stream()


def current_stream():
    return getattr(_local, "stream", _default_stream)


def set_stream(s):
    _local.stream = s


def synchronize():
    pass


class _StreamContext:
    def __init__(self, s):
        self.stream = s

    def __enter__(self):
        self.prev = current_stream()
        if self.stream is not None:
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        set_stream(self.prev)
        return False


def stream(s):
    return _StreamContext(s)


def graph_pool_handle():
    return (0, next(_ids))


class NPUGraph:
    def __init__(self):
        self.kernels = []  # [callable] in launch order
        self.groups = {}  # task group handle -> its kernels' indices

    def capture_begin(self, pool=None):
        if getattr(_local, "capturing", None) is not None:
            raise RuntimeError("nested capture")
        self.stream = current_stream()
        _local.capturing = self
        _allocator.set_capture_pool(pool if pool is not None else ("private", id(self)))

    def capture_end(self):
        _local.capturing = None
        _allocator.set_capture_pool(None)

    def replay(self):
        for kernel in self.kernels:
            kernel()

    def reset(self):
        self.kernels = []
        self.groups = {}


class graph:
    """with torch.npu.graph(g, pool=...): capture on a side stream."""

    def __init__(self, npu_graph, pool=None, stream=None):
        self.npu_graph = npu_graph
        self.pool = pool
        self.stream_ctx = _StreamContext(stream or Stream())

    def __enter__(self):
        self.stream_ctx.__enter__()
        self.npu_graph.capture_begin(pool=self.pool)
        return self

    def __exit__(self, *exc):
        self.npu_graph.capture_end()
        self.stream_ctx.__exit__(*exc)
        return False


class _TaskGroupHandle:
    pass


def capturing_graph():
    return getattr(_local, "capturing", None)


def launch(kernel):
    """An op's kernel: recorded during capture, re-recorded in a task update,
    run at once otherwise."""
    g = capturing_graph()
    update = getattr(_local, "update", None)
    if g is not None:
        g.kernels.append(kernel)
        group = getattr(_local, "group", None)
        if group is not None:
            group[1].append(len(g.kernels) - 1)
    elif update is not None:
        g, handle, n = update
        g.kernels[g.groups[handle][n]] = kernel
        _local.update = (g, handle, n + 1)
    else:
        kernel()


def graph_task_group_begin(stream):
    _local.group = (capturing_graph(), [])


def graph_task_group_end(stream):
    g, indices = _local.group
    _local.group = None
    handle = _TaskGroupHandle()
    g.groups[handle] = indices
    handle.graph = g
    return handle


def graph_task_update_begin(stream, handle):
    _local.update = (handle.graph, handle, 0)


def graph_task_update_end(stream):
    _local.update = None
