#!/bin/bash
# qa/vm/vm.sh - boot Debian's packaged kernel under qemu and run a command
# inside it, on the host's own root filesystem.
#
#   qa/vm/vm.sh [-t SECONDS] [-m MB] [-d DISK_MB] [-s DIR]... -o OUTDIR -- COMMAND...
#   qa/vm/vm.sh -n [-s DIR]...  only say whether the VM can run here (exit 0),
#                           or print "notrun: why" and exit 77
#   qa/vm/vm.sh -P [-s DIR]...  print the directories the guest would get as
#                           shares of their own ("share TAG PATH" and the
#                           -virtfs argument), or "notrun: why" and 77;
#                           needs neither qemu nor root (qa 005)
#
# Why: this machine's own kernel cannot load modules, so SystemTap's kernel
# runtime is tested in a VM that boots the kernel whose headers stap builds
# against (the newest /usr/src/linux-headers-*-amd64, or
# $STAPRELAY_VM_RELEASE; its image comes from the linux-image-REL package,
# scripts/deps.sh installs it).
#
# How:
#   * the guest's root is the host's / shared read-only over virtio-9p, as
#     the lower layer of an overlayfs over a tmpfs (nothing is copied; the
#     guest can write, the host never sees it); the initramfs (busybox-static,
#     qa/vm/init.sh, the virtio/9p/overlay modules) is built once per
#     release into $STAPRELAY_BUILD/vm (default build/vm);
#   * the guest mounts file systems of its own over parts of that root
#     (OWN_FS below: /run, /tmp, /var/tmp, /dev/shm, /proc, /sys, /dev), so
#     a host directory under one of them is not the host's in the guest:
#     the caller's working directory, this checkout and each -s DIR (the
#     caller's build directory) that lies under one (by its path as given
#     or as symlinks resolve) becomes a read-only 9p share of its own,
#     mounted by the guest at the same path, again under a tmpfs overlay;
#     one under /proc, /sys or /dev (but /dev/shm) cannot be, and neither
#     can a path holding a newline: the VM does not boot, "notrun: why";
#   * OUTDIR is a second, writable 9p share (/run/vmresults in the guest):
#     COMMAND goes there as OUTDIR/cmd and runs with bash, in the caller's
#     working directory, as soon as the guest is up (qa/vm/guest-init.sh,
#     PID 1, copied to OUTDIR so that it is found wherever this checkout
#     is; the list of shares is OUTDIR/shares); the guest writes
#     OUTDIR/guest.log (its output), OUTDIR/dmesg.txt (the guest kernel's
#     log) and OUTDIR/rc (COMMAND's exit status), then powers off;
#     OUTDIR/console.log is the serial console;
#   * accelerator: KVM only where a real kvm_intel/kvm_amd is loaded (other
#     /dev/kvm providers, e.g. kvm_pvm, hang Debian's kernel at boot), else
#     TCG, single-threaded (see "accelerator" below for why);
#   * the guest kernel runs with oops=panic and softlockup_panic=1 (a CPU
#     stuck for 20 s panics it at once instead of hanging until the
#     time-out), loglevel=5 and softlockup_all_cpu_backtrace=1 (every
#     CPU's stack trace reaches the console);
#   * -t SECONDS (default 900) is a hard time-out on the whole boot; qemu is
#     killed by its PID on every way out of this script (time-out, signal,
#     error), so no process is left behind;
#   * -d DISK_MB gives the guest a blank virtio disk (/dev/vda) of that size
#     (a sparse file in OUTDIR, removed afterwards) for block I/O tests.
#
# Exit status: COMMAND's (0 or 1, as 0/1) when the guest lived to report
# it; 2 when it did not (panic, hang, time-out: the console's account of
# it is printed, from its first fatal line); 77 when the VM cannot run
# here (qemu or the kernel image is missing: "notrun: ...").
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${STAPRELAY_BUILD:-$src/build}
tmo=900
mem=1536
disk=0
out=
check_only=0
plan_only=0
want=()
while getopts nPt:m:d:o:s: opt; do
    case $opt in
        n) check_only=1 ;;
        P) plan_only=1 ;;
        s) want+=("$OPTARG") ;;
        t) tmo=$OPTARG ;;
        m) mem=$OPTARG ;;
        d) disk=$OPTARG ;;
        o) out=$OPTARG ;;
        *) echo "usage: qa/vm/vm.sh [-t SECONDS] [-m MB] [-d DISK_MB] [-s DIR]... -o OUTDIR -- COMMAND..." >&2; exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
