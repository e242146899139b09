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
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import run  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
        for turn in range(args.runs):
            order = (args.tether, args.baseline) if turn % 2 == 0 else (
                args.baseline, args.tether)
            for exe in order:
                t, _, rss, _ = run([exe, "check", "--no-cache", path],
                                   args.timeout)
                times[exe].append(t)
                peaks[exe].append(rss)
                stopped[exe] |= t >= args.timeout
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
