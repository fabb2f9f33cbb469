#!/bin/sh
# Install every Debian package staprelay needs to build, test and demo.
#
# Run as root.  Does nothing when everything is already present, so `make
# check` and `make demo` can call it unconditionally.  Debian's pcp postinst
# runs `systemctl start pmcd`, which fails where systemd is not PID 1 (CI
# containers, this VM); we configure it with a no-op systemctl shim first in
# PATH so dpkg finishes cleanly, then start pmcd ourselves through its init
# script.  The system pmcd is only started for the user's convenience: the
# tests always run a private pmcd of their own.
set -eu

PKGS="${STAPRELAY_DEPS:-build-essential pkg-config libjansson-dev libev-dev \
libpcp3-dev libpcp-pmda3-dev pcp check libxml2-utils python3-json-pointer \
valgrind chromium systemtap linux-headers-amd64 python3-jsonschema python3-six \
libfuse3-dev fuse3 clang libclang-rt-14-dev strace linux-perf curl \
protobuf-c-compiler libprotobuf-c-dev zlib1g-dev libdw-dev golang-go graphviz \
libcurl4-openssl-dev redis-server iproute2 libmicrohttpd-dev nodejs npm \
qemu-system-x86 busybox-static cpio}"

# The kernel qa/vm/ boots: Debian's image of the newest installed
# linux-headers-*-amd64 (stap builds the VM's modules against those
# headers, and the image brings that kernel's own System.map).  Its ABI
# number changes with Debian's updates, so it is found at run time; on a
# fresh machine the headers come first and the image in a second step.
# STAPRELAY_DEPS (a package list of its own) leaves it out.
vm_image() {
    [ -z "${STAPRELAY_DEPS:-}" ] || return 0
    h=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1)
    # no headers yet (a fresh machine): nothing, and success -- under
    # set -e a failing $(vm_image) would end this script silently
    if [ -n "$h" ]; then echo "linux-image-${h##*/linux-headers-}"; fi
}
PKGS="$PKGS $(vm_image)"

# PCP's PMNS root (PCP_VAR_DIR/pmns/root) is made by pmcd's rc script
# when it starts pmcd.  Where that start fails or never happens (systemd
# not PID 1, a chroot whose host already serves pmcd's port) tools that
# load the default PMNS and qa's Install sandbox have none: build it.
pmns_root() {
    [ "$(id -u)" = 0 ] || return 0
    d=$(sed -n 's/^PCP_VAR_DIR=//p' /etc/pcp.conf 2>/dev/null)/pmns
    [ -x "$d/Rebuild" ] && [ ! -f "$d/root" ] || return 0
    (cd "$d" && ./Rebuild -u) >/dev/null 2>&1 && echo "deps: built the PMNS root $d/root" ||
        echo "deps: note: could not build the PMNS root $d/root" >&2
}

# The browser harness of qa's web tests (qa/web: puppeteer-core, pinned
# in its package-lock.json; it drives Debian's /usr/bin/chromium and
# downloads no browser).  npm ci only when its node_modules is missing
# or older than the lock file, so a second run does nothing.
web_modules() {
    d=$(cd "$(dirname "$0")/.." && pwd)/qa/web
    [ -f "$d/package-lock.json" ] || return 0
    if [ -f "$d/node_modules/.package-lock.json" ] &&
       [ ! "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || { echo "deps: npm is missing (qa/web)" >&2; return 1; }
    echo "deps: npm ci in qa/web (puppeteer-core, no browser download)"
    (cd "$d" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
        { echo "deps: npm ci in qa/web failed" >&2; return 1; }
}

missing=""
half=""
for p in $PKGS; do
    # a nodejs that brings its own npm (NodeSource's) conflicts with
    # Debian's npm package: the command is what qa/web needs
    if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
    st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    case "$st" in
        ii*) ;;
        i[UFHWt]*) half="$half $p" ;;   # unpacked but not configured (pcp's postinst)
        *) missing="$missing $p" ;;
    esac
done

if [ -z "$missing" ] && [ -z "$half" ]; then
    pmns_root
    web_modules
    echo "deps: all packages present"
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "deps: missing packages:$missing" >&2
    echo "deps: run 'make deps' as root (or install them with apt-get)" >&2
    exit 1
fi

shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
# The no-op systemctl only exists for the duration of dpkg's configure step.
printf '#!/bin/sh\nexit 0\n' > "$shim/systemctl"
chmod 755 "$shim/systemctl"

export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
    echo "deps: installing:$missing"
    apt-get update -qq || apt-get update
    # apt runs dpkg with its own PATH (DPkg::Path), not ours: without the
    # shim there, pcp's postinst finds the real systemctl and fails where
    # systemd is not PID 1.
    INITRD=No PATH="$shim:$PATH" apt-get -o DPkg::Lock::Timeout=600 -o DPkg::Path="$shim:$PATH" \
        install -y -q --no-install-recommends $missing || true
fi
# The VM's kernel image, now that the headers are there (a fresh machine).
# INITRD=No: the VM boots its own initramfs (qa/vm/vm.sh), so the
# package's update-initramfs run (minutes) is skipped.
img=$(vm_image)
if [ -n "$img" ] && ! dpkg-query -W -f='${db:Status-Abbrev}' "$img" 2>/dev/null | grep -q '^ii'; then
    echo "deps: installing: $img"
    INITRD=No PATH="$shim:$PATH" apt-get -o DPkg::Lock::Timeout=600 -o DPkg::Path="$shim:$PATH" \
        install -y -q --no-install-recommends "$img" || true
    PKGS="$PKGS $img"
fi
# Finish what a failed postinst (or an earlier interrupted run) left.
INITRD=No PATH="$shim:$PATH" dpkg --configure -a
for p in $PKGS; do
    if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
        { echo "deps: $p did not install" >&2; exit 1; }
done

# redis-server's postinst starts a system redis on port 6379; qa and
# bench/fleet run private ones, so one we just installed is stopped again.
case " $missing " in
    *" redis-server "*) [ ! -x /etc/init.d/redis-server ] ||
        /etc/init.d/redis-server stop >/dev/null 2>&1 || true ;;
esac

# Start the system pmcd if nothing runs it.  Its pid file, not pgrep: a
# private qa or demo pmcd is not the system's.
pmcd_pid=$(cat /run/pcp/pmcd.pid 2>/dev/null || true)
if [ -x /etc/init.d/pmcd ] && ! { [ -n "$pmcd_pid" ] && kill -0 "$pmcd_pid" 2>/dev/null; }; then
    /etc/init.d/pmcd start >/dev/null 2>&1 || echo "deps: note: system pmcd did not start (tests do not need it)" >&2
fi
pmns_root
web_modules
echo "deps: done"
