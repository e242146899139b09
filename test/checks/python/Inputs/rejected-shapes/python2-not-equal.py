def differ(a, b):
    return a <> b
