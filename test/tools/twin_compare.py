#!/usr/bin/env python3
"""twin_compare.py: do C++ and Python give the same answer on one design?

usage: twin_compare.py [--tether PATH] [--isystem DIR]... DESIGN_DIR

DESIGN_DIR holds design.cpp and design.py, the same serving-code design
written in each language. Lines that correspond carry the same label in a
trailing comment (`// TWIN: store`, `# TWIN: store`): the lines where a
finding is expected and the lines of the correct twin that must stay silent.

Runs `tether check --format=json` on each file (C++ with
`-- -std=c++17 -isystem DIR...`), names every finding by the label of its
line and prints one sorted line per finding and language:

    cxx: <label> <check>
    python: <label> <check>

Exit status: 0 when both languages give the same findings at the same
labels; 1 when they differ, or when a finding is on a line without a label
(both lists are printed, the difference goes to stderr); 2 on bad input
(a missing file, labels that do not pair up, tether failing), with one line
on stderr.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

LABEL = {
    "cxx": re.compile(r"//\s*TWIN:\s*([A-Za-z0-9_.-]+)\s*$"),
    "python": re.compile(r"#\s*TWIN:\s*([A-Za-z0-9_.-]+)\s*$"),
}
SOURCES = {"cxx": "design.cpp", "python": "design.py"}


class BadInput(Exception):
    """A problem with the design or the tools, not a disagreement."""


def read_labels(lang, path):
    """Label of each labelled line (1-based), checked to be unique."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    by_line, seen = {}, {}
    for number, text in enumerate(lines, start=1):
        m = LABEL[lang].search(text)
        if not m:
            continue
        label = m.group(1)
        if label in seen:
            raise BadInput(f"{path}:{number}: label '{label}' already used on "
                           f"line {seen[label]}")
        seen[label] = number
        by_line[number] = label
    if not by_line:
        raise BadInput(f"{path}: no TWIN: labels")
    return by_line


def run_tether(tether, lang, path, isystem):
    cmd = [tether, "check", "--format=json", path]
    if lang == "cxx":
        cmd += ["--", "-std=c++17"]
        for d in isystem:
            cmd += ["-isystem", d]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise BadInput(f"{tether}: {e.strerror}")
    # 0: no findings, 1: findings; anything else is tether failing.
    if proc.returncode not in (0, 1):
        first = (proc.stderr.strip().splitlines() or ["no message"])[0]
        raise BadInput(f"tether exited {proc.returncode} on {path}: {first}")
    try:
        return json.loads(proc.stdout)["diagnostics"]
    except (ValueError, KeyError, TypeError):
        raise BadInput(f"tether printed no JSON diagnostics for {path}")


def name_findings(path, diagnostics, by_line):
    """`<label> <check>` per finding; findings off the labelled lines are
    named by their position and returned apart, as they cannot pair up."""
    named, stray = [], []
    for d in diagnostics:
        here = os.path.samefile(d["file"], path) if os.path.exists(d["file"]) else False
        label = by_line.get(d["line"]) if here else None
        if label is None:
            where = f"{os.path.basename(d['file'])}:{d['line']}"
            stray.append(f"unlabelled@{where} {d['check']}")
        else:
            named.append(f"{label} {d['check']}")
    return sorted(named + stray), stray


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tether", default="tether")
    ap.add_argument("--isystem", action="append", default=[])
    ap.add_argument("design")
    args = ap.parse_args()
    try:
        labels, results, strays = {}, {}, {}
        for lang, name in SOURCES.items():
            path = os.path.join(args.design, name)
            labels[lang] = read_labels(lang, path)
        cxx_set = set(labels["cxx"].values())
        py_set = set(labels["python"].values())
        if cxx_set != py_set:
            only = sorted(cxx_set ^ py_set)
            raise BadInput(f"{args.design}: labels not in both languages: "
                           + ", ".join(only))
        for lang, name in SOURCES.items():
            path = os.path.join(args.design, name)
            diags = run_tether(args.tether, lang, path, args.isystem)
            results[lang], strays[lang] = name_findings(path, diags, labels[lang])
    except BadInput as e:
        sys.stderr.write(f"twin_compare: error: {e}\n")
        return 2

    for lang in SOURCES:
        for line in results[lang]:
            print(f"{lang}: {line}")
    cxx, py = (collections.Counter(results[k]) for k in SOURCES)
    problems = []
    if cxx != py:
        for lang, mine, theirs in (("cxx", cxx, py), ("python", py, cxx)):
            extra = sorted((mine - theirs).elements())
            if extra:
                problems.append(f"only in {lang}: " + "; ".join(extra))
    for lang in SOURCES:
        if strays[lang]:
            problems.append(f"{lang} findings on lines without a TWIN label: "
                            + "; ".join(strays[lang]))
    if problems:
        sys.stderr.write(f"twin_compare: {args.design}: the languages differ\n")
        for p in problems:
            sys.stderr.write(f"  {p}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
