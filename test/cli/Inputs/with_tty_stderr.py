"""Run a command with its stderr on a pseudo-terminal, as in an interactive
shell, and its stdout where this script's stdout goes.

usage: with_tty_stderr.py CMD ARGS...

What the terminal received is printed to this script's stderr afterwards,
with the terminal controls spelled out ("\\r" as <CR>, ESC as <ESC>) and a
line break before each <CR>, so FileCheck can match each progress step. The
exit status is the command's.
"""
import os
import pty
import subprocess
import sys

primary, secondary = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stderr=secondary)
os.close(secondary)
received = b""
while True:
    try:
        chunk = os.read(primary, 4096)
    except OSError:  # EIO: the command closed the terminal (it exited)
        break
    if not chunk:
        break
    received += chunk
os.close(primary)
rc = proc.wait()
text = received.decode("utf-8", "replace")
text = text.replace("\r\n", "\n").replace("\r", "\n<CR>").replace("\x1b", "<ESC>")
sys.stdout.flush()
sys.stderr.write(text + "\n<END>\n")
sys.exit(rc)
