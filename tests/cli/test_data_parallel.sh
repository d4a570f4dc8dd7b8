#!/bin/sh
# test_data_parallel.sh - CompiledProgram.with_data_parallel (replicas on threads) under
# 'dy2st exec'. Each tests/data_parallel/threads_NAME.py checks itself (against expected.npz, real
# Paddle's one-process training from tests/gen/gen_data_parallel_expected.py, or against plain
# Executor runs) and must exit 0 with "selfcheck OK" as its last line; so must the multi-process
# scripts mpi_*.py run as one process, without mpirun.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
D=$(cd "$top_srcdir/tests/data_parallel" && pwd) || exit 99

make_tmp data-parallel

for py in "$D"/threads_*.py; do
    [ -e "$py" ] || continue
    name=$(basename "$py" .py)
    checks=$((checks + 1))
    (cd "$D" && "$DY2ST" exec "$py" >"$TMP/out" 2>"$TMP/err")
    rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$TMP/out")" != "selfcheck OK" ]; then
        fail "$name.py exited $rc"
        sed 's/^/    /' "$TMP/out" "$TMP/err" | tail -30
    fi
done

# the multi-process scripts without mpirun (or in a build without MPI): a world of one
# process, where they must run unchanged and still match real Paddle
for name in mpi_collectives mpi_equiv mpi_fleet; do
    checks=$((checks + 1))
    (cd "$D" && "$DY2ST" exec "$name.py" >"$TMP/out" 2>"$TMP/err")
    rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$TMP/out")" != "selfcheck OK" ]; then
        fail "$name.py in one process exited $rc"
        sed 's/^/    /' "$TMP/out" "$TMP/err" | tail -30
    fi
done

finish
