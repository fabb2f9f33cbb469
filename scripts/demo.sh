#!/bin/bash
# make demo: the whole path on this machine.  A private pmcd (free loopback
# port, own config and logs; the system pmcd is never touched) runs
# pmdastaprelay relaying the example sources in examples/sources; we show
# the metrics, a value changing as its data.json is rewritten, a data-exec
# source, and the relay's own health metrics.  Everything stops on exit.
set -u
cd "$(dirname "$0")/.."
qa_full=/dev/null
. qa/lib/common.sh

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

cp -r examples/sources "$qa_tmp/sources"
chmod -R a+rX "$qa_tmp"
QA_STAP_ROOTS='"/var/tmp/systemtap-root"' QA_POLL_INTERVAL=0.5 \
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
qa_track_pid $writer
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
qa_track_pid $writer
qa_pmevent -t 1 -s 3 staprelay.profile.samples.records
wait $writer 2>/dev/null
qa_pminfo -f staprelay.profile.samples.stacks

step "SystemTap, BPF runtime: stap/bpf/syslat.stp live"
if [ "$(id -u)" = 0 ] && command -v stapbpf >/dev/null && command -v cc >/dev/null &&
   STAPRELAY_STAP_LIVE=0 sh stap/check.sh bpf/syslat >/dev/null 2>&1 &&
   cc -shared -fPIC -O2 -o "$qa_tmp/shim.so" stap/memlock_shim.c -ldl 2>/dev/null; then
    LD_PRELOAD=$qa_tmp/shim.so stapbpf build/stapcache/out/staprelay_bsyslat.bo >"$qa_tmp/stapbpf.out" 2>&1 &
    stap=$!
    qa_track_pid $stap
    if qa_wait_metric staprelay.staprelay_bsyslat.calls 30 >/dev/null; then
        sleep 2
        qa_pminfo -f staprelay.staprelay_bsyslat.calls staprelay.staprelay_bsyslat.errors \
            staprelay.staprelay_bsyslat.latency
    else
        echo "stapbpf did not start here: $(head -2 "$qa_tmp/stapbpf.out")"
    fi
    kill -INT $stap 2>/dev/null
    wait $stap 2>/dev/null
else
    echo "skipped: needs root, systemtap (make deps) and a kernel that loads BPF programs"
fi
echo "(the kernel-runtime scripts in stap/ need a kernel with module support: CONFIG_MODULES)"

step "staprelay run profile: picks a backend (perf here: no modules, no BPF backtraces) for 5 s"
if command -v perf >/dev/null; then
    sh -c 'while :; do :; done' &
    busy=$!
    qa_track_pid $busy
    client/staprelay run profile --dir "$qa_tmp/sources" --name cpuprof --pid $busy -T 5 \
        >"$qa_tmp/run.txt" 2>&1 &
    run=$!
    qa_track_pid $run
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
