"""A minimal LSP client: open a document, print the diagnostics published.

usage: lsp_client.py [--change FILE] [--save] [--timeout S] DOCUMENT
                     -- SERVER [ARG...]

Sends initialize/initialized, didOpen(DOCUMENT), waits for the first
publishDiagnostics of DOCUMENT; with --change, sends didChange with FILE's
text (not saved) and waits again; with --save, didSave and waits again. Then
shutdown/exit, and checks the server exits 0. Each published set prints as

  publish N: K diagnostic(s)
  LINE:COL: [CODE] (SOURCE) MESSAGE
    related LINE:COL: MESSAGE

with 1-based positions, for FileCheck.
"""
import os
import subprocess
import sys
import time

import lsp_stream

args = sys.argv[1:]
sep = args.index("--")
opts, server = args[:sep], args[sep + 1:]
change = None
save = False
timeout = 120.0
doc = None
while opts:
    o = opts.pop(0)
    if o == "--change":
        change = opts.pop(0)
    elif o == "--save":
        save = True
    elif o == "--timeout":
        timeout = float(opts.pop(0))
    else:
        doc = o
if not doc or not server:
    sys.exit(__doc__)

doc = os.path.abspath(doc)
uri = "file://" + doc
lang = "python" if doc.endswith(".py") else "cpp"
proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=open(os.environ.get("LSP_LOG", os.devnull), "w"))
inbox, cv = lsp_stream.start_reader(proc)


def send(msg):
    lsp_stream.send(proc, msg)


def wait_for(pred, what):
    deadline = time.time() + timeout
    with cv:
        while True:
            while inbox:
                msg = inbox.pop(0)
                if msg is None:
                    sys.exit(f"lsp_client: server exited while waiting for {what}")
                if "method" in msg and "id" in msg:  # a request to us
                    send({"id": msg["id"], "result": None})
                    continue
                if pred(msg):
                    return msg
            left = deadline - time.time()
            if left <= 0:
                sys.exit(f"lsp_client: timed out waiting for {what}")
            cv.wait(left)


published = 0


def wait_diagnostics():
    global published
    msg = wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == uri, "publishDiagnostics")
    published += 1
    diags = msg["params"]["diagnostics"]
    print(f"publish {published}: {len(diags)} diagnostic(s)")
    for d in sorted(diags, key=lambda d: (d["range"]["start"]["line"],
                                          d["range"]["start"]["character"])):
        s = d["range"]["start"]
        print(f"{s['line'] + 1}:{s['character'] + 1}: [{d.get('code')}] "
              f"({d.get('source')}) {d['message'].splitlines()[0]}")
        for r in d.get("relatedInformation", []):
            rs = r["location"]["range"]["start"]
            print(f"  related {rs['line'] + 1}:{rs['character'] + 1}: {r['message']}")
    sys.stdout.flush()


send({"id": 1, "method": "initialize", "params": {
    "processId": os.getpid(),
    "rootUri": "file://" + os.path.dirname(doc),
    "capabilities": {"textDocument": {"publishDiagnostics": {
        "relatedInformation": True}}}}})
init = wait_for(lambda m: m.get("id") == 1, "initialize response")
if "result" not in init:
    sys.exit(f"lsp_client: initialize failed: {init}")
send({"method": "initialized", "params": {}})
with open(doc) as f:
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": lang, "version": 1, "text": f.read()}}})
wait_diagnostics()
if change:
    with open(change) as f:
        send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": f.read()}]}})
    wait_diagnostics()
if save:
    send({"method": "textDocument/didSave",
          "params": {"textDocument": {"uri": uri}}})
    wait_diagnostics()
send({"id": 2, "method": "shutdown"})
wait_for(lambda m: m.get("id") == 2, "shutdown response")
send({"method": "exit"})
try:
    rc = proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("lsp_client: server did not exit after exit")
if rc != 0:
    sys.exit(f"lsp_client: server exited {rc}")
print("server exited 0")
