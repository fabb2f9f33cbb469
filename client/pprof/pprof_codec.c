/* pprof_codec: gzip, protobuf-c and the checks of an untrusted profile
 * (see pprof_codec.h). */
#include "client/pprof/pprof_codec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/xalloc.h"

/* ---- gzip ------------------------------------------------------------------ */

bool pprof_is_gzip(const uint8_t *buf, size_t n)
{
    return n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b;
}

int pprof_gunzip(const uint8_t *in, size_t n, size_t cap, uint8_t **out,
                 size_t *outn, strbuf *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        sb_adds(err, "zlib: cannot start inflating");
        return -1;
    }
    size_t size = n * 4 + 4096 < cap ? n * 4 + 4096 : cap;
    uint8_t *buf = xmalloc(size + 1);
    size_t len = 0;
    z.next_in = (Bytef *)in;
    int rc = Z_OK;
    for (;;) {
        /* zlib counts in uInt: feed and drain at most 1 GiB at a time */
        size_t in_left = n - (size_t)((const uint8_t *)z.next_in - in);
        z.avail_in = (uInt)(in_left > (1u << 30) ? (1u << 30) : in_left);
        if (len == size) {
            if (size == cap) {
                sb_printf(err, "inflates to more than %zu MiB (the limit "
                          "for a profile)", cap >> 20);
                rc = Z_MEM_ERROR;
                break;
            }
            size = size * 2 < cap ? size * 2 : cap;
            buf = xrealloc(buf, size + 1);
        }
        size_t room = size - len;
        z.next_out = buf + len;
        z.avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
        uInt before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        len += before - z.avail_out;
        if (rc == Z_STREAM_END) {
            /* another gzip member may follow (concatenated files) */
            if ((const uint8_t *)z.next_in - in < (ptrdiff_t)n
                && inflateReset(&z) == Z_OK)
                continue;
            break;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0
            && (size_t)((const uint8_t *)z.next_in - in) == n) {
            sb_adds(err, "gzip data ends early (truncated)");
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            sb_printf(err, "gzip data is corrupt (%s)",
                      z.msg ? z.msg : "zlib error");
            break;
        }
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outn = len;
    return 0;
}

int pprof_slurp(FILE *fp, int first, uint8_t **out, size_t *outn,
                strbuf *err)
{
    size_t cap = 65536, len = 0;
    uint8_t *buf = xmalloc(cap);
    if (first >= 0)
        buf[len++] = (uint8_t)first;
    for (;;) {
        if (len == cap) {
            if (cap >= PPROF_MAX_BYTES) {
                sb_printf(err, "larger than %zu MiB (the limit for a "
                          "profile)", PPROF_MAX_BYTES >> 20);
                free(buf);
                return -1;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        sb_adds(err, "read error");
        free(buf);
        return -1;
    }
    *out = buf;
    *outn = len;
    return 0;
}

/* ---- ids --------------------------------------------------------------------- */

/* id -> index of a repeated message, sorted by id for bsearch (a
 * profile's ids are usually 1..n in order: then index = id - 1). */
typedef struct pprof_id { uint64_t id; size_t index; } pprof_id;
struct pprof_ids {
    pprof_id *v;
    size_t    n;
    bool      dense;     /* id == index + 1 for all */
};

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const pprof_id *)a)->id, y = ((const pprof_id *)b)->id;
    return x < y ? -1 : x > y;
}

/* Index ids[0..n) (each the id field of element i).  NULL after a
 * message when an id is 0 or repeated. */
static struct pprof_ids *index_ids(const uint64_t *ids, size_t n,
                                   const char *what, strbuf *err)
{
    struct pprof_ids *x = xcalloc(1, sizeof *x);
    x->n = n;
    x->dense = true;
    for (size_t i = 0; i < n; i++)
        if (ids[i] != i + 1)
            x->dense = false;
    if (x->dense)
        return x;
    x->v = xmalloc((n ? n : 1) * sizeof *x->v);
    for (size_t i = 0; i < n; i++)
        x->v[i] = (pprof_id){ ids[i], i };
    qsort(x->v, n, sizeof *x->v, cmp_id);
    for (size_t i = 0; i < n; i++) {
        if (x->v[i].id == 0 || (i > 0 && x->v[i].id == x->v[i - 1].id)) {
            sb_printf(err, "%s id %" PRIu64 " is %s", what, x->v[i].id,
                      x->v[i].id == 0 ? "zero" : "used twice");
            free(x->v);
            free(x);
            return NULL;
        }
    }
    return x;
}

