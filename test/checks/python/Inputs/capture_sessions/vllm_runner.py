"""vLLM's graph_capture() context around the captures of every batch size,
which share one pool."""
import torch
from vllm.distributed.parallel_state import graph_capture
from vllm.utils import weak_ref_tensors


class Runner:
    def __init__(self, pool):
        self.pool = pool
        self.graphs = {}
        self.outputs = {}
        self.hidden = None

    # Safe, as vLLM writes it: each size's output is kept weakly for the
    # replay to return; no later capture reads it.
    def capture_one(self, n, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=self.pool):
            out = torch.relu(x)
        self.graphs[n] = g
        self.outputs[n] = weak_ref_tensors(out)

    def capture_model(self, sizes, x):
        with graph_capture(device=x.device):
            for n in sizes:
                self.capture_one(n, x)

    # Bug: a draft step's hidden state kept weakly for the target step's
    # graph, captured later in the same session.
    def capture_draft(self, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=self.pool):
            h = torch.relu(x)
        self.hidden = weak_ref_tensors(h)
        # CHECK: vllm_runner.py:35:23: warning: weak reference made during a capture session to memory whose last strong reference can die before a later capture of the session uses it [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: vllm_runner.py:52:9: note: capture session begins here
        # CHECK-NEXT: vllm_runner.py:53:13: note: 'Runner.capture_draft' runs inside the capture session through this call
        # CHECK-NEXT: vllm_runner.py:35:9: note: the weak reference is stored in 'self.hidden', read by a later capture of the session
        # CHECK-NEXT: vllm_runner.py:43:9: note: the last strong reference to the memory dies here
        # CHECK-NEXT: vllm_runner.py:48:30: note: a later capture of the same session uses the weak reference here
        # CHECK-NEXT: vllm_runner.py:54:35: note: capture session ends here
        return g

    def capture_target(self, x):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=self.pool):
            y = torch.add(x, self.hidden)
        return g, y

    def capture_spec(self, x):
        with graph_capture(device=x.device):
            self.capture_draft(x)
            self.capture_target(x)


def build(pool, x):
    r = Runner(pool)
    r.capture_model([1, 2], x)
    r.capture_spec(x)
    return r
