#!/bin/sh
# stap/kbuild.sh - the kernel build tree and SystemTap runtime that stap
# needs on this machine.  Shared by stap/check.sh and `staprelay run`
# (client/run/backend_stap.c), so both build against the same tree with the same
# runtime fix.
#
#   stap/kbuild.sh [--headers] CACHE
#
# Prints one line, tab-separated:  RELEASE  TREE  RUNTIME
#   TREE     the argument for `stap -r`; "-" when stap's default tree
#            (/lib/modules/$(uname -r)/build) will do
#   RUNTIME  the argument for `stap -R`; "-" when the stock runtime will do
# Exit status 1 (with a reason on stderr) when there is no usable tree.
#
# Which tree
#   default    the running kernel's own /lib/modules/RELEASE/build when it
#              has a .config and a System.map (what a module that is to be
#              loaded must be built against); else the tree below
#   --headers  always the newest Debian headers package
#              (/usr/src/linux-headers-*-amd64|arm64), as CACHE/kbuild-REL:
#              the headers as symlinks plus a System.map of the running
#              kernel from /proc/kallsyms (stap's BPF backend refuses
#              tracepoints without one)
#
# The runtime fixes (each only when the tree needs it and the stock
# runtime lacks it; when one does, a copy of the runtime with them is made
# in CACHE/runtime, remade when the stock runtime or the fixes change, and
# printed as RUNTIME)
#   task_work  Debian's 6.1 headers carry the backported
#              task_work_cancel_func() API; systemtap < 5.2 does not know
#              it (upstream fix a64dc4e2e) and pass 4 fails in
#              runtime/stp_task_work.c for every script.  Needed when the
#              tree's include/linux/task_work.h declares
#              task_work_cancel_func and the stock runtime does not mention
#              it: a two-line fix of stp_task_work.c.
#   uaccess    Linux 5.18 removed user_addr_max(), and systemtap 4.8's
#              lookup_bad_addr_user() (linux/addr-map.c) then refuses every
#              user address it is asked for outside task context: a user
#              stack unwound in an interrupt (profile's samples, hotcold's)
#              stopped at its leaf, the frame the registers give (vm 010,
#              080).  Needed when that file tests defined(user_addr_max)
#              and the tree defines none: the copy defines it as
#              TASK_SIZE_MAX, the range check it made before 5.18.
#
# Paths the kernel's build system is given (TREE, RUNTIME) cannot hold a
# space (fixdep splits its dependency lists at them: "fixdep: error
# opening file: /tmp/my") nor make's ':', '#', '$', ',', '=': when CACHE's
# path holds one (a checkout in "/tmp/my dir"), the tree and the runtime
# copy go to ~/.cache/staprelay/kbuild of the user instead (the home from
# the password database, not $HOME: the test VM, HOME=/root, must name the
# same paths, which are part of a module's cache key); a home whose path
# has them too is an error that says so.
#
# STAPRELAY_KB_RELEASE=REL: build for kernel REL instead of the running one
# (a module prebuilt here to be loaded elsewhere, e.g. qa/vm/ prebuilds for
# the VM's kernel): its own /lib/modules/REL/build and /boot/System.map-REL
# are required (no fallback to other headers: a module built against a
# System.map of another kernel would symbolise with the wrong symbols),
# and TREE is printed as REL.
#
# STAPRELAY_KB_ROOT (tests): a directory standing in for / when looking at
# /usr/src, /lib/modules, /boot, /proc and /usr/share/systemtap/runtime.
set -u

mode=native
if [ "${1:-}" = "--headers" ]; then mode=headers; shift; fi
[ $# -eq 1 ] || { echo "usage: stap/kbuild.sh [--headers] CACHE" >&2; exit 2; }
cache=$1
R=${STAPRELAY_KB_ROOT:-}

r=$(cat "$R/proc/sys/kernel/osrelease" 2>/dev/null || uname -r)
target=${STAPRELAY_KB_RELEASE:-}
if [ -n "$target" ]; then
    if [ $mode = headers ]; then
        echo "stap/kbuild.sh: --headers and STAPRELAY_KB_RELEASE exclude each other" >&2
        exit 2
    fi
    r=$target
fi
mods=$R/lib/modules

kbsafe() { case $1 in ''|*[!A-Za-z0-9_./+-]*) return 1 ;; esac; return 0; }
kbdir() {   # where TREE and RUNTIME go (see above)
    if kbsafe "$cache"; then echo "$cache"; return 0; fi
    # (with STAPRELAY_KB_ROOT, the fake root's passwd and home)
    if [ -n "$R" ]; then
        home=$(awk -F: -v u="$(id -u)" '$3 == u {print $6; exit}' "$R/etc/passwd" 2>/dev/null)
    else
        home=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)
    fi
    if [ -n "$home" ] && kbsafe "$R$home/.cache/staprelay/kbuild"; then
        echo "$R$home/.cache/staprelay/kbuild"
        return 0
    fi
    echo "stap/kbuild.sh: the kernel's build system cannot take a path like '$cache'" \
         "(a space or one of : # \$ , =) and the home directory '$home' has one too:" \
         "set STAPRELAY_CACHE to a path of letters, digits and _ . / + -" >&2
    return 1
}
stock=$R/usr/share/systemtap/runtime

# ---- the tree
tree=-
rel=$r
native=$mods/$r/build
if [ $mode = native ] && [ -f "$native/.config" ] &&
   { [ -f "$native/System.map" ] || [ -f "$R/boot/System.map-$r" ]; }; then
    hdr=$native
    src=$(readlink -f "$mods/$r/source" 2>/dev/null || echo "$native")
    [ -n "$target" ] && tree=$r
