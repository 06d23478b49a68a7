#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# spt.mpi (python/spt/mpi.py) under mpirun: python/tests/mpi_check.py at np $MPI_NP (full) and
# $MPI_NP_MANY (--small, oversubscribed), then Ctrl-C: SIGINT to mpirun while rank 0 sleeps in Python and
# the others wait in a collective must end every rank within 30 s.
#   MPIRUN=mpirun MPI_NP="1 2 3 4" MPI_NP_MANY="8 16" PYTHON=/usr/bin/python3 sh tests/mpi/python_mpi.sh build/libspt_mpi.so
set -u
LIB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
MPIRUN=${MPIRUN:-mpirun}
if ! "$PY" -c "import mpi4py" 2>/dev/null; then
  echo "[python mpi] SKIPPED: $PY has no mpi4py (tools/install-deps.sh installs python3-mpi4py)"
  exit 0
fi
run() { # np, extra args
  SPT_LIB="$LIB" PYTHONPATH="$ROOT/python" timeout 600 "$MPIRUN" --quiet -x SPT_LIB -x PYTHONPATH -np "$1" \
    "$PY" "$ROOT/python/tests/mpi_check.py" $2 || { echo "[python mpi] np=$1 FAILED"; exit 1; }
}
for np in ${MPI_NP:-1 2 3 4}; do run "$np" ""; done
for np in ${MPI_NP_MANY:-8 16}; do run "$np" --small; done

dir=$(mktemp -d)
# the README's example at np 4 on a random .tns file
"$PY" -c "
import numpy as np
rng = np.random.default_rng(11)
with open('$dir/t.tns', 'w') as f:
    for _ in range(3000):
        f.write('%d %d %d %d\\n' % (rng.integers(1, 41), rng.integers(1, 31), rng.integers(1, 21), rng.integers(-9, 10)))
"
SPT_LIB="$LIB" PYTHONPATH="$ROOT/python" timeout 300 "$MPIRUN" --quiet -x SPT_LIB -x PYTHONPATH -np 4 "$PY" \
  "$ROOT/python/tests/mpi_readme.py" "$dir/t.tns" || { echo "[python mpi] README example FAILED"; exit 1; }

# Ctrl-C
prog="$dir/ctrl_c.py"
cat > "$prog" <<'PY'
import time
from mpi4py import MPI
import spt, spt.mpi
comm = MPI.COMM_WORLD
d = spt.mpi.from_local(spt.SparseTensor([[comm.rank, 0]], [1.0], [comm.size, 2]))
if comm.rank == 0:
    print("ready", flush=True)
    time.sleep(300)
d.gather()
PY
SPT_LIB="$LIB" PYTHONPATH="$ROOT/python" "$MPIRUN" --quiet -x SPT_LIB -x PYTHONPATH -np 3 "$PY" "$prog" > "$dir/out" 2>&1 &
pid=$!
i=0
while ! grep -q ready "$dir/out" 2>/dev/null && [ $i -lt 120 ]; do sleep 0.5; i=$((i + 1)); done
sleep 1
kill -INT $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null || pgrep -f "$prog" >/dev/null; then
  echo "[python mpi] Ctrl-C did not end every rank within 30 s"
  kill -KILL $pid 2>/dev/null
  for p in $(pgrep -f "$prog"); do kill -KILL "$p" 2>/dev/null; done  # the ranks of this run (its own path)
  rm -rf "$dir"
  exit 1
fi
echo "[python mpi] Ctrl-C under mpirun: every rank ended after $((i / 2)).$((i % 2 * 5)) s"
rm -rf "$dir"
