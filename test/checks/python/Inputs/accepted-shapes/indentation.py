# Indentation CPython accepts that a rule on columns alone would not: the
# first physical line of a logical line decides (but a backslash at column
# 0 leaves it to the next line), a comment or a blank line decides nothing,
# and statements after ';' or on a header's line start no line.
import os

total = 0; \
    count = 1
if total:
    first = 1
    \
  second = 2
if count:
    a = 1
\
    b = 2
\
c = 3
if count: a = 1; b = 2
else: c = 3
def joined(x,
        y):
    return x + \
 y
class Holder:
    # a comment at any column
        # another
    value = 1
# and one at column 0 inside the class body
    other = 2

    def method(self):
        try:
            return 1
        except OSError:
            return 2
        else:
            pass
        finally:
            pass
	# a tab-indented comment
last = [
  1,
      2]
def tabbed():
	if True:
		return 1
	return 2
def after_form_feed():
    return 3
