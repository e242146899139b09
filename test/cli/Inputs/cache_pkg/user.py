from cache_pkg.utils import weak


def f(x):
    return weak(weak(x))
