# qa/vm/lib.sh -- sourced by the tests in qa/vm/tests/ (run inside the
# test VM by qa/vm/guest-suite.sh), after qa/lib/common.sh.
#
# The user's path, as a PCP user would take it: a private pmcd whose
# pmdastaprelay watches /proc/systemtap, a bundled script started with
# `staprelay run` (which must choose SystemTap's kernel runtime here and
# find the module qa/vm/run prebuilt), a workload, then pminfo, pmevent
# and the client.
#
#   vm_start_pmda                       private pmcd + pmdastaprelay
#   vm_run SCRIPT ARGS...               staprelay run SCRIPT ARGS in the
#                                       background; waits for the module's
#                                       files; prints what run chose
#   vm_read NAME SECONDS                read NAME's files at 10 Hz for
#                                       SECONDS into $VM_RES/reads/ (the
#                                       host validates them all)
#   vm_stop_run                         Ctrl-C staprelay run, wait for it
#   vm_run_module                       the .ko path that run loaded
#   vm_dmesg_clean                      no BUG/oops/WARNING/... since start
#
# $W is the workload (qa/vm/workload.c, built by qa/vm/run); $VM_RES the
# test's results directory on the host's share.

VM_BUILD=${STAPRELAY_BUILD:-$QA_SRC/build}
# pmcd waits this long for its agents, at start and later (TCG on a busy
# host is slow: pmdastaprelay took more than pmcd's default 3 s to start)
export QA_PMCD_TIMEOUT=${QA_PMCD_TIMEOUT:-60} QA_PMCD_START_TIMEOUT=${QA_PMCD_START_TIMEOUT:-60}
W=$VM_BUILD/vm/workload
STAPRELAY=$QA_SRC/client/staprelay
VM_RUN_PID=
VM_RUN_OUT=$qa_tmp/run.out
# the guest kernel's log starts empty for each test
dmesg -C 2>/dev/null

vm_start_pmda() {
    QA_STAP_ROOTS='"/proc/systemtap"' QA_POLL_INTERVAL=0.5 \
        qa_write_config "$qa_tmp/config.json" "$qa_tmp/none"
    mkdir -p "$qa_tmp/none"
    qa_start_staprelay "$qa_tmp/config.json" || return 1
    qa_log "pmcd and pmdastaprelay answer"
}

vm_run() {
    # vm_run SCRIPT ARGS...: the module is staprelay_SCRIPT
    local script=$1 mod=staprelay_$1
    shift
    qa_log "staprelay run $script $*"
    "$STAPRELAY" run "$script" "$@" >"$VM_RUN_OUT" 2>&1 &
    VM_RUN_PID=$!
    qa_track_pid $VM_RUN_PID
    if ! qa_wait_until 90 "$mod loaded" test -r "/proc/systemtap/$mod/data.json" >/dev/null; then
        echo "FAIL: /proc/systemtap/$mod/data.json never appeared"
        cat "$VM_RUN_OUT"
        return 1
    fi
    qa_log "$mod loaded ($(grep -c 'using the cached build' "$VM_RUN_OUT") cached)"
    grep -q "^staprelay run: $script with the stap backend as $mod" "$VM_RUN_OUT" &&
        echo "run: $script with the SystemTap kernel runtime"
    # qa/vm/run built the module on the host: a build in the guest would
    # mean the two disagree about the module (and take many minutes)
    if grep -q '^stap/kmod.sh: using the cached build ' "$VM_RUN_OUT"; then
        echo "run: the module came from the cache"
    else
        echo "FAIL: the guest built the module itself (qa/vm/run's prebuild differs):"
        grep 'kmod.sh' "$VM_RUN_OUT"
    fi
    grep -q "^staprelay run: running: staprun .*/$mod\.ko" "$VM_RUN_OUT" &&
        echo "run: loaded with staprun"
}

vm_read() {
    # vm_read NAME SECONDS: the user's own tool reading the files
    qa_log "reading $1 for $2 s"
    python3 "$QA_DIR/vm/reader.py" "/proc/systemtap/$1" "$VM_RES/reads" "$2" 10 \
        2>>"$qa_full"
    qa_log "reads kept"
}

vm_stop_run() {
    # Ctrl-C, as a user would: staprun unloads the module, run exits 0
    [ -n "$VM_RUN_PID" ] || return 0
    kill -INT "$VM_RUN_PID" 2>/dev/null
    wait "$VM_RUN_PID"
    echo "run: exit $?"
    VM_RUN_PID=
    cat "$VM_RUN_OUT" >>"$qa_full"
}

