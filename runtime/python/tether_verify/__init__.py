"""tether runtime verifier for Python.

The event API, the capture and layer context managers and the weak-ref
helper decorator come from the native binding (tether_verify._native, over
libtether_verify.so), so Python and native feeds share one ledger per device.
`python3 -m tether_verify run -- script.py ARGS...` runs a program unmodified
with the hooks of tether_verify.hooks installed (see docs/runtime.md).
"""
from . import _native
from ._version import __version__

__all__ = sorted(name for name in vars(_native)
                 if not name.startswith("_"))
globals().update({name: getattr(_native, name) for name in __all__})
