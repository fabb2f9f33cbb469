#!/bin/bash
# make demo: the whole path on this machine.  A private pmcd (free loopback
# port, own config and logs; the system pmcd is never touched) runs
# pmdastaprelay relaying the example sources in examples/sources; we show
# the metrics, a value changing as its data.json is rewritten, event
# records, SystemTap's syslat started with `staprelay run`, the relay's
# own health metrics, and the main job: `staprelay run profile` samples
# examples/hot (a workload with known hot functions), pmlogger records its
# relayed records, and the flame graph and heat map are drawn from that
# archive into build/demo (DEMO_OUT), named at the end.  Everything stops on exit, Ctrl-C included: the
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

# where the views are written: named at the end, kept after the demo
demo_out=${DEMO_OUT:-$PWD/build/demo}
demo_drawn=
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

step "the flame graph: staprelay run profile samples examples/hot, its records relayed through pmcd"
# examples/hot spends about 60 % of its CPU in hot_multiply, 30 % in
# hot_hash, 10 % in hot_parse.  It starts stopped, so that pmlogger (the
# archive the views are drawn from) listens before its first sample.
if command -v perf >/dev/null || [ -e /proc/modules ]; then
    M=staprelay.cpuprof.samples
    sh -c 'kill -STOP $$; exec "$0" 6' "$PWD/examples/hot/hot" &
    hot=$!
    demo_track $hot
    qa_wait_until 10 "hot stopped" sh -c "grep -q '^State:.*stopped' /proc/$hot/status" >/dev/null
    client/staprelay run profile --dir "$qa_tmp/sources" --name cpuprof --pid $hot -T 60 \
        >"$qa_tmp/run.txt" 2>&1 &
    run=$!
    demo_track $run
    if qa_wait_metric staprelay.cpuprof.taken 30 >/dev/null; then
        sed -e "s|$qa_tmp|\$TMP|g" "$qa_tmp/run.txt"
        rm -rf "$demo_out"
        mkdir -p "$demo_out"
        # 20 fetches 0.5 s apart: the 6 s of work and the run's end
        qa_pmlogger "$demo_out/archive" 20 500 "$M.records" &
        logger=$!
        demo_track $logger
        qa_wait_until 20 "pmlogger reads the queue" sh -c \
            "pminfo -h $QA_HOST -f staprelay.control.events.clients | grep -q '\"cpuprof.samples\"] value [1-9]'" >/dev/null
        # perf samples hot from here (resumed before, it could exec
        # unseen and its samples be named sh: qa 518)
        qa_wait_until 30 "staprelay run samples" grep -q '^staprelay run: sampling$' "$qa_tmp/run.txt" >/dev/null
        kill -CONT $hot
        wait $run 2>/dev/null
        grep '^staprelay run: [0-9]* samples' "$qa_tmp/run.txt"
        wait $logger 2>/dev/null
        echo "\$ staprelay top -a $demo_out/archive $M | head -8"
        client/staprelay top -a "$demo_out/archive" $M 2>&1 | head -8
        echo "\$ staprelay flame -a $demo_out/archive $M -o $demo_out/flame.svg"
        client/staprelay flame -a "$demo_out/archive" --title "examples/hot through pmcd" \
            $M -o "$demo_out/flame.svg"
        echo "\$ staprelay heatmap -a $demo_out/archive $M -o $demo_out/heatmap.html"
        client/staprelay heatmap -a "$demo_out/archive" --title "examples/hot through pmcd" \
            $M -o "$demo_out/heatmap.html"
        demo_drawn=yes
    else
        sed -e "s|$qa_tmp|\$TMP|g" "$qa_tmp/run.txt"
    fi
    wait $run 2>/dev/null
    kill $hot 2>/dev/null
    wait $hot 2>/dev/null
else
    echo "skipped: perf is not installed (apt-get install linux-perf)"
fi

step "SystemTap: staprelay run syslat (the kernel runtime where modules load, else its BPF variant)"
# The first run builds the script (a minute or two, once: the build is
# cached in build/stapcache); later runs start in a second.  The demo
# waits 120 s for it, so that it stays near two minutes on a fresh
# machine; `staprelay run syslat` once builds the cache.
client/staprelay run syslat --name syslat >"$qa_tmp/syslat.txt" 2>&1 &
syslat=$!
demo_track $syslat
if qa_wait_until 120 "syslat loaded" sh -c "grep -q '^staprelay run: loaded' '$qa_tmp/syslat.txt' ||
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
    echo "skipped: staprelay run syslat could not run here (its first build may take longer than the demo waits: run it once):"
    grep -v -e '^staprelay run: running' -e '^staprelay run: building' "$qa_tmp/syslat.txt" | head -8
fi

step "the relay's own health (staprelay.control)"
qa_pminfo -f staprelay.control.source.state staprelay.control.source.reads \
    staprelay.control.source.last_error

step "done: pmcd and the PMDA stop now"
if [ -n "$demo_drawn" ]; then
    echo "The views of examples/hot's samples are in $demo_out:"
    echo "  flame.svg     the flame graph (open it in a browser: click to zoom, Ctrl-F to search)"
    echo "  heatmap.html  the sub-second heat map (select a range: its flame graph)"
    echo "  archive.*     the pmlogger archive they were drawn from (staprelay flame -a ...)"
fi
exit 0
