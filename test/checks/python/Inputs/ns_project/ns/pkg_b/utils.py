def key_of(n):
    return int(n)
