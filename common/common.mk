# common/: what relay/ and client/ share -- libc only (no PCP, no jansson,
# no libev), linked into every binary and test runner (docs/design.md).
COMMON_SRCS += $(wildcard common/*.c)
