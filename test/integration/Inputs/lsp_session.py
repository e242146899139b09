"""Drive `tether lsp` through a scripted editing session over a package.

usage: lsp_session.py --root DIR --tether TETHER STEP... -- SERVER [ARG...]

Steps (paths relative to DIR):
  open REL           didOpen with the file's text
  edit REL FILE      didChange: REL's buffer becomes FILE's text (unsaved)
  comment REL        didChange: a comment line appended to REL's buffer
  insert REL LINE    didChange: a comment line inserted before line LINE
                     (every position below it moves)
  replace REL OLD NEW  didChange: every OLD in REL's buffer becomes NEW
  disk REL FILE      FILE copied over REL on disk, the server not told
  notify REL         workspace/didChangeWatchedFiles for REL
  close REL          didClose
  compare REL        the diagnostics last published for REL against
                     `TETHER check --format=json REL` run in a copy of DIR
                     in which every open document holds its buffer text

After each step that sends something, a request the server does not know
is sent and its answer awaited: the server answers in order, so every
publishDiagnostics the step caused has arrived. Each prints as

  publish REL: K diagnostic(s)
  LINE:COL: [CODE] MESSAGE
    related REL LINE:COL: MESSAGE

and each compare as "compare REL: same (K diagnostic(s))" or
"compare REL: DIFFERENT" with both sides.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import lsp_stream

ARITY = {"open": 1, "edit": 2, "comment": 1, "insert": 2, "replace": 3,
         "disk": 2, "notify": 1, "close": 1, "compare": 1}

args = sys.argv[1:]
sep = args.index("--")
opts, server = args[:sep], args[sep + 1:]
root = tether = None
steps = []
while opts:
    o = opts.pop(0)
    if o == "--root":
        root = os.path.realpath(opts.pop(0))
    elif o == "--tether":
        tether = os.path.abspath(opts.pop(0))
    elif o in ARITY:
        steps.append([o] + [opts.pop(0) for _ in range(ARITY[o])])
    else:
        sys.exit(f"lsp_session: unknown step {o}\n{__doc__}")
if not root or not tether or not server:
    sys.exit(__doc__)

proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=open(os.environ.get("LSP_LOG", os.devnull), "w"))
inbox, cv = lsp_stream.start_reader(proc)
buffers = {}    # REL -> text the editor holds
published = {}  # REL -> last diagnostics
next_id = [100]


def uri(rel):
    return "file://" + os.path.join(root, rel)


def rel_of(u):
    path = os.path.realpath(u[len("file://"):])
    return os.path.relpath(path, root)


def send(msg):
    lsp_stream.send(proc, msg)


def sync():
    """Wait for the answer to a request sent now; print the publishes."""
    next_id[0] += 1
    want = next_id[0]
    send({"id": want, "method": "tether/sync"})
    deadline = time.time() + 300
    with cv:
        while True:
            while inbox:
                msg = inbox.pop(0)
                if msg is None:
                    sys.exit("lsp_session: the server exited")
                if msg.get("id") == want:
                    return
                if "method" in msg and "id" in msg:  # a request to us
                    print(f"request {msg['method']}")
                    send({"id": msg["id"], "result": None})
                elif msg.get("method") == "textDocument/publishDiagnostics":
                    show(msg["params"])
            left = deadline - time.time()
            if left <= 0:
                sys.exit("lsp_session: timed out")
            cv.wait(left)


def key(d):
    s = d["range"]["start"]
    return (s["line"], s["character"], d.get("code"), d["message"])


def show(params):
    rel = rel_of(params["uri"])
    diags = sorted(params["diagnostics"], key=key)
    published[rel] = diags
    print(f"publish {rel}: {len(diags)} diagnostic(s)")
    for d in diags:
        s = d["range"]["start"]
        print(f"{s['line'] + 1}:{s['character'] + 1}: [{d.get('code')}] "
              f"{d['message']}")
        for r in d.get("relatedInformation", []):
            rs = r["location"]["range"]["start"]
            print(f"  related {rel_of(r['location']['uri'])} "
                  f"{rs['line'] + 1}:{rs['character'] + 1}: {r['message']}")
    sys.stdout.flush()


def as_check(diags):
    """Published diagnostics in the terms of tether's JSON output."""
    out = []
    for d in diags:
        s = d["range"]["start"]
        out.append((s["line"] + 1, s["character"] + 1, d.get("code"),
                    d["message"], "error" if d["severity"] == 1 else "warning",
                    tuple((rel_of(r["location"]["uri"]),
                           r["location"]["range"]["start"]["line"] + 1,
                           r["location"]["range"]["start"]["character"] + 1,
                           r["message"])
                          for r in d.get("relatedInformation", []))))
    return sorted(out)


