#!/usr/bin/env python3
"""tether over every Python file of this machine, with CPython as the oracle.

    bench/real-trees.py build/bin/tether [--root DIR]... [--oracle PYTHON]

Runs `tether check` over the Python files of /usr/lib/python3*, the
repository's examples and test inputs, and ../shared/corpus beside the
checkout when present (plus any --root), in chunks of whole packages, so one
crash does not hide the rest: a chunk that dies of a signal or hangs is split
until the file that does it is found. Reports files, lines, wall seconds,
findings, crashes, and every file CPython's compile() accepts that tether
did not analyse (a syntax error or any other per-file problem), by reason.

A benchmark, not a test: it reads what the machine has. Expected: 0
crashes, 0 findings outside graph-capture code, 0 valid files rejected.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A file that spells none of these holds no graph capture: a finding there
# is a false positive.
# Task updates and weak references count: they are the bug class's other
# roads (a node's parameters set between replays, a project's own helper).
CAPTURE_WORDS = (b"graph(", b"capture_begin", b"capture_end", b"capturing",
                 b"CaptureBegin", b"weak", b"NodeSetParams", b"task_update",
                 b"GraphExecUpdate")

# Run by the oracle interpreter: which of the paths on stdin compile.
ORACLE = r"""
import json, sys
out = {}
for path in sys.stdin.read().split("\0"):
    if not path:
        continue
    try:
        with open(path, "rb") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
        out[path] = True
    except (SyntaxError, ValueError, UnicodeError, RecursionError,
            MemoryError, OverflowError, OSError):
        out[path] = False
