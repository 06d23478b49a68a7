# SPDX-License-Identifier: Apache-2.0
"""spt against TensorFlow 2.x on segment_sum, bincount and embedding_lookup_sparse (make bench-tfsparse).

Three workloads, both libraries in one process on the same arrays, 2 threads each (TensorFlow:
intra-op 2, inter-op 1; spt.set_num_threads(2)), alternating repetitions, median of REPS after one
warm-up of each:

  segment_sum   tf.sparse.segment_sum(data, indices, segment_ids): data float32 [1e5, 16], 1e7 indices
                drawn uniformly, 1e7 sorted segment ids over 1e5 segments
  bincount      tf.sparse.bincount of a SparseTensor [1e5, 1e9] with 1e7 int64 values in [0, 1e4):
                axis=0 (one count over everything) and axis=-1 (per row)
  embedding     tf.nn.embedding_lookup_sparse(params [1e6, 64] float32, ids [4096, ~30] with ids uniform
                in the table, no weights, combiner 'mean')

Each result is checked against the other library's (exact for counts, 1e-4 relative for float sums)
before it is timed. Writes bench/results/tfsparse/latest.md (or --out) with the load average.

  build/tf-venv/bin/python bench/bench_tfsparse.py [--reps 5] [--scale 1.0] [--out DIR]
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "python"))  # after $PYTHONPATH

import numpy as np  # noqa: E402


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def timeit(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def workloads(scale, rng):
    n = int(1e7 * scale)
    rows = int(1e5 * scale) or 1
    data = rng.standard_normal((rows, 16)).astype(np.float32)
    seg_idx = rng.integers(0, rows, n, dtype=np.int64)
    seg_ids = np.sort(rng.integers(0, rows, n, dtype=np.int64))
    brow = int(1e5 * scale) or 1
    bcols = 100
    nb = brow * bcols
    bind = np.stack([np.repeat(np.arange(brow, dtype=np.int64), bcols),
                     np.tile(np.arange(bcols, dtype=np.int64), brow)], axis=1)
    bval = rng.integers(0, 10000, nb, dtype=np.int64)
    vocab, dim, batch, per = int(1e6 * scale) or 1, 64, 4096, 30
    params = rng.standard_normal((vocab, dim)).astype(np.float32)
    lens = rng.integers(per // 2, per * 3 // 2 + 1, batch)
    eind = np.stack([np.repeat(np.arange(batch, dtype=np.int64), lens),
                     np.concatenate([np.arange(k, dtype=np.int64) for k in lens])], axis=1)
    eids = rng.integers(0, vocab, len(eind), dtype=np.int64)
    return dict(data=data, seg_idx=seg_idx, seg_ids=seg_ids, bind=bind, bval=bval, bshape=[brow, 1 << 30],
                params=params, eind=eind, eids=eids, eshape=[batch, int(lens.max())])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "tfsparse"))
    a = ap.parse_args()

    import tensorflow as tf
    import spt

    tf.config.threading.set_intra_op_parallelism_threads(2)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    spt.set_num_threads(2)
    w = workloads(a.scale, np.random.default_rng(20261124))
    load0 = load()

    tf_data = tf.constant(w["data"])
    tf_idx, tf_ids = tf.constant(w["seg_idx"]), tf.constant(w["seg_ids"])
    tf_b = tf.sparse.SparseTensor(w["bind"], w["bval"], w["bshape"])
    sp_b = spt.SparseTensor(indices=w["bind"], values=w["bval"], dense_shape=w["bshape"])
    tf_params = tf.constant(w["params"])
    tf_e = tf.sparse.SparseTensor(w["eind"], w["eids"], w["eshape"])
    sp_e = spt.SparseTensor(indices=w["eind"], values=w["eids"], dense_shape=w["eshape"])

    cases = [
        ("segment_sum", lambda: tf.sparse.segment_sum(tf_data, tf_idx, tf_ids).numpy(),
         lambda: spt.segment_sum(w["data"], w["seg_idx"], w["seg_ids"]), "float"),
        ("bincount axis=0", lambda: tf.sparse.bincount(tf_b, axis=0),
         lambda: spt.bincount(sp_b, axis=0), "sparse"),
        ("bincount axis=-1", lambda: tf.sparse.bincount(tf_b, axis=-1),
         lambda: spt.bincount(sp_b, axis=-1), "sparse"),
        ("embedding_lookup_sparse", lambda: tf.nn.embedding_lookup_sparse(tf_params, tf_e, None, combiner="mean").numpy(),
         lambda: spt.embedding_lookup_sparse(w["params"], sp_e, None, combiner="mean"), "float"),
    ]
    rows = []
    for name, ftf, fspt, kind in cases:
        rt, rs = ftf(), fspt()  # warm-up, and the check
        if kind == "float":
            np.testing.assert_allclose(np.asarray(rs), rt, rtol=1e-4, atol=1e-3)
        else:
            order = np.lexsort(np.asarray(rt.indices).T[::-1])
            assert np.array_equal(np.asarray(rs.indices), np.asarray(rt.indices)[order]), name
            assert np.array_equal(np.asarray(rs.values), np.asarray(rt.values)[order]), name
        tt, ts = [], []
        for _ in range(a.reps):  # alternate, one repetition each
            tt += timeit(ftf, 1)
            ts += timeit(fspt, 1)
        mt, ms = statistics.median(tt), statistics.median(ts)
        rows.append((name, ms, mt, max(ts) / ms))
        print("%-24s spt %8.1f ms   TensorFlow %8.1f ms   TF/spt %.2f" % (name, ms * 1e3, mt * 1e3, mt / ms), flush=True)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write("# spt against TensorFlow %s on tf.sparse.segment_sum, tf.sparse.bincount and "
                "tf.nn.embedding_lookup_sparse\n\n" % tf.__version__)
        f.write("`bench/bench_tfsparse.py --reps %d --scale %g`: one process, same arrays, 2 threads each, "
                "median of %d alternating repetitions after one warm-up; results checked against each other "
                "first. Load average %s at the start, %s at the end (2 cores).\n\n" % (a.reps, a.scale, a.reps, load0, load()))
        f.write("| workload | spt (ms) | TensorFlow (ms) | TensorFlow / spt | spt worst / median |\n|---|---|---|---|---|\n")
        for name, ms, mt, worst in rows:
            f.write("| %s | %.1f | %.1f | %.2f | %.2f |\n" % (name, ms * 1e3, mt * 1e3, mt / ms, worst))
        f.write("\nTarget: spt at least as fast as TensorFlow on each: %s.\n"
                % ("holds" if all(mt >= ms for _, ms, mt, _ in rows) else "misses on " + ", ".join(
                    n for n, ms, mt, _ in rows if mt < ms)))
    print("wrote", os.path.join(a.out, "latest.md"))


if __name__ == "__main__":
    main()
