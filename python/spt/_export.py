# SPDX-License-Identifier: Apache-2.0
"""The package's one export convention.

A module marks each public function and class with @public (an op gets it from the registry's @op) and
ends with `__all__ = exports(__name__)`. The package's __all__ is package_all(): every exported name of
every module, less the names of Python's builtins, so that `from spt import *` never hides abs, round,
slice, IOError, OverflowError, ... (spt.abs, spt.slice, spt.IOError stay reachable through the package).
"""
import builtins

_BY_MODULE = {}


def public(obj):
    """Mark a function or class as public API of the module that defines it (returns it unchanged)."""
    export_name(obj.__module__, obj.__name__)
    return obj


def export_name(module, name):
    """Mark `name` of module `module` public (for objects without a __name__, e.g. a string)."""
    names = _BY_MODULE.setdefault(module, [])
    if name not in names:
        names.append(name)


def exports(module):
    """The public names of `module`, in the order they were marked."""
    return list(_BY_MODULE.get(module, ()))


def package_all():
    """Every exported name of the package's modules except the builtins' names, sorted."""
    every = {n for names in _BY_MODULE.values() for n in names}
    return sorted(every - set(dir(builtins)))
