"""What the hooks know about the running program, per thread.

The capture a thread runs (its verifier graph id, stream and pool), the
streams it switched to, and the task groups it ended: the allocator
callbacks and op hooks read it to name the stream and pool of an event
without calling back into torch.
"""
import itertools
import threading

_local = threading.local()
_private_pools = itertools.count(1)
tasks = {}  # id(task group handle) -> (handle kept alive, verifier task id)


class Capture:
    def __init__(self, graph_id, stream, pool, owner):
        self.graph_id = graph_id
        self.stream = stream
        self.pool = pool
        self.owner = owner  # the graph object or context that began it


def capture():
    """The capture this thread runs, or None."""
    return getattr(_local, "capture", None)


def set_capture(c):
    _local.capture = c


def streams():
    s = getattr(_local, "streams", None)
    if s is None:
        s = _local.streams = []
    return s


def current_stream(default=0):
    """The stream events of this thread are on: the innermost stream switch,
    else the stream of its capture, else `default`."""
    s = streams()
    if s:
        return s[-1]
    c = capture()
    return c.stream if c is not None else default


def allocation_context():
    """(stream, pool) of an allocation made by this thread now."""
    c = capture()
    if c is None:
        return current_stream(), 0
    return current_stream(), c.pool


def pool_id(pool):
    """A graph pool handle as an int: torch's (id, id) pairs like the C++
    trace adapter folds them, other objects by identity; a capture without
    one gets a private pool of its own."""
    if pool is None:
        return (1 << 62) | next(_private_pools)
    if isinstance(pool, int):
        return pool
    if isinstance(pool, (tuple, list)) and len(pool) == 2 and all(
            isinstance(x, int) for x in pool):
        a, b = pool
        return a if a else ((b | (1 << 63)) if b else 0)
    return id(pool)


def in_weak_ref_helper():
    return getattr(_local, "weak_ref_depth", 0) > 0


class weak_ref_helper_call:
    """with weak_ref_helper_call() as outermost: ... -- nested helpers (a
    helper calling the primitive, both wrapped) report once, outermost."""

    def __enter__(self):
        depth = getattr(_local, "weak_ref_depth", 0)
        _local.weak_ref_depth = depth + 1
        return depth == 0

    def __exit__(self, *exc):
        _local.weak_ref_depth -= 1
        return False
