#!/bin/sh
# qa/vm/guest-init.sh - PID 1 of the test VM after switch_root (see
# qa/vm/vm.sh): the host's root, read-only under a tmpfs overlay, with the
# results share at /run/vmresults.
#
# Prepares a small system (fresh /tmp, /dev/pts, /dev/shm, debugfs,
# tracefs, loopback up, hostname "vm"), mounts the host directories those
# hide that the host listed in /run/vmresults/shares (qa/vm/vm.sh: one
# path a line, the Nth is the read-only 9p share srvmN, mounted at that
# path under a tmpfs overlay, as the root is; if one cannot be mounted the
# command does not run), runs /run/vmresults/cmd (written by
# the host) with bash, its output in /run/vmresults/guest.log, then writes
# the guest kernel's log to /run/vmresults/dmesg.txt and the command's
# exit status to /run/vmresults/rc (the host's sign that the guest lived
# to the end), and powers off.  PID 1 never exits (that would panic).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
res=/run/vmresults

mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=1777 vartmp /var/tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
ln -sf /proc/self/fd/0 /dev/stdin 2>/dev/null
ln -sf /proc/self/fd/1 /dev/stdout 2>/dev/null
ln -sf /proc/self/fd/2 /dev/stderr 2>/dev/null
hostname vm
echo "127.0.0.1 localhost vm" >/etc/hosts
# the host's machine-id and pmcd state are not the guest's
rm -rf /var/lib/pcp/tmp/* /var/log/pcp/pmcd/* 2>/dev/null
if command -v ip >/dev/null; then ip link set lo up; else busybox ip link set lo up; fi

echo "guest: up $(cut -d' ' -f1 /proc/uptime) s after boot" >"$res/guest.log"
# after the guest's own file systems, which they go over
n=0
bad=0
if [ -s "$res/shares" ]; then
    while IFS= read -r p; do
        n=$((n + 1))
        s=/run/.vmshares/$n
        if mkdir -p "$s/lower" "$s/u" "$s/w" &&
           mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose,msize=512000,ro "srvm$n" "$s/lower" &&
           mkdir -p "$p" &&
           mount -t overlay -o "lowerdir=$s/lower,upperdir=$s/u,workdir=$s/w" "srvm$n" "$p"; then
            echo "guest: the host's $p is share srvm$n" >>"$res/guest.log"
        else
            echo "guest: cannot mount the host's $p (share srvm$n)" >>"$res/guest.log"
            bad=1
        fi
    done <"$res/shares"
fi
if [ $bad = 0 ]; then
    bash "$res/cmd" >>"$res/guest.log" 2>&1 </dev/null
    rc=$?
else
    rc=1
fi
echo "guest: cmd exited $rc at $(cut -d' ' -f1 /proc/uptime) s" >>"$res/guest.log"
dmesg >"$res/dmesg.txt" 2>&1
echo "$rc" >"$res/rc"
sync
umount "$res" 2>/dev/null
echo o >/proc/sysrq-trigger
while :; do sleep 60; done
