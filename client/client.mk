# client/: the staprelay command.  Its modules are grouped in sub-folders
# (cmd/ input/ stack/ render/ run/ util/; docs/design.md says which is which).
CLIENT_MAIN := client/main.c
CLIENT_SRCS += $(wildcard client/*/*.c)
