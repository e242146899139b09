"""The runtime verifier's Python binding, end to end through the C API.

Run by ctest with the system interpreter and PYTHONPATH=<build>/lib. torch is
not needed: the fake tensors below expose what the binding reads from a
torch tensor (data_ptr(), untyped_storage().nbytes()).
"""
import itertools
import sys
import unittest

import tether_verify as tv

WEAK_REF_BEFORE_END = "tether-weak-ref-before-capture-end"
DOUBLE_WEAK_REF = "tether-double-weak-ref"
MAYBE_NULL = "tether-weak-ref-of-maybe-null"
DIES_BEFORE_REPLAY = "tether-graph-memory-dies-before-replay"


class FakeStorage:
    def __init__(self, nbytes):
        self._nbytes = nbytes

    def nbytes(self):
        return self._nbytes


class FakeTensor:
    def __init__(self, ptr, nbytes):
        self._ptr = ptr
        self._nbytes = nbytes

    def data_ptr(self):
        return self._ptr

    def untyped_storage(self):
        return FakeStorage(self._nbytes)


class FakeGraph:
    """Stands in for torch.npu.NPUGraph / torch.cuda.CUDAGraph."""


def _weak(t):
    return None if t is None else FakeTensor(t.data_ptr(), t.untyped_storage().nbytes())


@tv.weak_ref_helper
def weak_ref_tensors(tensors):
    """vLLM Ascend's helper, minus torch: non-owning views of tensors."""
    if isinstance(tensors, (list, tuple)):
        return type(tensors)(_weak(t) for t in tensors)
    return _weak(tensors)


# The verifier is process-wide: each test takes fresh addresses and streams.
_regions = itertools.count(1)


def fresh():
    n = next(_regions)
    return (1 << 40) + (n << 24), 0x1000 + n, 100 + n  # base, stream, pool