/* The index of id, or SIZE_MAX. */
static size_t find_id(const struct pprof_ids *x, uint64_t id)
{
    if (x == NULL || id == 0)
        return SIZE_MAX;
    if (x->dense)
        return id <= x->n ? (size_t)(id - 1) : SIZE_MAX;
    pprof_id key = { id, 0 };
    const pprof_id *hit = bsearch(&key, x->v, x->n, sizeof *x->v, cmp_id);
    return hit ? hit->index : SIZE_MAX;
}

static void free_ids(struct pprof_ids *x)
{
    if (x) {
        free(x->v);
        free(x);
    }
}

const Perftools__Profiles__Location *pprof_location(const pprof_profile *p,
                                                    uint64_t id)
{
    size_t i = find_id(p->locations, id);
    return i == SIZE_MAX ? NULL : p->msg->location[i];
}

const Perftools__Profiles__Function *pprof_function(const pprof_profile *p,
                                                    uint64_t id)
{
    size_t i = find_id(p->functions, id);
    return i == SIZE_MAX ? NULL : p->msg->function[i];
}

const Perftools__Profiles__Mapping *pprof_mapping(const pprof_profile *p,
                                                  uint64_t id)
{
    size_t i = find_id(p->mappings, id);
    return i == SIZE_MAX ? NULL : p->msg->mapping[i];
}

const char *pprof_str(const pprof_profile *p, int64_t index)
{
    if (index < 0 || (uint64_t)index >= p->msg->n_string_table)
        return "";
    return p->msg->string_table[index];
}

/* ---- checks ------------------------------------------------------------------- */

static bool str_ok(const pprof_msg *m, int64_t i)
{
    return i >= 0 && (uint64_t)i < m->n_string_table;
}

#define CHECK_STR(cond_index, ...)                                       \
    do {                                                                 \
        if (!str_ok(m, (cond_index))) {                                  \
            sb_printf(err, __VA_ARGS__);                                 \
            sb_printf(err, " refers to string %" PRId64 " of %zu",       \
                      (int64_t)(cond_index), m->n_string_table);         \
            return -1;                                                   \
        }                                                                \
    } while (0)

static int check_header(const pprof_msg *m, strbuf *err)
{
    if (m->n_string_table == 0 || m->string_table[0][0] != '\0') {
        sb_adds(err, "the string table does not start with \"\" (not a "
                "pprof profile?)");
        return -1;
    }
    if (m->n_sample_type == 0 && m->n_sample > 0) {
        sb_adds(err, "samples without sample types");
        return -1;
    }
    for (size_t i = 0; i < m->n_sample_type; i++) {
        CHECK_STR(m->sample_type[i]->type, "sample type %zu", i);
        CHECK_STR(m->sample_type[i]->unit, "sample type %zu's unit", i);
    }
    CHECK_STR(m->drop_frames, "drop_frames");
    CHECK_STR(m->keep_frames, "keep_frames");
    CHECK_STR(m->default_sample_type, "default_sample_type");
    CHECK_STR(m->doc_url, "doc_url");
    for (size_t i = 0; i < m->n_comment; i++)
        CHECK_STR(m->comment[i], "comment %zu", i);
    if (m->period_type) {
        CHECK_STR(m->period_type->type, "period_type");
        CHECK_STR(m->period_type->unit, "period_type's unit");
    }
    return 0;
}

