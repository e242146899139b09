#!/usr/bin/env python3
"""How the checks' cost grows with the size of a translation unit.

For each N, bench/cxx/gen_tu.py makes a TU of N functions; `tether check`
runs on it with no checks (`--checks=-*`: parse, clang-tidy's matchers, no
analysis) and with all four checks, alternating, several runs each. The
difference of the medians is the checks' cost; divided by N it is the cost
per function, which stays flat when the interprocedural analysis is linear.
Per-check rows run one check at a time (each includes the shared analysis
it needs). Times are CPU seconds (user+sys of the process, from wait4), which
a loaded machine disturbs less than wall time; wall medians are printed too.

  bench/cxx/scale.py [--runs R] [--sizes 500,1000,2000] [--torch] [--per-check]
  bench/cxx/scale.py --callgrind [--sizes ...]              (instruction counts)
  bench/cxx/scale.py [--runs R] [--per-check] --tu FILE...   (real-header TUs)

With --callgrind, each generated TU is instead run once with all checks
under valgrind's callgrind and the instructions are counted: the program's
total and the inclusive cost of clang::ast_matchers::MatchFinder::matchAST,
which is everything the checks do (matchers and end-of-TU analysis) and
nothing of the parse. Instruction counts do not depend on the machine's
load, which CPU seconds on a shared machine do.

With --tu, the given files (compiled with the libtorch flags) are measured
instead of generated ones, and the checks' cost is shown as a percentage of
the no-check run.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import TORCH_FLAGS, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STUB_FLAGS = ["-std=c++17", "-isystem",
              os.path.join(ROOT, "test", "checks", "cxx", "Inputs")]
CHECKS = ["tether-double-weak-ref", "tether-weak-ref-before-capture-end",
          "tether-workspace-shared-across-layers", "tether-weak-ref-of-maybe-null"]


def measure(cmds, runs):
    """Medians of (wall, cpu) per command, the commands alternating."""
    walls = {k: [] for k in cmds}
    cpus = {k: [] for k in cmds}
    for _ in range(runs):
        for k, cmd in cmds.items():
            w, c, _, code = run(cmd)
            if code not in (0, 1):
                sys.exit(f"{' '.join(cmd)}: exit {code}")
            walls[k].append(w)
            cpus[k].append(c)
    return ({k: statistics.median(v) for k, v in walls.items()},
            {k: statistics.median(v) for k, v in cpus.items()})


def commands(tether, tu, flags, per_check):
    base = [tether, "check", "-j", "1"]
    cmds = {"none": base + ["--checks=-*", tu, "--", *flags],
            "all": base + ["--checks=tether-*", tu, "--", *flags]}
    if per_check:
        for c in CHECKS:
            cmds[c] = base + [f"--checks={c}", tu, "--", *flags]
    return cmds


def measure_tus(args):
    print(f"{'TU':44} {'none cpu':>9} {'all cpu':>8} {'checks':>7} {'%':>6}"
          + "".join(f" {c[7:][:14]:>14}" for c in CHECKS if args.per_check))
    for tu in args.tu:
        cmds = commands(args.tether, tu, TORCH_FLAGS, args.per_check)
        run(cmds["none"])  # warm the page cache
        _, cpu = measure(cmds, args.runs)
        diff = cpu["all"] - cpu["none"]
        name = os.path.relpath(os.path.abspath(tu), ROOT)
        print(f"{name[-44:]:44} {cpu['none']:9.2f} {cpu['all']:8.2f} "
              f"{diff:7.2f} {100 * diff / cpu['none']:6.1f}"
              + "".join(f" {cpu[c] - cpu['none']:14.2f}"
                        for c in CHECKS if args.per_check), flush=True)
    print(f"{args.runs} runs each, alternating; CPU = user+sys of the tether "
          "process; 'checks' = all - none, '%' of none")


def callgrind_ir(cmd, out):
    """(total Ir, inclusive Ir of MatchFinder::matchAST) of one run."""
    proc = subprocess.run(["valgrind", "--tool=callgrind",
                           f"--callgrind-out-file={out}", *cmd],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode} under callgrind")
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                          capture_output=True, text=True, check=True).stdout
    total = checks = None
    for line in text.splitlines():
        count = line.strip().split(" ", 1)[0].replace(",", "")
        if "PROGRAM TOTALS" in line:
            total = int(count)
        elif "MatchFinder::matchAST" in line and checks is None:
            checks = int(count)
    if total is None or checks is None:
        sys.exit(f"callgrind_annotate: no totals or matchAST in {out}")
    return total, checks


def generate_tu(tmp, n, torch):
    """Write gen_tu.py's translation unit of n functions into tmp."""
    tu = os.path.join(tmp, f"gen_{n}.cpp")
    with open(tu, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "gen_tu.py"), str(n)]
                       + (["--torch"] if torch else []), stdout=f, check=True)
    return tu


