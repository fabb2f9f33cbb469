/* flamesvg: flametree → interactive SVG (see flamesvg.h). */
#include "client/render/flamesvg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/render/flame_js.h"
#include "client/render/svgattr.h"
#include "common/strbuf.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

#define XPAD FT_XPAD
#define FRAMEPAD 1.0

void svg_options_default(svg_options *o)
{
    memset(o, 0, sizeof *o);
    o->countname = "samples";
    o->nametype = "Function:";
    o->fonttype = "Verdana";
    o->width = 1200;
    o->frameheight = 16;
    o->fontsize = 12;
    o->fontwidth = 0.59;
    o->minwidth = 0.1;
    o->colors = PAL_HOT;
    o->factor = 1;
    o->palette_file = "palette.map";
}

bool flamesvg_bgcolors_ok(const char *s)
{
    if (strcmp(s, "yellow") == 0 || strcmp(s, "blue") == 0
        || strcmp(s, "green") == 0 || strcmp(s, "grey") == 0)
        return true;
    return strlen(s) == 7 && s[0] == '#' && strchr(s + 1, '\n') == NULL;
}

int flamesvg_prepare(svg_options *o, strbuf *err)
{
    if (o->nameattr_file && o->attrs == NULL) {
        o->attrs = name_attrs_load(o->nameattr_file, err);
        if (o->attrs == NULL)
            return -1;
    }
    if (o->cp && o->pmap == NULL) {
        o->pmap = palette_map_load(o->palette_file, err);
        if (o->pmap == NULL)
            return -1;
    }
    return 0;
}

int flamesvg_finish(svg_options *o, strbuf *err)
{
    int rc = 0;
    if (o->pmap)
        rc = palette_map_save(o->pmap, o->palette_file, err);
    palette_map_free(o->pmap);
    o->pmap = NULL;
    name_attrs_free(o->attrs);
    o->attrs = NULL;
    return rc;
}

/* The background stops: --bgcolors, else the palette's. */
static void background(const svg_options *o, const char **top,
                       const char **bottom)
{
    const char *b = o->bgcolors;
    if (b == NULL) {
        palette_background(o->colors, top, bottom);
    } else if (b[0] == '#') {
        *top = *bottom = b;
    } else if (strcmp(b, "blue") == 0) {
        *top = "#eeeeee", *bottom = "#e0e0ff";
    } else if (strcmp(b, "green") == 0) {
        *top = "#eef2ee", *bottom = "#e0ffe0";
    } else if (strcmp(b, "grey") == 0) {
        *top = "#f8f8f8", *bottom = "#e8e8e8";
    } else {
        *top = "#eeeeee", *bottom = "#eeeeb0";
    }
}

void flamesvg_tree_options(const svg_options *o, ft_options *fo)
{
    fo->prune.enabled = true;
    fo->prune.pct = o->minwidth_pct;
    fo->prune.minwidth = o->minwidth;
    fo->prune.width = o->width;
}

/* ---- numbers, as printf would write them, without printf ----------- */

/* Digits of v, most significant first; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* a (>= 0) times 10^digits rounded to an integer exactly as printf's
 * "%.Nf" rounds: to nearest, ties to even, on the exact binary value.
 * fma() gives the exact sign of a*s - c (a nonzero exact result never
 * rounds to zero), which is all the decision needs.  False when out of
 * the range where that holds (then use printf). */
static bool fixed_scaled(double a, int digits, uint64_t *q)
{
    static const double scale[] = { 1, 10, 100 };
    double s = scale[digits];
    if (!(a >= 0 && a * s < 4e15))      /* also rejects NaN */
        return false;
    double f = floor(a * s);
    if (fma(a, s, -f) < 0)
        f -= 1;
    else if (fma(a, s, -(f + 1)) >= 0)
        f += 1;
    double d = fma(a, s, -(f + 0.5));
    if (d > 0 || (d == 0 && fmod(f, 2) != 0))
        f += 1;
    *q = (uint64_t)f;
    return true;
}

