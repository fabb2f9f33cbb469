# qa/lib/web.sh -- sourced by the `staprelay web` browser tests (qa 720-739)
# after common.sh.  The page runs in real Chromium through puppeteer-core
# (qa/web, installed by `make deps`); the server is the real `staprelay
# web` on a loopback port of its own.

qa_web_sr=$QA_SRC/client/staprelay
qa_web_dir=$QA_SRC/qa/web

qa_web_need() {
    # everything a browser test needs, or one clear line and exit
    [ -x "$qa_web_sr" ] || { qa_fail "client/staprelay not built"; exit 1; }
    command -v node >/dev/null || { qa_fail "node is not installed (make deps)"; exit 1; }
    [ -x "${QA_CHROMIUM:-/usr/bin/chromium}" ] || { qa_fail "chromium is not installed (make deps)"; exit 1; }
    [ -d "$qa_web_dir/node_modules/puppeteer-core" ] ||
        { qa_fail "qa/web/node_modules is missing: run make deps (npm ci in qa/web)"; exit 1; }
}

qa_web_start() {
    # qa_web_start NAME ARGS...: `staprelay web ARGS` in the background,
    # its stderr in NAME.err; waits for "staprelay web: http://.../" and
    # sets qa_web_url and qa_web_pid
    local name=$1 line
    shift
    "$qa_web_sr" web "$@" > "$qa_tmp/$name.out" 2> "$qa_tmp/$name.err" &
    qa_web_pid=$!
    qa_track_pid $qa_web_pid
    qa_wait_until 60 "staprelay web says its URL" grep -q '^staprelay web: http://' "$qa_tmp/$name.err" || {
        qa_fail "staprelay web $* did not start (see $qa_full_name)"
        cat "$qa_tmp/$name.err" >> "$qa_full"
        return 1
    }
    line=$(grep -m1 '^staprelay web: http://' "$qa_tmp/$name.err")
    qa_web_url=${line#staprelay web: }
    qa_log "staprelay web $* at $qa_web_url (pid $qa_web_pid)"
}

qa_web_stop() {
    # SIGINT (Ctrl-C): it must end cleanly
    [ -n "${qa_web_pid:-}" ] || return 0
    kill -INT "$qa_web_pid" 2>/dev/null
    wait "$qa_web_pid"
    local rc=$?
    qa_web_pid=
    return $rc
}

qa_web_node() {
    # qa_web_node SCRIPT ARGS...: a browser script of qa/web (its stdout
    # is the test's; its stack traces go to the .full file)
    ( cd "$qa_web_dir" && timeout 600 node "$@" ) 2>> "$qa_full"
}

qa_web_phase_archive() {
    # qa_web_phase_archive ARCHIVE SECONDS: an archive of the event
    # metric staprelay.qweb.samples recorded by pmlogger from the private
    # pmcd (started here) while a JSON source produces 50 records a
    # second stamped with their own times: the first half mostly
    # main;work;phase_a;spin_a, the second half mostly
    # main;work;phase_b;spin_b, and main;work;common throughout (pid 100
    # comm app; pid 200 comm other for one record in ten)
    local arch=$1 secs=$2 src=$qa_tmp/sources/qweb
    mkdir -p "$qa_tmp/sources"
    chmod a+rX "$qa_tmp/sources"
    qa_write_config "$qa_tmp/config.json" "$qa_tmp/sources"
    qa_start_staprelay "$qa_tmp/config.json" || return 1
    qa_make_source "$src" '{"prefix": "qweb", "metrics": [
 {"name": "samples", "type": "event", "pointer": "/samples",
  "timestamp": "/ts", "timestamp_units": "nsec", "sequence": "/seq",
  "fields": [
   {"name": "stack", "pointer": "/stack", "type": "stack"},
   {"name": "pid", "pointer": "/pid", "type": "integer", "optional": true},
   {"name": "comm", "pointer": "/comm", "type": "string", "optional": true}]}]}' '{"samples": []}'
    qa_wait_until 30 "the event metric is there" qa_pminfo staprelay.qweb.samples.records || return 1
    # pmlogger first (two fetches a second for the whole run and 4 s
    # more), then the producer once pmlogger is a reader of the queue
    qa_pmlogger "$arch" $(( (secs + 6) * 2 )) 500 staprelay.qweb.samples.records &
    local logger=$!
    qa_wait_until 30 "pmlogger reads the queue" sh -c "pminfo -h $QA_HOST -f staprelay.control.events.clients | grep -q '\"qweb.samples\"] value 1\$'" ||
        { qa_fail "pmlogger did not register"; return 1; }
    python3 - "$src/data.json" "$secs" <<'PY' || { qa_fail "the producer failed"; return 1; }
import json, os, sys, time
path, secs = sys.argv[1], float(sys.argv[2])
recs, seq, t0 = [], 0, time.time()
while time.time() - t0 < secs:
    now = time.time()
    phase = "a" if now - t0 < secs / 2 else "b"
    for k in range(10):
        seq += 1
        ts = int((now - 0.2 + k * 0.02) * 1e9)
        if seq % 5 == 0:
            st = "main;work;common"
        else:
            st = "main;work;phase_%s;spin_%s" % (phase, phase)
        r = {"seq": seq, "ts": ts, "stack": st, "pid": 100, "comm": "app"}
        if seq % 10 == 3:
            r.update(pid=200, comm="other", stack="main;other_work")
        recs.append(r)
    recs = recs[-200:]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"samples": recs}, f)
    os.chmod(tmp, 0o644)
    os.rename(tmp, path)
    time.sleep(max(0, 0.2 - (time.time() - now)))
PY
    wait $logger
}
