# twin_compare self-test: a label only Python has.
a = 1  # TWIN: a
b = 2  # TWIN: only-python
