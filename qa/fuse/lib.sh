# qa/fuse/lib.sh -- sourced by the stapfs qa tests (qa/075..079) and
# bench/stap/run, after qa/lib/common.sh.
#
# stapfs (qa/fuse/stapfs.c) serves SCRIPT as SystemTap's kernel-runtime
# procfs.  The relay re-reads a generated file (procfs: st_size 0, fixed
# mtime) on every poll only when its path starts with /proc/ (relay/source.c
# generated_file()), as the real /proc/systemtap/MODULE files do.  So the
# tests mount stapfs *under /proc*, over the (normally empty) /proc/driver,
# inside a private mount namespace of their own: the machine's /proc is
# never touched and the mount dies with the test.
#
#   stapfs_enter_namespace "$@"   # first line of a test, before common.sh
#   . "$QA_SRC/qa/fuse/lib.sh"
#   stapfs_build || exit 1
#   stapfs_mount SCRIPT [--short=N] [--cap=N]   # mounts on $STAPFS_ROOT
#   ...                                         # EXIT trap unmounts
#
# STAPFS_ROOT is where the modules appear; STAPFS_LOG is stapfs' log (one
# line per open / EBUSY or EAGAIN / close / vanish).

STAPFS_ROOT=${STAPFS_ROOT:-/proc/driver}
STAPFS_BIN=$qa_tmp/stapfs
STAPFS_LOG=$qa_tmp/stapfs.log
STAPFS_PID=

stapfs_build() {
    pkg-config --exists fuse3 2>/dev/null || { echo "libfuse3-dev is not installed (make deps)"; return 1; }
    command -v fusermount3 >/dev/null || { echo "fuse3 is not installed (make deps)"; return 1; }
    [ -c /dev/fuse ] || qa_notrun "no /dev/fuse"
    cc -std=gnu11 -O2 -Wall -o "$STAPFS_BIN" "$QA_SRC/qa/fuse/stapfs.c" \
        $(pkg-config --cflags --libs fuse3) >>"$qa_full" 2>&1 ||
        { echo "cannot build qa/fuse/stapfs.c (see $qa_full_name)"; return 1; }
}

stapfs_mounted() {
    awk -v m="$1" '$5 == m && / - fuse(\.[a-z]+)? / { f = 1 } END { exit !f }' /proc/self/mountinfo
}

stapfs_mount() {
    # stapfs_mount SCRIPT [stapfs options]: mount on $STAPFS_ROOT, in the
    # foreground process we keep the pid of; wait until it answers.
    local script=$1
    shift
    [ -d "$STAPFS_ROOT" ] || qa_notrun "no $STAPFS_ROOT to mount stapfs on"
    "$STAPFS_BIN" "$@" --log="$STAPFS_LOG" "$script" "$STAPFS_ROOT" -f -s >>"$qa_full" 2>&1 &
    STAPFS_PID=$!
    qa_track_pid $STAPFS_PID
    qa_wait_until 10 "stapfs mounted on $STAPFS_ROOT" stapfs_mounted "$STAPFS_ROOT" || return 1
    qa_log "stapfs $STAPFS_PID on $STAPFS_ROOT serving $script ($*)"
}

stapfs_umount() {
    [ -n "$STAPFS_PID" ] || return 0
    fusermount3 -u "$STAPFS_ROOT" 2>>"$qa_full" || umount -l "$STAPFS_ROOT" 2>>"$qa_full"
    local i
    for i in $(seq 1 50); do
        qa_pid_alive "$STAPFS_PID" || break
        sleep 0.1
    done
    qa_pid_alive "$STAPFS_PID" && { kill -TERM "$STAPFS_PID" 2>/dev/null; echo "FAIL: stapfs did not exit after unmount"; }
    wait "$STAPFS_PID" 2>/dev/null
    STAPFS_PID=
    { echo "== stapfs log (last 60 lines)"; tail -60 "$STAPFS_LOG"; } >>"$qa_full" 2>/dev/null
}

# pmcd (and the PMDA, which may be inside a read of ours) stops first, then
# stapfs is unmounted, then common.sh cleans up with the test's status.
stapfs_cleanup() {
    local rc=$?
    trap - EXIT
    if [ -n "$QA_PMCD_PID" ]; then
        qa_pmcd_stop || [ $rc != 0 ] || rc=1
    fi
    stapfs_umount
    (exit $rc)
    qa_cleanup
}
trap 'stapfs_cleanup; exit $?' EXIT

stapfs_queue() {
    # stapfs_queue SCRIPT/MODULE FILE N < document: queue a document for
    # one later open (FILE.N, served in increasing N, once each)
    local t=$1/.q.$$
    cat > "$t" && mv -f "$t" "$1/$2.$3"
}

stapfs_module() {
    # stapfs_module SCRIPT MODULE FIXTURE_DIR: a module appears at once,
    # with a fixture's metadata.json and data.json
    local stage=$1/.stage.$2
    rm -rf "$stage"
    mkdir -p "$stage"
    cp "$3/metadata.json" "$3/data.json" "$stage/"
    mv "$stage" "$1/$2"
}

stapfs_filter() {
    # the mount point, for goldens
    sed -e "s|$STAPFS_ROOT|ROOT|g"
}
