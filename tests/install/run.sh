#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/install/run.sh -- what a user of an installed spt meets (run by `make test-install`, in make test):
#  0. make doc builds the API reference (from spt.h) and the Python reference (pydoc);
#  1. make install PREFIX=<tmp> (under strace when available, with a fresh HOME) writes nothing outside
#     PREFIX and build/; make install DESTDIR=<tmp> PREFIX=/opt/spt writes only under DESTDIR/opt/spt;
#  2. the installed libspt.so.X.Y.Z has the SONAME libspt.so.X, the links, and exports every function of
#     spt.h and no spt__ symbol; the Python package does not call spt__ functions;
#  3. a program calling spt_read builds with `pkg-config --cflags --libs spt` alone (shared) and with
#     `--static` (libspt.a), and both run on the installed data;
#  4. the installed spt command (demo on the installed data, demo --help) and the installed Python package;
#  5. make uninstall removes everything make install wrote (both installs);
#  6. pip install ./python on a fresh copy of the repository (no libspt.so built: the wheel build makes it)
#     into a new venv gives a working `import spt` that loads the wheel's own library, and the wheel is a
#     platform wheel of the right version. Skipped, saying so, when venv/pip/setuptools are missing.
#     SPT_INSTALL_TEST_FRESH=1 builds the library from nothing there (slow); by default the object files
#     of build/obj are copied along, so the wheel build only links libspt.so.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
MAKE="make --no-print-directory -s -C $REPO"
T=$(mktemp -d /tmp/spt-install-test.XXXXXX)
fails=0
passes=0
ok() { passes=$((passes + 1)); echo "[install] ok: $1"; }
bad() { fails=$((fails + 1)); echo "[install] FAILED: $1"; }
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@" > "$T/out" 2>&1; then ok "$d"; else bad "$d"; sed 's/^/    /' "$T/out" | head -40; fi
}
cleanup() { rm -rf "$T"; }
trap cleanup EXIT INT TERM

cd "$REPO" || exit 1
V=$(sed -n 's/^#define SPT_VERSION_\(MAJOR\|MINOR\|PATCH\)  *\([0-9]*\).*/\2/p' include/spt.h | paste -sd. -)
MAJOR=${V%%.*}
P=$T/prefix
mkdir -p "$T/home"

# ---- 0. the documentation (installed with the rest when built) ----------------------------------------
$MAKE doc > "$T/doc.log" 2>&1
check "make doc (API reference from spt.h, Python docstrings)" test $? -eq 0 -a -s build/doc/html/index.html -a -s build/doc/man/man3/spt.3 -a -s build/doc/python/spt.html
[ -s build/doc/html/index.html ] || cat "$T/doc.log"

# ---- 1. install confined to PREFIX -------------------------------------------------------------------
usrlocal_before=$(ls -la /usr/local/lib /usr/local/bin /usr/local/include 2>/dev/null | grep -i spt)
if command -v strace > /dev/null 2>&1 && strace -f -qq -o /dev/null true > /dev/null 2>&1; then
    # (a compiler run by make's dependency on `all` writes its temporary files under TMPDIR: inside $T)
    mkdir -p "$T/tmp"
    HOME=$T/home TMPDIR=$T/tmp strace -f -qq -y -o "$T/strace" -e trace=chdir,fchdir,clone,clone3,fork,vfork,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,unlinkat,rmdir,chmod,fchmodat,chown,fchownat,lchown,utimensat,truncate \
        $MAKE install PREFIX="$P" > "$T/install.log" 2>&1
    rc=$?
    check "make install PREFIX=<tmp> succeeds" test $rc -eq 0
    # every path written (created, opened for writing, renamed, linked, removed, chmod-ed) lies in $T or build/
    check "make install writes nothing outside PREFIX and build/ (strace)" "$PY" - "$T/strace" "$T" "$REPO" <<'EOF'
