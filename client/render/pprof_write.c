/* pprof_write: samples as a gzipped profile.proto (see pprof_write.h).
 *
 * Every table is a stacktab used as a byte-string -> dense index map
 * (as speedscope.c interns names): strings (index = string table
 * index), locations and samples (keys: the varint-encoded ids and
 * labels that make one, so equal ones merge). */
#include "client/render/pprof_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/dwarf_lines.h"
#include "client/pprof/pprof_codec.h"
#include "client/stack/stacktab.h"
#include "common/xalloc.h"

typedef struct mapping_info {
    size_t   file;        /* string index */
    uint64_t lo, hi;      /* addresses seen */
    /* which is the sampled program (written first: pprof takes
     * mapping[0] for the main binary): the weight of the samples with
     * a frame in it, and of those whose comm its file name is */
    double   seen, named;
    size_t   stamp;       /* the last sample counted in seen */
    bool     has_lines;   /* a location of it got a source line */
} mapping_info;

typedef struct sample_values {
    double samples;       /* samples it stands for */
    double w[2];          /* weight per column */
} sample_values;

typedef struct frame_span { size_t off, len; } frame_span;

struct pprof_builder {
    bool      sample_times;
    stacktab *strs;
    size_t   *func_of_str;   /* string index -> function id, 0: none */
    size_t    func_of_cap;
    size_t   *func_name;     /* function id - 1 -> string index */
    size_t    nfunc, func_cap;
    size_t   *map_of_str;    /* string index -> mapping id, 0: none */
    size_t    map_of_cap;
    mapping_info *maps;
    size_t    nmaps, maps_cap;
    stacktab *locs;
    stacktab *samples;
    sample_values *vals;
    size_t    vals_cap;
    /* what the weights measure: string indices, or 0 (samples) */
    size_t    wtype, wunit;
    bool      typed, mixed, samples_unknown, inline_frames;
    int64_t   first_ns, last_ns;
    uint64_t  rounded;
    /* the sample being delivered: its ordinal, weight and comm */
    size_t    nobs;
    double    cur_weight;
    const char *cur_comm;
    size_t    cur_comm_len;
    /* scratch, per delivery */
    strbuf    key;
    frame_span *spans;
    size_t    spans_cap;
    uint64_t *locids;
    size_t    locids_cap;
};

/* ---- small helpers ------------------------------------------------------------ */

