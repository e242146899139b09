# A backslash line decides the indentation of what continues it (here 2,
# no level of the function), unless it stands at column 0.
def f(x):
    if x:
        return 1
  \
    return 2
