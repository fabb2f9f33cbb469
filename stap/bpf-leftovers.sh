#!/bin/sh
# bpf-leftovers.sh DIR MODULE: remove what a stapbpf that is gone left of
# MODULE's procfs FIFOs in DIR (/var/tmp/systemtap-USER/MODULE).  stapbpf
# 4.8 may leave the directory, even its FIFOs, when it stops, and then
# refuses the next start ("making procfs fifos. File exists").  Only FIFOs
# named *.json and the then empty directory go, and nothing while a
# stapbpf runs MODULE.bo.  Used by `staprelay run` (client/run/backend_stap.c),
# stap/check.sh and qa 070.
dir=$1 mod=$2
pgrep -f "stapbpf .*/$mod\.bo\$" >/dev/null && exit 0
for f in "$dir"/*.json; do [ -p "$f" ] && rm -f "$f"; done
rmdir "$dir" 2>/dev/null
exit 0
