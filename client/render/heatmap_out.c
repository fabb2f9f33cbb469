/* heatmap_out: the heat map as FlameScope's JSON grid and as a static
 * SVG, with the colour scale and cell size the page shares (see
 * heatmap_out.h). */
#include "client/render/heatmap_out.h"

#include <inttypes.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include "client/util/utf8.h"

#define US ((int64_t)1000000)

/* ---- colour ------------------------------------------------------------ */

static void lerp(uint32_t a, uint32_t b, double t, char buf[8])
{
    int c[3];
    for (int i = 0; i < 3; i++) {
        int x = (int)((a >> (16 - 8 * i)) & 0xff);
        int y = (int)((b >> (16 - 8 * i)) & 0xff);
        double v = x + (y - x) * t;
        c[i] = (int)(v + 0.5);
        if (c[i] < 0) c[i] = 0;
        if (c[i] > 255) c[i] = 255;
    }
    snprintf(buf, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

void heatmap_color(uint32_t v, uint32_t max, bool enhance, char buf[8])
{
    static const uint32_t plain[] = { 0xFFFFFF, 0xFF5032, 0xE50914 };
    static const uint32_t enh[] = { 0xFFFFFF, 0x6AAAFF, 0xFAA0B5, 0xFF5032,
                                    0xE50914 };
    double dom[5];
    const uint32_t *rng;
    int k;
    if (enhance) {
        dom[0] = 0; dom[1] = 1; dom[2] = 3; dom[3] = max / 2.0; dom[4] = max;
        rng = enh;
        k = 5;
    } else {
        dom[0] = 0; dom[1] = max / 2.0; dom[2] = max;
        rng = plain;
        k = 3;
    }
    double x = v;
    if (x <= dom[0] || max == 0) {
        lerp(rng[0], rng[0], 0, buf);
        return;
    }
    for (int i = 0; i + 1 < k; i++) {
        if (dom[i + 1] > dom[i] && x >= dom[i] && x <= dom[i + 1]) {
            lerp(rng[i], rng[i + 1], (x - dom[i]) / (dom[i + 1] - dom[i]),
                 buf);
            return;
        }
    }
    lerp(rng[k - 1], rng[k - 1], 0, buf);
}

/* ---- JSON and SVG -------------------------------------------------------- */

static void row_label(strbuf *sb, int rows, int row)
{
    /* FlameScope: 1000 * i / R, i = rows - 1 - row */
    sb_printf(sb, "%.15g", 1000.0 * (rows - 1 - row) / rows);
}

int heatmap_write_json(FILE *out, const heatmap *h)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\"rows\": [");
    for (int r = 0; r < h->rows; r++) {
        if (r)
            sb_adds(&sb, ", ");
        row_label(&sb, h->rows, r);
    }
    sb_adds(&sb, "], \"columns\": [");
    for (int c = 0; c < h->cols; c++)
        sb_printf(&sb, "%s%d", c ? ", " : "", c);
    sb_adds(&sb, "], \"values\": [");
    for (int c = 0; c < h->cols; c++) {
        sb_adds(&sb, c ? ", [" : "[");
        for (int r = 0; r < h->rows; r++)
            sb_printf(&sb, "%s%" PRIu32, r ? ", " : "",
                      heatmap_value(h, c, r));
        sb_addc(&sb, ']');
        if (sb.len > (1 << 20)) {
            fwrite(sb.buf, 1, sb.len, out);
            sb_reset(&sb);
        }
    }
    sb_printf(&sb, "], \"maxvalue\": %" PRIu32 ", \"start\": ", h->maxvalue);
    heatmap_time_text(&sb, h->start_us);
    sb_adds(&sb, ", \"end\": ");
    heatmap_time_text(&sb, h->end_us);
    sb_adds(&sb, "}\n");
    fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
    return ferror(out) ? -1 : 0;
}

void heatmap_geometry(const heatmap *h, double *cw, double *ch)
{
    double w = 1200.0 / (h->cols ? h->cols : 1);
    *cw = w < 6 ? 6 : w > 10 ? 10 : w;
    double r = 400.0 / (h->rows ? h->rows : 1);
    *ch = r < 3 ? 3 : r > 20 ? 20 : r;
}

/* A Unix time in local time, strftime's format. */
static void clock_text(strbuf *sb, int64_t sec, const char *fmt)
{
    time_t t = (time_t)sec;
    struct tm tm;
    char buf[64];
    if (localtime_r(&t, &tm) && strftime(buf, sizeof buf, fmt, &tm) > 0)
        sb_adds(sb, buf);
    else
        sb_printf(sb, "%" PRId64, sec);
}