if [ $check_only = 0 ] && [ $plan_only = 0 ] && { [ -z "$out" ] || [ $# -eq 0 ]; }; then
    echo "usage: qa/vm/vm.sh [-t SECONDS] [-m MB] [-d DISK_MB] [-s DIR]... -o OUTDIR -- COMMAND..." >&2
    exit 64
fi

# ---- the host directories the guest must see at their own paths
# The guest's own file systems over the host's root: qa/vm/init.sh mounts
# /run, /proc, /sys and /dev, qa/vm/guest-init.sh /tmp, /var/tmp, /dev/shm,
# /dev/pts, debugfs and tracefs, and empties /var/lib/pcp/tmp and
# /var/log/pcp/pmcd (qa 005 checks this list against those two files).
# Under the first ones the guest can mount a share over its own tmpfs;
# under the kernel's own (proc, sys, dev) it cannot.
OWN_SHAREABLE="/run /tmp /var/tmp /dev/shm /var/lib/pcp/tmp /var/log/pcp/pmcd"
OWN_KERNEL="/proc /sys /dev"
# the guest's own names under /run, which no share may take
OWN_RESERVED="/run/vmresults /run/.vmshares"
under() {   # under PATH DIR: PATH is DIR or below it
    [ "$1" = "$2" ] || case $1 in "$2"/*) return 0 ;; *) return 1 ;; esac
}
shares=()
plan_shares() {
    local p q d form dup i keep
    local cands=()
    for p in "$PWD" "$src" "${want[@]}"; do
        case $p in *$'\n'*)
            echo "notrun: the path '$p' holds a newline: it cannot be shared with the VM"; return 77 ;;
        esac
        [ -d "$p" ] || { echo "notrun: -s $p: no such directory to share with the VM"; return 77; }
        # as given (absolute) and as symlinks resolve: the guest walks both
        for form in -L -P; do
            q=$(cd "$p" && pwd $form) || return 77
            for d in $OWN_RESERVED; do
                under "$q" "$d" && {
                    echo "notrun: $q is under $d, which the VM uses for itself: it cannot be shared with the guest (use a checkout and STAPRELAY_BUILD elsewhere)"
                    return 77; }
            done
            for d in $OWN_SHAREABLE; do
                under "$q" "$d" && { cands+=("$q"); continue 2; }
            done
            for d in $OWN_KERNEL; do
                under "$q" "$d" && {
                    echo "notrun: $q is under $d, the guest's own kernel file system: it cannot be shared with the VM (use a checkout and STAPRELAY_BUILD elsewhere)"
                    return 77; }
            done
        done
    done
    # each once, and none below another (the outer share holds it)
    for q in "${cands[@]}"; do
        keep=1
        for p in "${cands[@]}"; do
            [ "$p" != "$q" ] && under "$q" "$p" && keep=0
        done
        for p in "${shares[@]}"; do [ "$p" = "$q" ] && keep=0; done
        [ $keep = 1 ] && shares+=("$q")
    done
    return 0
}
virtfs_path() {   # qemu's option syntax: a comma in a value is doubled
    printf '%s' "${1//,/,,}"
}
if [ $plan_only = 1 ]; then
    plan_shares || exit 77
    i=0
    for q in "${shares[@]}"; do
        i=$((i + 1))
        printf 'share srvm%d %s\n' "$i" "$q"
        printf 'virtfs local,path=%s,mount_tag=srvm%d,security_model=passthrough,readonly=on,multidevs=remap\n' \
            "$(virtfs_path "$q")" "$i"
    done
    exit 0
fi

# ---- what the VM needs
vm_release() {
    if [ -n "${STAPRELAY_VM_RELEASE:-}" ]; then
        echo "$STAPRELAY_VM_RELEASE"
        return
    fi
    local h
    h=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
    [ -n "$h" ] && echo "${h##*/linux-headers-}"
}
rel=$(vm_release)
[ -n "$rel" ] || { echo "notrun: no /usr/src/linux-headers-*-amd64 (make deps installs linux-headers-amd64)"; exit 77; }
qemu=$(command -v qemu-system-x86_64) ||
    { echo "notrun: qemu-system-x86_64 is not installed (make deps installs qemu-system-x86)"; exit 77; }
kernel=/boot/vmlinuz-$rel
[ -r "$kernel" ] || { echo "notrun: no $kernel (make deps installs linux-image-$rel)"; exit 77; }
[ -d "/lib/modules/$rel/kernel" ] || { echo "notrun: no /lib/modules/$rel/kernel (linux-image-$rel)"; exit 77; }
busybox=/bin/busybox
# static: an ELF without a program interpreter (readelf is binutils', which
# make deps installs; file(1) is not on a fresh machine)
[ -x "$busybox" ] && readelf -l "$busybox" >/dev/null 2>&1 &&
    ! readelf -l "$busybox" 2>/dev/null | grep -q 'program interpreter' ||
    { echo "notrun: no static $busybox (make deps installs busybox-static)"; exit 77; }
command -v cpio >/dev/null || { echo "notrun: cpio is not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "notrun: qemu's 9p passthrough share of / needs root"; exit 77; }
# before anything is built or booted: a checkout the guest cannot see
plan_shares || exit 77
[ $check_only = 1 ] && exit 0

# ---- the initramfs (cached per release and inputs)
initramfs() {
    local mods="virtio_pci 9pnet_virtio 9p overlay"
    local key dir img m
    key=$( { cat "$here/init.sh"; echo "$rel $mods"; cksum <"$busybox"; } | sha256sum | cut -c1-16)
    img=$build/vm/initramfs-$rel-$key.cpio.gz
    if [ ! -s "$img" ]; then
        mkdir -p "$build/vm" || return 1
        dir=$(mktemp -d "$build/vm/initramfs.XXXXXX") || return 1
        mkdir -p "$dir/bin" "$dir/mods" "$dir/proc" "$dir/sys" "$dir/dev"
        cp "$busybox" "$dir/bin/busybox"
        cp "$here/init.sh" "$dir/init"
        chmod 755 "$dir/init"
        : >"$dir/modules.list"
        for m in $mods; do
            # load order from modprobe, dependencies first; builtins skipped
            modprobe --show-depends -S "$rel" "$m" | awk '$1 == "insmod" {print $2}'
        done | awk '!seen[$0]++' | while read -r ko; do
            base=$(basename "$ko" .ko)
            cp "$ko" "$dir/mods/$base.ko" && echo "$base" >>"$dir/modules.list"
        done
        [ -s "$dir/modules.list" ] || { rm -rf "$dir"; echo "vm: no modules for $rel" >&2; return 1; }
        (cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) >"$img.tmp.$$" &&
            mv "$img.tmp.$$" "$img"
        rm -rf "$dir"
    fi
    echo "$img"
}
img=$(initramfs) || { echo "vm: cannot build the initramfs" >&2; exit 2; }

# ---- accelerator
# TCG runs both vCPUs on one host thread: with a thread each (qemu 7.2),
# the kernel's jump-label patching as a tracepoint module loads or
# unloads left a busy vCPU trapping on a stale int3 for ever (soft
# lockup; the evidence and the cost are in stap/README.md, "VM:
# multi-threaded TCG"; vm 060 keeps it so).
# STAPRELAY_VM_TCG_THREAD=multi brings the threads back.
accel="-accel tcg,thread=${STAPRELAY_VM_TCG_THREAD:-single},tb-size=256"
how=tcg
if [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; } &&
   [ "${STAPRELAY_VM_TCG:-0}" != 1 ]; then
    accel="-accel kvm -cpu host"
    how=kvm
fi

# ---- the run
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
rm -f "$out/rc" "$out/guest.log" "$out/dmesg.txt" "$out/console.log"
{ echo "# written by qa/vm/vm.sh"; printf 'cd %q || exit 1\n' "$PWD"; printf '%q ' "$@"; echo; } >"$out/cmd"
# PID 1's script on the results share: found wherever this checkout is,
# and the kernel's command line (split at spaces) names no host path
cp "$here/guest-init.sh" "$out/guest-init.sh" || exit 2
: >"$out/shares"
virtfs=()
i=0
for q in "${shares[@]}"; do
    i=$((i + 1))
    printf '%s\n' "$q" >>"$out/shares"
    virtfs+=(-virtfs "local,path=$(virtfs_path "$q"),mount_tag=srvm$i,security_model=passthrough,readonly=on,multidevs=remap")
done
drive=()
if [ "$disk" -gt 0 ]; then
    rm -f "$out/disk.img"
    truncate -s "${disk}M" "$out/disk.img" || exit 2
    drive=(-drive "file=$(virtfs_path "$out/disk.img"),if=virtio,format=raw,cache=unsafe")
fi

FATAL_RE='Kernel panic|kernel BUG at|BUG: unable to handle|general protection fault|invalid opcode:|Oops:'
qpid=
cleanup() {
    if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
        kill -TERM "$qpid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$qpid" 2>/dev/null
    fi
    [ -n "$qpid" ] && wait "$qpid" 2>/dev/null
    qpid=
    rm -f "$out/disk.img"
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM HUP

start=$(date +%s.%N)
# shellcheck disable=SC2086
"$qemu" $accel -m "$mem" -smp 2 -nodefaults -no-reboot -display none -monitor none \
    -serial "file:$out/console.log" \
    -kernel "$kernel" -initrd "$img" \
    -append "console=ttyS0 panic=-1 oops=panic quiet loglevel=5 softlockup_panic=1 softlockup_all_cpu_backtrace=1 srvm_init=/run/vmresults/guest-init.sh" \
    -virtfs "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap" \
    -virtfs "local,path=$(virtfs_path "$out"),mount_tag=results,security_model=passthrough" \
    "${virtfs[@]}" "${drive[@]}" >"$out/qemu.log" 2>&1 </dev/null &
qpid=$!
deadline=$(( $(date +%s) + tmo ))
fatal=0
while kill -0 "$qpid" 2>/dev/null; do
    now=$(date +%s)
    if [ "$now" -ge "$deadline" ]; then
        echo "vm: time-out after ${tmo}s: killing qemu ($qpid)" >>"$out/qemu.log"
        break
    fi
    # A dead kernel does not always power off (an oops inside the
    # scheduler can leave it spinning): 10 s after a fatal message, stop.
    if [ $fatal = 0 ] && grep -qE "$FATAL_RE" "$out/console.log" 2>/dev/null; then
        fatal=$((now + 10))
        [ "$fatal" -lt "$deadline" ] && deadline=$fatal
    fi
    sleep 0.5
done
cleanup
secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
echo "vm: $how, kernel $rel, ${secs}s" >>"$out/qemu.log"

if [ -s "$out/rc" ]; then
    rc=$(cat "$out/rc")
    [ "$rc" = 0 ] && exit 0
    exit 1
fi
# What went wrong, in few lines: a CI log keeps only the end of the output,
# and a soft lockup's own account (which CPU, which task, where, called
# from what) comes before every other CPU's backtrace, far from the end.
# So: from the first fatal line on, without registers, code bytes and the
# unreliable "?" frames, at most 32 lines; then the console's last 4.
console_account() {
    awk -v re="$FATAL_RE|watchdog: |rcu: INFO|hung_task|stuck:" '
        !on && $0 ~ re { on = 1 }
        !on { next }
        /^\[ *[0-9.]+\] *$/ { next }
        / (R[A-Z0-9][A-Z0-9]|CS|DS|FS|CR2|DR[0-7]|PKRU|Code|ORIG_RAX): / && !/RIP: / { next }
        /Modules linked in|Hardware name|<\/?(TASK|IRQ|NMI)>|\] +\? / { next }
        { print; if (++n >= 32) exit }
    ' "$out/console.log" 2>/dev/null
}
echo "vm: the guest did not report (panic, hang or time-out); the console's account:"
account=$(console_account)
if [ -n "$account" ]; then
    printf '%s\n' "$account" | sed 's/^/  console: /'
    echo "  console: ... (last lines:)"
    grep -v '^$' "$out/console.log" 2>/dev/null | tail -4 | sed 's/^/  console: /'
else
    grep -v '^$' "$out/console.log" 2>/dev/null | tail -36 | sed 's/^/  console: /'
fi
tail -3 "$out/qemu.log" | sed 's/^/  qemu: /'
exit 2