static void put_varint(strbuf *sb, uint64_t v)
{
    char buf[10];
    size_t n = 0;
    do {
        buf[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    sb_add(sb, buf, n);
}

static uint64_t get_varint(const char **p)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint8_t c = (uint8_t)*(*p)++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            break;
    }
    return v;
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Grow an array of size_t indexed by string index to hold index i. */
static void grow_index(size_t **v, size_t *cap, size_t i)
{
    if (i < *cap)
        return;
    size_t nc = *cap ? *cap : 256;
    while (nc <= i)
        nc *= 2;
    *v = xrealloc(*v, nc * sizeof **v);
    memset(*v + *cap, 0, (nc - *cap) * sizeof **v);
    *cap = nc;
}

static size_t intern(pprof_builder *b, const char *s, size_t n)
{
    return stacktab_add(b->strs, s, n, 0, 0);
}

static size_t function_id(pprof_builder *b, const char *name, size_t n)
{
    size_t s = intern(b, name, n);
    grow_index(&b->func_of_str, &b->func_of_cap, s);
    if (b->func_of_str[s] == 0) {
        if (b->nfunc == b->func_cap) {
            b->func_cap = b->func_cap ? b->func_cap * 2 : 256;
            b->func_name = xrealloc(b->func_name,
                                    b->func_cap * sizeof *b->func_name);
        }
        b->func_name[b->nfunc++] = s;
        b->func_of_str[s] = b->nfunc;
    }
    return b->func_of_str[s];
}

/* True when the file's base name is the process name comm (the kernel
 * keeps the first 15 bytes of the executable's name). */
static bool names_program(const char *file, const char *comm, size_t len)
{
    if (comm == NULL || len == 0)
        return false;
    const char *slash = strrchr(file, '/');
    const char *base = slash ? slash + 1 : file;
    size_t blen = strlen(base);
    return strncmp(base, comm, len) == 0 && (blen == len || len >= 15);
}

static size_t mapping_id(pprof_builder *b, const char *module, uint64_t addr)
{
    size_t s = intern(b, module, strlen(module));
    grow_index(&b->map_of_str, &b->map_of_cap, s);
    size_t id = b->map_of_str[s];
    if (id == 0) {
        if (b->nmaps == b->maps_cap) {
            b->maps_cap = b->maps_cap ? b->maps_cap * 2 : 64;
            b->maps = xrealloc(b->maps, b->maps_cap * sizeof *b->maps);
        }
        b->maps[b->nmaps++] = (mapping_info){ .file = s, .lo = addr,
                                              .hi = addr };
        id = b->map_of_str[s] = b->nmaps;
    }
    mapping_info *m = &b->maps[id - 1];
    if (m->stamp != b->nobs) {
        m->stamp = b->nobs;
        m->seen += b->cur_weight;
        if (names_program(module, b->cur_comm, b->cur_comm_len))
            m->named += b->cur_weight;
    }
    if (addr < m->lo)
        m->lo = addr;
    if (addr > m->hi)
        m->hi = addr;
    return id;
}

/* ---- building -------------------------------------------------------------------- */

pprof_builder *pprof_builder_new(bool sample_times)
{
    pprof_builder *b = xcalloc(1, sizeof *b);
    b->sample_times = sample_times;
    b->strs = stacktab_new();
    b->locs = stacktab_new();
    b->samples = stacktab_new();
    b->key = (strbuf)STRBUF_INIT;
    b->first_ns = b->last_ns = STACK_TIME_UNKNOWN;
    intern(b, "", 0);                  /* string 0 is always "" */
    return b;
}

void pprof_builder_free(pprof_builder *b)
{
    if (b == NULL)
        return;
    stacktab_free(b->strs);
    stacktab_free(b->locs);
    stacktab_free(b->samples);
    free(b->func_of_str);
    free(b->func_name);
    free(b->map_of_str);
    free(b->maps);
    free(b->vals);
    free(b->spans);
    free(b->locids);
    sb_free(&b->key);
    free(b);
}

/* The folded stack's frames, root first, into b->spans; returns n. */
static size_t split_frames(pprof_builder *b, const char *stack, size_t len)
{
    size_t n = 0, a = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && stack[i] != ';')
            continue;
        if (n == b->spans_cap) {
            b->spans_cap = b->spans_cap ? b->spans_cap * 2 : 64;
            b->spans = xrealloc(b->spans, b->spans_cap * sizeof *b->spans);
        }
        b->spans[n++] = (frame_span){ a, i - a };
        a = i + 1;
    }
    return len == 0 ? 0 : n;
}

static void push_location(pprof_builder *b, size_t n, uint64_t id)
{
    if (n >= b->locids_cap) {
        b->locids_cap = b->locids_cap ? b->locids_cap * 2 : 64;
        b->locids = xrealloc(b->locids, b->locids_cap * sizeof *b->locids);
    }
    b->locids[n] = id;
}

/* Where a location's source line is looked up at write time
 * (dwarf_frame_line): the innermost frame's symbol and offset, and
 * whether it is a caller (its address a return address). */
typedef struct line_key {
    const char *symbol;   /* NULL: none */
    bool        caller, has_off;
    uint64_t    sym_off;
} line_key;

/* The location of folded frames [k0, k1] (root first; one input line
 * when k1 > k0), at addr in module (NULL: none).  Its lines are
 * innermost first: k1 down to k0. */
