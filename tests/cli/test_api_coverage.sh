#!/bin/sh
# test_api_coverage.sh - every name doc/api-coverage.md marks "yes" must exist under 'dy2st exec':
# the table's names are probed with hasattr as tests/gen/gen_api_coverage.py does, and each name
# found absent is a failure (the table claims more than dy2st has).

. "${top_srcdir:-.}/tests/cli/lib.sh"
need_dy2st
TABLE="$top_srcdir/doc/api-coverage.md"
[ -r "$TABLE" ] || { echo "FAIL: cannot read $TABLE"; exit 99; }
make_tmp api-coverage

# the probe: for each '## GROUP' section, the names whose row says yes
awk '
BEGIN {
    print "import paddle"
    print "def probe(group, m, names):"
    print "    for n in names:"
    print "        print(group, n, 1 if hasattr(m, n) else 0)"
}
/^## / { group = substr($0, 4); next }
/^\| `[^`]*` \| yes \|$/ {
    name = $0; sub(/^\| `/, "", name); sub(/` \| yes \|$/, "", name)
    if (group != cur) {
        if (cur != "") print "])"
        cur = group
        if (group ~ /^paddle\.Tensor /)
            print "m = paddle.to_tensor([1.0])"
        else
            printf "import %s\nm = %s\n", group, group
        printf "probe(\"%s\", m, [\n", group
    }
    printf "    \"%s\",\n", name
    n++
}
END { if (cur != "") print "])"; if (n == 0) exit 1 }
' "$TABLE" >"$TMP/probe.py" || { echo "FAIL: no name marked yes in $TABLE"; exit 99; }

want=$(grep -c '^    "' "$TMP/probe.py")
(cd "$TMP" && "$DY2ST" exec probe.py >"$TMP/out" 2>"$TMP/err")
rc=$?
checks=$((checks + 1))
if [ "$rc" -ne 0 ]; then
    fail "the probe exited $rc"
    sed 's/^/    /' "$TMP/err" | head -n 20
fi
got=$(grep -c ' [01]$' "$TMP/out")
checks=$((checks + 1))
[ "$got" -eq "$want" ] || fail "the probe printed $got of $want names"
grep ' 0$' "$TMP/out" >"$TMP/absent"
while read -r line; do
    fail "the table marks ${line% 0} present but dy2st has no such name"
done <"$TMP/absent"
checks=$((checks + 1))
finish
