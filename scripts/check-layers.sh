#!/bin/sh
# check-layers.sh: the build keeps the parts apart as docs/design.md says
# (make check-layers; make check runs it before the unit tests).
#
# * A stray `#include <pcp/pmapi.h>` in a relay/ or common/ file fails
#   the build (the Makefile's build/nopcp headers are #error), while the
#   same file in client/ or pmda/ builds.  Each probe is a real file
#   compiled by the real rule: it sits in a hidden folder of the part for
#   the moment of the test (no part's wildcard reaches it) and goes away.
# * client/staprelay links client/ and common/ only, pmdastaprelay
#   pmda/, relay/ and common/ only: a source of another part named in
#   their lists stops make before anything is built.
#
# Ends with "layers: N passed, N failed".
set -u
make=${MAKE:-make}
passed=0
failed=0
log=$(mktemp)
probe=.layers-probe-$$
trap 'rm -f "$log"; rm -rf relay/$probe common/$probe client/cmd/$probe pmda/$probe \
      build/plain/relay/$probe build/plain/common/$probe build/plain/client/cmd/$probe \
      build/plain/pmda/$probe' EXIT

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; sed 's/^/    /' "$log"; failed=$((failed + 1)); }

# compile DIR: build DIR/$probe/probe.c, a file that includes PCP, through
# the Makefile's own rule; its status is the compiler's
compile() {
    mkdir -p "$1/$probe"
    printf '%s\n' '#include <pcp/pmapi.h>' \
        'int layers_probe(void);' \
        'int layers_probe(void) { return PM_ERR_GENERIC != 0; }' >"$1/$probe/probe.c"
    $make -s --no-print-directory "build/plain/$1/$probe/probe.o" >"$log" 2>&1
    rc=$?
    rm -rf "$1/$probe" "build/plain/$1/$probe"
    return $rc
}

for dir in relay common; do
    if compile $dir; then
        fail "$dir/: a file including <pcp/pmapi.h> compiled"
    elif grep -q 'never include PCP' "$log"; then
        pass "$dir/: a file including <pcp/pmapi.h> fails the build"
    else
        fail "$dir/: the probe failed, but not on the PCP include"
    fi
done
for dir in client/cmd pmda; do
    if compile $dir; then
        pass "$dir/: a file including <pcp/pmapi.h> builds"
    else
        fail "$dir/: a file including <pcp/pmapi.h> does not build"
    fi
done

# link SET WHY VAR=VALUE: make -n of the binary must refuse the list
link() {
    target=$1 what=$2
    shift 2
    if $make -n --no-print-directory "$target" "$@" >"$log" 2>&1; then
        fail "$target: linking $what was not refused"
    elif grep -q "links .* only" "$log"; then
        pass "$target: linking $what is refused"
    else
        fail "$target: make failed, but not on the link set"
    fi
}
link client/staprelay relay/ "CLIENT_SRCS=client/util/utf8.c relay/log.c"
link client/staprelay pmda/ "CLIENT_SRCS=client/util/utf8.c pmda/idmap.c"
link pmda/pmdastaprelay client/ "PMDA_SRCS=pmda/idmap.c client/util/utf8.c"
if $make -n --no-print-directory client/staprelay pmda/pmdastaprelay >"$log" 2>&1; then
    pass "the binaries' own link sets are accepted"
else
    fail "the binaries' own link sets are refused"
fi

echo "layers: $passed passed, $failed failed"
[ $failed -eq 0 ]
