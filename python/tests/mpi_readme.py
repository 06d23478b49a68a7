# SPDX-License-Identifier: Apache-2.0
# The README's MPI example (make test-mpi runs it at np 4): read a .tns file distributed, reorder,
# multiply, reduce, gather; the result is the serial package's, byte for byte.
import sys

import numpy as np
import spt
import spt.mpi
from mpi4py import MPI

path = sys.argv[1]                                        # a FROSTT .tns file, e.g. [I, J, K]
t = spt.mpi.read(path)                                    # each rank parses its own part of the file
t = spt.mpi.reorder(t, [1, 0, 2])                         # a distributed sort
u = spt.mpi.reduce_sum(t, axis=[2], output_is_sparse=True)  # [I, J]
p = spt.mpi.sparse_sparse_matmul(u, u, adjoint_a=True)    # u^T u, [J, J]
whole = p.gather(root=0)                                  # a SparseTensor on rank 0, None elsewhere

if MPI.COMM_WORLD.rank == 0:                              # the same with the serial package
    s = spt.read(path)
    s = spt.reduce_sum(spt.reorder(s, [1, 0, 2]), axis=[2], output_is_sparse=True)
    want = spt.sparse_sparse_matmul(s, s, adjoint_a=True)
    same = (np.array_equal(whole.indices, want.indices) and whole.values.tobytes() == want.values.tobytes()
            and np.array_equal(whole.dense_shape, want.dense_shape))
    print("README example at np %d: %d entries, identical to serial: %s" % (MPI.COMM_WORLD.size, whole.nnz, same))
    sys.exit(0 if same else 1)
