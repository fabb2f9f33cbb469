/* top: heaviest frames by self and total weight (see top.h). */
#include "client/stack/top.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

top_result *top_compute(const stacktab *tab, int col)
{
    top_result *r = xcalloc(1, sizeof *r);
    r->names = stacktab_new();
    size_t cap = 0;
    size_t *seen = NULL;      /* per frame: last stack index + 1 */
    for (size_t i = 0; i < stacktab_size(tab); i++) {
        const stack_entry *e = stacktab_entry(tab, i);
        double w = e->count[col];
        if (w <= 0)
            continue;
        r->grand_total += w;
        size_t a = 0, leaf = SIZE_MAX;
        for (size_t j = 0; j <= e->len && e->len > 0; j++) {
            if (j < e->len && e->stack[j] != ';')
                continue;
            size_t id = stacktab_add(r->names, e->stack + a, j - a, 0, 0);
            if (id >= cap) {
                size_t ncap = cap ? cap * 2 : 1024;
                while (ncap <= id)
                    ncap *= 2;
                r->rows = xrealloc(r->rows, ncap * sizeof *r->rows);
                seen = xrealloc(seen, ncap * sizeof *seen);
                memset(r->rows + cap, 0, (ncap - cap) * sizeof *r->rows);
                memset(seen + cap, 0, (ncap - cap) * sizeof *seen);
                cap = ncap;
            }
            if (seen[id] != i + 1) {
                seen[id] = i + 1;
                r->rows[id].total += w;
            }
            leaf = id;
            a = j + 1;
        }
        if (leaf != SIZE_MAX)
            r->rows[leaf].self += w;
    }
    free(seen);
    r->n = stacktab_size(r->names);
    for (size_t i = 0; i < r->n; i++) {
        const stack_entry *e = stacktab_entry(r->names, i);
        r->rows[i].name = e->stack;
        r->rows[i].len = e->len;
    }
    return r;
}

void top_free(top_result *r)
{
    if (r == NULL)
        return;
    free(r->rows);
    stacktab_free(r->names);
    free(r);
}

static int name_cmp(const top_row *a, const top_row *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->len < b->len ? -1 : a->len > b->len);
}

static int by_self(const void *pa, const void *pb)
{
    const top_row *a = pa, *b = pb;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return name_cmp(a, b);
}

static int by_total(const void *pa, const void *pb)
{
    const top_row *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    return name_cmp(a, b);
}

void top_sort(top_result *r, bool total)
{
    qsort(r->rows, r->n, sizeof *r->rows, total ? by_total : by_self);
}

static double pct(double v, double total)
{
    return total > 0 ? 100 * v / total : 0;
}