/* Write q / 10^digits with exactly `digits` decimals. */
static char *put_scaled(char *p, uint64_t q, int digits)
{
    uint64_t div = digits == 1 ? 10 : 100;
    p = put_u64(p, q / div);
    *p++ = '.';
    uint64_t r = q % div;
    if (digits == 2)
        *p++ = (char)('0' + r / 10);
    *p++ = (char)('0' + r % 10);
    return p;
}

/* sprintf("%.1f") / ("%.2f"), digits 1 or 2. */
static void fixed_num(strbuf *sb, double v, int digits)
{
    uint64_t q;
    if (!fixed_scaled(fabs(v), digits, &q)) {
        sb_printf(sb, "%.*f", digits, v);
        return;
    }
    sb_reserve(sb, 32);
    char *p = sb->buf + sb->len;
    if (signbit(v))
        *p++ = '-';
    p = put_scaled(p, q, digits);
    *p = '\0';
    sb->len = (size_t)(p - sb->buf);
}

static void int_num(strbuf *sb, int v)
{
    sb_reserve(sb, 16);
    char *p = sb->buf + sb->len;
    if (v < 0) {
        *p++ = '-';
        p = put_u64(p, (uint64_t)0 - (uint64_t)v);
    } else {
        p = put_u64(p, (uint64_t)v);
    }
    *p = '\0';
    sb->len = (size_t)(p - sb->buf);
}

/* A number as Perl prints it by default (%.15g). */
static void perl_num(strbuf *sb, double v)
{
    if (v == 0)
        v = 0;          /* no "-0" */
    if (fabs(v) < 1e15 && v == floor(v)) {
        sb_addnum(sb, v);       /* an integer, exactly */
        return;
    }
    double a = fabs(v);
    if (a < 1e14 && a * 2 == floor(a * 2)) {     /* N.5 */
        sb_reserve(sb, 32);
        char *p = sb->buf + sb->len;
        if (signbit(v))
            *p++ = '-';
        p = put_u64(p, (uint64_t)a);
        *p++ = '.';
        *p++ = '5';
        *p = '\0';
        sb->len = (size_t)(p - sb->buf);
        return;
    }
    sb_printf(sb, "%.15g", v);
}

/* An exact weight for the fg: attributes. */
static void weight_num(strbuf *sb, double v) { sb_addnum(sb, v); }

void flamesvg_fixed(strbuf *sb, double v, int digits)
{
    fixed_num(sb, v, digits);
}

void flamesvg_perl_num(strbuf *sb, double v) { perl_num(sb, v); }

/* Display name: the annotation suffix only drives colour. */
static size_t display_len(const char *s, size_t n)
{
    if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']'
        && strchr("kwij", s[n - 2]) != NULL)
        return n - 4;
    return n;
}

static void js_string(strbuf *sb, const char *s)
{
    sb_addc(sb, '"');
    json_escape(sb, s, strlen(s));
    sb_addc(sb, '"');
}

/* The <svg> element's start; H is the height as text (a number, or the
 * heat-map page's token). */
static void svg_open(strbuf *sb, const svg_options *o, const char *H)
{
    sb_adds(sb, "<svg version=\"1.1\" width=\"");
    perl_num(sb, o->width);
    sb_adds(sb, "\" height=\"");
    sb_adds(sb, H);
    sb_adds(sb, "\" onload=\"init(evt)\" viewBox=\"0 0 ");
    perl_num(sb, o->width);
    sb_addc(sb, ' ');
    sb_adds(sb, H);
    sb_adds(sb, "\" xmlns=\"http://www.w3.org/2000/svg\" "
                "xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
                "xmlns:fg=\"http://github.com/jonhoo/inferno\">\n");
}

static void defs_style(strbuf *sb, const svg_options *o)
{
    const char *bg1, *bg2;
    background(o, &bg1, &bg2);
    sb_printf(sb, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" "
                  "y2=\"1\" x1=\"0\" x2=\"0\" >\n"
                  "\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
                  "\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
                  "\t</linearGradient>\n</defs>\n", bg1, bg2);
    sb_adds(sb, "<style type=\"text/css\">\n\ttext { font-family:");
    xml_escape(sb, o->fonttype, strlen(o->fonttype), false);
    sb_adds(sb, "; font-size:");
    perl_num(sb, o->fontsize);
    sb_adds(sb, "px; fill:rgb(0,0,0); }\n"
        "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
        "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show "
        "{ opacity:1; }\n"
        "\t#subtitle { text-anchor:middle; font-color:rgb(160,160,160); }\n"
        "\t#title { text-anchor:middle; font-size:");
    perl_num(sb, o->fontsize + 5);
    sb_adds(sb, "px}\n"
        "\t#unzoom { cursor:pointer; }\n"
        "\t#frames > *:hover { stroke:black; stroke-width:0.5; "
        "cursor:pointer; }\n"
        "\t.hide { display:none; }\n"
        "\t.parent { opacity:0.5; }\n</style>\n");
}

