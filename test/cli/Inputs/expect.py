"""Run a command and assert its exit status and the size of its stderr.

usage: expect.py [--status=N] [--stderr-lines=K] [--cwd-copy=FILE]
                 -- COMMAND [ARG...]

--cwd-copy runs the command in a fresh temporary directory outside the build
tree holding a copy of FILE, or of the directory tree FILE names (for
"nothing found above this file" cases).

lit's internal shell has no $? or $(...); the CLI contract needs exact exit
statuses (0, 1, 2) and one-line errors. Output is passed through.
"""
import os
import shutil
import subprocess
import sys
import tempfile

status, lines, copy = 0, None, None
args = sys.argv[1:]
while args and args[0] != "--":
    opt = args.pop(0)
    if opt.startswith("--status="):
        status = int(opt.split("=", 1)[1])
    elif opt.startswith("--stderr-lines="):
        lines = int(opt.split("=", 1)[1])
    elif opt.startswith("--cwd-copy="):
        copy = opt.split("=", 1)[1]
    else:
        sys.exit(f"expect.py: unknown option {opt}")
if not args or len(args) < 2:
    sys.exit("expect.py: no command after --")
cwd = None
if copy:
    cwd = tempfile.mkdtemp(prefix="tether-test-", dir="/tmp")
    if os.path.isdir(copy):
        shutil.copytree(copy, os.path.join(cwd, os.path.basename(copy)))
    else:
        shutil.copy(copy, cwd)
try:
    proc = subprocess.run(args[1:], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=cwd)
finally:
    if cwd:
        shutil.rmtree(cwd)
sys.stdout.buffer.write(proc.stdout)
sys.stderr.buffer.write(proc.stderr)
sys.stdout.flush()
sys.stderr.flush()
if proc.returncode != status:
    sys.exit(f"expect.py: exit status {proc.returncode}, expected {status}")
if lines is not None:
    got = proc.stderr.decode(errors="replace").count("\n")
    if got != lines:
        sys.exit(f"expect.py: {got} stderr line(s), expected {lines}")
