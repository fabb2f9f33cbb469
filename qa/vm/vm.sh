#!/bin/bash
# qa/vm/vm.sh - boot Debian's packaged kernel under qemu and run a command
# inside it, on the host's own root filesystem.
#
#   qa/vm/vm.sh [-t SECONDS] [-m MB] [-d DISK_MB] -o OUTDIR -- COMMAND...
#   qa/vm/vm.sh -n          only say whether the VM can run here (exit 0),
#                           or print "notrun: why" and exit 77
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
#   * OUTDIR is a second, writable 9p share (/run/vmresults in the guest):
#     COMMAND goes there as OUTDIR/cmd and runs with bash, in the caller's
#     working directory, as soon as the guest is up (qa/vm/guest-init.sh, PID 1); the guest writes
#     OUTDIR/guest.log (its output), OUTDIR/dmesg.txt (the guest kernel's
#     log) and OUTDIR/rc (COMMAND's exit status), then powers off;
#     OUTDIR/console.log is the serial console;
#   * accelerator: KVM only where a real kvm_intel/kvm_amd is loaded (other
#     /dev/kvm providers, e.g. kvm_pvm, hang Debian's kernel at boot), else
#     TCG, multi-threaded;
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
# it; 2 when it did not (panic, hang, time-out: the console's last lines
# are printed); 77 when the VM cannot run here (qemu or the kernel image
# is missing: the reason is printed as "notrun: ...").
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${STAPRELAY_BUILD:-$src/build}
tmo=900
mem=1536
disk=0
out=
check_only=0
while getopts nt:m:d:o: opt; do
    case $opt in
        n) check_only=1 ;;
        t) tmo=$OPTARG ;;
        m) mem=$OPTARG ;;
        d) disk=$OPTARG ;;
        o) out=$OPTARG ;;
        *) echo "usage: qa/vm/vm.sh [-t SECONDS] [-m MB] [-d DISK_MB] -o OUTDIR -- COMMAND..." >&2; exit 64 ;;
    esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
if [ $check_only = 0 ] && { [ -z "$out" ] || [ $# -eq 0 ]; }; then
    echo "usage: qa/vm/vm.sh [-t SECONDS] [-m MB] [-d DISK_MB] -o OUTDIR -- COMMAND..." >&2
    exit 64
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
accel="-accel tcg,thread=multi,tb-size=256"
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
drive=()
if [ "$disk" -gt 0 ]; then
    rm -f "$out/disk.img"
    truncate -s "${disk}M" "$out/disk.img" || exit 2
    drive=(-drive "file=$out/disk.img,if=virtio,format=raw,cache=unsafe")
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
    -append "console=ttyS0 panic=-1 oops=panic quiet loglevel=5 softlockup_panic=1 softlockup_all_cpu_backtrace=1 srvm_init=$here/guest-init.sh" \
    -virtfs "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap" \
    -virtfs "local,path=$out,mount_tag=results,security_model=passthrough" \
    "${drive[@]}" >"$out/qemu.log" 2>&1 </dev/null &
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
echo "vm: the guest did not report (panic, hang or time-out); console's last lines:"
grep -v '^$' "$out/console.log" 2>/dev/null | tail -40 | sed 's/^/  console: /'
tail -3 "$out/qemu.log" | sed 's/^/  qemu: /'
exit 2