void flamesvg_script(strbuf *sb, const svg_options *o)
{
    sb_adds(sb, "\tvar nametype = ");
    js_string(sb, o->nametype);
    sb_adds(sb, ";\n\tvar fontsize = ");
    perl_num(sb, o->fontsize);
    sb_adds(sb, ";\n\tvar fontwidth = ");
    perl_num(sb, o->fontwidth);
    sb_adds(sb, ";\n\tvar xpad = 10;\n\tvar inverted = ");
    sb_adds(sb, o->inverted ? "1" : "0");
    sb_adds(sb, ";\n\tvar searchcolor = \"rgb(230,0,230)\";\n");
    sb_add(sb, (const char *)flame_js[0].data, flame_js[0].len);
}

/* The background, title and the texts zoom and search use; H and HD
 * (the details line's y) as text. */
static void body_texts(strbuf *sb, const svg_options *o, const char *H,
                       const char *HD, const char *title)
{
    double W = o->width;
    sb_adds(sb, "<rect x=\"0.0\" y=\"0\" width=\"");
    perl_num(sb, W);
    sb_adds(sb, "\" height=\"");
    sb_adds(sb, H);
    sb_adds(sb, "\" fill=\"url(#background)\"  />\n");
    sb_printf(sb, "<text id=\"title\" x=\"%.2f\" y=\"", floor(W / 2));
    perl_num(sb, o->fontsize * 2);
    sb_adds(sb, "\" >");
    xml_escape(sb, title, strlen(title), false);
    sb_adds(sb, "</text>\n");
    if (o->subtitle) {
        sb_printf(sb, "<text id=\"subtitle\" x=\"%.2f\" y=\"", floor(W / 2));
        perl_num(sb, o->fontsize * 4);
        sb_adds(sb, "\" >");
        xml_escape(sb, o->subtitle, strlen(o->subtitle), false);
        sb_adds(sb, "</text>\n");
    }
    sb_printf(sb, "<text id=\"details\" x=\"%.2f\" y=\"", XPAD);
    sb_adds(sb, HD);
    sb_adds(sb, "\" > </text>\n");
    sb_printf(sb, "<text id=\"unzoom\" x=\"%.2f\" y=\"", XPAD);
    perl_num(sb, o->fontsize * 2);
    sb_adds(sb, "\" class=\"hide\">Reset Zoom</text>\n");
    sb_printf(sb, "<text id=\"search\" x=\"%.2f\" y=\"", W - XPAD - 100);
    perl_num(sb, o->fontsize * 2);
    sb_adds(sb, "\" >Search</text>\n");
    sb_printf(sb, "<text id=\"ignorecase\" x=\"%.2f\" y=\"", W - XPAD - 16);
    perl_num(sb, o->fontsize * 2);
    sb_adds(sb, "\" >ic</text>\n");
    sb_printf(sb, "<text id=\"matched\" x=\"%.2f\" y=\"", W - XPAD - 100);
    sb_adds(sb, HD);
    sb_adds(sb, "\" > </text>\n");
}

