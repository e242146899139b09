#!/usr/bin/env python3
"""Time `tether check` as a pre-commit hook runs it: two staged files of a
real package, cold (--no-cache), warm (answered from the cache) and after
an edit (a comment added to the first file of a copy of the tree before
each run: the rest of the package comes from the module cache), side by
side with pyflakes on the same two files and with tether on the whole
package.

    bench/python/precommit.py [--tether build/bin/tether] [--tree DIR]
                              [--file REL --file REL] [--runs 7]

The commands alternate within each round (so a busy minute weighs on all
of them alike); the figures are medians of the rounds and ratios against
pyflakes and against the whole-package run. The warm runs' caches are filled
once before the rounds, in folders of their own. Not a ctest test: timings
need a quiet machine.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import run  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(os.path.dirname(REPO), "shared", "corpus",
                      "vllm-ascend-5522", "before", "vllm_ascend")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tether", default=os.path.join(REPO, "build", "bin", "tether"))
    ap.add_argument("--tree", default=CORPUS)
    ap.add_argument("--file", action="append", default=[])
    ap.add_argument("--runs", type=int, default=7)
    opts = ap.parse_args()
    files = [os.path.join(opts.tree, f) for f in
             (opts.file or ["attention/attention_v1.py", "compilation/acl_graph.py"])]
    pyflakes = shutil.which("pyflakes3") or shutil.which("pyflakes")
    cache = tempfile.mkdtemp(prefix="tether-bench-cache-")
    try:
        warm = [opts.tether, "check", "--cache-dir", os.path.join(cache, "warm")] + files
        run(warm)  # fills the cache
        copy = os.path.join(cache, "tree", os.path.basename(opts.tree.rstrip("/")))
        shutil.copytree(opts.tree, copy)
        copied = [os.path.join(copy, os.path.relpath(f, opts.tree)) for f in files]
        edited = [opts.tether, "check", "--cache-dir", os.path.join(cache, "edit")] + copied
        run(edited)
        edits = [0]

        def edit():
            edits[0] += 1
            with open(copied[0], "a") as f:
                f.write("# edit %d\n" % edits[0])

        cmds = [("tether, 2 files, warm", warm, None),
                ("tether, 2 files, edited", edited, edit),
                ("tether, 2 files, cold", [opts.tether, "check", "--no-cache"] + files, None),
                ("tether, whole package", [opts.tether, "check", "--no-cache", opts.tree], None)]
        if pyflakes:
            cmds.append(("pyflakes, 2 files", [pyflakes] + files, None))
        walls = {name: [] for name, _, _ in cmds}
        for _ in range(opts.runs):
            for name, cmd, before in cmds:
                if before:
                    before()
                walls[name].append(run(cmd)[0])
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    med = {name: statistics.median(v) for name, v in walls.items()}
    whole = med["tether, whole package"]
    flakes = med.get("pyflakes, 2 files")
    print("%d alternating rounds, load %s, %s" % (opts.runs, load, opts.tree))
    for name, _, _ in cmds:
        line = "  %-24s %7.3f s   %5.2fx the whole package" % (name, med[name], med[name] / whole)
        if flakes:
            line += "   %5.2fx pyflakes" % (med[name] / flakes)
        print(line)


if __name__ == "__main__":
    main()
