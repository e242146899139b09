x = a:b.c
