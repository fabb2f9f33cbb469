#!/bin/bash
# bench/stap/vm-guest.sh - inside the test VM (bench/stap/vm boots it): the
# relay's cost for a real SystemTap module against the same over the FUSE
# model of its procfs (qa/fuse/stapfs), in the same guest, so that the
# ratio holds although TCG times are not host times.
#
#   vm-guest.sh PROFILE_KO SYSLAT_KO OUTDIR
#
# 1. real: profile.stp's module (99 Hz, a CPU-bound workload on each CPU,
#    every sample a record with a stack) polled by pmdastaprelay every
#    second for SECS; model: stapfs serving generated profile documents
#    with as many records per read (bench/stap/gen.py) polled the same way.
#    For each: the PMDA's CPU time (utime+stime) per poll and per record.
# 2. the size of a read at the cap: syslat's module with its data.json
#    limited to 16384 bytes (staprelay_data_limit) while every syscall
#    number is made: bytes of each read and "omitted".
# Writes OUTDIR/bench.txt.
set -u
prof_ko=$1 sys_ko=$2 out=$3
export QA_RUN=1 qa_full=$out/full
. "$(dirname "$0")/../../qa/lib/common.sh"
. "$QA_SRC/qa/fuse/lib.sh"
SECS=${BENCH_SECS:-30}
W=${STAPRELAY_BUILD:-$QA_SRC/build}/vm/workload
mkdir -p "$out"
modprobe fuse 2>>"$qa_full"
res=$out/bench.txt
: >"$res"

pmda_pid() {
    local p
    for p in $QA_PMCD_AGENT_PIDS; do
        [ "$(cat /proc/$p/comm 2>/dev/null)" = pmdastaprelay ] && echo "$p"
    done
}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
received() { qa_pminfo -f staprelay.control.events.received | awk '/inst \[/ { s += $NF } END { print s + 0 }'; }
polls() { qa_pminfo -f staprelay.control.source.reads | awk '/inst \[/ { s += $NF } END { print s + 0 }'; }

# measure ROOT LABEL: a private pmcd polling ROOT every second for SECS
measure() {
    local root=$1 label=$2 pid t0 t1 r0 r1 p0 p1
    mkdir -p "$qa_tmp/none"
    QA_POLL_INTERVAL=1 QA_STAP_ROOTS="\"$root\"" qa_write_config "$qa_tmp/config.json" "$qa_tmp/none"
    qa_start_staprelay "$qa_tmp/config.json" >>"$qa_full" 2>&1 || { echo "$label: no pmcd" >>"$res"; return 1; }
    pid=$(pmda_pid)
    sleep 4
    t0=$(ticks "$pid") r0=$(received) p0=$(polls)
    sleep "$SECS"
    t1=$(ticks "$pid") r1=$(received) p1=$(polls)
    local hz
    hz=$(getconf CLK_TCK)
    echo "$label: polls $((p1 - p0)) records $((r1 - r0)) cpu_ms $(( (t1 - t0) * 1000 / hz ))" >>"$res"
    qa_pmcd_stop >>"$qa_full" 2>&1
}

# ---- 1a. the real module
staprun "$prof_ko" >>"$qa_full" 2>&1 &
sp=$!
qa_wait_until 60 "profile loaded" test -r /proc/systemtap/staprelay_profile/data.json >/dev/null
"$W" cpu $((SECS + 20)) >/dev/null 2>&1 &
w1=$!
"$W" cpu $((SECS + 20)) >/dev/null 2>&1 &
w2=$!
measure /proc/systemtap real
# one read's size, for the model's documents
cat /proc/systemtap/staprelay_profile/data.json >"$qa_tmp/one.json"
kill -INT $sp
wait $sp $w1 $w2 2>/dev/null

# ---- 1b. the FUSE model, the same number of records per read
real_rps=$(awk '/^real:/ { if ($3 > 0) printf "%d", $5 / $3 }' "$res")
S=$qa_tmp/script
mkdir -p "$S"
python3 "$QA_SRC/bench/stap/gen.py" "$QA_SRC/stap/fixtures/profile" "$qa_tmp/gen" $((SECS + 20)) "${real_rps:-20}" >>"$qa_full" 2>&1
mkdir -p "$S/.stage"
cp "$QA_SRC/stap/fixtures/profile/metadata.json" "$S/.stage/"
cp "$qa_tmp/gen/drained.json" "$S/.stage/data.json"
for k in $(seq 1 $((SECS + 20))); do mv "$qa_tmp/gen/doc.$k" "$S/.stage/data.json.$k"; done
mv "$S/.stage" "$S/staprelay_profile"
stapfs_build >>"$qa_full" 2>&1 && stapfs_mount "$S" >>"$qa_full" 2>&1 &&
    measure "$STAPFS_ROOT" model
stapfs_umount

# ---- 2. a read at the cap
staprun "$sys_ko" staprelay_data_limit=16384 >>"$qa_full" 2>&1 &
sp=$!
qa_wait_until 60 "syslat loaded" test -r /proc/systemtap/staprelay_syslat/data.json >/dev/null
"$W" sweep 1 >/dev/null 2>&1
for i in 1 2 3 4 5; do
    cat /proc/systemtap/staprelay_syslat/data.json >"$qa_tmp/cap.$i.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('cap: bytes', len(open(sys.argv[1],'rb').read()), 'rows', len(d.get('syscalls', [])), 'omitted', d.get('omitted'))" \
        "$qa_tmp/cap.$i.json" >>"$res"
    sleep 1
done
kill -INT $sp
wait $sp
cat "$res"
