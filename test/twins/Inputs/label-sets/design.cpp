// twin_compare self-test: a label only C++ has.
int a = 1; // TWIN: a
int b = 2; // TWIN: only-cxx
