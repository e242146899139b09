"""The hooks `python3 -m tether_verify run` installs in an unmodified program.

Names come from tether's catalog (_catalog.py, generated from the static
checks' defaults): the weak-ref helpers are wrapped in the modules that
define them as soon as those are imported, so every later `from M import
helper` gets the wrapper; the graph classes of the capture contexts' modules
(`capture_begin`/`capture_end` methods, the catalog's capture pair) get
`capture_begin`, `capture_end`, `replay` and `reset` wrapped, the capture
contexts themselves `__enter__`/`__exit__`, the stream switches push the
stream events are on, and torch_npu's task-group functions feed task groups
and updates. Block events come from the allocator (_allocator), task uses
from the op hook (_ops). Everything goes to the native ledger through the
binding's C-level calls.
"""
import functools
import sys

from . import _allocator, _imports, _native, _ops, _state

try:
    from . import _catalog
except ImportError:  # a standalone runtime build has no catalog
    _catalog = None

# torch_npu's Python names for ACL's aclmdlRICaptureTaskGrpBegin/End and
# aclmdlRICaptureTaskUpdateBegin/End (the catalog's C++ capture pair).
TASK_FUNCTIONS = ("graph_task_group_begin", "graph_task_group_end",
                  "graph_task_update_begin", "graph_task_update_end")
_wrapped = {}  # id(original) -> wrapper, so one object is wrapped once
_pending = []  # (qualified name, how to hook it) not importable yet
_suffixes = []  # unanchored weak-ref names: matched in every module
_graph_modules = []  # modules holding the graph classes and task functions
_resolving = []  # non-empty while _on_import resolves the pending names


def _is_python_name(p):
    return "::" not in p and not any(c in p for c in "*?[")


def _backend_of(obj):
    module = getattr(type(obj), "__module__", "") or ""
    return "cuda" if "cuda" in module else "npu"


def _resolve(qualified):
    """(parent, attribute name, object) for an imported dotted name."""
    parts = qualified.lstrip(".").split(".")
    for cut in range(len(parts) - 1, 0, -1):
        root = sys.modules.get(".".join(parts[:cut]))
        if root is None:
            continue
        obj, parent = root, None
        try:
            for attr in parts[cut:]:
                parent, obj = obj, getattr(obj, attr)
        except Exception:  # not there (yet): an op not registered, ...
            return None
        return parent, parts[-1], obj
    return None


def _replace(parent, attr, obj, make):
    wrapper = _wrapped.get(id(obj))
    if wrapper is None:
        if getattr(obj, "__tether_verify_wrapped__", False):
            return
        wrapper = make(obj)
        wrapper.__tether_verify_wrapped__ = True
        _wrapped[id(obj)] = wrapper
        _wrapped[id(wrapper)] = wrapper
    try:
        setattr(parent, attr, wrapper)
    except (AttributeError, TypeError):
        pass  # a read-only extension type: left as it is


# ---- weak-ref helpers -------------------------------------------------------

def _weak_ref_wrapper(fn):
    @functools.wraps(fn)
    def weak_ref_helper(*args, **kwargs):
        with _state.weak_ref_helper_call() as outermost:
            result = fn(*args, **kwargs)
        if outermost and args:
            _report_weak_refs(args[0], result)
        return result

    return weak_ref_helper


def _report_weak_refs(src, result):
    for s, alias in _native._pairs(src, result):
        if s is None:
            _native._c_weak_ref(0, 0, 0 if alias is None else id(alias), 0, 0)
        elif hasattr(s, "data_ptr"):
            ptr, size = _ops.storage_range(s)
            _native._c_weak_ref(0, id(s), id(alias), ptr, size)


# ---- captures and graphs ----------------------------------------------------

def _stream_of(stream):
    if stream is None:
        return _state.current_stream()
    return _native._stream(stream)


