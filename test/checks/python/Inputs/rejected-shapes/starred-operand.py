# A `*` typed in front of an operand: the grammar reads `*x` anywhere;
# CPython takes it only among a display's, a tuple's or a call's elements.
def transpose(q):
    q_nope = *q.transpose(0, 1)
    return q_nope
