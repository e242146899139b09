def rows(q):
    return q.shape[0]
