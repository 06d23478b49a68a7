# SPDX-License-Identifier: Apache-2.0
"""The registry entries of the distributed layer (python/spt/_registry/mpi.py) against include/spt_mpi.h.

Needs neither MPI nor libspt_mpi.so: the entries are only compared with the header here; the binding itself
is exercised under mpirun by python/tests/mpi_check.py (make test-mpi)."""
import os

import pytest

from spt._registry import mpi as M
from test_registry import _norm, prototypes

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "spt_mpi.h")


@pytest.fixture(scope="module")
def header():
    if not os.path.exists(HEADER):
        pytest.skip("include/spt_mpi.h is not next to this package (installed copy)")
    with open(HEADER) as f:
        return prototypes(f.read())


@pytest.mark.parametrize("entry", M.ENTRIES, ids=lambda e: e.name)
def test_mpi_entry_matches_header(header, entry):
    assert entry.name in header, "%s is in the registry but not in include/spt_mpi.h" % entry.name
    ret, args = header[entry.name]
    assert _norm(entry.ret[0], False) == ret, entry.name
    assert [_norm(a.c, False) for a in entry.args] == args, entry.name


def test_every_distributed_op_of_the_header_is_bound(header):
    # every spt_dtensor_* function and the ToT gather; the context's accessors for C hosts are not needed
    wanted = {n for n in header if n.startswith("spt_dtensor_") or n == "spt_mpi_tot_gather"}
    bound = {e.name for e in M.ENTRIES}
    missing = wanted - bound - {"spt_dtensor_ctx", "spt_dtensor_sparse_dense_matmul_rows", "spt_dtensor_sparsify_dense"}
    assert not missing, sorted(missing)
