"""tether-clangd reports what `tether check` reports, for every C++ check.

usage: clangd_parity.py WORK_DIR CLANGD_CONFIG TETHER TETHER_CLANGD
                        CHECK_TESTS_DIR STOCK_CLANGD

For each check `tether check --list-checks` names, its test input
CHECK_TESTS_DIR/<check>.cpp (the lit check test, which includes the stub
headers from CHECK_TESTS_DIR/Inputs) is copied into WORK_DIR with a
compile_flags.txt and CLANGD_CONFIG as .clangd. `tether-clangd --check`
must report the same (line, check) warnings as `tether check`, at least one
each; stock clangd must report none of them (it lacks the module).
"""
import os
import re
import shutil
import subprocess
import sys

work, config, tether, clangd, tests, stock = sys.argv[1:7]
# The runs below happen in WORK_DIR: resolve the tools first.
tether, clangd, stock = (os.path.abspath(shutil.which(t) or t)
                         for t in (tether, clangd, stock))
config, tests = os.path.abspath(config), os.path.abspath(tests)
listing = subprocess.run([tether, "check", "--list-checks"], text=True,
                         stdout=subprocess.PIPE, check=True).stdout
checks = [l.strip() for l in listing.splitlines()[1:] if l.strip()]
if not checks:
    sys.exit("clangd_parity: tether lists no checks")

shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
shutil.copy(config, os.path.join(work, ".clangd"))
with open(os.path.join(work, "compile_flags.txt"), "w") as f:
    f.write("-std=c++17\n-isystem\n%s\n" % os.path.join(tests, "Inputs"))

cli_re = re.compile(r"^[^:]+:(\d+):\d+: (?:warning|error): .* \[(tether-[\w-]+)\]$")
clangd_re = re.compile(r"^E\[[\d:.]+\] \[(tether-[\w-]+)\] Line (\d+): ")
failed = False
for check in checks:
    src = os.path.join(tests, check + ".cpp")
    if not os.path.exists(src):
        print(f"{check}: no test input {src}")
        failed = True
        continue
    dst = os.path.join(work, check + ".cpp")
    shutil.copy(src, dst)
    cli = subprocess.run([tether, "check", "--checks=" + check, dst],
                         cwd=work, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    want = sorted({(int(m[1]), m[2]) for l in cli.stdout.splitlines()
                   if (m := cli_re.match(l))})
    out = subprocess.run([clangd, "--check=" + dst, "--check-warnings"],
                         cwd=work, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT).stdout
    got = sorted({(int(m[2]), m[1]) for l in out.splitlines()
                  if (m := clangd_re.match(l))})
    base = subprocess.run([stock, "--check=" + dst, "--check-warnings"],
                          cwd=work, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout
    stock_hits = [l for l in base.splitlines() if clangd_re.match(l)]
    ok = want and got == want and not stock_hits
    failed |= not ok
    print(f"{check}: tether {len(want)}, tether-clangd {len(got)}, "
          f"stock clangd {len(stock_hits)}: {'ok' if ok else 'MISMATCH'}")
    if not ok:
        print("  tether:       ", want)
        print("  tether-clangd:", got)
sys.exit(1 if failed else 0)
