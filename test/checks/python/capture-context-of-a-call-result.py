# DeepSpeed captures with `with get_accelerator().capture_to_graph(g):`:
# the receiver is a call's result, which no dotted name reaches, so the
# method is matched by its own name against the catalog's unscoped entries
# (`capture_to_graph`, a method of any accelerator). A static input from the
# ordinary allocator that dies while the graph is kept is reported there; a
# method of a call's result that the catalog does not name is no capture.
# RUN: not %tether check %s | FileCheck %s --implicit-check-not=warning: --implicit-check-not=note:
import torch
from deepspeed.accelerator import get_accelerator


class Engine:
    def capture(self, weight, n):
        static_input = torch.zeros(n, 1024, device="cuda")
        self._graph = get_accelerator().create_graph()
        with get_accelerator().capture_to_graph(self._graph):
            self.static_output = torch.matmul(static_input, weight)

    def not_a_capture(self, weight, n):
        static_input = torch.zeros(n, 1024, device="cuda")
        self._graph2 = get_accelerator().create_graph()
        with get_accelerator().profile_range("step"):
            self.static_output2 = torch.matmul(static_input, weight)


# CHECK: capture-context-of-a-call-result.py:17:47: warning: memory allocated outside the graph's pool and used by a captured task can die while the graph lives; the graph keeps its address [tether-graph-memory-dies-before-replay]
# CHECK-NEXT: capture-context-of-a-call-result.py:16:9: note: capture begins here
# CHECK-NEXT: capture-context-of-a-call-result.py:17:68: note: capture ends here
# CHECK-NEXT: capture-context-of-a-call-result.py:17:68: note: the last strong reference to the memory dies here