import os, re, sys
trace, tmp, repo = sys.argv[1:4]
allowed = (tmp + "/", repo + "/build/", "/dev/null", "/dev/tty", "/dev/pts/")
call = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)")
arg = re.compile(r'(?:(-?\d+|AT_FDCWD)(?:<([^>]*)>)?,\s*)?"((?:[^"\\]|\\.)*)"')
cwd = {}  # pid -> working directory (install -d creates directories relative to the one it chdir-ed to)
bad = []
for line in open(trace, errors="replace"):
    m = call.match(line)
    if not m or int(m.group(4)) < 0:
        continue
    pid, name, args, ret = m.group(1), m.group(2), m.group(3), int(m.group(4))
    here = cwd.setdefault(pid, repo)
    if name in ("clone", "clone3", "fork", "vfork"):
        cwd[str(ret)] = here
        continue
    found = arg.findall(args)
    def absolute(fdpath, s):
        if s.startswith("/"):
            return os.path.normpath(s)
        return os.path.normpath(os.path.join(fdpath or here, s))
    if name == "chdir":
        cwd[pid] = absolute("", found[0][2])
        continue
    if name == "fchdir":
        fdm = re.match(r"-?\d+<([^>]*)>", args)
        if fdm:
            cwd[pid] = fdm.group(1)
        continue
    if name in ("open", "openat") and not re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", args):
        continue
    paths = [absolute(fdpath, s) for _fd, fdpath, s in found]
    if name in ("symlink", "symlinkat"):
        paths = paths[1:]  # the first string is the link's text, not a path written
    if not paths:  # an fd-only call (utimensat(fd, NULL, ...)): the fd's path
        fdm = re.match(r"-?\d+<([^>]*)>", args)
        paths = [fdm.group(1)] if fdm else []
    for p in paths:
        if not (p + "/").startswith(allowed) and not p.startswith(allowed):
            bad.append("%s: %s" % (name, p))
if bad:
    print("written outside PREFIX:", *sorted(set(bad))[:30], sep="\n  ")
    sys.exit(1)
EOF
else
    echo "[install] note: strace unavailable; checking HOME and /usr/local instead"
    HOME=$T/home $MAKE install PREFIX="$P" > "$T/install.log" 2>&1
    check "make install PREFIX=<tmp> succeeds" test $? -eq 0
fi
check "make install leaves HOME untouched" test -z "$(ls -A "$T/home")"
check "make install leaves /usr/local untouched" test "$usrlocal_before" = "$(ls -la /usr/local/lib /usr/local/bin /usr/local/include 2>/dev/null | grep -i spt)"
for f in lib/libspt.a "lib/libspt.so.$V" include/spt.h include/spt_dtypes.def include/spt_status.def bin/spt \
         lib/pkgconfig/spt.pc share/spt/data/example_tensor.tns share/doc/spt/LICENSE \
         share/doc/spt/html/index.html share/doc/spt/python/spt.html share/man/man3/spt.3; do
    check "installed $f" test -f "$P/$f"
done
check "lib/libspt.so.$MAJOR -> libspt.so.$V" test "$(readlink "$P/lib/libspt.so.$MAJOR")" = "libspt.so.$V"
check "lib/libspt.so -> libspt.so.$MAJOR" test "$(readlink "$P/lib/libspt.so")" = "libspt.so.$MAJOR"

