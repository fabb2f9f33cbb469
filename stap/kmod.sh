#!/bin/sh
# stap/kmod.sh - the kernel module of a bundled script, built once and
# cached.  Used by `staprelay run` (client/run/backend_stap.c) for the kernel
# runtime, and by qa/vm/ to prebuild on the host what the VM will load.
#
#   stap/kmod.sh CACHE NAME SCRIPT [-d BINARY]... [-- SCRIPT_ARGS...]
#
# Prints the path of the module, CACHE/ko/KEY/NAME.ko (its procfs files
# are /proc/systemtap/NAME), building it first when the cache has no
# module for KEY.  Load it with `staprun [-x PID | -c CMD] NAME.ko
# [global=value...]`: the target process and -G globals are load-time
# parameters, so they are not part of the build.
#
# The build:
#   stap -r REL|TREE [-R RUNTIME] -p4 -m NAME -I DIR/tapset OPTIONS
#        [-d BINARY... --ldd] SCRIPT [SCRIPT_ARGS]
#   REL, TREE, RUNTIME from stap/kbuild.sh (the kernel to build for: the
#   running one, or $STAPRELAY_KB_RELEASE; -r is always given, so a module
#   prebuilt elsewhere with STAPRELAY_KB_RELEASE=REL has the same key as
#   one built on REL itself); OPTIONS below; -d BINARY embeds that
#   program's (and with --ldd its libraries') symbols, so user frames of
#   it are named.  stap itself does not cache modules built with -m.
#
# The cache key (KEY, 32 hex digits) is the SHA-256 of everything the
# module is made of:
#   * this file (it holds OPTIONS) and the stap binary's size and time;
#   * the kernel: release, build tree, the tree's .config and the
#     System.map stap reads symbols from (TREE/System.map or
#     /boot/System.map-REL);
#   * the runtime: stock, or the patched copy's stamp (systemtap version)
#     and its patched files (stp_task_work.c, linux/addr-map.c);
#   * the script, every file of the tapset directory, NAME, SCRIPT_ARGS
#     (e.g. profile's HZ, compiled in as $1), and each BINARY's content.
# Anything else that changes the module (a new stap, other headers, an
# edited tapset) changes the key; old entries are never used again and can
# be deleted (rm -rf CACHE/ko).
#
# Environment: STAPRELAY_KB_RELEASE (see stap/kbuild.sh);
# STAPRELAY_KMOD_DEFINES (below); SYSTEMTAP_DIR defaults to CACHE/home
# (stap's tracepoint-query and autoconf caches).
# Exit status 1 with stap's error output on stderr when the build fails.
set -u

usage() { echo "usage: stap/kmod.sh CACHE NAME SCRIPT [-d BINARY]... [-- SCRIPT_ARGS...]" >&2; exit 2; }
[ $# -ge 3 ] || usage
cache=$1
name=$2
script=$3
shift 3
# the -d binaries, one a line (a path may hold spaces; one with a newline
# is refused)
nl='
'
dbins=""
while [ $# -gt 0 ]; do
    case $1 in
        -d) [ $# -ge 2 ] || usage
            case $2 in *"$nl"*) echo "stap/kmod.sh: -d: a path with a newline" >&2; exit 2 ;; esac
            dbins="$dbins$2$nl"; shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
# script arguments are single words (profile's HZ): they are re-split below
sargs=""
for a in "$@"; do
    case $a in
        ''|*[!A-Za-z0-9_.,=+-]*) echo "stap/kmod.sh: bad script argument '$a'" >&2; exit 2 ;;
    esac
    sargs="$sargs $a"
done
here=$(cd "$(dirname "$0")" && pwd)
tapset=$here/tapset
[ -r "$script" ] || { echo "stap/kmod.sh: cannot read $script" >&2; exit 1; }
# absolute paths: stap runs in a scratch directory, and they are part of
# the key (a module is the same whoever's working directory asked)
script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
mkdir -p "$cache" || exit 1
cache=$(cd "$cache" && pwd)