static uint64_t location_id(pprof_builder *b, const char *stack, size_t k0,
                            size_t k1, uint64_t addr, const char *module,
                            const line_key *lk)
{
    size_t mapping = module && addr ? mapping_id(b, module, addr) : 0;
    size_t fids[k1 - k0 + 1];
    for (size_t k = k1 + 1; k-- > k0;)
        fids[k1 - k] = function_id(b, stack + b->spans[k].off,
                                   b->spans[k].len);
    sb_reset(&b->key);
    put_varint(&b->key, mapping);
    put_varint(&b->key, addr);
    put_varint(&b->key, k1 - k0 + 1);
    for (size_t i = 0; i <= k1 - k0; i++)
        put_varint(&b->key, fids[i]);
    bool lines = mapping && lk && lk->symbol;
    put_varint(&b->key, lines ? 1 + (lk->caller ? 2 : 0)
                                + (lk->has_off ? 4 : 0) : 0);
    put_varint(&b->key, lines ? lk->sym_off : 0);
    put_varint(&b->key, lines ? intern(b, lk->symbol, strlen(lk->symbol))
                              : 0);
    if (k1 > k0)
        b->inline_frames = true;
    return stacktab_add(b->locs, b->key.buf, b->key.len, 0, 0) + 1;
}

/* The locations of the stack, root first, into b->locids; returns n. */
static size_t stack_locations(pprof_builder *b, const char *stack, size_t n,
                              const stackfold *sf)
{
    size_t m = sf ? stackfold_count(sf) : 0;
    if (m > n)
        m = 0;                 /* not the frames of this stack */
    size_t nloc = 0;
    for (size_t k = 0; k < n;) {
        if (k < n - m) {       /* a root frame the input added */
            push_location(b, nloc++, location_id(b, stack, k, k, 0, NULL,
                                                 NULL));
            k++;
            continue;
        }
        const stack_frame *f = &sf->f[n - 1 - k];
        size_t k1 = k;
        while (k1 + 1 < n && f->addr
               && sf->f[n - 2 - k1].line == f->line)
            k1++;
        const stack_frame *inner = &sf->f[n - 1 - k1];
        line_key lk = {
            .symbol = stackfold_name(sf, n - 1 - k1),
            .caller = k1 != n - 1,
            .has_off = inner->has_off,
            .sym_off = inner->sym_off,
        };
        push_location(b, nloc++, location_id(b, stack, k, k1, f->addr,
                                             stackfold_module(sf, n - 1 - k),
                                             &lk));
        k = k1 + 1;
    }
    return nloc;
}

static void note_weight_type(pprof_builder *b, const stack_context *ctx)
{
    size_t type = 0, unit = 0;
    if (ctx && ctx->weight_type) {
        type = intern(b, ctx->weight_type, strlen(ctx->weight_type));
        unit = intern(b, ctx->weight_unit ? ctx->weight_unit : "count",
                      ctx->weight_unit ? strlen(ctx->weight_unit) : 5);
    }
    if (!b->typed) {
        b->typed = true;
        b->wtype = type;
        b->wunit = unit;
    } else if (type != b->wtype || unit != b->wunit) {
        b->mixed = true;
    }
}

