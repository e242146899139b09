from .ops.weak import weak_ref_tensors as weak
