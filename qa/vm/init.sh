#!/bin/busybox sh
# qa/vm/init.sh - /init of the test VM's initramfs (built by qa/vm/vm.sh).
#
# Loads the virtio, 9p and overlay modules listed in /modules.list, mounts
# the host's root (read-only 9p share "hostroot") as the lower layer of an
# overlayfs whose upper layer is a tmpfs, mounts the writable 9p share
# "results" at /run/vmresults of the new root, and hands over to the guest
# stage (qa/vm/guest-init.sh, which qa/vm/vm.sh copies to the results
# share: the kernel command line's srvm_init=) with switch_root.  Any failure here powers the
# guest off at once; the host sees no results/rc and reports the console.
/bin/busybox --install -s /bin
export PATH=/bin

die() {
    echo "vm init: $*"
    echo o >/proc/sysrq-trigger
    sleep 60
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo 1 >/proc/sys/kernel/sysrq

while read -r m; do
    [ -n "$m" ] || continue
    insmod "/mods/$m.ko" || die "insmod $m failed"
done </modules.list

mkdir -p /lower /upper /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose,msize=512000,ro hostroot /lower ||
    die "cannot mount the host's root (9p hostroot)"
mount -t tmpfs -o mode=755 upper /upper || die "cannot mount the tmpfs upper layer"
mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /newroot ||
    die "cannot mount the overlay root"
# a fresh /run (the host's pid files and sockets are not the guest's)
mount -t tmpfs -o mode=755 run /newroot/run || die "cannot mount /run"
mkdir -p /newroot/run/vmresults
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /newroot/run/vmresults ||
    die "cannot mount the results share"
for d in proc sys dev; do
    mount --move /$d /newroot/$d || die "cannot move /$d"
done
[ -n "${srvm_init:-}" ] || die "no srvm_init= on the kernel command line"
exec switch_root /newroot /bin/sh "$srvm_init"
