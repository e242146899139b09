#!/usr/bin/env python3
"""expect_exit.py CODE CMD...: run CMD, pass its output through, and succeed
only when it exits with exactly CODE (lit's `not` accepts any failure)."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stderr.write(f"expect_exit: {sys.argv[2]} exited {got}, expected {want}\n")
    sys.exit(1)
