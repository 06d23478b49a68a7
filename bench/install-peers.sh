#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install the peers make bench measures (idempotent, quick when all are present).
#  1. Debian's packages: python3-torch (1.13), python3-sparse (0.13), python3-scipy, python3-matplotlib, and
#     libgraphblas-dev (SuiteSparse:GraphBLAS, for build/bench/bench_graphblas).
#  2. PyPI, into the benchmark's own virtual environment build/bench-venv (a bench-only dependency, never
#     used at run time): tensorflow-cpu 2.x, torch 2.x, sparse (pydata/sparse) 0.19, SciPy's newest release
#     (n-D coo_array needs 1.15 or newer) and matplotlib (the cost curves' plots). No CPU-only torch
#     wheel is published on PyPI: PyPI's torch declares CUDA runtime packages as dependencies and does not
#     import without them, so they are installed too (about 4.5 GB downloaded, 7 GB on disk; the GPU is
#     never used: the benchmark runs on the CPU). BENCH_PYPI=0 skips the PyPI peers. BENCH_TF_VENV=DIR: a
#     venv that already has TensorFlow (make test-tf's): TensorFlow is not installed again into VENV, and
#     make bench runs the TensorFlow peers from DIR.
# Whatever cannot be installed is reported by run.py as unavailable (the table says which peers ran).
# Usage: bench/install-peers.sh [VENV_DIR]   (default build/bench-venv)
VENV=${1:-build/bench-venv}
PKGS="python3 python3-numpy python3-scipy python3-sparse python3-torch python3-matplotlib python3-venv libgraphblas-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "bench: installing the Debian peers:$missing"
  if [ "$(id -u)" != 0 ]; then
    echo "bench: not root; please install:$missing (the missing peers are reported as unavailable)" >&2
  else
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || \
      echo "bench: could not install:$missing (the missing peers are reported as unavailable)" >&2
  fi
fi

[ "${BENCH_PYPI:-1}" = 0 ] && { echo "bench: BENCH_PYPI=0: the PyPI peers are skipped"; exit 0; }
# The PyPI peers: the versions the table compares with (major versions pinned, the newest of each served).
REQS="torch>=2.0,<3 sparse>=0.19,<0.20 scipy>=1.15 matplotlib"
MODS="torch, sparse, scipy.sparse, matplotlib"
if [ -n "${BENCH_TF_VENV:-}" ] && "$BENCH_TF_VENV/bin/python" -c 'import tensorflow' >/dev/null 2>&1; then
  echo "bench: TensorFlow from $BENCH_TF_VENV"
else
  REQS="tensorflow-cpu>=2.16,<3 $REQS"
  MODS="tensorflow, $MODS"
fi
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import $MODS; from scipy.sparse import coo_array; coo_array(([1.0], ([0], [0], [0])), shape=(1, 1, 1))" >/dev/null 2>&1; then
  exit 0
fi
echo "bench: installing the PyPI peers into $VENV: $REQS"
mkdir -p "$(dirname "$VENV")"
if ! /usr/bin/python3 -m venv "$VENV" >/dev/null 2>&1; then
  echo "bench: could not create $VENV (python3-venv missing?); the PyPI peers are reported as unavailable" >&2
  exit 0
fi
# shellcheck disable=SC2086
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check --progress-bar off $REQS; then
  echo "bench: PyPI not reachable or the install failed; the PyPI peers are reported as unavailable" >&2
fi
exit 0