def _backend_current_stream(backend):
    device = getattr(sys.modules.get("torch"), backend, None)
    try:
        return _native._stream(device.current_stream())
    except Exception:
        return 0


def _begin(owner, pool, backend):
    if _state.capture() is not None:
        return  # the graph's capture_begin, inside its context, began it
    _allocator.attach(backend)
    _allocator.warn_if_blind(backend)
    stream = _state.current_stream(default=None)
    if stream is None:
        stream = _backend_current_stream(backend)
    gid = _native._c_capture_begin(0, stream)
    _state.set_capture(_state.Capture(gid, stream, _state.pool_id(pool), owner))
    _ops.start()


def _end(owner):
    c = _state.capture()
    if c is None or c.owner is not owner:
        return
    _ops.stop()
    _state.set_capture(None)
    gid = _native._c_capture_end(0, c.stream)
    if gid:
        _native._remember_graph(owner, 0, gid)


def _pool_argument(args, kwargs):
    if "pool" in kwargs:
        return kwargs["pool"]
    return args[0] if args else None


def _wrap_graph_class(cls):
    def capture_begin(orig):
        @functools.wraps(orig)
        def wrapper(self, *args, **kwargs):
            result = orig(self, *args, **kwargs)
            _begin(self, _pool_argument(args, kwargs), _backend_of(self))
            return result
        return wrapper

    def capture_end(orig):
        @functools.wraps(orig)
        def wrapper(self, *args, **kwargs):
            try:
                return orig(self, *args, **kwargs)
            finally:
                _end(self)
        return wrapper

    def replay(orig):
        @functools.wraps(orig)
        def wrapper(self, *args, **kwargs):
            try:
                _native.replay(self)
            except KeyError:
                pass  # captured before the hooks were installed
            return orig(self, *args, **kwargs)
        return wrapper

    def reset(orig):
        @functools.wraps(orig)
        def wrapper(self, *args, **kwargs):
            try:
                _native.graph_destroy(self)
            except KeyError:
                pass
            return orig(self, *args, **kwargs)
        return wrapper

    for name, make in (("capture_begin", capture_begin),
                       ("capture_end", capture_end), ("replay", replay),
                       ("reset", reset)):
        orig = cls.__dict__.get(name)
        if orig is not None:
            _replace(cls, name, orig, make)


def _wrap_capture_context(cls):
    """A capture context whose graph class is not wrapped still begins and
    ends a capture; with a wrapped graph class, the graph's calls do."""
    enter, exit_ = cls.__dict__.get("__enter__"), cls.__dict__.get("__exit__")
    if enter is None or exit_ is None:
        return

    def make_enter(orig):
        @functools.wraps(orig)
        def __enter__(self):
            result = orig(self)
            _begin(self, getattr(self, "pool", None), _backend_of(self))
            return result
        return __enter__

    def make_exit(orig):
        @functools.wraps(orig)
        def __exit__(self, *exc):
            try:
                return orig(self, *exc)
            finally:
                _end(self)
        return __exit__

    _replace(cls, "__enter__", enter, make_enter)
    _replace(cls, "__exit__", exit_, make_exit)


# ---- task groups and updates ------------------------------------------------

def _task_wrapper(name):
    def make(orig):
        @functools.wraps(orig)
        def wrapper(*args, **kwargs):
            stream = _stream_of(args[0] if args else kwargs.get("stream"))
            if name == "graph_task_group_begin":
                _native._c_task_group_begin(0, stream)
                return orig(*args, **kwargs)
            if name == "graph_task_group_end":
                handle = orig(*args, **kwargs)
                task = _native._c_task_group_end(0, stream)
                if task:
                    _state.tasks[id(handle)] = (handle, task)
                return handle
            if name == "graph_task_update_begin":
                handle = args[1] if len(args) > 1 else kwargs.get("handle")
                result = orig(*args, **kwargs)
                _, task = _state.tasks.get(id(handle), (None, 0))
                _native._c_task_update_begin(0, stream, task)
                _state.streams().append(stream)
                _ops.start()
                return result
            # graph_task_update_end
            _ops.stop()
            streams = _state.streams()
            if streams:
                streams.pop()
            try:
                return orig(*args, **kwargs)
            finally:
                _native._c_task_update_end(0, stream)
        return wrapper
    return make


