#!/bin/sh
# make check's driver: every unit-test runner given on the command line
# (plain and ASan/UBSan builds), the qa suite against private pmcds, the
# PMDA under valgrind and built with ASan over the qa tests that exercise
# it, every libFuzzer
# target briefly (make fuzz runs them longer), the SystemTap checks and the
# real-kernel VM suite (qa/vm/run).  Ends with one summary line:
#   check: N passed, N failed
# Check's summaries ("100%: Checks: 12, Failures: 0, Errors: 0") and the
# other phases' "<name>: N passed, N failed" lines are added up.
# With --unit first, only the runners (make check-unit).
set -u
unit_only=false
if [ "${1:-}" = --unit ]; then
    unit_only=true
    shift
fi
passed=0
failed=0
log=$(mktemp)
failures=$(mktemp)
trap 'rm -f "$log" "$failures"' EXIT

# Check's per-test time-outs guard against hangs; on a loaded machine (CI's
# 2 cores, a CPU hog, the ASan build) they get twice the room.
: "${CK_TIMEOUT_MULTIPLIER:=2}"
export CK_TIMEOUT_MULTIPLIER
for runner in "$@"; do
    echo "== $runner"
    CK_FORK=yes "$runner" >"$log" 2>&1
    rc=$?
    grep -E '^[0-9]+%|:[EF]:' "$log" || true
    grep -E ':[EF]:' "$log" | sed "s|^|$runner: |" >>"$failures"
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

if $unit_only; then
    [ -s "$failures" ] && { echo "== failed"; cat "$failures"; }
    echo "check-unit: $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
fi

# phase NAME COMMAND...: run a phase that ends with "NAME: N passed, N failed".
phase() {
    name=$1
    shift
    echo "== $name"
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    grep -E '^FAIL' "$log" | sed "s|^|$name: |" >>"$failures"
    line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$log" | tail -1)
    if [ -z "$line" ]; then
        echo "$name: no summary line (rc=$rc)"
        failed=$((failed + 1))
        return
    fi
    p=$(echo "$line" | sed -E "s/^$name: ([0-9]+) passed.*/\1/")
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + p))
    failed=$((failed + f))
    [ $rc -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
}

phase qa ./qa/run
# The tests that drive the PMDA through its features (qa/group's valgrind
# group), re-run with the PMDA under valgrind: errors and definite leaks
# fail the test.  Each phase re-labels qa/run's summary line.
vg_run() { QA_VALGRIND=1 ./qa/run -g valgrind | sed 's/^qa: /valgrind: /'; }
phase valgrind vg_run
# The PMDA built with ASan/UBSan under the asan group (every test but the
# harness's own, 012 which prints the binary's path, 014 which runs it
# under valgrind and 080 which installs the plain build): a sanitizer
# report aborts the PMDA, which fails the test.
asan_qa() {
    QA_SANITIZED=1 QA_STAPRELAY_BIN=$PWD/build/asan/pmdastaprelay ./qa/run -g asan |
        sed 's/^qa: /asan: /'
}
phase asan asan_qa
fuzz_run() { make -s --no-print-directory fuzz FUZZ_SECONDS=${CHECK_FUZZ_SECONDS:-3}; }
phase fuzz fuzz_run
if [ -x stap/check.sh ]; then
    phase stap ./stap/check.sh
fi
# The real-kernel suite: every bundled script loaded in a VM booting
# Debian's kernel (qa/vm/run; it skips, with the reason, where qemu or the
# kernel image cannot be installed).  Last, because it is the longest
# phase: under TCG on a 2-core machine about 10 minutes with every module
# cached, a few more to build them (stap/README.md, "VM suite timings").
# STAPRELAY_VM=0 leaves it out (make check-vm runs it alone).
if [ -x qa/vm/run ] && [ "${STAPRELAY_VM:-1}" != 0 ]; then
    phase vm ./qa/vm/run
elif [ -x qa/vm/run ]; then
    echo "== vm"
    echo "vm: skipped: STAPRELAY_VM=0"
fi

# Repeat what failed just above the summary, where a truncated log still shows it.
if [ -s "$failures" ]; then
    echo "== failed"
    cat "$failures"
fi
echo "check: $passed passed, $failed failed"
[ $failed -eq 0 ]
