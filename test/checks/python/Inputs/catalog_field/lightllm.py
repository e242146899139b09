"""LightLLM's names: tensor_to_no_ref_tensor, ptr_to_tensor and the memory
saver's cuda_graph context (shapes written for this test)."""
import torch
from lightllm.utils.tensor_utils import ptr_to_tensor, tensor_to_no_ref_tensor
from lightllm.utils.torch_memory_saver_utils import TorchMemorySaverWrapper


class Output:
    def __init__(self, logits, hiddens):
        self.logits = logits
        self.hiddens = hiddens

    def to_no_ref_tensor(self):
        self.logits = tensor_to_no_ref_tensor(self.logits)
        self.hiddens = tensor_to_no_ref_tensor(self.hiddens)


class Model:
    def __init__(self, head):
        self.head = head

    def forward(self, x, is_cuda_graph):
        logits = self.head(x)
        out = Output(logits, torch.relu(x))
        if is_cuda_graph:
            out.to_no_ref_tensor()
        return out


class DecodeGraph:
    def __init__(self, enable_saver):
        self.torch_memory_saver = TorchMemorySaverWrapper(enable_saver)
        self.mempool = torch.cuda.graph_pool_handle()
        self.graph = {}

    # Safe, as LightLLM writes it: the captured forward makes its output
    # no-ref as its last step; nothing else in the capture reads it, and the
    # graph runner keeps it beside the graph.
    def capture_decode(self, model, x, batch_size):
        graph_obj = torch.cuda.CUDAGraph()
        with self.torch_memory_saver.cuda_graph(graph_obj, pool=self.mempool):
            out = model.forward(x, True)
        self.graph[batch_size] = (graph_obj, out)
        return out

    # Bug: a no-ref alias over a fresh output's pointer, read by a later op
    # of the same capture after the output is dropped.
    def capture_piece(self, layer, x, batch_size):
        graph_obj = torch.cuda.CUDAGraph()
        with self.torch_memory_saver.cuda_graph(graph_obj, pool=self.mempool):
            o = layer(x)
            o_alias = ptr_to_tensor(o.data_ptr(), o.numel() * o.element_size())
            # CHECK: lightllm.py:[[@LINE-1]]:23: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: lightllm.py:[[@LINE-4]]:9: note: capture begins here
            # CHECK-NEXT: lightllm.py:[[@LINE+3]]:13: note: the last strong reference to the memory dies here
            # CHECK-NEXT: lightllm.py:[[@LINE+3]]:28: note: the weak reference is used by a later operation of the same capture here
            # CHECK-NEXT: lightllm.py:[[@LINE+3]]:9: note: capture ends here
            o = None
            y = torch.relu(o_alias)
        self.graph[batch_size] = (graph_obj, y)
        return y

    # Bug: the same, with the pointer taken into a local first.
    def capture_piece_local(self, layer, x, batch_size):
        graph_obj = torch.cuda.CUDAGraph()
        with self.torch_memory_saver.cuda_graph(graph_obj, pool=self.mempool):
            o = layer(x)
            ptr = o.data_ptr()
            o_alias = ptr_to_tensor(ptr, o.numel() * o.element_size())
            # CHECK: lightllm.py:[[@LINE-1]]:23: warning: weak reference made during graph capture to memory whose last strong reference can die before the capture ends [tether-weak-ref-before-capture-end]
            # CHECK-NEXT: lightllm.py:[[@LINE-5]]:9: note: capture begins here
            # CHECK-NEXT: lightllm.py:[[@LINE+3]]:13: note: the last strong reference to the memory dies here
            # CHECK-NEXT: lightllm.py:[[@LINE+3]]:28: note: the weak reference is used by a later operation of the same capture here
            # CHECK-NEXT: lightllm.py:[[@LINE+3]]:9: note: capture ends here
            o = None
            y = torch.relu(o_alias)
        self.graph[batch_size] = (graph_obj, y)
        return y



# Bug: the main model's hiddens made no-ref inside the capture and read by
# the draft model's op that the same capture records next.
def capture_mtp(saver, pool, layer, draft_weight, x):
    graph_obj = torch.cuda.CUDAGraph()
    with saver.torch_memory_saver.cuda_graph(graph_obj, pool=pool):
        hiddens = layer(x)
        hiddens = tensor_to_no_ref_tensor(hiddens)
        # CHECK: lightllm.py:[[@LINE-1]]:19: warning: weak reference made during graph capture {{.*}} [tether-weak-ref-before-capture-end]
        # CHECK-NEXT: lightllm.py:[[@LINE-4]]:5: note: capture begins here
        # CHECK-NEXT: lightllm.py:[[@LINE-3]]:9: note: the last strong reference to the memory dies here
        # CHECK-NEXT: lightllm.py:[[@LINE+2]]:37: note: the weak reference is used by a later operation of the same capture here
        # CHECK-NEXT: lightllm.py:[[@LINE+2]]:5: note: capture ends here
        draft_logits = torch.matmul(hiddens, draft_weight)
    return graph_obj, draft_logits
