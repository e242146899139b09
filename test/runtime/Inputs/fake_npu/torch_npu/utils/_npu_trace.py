"""torch_npu.utils._npu_trace: callbacks on allocator events (by address).

Hidden when FAKE_NPU_NO_TRACE=1, to stand for a torch without trace hooks.
"""
import os

if os.environ.get("FAKE_NPU_NO_TRACE") == "1":
    raise ImportError("torch_npu.utils._npu_trace hidden by FAKE_NPU_NO_TRACE")

_allocation = []
_deallocation = []


def register_callback_for_npu_memory_allocation(cb):
    _allocation.append(cb)


def register_callback_for_npu_memory_deallocation(cb):
    _deallocation.append(cb)


def fire_allocation(ptr):
    for cb in _allocation:
        cb(ptr)


def fire_deallocation(ptr):
    for cb in _deallocation:
        cb(ptr)
