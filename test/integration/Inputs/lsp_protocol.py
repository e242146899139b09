"""Protocol-level behaviour of a language server on stdio.

usage: lsp_protocol.py SERVER [ARG...]
"""
import json
import subprocess
import sys

import lsp_stream


def frame(obj=None, raw=None):
    return lsp_stream.frame(raw if raw is not None else json.dumps(obj).encode())


def responses(out):
    msgs = []
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        length = int(head.split(b":")[1])
        msgs.append(json.loads(rest[:length]))
        out = rest[length:]
    return msgs


init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}}}
stdin = (frame(init)
         + frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
                  "params": {}})
         + frame(raw=b"{not json")
         # A shutdown without an id is not a request: ignored, no crash.
         + frame({"jsonrpc": "2.0", "method": "shutdown"})
         + frame({"jsonrpc": "2.0", "method": "exit"}))
p = subprocess.run(sys.argv[1:], input=stdin, stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL, timeout=60)
msgs = responses(p.stdout)
by_id = {m.get("id"): m for m in msgs}
assert "capabilities" in by_id[1]["result"], by_id[1]
print("unknown request: error", by_id[2]["error"]["code"])
print("malformed body: error", by_id[None]["error"]["code"])
print("exit without shutdown: status", p.returncode)