class BindingTest(unittest.TestCase):
    def setUp(self):
        self.seen = []
        tv.set_mode("report")
        tv.set_callback(self.seen.append)

    def tearDown(self):
        tv.set_callback(None)

    def checks(self):
        return [(v.check, v.kind) for v in self.seen]

    def capture_workspace(self, buggy):
        """vLLM Ascend's shared attention workspace, captured in one graph."""
        base, stream, pool = fresh()
        graph = FakeGraph()
        with tv.capture(stream, graph=graph) as cap:
            with tv.layer(0):
                tv.alloc(base, 4096, stream=stream, pool=pool)
                ws = FakeTensor(base, 4096)
                # The bug: only a weak alias goes into the cache during capture.
                cached = weak_ref_tensors(ws) if buggy else ws
                tv.workspace(stream, 0, 8, cached, 4096)
                tv.task_group_begin(stream)
                tv.task_uses(stream, cached)
                task = tv.task_group_end(stream)
                self.assertNotEqual(task, 0)
                if buggy:
                    tv.free(ws)  # the layer's frame returns
                    # the next layer's activation is handed the same block
                    tv.alloc(base, 4096, stream=stream, pool=pool)
        self.assertNotEqual(cap.id, 0)
        if not buggy:
            weak_ref_tensors(ws)  # the fix: weaken once the capture ended
        tv.replay(graph)
        return cap

    def test_buggy_workspace_is_reported_through_the_callback(self):
        before = tv.violation_count()
        cap = self.capture_workspace(buggy=True)
        self.assertEqual(self.checks(), [(WEAK_REF_BEFORE_END, "reused")])
        v = self.seen[0]
        self.assertEqual(v.graph, cap.id)
        self.assertEqual(v.key, 8)
        self.assertEqual(v.layer, 0)
        self.assertEqual(v.size, 4096)
        self.assertIn("handed to a new allocation", v.message)
        self.assertIn('"violation": "%s"' % WEAK_REF_BEFORE_END, v.json)
        self.assertEqual(tv.violation_count(), before + 1)

    def test_fixed_workspace_reports_nothing(self):
        before = tv.violation_count()
        self.capture_workspace(buggy=False)
        self.assertEqual(self.checks(), [])
        self.assertEqual(tv.violation_count(), before)

    def test_weak_ref_of_an_undefined_tensor(self):
        base, _, _ = fresh()
        tv.alloc(base, 1024)
        out = weak_ref_tensors([FakeTensor(base, 1024), None])
        self.assertIsNone(out[1])
        self.assertEqual(self.checks(), [(MAYBE_NULL, "undefined-source")])

    def test_weak_ref_of_a_weak_ref(self):
        base, _, _ = fresh()
        tv.alloc(base, 1024)
        t = FakeTensor(base, 1024)
        alias = weak_ref_tensors(t)
        weak_ref_tensors((t,))  # a second alias of the strong tensor: fine
        self.assertEqual(self.checks(), [])
        weak_ref_tensors(alias)
        self.assertEqual(self.checks(), [(DOUBLE_WEAK_REF, "alias-of-alias")])

    def test_plain_pointers(self):
        base, _, _ = fresh()
        tv.alloc(base, 256)
        # Without object identities two weak refs of one address are not
        # an alias of an alias.
        tv.weak_ref(base, base, 256)
        tv.weak_ref(base, base, 256)
        self.assertEqual(self.checks(), [])
        tv.weak_ref(0, 0, 0)
        self.assertEqual(self.checks(), [(MAYBE_NULL, "undefined-source")])
        with self.assertRaises(ValueError):
            tv.weak_ref(base, base)  # a bare pointer has no size

    def test_pinned_range_taken_at_replay_of_a_graph_object(self):
        base, stream, pool = fresh()
        graph = FakeGraph()
        with tv.capture(stream, graph=graph):
            tv.alloc(base, 2048, stream=stream)  # the capture's own memory
            tv.task_uses(stream, base, 2048)
        tv.free(base)
        tv.alloc(base, 2048, stream=stream + 0x100000)  # someone else's now
        self.assertEqual(self.checks(), [])
        tv.replay(graph)
        self.assertEqual(self.checks(), [(WEAK_REF_BEFORE_END, "pinned-range-taken")])
        tv.graph_destroy(graph)

    def test_runner_input_freed_while_the_graph_lives(self):
        base, stream, pool = fresh()
        tv.alloc(base, 2048, stream=stream)  # a runner input, outside the graph
        graph = FakeGraph()
        with tv.capture(stream, graph=graph):
            tv.task_uses(stream, base, 2048)
        tv.free(base)
        self.assertEqual(self.checks(), [])
        tv.replay(graph)
        self.assertEqual(self.checks(), [(DIES_BEFORE_REPLAY, "out-of-pool-freed")])
        tv.graph_destroy(graph)

    def test_update_buffer_freed_before_replay_and_kept_with_the_graph(self):
        base, stream, pool = fresh()
        update_stream = stream + 0x100000
        graph = FakeGraph()
        with tv.capture(stream, graph=graph):
            tv.alloc(base, 1024, stream=stream, pool=pool)
            tv.task_group_begin(stream)
            tv.task_uses(stream, base, 1024)
            task = tv.task_group_end(stream)
        # Bare addresses: a fake tensor's id() may be that of an alias an
        # earlier test made, and the ledger would take it for that alias.
        kept, dropped = base + 0x1000, base + 0x2000
        tv.alloc(kept, 1024, stream=update_stream)
        tv.task_update_begin(update_stream, task)
        tv.task_uses(update_stream, kept, 1024)
        tv.task_update_end(update_stream)
        tv.replay(graph)  # kept with the graph: silent
        self.assertEqual(self.checks(), [])
        tv.alloc(dropped, 1024, stream=update_stream)
        tv.task_update_begin(update_stream, task)
        tv.task_uses(update_stream, dropped, 1024)
        tv.task_update_end(update_stream)
        tv.free(kept)  # re-pointed already: silent
        tv.free(dropped)  # the update's local dies before the replay
        self.assertEqual(self.checks(), [])
        tv.replay(graph)
        self.assertEqual(self.checks(), [(DIES_BEFORE_REPLAY, "update-buffer-freed")])
        tv.graph_destroy(graph)

    def test_a_failing_callback_does_not_reach_the_caller(self):
        caught = []
        old_hook = sys.unraisablehook
        sys.unraisablehook = caught.append

        def broken(v):
            raise RuntimeError("callback bug")

        try:
            tv.set_callback(broken)
            before = tv.violation_count()
            tv.weak_ref(None, None)
            self.assertEqual(tv.violation_count(), before + 1)
        finally:
            sys.unraisablehook = old_hook
        self.assertEqual(len(caught), 1)
        self.assertIsInstance(caught[0].exc_value, RuntimeError)

    def test_misuse_is_a_python_error(self):
        with self.assertRaises(ValueError):
            tv.set_mode("loud")
        with self.assertRaises(KeyError):
            tv.replay(FakeGraph())  # never captured
        self.assertEqual(tv.api_version(), tv.API_VERSION)
        self.assertTrue(tv.enabled())

    def test_streams_as_objects(self):
        class NpuStream:
            npu_stream = 0x7777

        base, _, pool = fresh()
        with tv.capture(NpuStream()) as cap:
            tv.alloc(base, 512, stream=0x7777, pool=pool)
            tv.workspace(NpuStream(), 0, 1, FakeTensor(base, 512), 512)
            tv.workspace(NpuStream(), 1, 1, FakeTensor(base, 512), 1024)
        self.assertNotEqual(cap.id, 0)
        self.assertEqual(self.checks(),
                         [("tether-workspace-shared-across-layers", "too-small")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
