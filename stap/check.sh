#!/bin/sh
# stap/check.sh - check the staprelay tapset and bundled SystemTap scripts.
#
#   stap/check.sh [-k] [name...]      (run from anywhere; root to install)
#
# What it does
#   * installs systemtap and linux-headers-amd64 when missing (as root)
#   * unit-tests the tapset's JSON escaper (the embedded C, built with cc)
#     and validates every fixture in stap/fixtures with python3 json.tool
#   * `stap -p4` (kernel-module runtime) of every stap/*.stp and
#     stap/tests/*.stp against Debian's packaged headers (newest
#     /usr/src/linux-headers-*-amd64), through a private copy of the
#     runtime with the stp_task_work.c fix when those headers need it
#   * `stap --runtime=bpf -p4` of every stap/bpf/*.stp and, where BPF can be
#     loaded here, a short live run whose metadata.json/data.json must be
#     valid JSON
#   One line per check: `PASS name`, `FAIL name: reason` or `SKIP name:
#   reason` (part of a check could not run here: a live BPF run without
#   root, or refused by the kernel), then `stap: N passed, N failed,
#   N skipped`; exit status 1 when anything failed.  A skipped check is
#   never counted as passed.
#
# Caches (under $STAPRELAY_BUILD, default build/, so repeated runs are fast):
#   build/stapcache/home      SYSTEMTAP_DIR (tracequery + module cache)
#   build/stapcache/runtime   patched runtime copy (when needed)
#   build/stapcache/kbuild-R  Debian headers (symlinks) + System.map from
#                             /proc/kallsyms (BPF tracepoints need it)
#   (both made by stap/kbuild.sh, which `staprelay run` uses too)
#   build/stapcache/bo        BPF builds by content hash (stap has no cache
#                             for them)
#   -k copies the modules to build/stapcache/out/*.ko|*.bo.
#
# Environment: STAPRELAY_STAP_LIVE=0 skips the live BPF runs;
#   STAPRELAY_STAP_TIMEOUT (s, default 900) bounds each stap run.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${STAPRELAY_BUILD:-$root/build}
cache=$build/stapcache
out=$cache/out
keep=0
if [ "${1:-}" = "-k" ]; then keep=1; shift; fi
only="$*"
tmo=${STAPRELAY_STAP_TIMEOUT:-900}

npass=0
nfail=0
nskip=0
pass() { echo "PASS $1"; npass=$((npass + 1)); }
fail() { echo "FAIL $1: $2"; nfail=$((nfail + 1)); }
skip() { echo "SKIP $1: $2"; nskip=$((nskip + 1)); }
finish() {
    # same shape as qa/run's summary; scripts/check.sh adds up only the
    # first two numbers, so a skip is neither a pass nor a failure
    echo "stap: $npass passed, $nfail failed, $nskip skipped"
    [ "$nfail" -eq 0 ]
    exit $?
}
wanted() {  # wanted NAME: selected on the command line (or no selection)
    [ -z "$only" ] && return 0
    for w in $only; do [ "$w" = "$1" ] && return 0; done
    return 1
}
# First line of stap's error output that says what went wrong.
reason() {
    r=$(grep -v -e '^WARNING' -e '^Tip:' -e '^Pass [0-9]: .*failed' -e '^Number of similar' \
              -e '^Rerun with' -e '^ *source:' -e '^ *\^' -e '^$' "$1" | head -1)
    [ -n "$r" ] || r=$(grep -v '^WARNING' "$1" | head -1)
    printf '%s' "${r:-unknown error}" | cut -c1-300
}

mkdir -p "$cache" "$out"

# ---------------------------------------------------------------- packages
need=""
for p in systemtap linux-headers-amd64; do
    st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    case "$st" in ii*) ;; *) need="$need $p" ;; esac
done
if [ -n "$need" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "stap: installing:$need"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -q --no-install-recommends $need; } \
            >"$cache/apt.log" 2>&1 || { fail packages "apt-get install$need failed (see $cache/apt.log)"; finish; }
    else
        fail packages "missing$need (run as root, or apt-get install them)"
        finish
    fi
fi
for t in stap stapbpf cc python3; do
    command -v "$t" >/dev/null 2>&1 || { fail tools "$t not found"; finish; }
done

# ---------------------------------------------------- escaper unit test
if wanted escape; then
    sed -n '/SRL_ESCAPE_BEGIN/,/SRL_ESCAPE_END/p' "$here/tapset/staprelay.stp" >"$cache/escape_body.h"
    if cc -O1 -Wall -Werror -DMAXSTRINGLEN=512 -I"$cache" -o "$cache/escape_test" \
          "$here/tests/escape_test.c" >"$cache/escape_cc.log" 2>&1; then
        if python3 "$here/tests/escape_test.py" "$cache/escape_test" >"$cache/escape.log" 2>&1; then
            pass escape
        else
            fail escape "$(tail -1 "$cache/escape.log")"
        fi
    else
        fail escape "cc: $(head -1 "$cache/escape_cc.log")"
    fi
