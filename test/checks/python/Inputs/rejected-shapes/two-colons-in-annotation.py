# A colon typed into an annotated parameter: the grammar reads `a: b: c`
# as a type parameter's bound; in an annotation CPython rejects it.
def rearrange(tp_ratio: int, input_tensor: torch:Tensor):
    return input_tensor