json.dump(out, sys.stdout)
"""


def default_roots():
    roots = sorted(glob.glob("/usr/lib/python3*"))
    roots += [os.path.join(REPO, "examples"), os.path.join(REPO, "test")]
    corpus = os.path.join(os.path.dirname(REPO), "shared", "corpus")
    if os.path.isdir(corpus):
        roots.append(corpus)
    return roots


def python_files(roots):
    """Regular .py files under the roots, each real file once, grouped by
    the unit they belong to (a top-level entry of their root), so a chunk
    holds whole packages where it can."""
    seen, units = set(), collections.OrderedDict()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames
                                 if not d.startswith(".") and d != "__pycache__")
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                if not name.endswith(".py") or not os.path.isfile(path):
                    continue
                real = os.path.realpath(path)
                if real in seen:
                    continue
                seen.add(real)
                rel = os.path.relpath(dirpath, root).split(os.sep)[0]
                units.setdefault((root, rel), []).append(path)
    return list(units.values())


def chunks(units, size):
    chunk = []
    for files in units:
        if chunk and len(chunk) + len(files) > size:
            yield chunk
            chunk = []
        chunk.extend(files)
        while len(chunk) > size:
            yield chunk[:size]
            chunk = chunk[size:]
    if chunk:
        yield chunk


def oracle(python, files):
    proc = subprocess.run([python, "-c", ORACLE], input="\0".join(files),
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


class Run:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir  # cwd: absolute paths in the output
        self.crashes = []       # (files, what)
        self.problems = {}      # file -> message
        self.findings = []
        self.seconds = 0.0

    def tether(self, files):
        cmd = [self.args.tether, "check", "--format=json", "--no-cache",
               "-j", str(self.args.jobs)] + self.args.tether_arg + files
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  errors="replace", cwd=self.workdir,
                                  timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return None, "timeout", time.perf_counter() - start
        seconds = time.perf_counter() - start
        if proc.returncode < 0 or proc.returncode > 2:
            return None, "exit %d" % proc.returncode, seconds
        return proc, None, seconds

    def check(self, files):
        """Analyse files; on a crash or hang, split until the culprit."""
        proc, failure, seconds = self.tether(files)
        if failure is None:
            self.seconds += seconds
            self.record(files, proc)
            return
        if len(files) == 1:
            self.crashes.append((files[0], failure))
            return
        half = len(files) // 2
        self.check(files[:half])
        self.check(files[half:])

    def record(self, files, proc):
        named = set(files)
        for line in proc.stderr.splitlines():
            if not line.startswith("tether: "):
                continue
            rest = line[len("tether: "):]
            path, sep, message = rest.partition(": ")
            # A path may hold ": "; take the longest named one.
            while sep and path not in named:
                more, sep, message = message.partition(": ")
                path += ": " + more
            if path in named:
                self.problems[path] = message
            else:
                self.problems.setdefault("(run)", rest)
        if proc.stdout.strip():
            self.findings += json.loads(proc.stdout)["diagnostics"]


def reason_class(message):
    """Group problems by reason: positions and sizes stripped."""
    for key in ("syntax error", "too deeply nested", "not valid UTF-8",
                "binary file", "MiB limit", "Python 2 source",
                "not a regular file", "cannot read", "symlink loop"):
        if key in message:
            return key
    return message


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tether", help="the tether binary")
    ap.add_argument("--root", action="append", default=[],
                    help="also scan this tree (repeatable)")
    ap.add_argument("--only", action="store_true",
                    help="scan only the --root trees")
    ap.add_argument("--oracle", default="/usr/bin/python3",
                    help="the interpreter whose compile() decides validity")
    ap.add_argument("--chunk", type=int, default=400, help="files per run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run")
    ap.add_argument("--tether-arg", action="append", default=[],
                    help="extra argument for tether check (repeatable)")
    ap.add_argument("--list", type=int, default=20,
                    help="files listed per reason (0: all)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    args.tether = os.path.abspath(args.tether)

    roots = args.root if args.only else default_roots() + args.root
    units = python_files(roots)
    files = [f for u in units for f in u]
    lines = 0
    capture_code = set()
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        lines += data.count(b"\n") + (not data.endswith(b"\n") and bool(data))
        if any(w in data for w in CAPTURE_WORDS):
            capture_code.add(f)
    valid = oracle(args.oracle, files)

    with tempfile.TemporaryDirectory() as work:
        run = Run(args, work)
        for chunk in chunks(units, args.chunk):
            run.check(chunk)

    rejected = collections.defaultdict(list)
    for f, message in sorted(run.problems.items()):
        if valid.get(f):
            rejected[reason_class(message)].append((f, message))
    invalid = [f for f in files if not valid.get(f)]
    stray = [d for d in run.findings if d["file"] not in capture_code]
    by_check = collections.Counter(d["check"] for d in run.findings)

    print("roots: " + " ".join(roots))
    print("files: %d (%d rejected by %s compile())" %
          (len(files), len(invalid), args.oracle))
    print("lines: %d" % lines)
    print("seconds (wall, tether only): %.1f" % run.seconds)
    print("findings: %d (%d outside graph-capture code)" %
          (len(run.findings), len(stray)))
    for check, n in sorted(by_check.items()):
        print("  %-42s %d" % (check, n))
    for d in stray:
        print("  outside capture code: %s:%d:%d: %s [%s]" %
              (d["file"], d["line"], d["column"], d["message"], d["check"]))
    print("crashes: %d" % len(run.crashes))
    for f, what in run.crashes:
        print("  %s: %s" % (f, what))
    total = sum(len(v) for v in rejected.values())
    print("valid files not analysed: %d" % total)
    for reason, items in sorted(rejected.items()):
        print("  %s: %d" % (reason, len(items)))
        for f, message in items[:args.list or None]:
            print("    %s: %s" % (f, message))
    others = [(f, m) for f, m in run.problems.items()
              if not valid.get(f) and f != "(run)"]
    print("files CPython rejects, reported by tether: %d of %d" %
          (len(others), len(invalid)))
    missed = [f for f in invalid if f not in run.problems]
    for f in missed[:args.list or None]:
        print("  CPython rejects, tether analysed: %s" % f)
    if "(run)" in run.problems:
        print("other output: " + run.problems["(run)"])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"files": len(files), "lines": lines,
                       "seconds": round(run.seconds, 1),
                       "findings": len(run.findings),
                       "findings_outside_capture": len(stray),
                       "crashes": len(run.crashes),
                       "valid_rejected": total,
                       "invalid_analysed": len(missed)}, fh, indent=1)
    return 1 if run.crashes or total or stray else 0


if __name__ == "__main__":
    sys.exit(main())
