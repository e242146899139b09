# Colons and dots next to the rejected shapes that CPython accepts: a slice
# in a subscript annotation, an annotation continued by a backslash, a
# dotted module in a from-import, a dotted import with an alias.
import os.path as osp
from os.path import join as j
from . import sibling

grid: dict[slice(0, 1):int] = {}
width: \
    int = 3


def scale(values: list[int], step: "x: y" = None) -> int:
    return len(values[1:2]) + width
