"""Run code right after a module is imported, wherever the import comes from.

A meta-path finder in front of the others delegates the search and wraps the
loader it finds, so `after_import` callbacks see the module once its body
ran and before any importer can take names from it: `from X import f`
done later then gets whatever the callback put in X.
"""
import importlib.abc
import sys
import threading

_callbacks = []  # fn(module) for every module whose import finished
_local = threading.local()


def after_import(fn):
    """Call fn(module) for every module imported from now on."""
    _callbacks.append(fn)


def _run_callbacks(module):
    for fn in list(_callbacks):
        fn(module)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        _run_callbacks(module)

    def __getattr__(self, name):  # get_source, is_package, resources, ...
        return getattr(self._inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if getattr(_local, "searching", False):
            return None  # the search below, asking the finders after us
        _local.searching = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            _local.searching = False
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader)
        return spec


_finder = _Finder()


def install():
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
