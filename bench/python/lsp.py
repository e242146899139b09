#!/usr/bin/env python3
"""Time `tether lsp` on a real package: open a module, then edit a comment.

    bench/python/lsp.py [--tether build/bin/tether] [--baseline OTHER_TETHER]
                        [--tree DIR] [--file REL] [--runs 5] [--edits 5]
                        [--helper REL --helper-text FILE]

Per run, one server: initialize, didOpen(FILE) until its diagnostics are
published (open), then EDITS didChange that each append a comment line
(nothing else changes) until each is published (edit, the median of the
session). With a helper (by default the store helper the #5522 fix
changed, compilation/acl_graph.py, when the corpus has the fixed tree): the
helper is opened, its buffer replaced by HELPER_TEXT, and the time until
FILE is republished is the helper edit (the new server only: the one
before never republished another document). Side by side, alternating: `tether check FILE` (the same analysis
from the command line, a cold process) and, with --baseline, the same
session against another tether build (the server before it kept the
package). Prints the medians of the runs, the ratios, and how many
diagnostics each published (an edit that publishes fewer than the open did
lost its package). Not a ctest test: timings need a quiet machine.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(os.path.dirname(REPO), "shared", "corpus",
                      "vllm-ascend-5522", "before", "vllm_ascend")
sys.path.insert(0, os.path.join(REPO, "test", "integration", "Inputs"))
import lsp_stream  # noqa: E402


def session(tether, path, edits, helper=None, helper_text=None):
    """(open s, median edit s, diagnostics at open, at the last edit,
    helper edit s or None)."""
    proc = subprocess.Popen([tether, "lsp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    inbox, cv = lsp_stream.start_reader(proc)
    uri = "file://" + path

    def wait(pred):
        with cv:
            while True:
                while inbox:
                    msg = inbox.pop(0)
                    if msg is None:
                        sys.exit("bench: the server exited")
                    if pred(msg):
                        return msg
                cv.wait(300)

    def published(m):
        return (m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri)

    lsp_stream.send(proc, {"id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "capabilities": {}}})
    wait(lambda m: m.get("id") == 1)
    lsp_stream.send(proc, {"method": "initialized", "params": {}})
    with open(path) as f:
        text = f.read()
    start = time.perf_counter()
    lsp_stream.send(proc, {"method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1,
                         "text": text}}})
    first = len(wait(published)["params"]["diagnostics"])
    opened = time.perf_counter() - start
    times, last = [], first
    for i in range(edits):
        text += f"# edit {i}: nothing but a comment\n"
        start = time.perf_counter()
        lsp_stream.send(proc, {"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": i + 2},
            "contentChanges": [{"text": text}]}})
        last = len(wait(published)["params"]["diagnostics"])
        times.append(time.perf_counter() - start)
    helper_time = None
    if helper:
        huri = "file://" + helper
        with open(helper) as f:
            lsp_stream.send(proc, {"method": "textDocument/didOpen", "params": {
                "textDocument": {"uri": huri, "languageId": "python",
                                 "version": 1, "text": f.read()}}})
        wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
             and m["params"]["uri"] == huri)
        with open(helper_text) as f:
            new = f.read()
        start = time.perf_counter()
        lsp_stream.send(proc, {"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": huri, "version": 2},
            "contentChanges": [{"text": new}]}})
        wait(published)
        helper_time = time.perf_counter() - start
    lsp_stream.send(proc, {"id": 2, "method": "shutdown"})
    wait(lambda m: m.get("id") == 2)
    lsp_stream.send(proc, {"method": "exit"})
    proc.wait(timeout=30)
    return opened, statistics.median(times), first, last, helper_time


def check(tether, tree, rel):
    start = time.perf_counter()
    subprocess.run([tether, "check", "--quiet", "--no-cache", rel], cwd=os.path.dirname(tree),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tether", default=os.path.join(REPO, "build", "bin", "tether"))
    ap.add_argument("--baseline", help="another tether build's binary")
    ap.add_argument("--tree", default=CORPUS)
    ap.add_argument("--file", default="attention/attention_v1.py")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--edits", type=int, default=5)
    ap.add_argument("--helper", default="compilation/acl_graph.py")
    ap.add_argument("--helper-text")
    a = ap.parse_args()
    tree = os.path.realpath(a.tree)
    path = os.path.join(tree, a.file)
    rel = os.path.join(os.path.basename(tree), a.file)
    helper_text = a.helper_text
    if not helper_text and tree == os.path.realpath(CORPUS):
        helper_text = os.path.join(os.path.dirname(os.path.dirname(CORPUS)),
                                   "after", "vllm_ascend", a.helper)
    helper = os.path.join(tree, a.helper) if helper_text else None
    sides = {"new": [], "base": [], "check": []}
    for _ in range(a.runs):  # alternating, so that load drifts hit all sides
        sides["new"].append(session(a.tether, path, a.edits, helper,
                                    helper_text))
        if a.baseline:
            sides["base"].append(session(a.baseline, path, a.edits))
        sides["check"].append(check(a.tether, tree, rel))

    def med(runs, i):
        return statistics.median(r[i] for r in runs)

    cli = statistics.median(sides["check"])
    load = os.getloadavg()[0]
    print(f"{rel}: medians of {a.runs} alternating runs, {a.edits} edits per "
          f"session, load {load:.1f}")
    print(f"  tether check {rel}: {cli * 1000:.0f} ms")
    rows = [("open -> diagnostics", 0), ("comment edit -> diagnostics", 1)]
    for name, i in rows:
        new = med(sides["new"], i)
        line = f"  {name}: {new * 1000:.0f} ms ({new / cli:.3f}x check)"
        if sides["base"]:
            base = med(sides["base"], i)
            line += (f"; baseline {base * 1000:.0f} ms, "
                     f"{new / base:.3f}x baseline")
        print(line)
    if helper:
        new = med(sides["new"], 4)
        print(f"  helper edit ({a.helper}) -> {a.file} republished: "
              f"{new * 1000:.0f} ms ({new / cli:.3f}x check)")
    for side in ("new", "base"):
        if sides[side]:
            r = sides[side][-1]
            print(f"  {side}: {r[2]} diagnostic(s) at open, {r[3]} after the "
                  f"comment edits")


if __name__ == "__main__":
    main()