static int check_tables(const pprof_profile *p, strbuf *err)
{
    const pprof_msg *m = p->msg;
    for (size_t i = 0; i < m->n_mapping; i++) {
        CHECK_STR(m->mapping[i]->filename, "mapping %zu's file name", i);
        CHECK_STR(m->mapping[i]->build_id, "mapping %zu's build id", i);
    }
    for (size_t i = 0; i < m->n_function; i++) {
        const Perftools__Profiles__Function *f = m->function[i];
        CHECK_STR(f->name, "function %" PRIu64 "'s name", f->id);
        CHECK_STR(f->system_name, "function %" PRIu64 "'s system name", f->id);
        CHECK_STR(f->filename, "function %" PRIu64 "'s file name", f->id);
    }
    for (size_t i = 0; i < m->n_location; i++) {
        const Perftools__Profiles__Location *l = m->location[i];
        if (l->mapping_id && pprof_mapping(p, l->mapping_id) == NULL) {
            sb_printf(err, "location %" PRIu64 " refers to mapping %" PRIu64
                      ", which the profile does not have", l->id,
                      l->mapping_id);
            return -1;
        }
        for (size_t k = 0; k < l->n_line; k++)
            if (l->line[k]->function_id
                && pprof_function(p, l->line[k]->function_id) == NULL) {
                sb_printf(err, "location %" PRIu64 " refers to function %"
                          PRIu64 ", which the profile does not have", l->id,
                          l->line[k]->function_id);
                return -1;
            }
    }
    return 0;
}

static int check_samples(const pprof_profile *p, strbuf *err)
{
    const pprof_msg *m = p->msg;
    for (size_t i = 0; i < m->n_sample; i++) {
        const Perftools__Profiles__Sample *s = m->sample[i];
        if (s->n_value != m->n_sample_type) {
            sb_printf(err, "sample %zu has %zu values for %zu sample types",
                      i, s->n_value, m->n_sample_type);
            return -1;
        }
        for (size_t k = 0; k < s->n_location_id; k++)
            if (pprof_location(p, s->location_id[k]) == NULL) {
                sb_printf(err, "sample %zu refers to location %" PRIu64
                          ", which the profile does not have", i,
                          s->location_id[k]);
                return -1;
            }
        for (size_t k = 0; k < s->n_label; k++) {
            const Perftools__Profiles__Label *l = s->label[k];
            CHECK_STR(l->key, "sample %zu's label %zu", i, k);
            CHECK_STR(l->str, "sample %zu's label %zu", i, k);
            CHECK_STR(l->num_unit, "sample %zu's label %zu", i, k);
        }
    }
    return 0;
}

static int index_all(pprof_profile *p, strbuf *err)
{
    const pprof_msg *m = p->msg;
    size_t most = m->n_location > m->n_function ? m->n_location : m->n_function;
    most = most > m->n_mapping ? most : m->n_mapping;
    uint64_t *ids = xmalloc((most ? most : 1) * sizeof *ids);
    for (size_t i = 0; i < m->n_location; i++)
        ids[i] = m->location[i]->id;
    p->locations = index_ids(ids, m->n_location, "location", err);
    for (size_t i = 0; p->locations && i < m->n_function; i++)
        ids[i] = m->function[i]->id;
    if (p->locations)
        p->functions = index_ids(ids, m->n_function, "function", err);
    for (size_t i = 0; p->functions && i < m->n_mapping; i++)
        ids[i] = m->mapping[i]->id;
    if (p->functions)
        p->mappings = index_ids(ids, m->n_mapping, "mapping", err);
    free(ids);
    return p->mappings ? 0 : -1;
}

pprof_profile *pprof_decode(const uint8_t *buf, size_t n, strbuf *err)
{
    uint8_t *raw = NULL;
    if (pprof_is_gzip(buf, n)) {
        if (pprof_gunzip(buf, n, PPROF_MAX_BYTES, &raw, &n, err) < 0)
            return NULL;
        buf = raw;
    } else if (n > PPROF_MAX_BYTES) {
        sb_printf(err, "larger than %zu MiB (the limit for a profile)",
                  PPROF_MAX_BYTES >> 20);
        return NULL;
    }
    pprof_msg *m = perftools__profiles__profile__unpack(NULL, n, buf);
    free(raw);
    if (m == NULL) {
        sb_adds(err, "not a pprof profile (the protocol buffer does not "
                "decode as profile.proto)");
        return NULL;
    }
    pprof_profile *p = xcalloc(1, sizeof *p);
    p->msg = m;
    if (check_header(m, err) < 0 || index_all(p, err) < 0
        || check_tables(p, err) < 0 || check_samples(p, err) < 0) {
        pprof_free(p);
        return NULL;
    }
    return p;
}

