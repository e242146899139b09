f(a for a in b, 1)
