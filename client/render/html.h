/* html: standalone HTML pages (no network dependencies): the heat-map
 * page's script and small writing helpers. */
#ifndef STAPRELAY_HTML_H
#define STAPRELAY_HTML_H

#include <stddef.h>
#include <stdint.h>
#include "client/util/embed.h"
#include "common/strbuf.h"

/* The heat-map page's script: its source is client/render/heatmap_html.js,
 * which client.mk's embed rule writes into
 * build/gen/client/render/html_heatmap_js.c (one file, [0]). */
extern const embedded_file html_heatmap_js[];
extern const size_t html_heatmap_js_count;

/* The flame-graph layout both pages share (flamegraph.pl's flow(), with
 * esc/fmtn/numText): client/render/flow.js, embedded the same way into
 * html_flow_js.c.  The heat-map page carries it before its own script;
 * staprelay web serves it as /static/flow.js. */
extern const embedded_file html_flow_js[];
extern const size_t html_flow_js_count;

/* Append s as HTML text (& < > " escaped; invalid UTF-8 as \xNN). */
void html_escape(strbuf *out, const char *s, size_t n);
/* Append an unsigned LEB128 varint to a byte buffer. */
void html_varint(strbuf *out, uint64_t v);
/* Append the base64 encoding of n bytes. */
void html_base64(strbuf *out, const unsigned char *p, size_t n);

#endif
