#!/bin/sh
# Run every unit-test runner given on the command line, then the qa suite,
# and print one summary line: "check: N passed, N failed".
# Check's own summary lines ("100%: Checks: 12, Failures: 0, Errors: 0")
# are parsed for the counts; qa/run prints "qa: N passed, N failed".
set -u
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for runner in "$@"; do
    echo "== $runner"
    CK_FORK=yes "$runner" >"$log" 2>&1
    rc=$?
    grep -v '^Running suite' "$log" | grep -E '^[0-9]+%|:[EF]:' || true
    line=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -1)
    if [ -z "$line" ]; then
        cat "$log"
        echo "$runner: no Check summary (rc=$rc)"
        failed=$((failed + 1))
        continue
    fi
    n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
    f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
    e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
    bad=$((f + e))
    passed=$((passed + n - bad))
    failed=$((failed + bad))
    [ $rc -eq 0 ] || [ $bad -gt 0 ] || failed=$((failed + 1))
done

echo "== qa"
./qa/run >"$log" 2>&1
rc=$?
cat "$log"
line=$(grep -E '^qa: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
if [ -n "$line" ]; then
    qp=$(echo "$line" | sed -E 's/qa: ([0-9]+) passed.*/\1/')
    qf=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + qp))
    failed=$((failed + qf))
else
    failed=$((failed + 1))
fi
[ $rc -eq 0 ] || [ "${qf:-1}" -gt 0 ] || failed=$((failed + 1))

echo "check: $passed passed, $failed failed"
[ $failed -eq 0 ]
