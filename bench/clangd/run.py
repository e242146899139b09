"""Time to diagnostics: tether-clangd --check vs stock clangd-22 --check.

usage: run.py [--runs N] [--tether-clangd PATH] [--clangd PATH] [--out FILE]

Both binaries check bench/clangd/attention.cpp (full libtorch headers) with
the same compile flags and the same .clangd (docs/clangd.yaml: tether-*
added, FastCheckFilter Loose), --check-warnings, no index. Runs alternate
between the two to spread machine noise; the median wall time of each and
their ratio are printed (the goal: tether-clangd within 5% of clangd).
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import TORCH_FLAGS  # noqa: E402
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=7)
ap.add_argument("--tether-clangd",
                default=os.path.join(root, "build", "bin", "tether-clangd"))
ap.add_argument("--clangd", default="clangd-22")
ap.add_argument("--out")
args = ap.parse_args()

work = tempfile.mkdtemp(prefix="tether-clangd-bench-")
src = os.path.join(work, "attention.cpp")
shutil.copy(os.path.join(here, "attention.cpp"), src)
shutil.copy(os.path.join(root, "docs", "clangd.yaml"),
            os.path.join(work, ".clangd"))
with open(os.path.join(work, "compile_flags.txt"), "w") as f:
    f.write("\n".join(TORCH_FLAGS) + "\n")

# The runs happen in a scratch directory: resolve the binaries first.
tools = {name: os.path.abspath(shutil.which(exe) or exe) for name, exe in
         (("clangd-22", args.clangd), ("tether-clangd", args.tether_clangd))}
times = {k: [] for k in tools}
cpu = {k: [] for k in tools}


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

warnings = {}
for i in range(args.runs + 1):  # run 0 warms the page cache, not counted
    for name, exe in tools.items():
        c0, t0 = child_cpu(), time.perf_counter()
        p = subprocess.run([exe, "--check=" + src, "--check-warnings",
                            "--background-index=false"], cwd=work,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        dt, dc = time.perf_counter() - t0, child_cpu() - c0
        if "All checks completed, 0 errors" not in p.stdout:
            raise SystemExit(f"{name} failed:\n{p.stdout[-3000:]}")
        if i:
            times[name].append(dt)
            cpu[name].append(dc)
        warnings[name] = sorted(set(re.findall(r"\[(tether-[\w-]+)\]", p.stdout)))
shutil.rmtree(work)

med = {k: statistics.median(v) for k, v in times.items()}
cmed = {k: statistics.median(v) for k, v in cpu.items()}
ratio = med["tether-clangd"] / med["clangd-22"]
cratio = cmed["tether-clangd"] / cmed["clangd-22"]
lines = [
    f"file: bench/clangd/attention.cpp (<torch/extension.h>), {args.runs} runs each, alternating;"
    f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
    "",
    "| binary | wall median s | wall min s | CPU median s | CPU min s | tether checks reported |",
    "|---|---|---|---|---|---|",
]
for k in tools:
    lines.append(f"| {k} | {med[k]:.3f} | {min(times[k]):.3f} | {cmed[k]:.3f} | "
                 f"{min(cpu[k]):.3f} | {', '.join(warnings[k]) or 'none'} |")
lines.append("")
lines.append(f"tether-clangd / clangd-22: wall {ratio:.3f}, CPU {cratio:.3f} (medians); "
             f"CPU is {'within' if cratio <= 1.05 else 'over'} the 5% goal")
text = "\n".join(lines)
print(text)
if args.out:
    with open(args.out, "w") as f:
        f.write(text + "\n")