fi

# ---------------------------------------------------------------- fixtures
if wanted fixtures; then
    bad=""
    n=0
    for f in "$here"/fixtures/*/*.json; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        python3 -m json.tool "$f" >/dev/null 2>&1 || bad="$bad ${f#$here/}"
    done
    if [ -n "$bad" ]; then fail fixtures "invalid JSON:$bad"
    elif [ "$n" -eq 0 ]; then fail fixtures "no fixtures found"
    elif ! python3 "$here/tests/fixtures.py" --check >"$cache/fixtures.log" 2>&1; then
        fail fixtures "$(head -1 "$cache/fixtures.log")"
    else pass "fixtures ($n files, match tests/fixtures.py)"; fi
fi
# The model against the real kernel: stap/fixtures/real-*/ were captured
# in the VM (qa/vm/run --capture); the model must write them byte for byte.
if wanted fixtures-real; then
    if python3 "$here/tests/fixtures.py" --check-real >"$cache/fixtures-real.log" 2>&1; then
        pass "fixtures-real ($(tail -1 "$cache/fixtures-real.log" | sed 's/^fixtures: //'))"
    else
        fail fixtures-real "$(head -1 "$cache/fixtures-real.log")"
    fi
fi

# ------------------------------------------------------ headers + runtime
# stap/kbuild.sh (shared with `staprelay run`): a build tree made of
# symlinks to Debian's newest headers plus a System.map of the running
# kernel (without it stap's BPF backend refuses tracepoints: "new BPF
# TRACEPOINT behavior not supported by target kernel"); the kernel runtime
# uses the same tree so both share one tracequery cache.  And, only when
# those headers need it, a private runtime copy with the
# task_work_cancel_func fix (systemtap < 5.2) for -R.
if ! kb=$(sh "$here/kbuild.sh" --headers "$cache" 2>"$cache/kbuild.log"); then
    fail headers "$(head -1 "$cache/kbuild.log")"
    finish
fi
rel=$(printf '%s' "$kb" | cut -f1)
tree=$(printf '%s' "$kb" | cut -f2)
rt=$(printf '%s' "$kb" | cut -f3)
rtopt=""
[ "$rt" = - ] || rtopt="-R $rt"
export SYSTEMTAP_DIR=$cache/home
mkdir -p "$SYSTEMTAP_DIR"

# ------------------------------------------------- kernel runtime, pass 4
# Against the headers' own kernel when its image is installed (make deps
# installs it for qa/vm/): /lib/modules/REL/build with /boot/System.map-REL,
# the tree qa/vm/run builds the VM's modules with, so the two share stap's
# tracepoint-query cache; else the symlinked tree above.
ktree=$tree
if knat=$(STAPRELAY_KB_RELEASE=$rel sh "$here/kbuild.sh" "$cache" 2>/dev/null); then
    ktree=$(printf '%s' "$knat" | cut -f2)
