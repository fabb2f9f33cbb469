# qa/lib/common.sh -- sourced (bash) by every qa test and by bench scripts.
#
# What it gives a test:
#   * a private temp dir ($qa_tmp) and a debug file ($qa_full = qa/NNN.full);
#   * a private pmcd on a free loopback port, with its own pmcd.conf, PMNS,
#     socket, logs, PCP_VAR_DIR/PCP_TMP_DIR/PCP_RUN_DIR/PCP_LOG_DIR, stopped
#     by PID (its PMDAs too) from an EXIT trap whatever happens;
#   * wrappers for the PCP client tools aimed at that pmcd (qa_pminfo ...);
#   * qa_wait_value / qa_wait_metric to poll instead of sleeping;
#   * filters that make outputs stable for golden comparison.
#
# It never touches the system pmcd: no default port, no /etc/pcp edits, and
# PCP_VAR_DIR is redirected so pmcd does not hand our PMDAs to the system
# pmdaroot (pmcd forks agents through $PCP_VAR_DIR/pmcd/root.socket when it
# can connect to it; the PMDA would then be a child of the system pmdaroot).
#
# Typical test:
#   . "$(dirname "$0")/lib/common.sh"
#   qa_use_sample                  # or qa_pmcd_agent/qa_pmns_file/qa_pmns_dynamic
#   qa_pmcd_start || exit 1
#   qa_pminfo -f sample.long.one | qa_filter
#   exit 0                         # cleanup runs from the trap
#
# Environment knobs: QA_KEEP=1 keeps $qa_tmp; QA_DEBUG=1 traces helpers to
# stderr.  qa/run sets QA_RUN=1 (it owns the .full file) and QA_PIDS_FILE
# (processes we started, so it can catch leaks).

# ---- PCP configuration --------------------------------------------------
if [ -z "${PCP_BINADM_DIR:-}" ] || [ -z "${PCP_PMDAS_DIR:-}" ]; then
    # pcp.env exports the PCP_* variables from /etc/pcp.conf.
    if [ -r "${PCP_DIR:-}/etc/pcp.env" ]; then
        # pcp.env is not written for "set -u" callers.
        case $- in *u*) set +u; . "${PCP_DIR:-}/etc/pcp.env"; set -u ;;
                   *) . "${PCP_DIR:-}/etc/pcp.env" ;; esac
    elif [ -r /etc/pcp.conf ]; then
        set -a; . /etc/pcp.conf; set +a
    fi
fi
: "${PCP_BINADM_DIR:=/usr/lib/pcp/bin}"
: "${PCP_PMDAS_DIR:=/var/lib/pcp/pmdas}"
: "${PCP_VAR_DIR:=/var/lib/pcp}"
# Remember the real locations: a test's own PCP_VAR_DIR is private.
QA_SYS_VAR_DIR=$PCP_VAR_DIR
QA_SYS_PMDAS_DIR=$PCP_PMDAS_DIR

# ---- locations ------------------------------------------------------------
QA_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QA_SRC=$(cd "$QA_DIR/.." && pwd)          # repository root
# `staprelay run` caches modules outside the sources by default
# (run.h, run_cache_dir); the suite and the demo share build/stapcache
# with stap/check.sh instead
export STAPRELAY_CACHE=${STAPRELAY_CACHE:-${STAPRELAY_BUILD:-$QA_SRC/build}/stapcache}
# Sanitizer builds of the PMDA (make check's asan pass): PCP's own leaks
# are suppressed; ours are reported.
# the path quoted: sanitizer options are split at blanks ("/tmp/a b")
export LSAN_OPTIONS="suppressions=\"$QA_SRC/qa/lib/lsan.supp\":print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
seq=$(basename "$0")
seq=${seq%.sh}
# qa/run passes qa_full (a file it moves to qa/ later) and QA_FULL_NAME;
# messages name the file where the user will find it.
if [ -z "${qa_full:-}" ]; then
    qa_full=$QA_DIR/$seq.full
    qa_full_name=qa/$seq.full
else
    qa_full_name=${QA_FULL_NAME:-$qa_full}
fi
[ -n "${QA_RUN:-}" ] || : > "$qa_full"
qa_tmp=$(mktemp -d "${TMPDIR:-/tmp}/staprelay-qa.$seq.XXXXXX") || exit 1
# Some PMDAs (pmdasample) drop to user pcp: they must reach their log dir.
chmod 755 "$qa_tmp"

# Private pmcd state (one pmcd per test).
QA_PMCD_PID=
QA_PMCD_PORT=
QA_HOST=
QA_PMCD_DIR=$qa_tmp/pmcd
QA_PMCD_LOG=$QA_PMCD_DIR/pmcd.log
QA_PMCD_AGENT_PIDS=
qa_agents=
qa_roots=
qa_pmns_body=
qa_nagents=0

qa_log() {
    # Debug lines go to the .full file (and stderr when QA_DEBUG=1).
    echo "[$(date +%T)] $*" >> "$qa_full"
    [ -z "${QA_DEBUG:-}" ] || echo "qa: $*" >&2
}

qa_fail() {
    # A failure message on stdout: it breaks the golden comparison on purpose.
    echo "FAIL: $*"
    qa_log "FAIL: $*"
}

qa_notrun() {
    # Only for things genuinely impossible on this machine.
    echo "notrun: $*"
    exit 0
}

qa_track_pid() {
    [ -z "${QA_PIDS_FILE:-}" ] || echo "$1" >> "$QA_PIDS_FILE"
}

