"""End to end with the real pre-commit: a buggy commit is refused, a fixed
one goes in.

usage: precommit_e2e.py WORK_DIR HOOKS_FILE HOOK_ID BUGGY FIXED [SETUP...]

WORK_DIR is emptied. A hooks repository is made from HOOKS_FILE (the
working-tree .pre-commit-hooks.yaml of this repository, committed into a
scratch repository so pre-commit can clone it offline); a project repository
uses it through .pre-commit-config.yaml with HOOK_ID. SETUP items are
"SRC=DEST" files copied into the project (not committed) before the commits,
e.g. a compile_commands.json. BUGGY is committed first (must be refused),
then FIXED under the same name (must be accepted). Prints pre-commit's
output of both attempts for FileCheck.
"""
import os
import shutil
import subprocess
import sys

work, hooks_file, hook_id, buggy, fixed = sys.argv[1:6]
setup = sys.argv[6:]
shutil.rmtree(work, ignore_errors=True)
hooks, project = os.path.join(work, "hooks"), os.path.join(work, "project")
os.makedirs(hooks)
os.makedirs(project)
env = dict(os.environ, PRE_COMMIT_HOME=os.path.join(work, "cache"),
           GIT_CONFIG_NOSYSTEM="1", HOME=work,
           GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")


def run(cmd, cwd, ok=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if ok and p.returncode != 0:
        sys.exit(f"precommit_e2e: {' '.join(cmd)} failed ({p.returncode}):\n"
                 f"{p.stdout}")
    return p


run(["git", "init", "-q", "-b", "main", "."], hooks)
shutil.copy(hooks_file, os.path.join(hooks, ".pre-commit-hooks.yaml"))
run(["git", "add", ".pre-commit-hooks.yaml"], hooks)
run(["git", "commit", "-q", "-m", "hooks"], hooks)
rev = run(["git", "rev-parse", "HEAD"], hooks).stdout.strip()

run(["git", "init", "-q", "-b", "main", "."], project)
with open(os.path.join(project, ".pre-commit-config.yaml"), "w") as f:
    f.write(f"repos:\n- repo: {hooks}\n  rev: {rev}\n"
            f"  hooks:\n  - id: {hook_id}\n")
with open(os.path.join(project, ".gitignore"), "w") as f:
    f.write("build/\n")
for item in setup:
    src, dest = item.split("=", 1)
    dest = os.path.join(project, dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(src) as s, open(dest, "w") as d:
        # @PROJECT@ in a setup file stands for the project directory.
        d.write(s.read().replace("@PROJECT@", project))
run(["git", "add", ".pre-commit-config.yaml", ".gitignore"], project)
run(["git", "commit", "-q", "-m", "config"], project)
run(["pre-commit", "install"], project)

name = os.path.join("src", os.path.basename(buggy))
os.makedirs(os.path.join(project, "src"), exist_ok=True)
shutil.copy(buggy, os.path.join(project, name))
run(["git", "add", name], project)
bad = run(["git", "commit", "-m", "buggy"], project, ok=False)
print("== buggy commit, status", bad.returncode)
print(bad.stdout)
if bad.returncode == 0:
    sys.exit("precommit_e2e: the buggy commit was accepted")

shutil.copy(fixed, os.path.join(project, name))
run(["git", "add", name], project)
good = run(["git", "commit", "-m", "fixed"], project, ok=False)
print("== fixed commit, status", good.returncode)
print(good.stdout)
if good.returncode != 0:
    sys.exit("precommit_e2e: the fixed commit was refused")
log = run(["git", "log", "--format=%s"], project).stdout.split()
if log != ["fixed", "config"]:
    sys.exit(f"precommit_e2e: unexpected history {log}")
print("history:", " ".join(log))
