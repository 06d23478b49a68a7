#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run.sh [SPT] -- golden-output tests of the spt command, then spt <-> Python (.npz) interop checks.
#
# Every case is a shell snippet run in tests/cli with `spt` = the binary under test and $T = a fresh
# temporary directory. Its stdout, stderr and exit code (with $T written as $T) must equal
# tests/cli/golden/NAME.out. UPDATE=1 rewrites the golden files (review the diff!).
# Run from the repository root (`make test` does, through build/tests/cli/test_cli).
set -u
here=$(cd "$(dirname "$0")" && pwd)
SPT=$(cd "$(dirname "${1:-build/spt}")" && pwd)/$(basename "${1:-build/spt}")
[ -x "$SPT" ] || { echo "run.sh: no spt binary at $SPT" >&2; exit 1; }
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d /tmp/spt_cli_XXXXXX)
trap 'rm -rf "$T"' EXIT
# run a private copy, so that a concurrent rebuild of the binary cannot disturb the cases
for i in 1 2 3 4 5 6 7 8 9 10; do
  cp "$SPT" "$T/spt" 2>/dev/null && "$T/spt" --version > /dev/null 2>&1 && break
  sleep 1
done
SPT=$T/spt
pass=0; fail=0; failed=""

spt() { "$SPT" "$@"; }

check() {
  name=$1; shift
  out="$T/.out"
  d="$T/$name"
  mkdir -p "$d"
  ( cd "$here" && T=$d && export T && eval "$*" ) > "$out.1" 2> "$out.2"
  rc=$?
  { cat "$out.1"; echo "--- stderr"; cat "$out.2"; echo "--- exit $rc"; } | sed "s|$d|\$T|g" > "$out"
  rm -f "$out.1" "$out.2"
  if [ "${UPDATE:-0}" = 1 ]; then cp "$out" "$here/golden/$name.out"; pass=$((pass+1)); return; fi
  if cmp -s "$out" "$here/golden/$name.out"; then pass=$((pass+1)); else
    fail=$((fail+1)); failed="$failed $name"
    echo "=== FAIL $name: $*"; diff "$here/golden/$name.out" "$out" | head -20
  fi
}

# ---- help and usage ----
check help 'spt --help'
# every command `spt --help` lists (the commands of src/ops/ops.def), demo included
for c in $(spt --help | awk '/^commands:/ {f = 1; next} f && /^$/ {exit} f {print $1}'); do
  check "help_$c" "spt $c --help"
done
check usage_none 'spt'
check usage_unknown_cmd 'spt frobnicate'
check usage_missing_arg 'spt info'
check usage_unknown_opt 'spt info --bogus in/t3.tns'
check usage_threads 'spt --threads 0 info in/t3.tns'
check usage_format 'spt convert --to csv in/t3.tns -'
check usage_no_ext 'spt info in/noext'

# ---- info, validate ----
check info_t3 'spt info in/t3.tns'
check info_mtx 'spt info in/m.mtx'
check info_npy 'spt --threads 1 info in/d.npy'
check info_stdin 'spt info - < in/m.tns'
# compressed and archived inputs (fixtures of tests/io/data), compressed outputs
check info_tns_gz 'spt info ../io/data/frostt.tns.gz'
check info_tar_gz 'spt info ../io/data/west0067.tar.gz'
check info_tar_member 'spt info --member west0067_b.mtx ../io/data/west0067.tar.gz'
check info_tar_several 'spt info ../io/data/several.tar'
check info_gz_corrupt 'spt info ../io/data/corrupt.tns.gz'
check info_gz_stdin 'spt info - < ../io/data/frostt.tns.xz'
# stdin from a pipe, the format told by its first (decoded) bytes
check info_stdin_npz 'cat data/scipy_csr.npz | spt info -'
check info_stdin_npy 'cat in/d.npy | spt --threads 1 info -'
check info_stdin_mtx 'cat in/m.mtx | spt info -'
check info_stdin_tns_gz 'cat ../io/data/frostt.tns.gz | spt info -'
check info_stdin_base 'cat in/zero_based.tns | spt info --index-base 0 -'
check info_fibers 'spt info --fibers in/t3.tns && spt info --fibers - < in/m.tns'
check convert_to_gz 'spt convert ../io/data/west0067.tar.gz -o $T/m.mtx.gz && gzip -dc $T/m.mtx.gz'
check info_npz_scipy 'spt info data/scipy_csr.npz'
check info_npz_pydata 'spt info data/pydata3.npz'
# any volume: FROSTT nell-1's shape (density in floating point); 0-based .tns files
check info_any_volume 'spt info in/nell_shape.tns'
check reorder_any_volume 'spt reorder in/nell_shape.tns'
check index_base0 'spt convert --index-base 0 in/zero_based.tns -o - && spt convert --index-base 0 --out-index-base 0 in/zero_based.tns -o -'
check index_base_bad 'spt info --index-base 2 in/zero_based.tns; spt info in/zero_based.tns'
check validate_ok 'spt validate in/t3.tns'
check validate_strict 'spt validate --strict in/t3.tns'
check validate_strict_ok 'spt reorder in/m.tns | spt validate --strict -'

