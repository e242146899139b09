#!/usr/bin/env python3
"""std_stand_ins.py TETHER SRC_ROOT

The cxx-checks fuzzer compiles its inputs against small stand-ins for the
standard headers (fuzz/cxx/std, with -nostdinc), so that an execution costs
milliseconds. That is only worth it while the checks see the same program
through them: this runs `tether check` on every seed of the fuzzer twice,
against libstdc++ and against the stand-ins, and prints one line per seed,
`same` or `DIFFERENT` with both outputs. Exit 1 when any differs or when a
seed compiles with errors against the stand-ins only.
"""
import glob
import os
import re
import subprocess
import sys

tether, root = sys.argv[1], sys.argv[2]
stubs = os.path.join(root, "test", "checks", "cxx", "Inputs")
std = os.path.join(root, "fuzz", "cxx", "std")
# The seed globs of fuzz/cxx/CMakeLists.txt, less the real-libtorch sources.
patterns = ["test/checks/cxx/*.cpp", "examples/cxx/*.cpp", "test/cli/Inputs/*.cpp",
            "test/cli/Inputs/*/*.cpp", "test/cli/Inputs/*/csrc/*.cpp",
            "test/twins/*/design.cpp"]
seeds = sorted(f for p in patterns for f in glob.glob(os.path.join(root, p))
               if not re.search(r"^#include <(ATen|torch)/", open(f).read(), re.M))


def run(f, extra):
    r = subprocess.run([tether, "check", "--no-cache", "--quiet", f, "--",
                        "-std=c++17", *extra, "-isystem", stubs],
                       capture_output=True, text=True)
    # Diagnostics only: stderr also names the file being processed.
    lines = (r.stdout + r.stderr).splitlines()
    return [l for l in lines if re.search(r": (warning|note|error): ", l)]


status = 0
for f in seeds:
    real, stand_in = run(f, []), run(f, ["-nostdinc", "-isystem", std])
    name = os.path.relpath(f, root)
    if real == stand_in:
        print("same %s (%d lines)" % (name, len(real)))
    else:
        status = 1
        print("DIFFERENT %s\n  libstdc++:\n    %s\n  stand-ins:\n    %s" % (
            name, "\n    ".join(real), "\n    ".join(stand_in)))
print("%d seeds" % len(seeds))
sys.exit(status)
