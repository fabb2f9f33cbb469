#!/bin/bash
# make demo: the whole path on this machine.  A private pmcd (free loopback
# port, own config and logs; the system pmcd is never touched) runs
# pmdastaprelay relaying the example sources in examples/sources; we show
# the metrics, a value changing as its data.json is rewritten, event
# records, SystemTap's syslat and a CPU profile started with `staprelay run`
# (each picks the backend this machine can run), and the relay's own
# health metrics.  Everything stops on exit, Ctrl-C included: the
# background jobs by PID (a `staprelay run` stops its stap/stapbpf/perf
# and removes their files), then pmcd and the PMDA.
set -u
cd "$(dirname "$0")/.."
qa_full=/dev/null
. qa/lib/common.sh

demo_pids=""
demo_track() { demo_pids="$demo_pids $1"; }
demo_cleanup() {
    local rc=$? p i
    for p in $demo_pids; do kill -TERM "$p" 2>/dev/null; done
    for i in $(seq 1 100); do
        for p in $demo_pids; do kill -0 "$p" 2>/dev/null && break; p=; done
        [ -z "$p" ] && break
        sleep 0.1
    done
    for p in $demo_pids; do kill -KILL "$p" 2>/dev/null; done
    # only ours: a bare wait would also wait for pmcd, which qa_cleanup stops
    for p in $demo_pids; do wait "$p" 2>/dev/null; done
    (exit $rc)
    qa_cleanup
}
trap 'demo_cleanup; exit $?' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

cp -r examples/sources "$qa_tmp/sources"
chmod -R a+rX "$qa_tmp"
# SystemTap's roots: the kernel runtime's procfs, and the BPF runtime's
# FIFO directory of whoever runs the demo
QA_STAP_ROOTS="\"/proc/systemtap\", \"/var/tmp/systemtap-$(id -un)\"" QA_POLL_INTERVAL=0.5 \
    qa_write_config "$qa_tmp/config.json" "$qa_tmp/sources"
step "starting a private pmcd with pmdastaprelay"
qa_start_staprelay "$qa_tmp/config.json" || { echo "demo: pmcd did not start; see $QA_PMCD_LOG"; exit 1; }
qa_wait_metric staprelay.loadavg.one 10 >/dev/null
echo "pmcd on $QA_HOST, PMDA log $QA_STAPRELAY_LOG"

step "pminfo -f staprelay"
qa_pminfo -f staprelay

step "a producer rewrites examples/demo/data.json every 0.5 s; pmval watches"
(
    for i in $(seq 1 12); do
        sed -e "s/\"uptime\": 42/\"uptime\": $((42 + i))/" \
            "$QA_SRC/examples/sources/demo/data.json" > "$qa_tmp/sources/demo/.data.json"
        mv "$qa_tmp/sources/demo/.data.json" "$qa_tmp/sources/demo/data.json"
        sleep 0.5
    done
) &
writer=$!
demo_track $writer
qa_pmval -r -t 1 -s 5 staprelay.demo.uptime
wait $writer 2>/dev/null

step "help text and descriptor"
qa_pminfo -dT staprelay.demo.ifaces.rx

step "event records: a producer appends CPU samples; pmevent shows them"
(
    for i in $(seq 3 14); do
        printf '{"samples": [{"seq": %d, "ts": %s, "pid": 4242, "tid": 4242, "cpu": %d, "comm": "demo", "stack": " 0xffffffff8103ce3b : native_safe_halt+0xb/0xd [kernel]\\n 0x55d0c3a012f4 : main+0x34/0x80 [/usr/bin/demo]"}], "latency": [{"lo": 1, "hi": 1, "count": %d}]}' \
            "$i" "$(date +%s%N)" $((i % 2)) "$i" > "$qa_tmp/sources/profile/.data.json"
        mv "$qa_tmp/sources/profile/.data.json" "$qa_tmp/sources/profile/data.json"
        sleep 0.4
    done
) &
writer=$!
demo_track $writer
qa_pmevent -t 1 -s 3 staprelay.profile.samples.records
wait $writer 2>/dev/null
qa_pminfo -f staprelay.profile.samples.stacks

step "SystemTap: staprelay run syslat (the kernel runtime where modules load, else its BPF variant)"
# The first run builds the script (a minute or two, once: the build is
# cached in build/stapcache); later runs start in a second.
client/staprelay run syslat --name syslat >"$qa_tmp/syslat.txt" 2>&1 &
syslat=$!
demo_track $syslat
if qa_wait_until 300 "syslat loaded" sh -c "grep -q '^staprelay run: loaded' '$qa_tmp/syslat.txt' ||
        pminfo -h $QA_HOST -f staprelay.syslat.calls 2>/dev/null | grep -q value ||
        ! kill -0 $syslat 2>/dev/null" >/dev/null &&
   kill -0 $syslat 2>/dev/null && qa_wait_metric staprelay.syslat.calls 30 >/dev/null; then
    sed -n -e '/^staprelay run: syslat with/,/^  perf/p' "$qa_tmp/syslat.txt"
    for i in $(seq 1 200); do cat /etc/hostname >/dev/null; done
    sleep 2
    qa_pminfo -f staprelay.syslat.calls staprelay.syslat.errors staprelay.syslat.latency
    kill -INT $syslat 2>/dev/null
    wait $syslat 2>/dev/null
    tail -1 "$qa_tmp/syslat.txt"
else
    kill -INT $syslat 2>/dev/null
    wait $syslat 2>/dev/null
    echo "skipped: staprelay run syslat could not run here:"
    grep -v -e '^staprelay run: running' -e '^staprelay run: building' "$qa_tmp/syslat.txt" | head -8
fi

step "staprelay run profile: picks a backend (here perf: no modules, and BPF has no backtraces) for 5 s"
if command -v perf >/dev/null || [ -e /proc/modules ]; then
    sh -c 'while :; do :; done' &
    busy=$!
    demo_track $busy
    client/staprelay run profile --dir "$qa_tmp/sources" --name cpuprof --pid $busy -T 5 \
        >"$qa_tmp/run.txt" 2>&1 &
    run=$!
    demo_track $run
    if qa_wait_metric staprelay.cpuprof.taken 15 >/dev/null; then
        sed -e "s|$qa_tmp|\$TMP|g" "$qa_tmp/run.txt"
        qa_pmevent -t 0.5 -s 6 staprelay.cpuprof.samples.records | head -30
        qa_pminfo -f staprelay.cpuprof.samples.stacks | head -8
    fi
    wait $run 2>/dev/null
    tail -2 "$qa_tmp/run.txt" | sed -e "s|$qa_tmp|\$TMP|g"
    kill $busy 2>/dev/null
    wait $busy 2>/dev/null
else
    echo "skipped: perf is not installed (apt-get install linux-perf)"
fi

step "the relay's own health (staprelay.control)"
qa_pminfo -f staprelay.control.source.state staprelay.control.source.reads \
    staprelay.control.source.last_error

step "done: pmcd and the PMDA stop now"
exit 0
