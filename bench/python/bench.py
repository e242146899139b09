#!/usr/bin/env python3
"""Time `tether check` on a generated Python package against CPython's own
parser (`ast.parse` over the same files), at 25k, 50k and 100k lines.

    bench/python/bench.py [--tether build/bin/tether] [--runs 5] [--jobs N]

Prints, per size, the median wall time of each side, their ratio
(tether / ast.parse; the goal is <= 1.0), the median of the ratios of each
alternating pair (steadier when the machine's speed drifts during a run)
and tether's peak resident memory (the goal is <= 500 MB at 100k lines).
Not a ctest test: timings need a quiet machine.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

MODULE = '''\
"""Generated module {i}: an attention backend layer and its graph glue."""
from dataclasses import dataclass
from typing import Optional

import torch
import torch_npu

from {pkg}.common import weak_ref_tensors, get_state
from {pkg}.mod{prev} import Helper{prev}

_CACHE_{i}: dict = {{}}
_STATE_{i}: Optional[dict] = None


@dataclass
class Params{i}:
    events: dict
    workspaces: dict
    handles: dict


def make_params_{i}(sizes):
    return Params{i}({{s: [] for s in sizes}}, {{s: None for s in sizes}},
                     {{s: [] for s in sizes}})


class Layer{i}:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale
        self.helper = Helper{prev}()
        self.key_cache = None
        self.value_cache = None

'''

METHOD = '''\
    def forward_{j}(self, ctx, query, key, value, output, num_tokens):
        params = get_state()
        if not ctx.capturing:
            out = torch_npu.npu_fused_infer_attention_score(
                query, key, value, num_heads=self.num_heads, scale=self.scale)
            output.copy_(out)
            return output
        workspace = params.workspaces.get(num_tokens)
        if workspace is None:
            workspace = torch_npu._npu_fused_infer_attention_score_get_max_workspace(
                query, key, value, num_heads=self.num_heads, scale=self.scale)
            params.workspaces[num_tokens] = workspace
        params.handles[num_tokens].append((
            weak_ref_tensors(query), weak_ref_tensors(key),
            weak_ref_tensors(value), weak_ref_tensors(output)))
        for idx in range(self.num_heads):
            if idx % 2 == 0:
                query = query * self.scale + idx
            else:
                query = torch.relu(query)
        torch_npu.npu_fused_infer_attention_score.out(
            query, key, value, num_heads=self.num_heads, scale=self.scale,
            workspace=workspace, out=[output])
        return output

'''

TAIL = '''\

class Helper{i}:
    def run(self, graph, runnable, x):
        with torch.npu.graph(graph):
            out = runnable(x)
        return weak_ref_tensors(out)


def capture_{i}(graph, layer, ctx, q, k, v, o):
    with torch.npu.graph(graph):
        y = layer.forward_0(ctx, q, k, v, o, q.shape[0])
    _CACHE_{i}[q.shape[0]] = weak_ref_tensors(y)
    return y
'''

COMMON = '''\
import torch


def weak_ref_tensors(t):
    return torch.ops._C_ascend.weak_ref_tensor(t)


_STATE = None


def get_state():
    return _STATE
'''


def generate(root, pkg, modules, methods):
    d = os.path.join(root, pkg)
    os.makedirs(d)
    lines = 0
    for name, text in (("__init__.py", ""), ("common.py", COMMON)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        lines += text.count("\n")
    for i in range(modules):
        prev = (i - 1) % modules
        text = MODULE.format(i=i, prev=prev, pkg=pkg)
        text += "".join(METHOD.format(j=j) for j in range(methods))
        text += TAIL.format(i=i)
        with open(os.path.join(d, "mod%d.py" % i), "w") as f:
            f.write(text)
        lines += text.count("\n")
    return lines


def measure(cmd, expect_rc):
    start = time.perf_counter()
    # Peak RSS of this child alone: run it under a fresh python wrapper.
    wrapper = [sys.executable, "-c",
               "import resource, subprocess, sys\n"
               "rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
               "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "print(u.ru_maxrss, u.ru_utime + u.ru_stime)\n"
               "sys.exit(rc)"] + cmd
    p = subprocess.run(wrapper, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if p.returncode not in expect_rc:
        sys.exit("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                                  p.stderr[-2000:]))
    rss, cpu = p.stdout.strip().splitlines()[-1].split()
    return elapsed, float(cpu), int(rss) / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tether", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "bin", "tether"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=0,
                    help="tether -j (0: its default)")
    ap.add_argument("--python", default=sys.executable,
                    help="the CPython whose ast.parse is the baseline "
                         "(default: the one running this script; quote "
                         "Debian's /usr/bin/python3 on the supported platform)")
    ap.add_argument("--tree", action="append", default=[],
                    help="measure this real tree instead of the generated "
                         "packages (repeatable)")
    args = ap.parse_args()
    tether = os.path.abspath(args.tether)
    if not os.path.exists(tether):
        sys.exit("no tether binary at %s (build it or pass --tether)" % tether)

    parse = ("import ast, os, sys\n"
             "for d, _, fs in os.walk(sys.argv[1]):\n"
             "    for f in fs:\n"
             "        if f.endswith('.py'):\n"
             "            with open(os.path.join(d, f), 'rb') as h:\n"
             "                ast.parse(h.read())\n")
    # Wall time is what a user waits for; CPU time (user + sys) is the
    # fairer figure on a loaded machine. Both are medians over the runs.
    # Timings from a loaded machine (other builds) are not comparable:
    # print the load average next to them.
    print("load average %.2f %.2f %.2f on %d cores" % (
        os.getloadavg() + (os.cpu_count(),)))
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    print("baseline: ast.parse of %s (Python %s)" % (args.python, version))
    print("%8s %8s %10s %10s %7s %7s %10s %10s %7s %9s" % (
        "lines", "modules", "tether s", "ast s", "ratio", "pairs",
        "tether cpu", "ast cpu", "ratio", "peak MB"))
    # (modules, methods per module): ~248 lines a module; or real trees.
    sizes = [(103, 8), (205, 8), (410, 8)] if not args.tree else args.tree
    for size in sizes:
        real = isinstance(size, str)
        root = None if real else tempfile.mkdtemp(prefix="tether-bench-")
        try:
            if real:
                pkg = os.path.abspath(size)
                files = [os.path.join(d, f) for d, _, fs in os.walk(pkg)
                         for f in fs if f.endswith(".py")]
                lines = sum(open(f, "rb").read().count(b"\n") for f in files)
                modules = len(files) - 2
            else:
                modules, methods = size
                lines = generate(root, "benchpkg", modules, methods)
                pkg = os.path.join(root, "benchpkg")
            cmd = [tether, "check", "--no-cache", pkg]
            if args.jobs:
                cmd.insert(2, "-j%d" % args.jobs)
            t_times, a_times, t_cpu, a_cpu, peaks = [], [], [], [], []
            for _ in range(args.runs):
                t, tc, peak = measure(cmd, (0, 1))
                a, ac, _ = measure([args.python, "-c", parse, pkg], (0,))
                t_times.append(t)
                a_times.append(a)
                t_cpu.append(tc)
                a_cpu.append(ac)
                peaks.append(peak)
            tm, am = statistics.median(t_times), statistics.median(a_times)
            tc, ac = statistics.median(t_cpu), statistics.median(a_cpu)
            pairs = statistics.median(t / a for t, a in zip(t_times, a_times))
            print("%8d %8d %10.3f %10.3f %7.2f %7.2f %10.3f %10.3f %7.2f %9.1f" % (
                lines, modules + 2, tm, am, tm / am, pairs, tc, ac, tc / ac,
                max(peaks)))
        finally:
            if root:
                shutil.rmtree(root)
    print("load average %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
