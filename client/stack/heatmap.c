/* heatmap: the grid of a subsecond-offset heat map (see heatmap.h). */
#include "client/stack/heatmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

#define US ((int64_t)1000000)

int64_t heatmap_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

int64_t heatmap_columns(int64_t start_us, int64_t end_us)
{
    return heatmap_floor_div(end_us, US) - heatmap_floor_div(start_us, US) + 1;
}

void heatmap_cell(int64_t t_us, int64_t base_s, int rows, int *col, int *row)
{
    int64_t sec = heatmap_floor_div(t_us, US);
    int64_t off = t_us - sec * US;            /* 0 .. 999999 */
    *col = (int)(sec - base_s);
    *row = rows - 1 - (int)((off * rows) / US);
}

int64_t heatmap_row_start_us(int rows, int row)
{
    int64_t k = rows - 1 - row;
    return (k * US + rows - 1) / rows;
}

static const char *find(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, m) == 0)
            return s + i;
    return NULL;
}

bool heatmap_is_idle(const char *stack, size_t len)
{
    static const char *const idle[] = {
        "cpuidle", "cpu_idle", "cpu_bringup_and_idle", "native_safe_halt",
        "xen_hypercall_sched_op", "xen_hypercall_vcpu_op",
    };
    const char *sw = find(stack, len, "swapper");
    if (sw == NULL)
        return false;
    const char *rest = sw + 7;
    size_t n = len - (size_t)(rest - stack);
    for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
        if (find(rest, n, idle[i]))
            return true;
    return false;
}

heatmap *heatmap_new(bool keep_idle)
{
    heatmap *h = xcalloc(1, sizeof *h);
    h->tab = stacktab_new();
    h->keep_idle = keep_idle;
    return h;
}

void heatmap_free(heatmap *h)
{
    if (h == NULL)
        return;
    stacktab_free(h->tab);
    free(h->s);
    free(h->idle);
    free(h->values);
    free(h);
}

static bool entry_idle(heatmap *h, size_t entry)
{
    if (entry >= h->idle_cap) {
        size_t cap = h->idle_cap ? h->idle_cap : 256;
        while (cap <= entry)
            cap *= 2;
        uint8_t *p = xrealloc(h->idle, cap);
        memset(p + h->idle_cap, 0, cap - h->idle_cap);
        h->idle = p;
        h->idle_cap = cap;
    }
    if (h->idle[entry] == 0) {
        const stack_entry *e = stacktab_entry(h->tab, entry);
        h->idle[entry] = heatmap_is_idle(e->stack, e->len) ? 1 : 2;
    }
    return h->idle[entry] == 1;
}

uint32_t heatmap_weight(double count)
{
    if (!(count >= 1.5))        /* NaN, below 1.5: one sample */
        return 1;
    if (count >= (double)UINT32_MAX)
        return UINT32_MAX;
    return (uint32_t)(count + 0.5);
}

void heatmap_add_entry(heatmap *h, size_t entry, int64_t t_us)
{
    heatmap_add_weighted(h, entry, t_us, 1);
}

void heatmap_add_weighted(heatmap *h, size_t entry, int64_t t_us,
                          double count)
{
    h->all++;
    if (!h->any) {
        h->start_us = h->end_us = t_us;
        h->any = true;
    } else {
        if (t_us < h->prev_us) {
            h->out_of_order++;
            if (h->prev_us - t_us > h->max_back_us)
                h->max_back_us = h->prev_us - t_us;
        } else if (t_us - h->prev_us > h->max_gap_us) {
            h->max_gap_us = t_us - h->prev_us;
            h->gap_from_us = h->prev_us;
        }
        if (t_us - h->prev_us >= HEATMAP_GAP_US)
            h->gaps++;
        if (t_us < h->start_us)
            h->start_us = t_us;
        if (t_us > h->end_us)
            h->end_us = t_us;
    }
    h->prev_us = t_us;
    if (!h->keep_idle && entry_idle(h, entry)) {
        h->idle_dropped++;
        return;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 4096;
        heatmap_sample *p = xrealloc(h->s, cap * sizeof *p);
        h->s = p;
        h->cap = cap;
    }
    uint32_t w = heatmap_weight(count);
    h->s[h->n++] = (heatmap_sample){ t_us, (uint32_t)entry, w };
    h->weight += w;
    if (w != 1)
        h->weighted = true;
}

void heatmap_add(heatmap *h, const char *stack, int64_t t_us)
{
    size_t e = stacktab_add(h->tab, stack, strlen(stack), 0, 1);
    heatmap_add_entry(h, e, t_us);
}

