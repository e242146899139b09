def fail(kind, value, tb):
    raise kind, value, tb
