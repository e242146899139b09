# Lines inside brackets that start left of the block around them: CPython
# ignores indentation inside brackets; the grammar's scanner read a dedent.
from vllm.utils import weak_ref_tensors


def offsets(row, cols, blk):
    if row:
        total = (row * cols + blk +
  blk)  # a comment after the dedented line
        pair = [total,
# a comment at column 0 inside the list
weak_ref_tensors(weak_ref_tensors(row))]
        return pair
    return weak_ref_tensors(
 weak_ref_tensors(cols))


def later(x):
    return weak_ref_tensors(weak_ref_tensors(x))
