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
QA_POLL_INTERVAL=0.5 qa_write_config "$qa_tmp/config.json" "$qa_tmp/sources"
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

step "the relay's own health (staprelay.control)"
qa_pminfo -f staprelay.control.source.state staprelay.control.source.reads \
    staprelay.control.source.last_error

step "done: pmcd and the PMDA stop now"
exit 0
