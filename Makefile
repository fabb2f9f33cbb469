# staprelay top-level build.
#
#   make          build pmda/pmdastaprelay and client/staprelay in place
#   make check    unit tests (plain and ASan/UBSan) + qa end-to-end tests
#   make check-unit    the unit tests only (plain and ASan/UBSan)
#   make check-design  docs/design.md against the tree; check-layers the
#                      parts' boundaries in the build (PCP headers, link sets)
#   make demo     private pmcd relaying the example sources
#   make install  DESTDIR/PREFIX aware; PMDA into $PCP_PMDAS_DIR/staprelay
#   make deps     install missing Debian packages (root)
#
# Each part lists its sources in its own fragment (relay/relay.mk, ...);
# objects go under build/<variant>/ so the plain and sanitizer builds never
# mix.

CC      ?= cc
OPT     ?= -O2
CFLAGS_COMMON = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g $(OPT) \
                -I. $(shell pkg-config --cflags jansson 2>/dev/null)
PCP_CFLAGS    = $(shell pkg-config --cflags libpcp 2>/dev/null) -DSTAPRELAY_BINDIR='"$(BINDIR)"'
JANSSON_LIBS  = $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
EV_LIBS       = -lev
PCP_LIBS      = -lpcp
PMDA_LIBS     = -lpcp_pmda -lpcp
CHECK_LIBS    = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
SAN_FLAGS     = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/staprelay
PCP_PMDAS_DIR ?= $(shell . /etc/pcp.conf 2>/dev/null && echo $$PCP_PMDAS_DIR || echo /var/lib/pcp/pmdas)
PCP_VAR_DIR ?= $(shell . /etc/pcp.conf 2>/dev/null && echo $$PCP_VAR_DIR || echo /var/lib/pcp)
PCP_SYSCONF_DIR ?= $(shell . /etc/pcp.conf 2>/dev/null && echo $$PCP_SYSCONF_DIR || echo /etc/pcp)

# the part fragments below define rules (client.mk's generated pprof
# code): without this the first of them, not all, is what plain make builds
.DEFAULT_GOAL := all

COMMON_SRCS :=
RELAY_SRCS  :=
PMDA_SRCS   :=
PMDA_MAIN   :=
CLIENT_SRCS :=
CLIENT_MAIN :=
include common/common.mk
include relay/relay.mk
include pmda/pmda.mk
include client/client.mk

obj = $(patsubst %.c,build/$(1)/%.o,$(2))

COMMON_OBJS     = $(call obj,plain,$(COMMON_SRCS))
RELAY_OBJS      = $(call obj,plain,$(RELAY_SRCS))
PMDA_OBJS       = $(call obj,plain,$(PMDA_SRCS))
CLIENT_OBJS     = $(call obj,plain,$(CLIENT_SRCS))

PMDA_BIN   = pmda/pmdastaprelay
CLIENT_BIN = client/staprelay

HOT_BIN    = examples/hot/hot

all: $(PMDA_BIN) $(CLIENT_BIN) $(HOT_BIN)

# The demo's and qa's workload: frame pointers and symbols, every
# function out of line, so its stacks are walked whole (-O0: gcc 12
# leaves leaf functions without a frame pointer at -O1 whatever the
# flags, and perf's walk then skips their callers).
$(HOT_BIN): examples/hot/hot.c
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O0 -g \
	    -fno-omit-frame-pointer -o $@ $<

# relay/ and common/ never include a PCP header (docs/design.md).  PCP's
# headers are in /usr/include, on every compiler's path, so leaving PCP's
# -I out would guard nothing: their objects are compiled with build/nopcp
# first in the search path, where each of PCP's pcp/*.h is an #error.
# make check-layers proves it (a stray include fails; client/ and pmda/
# files still build).
PCP_INCLUDEDIR := $(shell pkg-config --variable=includedir libpcp 2>/dev/null)
PCP_HDRDIR     := $(dir $(firstword $(wildcard $(PCP_INCLUDEDIR)/pmapi.h \
                      $(PCP_INCLUDEDIR)/pcp/pmapi.h /usr/include/pcp/pmapi.h)))
