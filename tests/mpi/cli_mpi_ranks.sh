#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# cli_mpi_ranks.sh SPT_MPI -- run by `make test-mpi`: every distributed command of build/spt-mpi with
# each of its inputs differing on one rank only (each rank runs in its own directory, r0, r1, ...,
# holding the same files except that one). The last rank's copy of the input is, in turn, other valid
# contents, a malformed file and a missing file. Every run must end (no hang: 60 s timeout) with the
# exit code 0 or 1; a replicated input (matmul's B, sparsify's map: every rank reads it whole) that
# differs must fail with exit code 1 and a message from rank 0 naming the file. Then: a FIFO without a
# writer as input (an error after SPT_FIFO_TIMEOUT, not a hang) and --threads values the serial
# command refuses (exit code 2).
set -u
SPTM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
MPIRUN=${MPIRUN:-mpirun}
D=$(mktemp -d /tmp/spt_cli_mpi_ranks.XXXXXX)
trap 'rm -rf "$D"' EXIT
cd "$D" || exit 1
cat > w.sh <<'EOF'
#!/bin/sh
cd "r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" && exec "$@"
EOF
chmod +x w.sh
mk() { # mk DIR: the inputs
    mkdir -p "$1"
    printf '# shape: 7 5 6\n1 1 1 1\n2 3 4 2\n7 5 6 3\n3 2 1 -1\n' > "$1/a.tns"
    printf '# shape: 7 3 6\n1 1 1 4\n5 2 6 5\n' > "$1/b.tns"
    printf '# shape: 9 8\n1 1 2\n9 8 3\n4 4 -1\n' > "$1/m.tns"
    printf '%%%%MatrixMarket matrix coordinate integer general\n8 4 3\n1 1 1\n8 4 2\n3 2 5\n' > "$1/bm.mtx"
    printf '# shape: 7 4 5\n1 1 1 1\n2 2 2 1\n3 1 3 1\n7 4 5 1\n' > "$1/map.tns"
}
# variant FILE KIND: the last rank's copy changed
variant() {
    case $2 in
    other) case $1 in
           *.mtx) printf '%%%%MatrixMarket matrix coordinate integer general\n8 4 1\n2 2 7\n' > "$1" ;;
           *) sed -n '1,2p' "$1" > "$1.tmp" && echo "$(sed -n '2p' "$1" | awk '{ $NF = $NF + 1; print }')" >> "$1.tmp" && mv "$1.tmp" "$1" ;;
           esac ;;
    bad) printf '1 1 x\n' > "$1" ;;
    missing) rm -f "$1" ;;
    esac
}
fail=0 n=0
run_case() { # run_case NP REPLICATED CMD...
    np=$1 repl=$2; shift 2
    timeout 60 "$MPIRUN" --quiet -np "$np" ./w.sh "$SPTM" "$@" < /dev/null > out.txt 2> err.txt
    rc=$?
    n=$((n + 1))
    bad=""
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || bad="exit code $rc"
    if [ "$repl" = 1 ]; then
        [ "$rc" = 1 ] || bad="$bad; a differing replicated input gave exit code $rc"
        [ -s err.txt ] || bad="$bad; no message"
    fi
    if [ -n "$bad" ]; then
        echo "[mpi ranks] np=$np $*: $bad"
        sed 's/^/  stderr: /' err.txt | head -5
        fail=$((fail + 1))
    fi
}
cmds='reorder --order 1,0,2 a.tns -o o.tns|a.tns
concat --axis 1 a.tns b.tns -o o.tns|a.tns b.tns
reduce --axis 0 a.tns -o o.tns|a.tns
reduce --axis 1 --dense a.tns -o o.npy|a.tns
matmul m.tns bm.mtx -o o.npy|m.tns bm.mtx=R
sparsify --ind-rank 1 --map 0:0 a.tns map.tns -o o.tns|a.tns map.tns=R'
for np in 2 3; do
    last=$((np - 1))
    echo "$cmds" | while IFS='|' read -r cmd inputs; do
        for inp in $inputs; do
            f=${inp%=R}
            repl=0
            [ "$f" != "$inp" ] && repl=1
            for kind in other bad missing; do
                rm -rf r*
                k=0
                while [ $k -le $last ]; do mk "r$k"; k=$((k + 1)); done
                variant "r$last/$f" "$kind"
                # shellcheck disable=SC2086
                run_case "$np" "$repl" $cmd
            done
        done
        echo "$fail $n" > counts.txt
    done
    read -r fail n < counts.txt
done
# a FIFO nobody writes to: an error within SPT_FIFO_TIMEOUT on every rank
rm -rf r*
mkdir r0 r1
mkfifo r0/f.tns r1/f.tns
SPT_FIFO_TIMEOUT=2 timeout 60 "$MPIRUN" --quiet -np 2 -x SPT_FIFO_TIMEOUT ./w.sh "$SPTM" reorder f.tns < /dev/null > out.txt 2> err.txt
rc=$?
n=$((n + 1))
if [ "$rc" != 1 ] || ! grep -q "no writer" err.txt; then
    echo "[mpi ranks] reorder of a FIFO without a writer: exit code $rc"; sed 's/^/  stderr: /' err.txt | head -3
    fail=$((fail + 1))
fi
# --threads as the serial command checks it
mk r0; mk r1
for t in 0 -1 abc 100000 ''; do
    timeout 60 "$MPIRUN" --quiet -np 2 ./w.sh "$SPTM" --threads "$t" reorder a.tns < /dev/null > out.txt 2> err.txt
    rc=$?
    n=$((n + 1))
    if [ "$rc" != 2 ] || ! grep -q "threads needs a number" err.txt; then
        echo "[mpi ranks] --threads '$t': exit code $rc"; fail=$((fail + 1))
    fi
done
echo "[mpi ranks] $n runs with inputs differing on one rank, a FIFO, bad --threads: $fail failed"
[ "$fail" = 0 ]
