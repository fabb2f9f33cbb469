/* heatmap_html: the interactive heat-map page (heatmap_write_html).
 *
 * One self-contained file: the grid as computed by stack/heatmap.c, the
 * distinct stacks, and every placed sample as (time, stack) so the page
 * can draw the flame graph of any selected range.  Samples are sorted
 * by time and written as base64 of LEB128 varints: the time step in
 * microseconds, then the stack's index -- about 3-4 bytes per sample --
 * and, when some record stands for more than one sample ("weighted"),
 * its weight. */
#include "client/render/heatmap_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "client/render/flamesvg.h"
#include "client/render/html.h"
#include "client/render/palette.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

void html_escape(strbuf *out, const char *s, size_t n)
{
    xml_escape(out, s, n, true);
}

void html_varint(strbuf *out, uint64_t v)
{
    while (v >= 0x80) {
        sb_addc(out, (char)(unsigned char)((v & 0x7f) | 0x80));
        v >>= 7;
    }
    sb_addc(out, (char)(unsigned char)v);
}

void html_base64(strbuf *out, const unsigned char *p, size_t n)
{
    static const char a[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    sb_reserve(out, (n + 2) / 3 * 4 + 1);
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        char q[4] = { a[v >> 18], a[(v >> 12) & 63], a[(v >> 6) & 63],
                      a[v & 63] };
        sb_add(out, q, 4);
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        char q[4] = { a[v >> 18], a[(v >> 12) & 63],
                      i + 1 < n ? a[(v >> 6) & 63] : '=', '=' };
        sb_add(out, q, 4);
    }
}

static void js_str(strbuf *sb, const char *s, size_t n)
{
    sb_addc(sb, '"');
    json_escape(sb, s, n);
    sb_addc(sb, '"');
}

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"generator\" content=\"staprelay heatmap\">\n"
    "<style>\n"
    "body { font-family: Verdana, sans-serif; font-size: 13px; margin: 8px 12px; }\n"
    "h1 { font-size: 18px; margin: 0 0 4px 0; }\n"
    "#src { color: #555; }\n"
    "#warnings { color: #8a4b00; margin: 6px 0; padding-left: 18px; }\n"
    "#msg { margin: 6px 0; padding: 4px 6px; background: #f4f4f4; }\n"
    "#msg.error { background: #fdd; color: #900; font-weight: bold; }\n"
    "#msg.warn { background: #ffeccc; color: #7a4100; }\n"
    "#hmdetails { min-height: 1.3em; font-family: monospace; }\n"
    "#hmwrap { overflow-x: auto; border: 1px solid #ddd; }\n"
    "#hm text { font-size: 10px; }\n"
    "#hm rect.cell { stroke: #fff; stroke-width: 0.3; cursor: pointer; }\n"
    "#hm rect.cell:hover { stroke: #000; stroke-width: 1; }\n"
    "#hm rect.anchor, #hm rect.sel1, #hm rect.sel2 { fill: none; pointer-events: none; stroke-width: 2; }\n"
    "#hm rect.anchor { stroke: #000; stroke-dasharray: 3 2; }\n"
    "#hm rect.sel1 { stroke: #1f6feb; }\n"
    "#hm rect.sel2 { stroke: #2da44e; }\n"
    "#flamehead { margin: 10px 0 4px 0; font-weight: bold; }\n"
    "#flame { overflow: auto; }\n"
    "</style>\n";

/* "NAME":"rgb(r,g,b)" for every frame name of the stacks the page uses
 * (map[e] set), in flame's palette (the root's name is ""). */
static void frame_colors(strbuf *sb, const heatmap *h, const uint32_t *map,
                         const svg_options *so)
{
    stacktab *names = stacktab_new();
    bool first = true;
    rgb c = palette_color(so->colors, so->hash, "", 0);
    sb_printf(sb, "\"\":\"rgb(%d,%d,%d)\"", c.r, c.g, c.b);
    first = false;
    for (size_t e = 0; e < stacktab_size(h->tab); e++) {
        if (map[e] == UINT32_MAX)
            continue;
        const stack_entry *se = stacktab_entry(h->tab, e);
        for (size_t i = 0; i <= se->len;) {
            const char *semi = memchr(se->stack + i, ';', se->len - i);
            size_t j = semi ? (size_t)(semi - se->stack) : se->len;
            if (stacktab_find(names, se->stack + i, j - i) == NULL) {
                stacktab_add(names, se->stack + i, j - i, 0, 1);
                c = palette_color(so->colors, so->hash, se->stack + i, j - i);
                if (!first)
                    sb_addc(sb, ',');
                js_str(sb, se->stack + i, j - i);
                sb_printf(sb, ":\"rgb(%d,%d,%d)\"", c.r, c.g, c.b);
                first = false;
            }
            i = j + 1;
        }
    }
    stacktab_free(names);
}

