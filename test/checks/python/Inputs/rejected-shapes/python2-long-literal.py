# Python 2 code vendored into Python 3 trees: the grammar takes each of
# these; CPython does not.
MASK = 0xFFFFFFFFL
