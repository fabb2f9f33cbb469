/* snapshot: map a parsed data document through metadata. */
#include "relay/snapshot.h"
#include "relay/pointer.h"
#include "relay/strmap.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Convert one JSON value to the metric's type.  Booleans count as 0/1
 * integers, as pmdajson did; integers are accepted for doubles; nothing
 * else is coerced (a number is not silently turned into a string). */
static void convert(value *out, json_t *v, value_type type)
{
    out->state = VAL_OK;
    switch (type) {
    case VT_INT64:
        if (json_is_integer(v))
            out->u.i = json_integer_value(v);
        else if (json_is_boolean(v))
            out->u.i = json_is_true(v);
        else
            out->state = VAL_BADTYPE;
        break;
    case VT_DOUBLE:
        if (json_is_number(v))
            out->u.d = json_number_value(v);
        else
            out->state = VAL_BADTYPE;
        break;
    case VT_STRING:
        if (json_is_string(v))
            out->u.s = json_string_value(v);
        else
            out->state = VAL_BADTYPE;
        break;
    }
}

static void resolve(value *out, json_t *base, const char *ptr, value_type type)
{
    json_t *v = pointer_get(base, ptr, NULL);
    if (v == NULL || json_is_null(v)) {
        out->state = VAL_MISSING;
        return;
    }
    convert(out, v, type);
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
    in->name = buf;
    return 0;
}

/* Build the instance list of one array: names from the index pointer,
 * integers printed in decimal, duplicates and unusable indexes dropped
 * (and counted) so every name maps to exactly one element. */
static void build_array(array_snapshot *as, const meta_array *ma, json_t *doc,
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
    as->insts = calloc(n ? n : 1, sizeof(instance));
    json_t **elems = calloc(n ? n : 1, sizeof(json_t *));
    as->numbuf = calloc(n ? n : 1, NAMEBUF);
    strmap *seen = strmap_new();
    if (as->insts == NULL || elems == NULL || as->numbuf == NULL || seen == NULL) {
        free(elems);
        strmap_free(seen);
        as->problem = "out of memory";
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        instance *in = &as->insts[as->ninsts];
        if (ma->histogram) {
            if (bucket_name(in, e, as->numbuf + NAMEBUF * as->ninsts) != 0) {
                as->skipped++;
                continue;
            }
            if (strmap_get(seen, in->name, NULL)) {
                as->skipped++;
                continue;
            }
            strmap_put(seen, in->name, 1);
            elems[as->ninsts++] = e;
            continue;
        }
        json_t *id = pointer_get(e, ma->index, NULL);
        if (json_is_string(id) && json_string_length(id) > 0 &&
            strlen(json_string_value(id)) == json_string_length(id)) {
            in->name = json_string_value(id);
        } else if (json_is_integer(id)) {
            char *nb = as->numbuf + NAMEBUF * as->ninsts;
            snprintf(nb, NAMEBUF, "%" PRId64, (int64_t)json_integer_value(id));
            in->name = nb;
            in->number = json_integer_value(id);
            in->is_number = true;
        } else {
            as->skipped++;
            continue;
        }
        if (strmap_get(seen, in->name, NULL)) {
            as->skipped++;
            continue;
        }
        strmap_put(seen, in->name, 1);
        elems[as->ninsts++] = e;
    }
    strmap_free(seen);
    if (as->skipped > 0 && as->ninsts == 0)
        as->problem = ma->histogram ? "no bucket has usable bounds (integer lo/hi)"
                                    : "no array element has a usable index (string or integer)";
    *elems_out = elems;
}

snapshot *snapshot_build(const source_meta *meta, json_t *doc)
{
    snapshot *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->doc = json_incref(doc);
    s->nmetrics = meta->nmetrics;
    s->narrays = meta->narrays;
    s->values = calloc(meta->nmetrics ? meta->nmetrics : 1, sizeof(value *));
    s->arrays = calloc(meta->narrays ? meta->narrays : 1, sizeof(array_snapshot));
    json_t ***elems = calloc(meta->narrays ? meta->narrays : 1, sizeof(json_t **));
    if (s->values == NULL || s->arrays == NULL || elems == NULL) {
        free(elems);
        snapshot_free(s);
        return NULL;
    }
    for (size_t a = 0; a < meta->narrays; a++)
        build_array(&s->arrays[a], &meta->arrays[a], doc, &elems[a]);
    for (size_t m = 0; m < meta->nmetrics; m++) {
        const meta_metric *mm = &meta->metrics[m];
        size_t n = mm->array < 0 ? 1 : s->arrays[mm->array].ninsts;
        s->values[m] = calloc(n ? n : 1, sizeof(value));
        if (s->values[m] == NULL)
            continue;
        int bad = 0;
        if (mm->array < 0) {
            resolve(&s->values[m][0], doc, mm->pointer, mm->type);
            bad = s->values[m][0].state != VAL_OK;
        } else {
            for (size_t k = 0; k < n; k++) {
                resolve(&s->values[m][k], elems[mm->array][k], mm->pointer, mm->type);
                bad |= s->values[m][k].state != VAL_OK;
            }
            bad |= s->arrays[mm->array].problem != NULL;
        }
        s->nproblems += bad;
    }
    for (size_t a = 0; a < meta->narrays; a++)
        free(elems[a]);
    free(elems);
    return s;
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
        for (size_t a = 0; a < s->narrays; a++) {
            free(s->arrays[a].insts);
            free(s->arrays[a].numbuf);
        }
    free(s->arrays);
    json_decref(s->doc);
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
    static const char *tnames[] = {"integer", "double", "string"};
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