int heatmap_write_html(FILE *out, const heatmap *h, const heatmap_page *o)
{
    const char *title = o && o->title ? o->title : "Heat map";
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, page_head);
    sb_adds(&sb, "<title>");
    html_escape(&sb, title, strlen(title));
    sb_adds(&sb, "</title>\n</head>\n<body>\n<h1>");
    html_escape(&sb, title, strlen(title));
    sb_adds(&sb, "</h1>\n<div id=\"src\">");
    if (o && o->source)
        html_escape(&sb, o->source, strlen(o->source));
    sb_adds(&sb, "</div>\n<ul id=\"warnings\">");
    strbuf w = STRBUF_INIT;
    heatmap_warnings(h, &w);
    for (char *p = w.buf, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        sb_adds(&sb, "<li>");
        html_escape(&sb, p, (size_t)(nl - p));
        sb_adds(&sb, "</li>");
    }
    sb_adds(&sb, "</ul>\n<div id=\"msg\" class=\"error\">This page needs "
            "JavaScript to show the heat map.</div>\n"
            "<div id=\"hmdetails\"> </div>\n"
            "<div id=\"hmwrap\"><svg id=\"hm\" "
            "xmlns=\"http://www.w3.org/2000/svg\"></svg></div>\n"
            "<div><button id=\"clear\">Clear selection (Esc)</button></div>\n"
            "<div id=\"flamehead\"></div>\n<div id=\"flame\"></div>\n"
            "<script>window.onerror = function (m) { var e = "
            "document.getElementById('msg'); e.className = 'error'; "
            "e.textContent = 'The page failed: ' + m; };</script>\n"
            "<script id=\"hm-data\" type=\"application/json\">{");
    double cw, ch;
    heatmap_geometry(h, &cw, &ch);
    sb_adds(&sb, "\"title\":");
    js_str(&sb, title, strlen(title));
    sb_printf(&sb, ",\"rows\":%d,\"cols\":%d,\"base_s\":%" PRId64
              ",\"maxvalue\":%" PRIu32 ",\"enhance\":%s,\"keep_idle\":%s"
              ",\"cw\":%g,\"ch\":%g,\"nsamples\":%zu,\"weighted\":%s"
              ",\"total\":%" PRIu64 ",\"wall\":%s,\"values\":[",
              h->rows, h->cols, h->base_s, h->maxvalue,
              o && o->enhance ? "true" : "false",
              h->keep_idle ? "true" : "false", cw, ch, h->n,
              h->weighted ? "true" : "false", h->weight,
              heatmap_wall_clock(h) ? "true" : "false");
    size_t cells = (size_t)h->rows * (size_t)h->cols;
    for (size_t i = 0; i < cells; i++) {
        sb_printf(&sb, i ? ",%" PRIu32 : "%" PRIu32, h->values[i]);
        if (sb.len > (1 << 20)) {
            fwrite(sb.buf, 1, sb.len, out);
            sb_reset(&sb);
        }
    }
    /* distinct stacks in order of first use; samples as varints */
    size_t nent = stacktab_size(h->tab);
    uint32_t *map = xmalloc((nent ? nent : 1) * sizeof *map);
    memset(map, 0xff, (nent ? nent : 1) * sizeof *map);
    uint32_t nused = 0;
    strbuf bytes = STRBUF_INIT;
    sb_adds(&sb, "],\"stacks\":[");
    int64_t prev = h->base_s * 1000000;
    for (size_t i = 0; i < h->n; i++) {
        uint32_t e = h->s[i].stack;
        if (map[e] == UINT32_MAX) {
            const stack_entry *se = stacktab_entry(h->tab, e);
            if (nused)
                sb_addc(&sb, ',');
            js_str(&sb, se->stack, se->len);
            map[e] = nused++;
            if (sb.len > (1 << 20)) {
                fwrite(sb.buf, 1, sb.len, out);
                sb_reset(&sb);
            }
        }
        html_varint(&bytes, (uint64_t)(h->s[i].t_us - prev));
        html_varint(&bytes, map[e]);
        if (h->weighted)
            html_varint(&bytes, h->s[i].w);
        prev = h->s[i].t_us;
    }
    /* the page's flame graphs are flame's: its head (flamesvg), the
     * colour of every frame name from flame's palette */
    svg_options dflt;
    svg_options_default(&dflt);
    const svg_options *so = o && o->svg ? o->svg : &dflt;
    sb_adds(&sb, "],\"countname\":");
    js_str(&sb, so->countname, strlen(so->countname));
    sb_printf(&sb, ",\"fwidth\":%g,\"fheight\":%g,\"fontsize\":%g,"
              "\"fontwidth\":%g,\"minwidth\":%g,\"minwidth_pct\":%s,"
              "\"inverted\":%s,\"negate\":%s,\"flamehead\":",
              so->width, so->frameheight, so->fontsize, so->fontwidth,
              so->minwidth, so->minwidth_pct ? "true" : "false",
              so->inverted ? "true" : "false", so->negate ? "true" : "false");
    strbuf head = STRBUF_INIT;
    flamesvg_page_head(&head, so, "Flame Graph");
    js_str(&sb, head.buf, head.len);
    sb_free(&head);
    sb_adds(&sb, ",\"colors\":{");
    frame_colors(&sb, h, map, so);
    free(map);
    sb_adds(&sb, "},\"samples\":\"");
    fwrite(sb.buf, 1, sb.len, out);
    sb_reset(&sb);
    html_base64(&sb, (const unsigned char *)bytes.buf, bytes.len);
    sb_free(&bytes);
    sb_adds(&sb, "\"}</script>\n<script>\n");
    flamesvg_script(&sb, so);       /* flame's zoom and search, once */
    sb_adds(&sb, "</script>\n<script>\n");
    sb_add(&sb, (const char *)html_flow_js[0].data, html_flow_js[0].len);
    sb_adds(&sb, "</script>\n<script>\n");
    sb_add(&sb, (const char *)html_heatmap_js[0].data, html_heatmap_js[0].len);
    sb_adds(&sb, "</script>\n</body>\n</html>\n");
    fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
    sb_free(&w);
    return ferror(out) ? -1 : 0;
}
