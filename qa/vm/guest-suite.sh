#!/bin/bash
# qa/vm/guest-suite.sh - inside the test VM: run qa/vm/tests/NNN-name
# tests one after the other (qa/vm/run boots the VM with this command).
#
#   guest-suite.sh TEST...
#
# Each test runs with bash, its stdout in /run/vmresults/tests/TEST/out,
# its debug file (qa_full) in .../full, its exit status in .../rc and its
# run time in .../secs; /run/vmresults/current names the test running, so
# that the host can tell which test a guest crash belongs to.
set -u
here=$(cd "$(dirname "$0")" && pwd)
res=/run/vmresults
export QA_RUN=1
for t in "$@"; do
    d=$res/tests/$t
    mkdir -p "$d"
    echo "$t" >"$res/current"
    sync
    start=$(date +%s)
    VM_RES=$d qa_full=$d/full QA_FULL_NAME=vm:$t/full \
        timeout -k 10 "${VM_TEST_TIMEOUT:-420}" bash "$here/tests/$t" >"$d/out" 2>>"$d/full"
    echo $? >"$d/rc"
    echo $(( $(date +%s) - start )) >"$d/secs"
    echo "guest: $t exited $(cat "$d/rc") after $(cat "$d/secs")s"
    sync
done
rm -f "$res/current"
