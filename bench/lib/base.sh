# bench/lib/base.sh -- sourced by benchmarks that measure an older commit
# beside this tree (BASE=COMMIT) in the same interleaved run, so a load on
# the machine slows both alike and the ratio is the figure.
#
#   bench_base_build ROOT COMMIT DIR TARGET...
#       exports COMMIT's tree (git archive: no worktree is registered, the
#       repository is only read) into DIR and makes TARGET there; prints
#       nothing, returns non-zero when it cannot (then leave its rows out).

bench_base_build() {
    local root=$1 commit=$2 dir=$3
    shift 3
    mkdir -p "$dir" &&
        git -C "$root" archive --format=tar "$commit" | tar -x -C "$dir" &&
        make -C "$dir" -s -j"$(nproc)" "$@" >"$dir/.bench-build.log" 2>&1
}
