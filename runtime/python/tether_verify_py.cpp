// tether_verify._native: the runtime verifier's Python binding (pybind11),
// re-exported by the tether_verify package (runtime/python/tether_verify/).
//
// A thin layer over the C ABI (tether/verify.h), so Python code and native
// code (an allocator hook, the ACL interposer) feed the same per-device
// ledgers in libtether_verify.so. The C++ part below is the event API on raw
// integers plus the callback bridge; the Python part (kPythonLayer, run in
// the module's namespace) accepts tensor-like objects and adds the capture
// context manager, the layer context manager and the weak-ref helper
// decorator.
#include "tether/verify.h"

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <mutex>
#include <string>

namespace py = pybind11;

namespace {

const void *vp(uintptr_t p) { return reinterpret_cast<const void *>(p); }

// One violation as Python sees it: plain attributes, copied out of the C
// struct (whose strings live only during the callback).
struct PyViolation {
  std::string check, kind, message, json;
  uint64_t graph;
  int32_t layer;
  int64_t key;
  uintptr_t begin;
  size_t size;
};

// The Python callback. Owned here (a new reference kept in a heap object
// that is released at interpreter exit, never destroyed after it).
std::mutex callbackMu;
py::object *callback = nullptr;

void trampoline(const tether_violation *v, void *) {
  // Violations may be found on any thread, with or without the GIL.
  py::gil_scoped_acquire gil;
  py::object fn;
  {
    std::lock_guard<std::mutex> lock(callbackMu);
    if (!callback)
      return;
    fn = *callback;
  }
  PyViolation pv{v->check,  v->kind,  v->message, v->json, v->graph,
                 v->layer,  v->key,   v->begin,   v->size};
  try {
    fn(pv);
  } catch (py::error_already_set &e) {
    // Never let a Python error unwind into the verifier or the host's
    // allocator: report it the way Python reports errors in callbacks.
    e.discard_as_unraisable("tether_verify callback");
  }
}

void setCallback(py::object fn) {
  py::object *old = nullptr;
  {
    std::lock_guard<std::mutex> lock(callbackMu);
    old = callback;
    callback = fn.is_none() ? nullptr : new py::object(std::move(fn));
  }
  tether_verify_set_callback(callback ? trampoline : nullptr, nullptr);
  delete old; // with the GIL held: we are called from Python
}

void setMode(const std::string &mode) {
  if (mode == "report")
    tether_verify_set_mode(TETHER_MODE_REPORT);
  else if (mode == "abort")
    tether_verify_set_mode(TETHER_MODE_ABORT);
  else
    throw py::value_error("mode must be 'report' or 'abort', not '" + mode +
                          "'");
}

// The tensor-accepting API, the capture and layer context managers and the
// weak-ref decorator. Plain Python: it only normalises arguments and calls
// the _c_* functions above.
const char *kPythonLayer = R"PY(
import functools as _functools
import weakref as _weakref


def _ptr(x):
    """A tensor-like's data pointer, an int as is, None as 0."""
    if x is None:
        return 0
    if isinstance(x, int):
        return x
    return int(x.data_ptr())


def _nbytes(x, size):
    """Bytes of the range: `size` if given, else the storage's size."""
    if size is not None:
        return int(size)
    if x is None:
        return 0
    if isinstance(x, int):
        raise ValueError("a plain pointer needs an explicit size")
    return int(x.untyped_storage().nbytes())


def _handle(x):
    """The object's identity; 0 ("unknown") for None and bare addresses."""
    if x is None or isinstance(x, int):
        return 0
    return id(x)


def _stream(s):
    """A stream as the verifier's id: an int, or a torch/torch_npu stream."""
    if s is None:
        return 0
    if isinstance(s, int):
        return s
    for attr in ("npu_stream", "cuda_stream"):
        v = getattr(s, attr, None)
        if isinstance(v, int):
            return v
    return id(s)


# Graph objects handed to capture(graph=...) -> (device, verifier graph id).
_graphs_weak = _weakref.WeakKeyDictionary()
_graphs_strong = {}


def _remember_graph(graph, device, gid):
    try:
        _graphs_weak[graph] = (device, gid)
    except TypeError:  # not weak-referenceable: keep it alive instead
        _graphs_strong[id(graph)] = (graph, device, gid)


def _graph_id(graph, device):
    if isinstance(graph, int):
        return device, graph
    try:
        found = _graphs_weak.get(graph)
    except TypeError:
        found = None
    if found is None and id(graph) in _graphs_strong:
        found = _graphs_strong[id(graph)][1:]
    if found is None:
        raise KeyError("graph was not captured under tether_verify.capture")
    return found


def alloc(ptr, size=None, stream=0, pool=0, device=0):
    """A block [ptr, ptr+size) was allocated (ptr may be a tensor-like)."""
    _c_alloc(device, _ptr(ptr), _nbytes(ptr, size), _stream(stream), pool)


def free(ptr, device=0):
    _c_free(device, _ptr(ptr))


def segment(ptr, size, device=0):
    _c_segment(device, _ptr(ptr), int(size))


def capture_begin(stream, device=0):
    return _c_capture_begin(device, _stream(stream))


def capture_end(stream, device=0):
    return _c_capture_end(device, _stream(stream))


def task_group_begin(stream, device=0):
    _c_task_group_begin(device, _stream(stream))


def task_group_end(stream, device=0):
    return _c_task_group_end(device, _stream(stream))


def task_uses(stream, tensor, size=None, device=0):
    """A captured task (or a task update) bakes in `tensor`'s memory."""
    _c_task_uses(device, _stream(stream), _ptr(tensor), _nbytes(tensor, size),
                 _handle(tensor))


def weak_ref(src, alias, size=None, device=0):
    """`alias` was made as a weak (non-owning) reference of `src`.

    src/alias: tensor-likes (data_ptr(), untyped_storage().nbytes()), or
    plain ints (data pointers; then `size` is required, and without object
    identities an alias of an alias cannot be told apart). A None source is
    an undefined tensor."""
    if src is None:
        _c_weak_ref(device, 0, _handle(alias), 0, 0)
        return
    _c_weak_ref(device, _handle(src), _handle(alias), _ptr(src),
                _nbytes(src, size))


def workspace(stream, layer, key, tensor, needed, size=None, device=0):
    """Layer `layer` takes shared workspace slot `key` (None clears it)."""
    _c_workspace(device, _stream(stream), layer, key, _ptr(tensor),
                 _nbytes(tensor, size), int(needed))


def stream_wait(waiter, signaler, device=0):
    _c_stream_wait(device, _stream(waiter), _stream(signaler))


def replay(graph, device=0):
    """Before a replay: `graph` is a verifier id or a captured graph object."""
    dev, gid = _graph_id(graph, device)
    _c_replay(dev, gid)


def task_update_begin(stream, task, device=0):
    _c_task_update_begin(device, _stream(stream), task)


def task_update_end(stream, device=0):
    _c_task_update_end(device, _stream(stream))


def graph_destroy(graph, device=0):
    dev, gid = _graph_id(graph, device)
    _c_graph_destroy(dev, gid)


class capture:
    """with tether_verify.capture(stream, graph=g): ... -- capture begin and
    end around the block. `graph` (optional, e.g. a torch.cuda.CUDAGraph) is
    remembered, so replay(g) and graph_destroy(g) can name it later; the
    verifier's graph id is `.id` once the block ends."""

