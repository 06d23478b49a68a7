# SPDX-License-Identifier: Apache-2.0
"""The package's layout: one module per family mirroring src/, one export convention, a package __all__
that binds no builtin name, status codes that agree with include/spt_status.def."""
import builtins
import os
import re

import numpy as np
import pytest

import spt
from spt import _lib as L
from spt import _registry as R

PKG = os.path.join(os.path.dirname(__file__), "..", "spt")
STATUS_DEF = os.path.join(os.path.dirname(__file__), "..", "..", "include", "spt_status.def")

# the family of each op module: the C functions its ops call are entries of that family of the registry
MODULE_FAMILY = {"spt._core": "core", "spt._layout": "layout", "spt._elementwise": "elementwise",
                 "spt._reduce": "reduce", "spt._products": "products", "spt._features": "features",
                 "spt._serial": "serial", "spt._grad": "grad", "spt._tot": "tot", "spt._io": "io",
                 "spt._tfio": "tfio"}


def _sources():
    for root, _, files in os.walk(PKG):
        for fn in sorted(files):
            if fn.endswith(".py"):
                path = os.path.join(root, fn)
                with open(path) as f:
                    yield os.path.relpath(path, PKG), f.read()


def test_star_import_binds_no_builtin_name():
    ns = {}
    exec("from spt import *", ns)  # noqa: S102
    shadowed = sorted(n for n in ns if n != "__builtins__" and hasattr(builtins, n))
    assert not shadowed, "from spt import * binds builtin names: %s" % shadowed
    # the ops named like builtins are still the package's attributes
    for n in ("abs", "round", "slice", "IOError", "OverflowError"):
        assert getattr(spt, n) is not getattr(builtins, n)
        assert n not in spt.__all__
    assert "SparseTensor" in ns and "reduce_sum" in ns and "InvalidArgumentError" in ns


def test_package_all_is_every_public_name_but_the_builtins():
    public = {n for n in dir(spt) if not n.startswith("_") and not isinstance(getattr(spt, n), type(os))}
    assert set(spt.__all__) == public - set(dir(builtins))
    assert spt.__all__ == sorted(spt.__all__)


def test_one_export_convention():
    for name, src in _sources():
        assert not re.search(r"^def _export\b", src, re.M), name
        for m in re.finditer(r"^__all__\s*(\+?=)\s*(.*)$", src, re.M):
            assert m.group(1) == "=" and m.group(2) in ("exports(__name__)", "_package_all()") or name == "math.py", \
                "%s: __all__ written by hand (%s)" % (name, m.group(0))


def test_op_modules_mirror_the_families():
    assert set(R.FAMILIES) == set(MODULE_FAMILY.values())
    seen = set()
    for key, c_names in R.OP_C_NAMES.items():
        mod = key.rsplit(".", 1)[0]
        if mod not in MODULE_FAMILY:
            continue
        seen.add(mod)
        for c in c_names:
            assert R.FAMILY_OF[c] == MODULE_FAMILY[mod], "%s calls %s, an entry of %s" % (key, c, R.FAMILY_OF[c])
    assert seen == set(MODULE_FAMILY)


@pytest.fixture(scope="module")
def status_def():
    if not os.path.exists(STATUS_DEF):
        pytest.skip("include/spt_status.def is not next to this package (installed copy)")
    with open(STATUS_DEF) as f:
        rows = re.findall(r'^X\(\s*(SPT_\w+)\s*,\s*(-?\d+)\s*,\s*"(\w+)"', f.read(), re.M)
    return {int(v): n for _, v, n in rows}


def test_status_codes_agree_with_the_header(status_def):
    assert L.STATUS_NAMES == status_def
    for value, name in status_def.items():
        if value == 0:
            continue
        cls = L._ERRORS[value]
        assert cls.status_name == name and L._STATUS[cls] == value
    assert len(set(L._ERRORS.values())) == len(status_def) - 1  # one class per error status


def test_status_enum_entry_spans_every_status():
    arg = R.BY_NAME["spt_status_name"].args[0]
    assert (arg.lo, arg.hi) == (min(L.STATUS_NAMES), max(L.STATUS_NAMES))


def test_errors_carry_the_status_of_their_class():
    with pytest.raises(spt.OutOfRangeError) as e:
        spt.validate(spt.SparseTensor([[5]], [1.0], [3]))
    assert e.value.status == L._STATUS[spt.OutOfRangeError] == -3


def test_group_takes_sp_input_and_the_earlier_sp():
    t = spt.reorder(spt.SparseTensor([[0, 1], [1, 0], [0, 0]], np.array([1, 2, 3]), [2, 2]))
    want = [(k, i.tolist(), v.tolist()) for k, i, v in spt.group(t, [0])]
    assert want == [((0,), [[0, 0], [0, 1]], [3, 1]), ((1,), [[1, 0]], [2])]
    for kw in ({"sp_input": t}, {"sp": t}):
        assert [(k, i.tolist(), v.tolist()) for k, i, v in spt.group(dims=[0], **kw)] == want
    with pytest.raises(spt.InvalidArgumentError, match="not both"):
        spt.group(t, [0], sp=t)


def test_version_is_the_headers():
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "spt.h")
    if not os.path.exists(header):
        pytest.skip("not in the repository")
    with open(header) as f:
        text = f.read()
    want = ".".join(re.search(r"^#define SPT_VERSION_%s\s+(\d+)" % k, text, re.M).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))
    assert spt.__version__ == want
