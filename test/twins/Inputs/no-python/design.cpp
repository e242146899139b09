// twin_compare self-test: the Python side is missing.
int a = 1; // TWIN: a
