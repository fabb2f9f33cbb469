# client/: the staprelay command.
CLIENT_MAIN := client/main.c
CLIENT_SRCS += $(filter-out $(CLIENT_MAIN),$(wildcard client/*.c))
