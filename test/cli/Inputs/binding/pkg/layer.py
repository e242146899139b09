import torch
from vllm.utils import weak_ref_tensors

from pkg import _C


def twice_op(x):
    return weak_ref_tensors(torch.ops.myext.weak_view(x))


def twice_overload(x):
    return weak_ref_tensors(torch.ops.myext.weak_view.default(x))


def twice_pybind(x):
    return weak_ref_tensors(_C.weak_view(t=x))


def twice_lambda(x):
    return weak_ref_tensors(_C.weak_lambda(x))


def once_op(x):
    return weak_ref_tensors(torch.ops.myext.fresh_copy(x))


def once_pybind(x):
    return weak_ref_tensors(_C.fresh_copy(x))


def other_module(x):
    # Another extension's function of the same name is not this one.
    from other import _D
    return weak_ref_tensors(_D.weak_view(x))


def capture(graph, runnable, x):
    with torch.cuda.graph(graph):
        out = runnable(x)
        out = torch.ops.myext.weak_view(out)
        y = torch.relu(out)
    return y