void pprof_free(pprof_profile *p)
{
    if (p == NULL)
        return;
    if (p->msg)
        perftools__profiles__profile__free_unpacked(p->msg, NULL);
    free_ids(p->locations);
    free_ids(p->functions);
    free_ids(p->mappings);
    free(p);
}

int pprof_sample_index(const pprof_profile *p, const char *want, strbuf *err)
{
    const pprof_msg *m = p->msg;
    if (m->n_sample_type == 0) {
        sb_adds(err, "the profile has no sample types");
        return -1;
    }
    int last = (int)(m->n_sample_type > INT32_MAX ? INT32_MAX
                                                  : m->n_sample_type) - 1;
    if (want == NULL || *want == '\0') {
        const char *dst = pprof_str(p, m->default_sample_type);
        for (int i = 0; dst[0] && i <= last; i++)
            if (strcmp(pprof_str(p, m->sample_type[i]->type), dst) == 0)
                return i;
        return last;
    }
    char *end;
    errno = 0;
    long v = strtol(want, &end, 10);
    if (*end == '\0' && errno == 0) {
        if (v < 0 || v > last) {
            sb_printf(err, "--sample-index %s is outside the range [0..%d]",
                      want, last);
            return -1;
        }
        return (int)v;
    }
    const char *no_inuse = strncmp(want, "inuse_", 6) == 0 ? want + 6 : want;
    for (int i = 0; i <= last; i++) {
        const char *t = pprof_str(p, m->sample_type[i]->type);
        if (strcmp(t, want) == 0 || strcmp(t, no_inuse) == 0)
            return i;
    }
    sb_printf(err, "--sample-index %s must be one of:", want);
    for (int i = 0; i <= last; i++)
        sb_printf(err, " %s", pprof_str(p, m->sample_type[i]->type));
    return -1;
}

/* ---- writing --------------------------------------------------------------- */

/* A ProtobufCBuffer that deflates what protobuf-c packs straight into
 * the file, so a large profile is never whole in memory twice. */
typedef struct gz_sink {
    ProtobufCBuffer base;
    z_stream        z;
    FILE           *out;
    bool            failed;
    uint8_t         chunk[65536];
} gz_sink;

static void gz_drain(gz_sink *g, int flush)
{
    do {
        g->z.next_out = g->chunk;
        g->z.avail_out = sizeof g->chunk;
        int rc = deflate(&g->z, flush);
        if (rc == Z_STREAM_ERROR) {
            g->failed = true;
            return;
        }
        size_t have = sizeof g->chunk - g->z.avail_out;
        if (have && fwrite(g->chunk, 1, have, g->out) != have)
            g->failed = true;
    } while (g->z.avail_out == 0 && !g->failed);
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    gz_sink *g = (gz_sink *)b;
    while (len > 0 && !g->failed) {
        size_t part = len > (1u << 30) ? (1u << 30) : len;
        g->z.next_in = (Bytef *)data;
        g->z.avail_in = (uInt)part;
        gz_drain(g, Z_NO_FLUSH);
        data += part;
        len -= part;
    }
}

int pprof_write_gz(const pprof_msg *msg, FILE *out)
{
    gz_sink *g = xcalloc(1, sizeof *g);
    g->base.append = gz_append;
    g->out = out;
    if (deflateInit2(&g->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return -1;
    }
    perftools__profiles__profile__pack_to_buffer(msg, &g->base);
    if (!g->failed)
        gz_drain(g, Z_FINISH);
    deflateEnd(&g->z);
    int rc = g->failed ? -1 : 0;
    free(g);
    return rc;
}