elif [ -n "$target" ]; then
    echo "stap/kbuild.sh: no build tree for kernel $target: $native/.config and" \
         "/boot/System.map-$target (apt-get install linux-headers-$target" \
         "linux-image-$target)" >&2
    exit 1
else
    hdr=$(ls -d "$R"/usr/src/linux-headers-*-amd64 "$R"/usr/src/linux-headers-*-arm64 2>/dev/null |
          sort -V | tail -1)
    if [ -z "$hdr" ]; then
        echo "stap/kbuild.sh: no kernel build tree ($native) and no" \
             "/usr/src/linux-headers-*: apt-get install linux-headers-amd64" >&2
        exit 1
    fi
    rel=${hdr##*/linux-headers-}
    src=${hdr%-*}-common
    [ -d "$src" ] || src=$(readlink -f "$mods/$rel/source" 2>/dev/null || echo "$hdr")
    kb=$(kbdir) || exit 1
    tree=$kb/kbuild-$rel
    if [ ! -f "$tree/.staprelay-ok" ]; then
        mkdir -p "$kb" || exit 1
        tmp=$tree.tmp.$$
        rm -rf "$tmp"
        mkdir -p "$tmp" || exit 1
        cp -as "$hdr/." "$tmp/" 2>/dev/null
        # relative symlinks in the headers package would dangle in the copy
        for l in "$hdr"/*; do
            [ -L "$l" ] && ln -sfn "$(readlink -f "$l")" "$tmp/$(basename "$l")"
        done
        ln -sfn "$src" "$tmp/source"
        awk '{print $1, $2, $3}' "$R/proc/kallsyms" >"$tmp/System.map" 2>/dev/null ||
            : >"$tmp/System.map"
        touch "$tmp/.staprelay-ok"
        rm -rf "$tree"
        mv -T "$tmp" "$tree" 2>/dev/null || rm -rf "$tmp"   # another run won the race
    fi
fi

# ---- the runtime
runtime=-
needs_task_work() {
    for h in "$src/include/linux/task_work.h" "$hdr/include/linux/task_work.h"; do
        grep -q task_work_cancel_func "$h" 2>/dev/null && return 0
    done
    return 1
}
needs_uaccess() {
    grep -q 'defined(user_addr_max)' "$stock/linux/addr-map.c" 2>/dev/null || return 1
    for h in "$src" "$hdr"; do
        grep -qs 'define user_addr_max' "$h/include/linux/uaccess.h" \
            "$h"/arch/*/include/asm/uaccess*.h && return 1
    done
    return 0
}
fixes=
if needs_task_work && ! grep -q task_work_cancel_func "$stock/stp_task_work.c" 2>/dev/null; then
    fixes="task_work"
fi
needs_uaccess && fixes="$fixes uaccess"
if [ -n "$fixes" ]; then
    kb=$(kbdir) || exit 1
    rt=$kb/runtime
    # The copy is remade when the stock runtime changes (a systemtap
    # upgrade): its stamp is the stock files' sizes and times, which cost
    # no program run (dpkg-query takes seconds in the test VM), and the
    # fixes it has.
    stamp=$(ls -ln --time-style=+%s "$stock/stp_task_work.c" "$stock/runtime.h" \
                "$stock/linux/addr-map.c" 2>/dev/null | awk '{printf "%s:%s ", $5, $6}')
    ver=$stamp
    stamp="$stamp fixes:$fixes"
    if [ "$(cat "$rt/.staprelay-stamp" 2>/dev/null)" != "$stamp" ]; then
        mkdir -p "$kb" || exit 1
        tmp=$rt.tmp.$$
        rm -rf "$tmp"
        cp -a "$stock" "$tmp" || { echo "stap/kbuild.sh: cannot copy $stock" >&2; exit 1; }
        case $fixes in *task_work*)
            sed -i -e 's/typedef typeof(&task_work_cancel) task_work_cancel_fn;/typedef typeof(\&task_work_cancel_func) task_work_cancel_fn;/' \
                   -e 's/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
                   "$tmp/stp_task_work.c"
            if ! grep -q 'typeof(&task_work_cancel_func)' "$tmp/stp_task_work.c"; then
                rm -rf "$tmp"
                echo "stap/kbuild.sh: $hdr needs the task_work_cancel_func fix, but" \
                     "$stock/stp_task_work.c is not the text it applies to (systemtap" \
                     "$ver): upgrade systemtap to 5.2 or later" >&2
                exit 1
            fi ;;
        esac
        case $fixes in *uaccess*)
            sed -i '0,/^#include <linux\/uaccess.h>/s//&\
\/* stap\/kbuild.sh: Linux 5.18 removed user_addr_max() *\/\
#if !defined(user_addr_max) \&\& defined(TASK_SIZE_MAX)\
#define user_addr_max() TASK_SIZE_MAX\
#endif/' "$tmp/linux/addr-map.c"
            if ! grep -q '^#define user_addr_max() TASK_SIZE_MAX' "$tmp/linux/addr-map.c"; then
                rm -rf "$tmp"
                echo "stap/kbuild.sh: $hdr needs the user_addr_max fix, but" \
                     "$stock/linux/addr-map.c has no #include <linux/uaccess.h> to put it" \
                     "after (systemtap $ver)" >&2
                exit 1
            fi ;;
        esac
        echo "$stamp" >"$tmp/.staprelay-stamp"
        rm -rf "$rt"
        mv -T "$tmp" "$rt" 2>/dev/null || rm -rf "$tmp"
    fi
    runtime=$rt
fi

printf '%s\t%s\t%s\n' "$rel" "$tree" "$runtime"
