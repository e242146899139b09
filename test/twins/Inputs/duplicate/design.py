# twin_compare self-test: labels fine on this side.
a = 1  # TWIN: a