int heatmap_write_svg(FILE *out, const heatmap *h, const heatmap_page *o)
{
    double cw, ch;
    heatmap_geometry(h, &cw, &ch);
    const double left = 60, top = 40, bottom = 40;
    /* wide enough for the axis label, and for the title (centred, 17 px
     * Verdana: about 0.62 em a character), so a narrow map (the first
     * seconds of `live`) does not clip it */
    const char *title = o && o->title ? o->title : "Heat map";
    double W = left + cw * h->cols + 20, H = top + ch * h->rows + bottom;
    if (W < left + 420)
        W = left + 420;
    double tw = (double)utf8_units(title, strlen(title)) * 17 * 0.62 + 40;
    if (W < tw)
        W = tw;
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
              "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
              "viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
              "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
              "fill=\"#ffffff\"/>\n"
              "<text x=\"%.0f\" y=\"24\" font-family=\"Verdana\" "
              "font-size=\"17\" text-anchor=\"middle\">", W, H, W, H, W / 2);
    for (const char *p = title; *p; p++) {
        if (*p == '<') sb_adds(&sb, "&lt;");
        else if (*p == '&') sb_adds(&sb, "&amp;");
        else if (*p == '>') sb_adds(&sb, "&gt;");
        else sb_addc(&sb, *p);
    }
    sb_adds(&sb, "</text>\n<g font-family=\"Verdana\" font-size=\"10\">\n");
    for (int r = 0; r < h->rows; r += (h->rows >= 20 ? h->rows / 10 : 1)) {
        sb_printf(&sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                  left - 4, top + ch * r + ch - 1);
        row_label(&sb, h->rows, r);
        sb_adds(&sb, "</text>\n");
    }
    /* the x axis: local wall-clock time for wall-clock samples (a tick
     * every few seconds, at least 64 px apart), else seconds */
    bool wall = heatmap_wall_clock(h);
    static const int steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600 };
    int step = 600;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * cw >= (wall ? 64 : 30)) {
            step = steps[i];
            break;
        }
    for (int c = 0; c < h->cols; c++) {
        if ((wall ? h->base_s + c : c) % step)
            continue;
        sb_printf(&sb, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                  "text-anchor=\"middle\">", left + cw * c,
                  top + ch * h->rows + 14);
        if (wall)
            clock_text(&sb, h->base_s + c, "%H:%M:%S");
        else
            sb_printf(&sb, "%d", c);
        sb_adds(&sb, "</text>\n");
    }
    sb_printf(&sb, "<text x=\"%.1f\" y=\"%.1f\">", left,
              top + ch * h->rows + 30);
    if (wall) {
        sb_adds(&sb, "local time (");
        clock_text(&sb, h->base_s, "%Y-%m-%d UTC%z");
        sb_adds(&sb, ")");
    } else {
        sb_adds(&sb, "seconds since ");
        heatmap_time_text(&sb, h->base_s * US);
    }
    sb_adds(&sb, "; rows: millisecond within the second</text>\n</g>\n");
    /* the grid's extent; empty cells are its white */
    sb_printf(&sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
              "fill=\"#ffffff\" stroke=\"#dddddd\"/>\n<g id=\"cells\">\n",
              left, top, cw * h->cols, ch * h->rows);
    for (int c = 0; c < h->cols; c++) {
        for (int r = 0; r < h->rows; r++) {
            uint32_t v = heatmap_value(h, c, r);
            if (v == 0)
                continue;       /* the background is the empty cell */
            char col[8];
            heatmap_color(v, h->maxvalue, o && o->enhance, col);
            sb_printf(&sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\" fill=\"%s\"><title>second: %d, "
                      "millisecond: ", left + cw * c, top + ch * r, cw, ch,
                      col, c);
            row_label(&sb, h->rows, r);
            sb_printf(&sb, ", count: %" PRIu32 "</title></rect>\n", v);
        }
        if (sb.len > (1 << 20)) {
            fwrite(sb.buf, 1, sb.len, out);
            sb_reset(&sb);
        }
    }
    sb_adds(&sb, "</g>\n</svg>\n");
    fwrite(sb.buf, 1, sb.len, out);
    sb_free(&sb);
    return ferror(out) ? -1 : 0;
}
