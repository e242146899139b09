import reexport_pkg as pkg
from . import weak

CACHE = {}


def put(key, value):
    CACHE[key] = weak(value)
