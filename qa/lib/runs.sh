# qa/lib/runs.sh -- sourced after common.sh by the tests of the client's
# --run (550, 551): a private pmcd whose PMDA runs `profile` on demand with
# the real client as the runs' command (the perf backend: this machine
# cannot load kernel modules), against a busy loop.

# qa_runs_start: needs the PMDA, the client, perf and xmllint (or ends the
# test, failed); cd's into $qa_tmp and sets bin (the client), S (the
# sources), www (an empty output directory), busy (the busy loop's pid,
# killed whatever happens, then the usual cleanup).
qa_runs_start() {
    bin=$QA_SRC/client/staprelay
    qa_need_built "$QA_STAPRELAY_BIN" "$bin"
    command -v perf >/dev/null || { echo "perf is not installed (make deps)"; exit 1; }
    command -v xmllint >/dev/null || { echo "xmllint is not installed (make deps)"; exit 1; }
    cd "$qa_tmp" || exit 1

    S=$qa_tmp/sources
    www=$qa_tmp/www
    mkdir -p "$S" "$qa_tmp/runs" "$www"
    QA_CONFIG_EXTRA='"runs": {"enabled": true, "scripts": ["profile"],
    "max_duration": 60, "command": "'$bin'", "directory": "'$qa_tmp/runs'"},
' qa_write_config "$qa_tmp/config.json" "$S"
    qa_start_staprelay "$qa_tmp/config.json" || exit 1

    sh -c 'while :; do :; done' &
    busy=$!
    qa_track_pid $busy
    trap 'rc=$?; kill $busy 2>/dev/null; (exit $rc); qa_cleanup; exit $?' EXIT
}

# qa_run_accepted: the run name in control.run's answer to the last store
qa_run_accepted() {
    qa_value staprelay.control.run | sed -n 's/^"accepted: \(.*\)"$/\1/p'
}

# qa_run_state RUN: the run's state, from its JSON value in
# staprelay.control.runs
qa_run_state() {
    pminfo -h "$QA_HOST" -f staprelay.control.runs 2>/dev/null |
        awk -v n="$1" 'index($0, "\"" n "\"]") { sub(/^[^"]*"[^"]*"\] value "/, ""); sub(/"$/, ""); print }' |
        python3 -c 'import json,sys
for line in sys.stdin: print(json.loads(line)["state"])'
}
