# client/: the staprelay command.  Its modules are grouped in sub-folders
# (cmd/ input/ stack/ render/ run/ util/ pprof/; docs/design.md says which
# is which).
CLIENT_MAIN := client/main.c
CLIENT_SRCS += $(wildcard client/*/*.c)

# pprof's profile.proto (client/pprof/profile.proto, our own copy of the
# published schema): protoc-c writes its C code under build/gen at build
# time; nothing generated is committed.  The grouped target (&:) runs
# protoc-c once for both files.
PPROF_PROTO := client/pprof/profile.proto
PPROF_PB_C  := build/gen/client/pprof/profile.pb-c.c
PPROF_PB_H  := build/gen/client/pprof/profile.pb-c.h
CLIENT_SRCS += $(PPROF_PB_C)
CFLAGS_COMMON += -Ibuild/gen
# protobuf-c and zlib (pprof in and out), elfutils' libdw (annotate)
CLIENT_LIBS := $(shell pkg-config --libs libprotobuf-c zlib libdw 2>/dev/null \
                 || echo -lprotobuf-c -lz -ldw -lelf)
# libcurl (pmproxy's REST API: --series)
CLIENT_LIBS += $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
# libmicrohttpd (staprelay web's HTTP server: client/web/httpd)
CLIENT_LIBS += $(shell pkg-config --libs libmicrohttpd 2>/dev/null || echo -lmicrohttpd)
# The relay's string map (libc only), for the counters' instance names.
CLIENT_SRCS += relay/strmap.c

$(PPROF_PB_C) $(PPROF_PB_H) &: $(PPROF_PROTO)
	@mkdir -p build/gen
	protoc-c --c_out=build/gen $(PPROF_PROTO)

# everything of the client's (and its tests) may include the generated
# header: it exists before any of them compiles
$(foreach v,plain asan,$(patsubst %.c,build/$(v)/%.o,$(wildcard client/*/*.c) \
    $(wildcard tests/client_*.c) tests/check_main.c)): | $(PPROF_PB_H)

# staprelay web's page (client/web/page/*, every file there, sorted):
# scripts/embed.sh writes it into build/gen as the table web_assets
# (client/util/embed.h, declared in client/web/assets.h).  Rewritten
# when a file there changes, and when one comes or goes (the folder's
# own time changes then).
WEB_PAGE_DIR   := client/web/page
WEB_PAGE_FILES := $(sort $(notdir $(wildcard $(WEB_PAGE_DIR)/*)))
WEB_ASSETS_C   := build/gen/client/web/assets.c
CLIENT_SRCS += $(WEB_ASSETS_C)

$(WEB_ASSETS_C): $(addprefix $(WEB_PAGE_DIR)/,$(WEB_PAGE_FILES)) $(WEB_PAGE_DIR) scripts/embed.sh
	@mkdir -p $(dir $@)
	scripts/embed.sh web_assets $(WEB_PAGE_DIR) $(WEB_PAGE_FILES) > $@.tmp
	mv -f $@.tmp $@

# as the pprof code: generated before any of the client's objects builds
$(foreach v,plain asan,$(patsubst %.c,build/$(v)/%.o,$(wildcard client/*/*.c) \
    $(wildcard tests/client_*.c) tests/check_main.c)): | $(WEB_ASSETS_C)
