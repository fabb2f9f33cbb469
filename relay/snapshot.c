/* snapshot: map a parsed data document through metadata, keeping copies
 * of what the metrics read. */
#include "relay/snapshot.h"
#include "relay/jsondoc.h"
#include "relay/pointer.h"
#include "common/strmap.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text pool: strings and names, in chunks that never move ---------- */

typedef struct text_chunk {
    struct text_chunk *next;
    size_t used, cap;
    char data[];
} text_chunk;

struct text_pool {
    text_chunk *head;
};

#define CHUNK_MIN 4096
/* What an allocation really costs: its chunk header, rounded to 16. */
#define ALLOC_COST(n) ((((n) + 15) / 16) * 16 + 16)

/* Building: the snapshot, its budget, and whether it ran out. */
typedef struct builder {
    snapshot *s;
    size_t limit;
    bool over;            /* more than limit bytes */
    bool nomem;
} builder;

static bool charge(builder *b, size_t n)
{
    size_t cost = ALLOC_COST(n);
    if (b->over || b->nomem || __builtin_add_overflow(b->s->bytes, cost, &b->s->bytes) ||
        b->s->bytes > b->limit) {
        b->over = !b->nomem;
        return false;
    }
    return true;
}

static void *b_calloc(builder *b, size_t n, size_t size)
{
    size_t total;
    if (n == 0)
        n = 1;
    if (__builtin_mul_overflow(n, size, &total) || !charge(b, total))
        return NULL;
    void *p = calloc(n, size);
    if (p == NULL)
        b->nomem = true;
    return p;
}

/* A NUL-terminated copy of n bytes, owned by the snapshot. */
static const char *b_text(builder *b, const char *text, size_t n)
{
    struct text_pool *tp = b->s->text;
    text_chunk *c = tp->head;
    if (c == NULL || c->cap - c->used < n + 1) {
        size_t cap = n + 1 > CHUNK_MIN ? n + 1 : CHUNK_MIN;
        if (!charge(b, sizeof(text_chunk) + cap))
            return NULL;
        c = malloc(sizeof(text_chunk) + cap);
        if (c == NULL) {
            b->nomem = true;
            return NULL;
        }
        c->next = tp->head;
        c->used = 0;
        c->cap = cap;
        tp->head = c;
    }
    char *p = c->data + c->used;
    memcpy(p, text, n);
    p[n] = '\0';
    c->used += n + 1;
    return p;
}

static void pool_free(struct text_pool *tp)
{
    if (tp == NULL)
        return;
    for (text_chunk *c = tp->head, *n; c != NULL; c = n) {
        n = c->next;
        free(c);
    }
    free(tp);
}

/* ---- values ------------------------------------------------------------ */

static value_state from_num(num_status st)
{
    return st == NUM_OK ? VAL_OK : st == NUM_RANGE ? VAL_RANGE : VAL_BADTYPE;
}

/* Convert one JSON value to the metric's type.  Booleans count as 0/1
 * integers, as pmdajson did; integers are accepted for doubles; a number
 * that does not fit the type is out of range (a u64 counter above
 * INT64_MAX fits "unsigned", not "integer"); nothing else is coerced (a
 * number is not silently turned into a string). */
static void convert(builder *b, value *out, json_t *v, value_type type)
{
    out->state = VAL_OK;
    switch (type) {
    case VT_INT64:
        if (json_is_boolean(v))
            out->u.i = json_is_true(v);
        else
            out->state = from_num(jsondoc_int64(v, &out->u.i));
        break;
    case VT_UINT64:
        if (json_is_boolean(v))
            out->u.u = json_is_true(v);
        else
            out->state = from_num(jsondoc_uint64(v, &out->u.u));
        break;
    case VT_DOUBLE:
        out->state = from_num(jsondoc_double(v, &out->u.d));
        break;
    case VT_STRING: {
        size_t n;
        const char *s = jsondoc_string(v, &n);
        if (s == NULL) {
            out->state = VAL_BADTYPE;
            break;
        }
        out->u.s = b_text(b, s, n);
        if (out->u.s == NULL)
            out->state = VAL_MISSING;   /* the build is abandoned anyway */
        break;
    }
    }
}

static void resolve(builder *b, value *out, json_t *base, const char *ptr, value_type type)
{
    json_t *v = pointer_get(base, ptr, NULL);
    if (v == NULL || json_is_null(v)) {
        out->state = VAL_MISSING;
        return;
    }
    convert(b, out, v, type);
}

/* Room for the longest generated instance name: "-9223372036854775808-..." */
#define NAMEBUF 48

