#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install what spt needs from Debian's packages (idempotent; quick when all present).
#   install-deps.sh build   what `make` / `make run` need
#   install-deps.sh test    what `make test` needs as well (the default)
#   install-deps.sh tf      what `make test-tf` needs to build its virtual environment (python3-venv)
set -e
BUILD_PKGS="build-essential pkg-config libpng-dev libarchive-dev libdeflate-dev zlib1g-dev"
TEST_PKGS="libcmocka-dev libjansson-dev libzip-dev clang libclang-rt-14-dev \
python3 python3-numpy python3-scipy python3-sparse python3-pytest python3-hypothesis valgrind \
openmpi-bin libopenmpi-dev python3-mpi4py libcombblas-dev python3-venv python3-pip python3-setuptools python3-wheel strace universal-ctags clang-format"
PKGS="$BUILD_PKGS"
[ "${1:-test}" = build ] || PKGS="$BUILD_PKGS $TEST_PKGS"
[ "${1:-test}" = tf ] && PKGS="python3 python3-venv"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: not root; please install:$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
