# relay/: sources, JSON parsing and the typed metric model.  No PCP here.
RELAY_SRCS += $(wildcard relay/*.c)
