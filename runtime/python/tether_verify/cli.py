"""`python3 -m tether_verify run`: a Python program under the verifier.

  python3 -m tether_verify run [--mode=report|abort] [--report=FILE] -- script.py ARGS...
  python3 -m tether_verify run [--mode=report|abort] [--report=FILE] -- -m module ARGS...

The hooks are installed first; then the program runs as `python3 script.py
ARGS` (or `python3 -m module ARGS`) would: the same sys.argv, run as
__main__, sys.path[0] its directory (the working directory for -m), and its
exit status is ours. Usage errors are one line on stderr and exit 2.
"""
import os
import runpy
import sys

USAGE = ("usage: python3 -m tether_verify run [--mode=report|abort] "
         "[--report=FILE] -- script.py ARGS... | -- -m module ARGS...")


def _usage_error(message):
    sys.stderr.write("tether_verify: %s\n" % message)
    return 2


def _parse(argv):
    """(mode, report, program) or an error message."""
    mode, report = None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a.startswith("--mode="):
            mode = a[len("--mode="):]
            if mode not in ("report", "abort"):
                return "--mode must be 'report' or 'abort', not '%s'" % mode
        elif a.startswith("--report="):
            report = a[len("--report="):]
            if not report:
                return "--report needs a file name"
        elif a.startswith("-") and a != "-m":
            return "unknown option '%s' (%s)" % (a, USAGE)
        else:
            break
        i += 1
    program = argv[i:]
    if not program:
        return "no program to run (%s)" % USAGE
    if program[0] == "-m" and len(program) < 2:
        return "-m needs a module name"
    return mode, report, program


def _hook_child_interpreters():
    """Interpreters the program starts (subprocess, multiprocessing's spawn)
    install the hooks at start-up too, through _boot/sitecustomize.py;
    forked children inherit them."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    boot = os.path.join(package_parent, "tether_verify", "_boot")
    path = [boot, package_parent] + [
        p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(path)
    os.environ["TETHER_VERIFY_HOOKS"] = "1"


def main(argv):
    if argv and argv[0] in ("--version", "version"):
        from . import __version__
        print("tether_verify", __version__)
        return 0
    if not argv or argv[0] != "run":
        return _usage_error(USAGE)
    parsed = _parse(argv[1:])
    if isinstance(parsed, str):
        return _usage_error(parsed)
    mode, report, program = parsed
    # The native verifier reads these at its first event; child processes
    # inherit them.
    if mode:
        os.environ["TETHER_MODE"] = mode
    if report:
        os.environ["TETHER_REPORT"] = report
    from . import hooks
    try:
        hooks.install()
    except RuntimeError as e:
        return _usage_error(str(e))
    _hook_child_interpreters()
    if program[0] == "-m":
        sys.argv = [program[1]] + program[2:]
        sys.path[0] = os.getcwd()
        runpy.run_module(program[1], run_name="__main__", alter_sys=True)
        return 0
    script = program[0]
    if not os.path.isfile(script):
        return _usage_error("%s: no such file" % script)
    sys.argv = list(program)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0
