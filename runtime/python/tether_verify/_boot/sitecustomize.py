"""Installs tether_verify's hooks in the Python processes a verified program
starts (vLLM's engine core and workers are spawned interpreters).

`python3 -m tether_verify run` puts this directory first on PYTHONPATH and
sets TETHER_VERIFY_HOOKS=1, so every child interpreter runs this at start
up. The sitecustomize it shadows (Debian ships one) runs first, as usual.
"""
import importlib.machinery
import importlib.util
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))


def _run_shadowed():
    for entry in sys.path:
        if os.path.abspath(entry or os.curdir) == _here:
            continue
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [entry])
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


_run_shadowed()
if os.environ.get("TETHER_VERIFY_HOOKS") == "1":
    from tether_verify import hooks

    hooks.install()