void heatmap_add_untimed(heatmap *h) { h->untimed++; }

/* stable merge sort by time */
static void msort(heatmap_sample *a, heatmap_sample *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t m = n / 2;
    msort(a, tmp, m);
    msort(a + m, tmp, n - m);
    if (a[m - 1].t_us <= a[m].t_us)
        return;
    memcpy(tmp, a, m * sizeof *a);
    size_t i = 0, j = m, k = 0;
    while (i < m && j < n)
        a[k++] = a[j].t_us < tmp[i].t_us ? a[j++] : tmp[i++];
    while (i < m)
        a[k++] = tmp[i++];
}

void heatmap_time_text(strbuf *sb, int64_t us)
{
    int64_t s = heatmap_floor_div(us, US);
    sb_printf(sb, "%" PRId64 ".%06" PRId64, s, us - s * US);
}

int heatmap_grid(heatmap *h, int rows, strbuf *err)
{
    if (rows < 1 || rows > HEATMAP_MAX_ROWS) {
        sb_printf(err, "rows must be 1 to %d", HEATMAP_MAX_ROWS);
        return -1;
    }
    if (h->n == 0) {
        if (h->all > 0 && h->idle_dropped == h->all)
            sb_printf(err, "all %" PRIu64 " samples are idle "
                      "(--keep-idle shows them)", h->all);
        else if (h->untimed > 0 && h->all == 0)
            sb_printf(err, "none of the %" PRIu64 " samples has a "
                      "timestamp", h->untimed);
        else
            sb_adds(err, "no stack samples with timestamps");
        return -1;
    }
    int64_t cols = heatmap_columns(h->start_us, h->end_us);
    if (cols > HEATMAP_MAX_COLUMNS) {
        sb_printf(err, "the samples span %" PRId64 " seconds (", cols);
        heatmap_time_text(err, h->start_us);
        sb_adds(err, " to ");
        heatmap_time_text(err, h->end_us);
        sb_printf(err, "), more than %d: a clock jump?", HEATMAP_MAX_COLUMNS);
        if (h->max_gap_us >= HEATMAP_GAP_US) {
            sb_printf(err, " (largest gap %.3f s after ",
                      (double)h->max_gap_us / US);
            heatmap_time_text(err, h->gap_from_us);
            sb_adds(err, ")");
        }
        return -1;
    }
    if (h->out_of_order) {
        heatmap_sample *tmp = xmalloc((h->n / 2 + 1) * sizeof *tmp);
        msort(h->s, tmp, h->n);
        free(tmp);
    }
    free(h->values);
    h->rows = rows;
    h->cols = (int)cols;
    h->base_s = heatmap_floor_div(h->start_us, US);
    h->values = xcalloc((size_t)cols * (size_t)rows, sizeof *h->values);
    h->maxvalue = 0;
    for (size_t i = 0; i < h->n; i++) {
        int c, r;
        heatmap_cell(h->s[i].t_us, h->base_s, rows, &c, &r);
        uint32_t *cell = &h->values[(size_t)c * (size_t)rows + (size_t)r];
        uint32_t v = *cell > UINT32_MAX - h->s[i].w ? UINT32_MAX
                                                    : *cell + h->s[i].w;
        *cell = v;
        if (v > h->maxvalue)
            h->maxvalue = v;
    }
    return 0;
}

uint32_t heatmap_value(const heatmap *h, int col, int row)
{
    if (h->values == NULL || col < 0 || col >= h->cols || row < 0
        || row >= h->rows)
        return 0;
    return h->values[(size_t)col * (size_t)h->rows + (size_t)row];
}

void heatmap_warnings(const heatmap *h, strbuf *out)
{
    if (h->untimed)
        sb_printf(out, "%" PRIu64 " samples had no timestamp and are not "
                  "shown\n", h->untimed);
    if (h->out_of_order)
        sb_printf(out, "%" PRIu64 " samples were out of time order "
                  "(largest step back %.6f s); they are placed by their own "
                  "time\n", h->out_of_order, (double)h->max_back_us / US);
    if (h->gaps) {
        sb_printf(out, "%" PRIu64 " gaps of %d s or more without samples "
                  "(largest %.3f s, after ", h->gaps, (int)(HEATMAP_GAP_US / US),
                  (double)h->max_gap_us / US);
        heatmap_time_text(out, h->gap_from_us);
        sb_adds(out, "): stopped collection or a clock jump\n");
    }
    if (h->idle_dropped && !h->keep_idle)
        sb_printf(out, "%" PRIu64 " idle samples excluded (--keep-idle "
                  "keeps them)\n", h->idle_dropped);
}
