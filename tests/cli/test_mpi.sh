#!/bin/sh
# test_mpi.sh - multi-process data parallel on Open MPI: paddle.distributed's collectives,
# paddle.DataParallel and fleet.distributed_optimizer against real Paddle's one-process
# training (tests/data_parallel/mpi_*.py, which check themselves: rank 0 prints "selfcheck
# OK"), Paddle's DataParallel example under paddle.distributed.spawn, `dy2st launch`, and the
# faults: shapes that differ across ranks, a rank that hangs (a short DY2ST_DIST_TIMEOUT), a
# rank killed mid-training. Skipped (77) when Open MPI's mpirun is missing or dy2st was configured without
# MPI. mpirun runs with --oversubscribe (more ranks than cores) and, as root (CI),
# --allow-run-as-root.

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
D=$(cd "$top_srcdir/tests/data_parallel" && pwd) || exit 99
if ! grep -q '^#define HAVE_MPI 1' "$top_builddir/config.h" 2>/dev/null; then
    echo "SKIP: dy2st was configured without Open MPI (install libopenmpi-dev and reconfigure)"
    exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: Open MPI's mpirun is not installed (Debian's openmpi-bin)"
    exit 77
fi
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
# the processes talk over the loopback only, whatever the machine's network
MPIRUN="$MPIRUN --mca btl self,vader,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo"
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo

# under ASan (CI): Open MPI's own allocations are suppressed by library (tests/lsan.supp);
# full stacks are needed for that, since its components are unloaded before the leak check
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS LSAN_OPTIONS

make_tmp mpi

# selfcheck WHAT CMD...: CMD (run in the scripts' folder, bounded to 300 s) must exit 0 with
# "selfcheck OK" as the last line of its output
selfcheck() {
    what=$1
    shift
    checks=$((checks + 1))
    (cd "$D" && timeout 300 "$@" >"$TMP/out" 2>"$TMP/err")
    rc=$?
    if [ "$rc" -ne 0 ] || [ "$(tail -n 1 "$TMP/out")" != "selfcheck OK" ]; then
        fail "$what exited $rc"
        sed 's/^/    /' "$TMP/out" "$TMP/err" | tail -30
    fi
}

for script in mpi_collectives mpi_equiv mpi_fleet; do
    for n in 1 2 4; do
        selfcheck "$script.py on $n ranks" $MPIRUN -np $n "$DY2ST" exec "$script.py"
    done
done
selfcheck "mpi_collectives.py on 3 ranks" $MPIRUN -np 3 "$DY2ST" exec mpi_collectives.py
selfcheck "spawn_doc.py (paddle.distributed.spawn of Paddle's DataParallel example)" \
    "$DY2ST" exec spawn_doc.py
selfcheck "dy2st launch --nproc_per_node 2" \
    env DY2ST_MPIRUN="mpirun" "$DY2ST" launch --nproc_per_node 2 mpi_collectives.py
echo "localhost slots=4" >"$TMP/hosts"
selfcheck "dy2st launch --nproc_per_node 2 --hosts FILE" \
    "$DY2ST" launch --nproc_per_node 2 --hosts "$TMP/hosts" mpi_collectives.py

# fault NEEDLE MAXSECONDS CMD...: CMD must fail, print NEEDLE, and end within MAXSECONDS
fault() {
    needle=$1 maxs=$2
    shift 2
    checks=$((checks + 1))
    t0=$(date +%s)
    (cd "$D" && timeout 300 "$@" >"$TMP/out" 2>&1)
    rc=$?
    t1=$(date +%s)
    if [ "$rc" -eq 0 ]; then
        fail "$* exited 0, expected a failure"
        sed 's/^/    /' "$TMP/out" | tail -20
    elif [ "$rc" -eq 124 ] || [ $((t1 - t0)) -gt "$maxs" ]; then
        fail "$* took $((t1 - t0)) s (status $rc), more than $maxs s"
    elif ! grep -qF -- "$needle" "$TMP/out"; then
        fail "$* did not print '$needle'"
        sed 's/^/    /' "$TMP/out" | tail -20
    fi
}

fault "paddle.distributed.all_reduce: the tensors differ across ranks: rank 0 has float32[1], rank 1 has float32[2]" 60 \
    $MPIRUN -np 2 "$DY2ST" exec fault_shape.py
fault "paddle.DataParallel: gradient all_reduce: timed out after 2 s waiting for the other ranks" 60 \
    env DY2ST_DIST_TIMEOUT=2 $MPIRUN -np 2 "$DY2ST" exec fault_hang.py

# a rank killed mid-training: the job must end (with an error) within 60 s
checks=$((checks + 1))
(cd "$D" && DY2ST_DIST_TIMEOUT=20 exec $MPIRUN -np 2 "$DY2ST" exec fault_kill.py "$TMP/started.") \
    >"$TMP/out" 2>&1 &
job=$!
waited=0
while [ ! -e "$TMP/started.0" ] || [ ! -e "$TMP/started.1" ]; do
    sleep 1
    waited=$((waited + 1))
    if [ $waited -gt 120 ] || ! kill -0 $job 2>/dev/null; then
        break
    fi
done
victim=$(ps -o pid= --ppid $job | head -n 1 | tr -d ' ')
if [ -z "$victim" ] || [ ! -e "$TMP/started.1" ]; then
    fail "fault_kill.py: the ranks did not start training"
    kill $job 2>/dev/null
    sed 's/^/    /' "$TMP/out" | tail -20
else
    t0=$(date +%s)
    kill -9 "$victim"
    waited=0
    while kill -0 $job 2>/dev/null && [ $waited -lt 120 ]; do
        sleep 1
        waited=$((waited + 1))
    done
    if kill -0 $job 2>/dev/null; then
        fail "fault_kill.py: the job still runs 120 s after a rank was killed"
        kill -9 $job 2>/dev/null
    else
        wait $job
        rc=$?
        t1=$(date +%s)
        if [ "$rc" -eq 0 ]; then
            fail "fault_kill.py: mpirun exited 0 after a rank was killed"
        elif [ $((t1 - t0)) -gt 60 ]; then
            fail "fault_kill.py: the job took $((t1 - t0)) s to stop after a rank was killed"
        fi
    fi
fi

finish
