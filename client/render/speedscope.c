/* speedscope: speedscope JSON export (see speedscope.h).  Frame names
 * are interned in a small hash table so each appears once in
 * shared.frames. */
#include "client/render/speedscope.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "client/util/utf8.h"

typedef struct frame_index {
    stacktab *names;   /* reuse stacktab as a string → index map */
} frame_index;

static size_t intern(frame_index *fi, const char *s, size_t n)
{
    return stacktab_add(fi->names, s, n, 0, 0);
}

int speedscope_write(FILE *out, const stacktab *tab, int col,
                     const char *name, const char *unit)
{
    frame_index fi = { stacktab_new() };
    size_t *order = stacktab_sorted(tab, STACK_ORDER_FRAMES);
    strbuf samples = STRBUF_INIT, weights = STRBUF_INIT;
    double total = 0;
    bool first = true;
    for (size_t i = 0; i < stacktab_size(tab); i++) {
        const stack_entry *e = stacktab_entry(tab, order[i]);
        double w = e->count[col];
        if (w <= 0)
            continue;
        sb_adds(&samples, first ? "[" : ",[");
        sb_adds(&weights, first ? "" : ",");
        first = false;
        size_t a = 0;
        bool f1 = true;
        for (size_t j = 0; j <= e->len; j++) {
            if (j < e->len && e->stack[j] != ';')
                continue;
            if (j > a || e->len > 0) {
                sb_printf(&samples, f1 ? "%zu" : ",%zu",
                          intern(&fi, e->stack + a, j - a));
                f1 = false;
            }
            a = j + 1;
        }
        sb_addc(&samples, ']');
        sb_addnum(&weights, w);
        total += w;
    }
    free(order);

    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\"$schema\":\"https://www.speedscope.app/"
                 "file-format-schema.json\",\"shared\":{\"frames\":[");
    for (size_t i = 0; i < stacktab_size(fi.names); i++) {
        const stack_entry *e = stacktab_entry(fi.names, i);
        sb_adds(&sb, i ? ",{\"name\":\"" : "{\"name\":\"");
        json_escape(&sb, e->stack, e->len);
        sb_adds(&sb, "\"}");
    }
    sb_adds(&sb, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"");
    json_escape(&sb, name, strlen(name));
    sb_adds(&sb, "\",\"unit\":\"");
    json_escape(&sb, unit, strlen(unit));
    sb_adds(&sb, "\",\"startValue\":0,\"endValue\":");
    sb_addnum(&sb, total);
    sb_adds(&sb, ",\"samples\":[");
    int rc = 0;
    if (fwrite(sb.buf, 1, sb.len, out) != sb.len
        || fwrite(samples.buf ? samples.buf : "", 1, samples.len, out)
               != samples.len)
        rc = -1;
    sb_reset(&sb);
    sb_adds(&sb, "],\"weights\":[");
    sb_add(&sb, weights.buf ? weights.buf : "", weights.len);
    sb_adds(&sb, "]}],\"name\":\"");
    json_escape(&sb, name, strlen(name));
    sb_adds(&sb, "\",\"activeProfileIndex\":0,\"exporter\":\"staprelay\"}\n");
    if (fwrite(sb.buf, 1, sb.len, out) != sb.len)
        rc = -1;
    sb_free(&sb);
    sb_free(&samples);
    sb_free(&weights);
    stacktab_free(fi.names);
    return rc;
}