NOPCP_HEADERS  := $(addprefix build/nopcp/pcp/,$(sort pmapi.h pmda.h impl.h libpcp.h import.h \
                      $(notdir $(wildcard $(PCP_HDRDIR)*.h))))
$(NOPCP_HEADERS):
	@mkdir -p $(dir $@)
	@echo '#error "relay/ and common/ never include PCP (docs/design.md)"' > $@

# A source file's compile flags: relay/'s and common/'s without PCP.
src_cflags = $(if $(filter relay/% common/%,$(1)),-Ibuild/nopcp $(CFLAGS_COMMON),$(CFLAGS_COMMON) $(PCP_CFLAGS))

build/plain/%.o: %.c | $(NOPCP_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(call src_cflags,$<) -MMD -MP -c $< -o $@

build/asan/%.o: %.c | $(NOPCP_HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(call src_cflags,$<) $(SAN_FLAGS) -MMD -MP -c $< -o $@

# What each binary links is its parts only: client/staprelay is client/ +
# common/ (and client/'s code generated into build/gen), pmdastaprelay
# pmda/ + relay/ + common/.  A source from another part stops the build.
outside = $(filter-out $(addsuffix /%,$(2)),$(1))
ifneq ($(call outside,$(CLIENT_MAIN) $(CLIENT_SRCS),client common build/gen/client),)
$(error client/staprelay links client/ and common/ only, not $(call outside,$(CLIENT_MAIN) $(CLIENT_SRCS),client common build/gen/client))
endif
ifneq ($(call outside,$(PMDA_MAIN) $(PMDA_SRCS) $(RELAY_SRCS) $(COMMON_SRCS),pmda relay common),)
$(error pmdastaprelay links pmda/, relay/ and common/ only, not $(call outside,$(PMDA_MAIN) $(PMDA_SRCS) $(RELAY_SRCS) $(COMMON_SRCS),pmda relay common))
endif

$(PMDA_BIN): $(call obj,plain,$(PMDA_MAIN)) $(PMDA_OBJS) $(RELAY_OBJS) $(COMMON_OBJS)
	$(CC) -o $@ $^ $(PMDA_LIBS) $(JANSSON_LIBS) $(EV_LIBS)

# The PMDA built with ASan/UBSan, for a qa pass (QA_STAPRELAY_BIN).
build/asan/pmdastaprelay: $(call obj,asan,$(PMDA_MAIN)) $(call obj,asan,$(PMDA_SRCS)) \
                          $(call obj,asan,$(RELAY_SRCS)) $(call obj,asan,$(COMMON_SRCS))
	$(CC) $(SAN_FLAGS) -o $@ $^ $(PMDA_LIBS) $(JANSSON_LIBS) $(EV_LIBS)

$(CLIENT_BIN): $(call obj,plain,$(CLIENT_MAIN)) $(CLIENT_OBJS) $(COMMON_OBJS)
	$(CC) -o $@ $^ $(PCP_LIBS) $(JANSSON_LIBS) $(CLIENT_LIBS) -lm

# ---- unit tests -------------------------------------------------------
# One Check runner per part: build/<variant>/check_<part> runs the suite
# of every tests/<part>_*.c (each file tests one module and defines one
# suite named after itself, TEST_SUITE in tests/testutil.h); the list is
# generated from the file names (tests/gen-suites.sh), kept by no one.
TEST_PARTS := common relay pmda client
TEST_common_LINK := $(COMMON_SRCS)
TEST_relay_LINK  := $(RELAY_SRCS) $(COMMON_SRCS)
TEST_pmda_LINK   := $(PMDA_SRCS) $(RELAY_SRCS) $(COMMON_SRCS)
TEST_client_LINK := $(CLIENT_SRCS) $(COMMON_SRCS)
TEST_common_LIBS :=
TEST_relay_LIBS  = $(JANSSON_LIBS) $(EV_LIBS)
TEST_pmda_LIBS   = $(PMDA_LIBS) $(JANSSON_LIBS) $(EV_LIBS)
TEST_client_LIBS = $(PCP_LIBS) $(JANSSON_LIBS) $(CLIENT_LIBS)

# (regenerated on every make, replaced only when the list changed: a
# removed test file changes no timestamp)
define test_runner
build/$(1)/tests/suites_$(2).c: tests/gen-suites.sh FORCE
	@mkdir -p $$(dir $$@)
	@tests/gen-suites.sh $(sort $(wildcard tests/$(2)_*.c)) > $$@.new
	@cmp -s $$@.new $$@ && rm -f $$@.new || mv -f $$@.new $$@

build/$(1)/tests/suites_$(2).o: build/$(1)/tests/suites_$(2).c
	$$(CC) $(CFLAGS_COMMON) $(if $(filter asan,$(1)),$(SAN_FLAGS)) -c $$< -o $$@

build/$(1)/check_$(2): $(call obj,$(1),tests/check_main.c $(wildcard tests/$(2)_*.c) tests/testutil.c $(wildcard tests/testutil_$(2).c)) \
                       build/$(1)/tests/suites_$(2).o $(call obj,$(1),$(TEST_$(2)_LINK))
	$$(CC) $(if $(filter asan,$(1)),$(SAN_FLAGS)) -o $$@ $$^ $$(TEST_$(2)_LIBS) $(CHECK_LIBS) -lm
endef
$(foreach v,plain asan,$(foreach p,$(TEST_PARTS),$(eval $(call test_runner,$(v),$(p)))))

UNIT_RUNNERS = $(foreach v,plain asan,$(foreach p,$(TEST_PARTS),build/$(v)/check_$(p)))

unit: $(UNIT_RUNNERS) build/asan/pmdastaprelay

# ---- top-level targets ------------------------------------------------
deps:
	@./scripts/deps.sh

check:
	@./scripts/deps.sh >/dev/null || ./scripts/deps.sh
	@./scripts/check-design.py
	@$(MAKE) --no-print-directory all unit
	@./scripts/check-layers.sh
	@./scripts/check.sh $(UNIT_RUNNERS)

# The quick loop: build and run the unit tests only (plain and ASan/UBSan).
check-unit: $(UNIT_RUNNERS)
	@./scripts/check.sh --unit $(UNIT_RUNNERS)

# docs/design.md against the tree (scripts/check-design.py); the parts'
# boundaries in the build (scripts/check-layers.sh).
check-design:
	@./scripts/check-design.py
check-layers:
	@./scripts/check-layers.sh

# The real-kernel suite alone (qa/vm/run, also make check's last phase).
check-vm:
	@./scripts/deps.sh >/dev/null || ./scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@./qa/vm/run

demo:
	@./scripts/deps.sh >/dev/null || ./scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@./scripts/demo.sh

STAP_DATA  := $(wildcard stap/*.stp) stap/memlock_shim.c stap/README.md
STAP_TOOLS := stap/kbuild.sh stap/kmod.sh stap/bpf-leftovers.sh
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay
	install -m 755 $(CLIENT_BIN) $(DESTDIR)$(BINDIR)/staprelay
	install -m 755 $(PMDA_BIN) $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmdastaprelay
	install -m 755 pmda/Install pmda/Remove $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/
	install -m 644 pmda/pmns pmda/root $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/
# domain.h holds the domain STAPRELAY_DOMAIN=N ./Install chose; Remove
# and later Installs need it, so a reinstall keeps it
	[ -f $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/domain.h ] || \
	    install -m 644 pmda/domain.h $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/
	install -m 644 pmda/config.json $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/config.json.default
# the farm's files (docs/fleet.md): in the PMDA's directory, where Install
# finds them, and where PCP looks for them, as a package would put them
	install -d $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmlogconf \
	    $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmieconf $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmrep \
	    $(DESTDIR)$(PCP_VAR_DIR)/config/pmlogconf/staprelay \
	    $(DESTDIR)$(PCP_VAR_DIR)/config/pmieconf/staprelay $(DESTDIR)$(PCP_SYSCONF_DIR)/pmrep
	install -m 644 pmda/pmlogconf/* $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmlogconf/
	install -m 644 pmda/pmieconf/* $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmieconf/
	install -m 644 pmda/pmrep/* $(DESTDIR)$(PCP_PMDAS_DIR)/staprelay/pmrep/
	install -m 644 pmda/pmlogconf/* $(DESTDIR)$(PCP_VAR_DIR)/config/pmlogconf/staprelay/
	install -m 644 pmda/pmieconf/* $(DESTDIR)$(PCP_VAR_DIR)/config/pmieconf/staprelay/
	install -m 644 pmda/pmrep/staprelay.conf $(DESTDIR)$(PCP_SYSCONF_DIR)/pmrep/
	install -m 644 pmda/pmdastaprelay.1 $(DESTDIR)$(MANDIR)/man1/
	[ ! -f client/staprelay.1 ] || install -m 644 client/staprelay.1 $(DESTDIR)$(MANDIR)/man1/
# the bundled scripts and what `staprelay run` runs them with, by name:
# not stap/check.sh, stap/tests or stap/fixtures (the developers' checks
# and their data), nor anything a build left in stap/
	install -d $(DESTDIR)$(DATADIR)/stap/tapset $(DESTDIR)$(DATADIR)/stap/bpf
	install -m 644 $(STAP_DATA) $(DESTDIR)$(DATADIR)/stap/
	install -m 755 $(STAP_TOOLS) $(DESTDIR)$(DATADIR)/stap/
	install -m 644 $(wildcard stap/tapset/*.stp stap/tapset/*.stpm) $(DESTDIR)$(DATADIR)/stap/tapset/
	install -m 644 $(wildcard stap/bpf/*.stp) $(DESTDIR)$(DATADIR)/stap/bpf/
	cp -r schemas examples $(DESTDIR)$(DATADIR)/

clean:
	rm -rf build $(PMDA_BIN) $(CLIENT_BIN) $(HOT_BIN)

FORCE:
.PHONY: all unit deps check check-unit check-design check-layers check-vm demo install clean FORCE
-include $(shell find build -name '*.d' 2>/dev/null)

# ---- fuzzing (libFuzzer, clang) ---------------------------------------
# make fuzz: every target for FUZZ_SECONDS (default 60) from a seed corpus
# of the repository's own fixtures; make check runs each for a few seconds.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_FLAGS    = -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
                $(shell pkg-config --cflags jansson 2>/dev/null)

# the client's stack table and sink (with its filters), which every
# client-side target links
FUZZ_STACK_SRCS = client/stack/stacksink.c client/stack/stackfilter.c client/stack/stacktab.c

# the client's file parsers, for fuzz_stack_files
FUZZ_CLIENT_SRCS = client/input/collapse_perf.c client/input/collapse_stap.c client/input/folded.c \
                   $(FUZZ_STACK_SRCS) $(COMMON_SRCS)

build/fuzz/fuzz_stack_files: fuzz/fuzz_stack_files.c $(FUZZ_CLIENT_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_CLIENT_SRCS) -lm

# pprof import and export, for fuzz_pprof
FUZZ_PPROF_SRCS = client/input/pprof_read.c client/render/pprof_write.c \
                  client/input/dwarf_lines.c \
                  client/pprof/pprof_codec.c $(PPROF_PB_C) $(FUZZ_STACK_SRCS) $(COMMON_SRCS)

build/fuzz/fuzz_pprof: fuzz/fuzz_pprof.c $(FUZZ_PPROF_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Ibuild/gen -o $@ $< $(FUZZ_PPROF_SRCS) $(CLIENT_LIBS) -lm

# pmproxy's /series/values reply, for fuzz_series_values (jansson the oracle)
build/fuzz/fuzz_series_values: fuzz/fuzz_series_values.c client/input/series_values.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ $(JANSSON_LIBS) -lm

build/fuzz/%: fuzz/%.c $(RELAY_SRCS) $(COMMON_SRCS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(RELAY_SRCS) $(COMMON_SRCS) $(JANSSON_LIBS) $(EV_LIBS)

fuzz-build: $(addprefix build/fuzz/,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@./scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-build
