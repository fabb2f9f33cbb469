#!/bin/sh
# data-exec example: print one JSON document on stdout.  The PMDA runs this
# without a shell interpreter of its own, as user nobody (untrusted
# directory), with a time-out.
read one five fifteen tasks last < /proc/loadavg
printf '{"one": %s, "runnable": %s, "last_pid": %s}\n' "$one" "${tasks%/*}" "$last"