void pprof_builder_observe(void *builder, const char *stack, size_t len,
                           double weight, int col, int64_t when_ns,
                           const stack_context *ctx)
{
    pprof_builder *b = builder;
    b->nobs++;
    b->cur_weight = weight;
    b->cur_comm = ctx ? ctx->comm : NULL;
    b->cur_comm_len = ctx && ctx->comm ? ctx->comm_len : 0;
    size_t n = split_frames(b, stack, len);
    size_t nloc = stack_locations(b, stack, n, ctx ? ctx->frames : NULL);
    int64_t t = when_ns != STACK_TIME_UNKNOWN ? when_ns
                : ctx ? ctx->time_ns : STACK_TIME_UNKNOWN;
    if (t != STACK_TIME_UNKNOWN) {
        if (b->first_ns == STACK_TIME_UNKNOWN || t < b->first_ns)
            b->first_ns = t;
        if (b->last_ns == STACK_TIME_UNKNOWN || t > b->last_ns)
            b->last_ns = t;
    }
    note_weight_type(b, ctx);
    sb_reset(&b->key);
    put_varint(&b->key, nloc);
    for (size_t i = nloc; i-- > 0;)
        put_varint(&b->key, b->locids[i]);      /* leaf first */
    put_varint(&b->key, ctx && ctx->pid >= 0 ? (uint64_t)ctx->pid + 1 : 0);
    put_varint(&b->key, ctx && ctx->tid >= 0 ? (uint64_t)ctx->tid + 1 : 0);
    put_varint(&b->key, ctx && ctx->comm ? intern(b, ctx->comm, ctx->comm_len)
                                         : 0);
    put_varint(&b->key, ctx && ctx->host ? intern(b, ctx->host,
                                                  strlen(ctx->host)) : 0);
    if (b->sample_times)
        put_varint(&b->key, t == STACK_TIME_UNKNOWN ? 0 : zigzag(t) + 1);
    size_t idx = stacktab_add(b->samples, b->key.buf, b->key.len, 0, 0);
    if (idx >= b->vals_cap) {
        size_t nc = b->vals_cap ? b->vals_cap * 2 : 1024;
        b->vals = xrealloc(b->vals, nc * sizeof *b->vals);
        memset(b->vals + b->vals_cap, 0, (nc - b->vals_cap) * sizeof *b->vals);
        b->vals_cap = nc;
    }
    double samples = ctx ? ctx->samples : weight;
    if (samples < 0)
        b->samples_unknown = true;
    else
        b->vals[idx].samples += samples;
    b->vals[idx].w[col ? 1 : 0] += weight;
}

/* ---- writing ------------------------------------------------------------------------ */

typedef Perftools__Profiles__ValueType pb_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;

/* The message and everything it points to, freed together. */
typedef struct out_profile {
    pprof_msg      msg;
    pb_type        types[3], *type_ptrs[3];
    pb_function   *functions, **function_ptrs;
    pb_mapping    *mappings, **mapping_ptrs;
    pb_location   *locations, **location_ptrs;
    pb_line       *lines, **line_ptrs;
    pb_sample     *samples, **sample_ptrs;
    pb_label      *labels, **label_ptrs;
    uint64_t      *loc_ids;
    int64_t       *values;
    char         **strings;
    int64_t        comment;
} out_profile;

static int64_t whole(pprof_builder *b, double v)
{
    double r = llround(v);
    if (r != v)
        b->rounded++;
    return (int64_t)r;
}

static size_t intern_s(pprof_builder *b, const char *s)
{
    return intern(b, s, strlen(s));
}

