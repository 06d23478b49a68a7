#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# verify-format-noop.sh -- prove that applying .clang-format changes no code: copy the tree, compile every C
# file of src/, cli/, tests/, fuzz/ and bench/ to an object, format the copy (as `make format` does),
# compile again and compare each object's .text section (objcopy -O binary -j .text). An object whose
# .text differs is a failure, unless it compiles to the same .text with __LINE__ fixed to 0 on both sides
# (cmocka's assertions pass the line as an argument): those are listed as differing only by __LINE__, as
# are the objects whose .text is the same and whose .rodata is not.
#
# Usage: tools/verify-format-noop.sh [WORKDIR]   (default build/format-noop; JOBS=2 parallel compiles;
# about 700 compiles at -O2)
# Exit 0 when every .text is identical. Needs clang-format (14), cc and objcopy.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$ROOT/build/format-noop}
JOBS=${JOBS:-2}
CC=${CC:-cc}
FLAGS="-std=c11 -D_GNU_SOURCE -O2 -fopenmp -w"

rm -rf "$WORK"
mkdir -p "$WORK/tree"
cd "$ROOT"
# the tracked files and the new ones git does not ignore, as they are in the working tree
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$WORK/tree" 2>/dev/null || true
cd "$WORK/tree"

# the files `make format` formats (keep this list the Makefile's FORMAT_SRC)
git -C "$ROOT" ls-files -co --exclude-standard 'src/*.c' 'src/*.h' 'include/*.h' 'cli/*.c' 'cli/*.h' 'tests/*.c' \
    'tests/*.h' 'fuzz/*.c' 'fuzz/*.h' 'bench/*.c' 'bench/*.h' > "$WORK/format.list"
# the C files compiled to objects (templates included by other files are not compiled on their own)
grep '\.c$' "$WORK/format.list" | grep -v '/template/' > "$WORK/compile.list"

compile() { # $1 = objects dir, $2 = extra flags; compiles every file of compile.list it can
    out=$1
    mkdir -p "$out"
    FLAGS="$FLAGS ${2:-}"
    export out CC FLAGS
    xargs -P "$JOBS" -I{} sh -c '
        f={}; o="$out/$(echo "$f" | tr / _).o"
        inc="-Iinclude -Isrc -Itests/support -Itests/conformance -Ifuzz -Icli -Ibench -I$(dirname "$f")"
        case "$f" in src/mpi/*|cli/mpi_*|bench/bench_mpi.c|bench/bench_combblas.cpp) exit 0;; esac
        $CC $FLAGS $inc -c "$f" -o "$o" 2>/dev/null || true
        case "$f" in tests/*) $CC $FLAGS $inc -DSPT_CONFORMANCE -c "$f" -o "${o%.o}.conf.o" 2>/dev/null || true;; esac
    ' < "$WORK/compile.list"
}

echo "verify-format-noop: compiling $(wc -l < "$WORK/compile.list") files before formatting"
compile "$WORK/before"
cp -a "$WORK/tree" "$WORK/tree0"
echo "verify-format-noop: formatting $(wc -l < "$WORK/format.list") files"
xargs clang-format -i < "$WORK/format.list"
changed=$(cd "$WORK" && git diff --no-index --shortstat tree0 tree 2>/dev/null || true)
echo "verify-format-noop: compiling after formatting"
compile "$WORK/after"

noline() { # $1 = tree, $2 = object name: recompile its source with __LINE__ fixed to 0, print the object
    src=$(while read -r f; do [ "$(echo "$f" | tr / _)" = "${2%.conf}" ] && echo "$f"; done < "$WORK/compile.list")
    [ -n "$src" ] || return 1
    extra=""
    case "$2" in *.conf) extra="-DSPT_CONFORMANCE";; esac
    (cd "$1" && $CC $FLAGS -D__LINE__=0 $extra -Iinclude -Isrc -Itests/support -Itests/conformance -Ifuzz -Icli -Ibench \
        -I"$(dirname "$src")" -c "$src" -o "$WORK/noline.o" 2>/dev/null) || return 1
    objcopy -O binary -j .text "$WORK/noline.o" "$WORK/noline.$3.text"
}

same=0
differ=0
line_only=""
for b in "$WORK"/before/*.o; do
    a="$WORK/after/$(basename "$b")"
    if [ ! -f "$a" ]; then
        echo "FAIL $(basename "$b"): compiles before formatting, not after"
        differ=$((differ + 1))
        continue
    fi
    objcopy -O binary -j .text "$b" "$b.text"
    objcopy -O binary -j .text "$a" "$a.text"
    if cmp -s "$b.text" "$a.text"; then
        same=$((same + 1))
        objcopy -O binary -j .rodata "$b" "$b.ro" 2>/dev/null || :
        objcopy -O binary -j .rodata "$a" "$a.ro" 2>/dev/null || :
        if ! cmp -s "$b.ro" "$a.ro"; then line_only="$line_only $(basename "$b" .o)"; fi
    else
        name=$(basename "$b" .o)
        if noline "$WORK/tree0" "$name" b && noline "$WORK/tree" "$name" a &&
            cmp -s "$WORK/noline.b.text" "$WORK/noline.a.text"; then
            line_only="$line_only $(basename "$b" .o)"
            same=$((same + 1))
        else
            echo "DIFFERS $(basename "$b" .o): .text changed"
            differ=$((differ + 1))
        fi
    fi
done
echo "verify-format-noop: $same objects with the same code, $differ different; formatting changed:${changed:- nothing}"
if [ -n "$line_only" ]; then
    echo "verify-format-noop: differing only by __LINE__ (in .text, or in .rodata):$line_only"
fi
[ "$differ" -eq 0 ]
