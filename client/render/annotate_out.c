/* annotate_out: pprof -list's text for perf script and SystemTap input
 * (`staprelay annotate`, and staprelay web's /api/annotate): the
 * samples of the functions whose frame name matches a regex, per
 * source line, flat (the function was the leaf) and cumulative (it was
 * on the stack).  Each frame's address is its symbol's address in the
 * binary (the DSO perf names, the module SystemTap names) plus the
 * offset the line printed (main+0x1a), or, without an offset, the
 * address itself in a fixed-address executable; callers' addresses are
 * return addresses, so their line is that of the address before (the
 * call): that rule is dwarf_frame_line's, which the pprof export uses
 * too.  Lines come from the binary's DWARF line table
 * (input/dwarf_lines). */
#include "client/render/annotate_out.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/dwarf_lines.h"
#include "client/stack/stacktab.h"
#include "common/xalloc.h"

/* One (binary, function, where) the samples were seen at. */
typedef struct site {
    double flat, cum;
    size_t stamp;          /* the last sample that counted its cum */
} site;

struct annotate {
    regex_t   re;
    stacktab *sites;       /* key: module \n function \n L|C o|a HEX */
    site     *v;
    size_t    cap;
    size_t    sample;      /* samples seen */
    uint64_t  unplaced;    /* matching frames without module or address */
    strbuf    key;
    double    total;
    const char *who;       /* "staprelay annotate": the warnings' prefix */
    FILE      *warn;
};

void annotate_observe(void *arg, const char *stack, size_t len, double weight,
                    int col, int64_t when_ns, const stack_context *ctx)
{
    (void)stack; (void)len; (void)col; (void)when_ns;
    annotate *a = arg;
    a->sample++;
    a->total += weight;
    const stackfold *sf = ctx ? ctx->frames : NULL;
    for (size_t i = 0; sf && i < stackfold_count(sf); i++) {
        const char *name = stackfold_name(sf, i);
        if (regexec(&a->re, name, 0, NULL, 0) != 0)
            continue;
        const stack_frame *f = &sf->f[i];
        const char *module = stackfold_module(sf, i);
        if (module == NULL || (!f->has_off && f->addr == 0)) {
            a->unplaced++;
            continue;
        }
        sb_reset(&a->key);
        sb_printf(&a->key, "%s\n%s\n%c%c%" PRIx64, module, name,
                  i == 0 ? 'L' : 'C', f->has_off ? 'o' : 'a',
                  f->has_off ? f->sym_off : f->addr);
        size_t k = stacktab_add(a->sites, a->key.buf, a->key.len, 0, 0);
        if (k >= a->cap) {
            size_t nc = a->cap ? a->cap * 2 : 256;
            a->v = xrealloc(a->v, nc * sizeof *a->v);
            memset(a->v + a->cap, 0, (nc - a->cap) * sizeof *a->v);
            for (size_t j = a->cap; j < nc; j++)
                a->v[j].stamp = SIZE_MAX;
            a->cap = nc;
        }
        if (i == 0)
            a->v[k].flat += weight;
        if (a->v[k].stamp != a->sample) {
            a->v[k].stamp = a->sample;
            a->v[k].cum += weight;
        }
    }
}

/* Per source line of one routine. */
typedef struct line_row { int line; double flat, cum; } line_row;

static int cmp_line(const void *x, const void *y)
{
    return ((const line_row *)x)->line - ((const line_row *)y)->line;
}

static void add_row(line_row **rows, size_t *n, size_t *cap, int line,
                    double flat, double cum)
{
    for (size_t i = 0; i < *n; i++)
        if ((*rows)[i].line == line) {
            (*rows)[i].flat += flat;
            (*rows)[i].cum += cum;
            return;
        }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        *rows = xrealloc(*rows, *cap * sizeof **rows);
    }
    (*rows)[(*n)++] = (line_row){ line, flat, cum };
}

/* Print the source lines first..last of file with their counts. */
static void print_source(FILE *out, const char *file, const line_row *rows,
                         size_t n, int first, int last)
{
    FILE *src = fopen(file, "r");
    char *buf = NULL;
    size_t cap = 0;
    int ln = 0;
    size_t r = 0;
    if (src == NULL)
        fprintf(out, "  (source %s not found: lines only)\n", file);
    for (int want = first; want <= last; want++) {
        const char *text = "";
        ssize_t got = 0;
        while (src && ln < want && (got = getline(&buf, &cap, src)) >= 0)
            ln++;
        if (src && ln == want && buf) {
            text = buf;
            size_t tl = strlen(buf);
            if (tl && buf[tl - 1] == '\n')
                buf[tl - 1] = '\0';
        }
        while (r < n && rows[r].line < want)
            r++;
        char fl[32] = ".", cu[32] = ".";
        if (r < n && rows[r].line == want) {
            if (rows[r].flat)
                snprintf(fl, sizeof fl, "%.15g", rows[r].flat);
            if (rows[r].cum)
                snprintf(cu, sizeof cu, "%.15g", rows[r].cum);
        }
        if (src == NULL && !(r < n && rows[r].line == want))
            continue;
        fprintf(out, "%10s %10s %6d:%s\n", fl, cu, want, text);
    }
    free(buf);
    if (src)
        fclose(src);
}

