"""Checks the shape inputs against the oracle: CPython's compile() must reject
every file of rejected-shapes/ and accept every file of accepted-shapes/.
Prints each disagreement and exits 1 on any."""
import glob
import os
import sys
import warnings

warnings.simplefilter("ignore")
here = os.path.dirname(os.path.abspath(__file__))
wrong = []
for folder, want in (("rejected-shapes", False), ("accepted-shapes", True)):
    for path in sorted(glob.glob(os.path.join(here, folder, "*.py"))):
        try:
            compile(open(path, "rb").read(), path, "exec", dont_inherit=True)
            accepted = True
        except SyntaxError:
            accepted = False
        if accepted != want:
            wrong.append("%s: CPython %s it" % (path, "accepts" if accepted else "rejects"))
print("\n".join(wrong))
sys.exit(1 if wrong else 0)
