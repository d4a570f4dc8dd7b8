# lib.sh - what the shell tests share; each sources it first:
#     . "${top_srcdir:-.}/tests/cli/lib.sh"
# It sets top_builddir and top_srcdir (default: the current directory), the counters
# checks and failures, and defines:
#   need_dy2st         DY2ST = the built dy2st, as an absolute path; exit 77 when not built
#   make_tmp NAME      TMP = a fresh scratch directory, removed at exit; exit 99 when it cannot be made
#   fail MSG...        prints "FAIL: MSG" and counts a failure
#   expect STATUS NEEDLE CMD...
#                      runs CMD, checks its exit status and that stdout+stderr (kept in $TMP/out)
#                      contain NEEDLE (a fixed string; empty = anything)
#   expect_exact STATUS TEXT CMD...
#                      runs CMD, checks its exit status and that stdout+stderr are exactly TEXT
#                      (lines separated by newlines; the final newline is implied)
#   finish             prints the summary; its status is 0 when nothing failed
# Exit codes follow automake: 77 = skipped, 99 = hard error.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
failures=0
checks=0

need_dy2st() {
    DY2ST="$top_builddir/dy2st"
    [ -x "$DY2ST" ] || { echo "SKIP: $DY2ST not built"; exit 77; }
    case $DY2ST in /*) ;; *) DY2ST="$PWD/$DY2ST" ;; esac
}

make_tmp() {
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/dy2st-$1.XXXXXX") || exit 99
    trap 'rm -rf "$TMP"' EXIT INT TERM
}

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# run_checked STATUS CMD...: runs CMD into $TMP/out and counts a check; 0 when it
# exited STATUS, else reports the failure and returns 1
run_checked() {
    want=$1
    shift
    checks=$((checks + 1))
    "$@" >"$TMP/out" 2>&1
    got=$?
    [ "$got" -eq "$want" ] && return 0
    fail "$* exited $got, expected $want"
    sed 's/^/    /' "$TMP/out"
    return 1
}

expect() {
    expect_status=$1 needle=$2
    shift 2
    run_checked "$expect_status" "$@" || return
    if [ -n "$needle" ] && ! grep -qF -- "$needle" "$TMP/out"; then
        fail "$* did not print '$needle'"
        sed 's/^/    /' "$TMP/out"
    fi
}

expect_exact() {
    expect_status=$1
    printf '%s\n' "$2" >"$TMP/want"
    shift 2
    run_checked "$expect_status" "$@" || return
    if ! cmp -s "$TMP/want" "$TMP/out"; then
        fail "$* printed other text than expected:"
        diff "$TMP/want" "$TMP/out" | sed 's/^/    /'
    fi
}

finish() {
    echo "$checks checks, $failures failures"
    [ "$failures" -eq 0 ]
}