# ---- cleanup --------------------------------------------------------------
qa_cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    # A PMDA that does not exit when pmcd goes away prints a FAIL line here,
    # after the test's own output, so the golden comparison catches it.
    if [ -n "$QA_PMCD_PID" ]; then
        qa_pmcd_stop || [ $rc != 0 ] || rc=1
    fi
    cd / 2>/dev/null
    qa_ports_release_all
    if [ -n "${QA_KEEP:-}" ]; then
        qa_log "kept $qa_tmp"
        echo "$seq: kept $qa_tmp" >&2
    else
        rm -rf "$qa_tmp"
    fi
    return $rc
}
trap 'qa_cleanup; exit $?' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- ports ------------------------------------------------------------------
qa_listeners() {
    # "ADDR:PORT" for every listening TCP socket (IPv4 and IPv6), read from
    # /proc so we need no iproute2.  ADDR is 127.0.0.1, ::1, 0.0.0.0, :: or
    # the raw hex for anything else.
    local line a p
    for f in /proc/net/tcp /proc/net/tcp6; do
        [ -r "$f" ] || continue
        awk '$4 == "0A" { print $2 }' "$f"
    done | while IFS=: read -r a p; do
        case "$a" in
            0100007F) a=127.0.0.1 ;;
            00000000) a=0.0.0.0 ;;
            00000000000000000000000001000000) a=::1 ;;
            00000000000000000000000000000000) a=:: ;;
        esac
        echo "$a:$((16#$p))"
    done
}

# A port handed out is reserved until this test ends: a directory
# QA_PORT_DIR/PORT holding the test's pid (mkdir is atomic), so a second
# suite on the same machine -- another checkout, or a fresh chroot,
# which shares this /dev/shm and the loopback -- never picks it in the
# moment between the choice and the bind.  A reservation whose test has
# gone is taken over.
QA_PORT_DIR=${QA_PORT_DIR:-/dev/shm/staprelay-qa-ports}
[ -d /dev/shm ] && [ -w /dev/shm ] || QA_PORT_DIR=${TMPDIR:-/tmp}/staprelay-qa-ports
qa_port_reserve() {
    local d=$QA_PORT_DIR/$1 owner
    mkdir -p "$QA_PORT_DIR" 2>/dev/null && chmod 1777 "$QA_PORT_DIR" 2>/dev/null
    if ! mkdir "$d" 2>/dev/null; then
        owner=$(cat "$d/pid" 2>/dev/null)
        # held by a live test (or being written this instant): not ours
        { [ -z "$owner" ] || kill -0 "$owner" 2>/dev/null; } && return 1
        rm -rf "$d" && mkdir "$d" 2>/dev/null || return 1
    fi
    echo $$ > "$d/pid"
}

