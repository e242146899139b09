# `else` mistyped as `els:` above its block: the grammar reads the block's
# first line as the annotation of `els`; CPython ends the line at the colon.
def pick(x):
    if x:
        y = 1
    els:
        y = 2
    return y