fi
for s in "$here"/*.stp "$here"/tests/*.stp; do
    [ -e "$s" ] || continue
    name=${s#$here/}
    name=${name%.stp}
    wanted "$name" || continue
    mod=$(echo "$name" | tr '/-' '__')
    log=$out/$mod.log
    # No -m: stap only caches modules it names itself (stap_HASH); with the
    # cache an unchanged script is a hit.  -p4 prints the cached .ko path.
    if (cd "$out" && timeout "$tmo" stap -r "$ktree" $rtopt -I "$here/tapset" -p4 "$s") \
           >"$log" 2>&1 && ko=$(grep '\.ko$' "$log" | tail -1) && [ -f "$ko" ]; then
        pass "$name"
        [ "$keep" = 1 ] && cp "$ko" "$out/$mod.ko"
    else
        fail "$name" "$(reason "$log")"
    fi
done

# ------------------------------------------------------------ BPF runtime
shim=""
if [ "${STAPRELAY_STAP_LIVE:-1}" != 0 ] && [ "$(id -u)" = 0 ]; then
    if cc -shared -fPIC -O2 -o "$cache/memlock_shim.so" "$here/memlock_shim.c" -ldl \
           >"$cache/shim.log" 2>&1; then
        shim=$cache/memlock_shim.so
    fi
fi
# ld.so splits LD_PRELOAD at blanks and colons: a cache under such a path
# (a checkout in "/tmp/a b/") is reached through a link in a fresh
# directory of /tmp, removed on the way out (as staprelay run does:
# client/run/backend_stap.c, shim_preloadable)
case $shim in
    *[[:space:]:]*)
        shim_dir=$(mktemp -d /tmp/staprelay-shim.XXXXXX) &&
            ln -s "$shim" "$shim_dir/memlock_shim.so" && shim=$shim_dir/memlock_shim.so ||
            shim=""
        trap 'rm -rf "$shim_dir"' EXIT ;;
esac
for s in "$here"/bpf/*.stp; do
    [ -e "$s" ] || continue
    name=bpf/$(basename "$s" .stp)
    wanted "$name" || continue
    mod=staprelay_b$(basename "$s" .stp | tr '-' '_')
    log=$out/$mod.log
    rm -f "$out/$mod.bo"
    # stap does not cache BPF builds, and their pass 2 re-runs the
    # tracepoint queries (~45 s): keep our own cache keyed by the inputs
    # (the same key as client/run/backend_stap.c's, so either reuses the other's).
    key=$( { cat "$s"; stap -V 2>&1 | head -1; echo "$rel $mod"; } | sha256sum | cut -c1-24)
    mkdir -p "$cache/bo"
    if [ -f "$cache/bo/$key.bo" ]; then
        cp "$cache/bo/$key.bo" "$out/$mod.bo"
        how="p4 cached"
    elif (cd "$out" && timeout "$tmo" stap --runtime=bpf -r "$tree" -p4 -m "$mod" "$s") \
             >"$log" 2>&1 && [ -f "$out/$mod.bo" ]; then
        cp "$out/$mod.bo" "$cache/bo/$key.bo"
        how="p4"
    else
        fail "$name" "$(reason "$log")"
        continue
    fi
    if [ -z "$shim" ]; then
        # only built: the live half of the check did not run
        if [ "${STAPRELAY_STAP_LIVE:-1}" = 0 ]; then why="STAPRELAY_STAP_LIVE=0"
        elif [ "$(id -u)" != 0 ]; then why="not root"
        else why="cannot build the memlock shim: $(head -1 "$cache/shim.log" | cut -c1-200)"; fi
        skip "$name" "$how ok; live run not done ($why)"
        continue
    fi
    # Live: load it, let it collect for 2 s, read both FIFOs, unload.
    fifo=/var/tmp/systemtap-$(id -un)/$mod
    sh "$here/bpf-leftovers.sh" "$fifo" "$mod"
    LD_PRELOAD=$shim stapbpf "$out/$mod.bo" >"$out/$mod.run" 2>&1 &
    pid=$!
    i=0
    while [ ! -p "$fifo/data.json" ] && [ $i -lt 50 ] && kill -0 $pid 2>/dev/null; do
        sleep 0.1; i=$((i + 1))
    done
    if [ ! -p "$fifo/data.json" ]; then
        kill $pid 2>/dev/null; wait $pid 2>/dev/null
        r=$(grep -v '^WARNING' "$out/$mod.run" | head -1 | cut -c1-200)
        case "$r" in
            *"Operation not permitted"*|*"ermission denied"*)
                skip "$name" "$how ok; live run refused by the kernel: $r" ;;
            *) fail "$name" "live: ${r:-stapbpf did not create $fifo}" ;;
        esac
        continue
    fi
    sleep 2
    ok=1
    for f in metadata.json data.json; do
        if ! timeout 10 cat "$fifo/$f" >"$out/$mod.$f" 2>/dev/null ||
           ! python3 -m json.tool "$out/$mod.$f" >/dev/null 2>&1; then
            ok=0; bad=$f
        fi
    done
    kill -INT $pid 2>/dev/null
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
    if [ $ok = 1 ]; then pass "$name ($how + live)"; else fail "$name" "live: $bad is not valid JSON"; fi
    [ "$keep" = 1 ] || rm -f "$out/$mod.bo"
done

# ------------------------------------------------------- histogram buckets
# The tapset's bucket code run for real (its C with cc, its script
# functions under stapbpf) against SystemTap's runtime and fixtures.py;
# the fixtures step above ran without the BPF half (no tree yet).
if wanted histograms; then
    if [ -n "$shim" ]; then
        set -- --bpf-tree "$tree" --shim "$shim"
    else
        set -- --no-bpf
    fi
    python3 "$here/tests/hist_test.py" --cache "$cache/hist" "$@" >"$cache/hist.log" 2>&1
    while read -r verdict what rest; do
        case "$verdict" in
            PASS) pass "$what $rest" ;;
            SKIP) skip "${what%:}" "$rest" ;;
            FAIL) fail "${what%:}" "$rest" ;;
        esac
    done < "$cache/hist.log"
    grep -q '^PASS\|^FAIL\|^SKIP' "$cache/hist.log" || fail histograms "$(head -1 "$cache/hist.log")"
fi

finish