# DESTDIR: everything under DESTDIR/PREFIX, spt.pc naming PREFIX
S=$T/stage
$MAKE install DESTDIR="$S" PREFIX=/opt/spt > "$T/install2.log" 2>&1
check "make install DESTDIR=<tmp> PREFIX=/opt/spt succeeds" test $? -eq 0
check "DESTDIR install: every file under DESTDIR/opt/spt" test -z "$(find "$S" -mindepth 1 ! -path "$S/opt" ! -path "$S/opt/spt" ! -path "$S/opt/spt/*")"
check "DESTDIR install: spt.pc says prefix=/opt/spt" grep -qx 'prefix=/opt/spt' "$S/opt/spt/lib/pkgconfig/spt.pc"

# ---- 2. the shared library's ABI -------------------------------------------------------------------
check "SONAME libspt.so.$MAJOR (objdump -p)" sh -c "objdump -p '$P/lib/libspt.so.$V' | grep -Eq 'SONAME +libspt\\.so\\.$MAJOR\$'"
nm -D --defined-only "$P/lib/libspt.so.$V" | awk '{print $3}' | sed 's/@.*//' | sort -u > "$T/exported"
check "nm -D shows no spt__ symbol" test -z "$(grep '^spt__' "$T/exported")"
check "nm -D shows only spt_* symbols (and the version node)" test -z "$(grep -v '^spt_' "$T/exported" | grep -v '^SPT_')"
sed -n 's/.*[^a-z_0-9]\(spt_[a-z0-9_]*\)(.*/\1/p' include/spt.h | sort -u > "$T/declared"
check "every function declared in spt.h is exported ($(wc -l < "$T/declared") functions)" \
    test -z "$(comm -23 "$T/declared" "$T/exported")"
check "the Python package calls no spt__ function" test -z "$(grep -rn 'spt__' python/spt --include='*.py')"

# ---- 3. pkg-config builds ----------------------------------------------------------------------------
cat > "$T/prog.c" <<'EOF'
#include <stdio.h>
#include "spt.h"
int main(int argc, char **argv) {
    spt_tensor *t;
    if (argc < 2 || spt_read(argv[1], SPT_FORMAT_AUTO, NULL, &t) != SPT_OK) {
        fprintf(stderr, "%s\n", spt_last_error());
        return 1;
    }
    printf("rank %lld nnz %lld\n", (long long)spt_tensor_rank(t), (long long)spt_tensor_nnz(t));
    spt_tensor_free(t);
    return 0;
}
EOF
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
DATA=$P/share/spt/data/example_tensor.tns
want=$(build/spt info "$DATA" | awk '/^rank/ {r=$2} /^nnz/ {n=$2} END {print "rank " r " nnz " n}')
check "pkg-config --modversion spt = $V" test "$(pkg-config --modversion spt)" = "$V"
check "pkg-config --static --libs spt names libpng and libdeflate, not libzip" sh -c 'pkg-config --static --libs spt | grep -q -- "-lpng" && pkg-config --static --libs spt | grep -q -- "-ldeflate" && ! pkg-config --static --libs spt | grep -q -- "-lzip"'
check "shared: cc prog.c \$(pkg-config --cflags --libs spt)" sh -c "cd '$T' && cc prog.c \$(pkg-config --cflags --libs spt) -o prog_shared"
check "shared program links libspt.so.$MAJOR" sh -c "objdump -p '$T/prog_shared' | grep -q 'NEEDED *libspt.so.$MAJOR'"
check "shared program reads the installed data ($want)" test "$(LD_LIBRARY_PATH="$P/lib" "$T/prog_shared" "$DATA")" = "$want"
check "static: cc prog.c \$(pkg-config --cflags spt) -l:libspt.a -Wl,--as-needed \$(pkg-config --static --libs spt)" \
    sh -c "cd '$T' && cc prog.c \$(pkg-config --cflags spt) -l:libspt.a -Wl,--as-needed \$(pkg-config --static --libs spt) -o prog_static"
check "static program does not need libspt.so" sh -c "! objdump -p '$T/prog_static' | grep -q 'NEEDED *libspt'"
check "static program reads the installed data ($want)" test "$(env -u LD_LIBRARY_PATH "$T/prog_static" "$DATA")" = "$want"

# ---- 4. the installed command and Python package ----------------------------------------------------
check "installed spt demo (run elsewhere) finds the installed data" sh -c "cd '$T' && '$P/bin/spt' demo | tail -n 1 | grep -qx 'walkthrough finished'"
check "spt demo --help prints help" sh -c "'$P/bin/spt' demo --help | grep -q '^usage: spt demo'"
site=$(ls -d "$P"/lib/python3*/site-packages 2>/dev/null | head -n 1)
if [ -n "$site" ] && "$PY" -c 'import numpy' 2>/dev/null; then
    check "installed Python package loads the installed library" sh -c "cd '$T' && env -u SPT_LIB HOME='$T/home' PYTHONPATH='$site' '$PY' -c '