def measure_callgrind(args, sizes, flags):
    print(f"{'N':>5} {'total Ir':>14} {'checks Ir':>13} {'%':>5} {'Ir/fn':>9}")
    per_fn = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            tu = generate_tu(tmp, n, args.torch)
            total, checks = callgrind_ir(
                commands(args.tether, tu, flags, False)["all"],
                os.path.join(tmp, f"cg_{n}.out"))
            per_fn.append((n, checks / n))
            print(f"{n:5d} {total:14,d} {checks:13,d} {100 * checks / total:5.1f} "
                  f"{checks / n:9,.0f}", flush=True)
    n0, f0 = per_fn[0]
    print("checks' instructions per function relative to N=%d: %s" % (
        n0, ", ".join(f"N={n}: {f / f0:.2f}x" for n, f in per_fn)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--torch", action="store_true",
                    help="generated TUs include the real ATen headers")
    ap.add_argument("--per-check", action="store_true",
                    help="also time each check alone")
    ap.add_argument("--tether", default=os.path.join(ROOT, "build/bin/tether"))
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions under callgrind instead of timing")
    ap.add_argument("--tu", nargs="+", default=[],
                    help="measure these TUs (libtorch flags) instead")
    args = ap.parse_args()
    if args.tu:
        return measure_tus(args)
    flags = TORCH_FLAGS if args.torch else STUB_FLAGS
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.callgrind:
        return measure_callgrind(args, sizes, flags)

    print(f"{'N':>5} {'none cpu':>9} {'all cpu':>8} {'checks':>7} "
          f"{'ms/fn':>6} {'none wall':>9} {'all wall':>9}"
          + "".join(f" {c[7:][:14]:>14}" for c in CHECKS if args.per_check))
    per_fn = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            tu = generate_tu(tmp, n, args.torch)
            cmds = commands(args.tether, tu, flags, args.per_check)
            run(cmds["none"])  # warm the page cache
            wall, cpu = measure(cmds, args.runs)
            diff = cpu["all"] - cpu["none"]
            per_fn.append((n, diff / n))
            print(f"{n:5d} {cpu['none']:9.2f} {cpu['all']:8.2f} {diff:7.2f} "
                  f"{1000 * diff / n:6.3f} {wall['none']:9.2f} {wall['all']:9.2f}"
                  + "".join(f" {cpu[c] - cpu['none']:14.2f}"
                            for c in CHECKS if args.per_check), flush=True)
    n0, f0 = per_fn[0]
    print("checks' cost per function relative to N=%d: %s" % (
        n0, ", ".join(f"N={n}: {f / f0:.2f}x" if f0 > 0 else f"N={n}: n/a"
                      for n, f in per_fn)))
    print(f"{args.runs} runs each, alternating; CPU = user+sys of the tether "
          "process; 'checks' = all - none; per-check columns = that check "
          "alone - none")


if __name__ == "__main__":
    main()
