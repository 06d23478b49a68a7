# SPDX-License-Identifier: Apache-2.0
"""The op table of test_hostile.py, and its child process for the address-space probes.

OPS maps a name to a function of the inputs `x` (built by inputs(scale)) returning a result that
checksum() turns into one float: every op family, with inputs large enough (scale 1: 10^5 entries) for
the ops to open parallel regions.

Run as `python3 hostile_worker.py rlimit NAME...`: for each op, the address space is limited (RLIMIT_AS)
to the current size plus 1, 2, 4, ... 64 MB and the op called; an spt error or MemoryError is fine, the
result is fine; the process must print "done NAME" for each (an abort or exit from a runtime library
shows as a missing line and the exit status)."""
import os
import resource
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import spt  # noqa: E402


def _tensor(shape, n, step, seed=1):
    vol = int(np.prod(shape))
    p = (np.arange(n, dtype=np.int64) * step) % vol  # distinct, unsorted
    ix = np.stack(np.unravel_index(p, shape), 1).astype(np.int64)
    v = (1 + (np.arange(n) * seed) % 8).astype(np.float64)
    return spt.SparseTensor(ix, v, shape)


def inputs(scale=1.0):
    n = max(8, int(100000 * scale))
    x = {}
    x["t3"] = _tensor([60, 70, 80], n, 7919)
    x["t2"] = _tensor([500, 500], n, 4999)
    x["d2"] = (np.arange(250000) % 5).reshape(500, 500).astype(np.float64)
    x["rhs"] = (np.arange(2000) % 3).reshape(500, 4).astype(np.float64)
    x["r80"] = (np.arange(320) % 3).reshape(80, 4).astype(np.float64)
    x["b3"] = (np.arange(60 * 80 * 2) % 4).reshape(60, 80, 2).astype(np.float64)
    x["f"] = [(np.arange(d * 3) % 3).reshape(d, 3).astype(np.float64) for d in (60, 70, 80)]
    x["v80"] = (np.arange(80) % 4).astype(np.float64)
    x["u"] = (np.arange(3 * 80) % 3).reshape(3, 80).astype(np.float64)
    m = max(8, n // 16) * 16
    ids = np.stack([np.arange(m) // 16, np.arange(m) % 16], 1).astype(np.int64)
    x["ids"] = spt.SparseTensor(ids, (np.arange(m) * 37) % 500, [m // 16, 16])
    x["cnt"] = spt.SparseTensor(ids, (np.arange(m) * 53) % 1000, [m // 16, 16])
    x["params"] = (np.arange(4000) % 6).reshape(500, 8).astype(np.float64)
    x["seg_data"] = (np.arange(4000) % 5).reshape(1000, 4).astype(np.float64)
    x["seg_idx"] = (np.arange(n) % 1000).astype(np.int64)
    x["seg_ids"] = (np.arange(n) * 1000 // n).astype(np.int64)
    t3 = x["t3"]
    x["tns"] = "# shape: 60 70 80\n" + "".join(
        "%d %d %d %g\n" % (i + 1, j + 1, k + 1, v) for (i, j, k), v in zip(t3.indices.tolist(), t3.values.tolist()))
    return x


OPS = {
    "validate": lambda x: spt.validate(spt.SparseTensor(np.array(x["t3"].indices), np.array(x["t3"].values), [60, 70, 80])) or x["t3"].nnz,
    "reorder": lambda x: spt.reorder(x["t3"]),
    "argsort": lambda x: spt.argsort(x["t3"]),
    "to_dense": lambda x: spt.to_dense(x["t2"], validate_indices=False),
    "from_dense": lambda x: spt.from_dense(x["d2"]),
    "concat": lambda x: spt.concat(1, [x["t2"], x["t2"]]),
    "reshape": lambda x: spt.reshape(x["t3"], [60 * 70, 80]),
    "transpose": lambda x: spt.transpose(x["t3"], [2, 0, 1]),
    "reduce_sum": lambda x: spt.reduce_sum(x["t3"], axis=1),
    "reduce_sum_all": lambda x: spt.reduce_sum(x["t2"]),
    "reduce_sum_sparse": lambda x: spt.reduce_sum_sparse(x["t3"], axis=0),
    "reduce_max": lambda x: spt.reduce_max(x["t3"], axis=1),
    "softmax": lambda x: spt.softmax(x["t2"]),
    "segment_sum": lambda x: spt.segment_sum(x["seg_data"], x["seg_idx"], x["seg_ids"], 1000),
    "square": lambda x: spt.square(x["t3"]),
    "cast": lambda x: spt.cast(spt.cast(x["t3"], np.float32), np.float64),
    "add": lambda x: spt.add(x["t3"], x["t3"]),
    "add_dense": lambda x: spt.add(x["t2"], x["d2"]),
    "cwise_mul": lambda x: spt.sparse_dense_cwise_mul(x["t2"], x["d2"]),
    "maximum": lambda x: spt.maximum(x["t2"], x["t2"]),
    "multiply": lambda x: spt.multiply(x["t2"], x["t2"]),
    "matmul": lambda x: spt.sparse_dense_matmul(x["t2"], x["rhs"]),
    "spgemm": lambda x: spt.sparse_sparse_matmul(x["t2"], x["t2"]),
    "bmm": lambda x: spt.bmm(x["t3"], x["b3"]),
    "mttkrp": lambda x: spt.mttkrp(x["t3"], x["f"], 0),
    "ttv": lambda x: spt.ttv(x["t3"], x["v80"], 2),
    "ttm": lambda x: spt.ttm(x["t3"], x["u"], 2),
    "tensordot": lambda x: spt.tensordot(x["t3"], x["r80"], [[2], [0]]),
    "einsum": lambda x: spt.einsum("ijk,kl->il", x["t3"], x["r80"]),
    "bincount": lambda x: spt.bincount(x["cnt"]),
    "embedding": lambda x: spt.embedding_lookup_sparse(x["params"], x["ids"], None, combiner="sum"),
    "to_indicator": lambda x: spt.to_indicator(x["cnt"], 1000),
    "parse_tns": lambda x: spt.parse_tns(x["tns"]),
    "serialize_many": lambda x: spt.deserialize_many_sparse(spt.serialize_many_sparse(x["t2"]), np.float64),
    "fill_empty_rows": lambda x: spt.fill_empty_rows(x["t2"], 0.0)[0],
    "slice": lambda x: spt.slice(x["t3"], [5, 5, 5], [40, 40, 40]),
    "split": lambda x: spt.split(sp_input=x["t3"], num_split=3, axis=0)[1],
}


def checksum(r):
    """One float for a result: tensors by (weighted index, value) sums (order-independent), arrays by a
    position-weighted sum."""
    if isinstance(r, tuple):
        return sum(checksum(e) for e in r)
    if isinstance(r, spt.SparseTensor):
        ix = np.asarray(r.indices) % 101
        w = 1 + (ix * np.arange(1, ix.shape[1] + 1)).sum(1) if ix.size else np.zeros(0)
        vals = np.asarray(r.values)
        vals = vals.astype(np.float64) if vals.dtype.kind != "O" else np.array([len(b) for b in vals], np.float64)
        return float((vals * w).sum()) + r.nnz
    a = np.asarray(r)
    if a.dtype.kind == "O":
        return float(sum(len(b) for b in a.reshape(-1)))
    a = a.astype(np.complex128).real.reshape(-1) if a.dtype.kind == "c" else a.astype(np.float64).reshape(-1)
    return float((a * (1 + np.arange(a.size) % 7)).sum())


def _vm():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def rlimit_main(names):
    x = inputs(0.5)
    for name in names:
        for mb in (1, 2, 4, 8, 16, 32, 64):
            resource.setrlimit(resource.RLIMIT_AS, (_vm() + (mb << 20), resource.RLIM_INFINITY))
            try:
                OPS[name](x)
            except (spt.SptError, MemoryError):
                pass
            finally:
                resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print("done", name, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "rlimit":
        rlimit_main(sys.argv[2:])
