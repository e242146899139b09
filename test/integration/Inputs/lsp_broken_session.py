"""One editor session of broken edits and malformed frames against a server.

usage: lsp_broken_session.py [--edits] [--frames] DOCUMENT -- SERVER [ARG...]

Opens DOCUMENT (a Python file with one finding), then (--edits) sends, as
unsaved edits of it, what an editor holds for a moment while someone types or a
tool misbehaves: a stray colon (x = a:b.c), the file cut off, a 10,000-deep
`or` chain, binary bytes, text that is not UTF-8 (a lone surrogate, and a
raw frame of invalid UTF-8), an empty file, and finally the original text
again; then (--frames) malformed frames (Content-Length negative, not a number, absent,
beyond the server's limit), each followed by a request that must be
answered, then shutdown/exit. Prints one line per step for FileCheck:

  publish <step>: K diagnostic(s)
  <step>: error CODE | result
  stderr: <each line the server wrote about frames>
  server exited N
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import lsp_stream

args = sys.argv[1:]
sep = args.index("--")
opts, server = args[:sep], args[sep + 1:]
do_edits, do_frames = "--edits" in opts, "--frames" in opts
doc = os.path.abspath([o for o in opts if not o.startswith("--")][0])
uri = "file://" + doc
err = tempfile.TemporaryFile()
proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=err)
inbox, cv = lsp_stream.start_reader(proc)


def write(data):
    proc.stdin.write(data)
    proc.stdin.flush()


frame = lsp_stream.frame


def send(msg):
    lsp_stream.send(proc, msg)


def wait_for(pred, what, timeout=120.0):
    deadline = time.time() + timeout
    with cv:
        while True:
            while inbox:
                msg = inbox.pop(0)
                if msg is None:
                    print(f"server died while waiting for {what}")
                    sys.exit(1)
                if pred(msg):
                    return msg
            left = deadline - time.time()
            if left <= 0:
                print(f"timed out waiting for {what}")
                sys.exit(1)
            cv.wait(left)


def wait_publish(step):
    msg = wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == uri, f"diagnostics of {step}")
    print(f"publish {step}: {len(msg['params']['diagnostics'])} diagnostic(s)")


def answer(step, id):
    msg = wait_for(lambda m: m.get("id") == id and "method" not in m,
                   f"the answer to {step}")
    print(f"{step}: " + (f"error {msg['error']['code']}" if "error" in msg
                         else "result"))


def answer_unnumbered(step):
    """An error the server could not tie to a request (id null)."""
    msg = wait_for(lambda m: m.get("id", 0) is None, f"the error for {step}")
    print(f"{step}: error {msg['error']['code']}")


send({"id": 1, "method": "initialize", "params": {"capabilities": {}}})
answer("initialize", 1)
send({"method": "initialized", "params": {}})
with open(doc) as f:
    good = f.read()
send({"method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": uri, "languageId": "python", "version": 1, "text": good}}})
wait_publish("open")

edits = [
    ("stray colon", "x = a:b.c\n"),
    # One space too many before a def: tree-sitter parses it, CPython does
    # not (unexpected indent); nothing is analysed, nothing published.
    ("stray indent", good.replace("\ndef ", "\n def ", 1)),
    # A value not typed yet: tree-sitter reads the next line as the value
    # (`pending = cache[key] = ...`), CPython ends the line at the `=`.
    ("half-typed assignment", good.replace("    cache[key] =", "    pending =\n    cache[key] =", 1)),
    ("cut off", good[:len(good) // 2]),
    ("deep or", "x = " + " or ".join(["a"] * 10000) + "\n"),
    ("binary", "\x00\x01\x02\x7f\x1b[0m\x00" * 20),
    ("lone surrogate", "x = '\udcff'\n"),
    ("empty", ""),
    ("original", good),
]
for version, (step, text) in enumerate(edits if do_edits else [], start=2):
    body = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"text": text}]}}
    write(frame(json.dumps(body).encode()))  # json escapes the surrogate
    wait_publish(step)

# Not JSON at all: a body of invalid UTF-8.
if do_frames:
    write(frame(b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "x": "\xff\xfe"}'))
    answer_unnumbered("invalid UTF-8 body")
send({"id": 2, "method": "textDocument/hover", "params": {}})
answer("request after the edits", 2)


def malformed_frames():
    write(b"Content-Length: -5\r\n\r\n")
    send({"id": 3, "method": "textDocument/hover", "params": {}})
    answer("request after a negative length", 3)
    write(b"Content-Length: many\r\n\r\n")
    send({"id": 4, "method": "textDocument/hover", "params": {}})
    answer("request after a length that is not a number", 4)
    # A frame without Content-Length: its body runs into the next frame's header.
    write(b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"id\": 5}")
    send({"id": 6, "method": "textDocument/hover", "params": {}})
    answer("request after a frame without a length", 6)
    big = 65 * 1024 * 1024
    write(b"Content-Length: %d\r\n\r\n" % big + b" " * big)
    answer_unnumbered("a frame beyond the limit")
    send({"id": 7, "method": "textDocument/hover", "params": {}})
    answer("request after it", 7)


if do_frames:
    malformed_frames()
send({"id": 8, "method": "shutdown"})
answer("shutdown", 8)
send({"method": "exit"})
try:
    rc = proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    print("server did not exit")
    sys.exit(1)
err.seek(0)
for line in err.read().decode(errors="replace").splitlines():
    if "skipped" in line or "dropped" in line:
        print("stderr:", line)
print(f"server exited {rc}")
