# Text pasted into a module one level too deep: no block opens above it.
# tree-sitter keeps the indentation as blanks and parses a module of three
# statements; CPython stops at the decorator ("unexpected indent").
import functools

limit = 4


    @functools.cache
    def cached(n):
        return n * limit
