# Python 3 literals next to the Python 2 ones that are rejected.
zeros = 00 + 0_0 + 0e5 + 09.5 + 0o177 + 0b1 + 0x1F
imaginary = 0177j
grouped = 1_000 + 0x_1f + 0xdead_beef + 0b_1 + 1_0.0_1e1_0 + 0x1_e + 1_0_0j
text = u"a" + rb"b".decode() + Rb"c".decode() + f"{zeros + grouped!r:>{4}}" "d"
if zeros != 1:
    raise (ValueError, "a tuple raised: a TypeError at run time, not a syntax error")
