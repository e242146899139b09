# A tab after blanks that stop short of a tab stop: CPython counts it to
# column 8, the grammar's scanner as 8 more columns (15), and puts the
# next line of the block in the one around it. Valid: analysed.
def f(x):
    if x:
       	y = 1
        z = 2
    return x
