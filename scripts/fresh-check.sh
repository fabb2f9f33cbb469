#!/bin/sh
# fresh-check: run `make check` on a freshly installed Debian bookworm, to
# find what this machine has that a new one lacks (packages, users,
# directories, state left by earlier runs).
#
#   scripts/fresh-check.sh [-b BRANCH] [-d DIR] [-l LOG] [-p PATH] [-H] [-k]
#
# As root.  debootstrap makes a bookworm system in DIR (default
# /var/tmp/staprelay-fresh; an existing DIR is removed first unless -k
# keeps it and skips the debootstrap), DIR is bind-mounted on itself (a
# machine's / is a mount point) and /proc, /sys and /dev (with what is
# mounted below them) into it, its /etc/hosts names the host as an
# installed Debian's does, a clean `git clone` of BRANCH (default: the
# current one) of this repository goes to PATH there (default
# /root/staprelay; -p "/tmp/a b/staprelay" checks that nothing depends on
# where the checkout lives, /tmp and spaces included), and
# what README says a new machine needs runs in it as root:
# ./scripts/deps.sh (a fresh Debian has no make yet), then `make check`.  Everything goes to LOG
# (default DIR.log); the last line says "fresh-check: PASS" or
# "fresh-check: FAIL (...)".  The exit status is make check's.
#
# -H keeps one CPU busy for the whole run (a shell busy loop, stopped on
# the way out): the suite must pass on a loaded machine, so this is how it
# is checked before an issue is called resolved.
#
# What the chroot shares with this machine: the kernel, the network (a
# private pmcd picks a free loopback port, as on any machine) with its
# locally installed certificate authorities, and the CPU.
# The full check runs under the shared lock /tmp/staprelay-check.lock,
# like any `make check` here.  On the way out every process whose root is
# DIR is killed (by pid) and the bind mounts are undone.
#
# debootstrap is installed here when missing; it is this script's need,
# not `make check`'s, so it is not in scripts/deps.sh.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
branch=$(git -C "$here" rev-parse --abbrev-ref HEAD)
dir=/var/tmp/staprelay-fresh
log=
keep=
path=/root/staprelay
hog=
while getopts b:d:l:p:Hk opt; do
    case $opt in
        b) branch=$OPTARG ;;
        d) dir=$OPTARG ;;
        l) log=$OPTARG ;;
        p) path=$OPTARG ;;
        H) hog=1 ;;
        k) keep=1 ;;
        *) sed -n '2,30p' "$0" >&2; exit 2 ;;
    esac
done
: "${log:=$dir.log}"
[ "$(id -u)" = 0 ] || { echo "fresh-check: run as root" >&2; exit 1; }
case $dir in /|/usr|/var|/tmp|/root|/home) echo "fresh-check: refusing DIR=$dir" >&2; exit 1 ;; esac
case $path in /?*) ;; *) echo "fresh-check: PATH must be absolute: $path" >&2; exit 1 ;; esac

exec > "$log" 2>&1
say() { echo "[$(date +%T)] fresh-check: $*"; }

# The mirror this machine uses (deb822 or one-line sources), else Debian's.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

mounted=
hog_pid=
cleanup() {
    rc=$?
    trap - EXIT INT TERM HUP
    [ -z "$hog_pid" ] || kill "$hog_pid" 2>/dev/null || true
    # processes left inside the chroot (a daemon a postinst started, a
    # test's stray child): they are ours, found by their root directory
    for p in /proc/[0-9]*; do
        r=$(readlink "$p/root" 2>/dev/null) || continue
        [ "$r" = "$dir" ] || continue
        pid=${p#/proc/}
        say "killing leftover pid $pid: $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null)"
        kill -9 "$pid" 2>/dev/null || true
    done
    for m in $mounted; do
        umount -R "$dir$m" 2>/dev/null || umount -R -l "$dir$m" 2>/dev/null ||
            say "cannot unmount $dir$m"
    done
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if [ -z "$keep" ] || [ ! -x "$dir/bin/sh" ]; then
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap"
        apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends debootstrap
    fi
    # never remove a tree with the host's /proc, /sys or /dev still bound in it
    if awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; then
        umount -R "$dir" 2>/dev/null || { say "mounts left under $dir: not removing it"; exit 1; }
    fi
    rm -rf "$dir"
    say "debootstrap bookworm into $dir from $mirror"
    debootstrap bookworm "$dir" "$mirror"
fi
# A chroot has no init: packages must not start their daemons in it (a
# pmcd there would bind the host's port 44321).  Standard practice for
# chroots, and what deps.sh's systemctl shim does on a machine without
# systemd.
printf '#!/bin/sh\nexit 101\n' > "$dir/usr/sbin/policy-rc.d"
chmod 755 "$dir/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# What an installed machine has and debootstrap does not write: its own
# name resolves (Debian's installer puts it in /etc/hosts; without it
# every lookup of the host name waits on DNS, and pmcd's agents time out).
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$(hostname)" > "$dir/etc/hosts"
hostname > "$dir/etc/hostname"
# The machine's network trust, as its resolv.conf: certificate
# authorities installed locally (an egress proxy's, which npm's registry
# is reached through here) go where Debian's ca-certificates builds its
# bundle from, and the bundle itself for what runs before that package;
# Node reads NODE_EXTRA_CA_CERTS when the machine sets it.
if [ -d /usr/local/share/ca-certificates ]; then
    mkdir -p "$dir/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$dir/usr/local/share/ca-certificates/"
fi
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$dir/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
fi

# The chroot's / must be a mount point, as a machine's is (unshare
# --propagation, the qa sandboxes' private mounts, need it); /sys and
# /dev with what is mounted below them (debugfs, tracefs, bpf, cgroup,
# pts, shm), as on a booted machine.
mount --bind "$dir" "$dir"
mounted="/"
for m in /proc /sys /dev; do
    mkdir -p "$dir$m"
    mount --rbind "$m" "$dir$m"
    mount --make-rslave "$dir$m"
    mounted="$m $mounted"      # unmounted in reverse order
done

say "cloning branch $branch ($(git -C "$here" rev-parse --short "$branch")) to $path"
rm -rf "$dir$path"
mkdir -p "$(dirname "$dir$path")"
git clone -q --branch "$branch" "$here" "$dir$path"
git -C "$dir$path" log --oneline -1

if [ -n "$hog" ]; then
    sh -c 'while :; do :; done' &
    hog_pid=$!
    say "CPU hog running (pid $hog_pid) for the whole run"
fi

say "make check in the chroot (waiting for /tmp/staprelay-check.lock)"
set +e
flock /tmp/staprelay-check.lock \
    chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    ${NODE_EXTRA_CA_CERTS:+NODE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS"} \
    STAPRELAY_CHECKOUT="$path" sh -c 'cd "$STAPRELAY_CHECKOUT" && ./scripts/deps.sh && make check'
rc=$?
set -e
if [ $rc = 0 ]; then
    say "PASS"
else
    say "FAIL (make check exit $rc)"
fi
exit $rc
