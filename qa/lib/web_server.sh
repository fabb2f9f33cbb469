# qa/lib/web_server.sh: `staprelay web` in a qa test (sourced after
# common.sh).  One server at a time:
#   qa_web_start ARGS...   start it in the background, wait (60 s) for its
#                          "staprelay web: http://ADDR:PORT/" line; sets
#                          QA_WEB_URL (ends in /), QA_WEB_PID, QA_WEB_ERR
#   qa_web_get PATH        curl it: the body on stdout; non-2xx fails
#   qa_web_status PATH     the HTTP status of a GET (curl -g: no globbing)
#   qa_web_idle            wait (120 s) until /api/info says collection
#                          ended (archives and files read whole)
#   qa_web_stop            SIGINT, wait (60 s) for it to exit; prints
#                          "web exit status N"
# The EXIT trap's cleanup kills a server a failed test left running.
# QA_WEB_VALGRIND=1 runs the server under valgrind memcheck: an error or
# a definite leak makes its exit status 9 ("web exit status 9").

QA_WEB_PID=
QA_WEB_URL=
QA_WEB_ERR=

qa_web_start() {
    QA_WEB_ERR=$qa_tmp/web.err
    : > "$QA_WEB_ERR"
    local vg=
    [ -z "${QA_WEB_VALGRIND:-}" ] || vg="valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$QA_SRC/qa/lib/valgrind.supp"
    $vg "$QA_SRC/client/staprelay" web "$@" 2> "$QA_WEB_ERR" &
    QA_WEB_PID=$!
    qa_track_pid "$QA_WEB_PID"
    qa_wait_until 120 "staprelay web says its URL" \
        grep -q '^staprelay web: http://' "$QA_WEB_ERR" || {
        cat "$QA_WEB_ERR" >> "$qa_full"
        return 1
    }
    QA_WEB_URL=$(sed -n 's|^staprelay web: \(http://[^ ]*/\)$|\1|p' "$QA_WEB_ERR" | head -1)
    qa_log "web at $QA_WEB_URL, pid $QA_WEB_PID"
}

qa_web_get() {
    curl -gsfS --max-time 60 "$QA_WEB_URL${1#/}"
}

qa_web_status() {
    curl -gs --max-time 60 -o /dev/null -w '%{http_code}' "$QA_WEB_URL${1#/}"
}

qa_web_ended() {
    qa_web_get api/info | grep -q '"collecting":false'
}

qa_web_idle() {
    qa_wait_until 120 "web read its inputs" qa_web_ended
}

qa_web_stop() {
    [ -n "$QA_WEB_PID" ] || return 0
    kill -INT "$QA_WEB_PID" 2>/dev/null
    qa_wait_until 120 "web exits after SIGINT" qa_pid_gone "$QA_WEB_PID"
    wait "$QA_WEB_PID"
    echo "web exit status $?"
    cat "$QA_WEB_ERR" >> "$qa_full"
    QA_WEB_PID=
}

qa_web_cleanup() {
    if [ -n "$QA_WEB_PID" ] && qa_pid_alive "$QA_WEB_PID"; then
        kill -KILL "$QA_WEB_PID" 2>/dev/null
        echo "FAIL: staprelay web was still running at the end"
    fi
}

qa_urlenc() {
    # qa_urlenc TEXT: percent-encoded for a query parameter
    python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"
}

trap 'qa_web_rc=$?; qa_web_cleanup; (exit $qa_web_rc); qa_cleanup; exit $?' EXIT