qa_ports_release_all() {
    # every reservation of this test ($$ is the test's shell in the
    # $(qa_free_port) subshells too)
    local f
    for f in "$QA_PORT_DIR"/*/pid; do
        [ -f "$f" ] && [ "$(cat "$f" 2>/dev/null)" = $$ ] && rm -rf "${f%/pid}"
    done
    return 0
}

qa_free_port() {
    # A loopback TCP port nobody listens on or holds for a test; pmcd
    # start retries on a race anyway.  Called as $(qa_free_port), so the
    # reservation is made here in the subshell, by the test's pid ($$).
    local port i used
    used=$(qa_listeners | sed 's/.*://' | sort -u)
    for i in $(seq 1 50); do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        [ "$port" = 44321 ] && continue        # PCP's own pmcd port
        printf '%s\n' $used | grep -qx "$port" && continue
        qa_port_reserve "$port" || continue
        echo "$port"
        return 0
    done
    return 1
}

# ---- building the private pmcd's config -------------------------------------
qa_pmcd_reset() {
    qa_agents=
    qa_roots=
    qa_pmns_body=
    qa_nagents=0
}

qa_pmcd_agent() {
    # One pmcd.conf agent line, e.g. "sample 29 pipe binary /path -d 29".
    qa_agents="$qa_agents$1
"
    qa_nagents=$((qa_nagents + 1))
}

qa_pmns_dynamic() {
    # A fully dynamic subtree: NAME DOMAIN:*:*
    qa_roots="$qa_roots	$1	$2:*:*
"
}

qa_pmns_file() {
    # Merge a static ASCII PMNS file (PCP's pmns/root_* or a PMDA's pmns):
    # expand it with pmcpp (extra args are pmcpp -D/-I options), drop its
    # own root block and make that block's children children of our root.
    local file=$1 expanded
    shift
    expanded=$("$PCP_BINADM_DIR/pmcpp" -P -I "$QA_SYS_VAR_DIR/pmns" "$@" "$file") || {
        qa_fail "pmcpp $file"
        return 1
    }
    qa_roots="$qa_roots$(printf '%s\n' "$expanded" | awk '
        /^root[ \t]*\{/ { inroot = 1; next }
        inroot && /\}/  { inroot = 0; next }
        inroot && NF    { print "\t" $0 }')
"
    qa_pmns_body="$qa_pmns_body$(printf '%s\n' "$expanded" | awk '
        /^root[ \t]*\{/ { inroot = 1; next }
        inroot && /\}/  { inroot = 0; next }
        !inroot         { print }')
"
}

qa_pmns_subtree() {
    # Like qa_pmns_file for a PMDA pmns file that has no root block
    # (e.g. $PCP_PMDAS_DIR/sample/pmns): NAME is its top-level node.
    local name=$1 file=$2 expanded
    shift 2
    expanded=$("$PCP_BINADM_DIR/pmcpp" -P -I "$QA_SYS_VAR_DIR/pmns" "$@" "$file") || {
        qa_fail "pmcpp $file"
        return 1
    }
    qa_roots="$qa_roots	$name
"
    qa_pmns_body="$qa_pmns_body$expanded
"
}

qa_pmns_write() {
    # Write the PMNS built so far (qa_pmns_*) to FILE, e.g. for dbpmda -n.
    {
        printf 'root {\n%s}\n\n' "$qa_roots"
        printf '%s\n' "$qa_pmns_body"
    } > "$1"
}

# pmcd's own DSO agent (domain 2) is always present: pmcd.* metrics tell us
# when pmcd is ready and whether each agent is alive.
qa_use_pmcd_self() {
    qa_pmcd_agent "pmcd	2	dso	pmcd_init	$QA_SYS_PMDAS_DIR/pmcd/pmda_pmcd.so"
    qa_pmns_file "$QA_SYS_VAR_DIR/pmns/root_pmcd" -DPMCD=2
}

# ---- PCP's own PMDAs, as pipe agents of the private pmcd --------------------
qa_use_sample() {
    # pmdasample (domain 29): static PMNS, stable values, storable metrics.
    qa_pmcd_agent "sample	29	pipe	binary	$QA_SYS_PMDAS_DIR/sample/pmdasample -d 29 -l $QA_PMCD_DIR/log/sample.log"
    qa_pmns_subtree sample "$QA_SYS_PMDAS_DIR/sample/pmns" -DSAMPLE=29
}

qa_use_linux() {
    # pmdalinux (domain 60), e.g. kernel.all.load as a fast C baseline.
    qa_pmcd_agent "linux	60	pipe	binary	$QA_SYS_PMDAS_DIR/linux/pmdalinux -d 60 -l $QA_PMCD_DIR/log/linux.log"
    qa_pmns_file "$QA_SYS_VAR_DIR/pmns/root_linux"
}

qa_use_pmdajson() {
    # PCP's pmdajson (domain 137) with CONFIG (a config.json file).
    # pmdajson reads $PCP_PMDAS_DIR/json/config.json and nothing else, so it
    # gets a private PCP_PMDAS_DIR holding only that file.  /usr/bin/python3
    # explicitly: pmcd's PATH may find a python3 without the pcp module.
    local conf=$1 dir=$QA_PMCD_DIR/jsonpmdas
    [ -r "$QA_SYS_PMDAS_DIR/json/pmdajson.python" ] || { qa_fail "no pmdajson"; return 1; }
    # Its imports; without them it dies at start and pmcd drops the agent.
    /usr/bin/python3 -c 'import jsonpointer, six, pcp.pmda' 2>/dev/null || {
        qa_fail "pmdajson needs python3-json-pointer, python3-six, python3-pcp"
        return 1
    }
    mkdir -p "$dir/json"
    cp "$conf" "$dir/json/config.json"
    qa_pmcd_agent "json	137	pipe	binary	/usr/bin/env PCP_PMDAS_DIR=$dir /usr/bin/python3 $QA_SYS_PMDAS_DIR/json/pmdajson.python -d 137"
    qa_pmns_dynamic json 137
}

# ---- our PMDA ----------------------------------------------------------------
QA_STAPRELAY_BIN=${QA_STAPRELAY_BIN:-$QA_SRC/pmda/pmdastaprelay}
QA_STAPRELAY_DOMAIN=490

qa_word_path() {
    # qa_word_path PATH NAME: PATH as one word of a pmcd.conf or dbpmda
    # line, which split at white space with no quoting: PATH itself, or a
    # symlink $qa_tmp/words/NAME to it when it holds white space (a
    # checkout in "/tmp/my dir")
    case $1 in
        *[[:space:]]*)
            mkdir -p "$qa_tmp/words" && ln -sfn "$1" "$qa_tmp/words/$2" && echo "$qa_tmp/words/$2" ;;
        *) echo "$1" ;;
    esac
}

qa_pmda_pid() {
    # qa_pmda_pid: the oldest process running this test's PMDA as pmcd
    # started it (PATH -d DOMAIN -c CONFIG, PATH as qa_word_path gave it
    # to pmcd); the oldest, because its reapers (relay/reaper.c) are forks
    # with its command line.  Nothing when it is not running.
    local re
    re=$(printf '%s' "$(qa_word_path "$QA_STAPRELAY_BIN" pmdastaprelay) -d $QA_STAPRELAY_DOMAIN -c $qa_tmp/config.json" |
         sed 's/[].[\\*^$+?(){}|]/\\&/g')
    pgrep -o -f "^$re"
}

qa_have_staprelay() {
    [ -x "$QA_STAPRELAY_BIN" ]
}

qa_need_built() {
    # qa_need_built PROGRAM...: end the test, failed, unless each PROGRAM
    # (the PMDA: $QA_STAPRELAY_BIN, the client, examples/hot/hot) is built.
    local p
    for p in "$@"; do
        [ -x "$p" ] || { qa_fail "${p#"$QA_SRC"/} is not built: run make"; exit 1; }
    done
}

qa_source_fields() {
    # qa_source_fields SOURCE FIELD...: "    FIELD: VALUE" for each
    # staprelay.control.source.FIELD of SOURCE (its directory or file).
    local src=$1 f
    shift
    for f in "$@"; do
        printf '    %s: %s\n' "$f" "$(qa_value "staprelay.control.source.$f[$src]")"
    done
}

qa_source_ctl() {
    # qa_source_ctl SOURCE FIELD...: qa_source_fields, filtered.
    qa_source_fields "$@" | qa_filter
}

qa_use_staprelay() {
    # Our PMDA with CONFIG (pmdajson-compatible config.json); its state dir
    # and log live in the test's temp dir.
    local conf=$1
    QA_STAPRELAY_STATE=$QA_PMCD_DIR/staprelay-state
    QA_STAPRELAY_LOG=$QA_PMCD_DIR/log/staprelay.log
    mkdir -p "$QA_STAPRELAY_STATE"
    local wrap=${QA_STAPRELAY_WRAP:-} bin
    bin=$(qa_word_path "$QA_STAPRELAY_BIN" pmdastaprelay)
    if [ -n "${QA_VALGRIND:-}" ]; then
        # Memcheck the PMDA; qa_pmcd_stop turns any report into a FAIL line.
        wrap="valgrind -q ${QA_VALGRIND_EXTRA:-} --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$(qa_word_path "$QA_DIR/lib/valgrind.supp" valgrind.supp) --log-file=$QA_PMCD_DIR/log/valgrind.%p.log"
        : "${QA_PMCD_TIMEOUT:=60}"
        # pmcd waits -q seconds for a new PMDA's first words: valgrind's
        # first start on a machine whose caches are cold (CI's first test
        # of the phase) can take longer than the 3 s a plain PMDA needs
        : "${QA_PMCD_START_TIMEOUT:=30}"
    fi
    qa_pmcd_agent "staprelay	$QA_STAPRELAY_DOMAIN	pipe	binary	${wrap:+$wrap }$bin -d $QA_STAPRELAY_DOMAIN -c $conf -s $QA_STAPRELAY_STATE -l $QA_STAPRELAY_LOG"
    qa_pmns_dynamic staprelay $QA_STAPRELAY_DOMAIN
}

qa_start_staprelay() {
    # Private pmcd with only pmcd + pmdastaprelay(CONFIG); waits until
    # staprelay.control.nsources answers.
    qa_have_staprelay || { qa_fail "$QA_STAPRELAY_BIN not built (run make)"; return 1; }
    qa_pmcd_reset
    qa_use_staprelay "$1"
    qa_pmcd_start || return 1
    qa_wait_metric staprelay.control.nsources 20 || return 1
}

qa_start_staprelay_and_json() {
    # Private pmcd with pmdastaprelay AND PCP's pmdajson on the same CONFIG,
    # for "same source, same answer" (or "pmdajson gets it wrong") tests.
    qa_have_staprelay || { qa_fail "$QA_STAPRELAY_BIN not built (run make)"; return 1; }
    qa_pmcd_reset
    qa_use_staprelay "$1"
    qa_use_pmdajson "$1" || return 1
    qa_pmcd_start || return 1
    qa_wait_metric staprelay.control.nsources 20 || return 1
    qa_wait_metric json.nsources 30 || return 1
}

qa_pmcd_restart() {
    # Stop pmcd (and its PMDAs) and start it again with the same pmcd.conf
    # agents and PMNS; state dirs in $QA_PMCD_DIR survive, so this is how a
    # test checks what persists across a PMDA restart.
    qa_pmcd_stop || return 1
    qa_pmcd_start
}

qa_atomic_write() {
    # qa_atomic_write FILE < content: write a sibling temp file and rename
    # it over FILE, as a well-behaved producer does, so the PMDA never
    # reads a half-written document.
    local f=$1 t
    t=$(dirname "$f")/.qa_tmp.$$.$(basename "$f")
    cat > "$t" && mv -f "$t" "$f"
}

qa_make_source() {
    # qa_make_source DIR METADATA_JSON [DATA_JSON]: a pmdajson-style source
    # directory (created world-readable: pmdajson may not run as root).
    # data.json first and metadata.json last, each whole: a directory is a
    # source once its metadata.json appears, and a poll in between must not
    # see a source without its data (a logged warning a slow run caught).
    mkdir -p "$1"
    chmod a+rX "$1"
    [ $# -lt 3 ] || printf '%s\n' "$3" | qa_atomic_write "$1/data.json"
    printf '%s\n' "$2" | qa_atomic_write "$1/metadata.json"
    chmod -R a+rX "$1"
}

qa_write_config() {
    # qa_write_config FILE DIR... : a config.json listing DIRs (untrusted),
    # polling fast so tests wait little.
    local file=$1 d first=1
    shift
    {
        printf '{\n    "directory_list": ['
        for d in "$@"; do
            [ $first = 1 ] || printf ','
            printf '\n        "%s"' "$d"
            first=0
        done
        printf '\n    ],\n    "trusted_directory_list": [],\n'
        # no SystemTap roots: a module loaded on this machine must not
        # leak into a test (QA_STAP_ROOTS='"/dir"' to name some)
        printf '    "stap_roots": [%s],\n' "${QA_STAP_ROOTS:-}"
        # QA_CONFIG_EXTRA: more top-level keys, raw JSON ending in a comma
        printf '%s' "${QA_CONFIG_EXTRA:-}"
        printf '    "poll_interval": %s\n}\n' "${QA_POLL_INTERVAL:-0.2}"
    } > "$file"
}

# ---- private pmcd --------------------------------------------------------
qa_pmcd_start() {
    # Optional args: extra agent lines, extra root entries (both raw text).
    local try port i ready end
    [ -z "$QA_PMCD_PID" ] || { qa_fail "qa_pmcd_start: pmcd already running"; return 1; }
    [ -z "${1:-}" ] || { qa_agents="$qa_agents$1
"; qa_nagents=$((qa_nagents + $(printf '%s\n' "$1" | grep -c .))); }
    [ -z "${2:-}" ] || qa_roots="$qa_roots$2
"
    mkdir -p "$QA_PMCD_DIR"/var/config/pmda "$QA_PMCD_DIR"/var/pmcd \
        "$QA_PMCD_DIR"/tmp "$QA_PMCD_DIR"/run "$QA_PMCD_DIR"/log/pmcd
    chmod 755 "$QA_PMCD_DIR"
    chmod 1777 "$QA_PMCD_DIR"/log "$QA_PMCD_DIR"/log/pmcd "$QA_PMCD_DIR"/tmp \
        "$QA_PMCD_DIR"/var/config/pmda

    # Agents and names the caller asked for, plus pmcd's own.
    local want=$((qa_nagents + 1)) saved_agents=$qa_agents saved_roots=$qa_roots saved_body=$qa_pmns_body
    qa_use_pmcd_self
    {
        printf '%s' "$qa_agents"
        # QA_PMCD_ACCESS replaces the [access] rules (raw pmcd.conf lines)
        printf '\n[access]\n%s\n' "${QA_PMCD_ACCESS:-allow \"local:*\" : all;
allow \"127.0.0.1\" : all;
disallow \".*\" : all;}"
    } > "$QA_PMCD_DIR/pmcd.conf"
    qa_pmns_write "$QA_PMCD_DIR/root"
    qa_agents=$saved_agents qa_roots=$saved_roots qa_pmns_body=$saved_body
    qa_nagents=$((want - 1))
    {
        echo "== pmcd.conf"; cat "$QA_PMCD_DIR/pmcd.conf"
        echo "== root (first 40 lines)"; head -40 "$QA_PMCD_DIR/root"
    } >> "$qa_full"

    for try in 1 2 3; do
        port=$(qa_free_port) || { qa_fail "no free port"; return 1; }
        rm -f "$QA_PMCD_LOG"
        # The PCP_* overrides keep every file pmcd and its PMDAs write
        # (pid file, sockets, pmdaCache, default logs) inside our dir.
        # cwd = log dir: PMDAs that ignore -l (pmdajson) log to ./NAME.log.
        (cd "$QA_PMCD_DIR/log" && exec env PCP_VAR_DIR="$QA_PMCD_DIR/var" PCP_TMP_DIR="$QA_PMCD_DIR/tmp" \
            PCP_RUN_DIR="$QA_PMCD_DIR/run" PCP_LOG_DIR="$QA_PMCD_DIR/log" \
            PCP_PMCDCONF_PATH="$QA_PMCD_DIR/pmcd.conf" \
            PMCD_PORT="$port" PMCD_LOCAL=1 PMCD_SOCKET="$QA_PMCD_DIR/pmcd.socket" \
            "$PCP_BINADM_DIR/pmcd" -f -A -U root -t "${QA_PMCD_TIMEOUT:-30}" \
                -q "${QA_PMCD_START_TIMEOUT:-30}" \
                -c "$QA_PMCD_DIR/pmcd.conf" -n "$QA_PMCD_DIR/root" \
                -s "$QA_PMCD_DIR/pmcd.socket" -l "$QA_PMCD_LOG" \
                -x "$QA_PMCD_DIR/pmcd.err" \
                </dev/null >>"$qa_full" 2>&1) &
        QA_PMCD_PID=$!
        QA_PMCD_PORT=$port
        QA_HOST=localhost:$port
        qa_track_pid "$QA_PMCD_PID"
        qa_log "pmcd pid $QA_PMCD_PID port $port dir $QA_PMCD_DIR"
        # pmcd opens its ports only after its agents did the version
        # exchange, so "answers" means the agents are attached too.  The
        # bound is generous (a loaded machine, a sanitizer or valgrind
        # build of a PMDA); pmcd's own -q bounds each agent's start.
        ready=
        end=$(qa_deadline "${QA_PMCD_START_WAIT:-90}")
        while [ "$(qa_now_ms)" -lt "$end" ]; do
            if ! kill -0 "$QA_PMCD_PID" 2>/dev/null; then
                break
            fi
            if pmprobe -h "$QA_HOST" pmcd.numagents >/dev/null 2>&1 &&
               [ "$(pmprobe -h "$QA_HOST" -v pmcd.numagents 2>/dev/null | awk '{print $3}')" -ge 1 ] 2>/dev/null; then
                ready=1
                break
            fi
            sleep 0.1
        done
        [ -n "$ready" ] && break
        local alive=
        if kill -0 "$QA_PMCD_PID" 2>/dev/null; then
            # alive but not answering: where it waits, for the log
            alive=1
            { echo "== pmcd alive, not answering: wchan $(cat /proc/"$QA_PMCD_PID"/wchan 2>/dev/null)"
              ls -l /proc/"$QA_PMCD_PID"/fd 2>/dev/null; } >> "$qa_full"
        fi
        kill "$QA_PMCD_PID" 2>/dev/null   # no endless wait
        wait "$QA_PMCD_PID" 2>/dev/null
        qa_log "pmcd did not start (try $try)"
        cat "$QA_PMCD_LOG" "$QA_PMCD_DIR/pmcd.err" >> "$qa_full" 2>/dev/null
        QA_PMCD_PID=
        # A port race shows up as a bind failure, a pmcd that never
        # opened its ports (seen once in a fresh chroot under load) as
        # one alive and silent: both try again on another port.
        [ -n "$alive" ] || grep -qi 'address already in use\|bind' "$QA_PMCD_LOG" 2>/dev/null || break
    done
    if [ -z "$ready" ]; then
        [ -z "$QA_PMCD_PID" ] || qa_pmcd_stop >/dev/null
        qa_fail "private pmcd did not start (see $qa_full_name)"
        return 1
    fi
    QA_PMCD_AGENT_PIDS=$(qa_children "$QA_PMCD_PID")
    for i in $QA_PMCD_AGENT_PIDS; do qa_track_pid "$i"; done
    qa_log "agents: $QA_PMCD_AGENT_PIDS"
    # Every configured agent (plus pmcd's DSO) must be attached.
    local have
    have=$(pmprobe -h "$QA_HOST" -v pmcd.numagents | awk '{print $3}')
    if [ "$have" != "$want" ]; then
        qa_fail "private pmcd has $have agents, expected $want (see $qa_full_name)"
        qa_pminfo -f pmcd.agent.status >> "$qa_full" 2>&1
        qa_pmcd_stop >/dev/null
        return 1
    fi
    return 0
}

qa_children() {
    # PIDs whose parent is $1 (the PMDAs of a pmcd).
    ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' '
}

qa_pid_alive() {
    # Alive and not a zombie.
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    case "$st" in Z*|"") return 1 ;; esac
    return 0
}

qa_pid_gone() { ! qa_pid_alive "$1"; }

qa_pmcd_stop() {
    # Stop our pmcd by PID, then make sure its PMDAs exited too (pmcd
    # closes their pipes; each must exit on EOF).  Prints nothing when all
    # went well, a FAIL line when something had to be killed.
    # Bounds are generous (QA_STOP_WAIT, 60 s each): a PMDA saving its
    # state, or a sanitizer build checking for leaks, on a loaded machine.
    local pid=$QA_PMCD_PID agents rc=0 p bound=${QA_STOP_WAIT:-60}
    [ -n "$pid" ] || return 0
    agents="$QA_PMCD_AGENT_PIDS $(qa_children "$pid")"
    kill -TERM "$pid" 2>/dev/null
    qa_wait_until "$bound" "pmcd $pid exits" qa_pid_gone "$pid" >/dev/null
    if qa_pid_alive "$pid"; then
        qa_fail "pmcd $pid ignored SIGTERM; killed"
        kill -KILL "$pid" 2>/dev/null
        rc=1
    fi
    wait "$pid" 2>/dev/null
    for p in $agents; do
        qa_wait_until "$bound" "PMDA $p exits" qa_pid_gone "$p" >/dev/null
        if qa_pid_alive "$p"; then
            qa_fail "PMDA pid $p still running ${bound}s after pmcd stopped; killed"
            kill -KILL "$p" 2>/dev/null
            rc=1
        fi
    done
    qa_log "pmcd $pid stopped"
    # A sanitizer build reports into its log (stderr): UBSan carries on
    # and LeakSanitizer speaks only at exit, so look rather than hope
    # for a crash.
    for p in "$QA_PMCD_DIR"/log/staprelay*.log; do
        [ -f "$p" ] || continue
        if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$p"; then
            qa_fail "sanitizer report in the PMDA's log ($(basename "$p"), see $qa_full_name)"
            { echo "== $p (sanitizer)"; grep -E -A20 'Sanitizer|runtime error:' "$p"; } >> "$qa_full"
            sed -i -E 's/(ERROR: (Address|Leak)Sanitizer|runtime error:)/SEEN \1/' "$p"
            rc=1
        fi
    done
    for p in "$QA_PMCD_DIR"/log/valgrind.*.log; do
        [ -f "$p" ] || continue
        # valgrind 3.19 does not know openat2 (syscall 437): it says so in
        # five lines and fails the call with ENOSYS, and the PMDA then
        # opens untrusted files the way it does on kernels without openat2
        # (relay/confine.c).  A notice about valgrind, not about the PMDA.
        awk '/WARNING: unhandled amd64-linux syscall: 437$/ { skip = 5 }
             skip > 0 { skip--; next } { print }' "$p" > "$p.kept" && mv "$p.kept" "$p"
        [ -s "$p" ] || continue
        qa_fail "valgrind reported errors in the PMDA ($(basename "$p"), see $qa_full_name)"
        { echo "== $p"; cat "$p"; } >> "$qa_full"
        mv "$p" "$p.seen"
        rc=1
    done
    {
        echo "== pmcd.log"; cat "$QA_PMCD_LOG"
        for p in "$QA_PMCD_DIR"/log/*.log; do
            [ -f "$p" ] && { echo "== $p"; tail -100 "$p"; }
        done
    } >> "$qa_full" 2>/dev/null
    QA_PMCD_PID=
    QA_PMCD_AGENT_PIDS=
    return $rc
}

# ---- client tools aimed at the private pmcd --------------------------------
qa_pminfo()  { pminfo  -h "$QA_HOST" "$@"; }
qa_pmprobe() { pmprobe -h "$QA_HOST" "$@"; }
qa_pmval()   { pmval   -h "$QA_HOST" "$@"; }
qa_pmevent() { pmevent -h "$QA_HOST" "$@"; }
qa_pmstore() { pmstore -h "$QA_HOST" "$@"; }

qa_names() {
    # Leaf names under PREFIX..., sorted, for stable pminfo output order
    # (dynamic PMNS traversal order is the PMDA's business):
    #   qa_pminfo -dfmT $(qa_names staprelay.demo)
    qa_pminfo "$@" 2>/dev/null | LC_ALL=C sort
}

qa_value() {
    # Current value of METRIC, or of one instance with METRIC[INST] (INST is
    # the external name), as pminfo -f prints it; empty if none.
    local spec=$1 metric inst
    case "$spec" in
        *\[*\]) metric=${spec%%\[*}; inst=${spec#*\[}; inst=${inst%\]} ;;
        *) metric=$spec; inst= ;;
    esac
    qa_pminfo -f "$metric" 2>/dev/null | awk -v inst="$inst" '
        inst == "" && /^    value / { sub(/^    value /, ""); print; exit }
        inst != "" && /^    inst \[/ {
            line = $0
            # inst [N or "NAME"] value V
            s = index(line, " or \""); e = index(line, "\"] value ")
            if (s && e && substr(line, s + 5, e - s - 5) == inst) {
                print substr(line, e + 9); exit
            }
        }'
}

qa_now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

qa_deadline() {
    # Milliseconds clock value SECS (may be fractional) from now.
    echo $(( $(qa_now_ms) + $(awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }') ))
}

qa_wait_until() {
    # qa_wait_until SECS DESCRIPTION COMMAND [ARGS...]: run COMMAND every
    # 0.1 s until it succeeds.  On time-out prints one line and returns 1.
    local timeout=$1 what=$2 end
    shift 2
    end=$(qa_deadline "$timeout")
    until "$@" >/dev/null 2>&1; do
        if [ "$(qa_now_ms)" -ge "$end" ]; then
            echo "qa_wait_until: $what: not true after ${timeout}s"
            qa_log "wait until '$what' timed out"
            return 1
        fi
        sleep 0.1
    done
    return 0
}

qa_wait_value() {
    # qa_wait_value METRIC[INST] EXPECTED [TIMEOUT_SECONDS]
    # Poll until the value equals EXPECTED.  Strings: EXPECTED may be given
    # with or without pminfo's double quotes.  On time-out prints one
    # "qa_wait_value: ..." line (so a golden diff shows it) and returns 1.
    local spec=$1 want=$2 timeout=${3:-30} v end
    end=$(qa_deadline "$timeout")
    while :; do
        v=$(qa_value "$spec")
        if [ "$v" = "$want" ] || [ "$v" = "\"$want\"" ]; then
            qa_log "wait $spec = $want ok"
            return 0
        fi
        [ "$(qa_now_ms)" -lt "$end" ] || break
        sleep 0.1
    done
    echo "qa_wait_value: $spec: wanted $want, still ${v:-<no value>} after ${timeout}s"
    qa_log "wait $spec = $want timed out, last '$v'"
    return 1
}

qa_has_value() {
    [ "$(qa_pmprobe "$1" 2>/dev/null | awk '{print $2}')" -ge 1 ] 2>/dev/null
}

qa_wait_metric() {
    # qa_wait_metric METRIC [TIMEOUT]: wait until METRIC exists (dynamic
    # PMNS) and returns a value.
    local metric=$1 timeout=${2:-30}
    qa_wait_until "$timeout" "$metric has a value" qa_has_value "$metric" >/dev/null && return 0
    echo "qa_wait_metric: $metric: no value after ${timeout}s"
    qa_log "wait metric $metric timed out: $(qa_pmprobe "$metric" 2>&1)"
    return 1
}

qa_not_in_pmns() { ! qa_pminfo "$1" >/dev/null 2>&1; }

qa_wait_gone() {
    # qa_wait_gone METRIC [TIMEOUT]: wait until METRIC is no longer in the PMNS.
    local metric=$1 timeout=${2:-30}
    qa_wait_until "$timeout" "$metric gone" qa_not_in_pmns "$metric" >/dev/null && return 0
    echo "qa_wait_gone: $metric: still present after ${timeout}s"
    return 1
}

qa_no_values() { [ "$(qa_pmprobe "$1" 2>/dev/null | awk '{print $2}')" = 0 ]; }

qa_wait_vanished() {
    # qa_wait_vanished METRIC [TIMEOUT]: wait until METRIC is still in the
    # PMNS but has no values (an unloaded SystemTap module's metrics).
    local metric=$1 timeout=${2:-30}
    qa_wait_until "$timeout" "$metric without values" qa_no_values "$metric" >/dev/null && return 0
    echo "qa_wait_vanished: $metric: $(qa_pmprobe "$metric" 2>&1) after ${timeout}s"
    return 1
}

qa_pmlogger() {
    # qa_pmlogger ARCHIVE SAMPLES INTERVAL_MS METRIC...: record an archive from
    # the private pmcd (foreground, returns when done).  pmlogger's control
    # files go to the private PCP_TMP_DIR, its log next to the archive.
    local archive=$1 samples=$2 interval=$3
    shift 3
    {
        echo "log mandatory on every $interval msec {"
        printf '    %s\n' "$@"
        echo "}"
    } > "$archive.config"
    env PCP_TMP_DIR="$QA_PMCD_DIR/tmp" pmlogger -h "$QA_HOST" -c "$archive.config" \
        -s "$samples" -t "${interval}msec" -l "$archive.log" "$archive" >> "$qa_full" 2>&1 || {
        qa_fail "pmlogger $archive failed (see $qa_full_name)"
        cat "$archive.log" >> "$qa_full" 2>/dev/null
        return 1
    }
}

# ---- pmlogger of event records ---------------------------------------------
# A pmlogger ended by -T races a loaded machine: it can be gone before the
# records it is to hold were written.  These run it until the archive holds
# them.
qa_event_logger_start() {
    # qa_event_logger_start ARCHIVE STREAM METRIC...: pmlogger logs METRICs
    # every 500 ms from the private pmcd (in the background, QA_LOGGER_PID)
    # and this returns once the PMDA counts it as a reader of the event
    # stream STREAM ("profile.samples"): records written after that reach it.
    local archive=$1 stream=$2 config
    shift 2
    # pmlogger hands its config's path to pmcpp unquoted: the config lives
    # in the test's temp dir whatever the archive's name ("raw two")
    config=$(mktemp "$qa_tmp/pmlogger.XXXXXX") || return 1
    {
        echo "log mandatory on 500 msec {"
        printf '    %s\n' "$@"
        echo "}"
    } > "$config"
    env PCP_TMP_DIR="$QA_PMCD_DIR/tmp" pmlogger -h "$QA_HOST" -c "$config" \
        -T 1200sec -l "$archive.log" "$archive" >> "$qa_full" 2>&1 &
    QA_LOGGER_PID=$!
    qa_track_pid "$QA_LOGGER_PID"
    qa_wait_until 60 "pmlogger reads $stream" qa_event_readers "$stream" 1 ||
        { cat "$archive.log" >> "$qa_full" 2>/dev/null; return 1; }
}

qa_event_readers() {
    # qa_event_readers STREAM N: true when STREAM has at least N readers
    local v
    v=$(qa_value "staprelay.control.events.clients[$1]")
    [ "${v:-0}" -ge "$2" ]
}

qa_archive_records() {
    # qa_archive_records ARCHIVE METRIC: the event records of METRIC (a
    # .records metric) the archive holds so far
    pmevent -a "$1" "$2" 2>/dev/null | grep -c -- '--- event record \['
}

qa_event_logger_stop() {
    # qa_event_logger_stop ARCHIVE METRIC N: once the archive holds N records
    # of METRIC, pmlogger is stopped (SIGINT: it closes the archive) and
    # waited for.  Returns 1, with a line saying why, if they never come.
    # (N 0: once it has logged a sample of METRIC, empty or not)
    local archive=$1 metric=$2 n=$3 rc=0
    qa_wait_until 120 "$n records of $metric in $archive" \
        eval '[ "$(qa_archive_records "$archive" "$metric")" -ge "$n" ] &&
              pmdumplog "$archive" "$metric" 2>/dev/null | grep -q "^[0-9][0-9]:"' || rc=1
    kill -INT "$QA_LOGGER_PID" 2>/dev/null
    wait "$QA_LOGGER_PID" 2>/dev/null
    [ $rc = 0 ] || cat "$archive.log" >> "$qa_full" 2>/dev/null
    return $rc
}

# ---- dbpmda (no pmcd) ---------------------------------------------------------
qa_dbpmda() {
    # qa_dbpmda ROOTFILE < commands : run dbpmda with echoed commands in the
    # test's temp dir (PMDA logs land in the cwd) and with a private
    # PCP_VAR_DIR so pmdaCache files stay there too.
    local root=$1
    shift
    mkdir -p "$qa_tmp/dbpmda/var/config/pmda"
    ( cd "$qa_tmp/dbpmda" && PCP_VAR_DIR="$qa_tmp/dbpmda/var" dbpmda -n "$root" -ie "$@" 2>&1 )
}

qa_dbpmda_staprelay() {
    # qa_dbpmda_staprelay CONFIG < commands: dbpmda (no pmcd) with our PMDA
    # already opened as a pipe agent; state and log in $qa_tmp/dbpmda.
    # End the commands with "quit".  Filter with qa_filter_dbpmda.
    local conf=$1
    qa_have_staprelay || { qa_fail "$QA_STAPRELAY_BIN not built (run make)"; return 1; }
    mkdir -p "$qa_tmp/dbpmda/state"
    printf 'root {\n\tstaprelay\t%s:*:*\n}\n' "$QA_STAPRELAY_DOMAIN" > "$qa_tmp/dbpmda/root"
    {
        echo "open pipe $(qa_word_path "$QA_STAPRELAY_BIN" pmdastaprelay) -d $QA_STAPRELAY_DOMAIN -c $conf -s $qa_tmp/dbpmda/state -l $qa_tmp/dbpmda/staprelay.log"
        cat
    } | qa_dbpmda "$qa_tmp/dbpmda/root"
}

# ---- filters ---------------------------------------------------------------------
qa_filter_paths() {
    # Temp and source paths, so outputs do not depend on where we ran.
    # (qa_word_path's links first: they stand for the path they link to)
    sed -e "s|$qa_tmp/words/pmdastaprelay|$QA_STAPRELAY_BIN|g" \
        -e "s|$qa_tmp/words/valgrind.supp|$QA_DIR/lib/valgrind.supp|g" \
        -e "s|$qa_tmp|TMP|g" -e "s|$QA_SRC|SRC|g" \
        -e "s|$QA_SYS_PMDAS_DIR|PMDAS|g" -e "s|$QA_SYS_VAR_DIR|VAR|g"
}

qa_filter_host() {
    # host:port of the private pmcd, and this machine's name where it stands
    # as a word of its own (not inside a dotted metric name).  A bare port
    # number is left alone: it could equal a metric value.
    local h
    h=$(hostname 2>/dev/null)
    sed -E -e "s/(localhost|127\.0\.0\.1|\[::1\]):${QA_PMCD_PORT:-NOPORT}\b/HOST/g" \
        ${h:+-e "s/(^|[[:space:]\"'(])$h([[:space:]\"'):,]|\$)/\1HOSTNAME\2/g"}
}

qa_filter_time() {
    # Dates, clock times, and pminfo's event-record timestamps.
    sed -E \
        -e 's/(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +[0-9]+ [0-9:]+ [0-9]{4}/DATE/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?/DATETIME/g' \
        -e 's/\b[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?\b/TIME/g'
}

qa_filter_pids() {
    # Known pids of this test (pmcd, PMDAs, ourselves).
    local p args=()
    for p in $QA_PMCD_PID $QA_PMCD_AGENT_PIDS $$; do
        args+=(-e "s/\\b$p\\b/PID/g")
    done
    [ ${#args[@]} -eq 0 ] && cat || sed "${args[@]}"
}

qa_filter() {
    # Paths, host, times.  PMIDs, values and instance ids are kept; pids are
    # not replaced here (a value could equal a pid): add qa_filter_pids to a
    # pipeline that shows log lines.
    qa_filter_paths | qa_filter_host | qa_filter_time
}

qa_filter_log() {
    # PCP log lines: "[Sun Nov 29 21:52:12] pmdafoo(1234) Info: msg" ->
    # "pmdafoo Info: msg"; also paths and times.
    sed -E -e 's/^\[[A-Z][a-z]{2} [A-Z][a-z]{2} +[0-9]+ [0-9:]+\] ([^(]+)\([0-9]+\) /\1 /' | qa_filter
}

qa_filter_dbpmda() {
    # dbpmda noise: result addresses, timing lines.
    qa_filter | qa_filter_pids | sed -E -e 's/__pmResult dump from 0x[0-9a-f]+/__pmResult dump from ADDR/' \
        -e 's/(dump from|pmResult) 0x[0-9a-f]+/\1 ADDR/' \
        -e '/^Timer: /d' -e 's/timestamp: [0-9]+\.[0-9]+/timestamp: TIMESTAMP/'
}
