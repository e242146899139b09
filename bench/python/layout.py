#!/usr/bin/env python3
"""A tree of scripts must cost what a package of the same files costs.

    bench/python/layout.py --tether build/bin/tether [--source DIR]

Copies the .py files of DIR (default /usr/lib/python3/dist-packages) twice:
as they are (packages), and with every __init__.py renamed (a tree of
scripts, one import root per folder). Prints tether's wall and CPU time on
each, their ratio, and the stat calls of each run when strace is present.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import run  # noqa: E402


def copy_tree(src, dst, scripts):
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = [d for d in dirnames if d != "__pycache__" and not d.startswith(".")]
        for name in filenames:
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), src)
            if scripts and name == "__init__.py":
                rel = os.path.join(os.path.dirname(rel), "package_init.py")
            os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(os.path.join(dirpath, name), os.path.join(dst, rel))


def stat_calls(cmd, cwd):
    if not shutil.which("strace"):
        return None
    with tempfile.NamedTemporaryFile("r") as log:
        subprocess.run(["strace", "-f", "-c", "-o", log.name] + cmd, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return sum(int(line.split()[3]) for line in log
                   if line.split()[-1:] and line.split()[-1] in
                   ("newfstatat", "stat", "lstat", "statx", "access")
                   and line.split()[3].isdigit())


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tether", required=True)
    ap.add_argument("--source", default="/usr/lib/python3/dist-packages")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    tether = os.path.abspath(args.tether)
    print("load average: %s" % open("/proc/loadavg").read().split()[:3])
    with tempfile.TemporaryDirectory() as work:
        figures = {}
        for layout in ("package", "scripts"):
            copy_tree(args.source, os.path.join(work, layout), layout == "scripts")
            cmd = [tether, "check", "--no-cache", layout]
            os.chdir(work)
            times = sorted(run(cmd)[:2] for _ in range(args.runs))
            wall, cpu = times[len(times) // 2]
            figures[layout] = (wall, cpu)
            print("%-8s wall %.2f s  cpu %.2f s  stat calls %s" %
                  (layout, wall, cpu, stat_calls(cmd + ["-j1"], work)))
        print("scripts / package: wall %.2f, cpu %.2f" %
              (figures["scripts"][0] / figures["package"][0],
               figures["scripts"][1] / figures["package"][1]))


if __name__ == "__main__":
    main()