# Build options of every bundled script (see stap/README.md, Limits):
#   MAXSKIPPED      probes skipped on lock contention (and under TCG) are
#                   counted, not fatal (default 100 ends the session)
#   MAXACTION_INTERRUPTIBLE  the statement budget of a procfs read: the
#                   tapset stops writing items when the budget runs low
#                   and counts them in "omitted"; 100000 lets a read write
#                   hundreds of array rows and histograms
#   MAXMAPENTRIES   rows/keys per map (the scripts bound theirs below it)
OPTIONS="-DMAXSKIPPED=100000 -DMAXACTION_INTERRUPTIBLE=100000 -DMAXMAPENTRIES=2048"
# $STAPRELAY_KMOD_DEFINES adds -DNAME[=VALUE] words (part of the key):
# qa/vm/ adds -DSTP_NO_OVERLOAD, because under qemu's TCG the kernel runs
# many times slower than the user-space loads, which inflates the share
# of time spent in probes that stap's overload check measures.
for d in ${STAPRELAY_KMOD_DEFINES:-}; do
    case $d in
        -D[A-Za-z_]*) OPTIONS="$OPTIONS $d" ;;
        *) echo "stap/kmod.sh: STAPRELAY_KMOD_DEFINES takes -DNAME[=VALUE] words, not '$d'" >&2; exit 2 ;;
    esac
done

kb=$(sh "$here/kbuild.sh" "$cache") || exit 1
rel=$(printf '%s' "$kb" | cut -f1)
tree=$(printf '%s' "$kb" | cut -f2)
rt=$(printf '%s' "$kb" | cut -f3)
[ "$tree" = - ] && tree=$rel
R=${STAPRELAY_KB_ROOT:-}     # tests: a fake / (see stap/kbuild.sh)
case $tree in
    /*) bdir=$tree ;;
    *) bdir=$R/lib/modules/$tree/build ;;
esac
smap=$bdir/System.map
[ -f "$smap" ] || smap=$R/boot/System.map-$rel

set -- -r "$tree"
[ "$rt" = - ] || set -- "$@" -R "$rt"
set -- "$@" -p4 -m "$name" -I "$tapset" $OPTIONS
# (split at newlines only, no globbing)
set -f; IFS=$nl
for b in $dbins; do set -- "$@" -d "$b"; done
IFS=' 	
'; set +f
[ -n "$dbins" ] && set -- "$@" --ldd
# shellcheck disable=SC2086
set -- "$@" "$script" $sargs
stap_bin=$(command -v stap) || { echo "stap/kmod.sh: stap is not installed" >&2; exit 1; }
key=$( {
    echo "kmod key v1"
    cat "$here/kmod.sh"
    # the translator: its size and time (running stap -V takes seconds in
    # the test VM)
    ls -lnL --time-style=+%s "$stap_bin" | awk '{print $5, $6}'
    echo "$rel|$tree|$rt|$name"
    cksum <"$bdir/.config" 2>/dev/null
    cksum <"$smap" 2>/dev/null
    if [ "$rt" != - ]; then cat "$rt/.staprelay-stamp" "$rt/stp_task_work.c" "$rt/linux/addr-map.c" 2>/dev/null; fi
    cat "$script"
    for f in "$tapset"/*; do echo "$f"; cat "$f"; done
    set -f; IFS=$nl
    for b in $dbins; do echo "$b"; cat "$b"; done
    IFS=' 	
'; set +f
    printf '%s\n' "$@"
} | sha256sum | cut -c1-32)
dir=$cache/ko/$key
ko=$dir/$name.ko
if [ -f "$ko" ]; then
    echo "stap/kmod.sh: using the cached build $ko" >&2
    echo "$ko"
    exit 0
fi
mkdir -p "$cache/ko" || exit 1
tmp=$(mktemp -d "$cache/ko/build.XXXXXX") || exit 1
export SYSTEMTAP_DIR=${SYSTEMTAP_DIR:-$cache/home}
mkdir -p "$SYSTEMTAP_DIR"
echo "stap/kmod.sh: building: stap $*" >&2
printf '%s\n' "stap $*" >"$tmp/argv"
if (cd "$tmp" && stap "$@") >"$tmp/build.log" 2>&1 && [ -f "$tmp/$name.ko" ]; then
    rm -rf "$dir"
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"   # another build won the race
    [ -f "$ko" ] || { echo "stap/kmod.sh: $ko vanished" >&2; exit 1; }
    echo "$ko"
    exit 0
fi
grep -v -e '^WARNING: Kernel function symbol table missing' "$tmp/build.log" >&2
rm -rf "$tmp"
echo "stap/kmod.sh: building $script failed" >&2
exit 1