def compare(rel):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "root")
        shutil.copytree(root, copy, symlinks=True)
        for r, text in buffers.items():
            with open(os.path.join(copy, r), "w") as f:
                f.write(text)
        run = subprocess.run([tether, "check", "--quiet", "--format=json", rel],
                             cwd=copy, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            sys.exit(f"lsp_session: tether check failed: {run.stderr}")
    want = []
    for d in json.loads(run.stdout)["diagnostics"]:
        if os.path.normpath(d["file"]) != os.path.normpath(rel):
            continue
        want.append((d["line"], d["column"], d["check"], d["message"],
                     d["severity"],
                     tuple((os.path.normpath(n["file"]), n["line"],
                            n["column"], n["message"])
                           for n in d.get("notes", []))))
    got = as_check(published.get(rel, []))
    if sorted(want) == got:
        print(f"compare {rel}: same ({len(got)} diagnostic(s))")
    else:
        print(f"compare {rel}: DIFFERENT")
        print("  tether check:", json.dumps(sorted(want), indent=1))
        print("  published:   ", json.dumps(got, indent=1))
    sys.stdout.flush()


send({"id": 1, "method": "initialize", "params": {
    "processId": os.getpid(), "rootUri": "file://" + root,
    "capabilities": {
        "textDocument": {"publishDiagnostics": {"relatedInformation": True}},
        "workspace": {"didChangeWatchedFiles": {
            "dynamicRegistration": True}}}}})
sync()
send({"method": "initialized", "params": {}})
print("-- initialized")
sync()
for step in steps:
    verb, rel = step[0], step[1]
    if verb == "open":
        with open(os.path.join(root, rel)) as f:
            buffers[rel] = f.read()
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri(rel), "languageId": "python", "version": 1,
            "text": buffers[rel]}}})
    elif verb in ("edit", "comment", "insert", "replace"):
        if verb == "edit":
            with open(step[2]) as f:
                buffers[rel] = f.read()
        elif verb == "insert":
            lines = buffers[rel].split("\n")
            at = int(step[2]) - 1
            # Indented as the line it goes before, so it sits in that block.
            indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
            lines.insert(at, indent + "# inserted: nothing but this comment")
            buffers[rel] = "\n".join(lines)
        elif verb == "replace":
            if step[2] not in buffers[rel]:
                sys.exit(f"lsp_session: {step[2]!r} is not in {rel}")
            buffers[rel] = buffers[rel].replace(step[2], step[3])
        else:
            buffers[rel] += "# edited: nothing but this comment\n"
        send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri(rel), "version": 2},
            "contentChanges": [{"text": buffers[rel]}]}})
    elif verb == "disk":
        shutil.copyfile(step[2], os.path.join(root, rel))
        continue
    elif verb == "notify":
        send({"method": "workspace/didChangeWatchedFiles", "params": {
            "changes": [{"uri": uri(rel), "type": 2}]}})
    elif verb == "close":
        buffers.pop(rel, None)
        send({"method": "textDocument/didClose", "params": {
            "textDocument": {"uri": uri(rel)}}})
    elif verb == "compare":
        compare(rel)
        continue
    print(f"-- {' '.join(os.path.basename(s) for s in step)}")
    sync()
send({"id": 2, "method": "shutdown"})
sync()
send({"method": "exit"})
try:
    rc = proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("lsp_session: server did not exit after exit")
print(f"server exited {rc}")
