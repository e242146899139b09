#!/usr/bin/env python3
"""One-character typos in real Python files, with CPython as the oracle.

    bench/python/typos.py build/bin/tether [--tree DIR]... [--mutants 5000]
                          [--seed 1] [--batch 500] [--keep DIR]

Makes mutants of the trees' files (default: ../shared/corpus and examples/),
each with one edit a hand makes while typing: a character inserted, deleted
or replaced (punctuation, letters, digits, blanks, line breaks), or a line
indented or dedented by one space. CPython's compile() (the Python running
this script) says which mutants are Python; `tether check` runs over them
in batches (each mutant its own module) and says which it analysed. Prints:

- crashes: a batch that dies of a signal is run again file by file;
- valid mutants tether did not analyse (a false syntax error);
- invalid mutants tether analysed (a rule of CPython's the validation does
  not know: harmless to the analysis, which reads whatever tree it gets,
  but not the one-line error a broken file should get), with CPython's
  reason, grouped.

--keep DIR keeps every crashing or disagreeing mutant. A measurement of
robustness, not a test: the mutants change with the trees and the seed.
"""
import argparse
import collections
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALPHABET = " \t\n:()[]{},.;=+-*/%<>!@#'\"\\`_aAzZ019L"
PROBLEM = re.compile(r"tether: .*/(m\d+\.py): (.*)")


def sources(trees):
    out = []
    for tree in trees:
        for root, _, files in os.walk(tree):
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(root, name)
                    try:
                        with open(path, encoding="utf-8") as f:
                            text = f.read()
                    except (OSError, UnicodeError):
                        continue
                    if len(text) >= 16:
                        out.append(text)
    return out


def mutate(rng, text):
    """One typo: (kind, mutated text)."""
    kind = rng.choice(["insert", "delete", "replace", "indent", "dedent"])
    if kind in ("indent", "dedent"):
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        if kind == "indent":
            lines[i] = " " + lines[i]
        elif lines[i].startswith(" "):
            lines[i] = lines[i][1:]
        return kind, "\n".join(lines)
    k = rng.randrange(len(text))
    c = rng.choice(ALPHABET)
    if kind == "insert":
        return kind, text[:k] + c + text[k:]
    if kind == "delete":
        return kind, text[:k] + text[k + 1:]
    return kind, text[:k] + c + text[k + 1:]


def cpython_reason(text):
    """None when CPython compiles text, else its error message."""
    try:
        compile(text, "<typo>", "exec", dont_inherit=True)
        return None
    except (SyntaxError, ValueError) as e:
        return getattr(e, "msg", None) or str(e)


def run_tether(tether, folder):
    """(exit code, {file name: problem}) of one run over folder."""
    r = subprocess.run([tether, "check", "--no-cache", "--quiet", folder],
                       capture_output=True, text=True, errors="replace")
    problems = {}
    for line in r.stderr.splitlines():
        m = PROBLEM.match(line)
        if m:
            problems[m.group(1)] = m.group(2)
    return r.returncode, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tether")
    ap.add_argument("--tree", action="append", default=[])
    ap.add_argument("--mutants", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--keep", help="keep crashing or disagreeing mutants here")
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # invalid escapes and the like
    trees = args.tree or [os.path.join(os.path.dirname(REPO), "shared", "corpus"),
                          os.path.join(REPO, "examples")]
    texts = sources(trees)
    if not texts:
        sys.exit("typos.py: no Python files under %s" % ", ".join(trees))
    rng = random.Random(args.seed)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    crashes, false_rejects, missed = [], [], collections.Counter()
    invalid = 0
    done = 0
    while done < args.mutants:
        n = min(args.batch, args.mutants - done)
        folder = tempfile.mkdtemp(prefix="typos.")
        verdict, kinds = {}, {}
        for i in range(n):
            kind, text = mutate(rng, rng.choice(texts))
            name = "m%06d.py" % (done + i)
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
            verdict[name] = cpython_reason(text)
            kinds[name] = kind
        code, problems = run_tether(args.tether, folder)
        if code < 0 or code > 2:  # a signal: find the files that do it
            for name in verdict:
                alone = tempfile.mkdtemp(prefix="typos1.")
                shutil.copy(os.path.join(folder, name), alone)
                c1, p1 = run_tether(args.tether, alone)
                problems.update(p1)
                if c1 < 0 or c1 > 2:
                    crashes.append((name, c1))
                shutil.rmtree(alone)
        for name, reason in verdict.items():
            keep = False
            if reason is None and name in problems:
                false_rejects.append((name, kinds[name], problems[name]))
                keep = True
            elif reason is not None:
                invalid += 1
                if name not in problems:
                    missed[reason] += 1
                    keep = True
            keep |= any(c[0] == name for c in crashes)
            if keep and args.keep:
                shutil.copy(os.path.join(folder, name), args.keep)
        shutil.rmtree(folder)
        done += n
    print("trees: %s (%d files)" % (", ".join(trees), len(texts)))
    print("mutants: %d (seed %d), %d of them rejected by CPython %s" %
          (done, args.seed, invalid, sys.version.split()[0]))
    print("crashes: %d" % len(crashes))
    for name, code in crashes:
        print("  %s: exit %d" % (name, code))
    print("valid mutants not analysed: %d" % len(false_rejects))
    for name, kind, problem in false_rejects:
        print("  %s (%s): %s" % (name, kind, problem))
    print("invalid mutants analysed: %d of %d" % (sum(missed.values()), invalid))
    for reason, count in missed.most_common():
        print("  %5d  %s" % (count, reason))
    sys.exit(1 if crashes else 0)


if __name__ == "__main__":
    main()