    def __init__(self, stream, graph=None, device=0):
        self.stream = stream
        self.graph = graph
        self.device = device
        self.id = 0

    def __enter__(self):
        self.id = capture_begin(self.stream, self.device)
        return self

    def __exit__(self, exc_type, exc, tb):
        gid = capture_end(self.stream, self.device)
        if gid:
            self.id = gid
            if self.graph is not None:
                _remember_graph(self.graph, self.device, gid)
        return False


class layer:
    """with tether_verify.layer(3): events fed by this thread carry layer 3."""

    def __init__(self, index):
        self.index = index

    def __enter__(self):
        set_layer(self.index)
        return self

    def __exit__(self, exc_type, exc, tb):
        set_layer(-1)
        return False


def _pairs(src, out):
    if isinstance(src, (list, tuple)) and isinstance(out, (list, tuple)):
        for s, o in zip(src, out):
            yield from _pairs(s, o)
    elif isinstance(src, dict) and isinstance(out, dict):
        for k in src:
            if k in out:
                yield from _pairs(src[k], out[k])
    elif hasattr(src, "tensors") and hasattr(out, "tensors"):
        yield from _pairs(src.tensors, out.tensors)  # IntermediateTensors
    else:
        yield src, out


def weak_ref_helper(fn=None, *, device=0):
    """Decorator for a weak-ref helper such as vLLM Ascend's
    weak_ref_tensors: after each call, every (input, output) tensor pair --
    through lists, tuples, dicts and IntermediateTensors -- is reported as
    weak_ref(input, output). Inputs that are None are reported as weak
    references of an undefined tensor."""

    def wrap(f):
        @_functools.wraps(f)
        def wrapper(tensors, *args, **kwargs):
            result = f(tensors, *args, **kwargs)
            for src, alias in _pairs(tensors, result):
                if src is None or hasattr(src, "data_ptr"):
                    weak_ref(src, alias, device=device)
            return result

