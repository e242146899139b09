#!/usr/bin/env python3
"""Time `tether check` on whole installed packages, side by side with a
baseline build of tether.

    bench/python/packages.py --baseline OLD_TETHER [--tether build/bin/tether]
        [--runs 3] [--timeout 600] PATH...

Each PATH (a package folder or a file: its imports are followed, as in a
real run) is checked by both builds in alternating runs, without the
cache. Prints, per path, the median wall time of each build, their ratio
(tether / baseline), and each build's peak resident memory. A run that
passes --timeout is stopped and counted as the timeout (the ratio is then
an upper bound, printed with "<"). Large real packages are where the
engine's costs that grow faster than the code show (summaries that grow
with the call tree, steps linear in a function's state): docs/architecture.md,
"A summary has a budget". Not a ctest test: timings need a quiet machine.
"""
import argparse
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Runs one command in a child python, so that its peak RSS is its own.
MEASURE = r"""
import resource, subprocess, sys, time
timeout = float(sys.argv[1])
start = time.monotonic()
try:
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=timeout)
    done = 1
except subprocess.TimeoutExpired:
    done = 0
elapsed = time.monotonic() - start
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(elapsed, u.ru_maxrss, done)
"""


def measure(cmd, timeout):
    out = subprocess.run([sys.executable, "-c", MEASURE, str(timeout)] + cmd,
                         capture_output=True, text=True, check=True).stdout
    elapsed, rss, done = out.split()
    return float(elapsed), int(rss) / 1024.0, done == "1"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tether", default=os.path.join(REPO, "build/bin/tether"))
    ap.add_argument("--baseline", required=True,
                    help="another tether executable to compare with")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    for exe in (args.tether, args.baseline):
        if not os.access(exe, os.X_OK):
            sys.exit(f"packages.py: {exe}: not an executable")
    print("%-50s %10s %10s %8s %9s %9s" % (
        "path", "tether s", "base s", "ratio", "peak MB", "base MB"))
    for path in args.paths:
        if not os.path.exists(path):
            sys.exit(f"packages.py: {path}: no such file or folder")
        times = {args.tether: [], args.baseline: []}
        peaks = {args.tether: [], args.baseline: []}
        stopped = {args.tether: False, args.baseline: False}
        for run in range(args.runs):
            order = (args.tether, args.baseline) if run % 2 == 0 else (
                args.baseline, args.tether)
            for exe in order:
                t, rss, done = measure([exe, "check", "--no-cache", path],
                                       args.timeout)
                times[exe].append(t)
                peaks[exe].append(rss)
                stopped[exe] |= not done
        new = statistics.median(times[args.tether])
        old = statistics.median(times[args.baseline])
        ratio = ("<" if stopped[args.baseline] else "") + "%.3f" % (new / old)
        if stopped[args.tether]:
            ratio = ">" + ratio.lstrip("<")
        print("%-50s %10s %10s %8s %9.0f %9.0f" % (
            path[-50:],
            ("> " if stopped[args.tether] else "") + "%.2f" % new,
            ("> " if stopped[args.baseline] else "") + "%.2f" % old,
            ratio, max(peaks[args.tether]), max(peaks[args.baseline])))


if __name__ == "__main__":
    main()