import spt
t = spt.read(\"$DATA\")
maps = open(\"/proc/self/maps\").read()
assert \"$P/lib/libspt.so.$V\" in maps, \"libspt not loaded from PREFIX\"
print(\"rank\", len(t.dense_shape), \"nnz\", len(t.values))' | grep -qx '$want'"
else
    echo "[install] note: no numpy or no installed Python package; installed-Python check skipped"
fi

# ---- 5. uninstall -------------------------------------------------------------------------------------
$MAKE uninstall PREFIX="$P" > "$T/uninstall.log" 2>&1
check "make uninstall succeeds" test $? -eq 0
check "make uninstall removes everything make install wrote" test -z "$(find "$P" -mindepth 1 | head -20)"
$MAKE uninstall DESTDIR="$S" PREFIX=/opt/spt > "$T/uninstall2.log" 2>&1
check "make uninstall DESTDIR=... removes everything" test -z "$(find "$S" -mindepth 1 ! -type d | head -20)"

# ---- 6. pip install ./python on a fresh copy ---------------------------------------------------------
if ! "$PY" -c 'import venv, ensurepip, setuptools, wheel, numpy' > /dev/null 2>&1; then
    echo "[install] SKIPPED pip install ./python: $PY lacks venv/ensurepip/setuptools/wheel/numpy (tools/install-deps.sh installs python3-venv python3-setuptools python3-wheel python3-numpy)"
else
    C=$T/clone
    mkdir -p "$C"
    git ls-files -z -co --exclude-standard | xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
        tar --null -T - -cf - | tar -C "$C" -xf -
    if [ "${SPT_INSTALL_TEST_FRESH:-0}" != 1 ] && [ -d build/obj/src ]; then
        mkdir -p "$C/build/obj" && tar -cf - build/obj/src | tar -C "$C" -xf -
    fi
    check "the fresh copy has no libspt.so" test ! -e "$C/build/libspt.so"
    "$PY" -m venv --system-site-packages "$T/venv" > "$T/venv.log" 2>&1
    check "python3 -m venv --system-site-packages" test $? -eq 0
    (cd "$C" && env -u SPT_LIB HOME="$T/home" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
        "$T/venv/bin/python" -m pip install --no-build-isolation ./python) > "$T/pip.log" 2>&1
    rc=$?
    check "pip install --no-build-isolation ./python (wheel build runs make)" test $rc -eq 0
    [ $rc -eq 0 ] || tail -30 "$T/pip.log"
    check "the wheel build built libspt.so" test -f "$C/build/libspt.so"
    check "import spt in the venv loads the wheel's own library" sh -c "cd '$T' && env -u SPT_LIB '$T/venv/bin/python' -c '
import os, spt
t = spt.read(\"$REPO/data/example_tensor.tns\")
maps = [l.split()[-1] for l in open(\"/proc/self/maps\") if \"libspt\" in l]
pkg = os.path.dirname(spt.__file__)
assert pkg.startswith(\"$T/venv/\"), pkg
assert maps and all(m.startswith(pkg + os.sep) for m in maps), maps
print(\"rank\", len(t.dense_shape), \"nnz\", len(t.values))' | grep -qx '$want'"
    (cd "$C" && env -u SPT_LIB HOME="$T/home" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
        "$T/venv/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$T/wheels" ./python) > "$T/wheel.log" 2>&1
    arch=$("$PY" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')
    check "the wheel is spt-$V-py3-none-$arch.whl" test -f "$T/wheels/spt-$V-py3-none-$arch.whl"
    check "the wheel carries spt/libspt.so" sh -c "'$PY' -m zipfile -l '$T/wheels/spt-$V-py3-none-$arch.whl' | grep -q '^spt/libspt.so '"
fi

echo "[install] $passes passed, $fails failed"
[ -f "$REPO/build/test-summary" ] && echo "$passes $fails install" >> "$REPO/build/test-summary"
[ $fails -eq 0 ]