# ---- convert, reorder, to-dense ----
check convert_stdout 'spt convert in/t3.tns'
check convert_mtx 'spt convert in/m.mtx $T/m.tns && cat $T/m.tns && spt convert in/m.tns -o $T/x.mtx && cat $T/x.mtx'
check convert_npz 'spt convert in/t3.tns $T/t3.npz && spt convert $T/t3.npz -'
check convert_scipy 'spt convert --to npz-scipy-csr in/t3.tns $T/x.npz; spt convert --to npz-scipy-csr in/m.tns $T/m.npz && spt convert $T/m.npz'
check convert_binsparse 'spt convert in/m.tns $T/m.bsp.npz && spt info $T/m.bsp.npz && spt convert --to binsparse-csc in/m.tns $T/c.npz && spt convert $T/c.npz -; spt convert in/t3.tns $T/t3.bsp.npz; spt convert --to binsparse-csr in/t3.tns $T/x.npz'
# progress: forced into a file (one line per update: done, rate, time left), by default only on a terminal
# after SPT_PROGRESS_DELAY seconds (a pty here), never with --quiet or in a pipe; rates and times masked
mask() { sed -e 's/[0-9.]* [kMGT]*B\/s/RATE/; s/[0-9.]* [kMGT ]*entries\/s/RATE/; s/done in [0-9.]* s/done in T s/; s/[0-9]*:[0-9]* left/T left/'; }
check progress_file 'spt convert --progress in/t3.tns $T/x.tns 2>&1 | mask; spt convert --progress --quiet in/t3.tns $T/y.tns; spt convert in/t3.tns $T/z.tns 2>&1 | wc -c'
check progress_pty '$PY -c "import os, pty, sys; os.environ[\"SPT_PROGRESS_DELAY\"] = sys.argv[1]; pty.spawn(sys.argv[2:])" 0 "$SPT" convert in/m.tns $T/a.mtx | tr "\r" "\n" | sed "s/\x1b\[K//" | mask; $PY -c "import os, pty, sys; os.environ[\"SPT_PROGRESS_DELAY\"] = sys.argv[1]; pty.spawn(sys.argv[2:])" 1e9 "$SPT" convert in/m.tns $T/b.mtx | wc -c'
check convert_npy 'spt convert in/d.npy - && spt convert in/m.tns $T/m.npy && spt convert $T/m.npy -'
check convert_dtype 'spt convert --dtype int8 in/m.tns - && spt convert --dtype int8 in/t3.tns -'
check convert_format 'spt convert --format tns in/noext -'
check convert_shape 'spt convert --shape 4,4 in/m.tns; spt convert --shape 2,2 in/m.tns; spt convert --shape 2,x in/m.tns'
check reorder_rowmajor 'spt reorder in/t3.tns'
check reorder_order 'spt reorder --order 2,0,1 in/t3.tns'
# the order survives every format: stated by the writer, verified by the reader
check order_kept 'for e in tns npz; do spt reorder --order 2,0,1 in/t3.tns -o $T/B.$e && spt info $T/B.$e | grep -A1 "^order"; done; spt reorder --order 1,0 in/m.tns -o $T/B.mtx && head -2 $T/B.mtx && spt info $T/B.mtx | grep "^order"; spt convert --to npz-scipy-csr $T/B.mtx -o $T/C.npz && spt info $T/C.npz | grep "^order"'
check reorder_bad 'spt reorder --order 0,1 in/t3.tns; spt reorder --order 0,0,1 in/t3.tns'
check to_dense 'spt to-dense in/m.tns -o $T/m.npy && spt convert $T/m.npy - && spt to-dense --validate in/t3.tns -o $T/t.npy'
check to_dense_stdout 'spt to-dense in/m.tns -o - | spt convert --format npy -'