int top_write_table(FILE *out, const top_result *r, size_t limit,
                    const char *countname)
{
    size_t n = limit && limit < r->n ? limit : r->n;
    char buf[64];
    int wself = 4, wtotal = 5;
    for (size_t i = 0; i < n; i++) {
        int a = (int)strlen(num_thousands(buf, sizeof buf, r->rows[i].self));
        int b = (int)strlen(num_thousands(buf, sizeof buf, r->rows[i].total));
        if (a > wself) wself = a;
        if (b > wtotal) wtotal = b;
    }
    fprintf(out, "%*s  %7s  %*s  %7s  FRAME (%s, of %s total)\n", wself,
            "SELF", "SELF%", wtotal, "TOTAL", "TOTAL%", countname,
            num_thousands(buf, sizeof buf, r->grand_total));
    for (size_t i = 0; i < n; i++) {
        const top_row *row = &r->rows[i];
        char b1[64], b2[64];
        fprintf(out, "%*s  %6.2f%%  %*s  %6.2f%%  ", wself,
                num_thousands(b1, sizeof b1, row->self),
                pct(row->self, r->grand_total), wtotal,
                num_thousands(b2, sizeof b2, row->total),
                pct(row->total, r->grand_total));
        fwrite(row->name, 1, row->len, out);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

int top_write_json(FILE *out, const top_result *r, size_t limit,
                   const char *countname, const char *by)
{
    size_t n = limit && limit < r->n ? limit : r->n;
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\"total\":");
    sb_addnum(&sb, r->grand_total);
    sb_adds(&sb, ",\"countname\":\"");
    json_escape(&sb, countname, strlen(countname));
    sb_printf(&sb, "\",\"by\":\"%s\",\"frames\":[", by);
    for (size_t i = 0; i < n; i++) {
        const top_row *row = &r->rows[i];
        sb_adds(&sb, i ? ",\n{\"name\":\"" : "\n{\"name\":\"");
        json_escape(&sb, row->name, row->len);
        sb_adds(&sb, "\",\"self\":");
        sb_addnum(&sb, row->self);
        sb_printf(&sb, ",\"self_pct\":%.4f,\"total\":",
                  pct(row->self, r->grand_total));
        sb_addnum(&sb, row->total);
        sb_printf(&sb, ",\"total_pct\":%.4f}", pct(row->total, r->grand_total));
    }
    sb_adds(&sb, "\n]}\n");
    size_t w = fwrite(sb.buf, 1, sb.len, out);
    int rc = w == sb.len ? 0 : -1;
    sb_free(&sb);
    return rc;
}

/* ---- changes across profiles (top.h) --------------------------------------- */

static double row_value(const top_row *row, double total, bool by_total,
                        bool absolute)
{
    double w = by_total ? row->total : row->self;
    return absolute ? w : pct(w, total);
}

/* a and b differ beyond the rounding of the sums behind them (a share
 * reached through different sums must not reorder ties) */
static int num_cmp(double a, double b)
{
    double scale = fmax(1, fmax(fabs(a), fabs(b)));
    if (fabs(a - b) <= 1e-9 * scale)
        return 0;
    return a > b ? 1 : -1;
}

static int by_change(const void *pa, const void *pb)
{
    const top_change_row *a = pa, *b = pb;
    int c = num_cmp(fabs(b->change), fabs(a->change));
    if (c == 0)
        c = num_cmp(b->last, a->last);
    if (c)
        return c;
    top_row ra = { a->name, a->len, 0, 0 }, rb = { b->name, b->len, 0, 0 };
    return name_cmp(&ra, &rb);
}

top_changes *top_changes_compute(top_result *const *profiles, size_t n,
                                 bool by_total, bool absolute)
{
    top_changes *c = xcalloc(1, sizeof *c);
    c->n = n;
    c->by_total = by_total;
    c->absolute = absolute;
    c->names = stacktab_new();
    c->totals = xcalloc(n ? n : 1, sizeof *c->totals);
    if (n == 0)
        return c;
    size_t cap = 0;
    for (size_t p = 0; p < n; p++) {
        const top_result *r = profiles[p];
        c->totals[p] = r->grand_total;
        for (size_t i = 0; i < r->n; i++) {
            const top_row *row = &r->rows[i];
            size_t id = stacktab_add(c->names, row->name, row->len, 0, 0);
            if (id >= cap) {
                size_t ncap = cap ? cap * 2 : 1024;
                while (ncap <= id)
                    ncap *= 2;
                c->values = xrealloc(c->values, ncap * n * sizeof *c->values);
                memset(c->values + cap * n, 0,
                       (ncap - cap) * n * sizeof *c->values);
                cap = ncap;
            }
            c->values[id * n + p] = row_value(row, r->grand_total, by_total,
                                              absolute);
        }
    }
    size_t names = stacktab_size(c->names);
    c->rows = xcalloc(names ? names : 1, sizeof *c->rows);
    for (size_t id = 0; id < names; id++) {
        const double *v = c->values + id * n;
        bool any = false;
        for (size_t p = 0; p < n; p++)
            any = any || v[p] != 0;
        if (!any)
            continue;
        const stack_entry *e = stacktab_entry(c->names, id);
        c->rows[c->nrows++] = (top_change_row){
            .name = e->stack, .len = e->len, .value = v,
            .change = v[n - 1] - v[0], .last = v[n - 1],
        };
    }
    qsort(c->rows, c->nrows, sizeof *c->rows, by_change);
    return c;
}

void top_changes_free(top_changes *c)
{
    if (c == NULL)
        return;
    free(c->rows);
    free(c->values);
    free(c->totals);
    stacktab_free(c->names);
    free(c);
}

/* A value as the table shows it: "12.50%", or with absolute "4,096";
 * signed, the change: "+40.00", "-4,096". */
static const char *change_text(char *buf, size_t size, double v,
                               bool absolute, bool sign)
{
    if (!absolute) {
        snprintf(buf, size, sign ? "%+.2f" : "%.2f%%", v);
        return buf;
    }
    char digits[64];
    num_thousands(digits, sizeof digits, fabs(v));
    bool neg = v < 0 && strcmp(digits, "0") != 0;
    snprintf(buf, size, "%s%s", neg ? "-" : sign && v > 0 ? "+" : "", digits);
    return buf;
}

int top_write_changes(FILE *out, const top_changes *c, size_t limit,
                      const char *countname, const char *const *labels)
{
    size_t n = limit && limit < c->nrows ? limit : c->nrows;
    char buf[80];
    /* the legend: what the numbered columns are */
    int wtot = 5;
    for (size_t p = 0; p < c->n; p++) {
        int w = (int)strlen(num_thousands(buf, sizeof buf, c->totals[p]));
        if (w > wtot) wtot = w;
    }
    fprintf(out, "PROFILE  %*s  NAME (%s)\n", wtot, "TOTAL", countname);
    for (size_t p = 0; p < c->n; p++)
        fprintf(out, "%7zu  %*s  %s\n", p + 1, wtot,
                num_thousands(buf, sizeof buf, c->totals[p]), labels[p]);
    fputc('\n', out);
    /* one width for every value column, one for the change */
    const char *kind = c->by_total ? "TOTAL" : "SELF";
    int wval = (int)strlen(kind) + (c->absolute ? 0 : 1) + 2;
    int wchg = 6;
    for (size_t i = 0; i < n; i++) {
        for (size_t p = 0; p < c->n; p++) {
            int w = (int)strlen(change_text(buf, sizeof buf,
                                            c->rows[i].value[p], c->absolute,
                                            false));
            if (w > wval) wval = w;
        }
        int w = (int)strlen(change_text(buf, sizeof buf, c->rows[i].change,
                                        c->absolute, true));
        if (w > wchg) wchg = w;
    }
    for (size_t p = 0; p < c->n; p++) {
        snprintf(buf, sizeof buf, "%s%s%zu", kind, c->absolute ? "" : "%",
                 p + 1);
        fprintf(out, "%*s  ", wval, buf);
    }
    fprintf(out, "%*s  FRAME (%s %s; change from 1 to %zu%s)\n", wchg,
            "CHANGE", c->by_total ? "total" : "self",
            c->absolute ? countname : "share", c->n,
            c->absolute ? "" : " in percentage points");
    for (size_t i = 0; i < n; i++) {
        const top_change_row *row = &c->rows[i];
        for (size_t p = 0; p < c->n; p++)
            fprintf(out, "%*s  ", wval, change_text(buf, sizeof buf,
                                                    row->value[p],
                                                    c->absolute, false));
        fprintf(out, "%*s  ", wchg, change_text(buf, sizeof buf, row->change,
                                               c->absolute, true));
        fwrite(row->name, 1, row->len, out);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}