/* A histogram bucket {"lo": L, "hi": H, "count": N}: its name is "L-H"
 * (pmdabcc's convention), with "inf" for an open end. */
static int bucket_name(instance *in, json_t *e, char *buf)
{
    json_t *lo = json_object_get(e, "lo"), *hi = json_object_get(e, "hi");
    if (!json_is_object(e) || (lo != NULL && !json_is_null(lo) && !json_is_integer(lo)) ||
        (hi != NULL && !json_is_null(hi) && !json_is_integer(hi)))
        return -1;
    in->lo_open = !json_is_integer(lo);
    in->hi_open = !json_is_integer(hi);
    if (in->lo_open && in->hi_open)
        return -1;
    in->lo = in->lo_open ? 0 : json_integer_value(lo);
    in->hi = in->hi_open ? 0 : json_integer_value(hi);
    if (!in->lo_open && !in->hi_open && in->hi < in->lo)
        return -1;
    if (in->lo_open)
        snprintf(buf, NAMEBUF, "-inf-%" PRId64, in->hi);
    else if (in->hi_open)
        snprintf(buf, NAMEBUF, "%" PRId64 "-inf", in->lo);
    else
        snprintf(buf, NAMEBUF, "%" PRId64 "-%" PRId64, in->lo, in->hi);
    return 0;
}

/* An element's instance name from its index: a string (not empty, no
 * NUL), an integer in decimal, or an integer beyond int64 by its digits.
 * Returns the text and its length in buf or in the document, or NULL. */
static const char *index_name(instance *in, json_t *id, char *buf, size_t *n)
{
    const char *s = jsondoc_string(id, n);
    if (s != NULL)
        return *n > 0 && strlen(s) == *n ? s : NULL;
    if (json_is_integer(id)) {
        in->number = json_integer_value(id);
        in->is_number = true;
        *n = (size_t)snprintf(buf, NAMEBUF, "%" PRId64, (int64_t)in->number);
        return buf;
    }
    s = jsondoc_number_text(id);
    if (s != NULL && jsondoc_is_integer(id)) {
        *n = strlen(s);
        return s;
    }
    return NULL;
}

/* Build the instance list of one array: names from the index pointer,
 * integers printed in decimal, duplicates and unusable indexes dropped
 * (and counted) so every name maps to exactly one element. */
static void build_array(builder *b, array_snapshot *as, const meta_array *ma, json_t *doc,
                        json_t ***elems_out)
{
    *elems_out = NULL;
    json_t *arr = pointer_get(doc, ma->pointer, NULL);
    if (arr == NULL) {
        as->problem = "array pointer not found in data";
        return;
    }
    if (!json_is_array(arr)) {
        as->problem = "array pointer does not lead to a JSON array";
        return;
    }
    size_t n = json_array_size(arr);
    as->insts = b_calloc(b, n, sizeof(instance));
    json_t **elems = calloc(n ? n : 1, sizeof(json_t *));
    strmap *seen = strmap_new();
    if (as->insts == NULL || elems == NULL || seen == NULL) {
        free(elems);
        strmap_free(seen);
        if (elems == NULL || seen == NULL)
            b->nomem = true;
        as->problem = "out of memory";
        return;
    }
    char buf[NAMEBUF];
    for (size_t i = 0; i < n && !b->over && !b->nomem; i++) {
        json_t *e = json_array_get(arr, i);
        instance *in = &as->insts[as->ninsts];
        const char *name;
        size_t len;
        if (ma->histogram) {
            name = bucket_name(in, e, buf) == 0 ? buf : NULL;
            len = name != NULL ? strlen(buf) : 0;
        } else {
            name = index_name(in, pointer_get(e, ma->index, NULL), buf, &len);
        }
        if (name == NULL || strmap_get(seen, name, NULL)) {
            memset(in, 0, sizeof(*in));
            as->skipped++;
            continue;
        }
        in->name = b_text(b, name, len);
        if (in->name == NULL)
            break;
        strmap_put(seen, in->name, 1);
        elems[as->ninsts++] = e;
    }
    strmap_free(seen);
    if (as->skipped > 0 && as->ninsts == 0)
        as->problem = ma->histogram ? "no bucket has usable bounds (integer lo/hi)"
                                    : "no array element has a usable index (string or integer)";
    *elems_out = elems;
}

