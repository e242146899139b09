# Strings whose text spans lines in the ways CPython allows: triple
# quotes, and a line break after an odd run of backslashes.
MESSAGE = "one line \
and the next"
PATTERN = r"a raw \
continuation"
DATA = b'bytes \
too'
BLOCK = """three
lines
here"""
SLASH = "\\"
TWO = f"{MESSAGE!r} \
{PATTERN}"
