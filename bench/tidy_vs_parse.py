#!/usr/bin/env python3
"""Time `tether check` against `clang++-22 -fsyntax-only` on the same TUs.

The parse is the physical floor of any clang-based check, so the figure of
merit is the ratio tether/parse, measured side by side: the two commands
alternate, several runs each, and the medians are compared. Peak memory is
the maximum resident set of each process (wait4 rusage).

  bench/tidy_vs_parse.py [--runs N] [--tether build/bin/tether] TU...
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import TORCH_FLAGS, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tether", default=os.path.join(ROOT, "build/bin/tether"))
    ap.add_argument("--checks", default="tether-*")
    ap.add_argument("tus", nargs="+")
    args = ap.parse_args()

    print(f"{'TU':42} {'parse s':>8} {'tether s':>9} {'ratio':>6} "
          f"{'parse MiB':>9} {'tether MiB':>10} {'mem':>5}")
    ratios, mem_ratios = [], []
    for tu in args.tus:
        parse_cmd = ["clang++-22", "-fsyntax-only", *TORCH_FLAGS, tu]
        tether_cmd = [args.tether, "check", f"--checks={args.checks}", tu,
                      "--", *TORCH_FLAGS]
        run(parse_cmd)  # warm the page cache for both
        p_times, t_times, p_mem, t_mem = [], [], [], []
        for _ in range(args.runs):
            w, _, m, code = run(parse_cmd)
            if code != 0:
                sys.exit(f"{tu}: clang++-22 -fsyntax-only failed ({code})")
            p_times.append(w); p_mem.append(m)
            w, _, m, code = run(tether_cmd)
            if code not in (0, 1):
                sys.exit(f"{tu}: tether check failed ({code})")
            t_times.append(w); t_mem.append(m)
        p, t = statistics.median(p_times), statistics.median(t_times)
        pm, tm = max(p_mem), max(t_mem)
        ratios.append(t / p); mem_ratios.append(tm / pm)
        name = os.path.relpath(tu, ROOT)
        print(f"{name[-42:]:42} {p:8.2f} {t:9.2f} {t / p:6.3f} "
              f"{pm:9.0f} {tm:10.0f} {tm / pm:5.2f}")
    print(f"median time ratio tether/parse: {statistics.median(ratios):.3f} "
          f"(goal <= 1.05); peak memory ratio: {max(mem_ratios):.2f} "
          f"(goal <= 1.10); {args.runs} runs each, alternating")


if __name__ == "__main__":
    main()
