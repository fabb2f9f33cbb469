# pmda/: pmdastaprelay, the PCP glue around the relay.
PMDA_MAIN := pmda/main.c
PMDA_SRCS += $(filter-out $(PMDA_MAIN),$(wildcard pmda/*.c))
