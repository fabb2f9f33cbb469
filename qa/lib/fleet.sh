# qa/lib/fleet.sh -- sourced after common.sh by the fleet tests (6xx) and
# bench/fleet: a private redis-server (Debian's, the store pmseries uses;
# Valkey is the same protocol) and a private pmproxy in front of it, each
# on a free loopback port, with their own directory, stopped by PID from
# fleet_stop (call it from the test's EXIT trap).
#
#   fleet_redis_start            FLEET_REDIS_PORT, FLEET_REDIS_PID
#   fleet_pmproxy_start          FLEET_PMPROXY_URL, FLEET_PMPROXY_PID
#   fleet_load ARCHIVE...        pmseries --load each into the redis
#   fleet_redis_memory           used_memory in bytes
#   fleet_stop                   both gone (waited for)

FLEET_DIR=$qa_tmp/fleet
FLEET_REDIS_PID=
FLEET_PMPROXY_PID=
FLEET_REDIS_PORT=
FLEET_PMPROXY_URL=

fleet_have() {
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null &&
        [ -x "$PCP_BINADM_DIR/pmproxy" ] && command -v pmseries >/dev/null
}

fleet_redis_start() {
    mkdir -p "$FLEET_DIR/redis"
    FLEET_REDIS_PORT=$(qa_free_port) || return 1
    # no persistence: the store lives and dies with the test
    redis-server --port "$FLEET_REDIS_PORT" --bind 127.0.0.1 --dir "$FLEET_DIR/redis" \
        --save '' --appendonly no --daemonize no --logfile "$FLEET_DIR/redis.log" \
        </dev/null >/dev/null 2>&1 &
    FLEET_REDIS_PID=$!
    qa_track_pid "$FLEET_REDIS_PID"
    qa_wait_until 20 "redis-server answers" redis-cli -p "$FLEET_REDIS_PORT" ping
}

fleet_pmproxy_start() {
    local port
    port=$(qa_free_port) || return 1
    mkdir -p "$FLEET_DIR/pmproxy"
    cat > "$FLEET_DIR/pmproxy.conf" <<EOF
[pmproxy]
pcp.enabled = true
http.enabled = true
redis.enabled = true
secure.enabled = false
[discover]
enabled = false
[pmseries]
enabled = true
servers = 127.0.0.1:$FLEET_REDIS_PORT
[pmsearch]
enabled = false
EOF
    env PCP_RUN_DIR="$FLEET_DIR/pmproxy" PCP_LOG_DIR="$FLEET_DIR/pmproxy" \
        PCP_TMP_DIR="$FLEET_DIR/pmproxy" \
        "$PCP_BINADM_DIR/pmproxy" -f -U root -p "$port" -r "$FLEET_REDIS_PORT" \
        -c "$FLEET_DIR/pmproxy.conf" -l "$FLEET_DIR/pmproxy.log" \
        -s "$FLEET_DIR/pmproxy/pmproxy.socket" </dev/null >>"$qa_full" 2>&1 &
    FLEET_PMPROXY_PID=$!
    qa_track_pid "$FLEET_PMPROXY_PID"
    FLEET_PMPROXY_URL=http://127.0.0.1:$port
    qa_wait_until 20 "pmproxy answers" curl -sf -o /dev/null "$FLEET_PMPROXY_URL/series/labels?names=hostname"
}

fleet_load() {
    local a
    for a in "$@"; do
        pmseries -p "$FLEET_REDIS_PORT" --load "$a" >>"$qa_full" 2>&1 ||
            { qa_fail "pmseries --load $a"; return 1; }
    done
}

fleet_redis_memory() {
    redis-cli -p "$FLEET_REDIS_PORT" info memory | tr -d '\r' | sed -n 's/^used_memory://p'
}

fleet_stop() {
    local p
    for p in $FLEET_PMPROXY_PID $FLEET_REDIS_PID; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    [ ! -f "$FLEET_DIR/pmproxy.log" ] || cat "$FLEET_DIR/pmproxy.log" >> "$qa_full"
    FLEET_PMPROXY_PID=
    FLEET_REDIS_PID=
}