# ---- layout and math ops ----
check concat_axis1 'spt concat --axis 1 in/m.tns in/m2.tns'
check concat_axis0 'spt concat in/m.tns in/m2.tns in/m.tns'
check concat_bad 'spt concat --axis 0 in/m.tns in/t3.tns'
check split 'spt split --axis 0 --num 2 in/t3.tns -o $T/p && cat $T/p0.tns $T/p1.tns'
# a directory in the way of a piece is found before any piece is written
check split_partial 'mkdir $T/p1.tns; spt split --axis 0 --num 2 in/t3.tns -o $T/p; echo "rc $?"; ls $T'
# piece 2 cannot be written (a link into a missing directory): piece 1, made by this run, is removed;
# p0.tns existed before the run and stays
check split_rollback 'echo keep > $T/p0.tns; ln -s nodir/x.tns $T/p2.tns; spt split --num 3 in/m.tns -o $T/p; echo "rc $?"; ls $T; cat $T/p0.tns'
check slice 'spt slice --start 0,1 --size 2,2 in/m.tns'
check slice_bad 'spt slice --start 0 --size 2 in/m.tns'
check reduce_sum 'spt reduce --op sum --axis 1 in/t3.tns'
check reduce_max 'spt reduce --op max --axis 0,2 in/t3.tns'
check reduce_all 'spt reduce in/t3.tns && spt reduce --dense --axis -1 -o $T/r.npy in/t3.tns && spt convert $T/r.npy'
check reduce_bad 'spt reduce --op mean in/t3.tns; spt reduce --axis 3 in/t3.tns'
check add 'spt add in/m.tns in/m2.tns'
check add_bad 'spt add in/m.tns in/t3.tns'
check matmul 'spt matmul in/m.tns in/b.npy && spt matmul in/m.tns in/b.npy -o $T/p.npy && spt convert $T/p.npy'
check matmul_bad 'spt matmul in/t3.tns in/b.npy'
# spgemm
check spgemm 'spt spgemm in/m.tns in/m2.tns && spt spgemm --adjoint-b in/m.tns in/m.tns'
check spgemm_bad 'spt spgemm in/m.tns in/t3.tns'
check sparsify 'spt sparsify --ind-rank 1 --map 0:0 in/m.tns in/map.tns && spt sparsify --ind-rank 1 --map 0:0 in/m.tns in/map.tns -o -'
# --outer-shape must give exactly --ind-rank dims (a shorter list once left dims uninitialised)
check sparsify_bad_oshape 'spt sparsify --ind-rank 1 --map 0:0 --outer-shape 3,3 in/m.tns in/map.tns; echo "rc=$?"; spt sparsify --ind-rank 1 --map 0:0 --outer-shape "" in/m.tns in/map.tns; echo "rc=$?"; spt sparsify --ind-rank 1 --map 0:0 --outer-shape 4 in/m.tns in/map.tns'
check spy 'spt spy in/m.tns -o $T/m.png && od -An -tx1 -N24 $T/m.png && spt spy --modes 2,0 --size 2 in/t3.tns -o $T/t.png && od -An -tx1 -j16 -N8 $T/t.png'
check spy_bad 'spt spy --modes 0,5 in/t3.tns -o $T/x.png; echo "rc=$?"; ls -a $T'
# the format follows the name: only .png is drawn, other names are refused before anything is written
check spy_format 'spt spy in/m.tns -o $T/x.jpg; echo "rc=$?"; spt spy in/m.tns -o $T/x; echo "rc=$?"; spt spy in/m.tns -o $T/X.PNG && od -An -tx1 -j16 -N8 $T/X.PNG; ls -a $T'
check spy_values 'spt spy --values in/m.tns -o $T/v.png && od -An -tx1 -j16 -N10 $T/v.png; spt spy --values --modes 0,1 in/ids.tns -o $T/w.png && od -An -tx1 -j24 -N2 $T/w.png'
# dims near INT64_MAX with a 1-pixel side: binned into one cell (the plot size is the PNG's width/height)
check spy_huge 'printf "# shape: 9223372036854775807\n1 2.5\n" > $T/h.tns && timeout 20 "$SPT" spy --size 1 $T/h.tns -o $T/h.png && od -An -tx1 -j16 -N8 $T/h.png; printf "# shape: 9223372036854775807 9223372036854775807\n1 1 2.5\n9223372036854775807 3 1\n" > $T/h2.tns && timeout 20 "$SPT" spy $T/h2.tns -o $T/h2.png && od -An -tx1 -j16 -N8 $T/h2.png'
# stdin can be read once; a UTF-8 byte-order mark before the first line is skipped; a --dtype that
# contradicts the .tns header is an error (complex128 would read the last two columns as one value)
check stdin_twice 'spt spgemm - - < in/m.tns; echo "rc=$?"; spt bincount --weights - - < in/ids.tns; echo "rc=$?"; spt concat --axis 0 in/m.tns - - < in/m.tns; echo "rc=$?"'
check bom 'printf "\357\273\2771 1 1.5\n2 2 2\n" > $T/b.tns && spt info $T/b.tns && printf "\357\273\277%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 3\n" > $T/b.mtx && spt convert $T/b.mtx -'
check dtype_header 'printf "# dtype: float64\n1 1 1.5\n2 2 2.5\n" > $T/f.tns; spt info --dtype complex128 $T/f.tns; echo "rc=$?"; spt info --dtype float64 $T/f.tns | head -3'

