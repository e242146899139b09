# `print >>sys.stderr, "..."` in code that runs on Python 3 (a real
# appengine_rpc.py has one in a branch never taken): CPython compiles it as
# the tuple (print >> sys.stderr, "..."), so the file is Python 3.
import sys

from vllm.utils import weak_ref_tensors


def check_clock(ok, x):
    if not ok:
        print >>sys.stderr, "\nError: Machine system clock is incorrect.\n"
    return weak_ref_tensors(weak_ref_tensors(x))
