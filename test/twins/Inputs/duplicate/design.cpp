// twin_compare self-test: one label on two lines.
int a = 1; // TWIN: a
int b = 2; // TWIN: a