# ---- bincount, map, expand-dims ----
check bincount_all 'spt bincount in/ids.tns'
check bincount_rows 'spt bincount --axis -1 --minlength 7 in/ids.tns'
check bincount_max 'spt bincount --axis -1 --maxlength 4 --binary in/ids.tns'
check bincount_weights 'spt bincount --axis -1 --weights in/ids.tns in/ids.tns'
check bincount_bad 'spt bincount in/t3.tns; spt bincount --axis 1 in/ids.tns; spt bincount --binary --weights in/ids.tns in/ids.tns'
# as TensorFlow 2.21: maxlength 0 keeps nothing (width 0, whatever minlength); a negative size past
# dim - size is an empty slice, before it an error; an integer tensor takes an integer threshold
check bincount_max0 'spt bincount --axis -1 --maxlength 0 --minlength 5 in/ids.tns'
check slice_negsize 'spt slice --start 9,0 --size -1,2 in/m.tns; spt slice --start 0,0 --size -1,2 in/m.tns; echo "rc=$?"'
check add_int_thresh 'spt add --thresh 2 in/ids.tns in/ids.tns; spt add --thresh 0.5 in/ids.tns in/ids.tns; echo "rc=$?"'
check map_square 'spt map --op square in/t3.tns'
check map_cast 'spt map --cast int8 in/t3.tns'
check map_bad 'spt map in/t3.tns; spt map --op cosh in/t3.tns; spt map --op floor --dtype int64 in/ids.tns'
check expand_dims 'spt expand-dims --axis 1 in/t3.tns'
check expand_dims_bad 'spt expand-dims --axis 5 in/t3.tns'