        wrapper.__wrapped_weak_ref_helper__ = f
        return wrapper

    return wrap if fn is None else wrap(fn)
)PY";

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "tether runtime verifier: Python binding over the C API "
            "(libtether_verify.so)";

  py::class_<PyViolation>(m, "Violation")
      .def_readonly("check", &PyViolation::check)
      .def_readonly("kind", &PyViolation::kind)
      .def_readonly("message", &PyViolation::message)
      .def_readonly("json", &PyViolation::json)
      .def_readonly("graph", &PyViolation::graph)
      .def_readonly("layer", &PyViolation::layer)
      .def_readonly("key", &PyViolation::key)
      .def_readonly("begin", &PyViolation::begin)
      .def_readonly("size", &PyViolation::size)
      .def("__repr__", [](const PyViolation &v) {
        return "<Violation " + v.check + "/" + v.kind + ">";
      });

  m.attr("API_VERSION") = TETHER_VERIFY_API_VERSION;
  m.def("api_version", &tether_verify_api_version);
  m.def("enabled", [] { return tether_verify_enabled() != 0; });
  m.def("violation_count", &tether_verify_violation_count);
  m.def("set_mode", &setMode, py::arg("mode"),
        "'report' (log, JSON lines, keep running) or 'abort'");
  m.def("set_callback", &setCallback, py::arg("fn"),
        "fn(violation) for every violation; None removes it");
  m.def("set_layer", &tether_verify_set_layer, py::arg("layer"));

  // The raw event API. The C calls never throw and never block on Python;
  // the GIL is released so other Python threads run meanwhile.
  using gil = py::call_guard<py::gil_scoped_release>;
  m.def("_c_alloc", [](int d, uintptr_t p, size_t n, uintptr_t s, uint64_t pool) {
    tether_verify_alloc(d, vp(p), n, vp(s), pool);
  }, gil());
  m.def("_c_free", [](int d, uintptr_t p) { tether_verify_free(d, vp(p)); },
        gil());
  m.def("_c_segment", [](int d, uintptr_t p, size_t n) {
    tether_verify_segment(d, vp(p), n);
  }, gil());
  m.def("_c_capture_begin", [](int d, uintptr_t s) {
    return tether_verify_capture_begin(d, vp(s));
  }, gil());
  m.def("_c_capture_end", [](int d, uintptr_t s) {
    return tether_verify_capture_end(d, vp(s));
  }, gil());
  m.def("_c_task_group_begin", [](int d, uintptr_t s) {
    tether_verify_task_group_begin(d, vp(s));
  }, gil());
  m.def("_c_task_group_end", [](int d, uintptr_t s) {
    return tether_verify_task_group_end(d, vp(s));
  }, gil());
  m.def("_c_task_uses", [](int d, uintptr_t s, uintptr_t p, size_t n,
                           uintptr_t h) {
    tether_verify_task_uses(d, vp(s), vp(p), n, vp(h));
  }, gil());
  m.def("_c_weak_ref", [](int d, uintptr_t src, uintptr_t alias, uintptr_t p,
                          size_t n) {
    tether_verify_weak_ref(d, vp(src), vp(alias), vp(p), n);
  }, gil());
  m.def("_c_workspace", [](int d, uintptr_t s, int32_t layer, int64_t key,
                           uintptr_t p, size_t n, size_t needed) {
    tether_verify_workspace(d, vp(s), layer, key, vp(p), n, needed);
  }, gil());
  m.def("_c_stream_wait", [](int d, uintptr_t w, uintptr_t s) {
    tether_verify_stream_wait(d, vp(w), vp(s));
  }, gil());
  m.def("_c_replay", [](int d, uint64_t g) { tether_verify_replay(d, g); },
        gil());
  m.def("_c_task_update_begin", [](int d, uintptr_t s, uint64_t t) {
    tether_verify_task_update_begin(d, vp(s), t);
  }, gil());
  m.def("_c_task_update_end", [](int d, uintptr_t s) {
    tether_verify_task_update_end(d, vp(s));
  }, gil());
  m.def("_c_graph_destroy", [](int d, uint64_t g) {
    tether_verify_graph_destroy(d, g);
  }, gil());

  // Drop the callback before the interpreter goes away: the verifier's own
  // exit summary runs after it and must not call into Python.
  py::module_::import("atexit").attr("register")(
      py::cpp_function([] { setCallback(py::none()); }));

  py::exec(kPythonLayer, m.attr("__dict__"));
}