static void build_metric(builder *b, snapshot *s, const meta_metric *mm, size_t m, json_t *doc,
                         json_t ***elems)
{
    size_t n = mm->array < 0 ? 1 : s->arrays[mm->array].ninsts;
    s->values[m] = b_calloc(b, n, sizeof(value));
    if (s->values[m] == NULL)
        return;
    int bad = 0;
    if (mm->array < 0) {
        resolve(b, &s->values[m][0], doc, mm->pointer, mm->type);
        bad = s->values[m][0].state != VAL_OK;
    } else {
        for (size_t k = 0; k < n; k++) {
            resolve(b, &s->values[m][k], elems[mm->array][k], mm->pointer, mm->type);
            bad |= s->values[m][k].state != VAL_OK;
        }
        bad |= s->arrays[mm->array].problem != NULL;
    }
    s->nproblems += bad;
}

snapshot *snapshot_build_limited(const source_meta *meta, json_t *doc, size_t limit,
                                 char *err, size_t errlen)
{
    snapshot *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->text = calloc(1, sizeof(*s->text))) == NULL) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->bytes = ALLOC_COST(sizeof(*s));
    builder b = {s, limit, s->bytes > limit, false};
    s->nmetrics = meta->nmetrics;
    s->narrays = meta->narrays;
    s->values = b_calloc(&b, meta->nmetrics, sizeof(value *));
    s->arrays = b_calloc(&b, meta->narrays, sizeof(array_snapshot));
    json_t ***elems = calloc(meta->narrays ? meta->narrays : 1, sizeof(json_t **));
    if (elems == NULL)
        b.nomem = true;
    for (size_t a = 0; a < meta->narrays && s->arrays != NULL && elems != NULL; a++)
        build_array(&b, &s->arrays[a], &meta->arrays[a], doc, &elems[a]);
    for (size_t m = 0; m < meta->nmetrics && s->values != NULL && elems != NULL; m++)
        build_metric(&b, s, &meta->metrics[m], m, doc, elems);
    for (size_t a = 0; elems != NULL && a < meta->narrays; a++)
        free(elems[a]);
    free(elems);
    if (b.over || b.nomem) {
        if (b.nomem)
            snprintf(err, errlen, "out of memory");
        else
            snprintf(err, errlen, "the values its metrics read need more than %zu bytes", limit);
        snapshot_free(s);
        return NULL;
    }
    return s;
}

snapshot *snapshot_build(const source_meta *meta, json_t *doc)
{
    char err[128];
    return snapshot_build_limited(meta, doc, SIZE_MAX, err, sizeof(err));
}

void snapshot_free(snapshot *s)
{
    if (s == NULL)
        return;
    if (s->values != NULL)
        for (size_t m = 0; m < s->nmetrics; m++)
            free(s->values[m]);
    free(s->values);
    if (s->arrays != NULL)
        for (size_t a = 0; a < s->narrays; a++)
            free(s->arrays[a].insts);
    free(s->arrays);
    pool_free(s->text);
    free(s);
}

size_t snapshot_count(const snapshot *s, const source_meta *meta, size_t m)
{
    int a = meta->metrics[m].array;
    return a < 0 ? 1 : s->arrays[a].ninsts;
}

const char *snapshot_problem(const snapshot *s, const source_meta *meta, size_t m,
                             char *buf, size_t buflen)
{
    const meta_metric *mm = &meta->metrics[m];
    static const char *tnames[] = {
        [VT_INT64] = "integer", [VT_DOUBLE] = "double", [VT_STRING] = "string",
        [VT_UINT64] = "unsigned",
    };
    if (mm->array >= 0 && s->arrays[mm->array].problem != NULL) {
        snprintf(buf, buflen, "%s (pointer \"%s\")", s->arrays[mm->array].problem,
                 meta->arrays[mm->array].pointer);
        return buf;
    }
    if (s->values[m] == NULL)
        return "out of memory";
    size_t n = snapshot_count(s, meta, m);
    for (size_t k = 0; k < n; k++) {
        value_state st = s->values[m][k].state;
        if (st == VAL_OK)
            continue;
        const char *inst = mm->array >= 0 ? s->arrays[mm->array].insts[k].name : NULL;
        char reason[64];
        if (st == VAL_MISSING)
            snprintf(reason, sizeof(reason), "no value at pointer");
        else if (st == VAL_RANGE)
            snprintf(reason, sizeof(reason), "number out of range for type %s", tnames[mm->type]);
        else
            snprintf(reason, sizeof(reason), "JSON value is not of type %s", tnames[mm->type]);
        if (inst != NULL)
            snprintf(buf, buflen, "instance \"%s\": %s (pointer \"%s\")", inst, reason,
                     mm->pointer);
        else
            snprintf(buf, buflen, "%s (pointer \"%s\")", reason, mm->pointer);
        return buf;
    }
    return NULL;
}