# ---- stream switches --------------------------------------------------------

class _StreamSwitch:
    def __init__(self, inner, stream):
        self._inner = inner
        self._stream = stream

    def __enter__(self):
        result = self._inner.__enter__()
        if self._stream is not None:
            _state.streams().append(_native._stream(self._stream))
        return result

    def __exit__(self, *exc):
        if self._stream is not None:
            streams = _state.streams()
            if streams:
                streams.pop()
        return self._inner.__exit__(*exc)


def _stream_switch_wrapper(orig):
    @functools.wraps(orig)
    def stream(s, *args, **kwargs):
        return _StreamSwitch(orig(s, *args, **kwargs), s)
    return stream


# ---- wiring -----------------------------------------------------------------

def _hook(qualified, kind):
    found = _resolve(qualified)
    if found is None:
        return False
    parent, attr, obj = found
    if kind == "weak_ref" and callable(obj) and not isinstance(obj, type):
        _replace(parent, attr, obj, _weak_ref_wrapper)
    elif kind == "stream_switch" and callable(obj) and not isinstance(obj, type):
        _replace(parent, attr, obj, _stream_switch_wrapper)
    elif kind == "capture_context" and isinstance(obj, type):
        _wrap_capture_context(obj)
    elif kind == "graph_module":
        _hook_graph_module(obj)
    return True


def _hook_graph_module(module):
    if any(m is module for m in _graph_modules):
        return
    _graph_modules.append(module)
    begins = [n for n in _catalog.CAPTURE_BEGINS if n.islower()]
    ends = [n for n in _catalog.CAPTURE_ENDS if n.islower()]
    for name, obj in list(vars(module).items()):
        if isinstance(obj, type) and any(b in vars(obj) for b in begins) and \
                any(e in vars(obj) for e in ends):
            _wrap_graph_class(obj)
        elif name in TASK_FUNCTIONS and callable(obj):
            _replace(module, name, obj, _task_wrapper(name))


def _on_import(module):
    name = getattr(module, "__name__", "")
    if name.startswith("tether_verify"):
        return
    namespace = getattr(module, "__dict__", {})
    for suffix in _suffixes:
        obj = namespace.get(suffix)
        if callable(obj) and not isinstance(obj, type):
            _replace(module, suffix, obj, _weak_ref_wrapper)
    # Resolving a name may import modules (lazy attributes): those nested
    # imports leave the list to the outer call, which sees them resolved.
    if not _resolving:
        _resolving.append(True)
        try:
            _pending[:] = [(q, k) for q, k in list(_pending) if not _hook(q, k)]
        finally:
            _resolving.clear()
    if name == "torch_npu":
        _allocator.attach("npu")


def install():
    """Install the hooks for every later import (and modules already in)."""
    if _catalog is None:
        raise RuntimeError("this tether_verify has no catalog (a standalone "
                           "runtime build); build it with tether's top level")
    for p in _catalog.WEAK_REF_FUNCTIONS:
        if not _is_python_name(p):
            continue
        if "." in p:
            _pending.append((p, "weak_ref"))
        else:
            _suffixes.append(p)
    for p in _catalog.CAPTURE_CONTEXTS:
        if _is_python_name(p) and "." in p:
            _pending.append((p.rsplit(".", 1)[0], "graph_module"))
            _pending.append((p, "capture_context"))
    for p in _catalog.STREAM_SWITCHES:
        if _is_python_name(p) and "." in p:
            _pending.append((p, "stream_switch"))
    _imports.after_import(_on_import)
    _imports.install()
    for module in list(sys.modules.values()):
        if module is not None:
            _on_import(module)
