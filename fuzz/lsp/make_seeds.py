#!/usr/bin/env python3
"""Writes the seed sessions of the lsp fuzz target into seeds/.

usage: make_seeds.py [SEED_DIR]

Each seed is the byte stream a client writes to `tether lsp`: the sessions
of test/integration (lsp_client.py over the Python and C++ inputs,
lsp_protocol.py), a session of broken edits, and malformed frames. Re-run it
when those tests change and commit the result.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "seeds")


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def frame(obj=None, raw=None):
    data = raw if raw is not None else json.dumps(obj, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def rpc(method, params=None, id=None):
    msg = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        msg["id"] = id
    if params is not None:
        msg["params"] = params
    return frame(msg)


def initialize():
    return (rpc("initialize", {"processId": 1, "rootUri": "file:///w",
                               "capabilities": {}}, id=1)
            + rpc("initialized", {}))


def did_open(uri, text, lang="python"):
    return rpc("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": lang, "version": 1, "text": text}})


def did_change(uri, text, version=2):
    return rpc("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"text": text}]})


def finish(id=99):
    return rpc("shutdown", id=id) + rpc("exit")


PY = "file:///w/attn.py"
CXX = "file:///w/buggy.cpp"
buggy, fixed = (read("test/integration/Inputs/py/attn_buggy.py"),
                read("test/integration/Inputs/py/attn_fixed.py"))
seeds = {
    # tether-lsp-python.test: a fix, then the bug introduced by an edit.
    "python-fix": initialize() + did_open(PY, buggy) + did_change(PY, fixed)
    + finish(),
    "python-edit": initialize() + did_open(PY, fixed) + did_change(PY, buggy)
    + rpc("textDocument/didSave", {"textDocument": {"uri": PY}})
    + rpc("textDocument/didClose", {"textDocument": {"uri": PY}}) + finish(),
    # tether-lsp.test: a C++ document and its unsaved edit.
    "cpp": initialize() + did_open(CXX, read("test/cli/Inputs/buggy.cpp"), "cpp")
    + did_change(CXX, read("test/cli/Inputs/clean.cpp")) + finish(),
    # lsp_protocol.py: an unknown request, a body that is not JSON, a
    # shutdown without an id, exit without shutdown.
    "protocol": initialize() + rpc("textDocument/hover", {}, id=2)
    + frame(raw=b"{not json") + rpc("shutdown") + rpc("exit"),
    # Broken edits of one document (tether-lsp-broken-edits.test).
    "broken-edits": initialize() + did_open(PY, fixed)
    + did_change(PY, "x = a:b.c\n", 2) + did_change(PY, fixed[:70], 3)
    + did_change(PY, "x = " + " or ".join(["a"] * 50) + "\n", 4)
    + did_change(PY, "\x00\x01\x02\udcff".encode("utf-8", "surrogatepass")
                 .decode("utf-8", "replace"), 5)
    + did_change(PY, "", 6) + did_change(PY, buggy, 7) + finish(),
    # Frames a client should never send.
    "bad-frames": initialize()
    + b"Content-Length: -5\r\n\r\n{}"
    + b"Content-Length: 99999999999999999999\r\n\r\n"
    + b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"id\":3}"
    + b"Content-Length: 0\r\n\r\n"
    + frame(raw=b"[" * 300 + b"]" * 300)
    + frame({"jsonrpc": "2.0", "id": {"bad": 1}, "method": "initialize"})
    + frame({"jsonrpc": "2.0", "id": 4, "method": "textDocument/didOpen",
             "params": {"textDocument": {"uri": 5, "text": []}}})
    + frame(raw=b"\xff\xfe")
    + finish() + b"Content-Length: 100\r\n\r\n{\"cut off",
    # A length beyond the limit: read to the end, never allocated.
    "too-large": initialize() + b"Content-Length: 70000000\r\n\r\n" + b"{}" * 50,
}
os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name + ".lsp"), "wb") as f:
        f.write(data)
