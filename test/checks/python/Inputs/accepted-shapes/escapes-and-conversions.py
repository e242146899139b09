# Escapes CPython decodes, and the ones it leaves as they are; f-string
# conversions; an assert with its message.
import warnings

warnings.simplefilter("ignore")
NAMED = "\N{EM DASH} \u00e9 \U0001F600 \x41 \0 \777 \
next line"
BYTES = b"\u00e9 is six bytes here, \x41 one"
RAW = r"\u \x \N"
SLASHES = "\\u \\x \\N"
UNKNOWN = "\q \d"
VALUE = 3
FORMATTED = f"{VALUE!r} {VALUE!s} {VALUE!a} \x41{VALUE}"
assert VALUE, "a message"
assert (VALUE,
        VALUE)
assert VALUE not in (1, 2), \
    ("a message in parentheses "
     "after a backslash")
