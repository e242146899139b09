#!/usr/bin/env python3
"""Differential test of `tether check`'s cache: every run through the cache
must print what a run without it (--no-cache) prints for the same texts.

Each tree is copied into a work folder and analysed twice over: as a whole,
and as two named files with the rest of the package as context (the
pre-commit shape). For each, in one cache folder: a cold run, a warm run
(which must be answered from the cache), and then one run after each edit
of a series applied to the copy, each compared with --no-cache on the same
texts and followed by a warm run that must be answered again:

  comment      a comment appended to a context module (text changes,
               meaning does not)
  importer     a new module that imports a named one (discovery changes)
  helper-body  the first weak-reference call of a context module replaced
               by its argument (a summary changes)
  truncated    a context module cut in half (it may stop parsing)
  deleted      a context module removed
  config       a .tether.yaml beside the named files (the catalog changes)
  fix:PATH     PATH replaced by the same file of --fix-tree (a real fix,
               file by file)

Prints one line per step; exits 1 on the first disagreement.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

WEAK_CALL = re.compile(r"\b(weak_ref_tensors?|weak_ref)\(([A-Za-z_][\w.]*)\)")


def run(tether, cwd, args, cache):
    cmd = [tether, "check", "--format=json", "--cache-stats", "-j", "2"]
    cmd += ["--no-cache"] if cache is None else ["--cache-dir", cache]
    p = subprocess.run(cmd + args, cwd=cwd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("tether failed (%d) on %s:\n%s" % (p.returncode, args, p.stderr))
    answered = re.search(r"cache: (\d+) of (\d+) Python scans answered", p.stderr)
    notes = [l for l in p.stderr.splitlines() if "cache:" in l and "scans answered" not in l]
    return p.stdout, p.returncode, answered and (int(answered.group(1)), int(answered.group(2))), notes


def py_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


class Case:
    def __init__(self, opts, label, work, named, fix_tree, tree_copy, source_tree):
        self.opts, self.label, self.work, self.named = opts, label, work, named
        self.fix_tree, self.copy, self.source = fix_tree, tree_copy, source_tree
        self.cache = tempfile.mkdtemp(prefix="cache-", dir=work)
        self.steps = 0

    def check(self, step, expect_warm_first=False):
        ref = run(self.opts.tether, self.work, self.named, None)
        got = run(self.opts.tether, self.work, self.named, self.cache)
        warm = run(self.opts.tether, self.work, self.named, self.cache)
        for name, r in (("through the cache", got), ("warm", warm)):
            if r[0] != ref[0] or r[1] != ref[1]:
                print("FAIL %s %s: %s differs from --no-cache" % (self.label, step, name))
                print("--- no cache:\n" + ref[0] + "\n--- " + name + ":\n" + r[0])
                sys.exit(1)
            if r[3]:
                print("FAIL %s %s: unexpected cache notes: %s" % (self.label, step, r[3]))
                sys.exit(1)
        if not warm[2] or warm[2][0] != warm[2][1]:
            print("FAIL %s %s: the warm run was not answered from the cache (%s)"
                  % (self.label, step, warm[2]))
            sys.exit(1)
        if expect_warm_first is not None and got[2] and (got[2][0] == got[2][1]) != expect_warm_first:
            print("FAIL %s %s: the first run %s answered from the cache (%s)"
                  % (self.label, step, "was not" if expect_warm_first else "was", got[2]))
            sys.exit(1)
        findings = ref[0].count('"check":')
        print("ok %s %s: %d finding(s), %s" % (self.label, step, findings,
                                                "answered" if got[2][0] else "analysed"))
        self.steps += 1


def context_files(case):
    """The modules to edit: those not named (the whole tree when a folder
    is named, but for its first two files, which stay as they are)."""
    named = {os.path.normpath(os.path.join(case.work, n)) for n in case.named}
    files = py_files(case.copy)
    if any(os.path.isdir(n) for n in named):
        return files[2:]
    return [f for f in files if f not in named]


def edits(case):
    """(label, apply) pairs; apply returns False when the edit does not fit."""
    def comment():
        ctx = context_files(case)
        if not ctx:
            return False
        with open(ctx[0], "a") as f:
            f.write("\n# edited by the differential test\n")
        return True

    def importer():
        first = os.path.join(case.work, case.named[0])
        if os.path.isdir(first):
            folder, mod = first, None
        else:
            folder, mod = os.path.dirname(first), os.path.splitext(os.path.basename(first))[0]
        with open(os.path.join(folder, "tether_diff_importer.py"), "w") as f:
            f.write("from . import %s\n" % mod if mod and os.path.exists(os.path.join(folder, "__init__.py"))
                    else "import os\n")
        return True

    def helper_body():
        for path in context_files(case) or py_files(case.copy):
            text = open(path, encoding="utf-8", errors="surrogateescape").read()
            new, n = WEAK_CALL.subn(r"\2", text, count=1)
            if n:
                open(path, "w", encoding="utf-8", errors="surrogateescape").write(new)
                return True
        return False

    def truncated():
        ctx = context_files(case)
        if not ctx:
            return False
        lines = open(ctx[-1], encoding="utf-8", errors="surrogateescape").read().splitlines(True)
        open(ctx[-1], "w", encoding="utf-8", errors="surrogateescape").write("".join(lines[: len(lines) // 2]))
        return True

    def deleted():
        ctx = context_files(case)
        if len(ctx) < 2:
            return False
        os.remove(ctx[len(ctx) // 2])
        return True

    def config():
        first = os.path.join(case.work, case.named[0])
        folder = first if os.path.isdir(first) else os.path.dirname(first)
        with open(os.path.join(folder, ".tether.yaml"), "a") as f:
            f.write("weak_ref_functions: [tether_diff_weak]\n")
        return True

    out = [("comment", comment), ("importer", importer), ("helper-body", helper_body),
           ("truncated", truncated), ("deleted", deleted), ("config", config)]
    if case.fix_tree:
        for rel in sorted(differing(case.source, case.fix_tree)):
            def fix(rel=rel):
                shutil.copyfile(os.path.join(case.fix_tree, rel), os.path.join(case.copy, rel))
                return True
            out.insert(len(out) - 5, ("fix:" + rel, fix))
    return out


def concurrent(case):
    """N runs at once into one fresh cache, then one more: every output is
    the --no-cache one, and the last is answered (a record was written
    whole, by one of them, with no run left waiting on another)."""
    ref = run(case.opts.tether, case.work, case.named, None)
    cache = tempfile.mkdtemp(prefix="cache-", dir=case.work)
    cmd = [case.opts.tether, "check", "--format=json", "-j", "1", "--cache-dir", cache]
    procs = [subprocess.Popen(cmd + case.named, cwd=case.work, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for _ in range(case.opts.concurrent)]
    for p in procs:
        out, err = p.communicate()
        if out != ref[0] or p.returncode != ref[1] or err:
            print("FAIL %s concurrent: a run differs from --no-cache:\n%s\n%s"
                  % (case.label, out, err))
            sys.exit(1)
    last = run(case.opts.tether, case.work, case.named, cache)
    if last[0] != ref[0] or not last[2] or last[2][0] != last[2][1]:
        print("FAIL %s concurrent: the run after them was not answered (%s)" % (case.label, last[2]))
        sys.exit(1)
    leftovers = [f for f in os.listdir(os.path.join(cache, "python-scans")) if not f.endswith(".json")]
    if leftovers:
        print("FAIL %s concurrent: private files left behind: %s" % (case.label, leftovers))
        sys.exit(1)
    print("ok %s concurrent: %d runs at once, then answered" % (case.label, case.opts.concurrent))


def differing(a, b):
    out = []
    for path in py_files(a):
        rel = os.path.relpath(path, a)
        other = os.path.join(b, rel)
        if os.path.exists(other) and open(path, "rb").read() != open(other, "rb").read():
            out.append(rel)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tether", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fix-tree", help="the fixed version of the (single) tree")
    ap.add_argument("--named", action="append", default=[],
                    help="files of the tree to name in the two-file case (relative)")
    ap.add_argument("--concurrent", type=int, default=0,
                    help="also N runs at once into one cache, after the cold step")
    ap.add_argument("trees", nargs="+")
    opts = ap.parse_args()
    shutil.rmtree(opts.work, ignore_errors=True)
    os.makedirs(opts.work)
    total = 0
    for i, tree in enumerate(opts.trees):
        tree = os.path.abspath(tree)
        files = py_files(tree)
        if not files:
            continue
        chosen = opts.named or [os.path.relpath(f, tree) for f in files[:2]]
        for mode in ("whole", "two files"):
            name = "t%d-%s" % (i, mode.replace(" ", "-"))
            copy = os.path.join(opts.work, name, os.path.basename(tree))
            shutil.copytree(tree, copy, ignore=shutil.ignore_patterns("__pycache__"))
            base = os.path.join(name, os.path.basename(tree))
            named = [base] if mode == "whole" else [os.path.join(base, c) for c in chosen]
            case = Case(opts, "%s (%s)" % (os.path.basename(tree), mode), opts.work,
                        named, opts.fix_tree, copy, tree)
            case.check("cold", expect_warm_first=False)
            if opts.concurrent:
                concurrent(case)
            case.check("unchanged", expect_warm_first=True)
            for label, apply in edits(case):
                if apply():
                    case.check(label, expect_warm_first=None)
            total += case.steps
    print("%d steps, all equal to --no-cache" % total)


if __name__ == "__main__":
    main()