# ---- malformed files: FILE:LINE message, exit 1, no output file left behind ----
check bad_fields 'spt convert in/bad_fields.tns $T/o.tns; echo "rc=$?"; ls -a $T'
check bad_zero 'spt convert in/bad_zero.tns $T/o.tns; echo "rc=$?"; ls -a $T'
check bad_overflow 'spt info in/bad_overflow.tns'
check bad_header 'spt info in/bad_header.tns'
check bad_value 'spt validate in/bad_value.tns'
check bad_claim 'spt info in/bad_claim.mtx'
check bad_count 'spt info in/bad_count.mtx'
check bad_npz 'spt info in/bad.npz'
check bad_missing 'spt info in/nonexistent.tns'
check write_fail 'spt convert in/m.tns /nonexistent/dir/o.tns'
# ---- the output path: links, devices, FIFOs, modes, hard links, long names ----
check write_symlink 'echo old > $T/real.tns; ln -s real.tns $T/l.tns; spt convert in/m.tns -o $T/l.tns && test -L $T/l.tns && echo "link kept" && cat $T/real.tns; ls -a $T'
check write_dangling 'ln -s made.npz $T/d.npz; spt convert in/m.tns -o $T/d.npz && test -L $T/d.npz && spt convert $T/made.npz'
check write_device 'if mknod $T/null c 1 3 2>/dev/null; then d=$T/null; else d=/dev/null; fi; spt convert in/m.tns --to npz -o $d && spt convert in/m.tns --to tns -o $d && stat -c %F,%t,%T $d; spt convert in/m.tns --to tns -o /dev/full; echo "rc $?"; stat -c %F /dev/full'
check write_fifo 'mkfifo $T/f; cat $T/f > $T/f.out & spt convert in/m.tns --to tns -o $T/f; wait; cat $T/f.out; stat -c %F $T/f; spt convert --to mtx in/m.tns -o /dev/stdout | cat'
check write_mode 'echo x > $T/p.tns; chmod 600 $T/p.tns; spt convert in/m.tns -o $T/p.tns && stat -c %a $T/p.tns; chmod 640 $T/p.tns; spt convert in/m.tns -o $T/p.tns --to npz && stat -c %a $T/p.tns'
check write_hardlink 'echo x > $T/a.tns; ln $T/a.tns $T/b.tns; spt convert in/m.tns -o $T/b.tns && stat -c %h $T/a.tns && cmp $T/a.tns $T/b.tns && cat $T/a.tns'
check write_long_name 'n=$(printf "%0251d" 7); spt convert in/m.tns -o $T/$n.tns && spt convert in/m.tns -o $T/$n.tns && ls $T | wc -c; spt convert in/m.tns -o $T/${n}8.tns 2>&1 | sed "s/$n/NAME/"; spt convert in/m.tns --to tns -o ""'
# ---- inputs that never end: stopped at SPT_MAX_STREAM_BYTES ----
check read_dev_zero 'SPT_MAX_STREAM_BYTES=1M spt info --format tns /dev/zero; SPT_MAX_STREAM_BYTES=64K spt info --format npz /dev/zero; SPT_MAX_STREAM_BYTES=64K spt info --format npy - < /dev/zero'
check read_fifo 'mkfifo $T/in; (while :; do echo "1 1 1"; done > $T/in 2>/dev/null) & SPT_MAX_STREAM_BYTES=64K spt info --format tns $T/in; echo "rc $?"; kill $! 2>/dev/null; wait'
# ---- the walkthrough on files of another rank or dtype: a clean message per step, no overflow ----
check demo_bad_files 'mkdir $T/d && cp ../../data/*.tns $T/d && cp ../../data/sparsify_matrix.tns $T/d/unordered_example.tns && cp in/t3.tns $T/d/sparsify_matrix.tns && cp in/m.tns $T/d/group_example.tns && spt demo $T/d | grep "!!"; echo "rc $?"'
check write_npz_fail 'spt convert in/t3.tns --to npz-scipy-coo $T/o.npz; echo "rc=$?"; ls -a $T'
check tfrecord_info 'spt info ../tf_formats/data/examples_gzip.tfrecord'
check tfrecord_convert 'spt convert ../tf_formats/data/examples_zlib.tfrecord --feature ids -o $T/ids.npz && spt convert $T/ids.npz; spt convert ../tf_formats/data/examples.tfrecord --feature tag --to tns; echo "rc=$?"'
check tfrecord_bad 'spt convert ../tf_formats/data/examples.tfrecord; echo "rc=$?"; head -c 100 ../tf_formats/data/examples.tfrecord > $T/cut.tfrecord; spt info --compression NONE $T/cut.tfrecord; echo "rc=$?"'