/* One routine: the sites of function name in module.  Returns 0, or 1
 * after saying why it could not be placed (binary or lines missing). */
static int routine(FILE *out, const annotate *a, const char *module,
                   const char *name, const size_t *idx, size_t nidx)
{
    strbuf err = STRBUF_INIT;
    dwarf_binary *b = dwarf_open(module, &err);
    if (b == NULL) {
        fprintf(a->warn, "%s: %s: %s\n", a->who, name, err.buf);
        sb_free(&err);
        return 1;
    }
    sb_free(&err);
    if (!dwarf_has_lines(b)) {
        fprintf(a->warn, "%s: %s: %s has no DWARF line "
                "table (build it with -g, or install its debug symbols)\n", a->who,
                name, module);
        dwarf_close(b);
        return 1;
    }
    uint64_t base = 0;
    bool have_base = dwarf_symbol(b, name, &base);
    line_row *rows = NULL;
    size_t n = 0, cap = 0;
    double flat = 0, cum = 0;
    uint64_t unplaced = 0;
    const char *file = NULL;
    for (size_t i = 0; i < nidx; i++) {
        const stack_entry *e = stacktab_entry(a->sites, idx[i]);
        const char *where = strrchr(e->stack, '\n') + 1;
        bool caller = where[0] == 'C', off = where[1] == 'o';
        uint64_t v = strtoull(where + 2, NULL, 16);
        const char *f;
        int line;
        if (!dwarf_frame_line(b, have_base ? &base : NULL, off, v, caller,
                              &f, &line)) {
            unplaced++;
            continue;
        }
        if (file == NULL)
            file = f;
        if (strcmp(f, file) != 0) {
            unplaced++;          /* inlined from another file */
            continue;
        }
        add_row(&rows, &n, &cap, line, a->v[idx[i]].flat, a->v[idx[i]].cum);
        flat += a->v[idx[i]].flat;
        cum += a->v[idx[i]].cum;
    }
    if (n == 0) {
        fprintf(a->warn, "%s: %s: no line of %s for its "
                "addresses%s\n", a->who, name, module, have_base ? ""
                : " (its symbol is not in the binary's symbol table)");
        free(rows);
        dwarf_close(b);
        return 1;
    }
    qsort(rows, n, sizeof *rows, cmp_line);
    int first = rows[0].line, last = rows[n - 1].line;
    const char *f0;
    int l0;
    if (have_base && dwarf_line(b, base, &f0, &l0) && strcmp(f0, file) == 0
        && l0 < first && first - l0 < 200)
        first = l0;
    fprintf(out, "ROUTINE ======================== %s in %s\n", name, file);
    fprintf(out, "%10.15g %10.15g (flat, cum) %.2f%% of Total\n", flat, cum,
            a->total ? cum * 100 / a->total : 0);
    print_source(out, file, rows, n, first > 2 ? first - 2 : 1, last + 2);
    if (unplaced)
        fprintf(a->warn, "%s: %s: %" PRIu64 " addresses "
                "without a line in %s\n", a->who, name, unplaced, file);
    free(rows);
    dwarf_close(b);
    return 0;
}

int annotate_print(FILE *out, const annotate *a)
{
    size_t *order = stacktab_sorted(a->sites, STACK_ORDER_BYTES);
    size_t n = stacktab_size(a->sites);
    int failed = 0, shown = 0;
    fprintf(out, "Total: %.15g\n", a->total);
    for (size_t i = 0; i < n;) {
        const stack_entry *e = stacktab_entry(a->sites, order[i]);
        const char *nl2 = strrchr(e->stack, '\n');
        size_t head = (size_t)(nl2 - e->stack);
        size_t j = i + 1;
        while (j < n) {
            const stack_entry *x = stacktab_entry(a->sites, order[j]);
            if (x->len <= head || memcmp(x->stack, e->stack, head + 1) != 0)
                break;
            j++;
        }
        char *mod = xstrdup(e->stack);
        char *nl = strchr(mod, '\n');
        *nl = '\0';
        char *name = nl + 1;
        *strchr(name, '\n') = '\0';
        if (routine(out, a, mod, name, order + i, j - i) == 0)
            shown++;
        else
            failed++;
        free(mod);
        i = j;
    }
    free(order);
    return shown ? 0 : 1;
}


annotate *annotate_new(const char *regex, const char *who, FILE *warn)
{
    annotate *a = xcalloc(1, sizeof *a);
    if (regcomp(&a->re, regex, REG_EXTENDED | REG_NOSUB) != 0) {
        free(a);
        return NULL;
    }
    a->sites = stacktab_new();
    a->key = (strbuf)STRBUF_INIT;
    a->who = who;
    a->warn = warn;
    return a;
}

void annotate_free(annotate *a)
{
    if (a == NULL)
        return;
    stacktab_free(a->sites);
    free(a->v);
    sb_free(&a->key);
    regfree(&a->re);
    free(a);
}

bool annotate_found(const annotate *a)
{
    return stacktab_size(a->sites) > 0;
}

void annotate_none(const annotate *a, const char *regex, strbuf *why)
{
    sb_printf(why, "no sample has a frame matching '%s' with an address "
              "and a binary%s", regex, a->unplaced ? " (the matching frames "
              "name no module or address)" : " (annotate needs perf script "
              "or SystemTap backtrace input)");
}
