# SPDX-License-Identifier: Apache-2.0
"""spt against TensorFlow 2.x on TensorFlow's own records (run by make bench-tfsparse after bench_tfsparse.py).

Two workloads, both libraries in one process on the same bytes, 2 threads for each (TensorFlow intra-op 2,
inter-op 1; spt.set_num_threads(2)), alternating repetitions, median of REPS (default 7) after one warm-up
of each; wall time and CPU time (process_time: every thread of the process) are both reported, since the
machine may be shared:

  parse_example   10^5 serialized tf.train.Example records, each ~30 int64 ids and ~30 float weights
                  (20..40 of each), into two VarLenFeatures: TensorFlow's tf.io.parse_example on a
                  tf.constant of the records (built once, outside the timing), both eagerly and as a
                  traced tf.function (warm: traced in the warm-up), the faster of the two medians taken as
                  TensorFlow's time; against spt.parse_example on the Python list of the same bytes
                  objects (its conversion inside the timing). Results are compared first. A second row
                  gives TensorFlow the same list (tf.io.parse_example converting it: like for like).
  read TFRecord   a file of --file-mb MB (default 1024: 1 GB) of ~1 KiB records written by spt (under --dir,
                  deleted at the end unless --keep-file) and checked record for record against TensorFlow's
                  reading: the whole file in batches of 4096 records, tf.data.TFRecordDataset(...).batch(4096)
                  against spt.read_tfrecord(batch_size=4096); and its first --iter-mb MB (default 64) one
                  record at a time, TensorFlow's dataset iterated eagerly (.take(n)) against
                  spt.tf_record_iterator (one bytes object each; TensorFlow takes ~40 s a GB this way, so
                  the whole file would make the run several minutes longer).

  build/tf-venv/bin/python bench/bench_tfbytes.py [--reps 7] [--examples 100000] [--file-mb 1024] [--iter-mb 64]
                                                  [--out DIR] [--keep-file]
  (--file-mb 0: the parse workload only)
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

from bench_tfsparse import load  # noqa: E402  (the load average, as the other TensorFlow bench reports it)


def once(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--examples", type=int, default=100000)
    ap.add_argument("--file-mb", type=int, default=1024)
    ap.add_argument("--iter-mb", type=int, default=64)
    ap.add_argument("--keep-file", action="store_true")
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "build", "bench_tfbytes"))
    ap.add_argument("--out", default=os.path.join(HERE, "results", "tfbytes"))
    a = ap.parse_args()

    import tensorflow as tf
    import spt

    tf.config.threading.set_intra_op_parallelism_threads(2)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    spt.set_num_threads(2)
    rng = np.random.default_rng(20261129)
    load0 = load()

    # ---- the Examples (encoded by spt; tf.io.parse_example and spt parse the same bytes) ----
    recs = []
    for _ in range(a.examples):
        n = int(rng.integers(20, 41))
        recs.append(spt.encode_example({"ids": rng.integers(0, 1 << 40, n), "w": rng.random(n, dtype=np.float32)}))
    tf_recs = tf.constant(recs)
    tff = {"ids": tf.io.VarLenFeature(tf.int64), "w": tf.io.VarLenFeature(tf.float32)}
    sptf = {"ids": spt.VarLenFeature(np.int64), "w": spt.VarLenFeature(np.float32)}
    rt, rs = tf.io.parse_example(tf_recs, tff), spt.parse_example(recs, sptf)
    for k in ("ids", "w"):
        assert np.array_equal(rt[k].indices.numpy(), rs[k].indices) and np.array_equal(rt[k].values.numpy(), rs[k].values)
        assert rt[k].dense_shape.numpy().tolist() == list(rs[k].shape)

    tf_parse_fn = tf.function(lambda x: tf.io.parse_example(x, tff))
    cases = [("parse_example 1e5 x (30 ids + 30 weights)", [("eager", lambda: tf.io.parse_example(tf_recs, tff)),
                                                           ("tf.function", lambda: tf_parse_fn(tf_recs))],
              lambda: spt.parse_example(recs, sptf)),
             ("parse_example, both from the list of bytes", [("eager", lambda: tf.io.parse_example(recs, tff))],
              lambda: spt.parse_example(recs, sptf))]
    path = None
    if a.file_mb > 0:
        path, fcases = file_cases(a, rng, tf, spt)
        cases += fcases
    try:
        rows = run(a, cases)
    finally:
        if path and not a.keep_file:
            os.remove(path)
    write(a, tf, rows, load0)


def run(a, cases):
    rows = []
    for name, ftfs, fspt in cases:
        for _, ftf in ftfs:
            once(ftf)
        once(fspt)  # warm-up (a traced graph; the file into the page cache)
        tt, ts = {k: [] for k, _ in ftfs}, []
        for _ in range(a.reps):
            for k, ftf in ftfs:
                tt[k].append(once(ftf))
            ts.append(once(fspt))
        best = min(tt, key=lambda k: statistics.median(x for x, _ in tt[k]))
        wt, ct = statistics.median(x for x, _ in tt[best]), statistics.median(y for _, y in tt[best])
        ws, cs = statistics.median(x for x, _ in ts), statistics.median(y for _, y in ts)
        tname = name + (" (TF %s)" % best if len(ftfs) > 1 else "")
        if len(ftfs) > 1:
            for k in tt:
                print("  TF %-12s wall %7.4f s cpu %7.4f s" % (k, statistics.median(x for x, _ in tt[k]),
                                                            statistics.median(y for _, y in tt[k])))
        rows.append((tname, ws, cs, wt, ct))
        print("%-44s spt %7.3f s (cpu %7.3f)   TF %7.3f s (cpu %7.3f)   TF/spt wall %.2f cpu %.2f"
              % (tname, ws, cs, wt, ct, wt / ws, ct / cs), flush=True)
    return rows


def write(a, tf, rows, load0):
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "latest.md"), "w") as f:
        f.write("# spt against TensorFlow %s on TFRecord files and tf.train.Example parsing\n\n" % tf.__version__)
        f.write("`bench/bench_tfbytes.py --reps %d --examples %d --file-mb %d --iter-mb %d`: one process, the same "
                "bytes, "
                "TensorFlow and spt with 2 threads each, median of %d alternating repetitions after one warm-up "
                "(TensorFlow's parse: the faster of eager and a traced tf.function); results checked against "
                "each other first. Load average %s at the start, %s at the end (2 cores, shared): compare the "
                "CPU columns and the ratios.\n\n" % (a.reps, a.examples, a.file_mb, a.iter_mb, a.reps, load0, load()))
        f.write("| workload | spt wall (s) | spt CPU (s) | TF wall (s) | TF CPU (s) | TF/spt wall | TF/spt CPU |\n"
                "|---|---|---|---|---|---|---|\n")
        for name, ws, cs, wt, ct in rows:
            f.write("| %s | %.4f | %.4f | %.4f | %.4f | %.2f | %.2f |\n" % (name, ws, cs, wt, ct, wt / ws, ct / cs))
        f.write("\nInputs: TensorFlow's parse takes a tf.constant of the records built once outside the timing (its "
                "best input); spt's takes the Python list of bytes objects, its conversion to C (a tuple snapshot of "
                "the list and one pass over the objects, no copy of the bytes) inside the timing. The second row "
                "gives both the list.\n")
        f.write("\nTargets: parsing at least 2x faster than tf.io.parse_example; reading at least as "
                "fast as tf.data.TFRecordDataset.\n")
    print("wrote", os.path.join(a.out, "latest.md"))


def file_cases(a, rng, tf, spt):
    """The TFRecord reading workloads: the file written (deleted by the caller), checked against TensorFlow's
    reading. Returns (its path, the cases)."""
    import itertools
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, "bench_%dmb.tfrecord" % a.file_mb)
    nrec = a.file_mb * 1024
    if not os.path.exists(path) or os.path.getsize(path) != nrec * (1024 + 16):
        block = [rng.bytes(1024) for _ in range(1024)]
        with spt.TFRecordWriter(path) as w:
            for _ in range(a.file_mb):
                w.write_batch(block)
    sample = [x.numpy() for x in tf.data.TFRecordDataset(path).take(2048)]
    assert sample == [r for _, r in zip(range(2048), spt.tf_record_iterator(path))]
    niter = min(a.iter_mb, a.file_mb) * 1024

    def tf_iter():
        for _ in tf.data.TFRecordDataset(path).take(niter):
            pass

    def tf_batched():
        for _ in tf.data.TFRecordDataset(path, buffer_size=1 << 20).batch(4096):
            pass

    def spt_iter():
        for _ in itertools.islice(spt.tf_record_iterator(path), niter):
            pass

    def spt_batched():
        for _ in spt.read_tfrecord(path, batch_size=4096):
            pass

    return path, [("read %d MB TFRecord, batches of 4096" % a.file_mb, [("", tf_batched)], spt_batched),
                  ("read its first %d MB record by record" % min(a.iter_mb, a.file_mb), [("", tf_iter)], spt_iter)]


if __name__ == "__main__":
    main()
