"""Where the verifier's block events come from: torch_npu's Python trace
callbacks registered (none when the C++ trace adapter feeds the blocks, so
no block is fed twice), and a weak ref of a weak ref of a 4 KiB block."""
import torch
import torch_npu

try:
    from torch_npu.utils import _npu_trace
    callbacks = len(_npu_trace._allocation) + len(_npu_trace._deallocation)
except ImportError:
    callbacks = "hidden"

x = torch_npu.empty((1024,))
a = torch_npu._C._weak_ref_tensor(x)
b = torch_npu._C._weak_ref_tensor(a)
print("python trace callbacks:", callbacks)