# ---- Python interop: .npz written by spt read by pydata/sparse and SciPy, and the other way round ----
if "$PY" -c 'import numpy, scipy.sparse, sparse' 2>/dev/null; then
  "$SPT" convert "$here/in/t3.tns" "$T/py_pd.npz" &&
  "$SPT" convert --to npz-scipy-coo "$here/in/m.tns" "$T/py_coo.npz" &&
  "$SPT" convert --to npz-scipy-csr "$here/in/m.tns" "$T/py_csr.npz" &&
  "$SPT" convert "$here/in/m.tns" "$T/py_m.npy" &&
  "$PY" - "$T" <<'EOF' > "$T/py.log" 2>&1
import sys, numpy as np, scipy.sparse as ss, sparse
T = sys.argv[1]
x = sparse.load_npz(T + '/py_pd.npz')
assert x.shape == (2, 3, 2) and x.nnz == 5 and x.fill_value == 0, x
# entries as stored (the duplicate [1,2,0] included)
assert x.coords.T.tolist() == [[1, 2, 0], [0, 0, 0], [0, 1, 1], [1, 2, 0], [1, 0, 1]], x.coords
assert x.data.tolist() == [2.5, 1, -3, 4, 0.5], x.data
m = np.array([[1, 0, 2], [0, 3, 0], [4, 0, 0]])
for f in ('py_coo', 'py_csr'):
    a = ss.load_npz(T + '/' + f + '.npz')
    assert a.format == f[3:] and np.array_equal(a.toarray(), m), (f, a.toarray())
assert np.array_equal(np.load(T + '/py_m.npy'), m)
# the other way round
r = np.random.default_rng(7)
b = ss.random(6, 9, density=0.3, format='csr', random_state=7)
ss.save_npz(T + '/in_csr.npz', b); ss.save_npz(T + '/in_coo.npz', b.tocoo())
ss.save_npz(T + '/in_csc.npz', b.tocsc())
y = sparse.random((3, 4, 5), density=0.3, random_state=7)
sparse.save_npz(T + '/in_pd.npz', y)
np.save(T + '/in.npy', y.todense())
np.savetxt(T + '/ref_b.txt', b.toarray())
np.savetxt(T + '/ref_y.txt', y.todense().reshape(-1))
EOF
  if [ $? -ne 0 ]; then fail=$((fail+1)); failed="$failed python_read"; cat "$T/py.log"; else pass=$((pass+1)); fi
  ok=1
  for f in in_csr in_coo in_csc; do
    "$SPT" to-dense "$T/$f.npz" -o "$T/$f.npy" || ok=0
  done
  "$SPT" to-dense "$T/in_pd.npz" -o "$T/in_pd.npy" || ok=0
  "$PY" - "$T" <<'EOF' >> "$T/py.log" 2>&1 || ok=0
import sys, numpy as np
T = sys.argv[1]
b = np.loadtxt(T + '/ref_b.txt')
for f in ('in_csr', 'in_coo', 'in_csc'):
    assert np.array_equal(np.load(T + '/' + f + '.npy'), b), f
y = np.loadtxt(T + '/ref_y.txt')
assert np.array_equal(np.load(T + '/in_pd.npy').reshape(-1), y)
EOF
  if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); failed="$failed python_write"; cat "$T/py.log"; fi
else
  echo "run.sh: numpy/scipy/sparse not importable by $PY: interop checks skipped"
fi

echo "[cli] $pass passed, $fail failed"
[ -n "$failed" ] && echo "[cli] failing:$failed"
[ $fail -eq 0 ]