static void write_header(strbuf *sb, const svg_options *o, double H,
                         const char *title)
{
    sb_adds(sb, "<?xml version=\"1.0\"");
    if (o->encoding) {
        sb_adds(sb, " encoding=\"");
        xml_escape(sb, o->encoding, strlen(o->encoding), true);
        sb_addc(sb, '"');
    }
    sb_adds(sb, " standalone=\"no\"?>\n"
                "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
                "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
    strbuf h = STRBUF_INIT, hd = STRBUF_INIT;
    perl_num(&h, H);
    perl_num(&hd, H - (o->fontsize * 2 + 10) / 2);
    svg_open(sb, o, h.buf);
    sb_adds(sb, "<!-- Flame graph stack visualization, written by staprelay "
                "following flamegraph.pl's conventions "
                "(https://github.com/brendangregg/FlameGraph). "
                "fg:x and fg:w on each rect are the exact offset and "
                "weight. -->\n");
    if (o->notes) {
        sb_adds(sb, "<!-- NOTES: ");
        xml_comment_escape(sb, o->notes, strlen(o->notes));
        sb_adds(sb, " -->\n");
    }
    defs_style(sb, o);
    sb_adds(sb, "<script type=\"text/ecmascript\">\n<![CDATA[\n");
    flamesvg_script(sb, o);
    sb_adds(sb, "]]>\n</script>\n");
    body_texts(sb, o, h.buf, hd.buf, title);
    sb_free(&h);
    sb_free(&hd);
}

void flamesvg_page_head(strbuf *sb, const svg_options *o, const char *title)
{
    svg_open(sb, o, FLAMESVG_TOKEN_H);
    defs_style(sb, o);
    body_texts(sb, o, FLAMESVG_TOKEN_H, FLAMESVG_TOKEN_HD, title);
}

typedef struct geometry {
    double W, H, wpt, fh, ypad1, ypad2, top;
    double minwidth_time;
    strbuf countname;    /* escaped once */
} geometry;

/* x rounded as "%.1f", and that text read back (flamegraph.pl computes
 * the width from the rounded x1 and x2). */
typedef struct xpos { double v; uint64_t tenths; bool fast; } xpos;

static xpos round_x(double x)
{
    xpos r = { x, 0, false };
    r.fast = fixed_scaled(x, 1, &r.tenths);
    return r;
}

/* The flat palette of nd: --colors hotcold picks it by nd's root
 * frame (palette_of_part); others are their own. */
static palette frame_palette(const flametree *t, const ft_node *nd,
                             palette p)
{
    if (p != PAL_HOTCOLD || nd->depth == 0)
        return p;
    while (nd->depth > 1)
        nd = &t->nodes[nd->parent];
    return palette_of_part(p, nd->name, nd->name_len);
}

static void write_frame(strbuf *sb, const flametree *t, const ft_node *nd,
                        const svg_options *o, const geometry *g)
{
    bool root = nd == &t->nodes[0];
    double total = flametree_total(t);
    double x1 = XPAD + nd->x * g->wpt;
    double x2 = XPAD + nd->end * g->wpt;
    double y1, y2;
    if (o->inverted) {
        y1 = g->top + nd->depth * g->fh;
        y2 = g->top + (nd->depth + 1) * g->fh - FRAMEPAD;
    } else {
        y1 = g->H - g->ypad2 - (nd->depth + 1) * g->fh + FRAMEPAD;
        y2 = g->H - g->ypad2 - nd->depth * g->fh;
    }
    char samples[64];
    double shown = (nd->end - nd->x) * o->factor;   /* flamegraph.pl's */
    num_thousands(samples, sizeof samples, shown);
    /* the percentage is of the rounded count, as flamegraph.pl does */
    double samples_rounded = shown;
    if (samples_rounded != floor(samples_rounded)) {
        char rbuf[64];
        snprintf(rbuf, sizeof rbuf, "%.0f", shown);
        samples_rounded = strtod(rbuf, NULL);
    }
    double total_shown = total * o->factor;

    size_t dlen = display_len(nd->name, nd->name_len);
    /* the root's name is "" in flamegraph.pl (its colour, its
     * attributes); "all" only labels it */
    const char *fname = root ? "" : nd->name;
    size_t flen = root ? 0 : nd->name_len;
    const name_attr *na = name_attrs_find(o->attrs, fname, flen);
    if (na && na->href) {
        sb_adds(sb, "<a xlink:href=\"");
        xml_escape(sb, na->href, strlen(na->href), true);
        sb_adds(sb, "\" target=\"");
        const char *tgt = na->target ? na->target : "_top";
        xml_escape(sb, tgt, strlen(tgt), true);
        sb_addc(sb, '"');
        if (na->a_extra) {
            sb_addc(sb, ' ');
            sb_adds(sb, na->a_extra);
        }
    } else {
        sb_adds(sb, "<g");
    }
    if (na && na->id) {
        sb_adds(sb, " id=\"");
        xml_escape(sb, na->id, strlen(na->id), true);
        sb_addc(sb, '"');
    }
    if (na && na->class_) {
        sb_adds(sb, " class=\"");
        xml_escape(sb, na->class_, strlen(na->class_), true);
        sb_addc(sb, '"');
    }
    if (na && na->g_extra) {
        sb_addc(sb, ' ');
        sb_adds(sb, na->g_extra);
    }
    sb_adds(sb, na && (na->href || na->id || na->class_ || na->g_extra)
                ? ">\n<title>" : " >\n<title>");
    if (na && na->title) {
        xml_escape(sb, na->title, strlen(na->title), false);
    } else if (root) {
        sb_adds(sb, "all (");
        sb_adds(sb, samples);
        sb_addc(sb, ' ');
        sb_add(sb, g->countname.buf, g->countname.len);
        sb_adds(sb, ", 100%)");
    } else {
        xml_escape(sb, nd->name, dlen, true);
        sb_adds(sb, " (");
        sb_adds(sb, samples);
        sb_addc(sb, ' ');
        sb_add(sb, g->countname.buf, g->countname.len);
        sb_adds(sb, ", ");
        fixed_num(sb, 100 * samples_rounded / total_shown, 2);
        sb_addc(sb, '%');
        if (t->has_delta) {
            double d = o->negate ? -nd->delta : nd->delta;
            if (d == 0)
                d = 0;      /* no "-0.00%": negated zero is zero (Perl) */
            sb_adds(sb, d > 0 ? "; +" : "; ");
            fixed_num(sb, 100 * d / total_shown, 2);
            sb_addc(sb, '%');
        }
        sb_addc(sb, ')');
    }
    sb_adds(sb, "</title>");

    rgb c;
    if (t->has_delta && !root)
        c = palette_diff_color(nd->delta, t->maxdelta, o->negate);
    else if (t->has_delta)
        c = (rgb){ 255, 255, 255 };
    else if (o->pmap)
        c = palette_map_color(o->pmap, frame_palette(t, nd, o->colors),
                              o->hash, fname, flen);
    else
        c = palette_color(frame_palette(t, nd, o->colors), o->hash, fname,
                          flen);
    xpos r1 = round_x(x1), r2 = round_x(x2);
    double width;
    sb_adds(sb, "<rect x=\"");
    if (r1.fast && r2.fast) {
        sb_reserve(sb, 32);
        sb->len = (size_t)(put_scaled(sb->buf + sb->len, r1.tenths, 1)
                           - sb->buf);
        /* the rounded texts read back: k/10 correctly rounded */
        width = (double)r2.tenths / 10 - (double)r1.tenths / 10;
    } else {
        char x1s[32], x2s[32];
        snprintf(x1s, sizeof x1s, "%.1f", x1);
        snprintf(x2s, sizeof x2s, "%.1f", x2);
        sb_adds(sb, x1s);
        width = strtod(x2s, NULL) - strtod(x1s, NULL);
    }
    sb_adds(sb, "\" y=\"");
    perl_num(sb, y1);
    sb_adds(sb, "\" width=\"");
    fixed_num(sb, width, 1);
    sb_adds(sb, "\" height=\"");
    fixed_num(sb, y2 - y1, 1);
    sb_adds(sb, "\" fill=\"rgb(");
    int_num(sb, c.r);
    sb_addc(sb, ',');
    int_num(sb, c.g);
    sb_addc(sb, ',');
    int_num(sb, c.b);
    sb_adds(sb, ")\" rx=\"2\" ry=\"2\" fg:x=\"");
    weight_num(sb, nd->x);
    sb_adds(sb, "\" fg:w=\"");
    weight_num(sb, nd->value);
    if (t->has_delta && !root) {
        sb_adds(sb, "\" fg:d=\"");
        weight_num(sb, nd->delta);
    }
    sb_adds(sb, "\" />\n");

    /* label: as many characters as fit, the last two ".." if cut */
    sb_adds(sb, "<text  x=\"");
    fixed_num(sb, x1 + 3, 2);
    sb_adds(sb, "\" y=\"");
    perl_num(sb, 3 + (y1 + y2) / 2);
    sb_adds(sb, "\" >");
    double chars_d = (x2 - x1) / (o->fontsize * o->fontwidth);
    size_t chars = chars_d > 0 ? (size_t)chars_d : 0;
    const char *label = root ? "all" : nd->name;
    size_t llen = root ? 3 : dlen;
    if (chars >= 3) {
        size_t units = utf8_units(label, llen);
        if (chars >= units) {
            xml_escape(sb, label, llen, false);
        } else {
            size_t keep = utf8_prefix_bytes(label, llen, chars - 2);
            xml_escape(sb, label, keep, false);
            sb_adds(sb, "..");
        }
    }
    sb_adds(sb, na && na->href ? "</text>\n</a>\n" : "</text>\n</g>\n");
}

int flamesvg_write(FILE *out, const flametree *t, const svg_options *o)
{
    geometry g;
    g.W = o->width;
    g.fh = o->frameheight;
    g.ypad1 = o->fontsize * 3;
    g.ypad2 = o->fontsize * 2 + 10;
    double ypad3 = o->subtitle ? o->fontsize * 2 : 0;
    g.top = g.ypad1 + ypad3;
    double total = flametree_total(t);
    g.wpt = total > 0 ? (g.W - 2 * XPAD) / total : 0;
    /* the same threshold as flamesvg_tree_options gives the builder */
    g.minwidth_time = ft_min_weight(total, g.W, o->minwidth, o->minwidth_pct);
    g.countname = (strbuf)STRBUF_INIT;
    xml_escape(&g.countname, o->countname, strlen(o->countname), true);

    /* prune frames narrower than minwidth (their subtrees are narrower
     * still) and find the depth of what remains */
    bool *keep = xmalloc(t->n ? t->n : 1);
    uint32_t depthmax = 0;
    for (size_t i = 0; i < t->n; i++) {
        const ft_node *nd = &t->nodes[i];
        bool k = i == 0 || (keep[nd->parent] && nd->value > 0
                            && nd->value >= g.minwidth_time);
        keep[i] = k;
        if (k && nd->depth > depthmax)
            depthmax = nd->depth;
    }
    g.H = (depthmax + 1) * g.fh + g.ypad1 + g.ypad2 + ypad3;

    const char *title = o->title;
    if (title == NULL)
        title = o->inverted ? "Icicle Graph"
              : o->flamechart ? "Flame Chart" : "Flame Graph";

    strbuf sb = STRBUF_INIT;
    write_header(&sb, o, g.H, title);
    sb_adds(&sb, "<g id=\"frames\">\n");
    int rc = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!keep[i])
            continue;
        write_frame(&sb, t, &t->nodes[i], o, &g);
        if (sb.len > (1u << 16)) {
            if (fwrite(sb.buf, 1, sb.len, out) != sb.len)
                rc = -1;
            sb_reset(&sb);
        }
    }
    sb_adds(&sb, "</g>\n</svg>\n");
    if (fwrite(sb.buf, 1, sb.len, out) != sb.len)
        rc = -1;
    sb_free(&sb);
    sb_free(&g.countname);
    free(keep);
    return rc;
}

void flamesvg_diff_note(char *buf, size_t size, const char *subtitle,
                        const char *unit, bool scaled, bool absolute,
                        double before, double after)
{
    char note[300];
    if (scaled)
        snprintf(note, sizeof note, "normalised: BEFORE's %.15g %s scaled "
                 "to AFTER's %.15g (--absolute: counts as they are)", before,
                 unit, after);
    else if (absolute && before != after)
        snprintf(note, sizeof note, "absolute counts, not scaled: BEFORE "
                 "%.15g %s, AFTER %.15g", before, unit, after);
    else
        snprintf(note, sizeof note, "BEFORE and AFTER: %.15g %s each, not "
                 "scaled", after, unit);
    snprintf(buf, size, "%s%s%s", subtitle ? subtitle : "",
             subtitle ? "; " : "", note);
}
