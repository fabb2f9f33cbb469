# client/: the staprelay command.  Its modules are grouped in sub-folders
# (cmd/ input/ stack/ render/ run/ util/; docs/design.md says which is which).
CLIENT_MAIN := client/main.c
CLIENT_SRCS += $(wildcard client/*/*.c)
# Two libc-only relay modules the client shares (the stack instance name
# rule and the string map), until a common/ folder holds such code.
CLIENT_SRCS += relay/strmap.c relay/stackname.c