/* Sample types: [samples][, weight] or [before, after]. */
static size_t sample_types(pprof_builder *b, out_profile *o, bool two_cols,
                           bool *with_samples, strbuf *notes)
{
    size_t n = 0;
    size_t wtype = b->wtype, wunit = b->wunit;
    if (b->mixed) {
        sb_adds(notes, "the inputs' weights measure different things "
                "(samples, perf periods, pprof values); the profile calls "
                "them \"weight\"\n");
        wtype = intern_s(b, "weight");
        wunit = intern_s(b, "count");
    }
    *with_samples = !two_cols && !b->samples_unknown && wtype != 0;
    if (two_cols) {
        size_t unit = wunit ? wunit : intern_s(b, "count");
        o->types[n++] = (pb_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        o->types[0].type = (int64_t)intern_s(b, "before");
        o->types[0].unit = (int64_t)unit;
        o->types[n++] = (pb_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        o->types[1].type = (int64_t)intern_s(b, "after");
        o->types[1].unit = (int64_t)unit;
        return n;
    }
    if (*with_samples || wtype == 0) {
        o->types[n] = (pb_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        o->types[n].type = (int64_t)intern_s(b, "samples");
        o->types[n++].unit = (int64_t)intern_s(b, "count");
    }
    if (wtype != 0) {
        o->types[n] = (pb_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        o->types[n].type = (int64_t)wtype;
        o->types[n++].unit = (int64_t)wunit;
    }
    return n;
}

/* The sampled program's mapping, to be written first (pprof reads
 * mapping[0] as the main binary: `File:` in its reports, the binary
 * -symbolize and -list look in): the one whose file name is the
 * samples' comm, by weight; else, as pprof's own guess for legacy
 * profiles, one that is not a shared library ("[...]", *.so, *.so.N)
 * nor a bare module name, by weight; else the first seen. */
static bool is_library(const char *file)
{
    const char *slash = strrchr(file, '/');
    const char *so = slash ? strstr(slash, ".so") : NULL;
    return file[0] == '[' || slash == NULL
           || (so && (so[3] == '\0' || so[3] == '.' || so[3] == '_'));
}

static size_t main_mapping(pprof_builder *b)
{
    size_t best = 0;
    double w = 0;
    for (size_t i = 0; i < b->nmaps; i++)
        if (b->maps[i].named > w) {
            w = b->maps[i].named;
            best = i;
        }
    if (w > 0)
        return best;
    for (size_t i = 0; i < b->nmaps; i++) {
        const char *file = stacktab_entry(b->strs, b->maps[i].file)->stack;
        if (!is_library(file) && b->maps[i].seen > w) {
            w = b->maps[i].seen;
            best = i;
        }
    }
    return best;
}

/* Source lines, looked up once per location when writing. */
typedef struct line_ctx {
    dwarf_binary **bin;       /* per mapping (id - 1); NULL: none */
    bool          *tried;
    stacktab      *syms;      /* key: mapping id, symbol string */
    uint64_t      *sym_addr;
    signed char   *sym_found; /* -1: not looked up yet */
    size_t         sym_cap;
    size_t        *func_file; /* per function (id - 1): string, 0: none */
} line_ctx;

static dwarf_binary *line_binary(pprof_builder *b, line_ctx *lc, size_t map)
{
    if (!lc->tried[map - 1]) {
        lc->tried[map - 1] = true;
        strbuf err = STRBUF_INIT;
        const char *file = stacktab_entry(b->strs, b->maps[map - 1].file)->stack;
        dwarf_binary *bin = file[0] == '/' ? dwarf_open(file, &err) : NULL;
        sb_free(&err);
        if (bin && !dwarf_has_lines(bin)) {
            dwarf_close(bin);
            bin = NULL;
        }
        lc->bin[map - 1] = bin;
    }
    return lc->bin[map - 1];
}

/* The line of a location whose innermost function is fid (0: none
 * known); its file becomes the function's file if it has none yet. */
static int64_t location_line(pprof_builder *b, line_ctx *lc, uint64_t map,
                             uint64_t flags, uint64_t where, uint64_t sym,
                             uint64_t fid)
{
    if (map == 0 || !(flags & 1))
        return 0;
    dwarf_binary *bin = line_binary(b, lc, map);
    if (bin == NULL)
        return 0;
    strbuf key = STRBUF_INIT;
    put_varint(&key, map);
    put_varint(&key, sym);
    size_t k = stacktab_add(lc->syms, key.buf, key.len, 0, 0);
    sb_free(&key);
    if (k >= lc->sym_cap) {
        size_t nc = lc->sym_cap ? lc->sym_cap * 2 : 256;
        lc->sym_addr = xrealloc(lc->sym_addr, nc * sizeof *lc->sym_addr);
        lc->sym_found = xrealloc(lc->sym_found, nc * sizeof *lc->sym_found);
        memset(lc->sym_found + lc->sym_cap, -1, nc - lc->sym_cap);
        lc->sym_cap = nc;
    }
    if (lc->sym_found[k] < 0)
        lc->sym_found[k] = dwarf_symbol(bin, stacktab_entry(b->strs, sym)->stack,
                                        &lc->sym_addr[k]);
    const char *file;
    int line;
    if (!dwarf_frame_line(bin, lc->sym_found[k] ? &lc->sym_addr[k] : NULL,
                          flags & 4, where, flags & 2, &file, &line))
        return 0;
    b->maps[map - 1].has_lines = true;
    if (fid && lc->func_file[fid - 1] == 0)
        lc->func_file[fid - 1] = intern_s(b, file);
    return line;
}

static void build_functions(pprof_builder *b, out_profile *o,
                            const size_t *func_file)
{
    o->functions = xcalloc(b->nfunc + 1, sizeof *o->functions);
    o->function_ptrs = xcalloc(b->nfunc + 1, sizeof *o->function_ptrs);
    for (size_t i = 0; i < b->nfunc; i++) {
        pb_function *f = &o->functions[i];
        *f = (pb_function)PERFTOOLS__PROFILES__FUNCTION__INIT;
        f->id = i + 1;
        f->name = f->system_name = (int64_t)b->func_name[i];
        f->filename = (int64_t)func_file[i];
        o->function_ptrs[i] = f;
    }
    o->msg.n_function = b->nfunc;
    o->msg.function = o->function_ptrs;
}

/* Mapping ids: the main mapping's becomes 1, the others keep their
 * order.  new_id[old id - 1]. */
static size_t *mapping_order(pprof_builder *b)
{
    size_t *new_id = xcalloc(b->nmaps + 1, sizeof *new_id);
    size_t main = b->nmaps ? main_mapping(b) : 0;
    for (size_t i = 0; i < b->nmaps; i++)
        new_id[i] = i == main ? 1 : i < main ? i + 2 : i + 1;
    return new_id;
}

static void build_mappings(pprof_builder *b, out_profile *o,
                           const size_t *new_id)
{
    o->mappings = xcalloc(b->nmaps + 1, sizeof *o->mappings);
    o->mapping_ptrs = xcalloc(b->nmaps + 1, sizeof *o->mapping_ptrs);
    for (size_t old = 0; old < b->nmaps; old++) {
        size_t i = new_id[old] - 1;
        pb_mapping *m = &o->mappings[i];
        *m = (pb_mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
        m->id = i + 1;
        m->memory_start = b->maps[old].lo;
        m->memory_limit = b->maps[old].hi + 1;
        m->filename = (int64_t)b->maps[old].file;
        m->has_functions = true;
        m->has_filenames = m->has_line_numbers = b->maps[old].has_lines;
        m->has_inline_frames = b->inline_frames;
        o->mapping_ptrs[i] = m;
    }
    o->msg.n_mapping = b->nmaps;
    o->msg.mapping = o->mapping_ptrs;
}

static void build_locations(pprof_builder *b, out_profile *o,
                            const size_t *new_id, line_ctx *lc)
{
    size_t nloc = stacktab_size(b->locs), nlines = 0;
    for (size_t i = 0; i < nloc; i++) {
        const char *p = stacktab_entry(b->locs, i)->stack;
        get_varint(&p);
        get_varint(&p);
        nlines += get_varint(&p);
    }
    o->locations = xcalloc(nloc + 1, sizeof *o->locations);
    o->location_ptrs = xcalloc(nloc + 1, sizeof *o->location_ptrs);
    o->lines = xcalloc(nlines + 1, sizeof *o->lines);
    o->line_ptrs = xcalloc(nlines + 1, sizeof *o->line_ptrs);
    size_t li = 0;
    for (size_t i = 0; i < nloc; i++) {
        const char *p = stacktab_entry(b->locs, i)->stack;
        pb_location *l = &o->locations[i];
        *l = (pb_location)PERFTOOLS__PROFILES__LOCATION__INIT;
        l->id = i + 1;
        uint64_t map = get_varint(&p);
        l->mapping_id = map ? new_id[map - 1] : 0;
        l->address = get_varint(&p);
        l->n_line = get_varint(&p);
        l->line = &o->line_ptrs[li];
        size_t first = li;
        for (size_t k = 0; k < l->n_line; k++, li++) {
            o->lines[li] = (pb_line)PERFTOOLS__PROFILES__LINE__INIT;
            o->lines[li].function_id = get_varint(&p);
            o->line_ptrs[li] = &o->lines[li];
        }
        /* the address's line is its innermost function's (the DWARF
         * line table knows no more of an inlined chain) */
        uint64_t flags = get_varint(&p), sym_off = get_varint(&p);
        uint64_t sym = get_varint(&p);
        if (l->n_line)
            o->lines[first].line = location_line(
                b, lc, map, flags, flags & 4 ? sym_off : l->address, sym,
                o->lines[first].function_id);
        o->location_ptrs[i] = l;
    }
    o->msg.n_location = nloc;
    o->msg.location = o->location_ptrs;
}

static pb_label *add_label(out_profile *o, size_t *nl, size_t key)
{
    pb_label *l = &o->labels[*nl];
    *l = (pb_label)PERFTOOLS__PROFILES__LABEL__INIT;
    l->key = (int64_t)key;
    o->label_ptrs[*nl] = l;
    (*nl)++;
    return l;
}

static void build_samples(pprof_builder *b, out_profile *o, size_t ntypes,
                          bool two_cols, bool with_samples)
{
    size_t ns = stacktab_size(b->samples), nids = 0;
    for (size_t i = 0; i < ns; i++) {
        const char *p = stacktab_entry(b->samples, i)->stack;
        nids += get_varint(&p);
    }
    size_t k_pid = intern_s(b, "pid"), k_tid = intern_s(b, "tid"),
           k_comm = intern_s(b, "comm"), k_host = intern_s(b, "host"),
           k_time = intern_s(b, "timestamp_ns"),
           u_ns = intern_s(b, "nanoseconds");
    o->samples = xcalloc(ns + 1, sizeof *o->samples);
    o->sample_ptrs = xcalloc(ns + 1, sizeof *o->sample_ptrs);
    o->loc_ids = xcalloc(nids + 1, sizeof *o->loc_ids);
    o->values = xcalloc(ns * ntypes + 1, sizeof *o->values);
    o->labels = xcalloc(ns * 5 + 1, sizeof *o->labels);
    o->label_ptrs = xcalloc(ns * 5 + 1, sizeof *o->label_ptrs);
    size_t ni = 0, nl = 0;
    for (size_t i = 0; i < ns; i++) {
        const char *p = stacktab_entry(b->samples, i)->stack;
        pb_sample *s = &o->samples[i];
        *s = (pb_sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
        s->n_location_id = get_varint(&p);
        s->location_id = &o->loc_ids[ni];
        for (size_t k = 0; k < s->n_location_id; k++)
            o->loc_ids[ni++] = get_varint(&p);
        s->n_value = ntypes;
        s->value = &o->values[i * ntypes];
        const sample_values *v = &b->vals[i];
        size_t t = 0;
        if (two_cols) {
            s->value[t++] = whole(b, v->w[0]);
            s->value[t++] = whole(b, v->w[1]);
        } else {
            if (with_samples)
                s->value[t++] = whole(b, v->samples);
            s->value[t++] = whole(b, v->w[0]);
        }
        s->label = &o->label_ptrs[nl];
        uint64_t pid = get_varint(&p), tid = get_varint(&p);
        uint64_t comm = get_varint(&p), host = get_varint(&p);
        uint64_t when = b->sample_times ? get_varint(&p) : 0;
        size_t first = nl;
        if (pid)
            add_label(o, &nl, k_pid)->num = (int64_t)(pid - 1);
        if (tid)
            add_label(o, &nl, k_tid)->num = (int64_t)(tid - 1);
        if (comm)
            add_label(o, &nl, k_comm)->str = (int64_t)comm;
        if (host)
            add_label(o, &nl, k_host)->str = (int64_t)host;
        if (when) {
            pb_label *l = add_label(o, &nl, k_time);
            l->num = unzigzag(when - 1);
            l->num_unit = (int64_t)u_ns;
        }
        s->n_label = nl - first;
        o->sample_ptrs[i] = s;
    }
    o->msg.n_sample = ns;
    o->msg.sample = o->sample_ptrs;
}

static void free_out(out_profile *o)
{
    free(o->functions);
    free(o->function_ptrs);
    free(o->mappings);
    free(o->mapping_ptrs);
    free(o->locations);
    free(o->location_ptrs);
    free(o->lines);
    free(o->line_ptrs);
    free(o->samples);
    free(o->sample_ptrs);
    free(o->labels);
    free(o->label_ptrs);
    free(o->loc_ids);
    free(o->values);
    free(o->strings);
}

int pprof_builder_write(pprof_builder *b, FILE *out, const char *comment,
                        strbuf *notes)
{
    out_profile o;
    memset(&o, 0, sizeof o);
    o.msg = (pprof_msg)PERFTOOLS__PROFILES__PROFILE__INIT;
    bool two_cols = false;
    for (size_t i = 0; i < stacktab_size(b->samples) && !two_cols; i++)
        two_cols = b->vals[i].w[1] != 0;
    bool with_samples;
    size_t ntypes = sample_types(b, &o, two_cols, &with_samples, notes);
    for (size_t i = 0; i < ntypes; i++)
        o.type_ptrs[i] = &o.types[i];
    o.msg.n_sample_type = ntypes;
    o.msg.sample_type = o.type_ptrs;
    o.msg.default_sample_type = o.types[ntypes - 1].type;
    size_t *new_id = mapping_order(b);
    line_ctx lc = {
        .bin = xcalloc(b->nmaps + 1, sizeof *lc.bin),
        .tried = xcalloc(b->nmaps + 1, sizeof *lc.tried),
        .syms = stacktab_new(),
        .func_file = xcalloc(b->nfunc + 1, sizeof *lc.func_file),
    };
    build_locations(b, &o, new_id, &lc);
    build_functions(b, &o, lc.func_file);
    build_mappings(b, &o, new_id);
    for (size_t i = 0; i < b->nmaps; i++)
        dwarf_close(lc.bin[i]);
    free(lc.bin);
    free(lc.tried);
    stacktab_free(lc.syms);
    free(lc.sym_addr);
    free(lc.sym_found);
    free(lc.func_file);
    free(new_id);
    build_samples(b, &o, ntypes, two_cols, with_samples);
    if (comment) {
        o.comment = (int64_t)intern_s(b, comment);
        o.msg.n_comment = 1;
        o.msg.comment = &o.comment;
    }
    /* since the epoch only when it is one (2001 on): perf's own clock
     * usually counts from boot */
    if (b->first_ns >= 1000000000000000000LL)
        o.msg.time_nanos = b->first_ns;
    if (b->first_ns != STACK_TIME_UNKNOWN)
        o.msg.duration_nanos = b->last_ns - b->first_ns;
    /* the string table last: everything above interns */
    size_t nstr = stacktab_size(b->strs);
    o.strings = xcalloc(nstr + 1, sizeof *o.strings);
    for (size_t i = 0; i < nstr; i++)
        o.strings[i] = (char *)stacktab_entry(b->strs, i)->stack;
    o.msg.n_string_table = nstr;
    o.msg.string_table = o.strings;
    if (b->rounded)
        sb_printf(notes, "rounded %llu weights that were not whole numbers "
                  "(pprof values are integers)\n",
                  (unsigned long long)b->rounded);
    int rc = pprof_write_gz(&o.msg, out);
    free_out(&o);
    return rc;
}
