# client/: the staprelay command.  Its modules are grouped in sub-folders
# (cmd/ input/ stack/ render/ run/ util/; docs/design.md says which is which).
CLIENT_MAIN := client/main.c
CLIENT_SRCS += $(wildcard client/*/*.c)
# The relay's string map (libc only), for the counters' instance names.
CLIENT_SRCS += relay/strmap.c
