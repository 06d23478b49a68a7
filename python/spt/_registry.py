"""Which Python ops this libspt supports: an op is available when every C function it calls exists."""
import functools

from . import _lib as L

AVAILABLE = {}
ALL = []


def op(*c_names):
    """Register a Python op that calls the C functions `c_names`; when this libspt lacks one of them the
    op raises NotImplementedError (and spt.has_op(name) is False)."""

    def deco(f):
        ALL.append(f.__name__)
        missing = [n for n in c_names if not L.has(n)]
        if not missing:
            AVAILABLE[f.__name__] = f
            return f

        @functools.wraps(f)
        def unavailable(*a, **k):
            raise NotImplementedError("spt.%s: this libspt lacks %s" % (f.__name__, ", ".join(missing)))

        return unavailable

    return deco
