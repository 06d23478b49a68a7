# SPDX-License-Identifier: Apache-2.0
# bench_mpi_py.py -- the Python layer's cost per call over the C call (spt.mpi, run under mpirun)
#   SPT_LIB=build/libspt_mpi.so PYTHONPATH=python mpirun -np P python3 bench/bench_mpi_py.py [CALLS] [BLOCKS]
# Times CALLS calls of spt.mpi.reorder_inplace on a DTensor of one entry per rank (already sorted: the C op
# does almost nothing but agree with the other ranks) against the same number of calls of the C function
# spt_dtensor_reorder through ctypes without the binding's checks, in alternating blocks; prints one
# markdown table row: P, the C call and the Python call in us (median over the blocks, slowest rank) and
# their difference, the binding's overhead: argument checks, the error gate's one small Allreduce.
import sys
import time

from mpi4py import MPI

import spt
import spt.mpi
from spt import _registry as R


def per_call(comm, f, n):
    comm.Barrier()
    t = time.perf_counter()
    for _ in range(n):
        f()
    return comm.allreduce((time.perf_counter() - t) / n, op=MPI.MAX)


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    blocks = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    comm = MPI.COMM_WORLD
    r, p = comm.Get_rank(), comm.Get_size()
    dt = spt.mpi.from_local(spt.SparseTensor(indices=[[r, 0]], values=[1.0], dense_shape=[p, 4]))
    c_reorder = R.raw("spt_dtensor_reorder")  # spt.mpi wraps a collective's ctypes function in its error gate:
    c_reorder = c_reorder.__closure__[0].cell_contents  # the ctypes function itself, from the gate's closure

    def c_call():
        if c_reorder(dt.h, None) != 0:
            raise RuntimeError("spt_dtensor_reorder failed")

    def py_call():
        spt.mpi.reorder_inplace(dt)

    c_call(), py_call()  # warm-up
    cs, ps = [], []
    for _ in range(blocks):
        cs.append(per_call(comm, c_call, calls))
        ps.append(per_call(comm, py_call, calls))
    cs.sort(), ps.sort()
    c, py = cs[blocks // 2] * 1e6, ps[blocks // 2] * 1e6
    if r == 0:
        print("| %d | %.1f | %.1f | %.1f |" % (p, c, py, py - c))


if __name__ == "__main__":
    main()
