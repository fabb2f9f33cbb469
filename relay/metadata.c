/* metadata: parse and validate metadata.json into the flat model. */
#include "relay/metadata.h"
#include "relay/jsondoc.h"
#include "relay/pointer.h"
#include "common/strmap.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PCP's PMNS grammar, in ASCII whatever the locale: each component a
 * letter, then letters, digits and underscores. */
static bool ascii_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool ascii_alnum_(char c)
{
    return ascii_alpha(c) || (c >= '0' && c <= '9') || c == '_';
}

int metadata_name_ok(const char *name)
{
    if (name == NULL || *name == '\0')
        return 0;
    int at_start = 1;
    for (const char *p = name; *p; p++) {
        if (at_start) {
            if (!ascii_alpha(*p))
                return 0;
            at_start = 0;
        } else if (*p == '.') {
            at_start = 1;
        } else if (!ascii_alnum_(*p)) {
            return 0;
        }
    }
    return !at_start;
}

static void problem(source_meta *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void problem(source_meta *m, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (m->nproblems >= META_MAX_PROBLEMS) {
        m->problems_untold++;   /* said once, at the end of the parse */
        return;
    }
    char **np = realloc(m->problems, (m->nproblems + 1) * sizeof(char *));
    if (np == NULL)
        return;
    m->problems = np;
    m->problems[m->nproblems] = strdup(buf);
    if (m->problems[m->nproblems] != NULL)
        m->nproblems++;
}

void metadata_free_argv(char **argv)
{
    if (argv == NULL)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

void metadata_free(source_meta *m)
{
    if (m == NULL)
        return;
    free(m->prefix);
    free(m->data_path);
    metadata_free_argv(m->data_exec);
    for (size_t i = 0; i < m->narrays; i++) {
        free(m->arrays[i].name);
        free(m->arrays[i].pointer);
        free(m->arrays[i].index);
        free(m->arrays[i].description);
        free(m->arrays[i].bound_units);
    }
    free(m->arrays);
    for (size_t i = 0; i < m->nmetrics; i++) {
        free(m->metrics[i].name);
        free(m->metrics[i].pointer);
        free(m->metrics[i].units);
        free(m->metrics[i].description);
        free(m->metrics[i].labels);
    }
    free(m->metrics);
    for (size_t i = 0; i < m->nevents; i++) {
        meta_event *e = &m->events[i];
        free(e->name);
        free(e->pointer);
        free(e->description);
        free(e->timestamp);
        free(e->sequence);
        free(e->dropped);
        for (size_t f = 0; f < e->nfields; f++) {
            free(e->fields[f].name);
            free(e->fields[f].pointer);
            free(e->fields[f].units);
            free(e->fields[f].description);
        }
        free(e->fields);
    }
    free(m->events);
    for (size_t i = 0; i < m->nproblems; i++)
        free(m->problems[i]);
    free(m->problems);
    free(m);
}

/* ---- shlex-style splitting ------------------------------------------ */

typedef struct {
    char *buf;
    size_t len, cap;
} strbuf;

static int sb_put(strbuf *b, char c)
{
    if (b->len + 2 > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 32;
        char *nb = realloc(b->buf, nc);
        if (nb == NULL)
            return -1;
        b->buf = nb;
        b->cap = nc;
    }
    b->buf[b->len++] = c;
    b->buf[b->len] = '\0';
    return 0;
}

static int argv_push(char ***argv, size_t *n, strbuf *word)
{
    char **na = realloc(*argv, (*n + 2) * sizeof(char *));
    if (na == NULL)
        return -1;
    *argv = na;
    (*argv)[(*n)++] = word->buf != NULL ? word->buf : strdup("");
    (*argv)[*n] = NULL;
    word->buf = NULL;
    word->len = word->cap = 0;
    return (*argv)[*n - 1] != NULL ? 0 : -1;
}

char **metadata_split_command(const char *cmd, char *err, size_t errlen)
{
    char **argv = calloc(1, sizeof(char *));
    size_t n = 0;
    strbuf word = {0};
    int in_word = 0;
    char quote = 0;
    if (argv == NULL)
        return NULL;
    for (const char *p = cmd;; p++) {
        char c = *p;
        if (c == '\0') {
            if (quote) {
                snprintf(err, errlen, "data-exec: unterminated %c quote", quote);
                goto fail;
            }
            if (in_word && argv_push(&argv, &n, &word) < 0)
                goto fail;
            break;
        }
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else if (sb_put(&word, c) < 0)
                goto fail;
        } else if (quote == '"') {
            if (c == '"')
                quote = 0;
            else if (c == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`')) {
                if (sb_put(&word, *++p) < 0)
                    goto fail;
            } else if (sb_put(&word, c) < 0)
                goto fail;
        } else if (isspace((unsigned char)c)) {
            if (in_word && argv_push(&argv, &n, &word) < 0)
                goto fail;
            in_word = 0;
        } else {
            in_word = 1;
            if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\' && p[1] != '\0') {
                if (sb_put(&word, *++p) < 0)
                    goto fail;
            } else if (sb_put(&word, c) < 0) {
                goto fail;
            }
        }
    }
    if (n == 0) {
        snprintf(err, errlen, "data-exec: empty command");
        goto fail;
    }
    return argv;
fail:
    free(word.buf);
    metadata_free_argv(argv);
    return NULL;
}

/* ---- metrics ---------------------------------------------------------- */

/* Names already taken, as leaves and as interior nodes, so "a" and "a.b"
 * cannot both exist (the PMNS could not hold them); their number and
 * length are bounded as PCP bounds them (metadata.h). */
typedef struct {
    strmap *leaves;
    strmap *nodes;
    const char *prefix;
    size_t count;
    size_t over;        /* names refused for their number: said once, at the end */
    bool last_over;     /* the last claim was one of them */
} name_space;

static int claim_name(name_space *ns, const char *name, char *why, size_t whylen)
{
    size_t len = strlen(ns->prefix) + 1 + strlen(name);
    ns->last_over = false;
    if (len > META_NAME_MAX) {
        snprintf(why, whylen, "the name is %zu bytes long with its prefix, more than the %d "
                 "PCP allows below staprelay.", len, META_NAME_MAX);
        return -1;
    }
    ns->last_over = ns->count >= META_MAX_NAMES;
    if (ns->last_over) {
        ns->over++;
        snprintf(why, whylen, "more than %d names in one source", META_MAX_NAMES);
        return -1;
    }
    if (strmap_get(ns->leaves, name, NULL)) {
        snprintf(why, whylen, "duplicate metric name");
        return -1;
    }
    if (strmap_get(ns->nodes, name, NULL)) {
        snprintf(why, whylen, "name is already a namespace node");
        return -1;
    }
    char *copy = strdup(name);
    if (copy == NULL)
        return -1;
    for (char *d = strchr(copy, '.'); d != NULL; d = strchr(d + 1, '.')) {
        *d = '\0';
        if (strmap_get(ns->leaves, copy, NULL)) {
            snprintf(why, whylen, "\"%.120s\" is already a metric", copy);
            free(copy);
            return -1;
        }
        *d = '.';
    }
    for (char *d = strchr(copy, '.'); d != NULL; d = strchr(d + 1, '.')) {
        *d = '\0';
        strmap_put(ns->nodes, copy, 1);
        *d = '.';
    }
    strmap_put(ns->leaves, name, 1);
    ns->count++;
    free(copy);
    return 0;
}

/* Claim <full>.<leaf> (an event's records, fields and stacks). */
static int claim_leaf(name_space *ns, const char *full, const char *leaf, char *why,
                      size_t whylen)
{
    size_t n = strlen(full) + strlen(leaf) + 2;
    char *name = malloc(n);
    if (name == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    snprintf(name, n, "%s.%s", full, leaf);
    int rc = claim_name(ns, name, why, whylen);
    free(name);
    return rc;
}

/* A name refused: said, unless for the number of names (said once). */
static void refused(source_meta *m, const name_space *ns, const char *where, const char *what,
                    const char *why)
{
    if (!ns->last_over)
        problem(m, "%s: %s%s; skipped", where, what, why);
}

/* a.b or b alone, malloc'd (NULL when out of memory) */
static char *join_name(const char *parent, const char *name)
{
    size_t n = (parent ? strlen(parent) + 1 : 0) + strlen(name) + 1;
    char *full = malloc(n);
    if (full != NULL)
        snprintf(full, n, "%s%s%s", parent ? parent : "", parent ? "." : "", name);
    return full;
}

static const char *opt_string(json_t *obj, const char *key)
{
    return jsondoc_string(json_object_get(obj, key), NULL);
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

static int parse_semantics(source_meta *m, const char *where, json_t *jm,
                           metric_semantics *sem)
{
    json_t *v = json_object_get(jm, "semantics");
    *sem = SEM_INSTANT;
    if (v == NULL)
        return 0;
    const char *s = jsondoc_string(v, NULL);
    if (s != NULL && (strcmp(s, "instant") == 0 || strcmp(s, "instantaneous") == 0))
        return 0;
    if (s != NULL && strcmp(s, "counter") == 0) {
        *sem = SEM_COUNTER;
        return 0;
    }
    if (s != NULL && strcmp(s, "discrete") == 0) {
        *sem = SEM_DISCRETE;
        return 0;
    }
    problem(m, "%s: invalid semantics %s%s%s (expected instant, counter or discrete); using instant",
            where, s ? "\"" : "", s ? s : "(not a string)", s ? "\"" : "");
    return -1;
}

static int add_metric(source_meta *m, meta_metric *mm)
{
    meta_metric *nm = realloc(m->metrics, (m->nmetrics + 1) * sizeof(*nm));
    if (nm == NULL)
        return -1;
    m->metrics = nm;
    m->metrics[m->nmetrics++] = *mm;
    return 0;
}

static void parse_metric_list(source_meta *m, name_space *ns, json_t *list,
                              const char *parent, int array);

/* "labels": an object of names to strings, numbers or booleans, kept as
 * compact JSON for the PMDA to hand to pmdaAddLabels. */
static char *labels_text(source_meta *m, const char *where, json_t *jm)
{
    json_t *l = json_object_get(jm, "labels");
    if (l == NULL)
        return NULL;
    const char *key;
    json_t *v;
    int ok = json_is_object(l);
    if (ok)
        json_object_foreach(l, key, v) {
            ok &= metadata_name_ok(key) && strchr(key, '.') == NULL &&
                  (jsondoc_string(v, NULL) != NULL || json_is_number(v) || json_is_boolean(v));
        }
    if (!ok) {
        problem(m, "%s: \"labels\" must map simple names to strings, numbers or booleans; "
                "ignored", where);
        return NULL;
    }
    return json_object_size(l) ? json_dumps(l, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

static meta_array *new_array(source_meta *m)
{
    meta_array *na = realloc(m->arrays, (m->narrays + 1) * sizeof(*na));
    if (na == NULL)
        return NULL;
    m->arrays = na;
    meta_array *a = &m->arrays[m->narrays];
    memset(a, 0, sizeof(*a));
    return a;
}

/* A histogram is a counter with one instance per bucket: internally an
 * array whose instance names come from the bucket bounds. */
static void parse_histogram(source_meta *m, name_space *ns, json_t *jm, const char *where,
                            const char *full, const char *pointer, int array)
{
    char why[200];
    if (array >= 0) {
        problem(m, "%s: histograms inside arrays are not supported; skipped", where);
        return;
    }
    if (claim_name(ns, full, why, sizeof(why)) != 0) {
        refused(m, ns, where, "", why);
        return;
    }
    meta_array *a = new_array(m);
    if (a == NULL)
        return;
    a->name = strdup(full);
    a->pointer = strdup(pointer);
    a->histogram = true;
    a->description = dup_or_null(opt_string(jm, "description"));
    meta_metric mm = {0};
    mm.name = strdup(full);
    mm.pointer = strdup("/count");
    mm.type = VT_INT64;
    mm.semantics = SEM_COUNTER;
    /* the buckets count samples; "units" describes the bounds */
    json_t *units = json_object_get(jm, "units");
    const char *us = jsondoc_string(units, NULL);
    if (us != NULL && *us != '\0')
        a->bound_units = strdup(us);
    mm.units = strdup("count");
    mm.description = dup_or_null(opt_string(jm, "description"));
    mm.labels = labels_text(m, where, jm);
    mm.array = (int)m->narrays++;
    if (add_metric(m, &mm) != 0) {
        free(mm.name);
        free(mm.pointer);
        free(mm.units);
        free(mm.description);
    }
}

static int64_t timestamp_scale(const char *units)
{
    if (units == NULL || strcmp(units, "nsec") == 0 || strcmp(units, "ns") == 0)
        return 1;
    if (strcmp(units, "usec") == 0 || strcmp(units, "us") == 0)
        return 1000;
    if (strcmp(units, "msec") == 0 || strcmp(units, "ms") == 0)
        return 1000000;
    if (strcmp(units, "sec") == 0 || strcmp(units, "s") == 0)
        return 1000000000;
    return 0;
}

static int parse_field(source_meta *m, const char *where, json_t *jf, size_t pos,
                       meta_field *f, strmap *seen)
{
    const char *name = opt_string(jf, "name");
    const char *pointer = opt_string(jf, "pointer");
    const char *type = opt_string(jf, "type");
    memset(f, 0, sizeof(*f));
    if (!json_is_object(jf) || name == NULL || !metadata_name_ok(name) ||
        strchr(name, '.') != NULL) {
        problem(m, "%s: fields[%zu] needs a simple name ([A-Za-z][A-Za-z0-9_]*); skipped",
                where, pos);
        return -1;
    }
    if (strcmp(name, "records") == 0 || strcmp(name, "stacks") == 0 ||
        strcmp(name, "subsecond") == 0 || strcmp(name, "subsecond_end") == 0 ||
        strmap_get(seen, name, NULL)) {
        problem(m, "%s: field name \"%s\" is reserved or repeated; skipped", where, name);
        return -1;
    }
    if (pointer == NULL || pointer_check(pointer) != 0) {
        problem(m, "%s: field \"%s\" needs a JSON pointer; skipped", where, name);
        return -1;
    }
    if (type != NULL && strcmp(type, "integer") == 0)
        f->type = FT_INT64;
    else if (type != NULL && strcmp(type, "double") == 0)
        f->type = FT_DOUBLE;
    else if (type != NULL && strcmp(type, "string") == 0)
        f->type = FT_STRING;
    else if (type != NULL && strcmp(type, "stack") == 0)
        f->type = FT_STACK;
    else if (type != NULL && strcmp(type, "unsigned") == 0)
        f->type = FT_UINT64;
    else {
        problem(m, "%s: field \"%s\" has unknown type (integer, unsigned, double, string or "
                "stack); skipped", where, name);
        return -1;
    }
    strmap_put(seen, name, 1);
    f->name = strdup(name);
    f->pointer = strdup(pointer);
    json_t *units = json_object_get(jf, "units");
    const char *us = jsondoc_string(units, NULL);
    if (us != NULL && *us != '\0')
        f->units = strdup(us);
    f->description = dup_or_null(opt_string(jf, "description"));
    f->optional = json_is_true(json_object_get(jf, "optional"));
    return 0;
}

static void parse_event(source_meta *m, name_space *ns, json_t *jm, const char *where,
                        const char *full, const char *pointer, int array)
{
    char why[200];
    json_t *fields = json_object_get(jm, "fields");
    if (array >= 0) {
        problem(m, "%s: events inside arrays are not supported; skipped", where);
        return;
    }
    if (!json_is_array(fields) || json_array_size(fields) == 0) {
        problem(m, "%s: an event needs a non-empty \"fields\" list; skipped", where);
        return;
    }
    const char *ts = opt_string(jm, "timestamp");
    const char *seq = opt_string(jm, "sequence");
    const char *dropped = opt_string(jm, "dropped");
    const char *tsu = opt_string(jm, "timestamp_units");
    int64_t scale = timestamp_scale(tsu);
    json_t *replay = json_object_get(jm, "replay");
    if (replay != NULL && !json_is_boolean(replay)) {
        problem(m, "%s: \"replay\" must be true or false; skipped", where);
        return;
    }
    if ((ts != NULL && pointer_check(ts) != 0) || (seq != NULL && pointer_check(seq) != 0) ||
        (dropped != NULL && pointer_check(dropped) != 0) || scale == 0) {
        problem(m, "%s: timestamp, sequence and dropped must be JSON pointers and "
                "timestamp_units one of nsec, usec, msec, sec; skipped", where);
        return;
    }
    /* the event's name is a node: <name>.records, <name>.<field>, <name>.stacks */
    if (claim_leaf(ns, full, "records", why, sizeof(why)) != 0) {
        refused(m, ns, where, "", why);
        return;
    }
    meta_event e = {0};
    e.fields = calloc(json_array_size(fields), sizeof(meta_field));
    strmap *seen = strmap_new();
    if (e.fields == NULL || seen == NULL) {
        free(e.fields);
        strmap_free(seen);
        return;
    }
    e.stack_field = e.count_field = e.duration_field = -1;
    size_t i;
    json_t *jf;
    json_array_foreach(fields, i, jf) {
        meta_field *f = &e.fields[e.nfields];
        if (parse_field(m, where, jf, i, f, seen) != 0)
            continue;
        if (claim_leaf(ns, full, f->name, why, sizeof(why)) != 0) {
            char what[160];
            snprintf(what, sizeof(what), "field \"%.120s\": ", f->name);
            refused(m, ns, where, what, why);
            free(f->name);
            free(f->pointer);
            free(f->units);
            free(f->description);
            continue;
        }
        if (f->type == FT_STACK && e.stack_field < 0)
            e.stack_field = (int)e.nfields;
        if ((f->type == FT_INT64 || f->type == FT_UINT64) && strcmp(f->name, "count") == 0)
            e.count_field = (int)e.nfields;
        /* a time off CPU (offcpu.stp, the perf backend): its stack weighs
         * its nanoseconds; a duration in other units is just a field */
        if ((f->type == FT_INT64 || f->type == FT_UINT64) && strcmp(f->name, "duration") == 0
            && (f->units == NULL || strcmp(f->units, "nanosec") == 0))
            e.duration_field = (int)e.nfields;
        e.nfields++;
    }
    strmap_free(seen);
    if (e.stack_field >= 0) {
        e.stacks_metric = claim_leaf(ns, full, "stacks", why, sizeof(why)) == 0;
        if (!e.stacks_metric && !ns->last_over)
            problem(m, "%s: no stacks counter: %s", where, why);
        e.subsecond_metric = claim_leaf(ns, full, "subsecond", why, sizeof(why)) == 0 &&
                             claim_leaf(ns, full, "subsecond_end", why, sizeof(why)) == 0;
        if (!e.subsecond_metric && !ns->last_over)
            problem(m, "%s: no subsecond histogram: %s", where, why);
    }
    e.name = strdup(full);
    e.pointer = strdup(pointer);
    e.description = dup_or_null(opt_string(jm, "description"));
    e.timestamp = dup_or_null(ts);
    e.ts_scale = scale;
    e.sequence = dup_or_null(seq);
    e.dropped = dup_or_null(dropped);
    e.replay = json_is_true(replay);
    meta_event *ne = realloc(m->events, (m->nevents + 1) * sizeof(*ne));
    if (ne == NULL)
        return;
    m->events = ne;
    m->events[m->nevents++] = e;
}

/* A value metric (integer, unsigned, double, string) named full. */
static void parse_value_metric(source_meta *m, name_space *ns, json_t *jm, const char *where,
                               const char *full, const char *pointer, const char *type,
                               int array)
{
    char why[200];
    meta_metric mm = {0};
    if (strcmp(type, "integer") == 0)
        mm.type = VT_INT64;
    else if (strcmp(type, "unsigned") == 0)
        mm.type = VT_UINT64;
    else if (strcmp(type, "double") == 0)
        mm.type = VT_DOUBLE;
    else if (strcmp(type, "string") == 0)
        mm.type = VT_STRING;
    else {
        problem(m, "%s: unknown type \"%.100s\" (expected integer, unsigned, double, string, "
                "array, histogram or event); skipped", where, type);
        return;
    }
    if (claim_name(ns, full, why, sizeof(why)) != 0) {
        refused(m, ns, where, "", why);
        return;
    }
    parse_semantics(m, where, jm, &mm.semantics);
    json_t *units = json_object_get(jm, "units");
    const char *us = jsondoc_string(units, NULL);
    if (units != NULL && us == NULL)
        problem(m, "%s: \"units\" must be a string; ignored", where);
    else if (us != NULL && *us != '\0')
        mm.units = strdup(us);
    mm.name = strdup(full);
    mm.pointer = strdup(pointer);
    mm.description = dup_or_null(opt_string(jm, "description"));
    mm.labels = labels_text(m, where, jm);
    mm.array = array;
    if (mm.name == NULL || mm.pointer == NULL || add_metric(m, &mm) != 0) {
        free(mm.name);
        free(mm.pointer);
        free(mm.units);
        free(mm.description);
        free(mm.labels);
    }
}

static void parse_array(source_meta *m, name_space *ns, json_t *jm, const char *where,
                        const char *full, const char *pointer, int array)
{
    char why[200];
    if (array >= 0) {
        problem(m, "%s: arrays inside arrays are not supported; skipped", where);
        return;
    }
    const char *index = opt_string(jm, "index");
    json_t *kids = json_object_get(jm, "metrics");
    if (index == NULL || pointer_check(index) != 0) {
        problem(m, "%s: array needs an \"index\" JSON pointer; skipped", where);
        return;
    }
    if (!json_is_array(kids)) {
        problem(m, "%s: array needs a \"metrics\" list; skipped", where);
        return;
    }
    if (claim_name(ns, full, why, sizeof(why)) != 0) {
        refused(m, ns, where, "", why);
        return;
    }
    /* The array name is a node, not a leaf: release it as a leaf. */
    strmap_del(ns->leaves, full);
    strmap_put(ns->nodes, full, 1);
    meta_array *a = new_array(m);
    if (a == NULL)
        return;
    a->name = strdup(full);
    a->pointer = strdup(pointer);
    a->index = strdup(index);
    a->description = dup_or_null(opt_string(jm, "description"));
    int idx = (int)m->narrays++;
    parse_metric_list(m, ns, kids, full, idx);
}

/* One entry of a "metrics" list; parent is the array's name or NULL.
 * Names are never cut: one that is too long is refused, with a reason. */
static void parse_metric(source_meta *m, name_space *ns, json_t *jm, size_t pos,
                         const char *parent, int array)
{
    char where[400];
    if (!json_is_object(jm)) {
        problem(m, "%.200s%smetrics[%zu]: not an object; skipped",
                parent ? parent : "", parent ? "." : "", pos);
        return;
    }
    const char *name = opt_string(jm, "name");
    const char *pointer = opt_string(jm, "pointer");
    const char *type = opt_string(jm, "type");
    size_t shown = (parent ? strlen(parent) + 1 : 0) + (name ? strlen(name) : 1);
    /* a long name is shown by its start and its length: messages may be cut, names not */
    snprintf(where, sizeof(where), "metric \"%.100s%s%.100s\"%s", parent ? parent : "",
             parent ? "." : "", name ? name : "?", shown > 200 ? " (cut here)" : "");
    if (name == NULL || !metadata_name_ok(name)) {
        problem(m, "%s: name must match [A-Za-z][A-Za-z0-9_]* (dot-separated); skipped", where);
        return;
    }
    if (pointer == NULL || pointer_check(pointer) != 0) {
        problem(m, "%s: missing or invalid \"pointer\" (an RFC 6901 JSON pointer); skipped", where);
        return;
    }
    if (type == NULL) {
        problem(m, "%s: missing \"type\"; skipped", where);
        return;
    }
    char *full = join_name(parent, name);
    if (full == NULL)
        return;
    if (strcmp(type, "array") == 0)
        parse_array(m, ns, jm, where, full, pointer, array);
    else if (strcmp(type, "histogram") == 0)
        parse_histogram(m, ns, jm, where, full, pointer, array);
    else if (strcmp(type, "event") == 0)
        parse_event(m, ns, jm, where, full, pointer, array);
    else
        parse_value_metric(m, ns, jm, where, full, pointer, type, array);
    free(full);
}

static void parse_metric_list(source_meta *m, name_space *ns, json_t *list,
                              const char *parent, int array)
{
    size_t i;
    json_t *jm;
    json_array_foreach(list, i, jm)
        parse_metric(m, ns, jm, i, parent, array);
}

static void check_top_keys(source_meta *m, json_t *root)
{
    static const char *known[] = {"prefix", "data-path", "data-exec", "metrics", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        int ok = 0;
        for (const char **k = known; *k; k++)
            ok |= strcmp(*k, key) == 0;
        if (!ok)
            problem(m, "ignoring unknown metadata attribute \"%s\"", key);
    }
}

/* What the model holds, for the memory budget. */
static size_t str_bytes(const char *s)
{
    return s != NULL ? strlen(s) + 1 : 0;
}

static size_t model_bytes(const source_meta *m)
{
    size_t n = sizeof(*m) + str_bytes(m->prefix) + str_bytes(m->data_path);
    for (char **a = m->data_exec; a != NULL && *a != NULL; a++)
        n += sizeof(char *) + str_bytes(*a);
    for (size_t i = 0; i < m->narrays; i++) {
        const meta_array *a = &m->arrays[i];
        n += sizeof(*a) + str_bytes(a->name) + str_bytes(a->pointer) + str_bytes(a->index) +
             str_bytes(a->description) + str_bytes(a->bound_units);
    }
    for (size_t i = 0; i < m->nmetrics; i++) {
        const meta_metric *mm = &m->metrics[i];
        n += sizeof(*mm) + str_bytes(mm->name) + str_bytes(mm->pointer) + str_bytes(mm->units) +
             str_bytes(mm->description) + str_bytes(mm->labels);
    }
    for (size_t i = 0; i < m->nevents; i++) {
        const meta_event *e = &m->events[i];
        n += sizeof(*e) + str_bytes(e->name) + str_bytes(e->pointer) + str_bytes(e->description) +
             str_bytes(e->timestamp) + str_bytes(e->sequence) + str_bytes(e->dropped);
        for (size_t f = 0; f < e->nfields; f++)
            n += sizeof(e->fields[f]) + str_bytes(e->fields[f].name) +
                 str_bytes(e->fields[f].pointer) + str_bytes(e->fields[f].units) +
                 str_bytes(e->fields[f].description);
    }
    for (size_t i = 0; i < m->nproblems; i++)
        n += sizeof(char *) + str_bytes(m->problems[i]);
    return n;
}

source_meta *metadata_parse(const char *text, size_t len, const char *default_prefix,
                            char *err, size_t errlen)
{
    return metadata_parse_limited(text, len, default_prefix, SIZE_MAX, err, errlen);
}

source_meta *metadata_parse_limited(const char *text, size_t len, const char *default_prefix,
                                    size_t max_memory, char *err, size_t errlen)
{
    json_error_t jerr;
    char why[400];
    json_t *root = jsondoc_parse(text, len, max_memory, &jerr, why, sizeof(why));
    if (root == NULL) {
        snprintf(err, errlen, "metadata: %s", why);
        return NULL;
    }
    source_meta *m = NULL;
    json_t *metrics = json_object_get(root, "metrics");
    if (!json_is_object(root)) {
        snprintf(err, errlen, "metadata: top level must be an object");
        goto out;
    }
    if (!json_is_array(metrics)) {
        snprintf(err, errlen, "metadata: missing \"metrics\" list");
        goto out;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        goto out;
    const char *prefix = opt_string(root, "prefix");
    if (json_object_get(root, "prefix") != NULL && prefix == NULL)
        problem(m, "\"prefix\" must be a string; using \"%.200s\"", default_prefix);
    m->prefix = strdup(prefix != NULL ? prefix : default_prefix);
    if (m->prefix == NULL || !metadata_name_ok(m->prefix) || strchr(m->prefix, '.') != NULL ||
        strlen(m->prefix) + 2 > META_NAME_MAX) {
        if (m->prefix != NULL && strlen(m->prefix) + 2 > META_NAME_MAX)
            snprintf(err, errlen, "metadata: prefix \"%.100s...\" is %zu bytes long, more than "
                     "a name may be (%d)", m->prefix, strlen(m->prefix), META_NAME_MAX - 2);
        else
            snprintf(err, errlen, "metadata: prefix \"%.200s\" is not a valid name "
                     "([A-Za-z][A-Za-z0-9_]*)", m->prefix ? m->prefix : "");
        metadata_free(m);
        m = NULL;
        goto out;
    }
    const char *dpath = opt_string(root, "data-path");
    const char *dexec = opt_string(root, "data-exec");
    if (dpath != NULL && dexec != NULL)
        problem(m, "both \"data-path\" and \"data-exec\" given; using data-exec");
    if (dexec != NULL) {
        char cwhy[200];
        m->data_exec = metadata_split_command(dexec, cwhy, sizeof(cwhy));
        if (m->data_exec == NULL) {
            snprintf(err, errlen, "metadata: %s", cwhy);
            metadata_free(m);
            m = NULL;
            goto out;
        }
    } else if (dpath != NULL) {
        m->data_path = strdup(dpath);
    }
    check_top_keys(m, root);
    name_space ns = {strmap_new(), strmap_new(), m->prefix, 0, 0, false};
    if (ns.leaves != NULL && ns.nodes != NULL)
        parse_metric_list(m, &ns, metrics, NULL, -1);
    strmap_free(ns.leaves);
    strmap_free(ns.nodes);
    if (ns.over > 0)
        problem(m, "more than %d names in one source (PCP numbers at most 1024 metrics per "
                "prefix): %zu more skipped", META_MAX_NAMES, ns.over);
    if (m->problems_untold > 0) {
        size_t untold = m->problems_untold;
        m->problems_untold = 0;
        m->nproblems--;   /* room for the summary in place of the last one */
        free(m->problems[m->nproblems]);
        problem(m, "... and %zu more problems (only the first %d are listed)", untold + 1,
                META_MAX_PROBLEMS - 1);
    }
    m->bytes = model_bytes(m);
out:
    json_decref(root);
    return m;
}