vm_wait_run() {
    # the run ends by itself (--cmd finished, or -T)
    wait "$VM_RUN_PID"
    echo "run: exit $?"
    VM_RUN_PID=
    cat "$VM_RUN_OUT" >>"$qa_full"
}

vm_staprun_errors() {
    # stap's own complaints (ERROR, skipped-probe or MAXACTION messages)
    grep -E '^(ERROR|WARNING: Number of errors: [1-9]|WARNING: Skipped too many)' "$VM_RUN_OUT" |
        sed 's/^/stap: /'
}

vm_unloaded() {
    # vm_unloaded METRIC: the module's directory is gone, its names stay
    # without values (docs: an unloaded module's metrics)
    local mod=$1 metric=$2
    qa_wait_until 20 "$mod gone" sh -c "! test -e /proc/systemtap/$mod" >/dev/null &&
        echo "unload: /proc/systemtap/$mod is gone"
    qa_wait_vanished "$metric" 20 && echo "unload: $metric is still named, without values"
}

vm_dmesg_clean() {
    local bad
    # (user-space faults, "traps: prog[pid] ..." and "prog[pid]: segfault
    # at", are the workload's business, not the kernel's)
    bad=$(dmesg | grep -E 'BUG|Oops|WARNING|list_del corruption|list_add corruption|general protection|Call Trace|RIP:|stall|Kernel panic|refcount_t|UBSAN|KASAN' |
          grep -vE '\] traps: [^ ]+\[[0-9]+\] |\]: segfault at ')
    if [ -n "$bad" ]; then
        echo "FAIL: the guest kernel's log:"
        printf '%s\n' "$bad" | head -20
    else
        echo "dmesg: no BUG, oops, WARNING or list corruption"
    fi
    dmesg >"$VM_RES/dmesg.txt"
}

vm_grows() {
    # vm_grows METRIC: its value is larger a while later
    local m=$1 a b
    a=$(qa_value "$m")
    qa_wait_until 20 "$m grows" sh -c "[ \"\$(pminfo -h $QA_HOST -f $m | awk '/value/ {print \$2; exit}')\" -gt ${a:-0} ]" \
        >/dev/null && echo "pminfo: $m grows"
}

vm_run_module() {
    # the path of the module the last vm_run loaded (kmod.sh's line ends
    # with it, and it may hold spaces)
    sed -n 's/^stap\/kmod.sh: using the cached build \(\/.*\.ko\)$/\1/p' "$VM_RUN_OUT" | head -1
}

vm_capture() {
    # vm_capture FIXTURE LIMIT [CMD...]: the fixtures of the models
    # (stap/fixtures/real-FIXTURE/, qa/vm/run --capture copies them): the
    # module the run used, loaded again with staprelay_data_limit=LIMIT
    # (small documents; a cut array, chunked events) while CMD runs; its
    # metadata.json and three reads of data.json a second apart, and what
    # its procfs directory looks like to a reader (qa/vm/procfacts.py).
    local fx=$1 limit=$2 ko mod d i sp
    shift 2
    ko=$(vm_run_module)
    [ -r "$ko" ] || { echo "FAIL: capture: no module in run's output"; return 1; }
    mod=$(basename "$ko" .ko)
    d=$VM_RES/capture/real-$fx
    mkdir -p "$d"
    staprun "$ko" staprelay_data_limit="$limit" >>"$qa_full" 2>&1 &
    sp=$!
    qa_wait_until 60 "$mod loaded again" test -r "/proc/systemtap/$mod/data.json" >/dev/null ||
        { echo "FAIL: capture: $mod did not load"; kill -INT $sp; wait $sp; return 1; }
    local cpid=
    if [ $# -gt 0 ]; then
        "$@" >>"$qa_full" 2>&1 &
        cpid=$!
    fi
    sleep 3
    cat "/proc/systemtap/$mod/metadata.json" >"$d/metadata.json"
    for i in 1 2 3; do
        cat "/proc/systemtap/$mod/data.json" >"$d/data.$i.json"
        sleep 1
    done
    mv "$d/data.1.json" "$d/data.json"
    echo "$limit" >"$d/limit"
    python3 "$QA_DIR/vm/procfacts.py" "/proc/systemtap/$mod" >"$d/procfs.txt" 2>&1
    kill -INT $sp
    wait $sp
    [ -z "$cpid" ] || wait $cpid
    echo "capture: real-$fx" >>"$qa_full"
}
