# A digit deleted after an underscore: `1_` is no number to CPython.
def chunk(values):
    return values.cumsum(-1_)
