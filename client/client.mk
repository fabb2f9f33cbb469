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

# Files the client carries (client/util/embed.h), one rule for all of
# them: $(call embed,SYMBOL,DIR,FILES) writes build/gen/DIR/SYMBOL.c, the
# table SYMBOL[] of FILES (paths below DIR, in that order) by
# scripts/embed.sh, and links it into the client; the header that uses
# the table declares it.  The sources stay real .js/.css/.html files and
# nothing generated is committed.  Used for the flame graph's and the heat
# map page's scripts here, and for staprelay web's page (client/web/page/).
# Written on every make, replaced only when it changed: FILES may come
# from a wildcard, and a file added or removed changes no timestamp.
define embed
build/gen/$(2)/$(1).c: scripts/embed.sh $(addprefix $(2)/,$(3)) FORCE
	@mkdir -p $$(dir $$@)
	@scripts/embed.sh $(1) $(2) $(3) > $$@.new
	@cmp -s $$@.new $$@ && rm -f $$@.new || mv -f $$@.new $$@
CLIENT_SRCS += build/gen/$(2)/$(1).c
endef
$(eval $(call embed,flame_js,client/render,flame.js))
$(eval $(call embed,html_heatmap_js,client/render,heatmap_html.js))
$(eval $(call embed,html_flow_js,client/render,flow.js))

$(PPROF_PB_C) $(PPROF_PB_H) &: $(PPROF_PROTO)
	@mkdir -p build/gen
	protoc-c --c_out=build/gen $(PPROF_PROTO)

# everything of the client's (and its tests) may include the generated
# header: it exists before any of them compiles
$(foreach v,plain asan,$(patsubst %.c,build/$(v)/%.o,$(wildcard client/*/*.c) \
    $(wildcard tests/client_*.c) tests/check_main.c)): | $(PPROF_PB_H)

# staprelay web's page (every file below client/web/page, sub-folders
# too, by their paths there, sorted bytewise), by the same embed rule:
# the table web_assets, declared in client/web/assets.h.
WEB_PAGE_DIR   := client/web/page
WEB_PAGE_FILES := $(shell cd $(WEB_PAGE_DIR) 2>/dev/null && find . -type f \
                    ! -name '.*' | sed 's|^\./||' | LC_ALL=C sort)
$(eval $(call embed,web_assets,$(WEB_PAGE_DIR),$(WEB_PAGE_FILES)))
