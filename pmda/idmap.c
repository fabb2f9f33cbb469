/* idmap: persistent cluster/item/indom numbering, with clusters taken
 * back from prefixes long unpublished (see idmap.h). */
#include <stddef.h>
#include "pmda/idmap.h"
#include "common/strmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A cluster's "last published" time is kept to the hour: a rebuild does
 * not rewrite the map just to move it by seconds. */
#define SEEN_GRAIN 3600

typedef struct cluster_entry {
    char *prefix;        /* NULL: free */
    char *owner;         /* NULL: trusted; else the untrusted root */
    bool legacy;         /* from a map that did not record owners */
    time_t seen;         /* last published, to the hour */
    uint64_t held;       /* the round it is published in */
    strmap *items;       /* metric name -> item */
    int next_item;
    strmap *indoms;      /* array name -> serial */
} cluster_entry;

struct idmap {
    char *path;
    cluster_entry c[IDMAP_MAX_CLUSTER + 1];
    strmap *by_prefix;   /* prefix -> cluster */
    int *free_serials;   /* serials given back by reclaimed clusters */
    size_t nfree, capfree;
    int next_serial;
    uint64_t round;
    time_t now;
    int reserve, per_root;
    bool dirty;
};

static void entry_clear(cluster_entry *e)
{
    free(e->prefix);
    free(e->owner);
    strmap_free(e->items);
    strmap_free(e->indoms);
    memset(e, 0, sizeof(*e));
}

void idmap_free(idmap *m)
{
    if (m == NULL)
        return;
    for (int i = 0; i <= IDMAP_MAX_CLUSTER; i++)
        entry_clear(&m->c[i]);
    strmap_free(m->by_prefix);
    free(m->free_serials);
    free(m->path);
    free(m);
}

void idmap_set_policy(idmap *m, int reserve, int per_root)
{
    m->reserve = reserve < 0 ? 0 : reserve > IDMAP_MAX_CLUSTER - 1 ? IDMAP_MAX_CLUSTER - 1 : reserve;
    m->per_root = per_root < 1 ? 1 : per_root;
}

bool idmap_dirty(const idmap *m)
{
    return m->dirty;
}

int idmap_clusters_used(const idmap *m)
{
    int n = 0;
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++)
        n += m->c[i].prefix != NULL;
    return n;
}

static bool untrusted(const cluster_entry *e)
{
    return e->owner != NULL || e->legacy;
}

/* ---- owners in the file: a root path may hold any byte but NUL ------- */

static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '%' || *s == '\n' || *s == '\r')
            fprintf(f, "%%%02X", (unsigned char)*s);
        else
            fputc(*s, f);
    }
}

static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) + 1), *p = out;
    if (out == NULL)
        return NULL;
    for (; *s; s++) {
        unsigned v;
        if (*s == '%' && sscanf(s + 1, "%2X", &v) == 1 && v != 0) {
            *p++ = (char)v;
            s += 2;
        } else {
            *p++ = *s;
        }
    }
    *p = '\0';
    return out;
}

/* ---- clusters ------------------------------------------------------------ */

static int set_entry(idmap *m, int n, const char *prefix, const char *owner, bool legacy,
                     time_t seen)
{
    cluster_entry *e = &m->c[n];
    entry_clear(e);
    e->prefix = strdup(prefix);
    e->owner = owner != NULL ? strdup(owner) : NULL;
    e->legacy = legacy;
    e->seen = seen;
    e->items = strmap_new();
    e->indoms = strmap_new();
    if (e->prefix == NULL || (owner != NULL && e->owner == NULL) || e->items == NULL ||
        e->indoms == NULL || strmap_put(m->by_prefix, prefix, n) != 0) {
        entry_clear(e);
        return -1;
    }
    return 0;
}

static void give_back_serial(idmap *m, int serial)
{
    if (m->nfree == m->capfree) {
        size_t nc = m->capfree ? m->capfree * 2 : 256;
        int *nf = realloc(m->free_serials, nc * sizeof(int));
        if (nf == NULL)
            return;   /* the serial is not reused: no harm but a number */
        m->free_serials = nf;
        m->capfree = nc;
    }
    m->free_serials[m->nfree++] = serial;
}

static void reclaim(idmap *m, int n, idmap_reclaim *rec)
{
    cluster_entry *e = &m->c[n];
    if (rec != NULL) {
        rec->happened = true;
        rec->cluster = n;
        snprintf(rec->prefix, sizeof(rec->prefix), "%s", e->prefix);
        rec->unpublished_since = e->seen;
    }
    size_t cur = 0;
    const char *key;
    int64_t serial;
    while (strmap_next(e->indoms, &cur, &key, &serial))
        give_back_serial(m, (int)serial);
    strmap_del(m->by_prefix, e->prefix);
    entry_clear(e);
    m->dirty = true;
}

typedef enum { PICK_ROOT, PICK_UNTRUSTED, PICK_TRUSTED } pick_kind;

/* The cluster unpublished longest among those of a kind (not held in
 * this round); -1 if every one is published now. */
static int oldest_unpublished(const idmap *m, pick_kind kind, const char *owner)
{
    int best = -1;
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++) {
        const cluster_entry *e = &m->c[i];
        if (e->prefix == NULL || e->held == m->round)
            continue;
        bool fits = kind == PICK_TRUSTED ? !untrusted(e)
                    : kind == PICK_UNTRUSTED ? untrusted(e)
                    : e->owner != NULL && strcmp(e->owner, owner) == 0;
        if (fits && (best < 0 || e->seen < m->c[best].seen))
            best = i;
    }
    return best;
}

static int free_cluster(const idmap *m)
{
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++)
        if (m->c[i].prefix == NULL)
            return i;
    return -1;
}

static void touch(idmap *m, cluster_entry *e)
{
    e->held = m->round;
    if (m->now - e->seen >= SEEN_GRAIN || m->now < e->seen) {
        e->seen = m->now;
        m->dirty = true;
    }
}

void idmap_begin(idmap *m, time_t now)
{
    m->round++;
    m->now = now;
}

void idmap_hold(idmap *m, const char *prefix)
{
    int64_t v;
    if (strmap_get(m->by_prefix, prefix, &v))
        touch(m, &m->c[v]);
}

/* Where an untrusted prefix may go: a free cluster within the bounds, or
 * one to take back; -1 with why when neither. */
static int place_untrusted(idmap *m, const char *owner, char *why, size_t whylen)
{
    int of_root = 0, of_untrusted = 0;
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++) {
        const cluster_entry *e = &m->c[i];
        if (e->prefix == NULL)
            continue;
        of_untrusted += untrusted(e);
        of_root += e->owner != NULL && strcmp(e->owner, owner) == 0;
    }
    int n;
    if (of_root >= m->per_root) {
        n = oldest_unpublished(m, PICK_ROOT, owner);
        if (n < 0)
            snprintf(why, whylen, "all %d PMID clusters for prefixes of %.200s are published now",
                     m->per_root, owner);
        return n;
    }
    if (of_untrusted >= IDMAP_MAX_CLUSTER - m->reserve || (n = free_cluster(m)) < 0) {
        n = oldest_unpublished(m, PICK_UNTRUSTED, NULL);
        if (n < 0)
            snprintf(why, whylen, "all %d PMID clusters untrusted directories may have are "
                     "published now (%d are kept for trusted sources)",
                     IDMAP_MAX_CLUSTER - m->reserve, m->reserve);
    }
    return n;
}

static int place_trusted(idmap *m, char *why, size_t whylen)
{
    int n = free_cluster(m);
    if (n < 0)
        n = oldest_unpublished(m, PICK_UNTRUSTED, NULL);
    if (n < 0)
        n = oldest_unpublished(m, PICK_TRUSTED, NULL);
    if (n < 0)
        snprintf(why, whylen, "all %d PMID clusters are published now", IDMAP_MAX_CLUSTER);
    return n;
}

int idmap_cluster(idmap *m, const char *prefix, const char *owner, idmap_reclaim *rec,
                  char *why, size_t whylen)
{
    int64_t v;
    if (rec != NULL)
        rec->happened = false;
    if (strmap_get(m->by_prefix, prefix, &v)) {
        cluster_entry *e = &m->c[v];
        bool same = owner == NULL ? e->owner == NULL && !e->legacy
                                  : e->owner != NULL && strcmp(e->owner, owner) == 0;
        if (!same) {
            /* the prefix moved (or an old map did not say): its owner now */
            char *o = owner != NULL ? strdup(owner) : NULL;
            if (owner == NULL || o != NULL) {
                free(e->owner);
                e->owner = o;
                e->legacy = false;
                m->dirty = true;
            }
        }
        touch(m, e);
        return (int)v;
    }
    int n = owner != NULL ? place_untrusted(m, owner, why, whylen) : place_trusted(m, why, whylen);
    if (n < 0)
        return -1;
    if (m->c[n].prefix != NULL)
        reclaim(m, n, rec);
    if (set_entry(m, n, prefix, owner, false, m->now) != 0) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    m->c[n].held = m->round;
    m->dirty = true;
    return n;
}

int idmap_item(idmap *m, int cluster, const char *name)
{
    if (cluster < 1 || cluster > IDMAP_MAX_CLUSTER || m->c[cluster].prefix == NULL)
        return -1;
    cluster_entry *e = &m->c[cluster];
    int64_t v;
    if (strmap_get(e->items, name, &v))
        return (int)v;
    if (e->next_item > IDMAP_MAX_ITEM || strmap_put(e->items, name, e->next_item) != 0)
        return -1;
    m->dirty = true;
    return e->next_item++;
}

int idmap_indom(idmap *m, const char *prefix, const char *array)
{
    int64_t c, v;
    if (!strmap_get(m->by_prefix, prefix, &c))
        return -1;
    cluster_entry *e = &m->c[c];
    if (strmap_get(e->indoms, array, &v))
        return (int)v;
    if (strmap_count(e->indoms) >= IDMAP_MAX_INDOMS_PER_CLUSTER)
        return -1;
    int serial;
    if (m->nfree > 0)
        serial = m->free_serials[--m->nfree];
    else if (m->next_serial < IDMAP_RESERVED_SERIAL)
        serial = m->next_serial++;
    else
        return -1;
    if (strmap_put(e->indoms, array, serial) != 0) {
        give_back_serial(m, serial);
        return -1;
    }
    m->dirty = true;
    return serial;
}

/* ---- the file ----------------------------------------------------------- */

/* Split off the next space-separated word of *p (NUL-terminating it). */
static char *word(char **p)
{
    char *s = *p;
    while (*s == ' ')
        s++;
    if (*s == '\0')
        return NULL;
    char *e = strchr(s, ' ');
    if (e != NULL) {
        *e = '\0';
        *p = e + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

static bool to_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (s == NULL)
        return false;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* "cluster N PREFIX [SEEN t|?|u ROOT]" (v1 maps stop after PREFIX) */
static bool load_cluster(idmap *m, char *rest)
{
    long n, seen = 0;
    char *num = word(&rest), *prefix = word(&rest), *seen_s = word(&rest), *kind = word(&rest);
    if (!to_int(num, 1, IDMAP_MAX_CLUSTER, &n) || prefix == NULL || m->c[n].prefix != NULL ||
        strmap_get(m->by_prefix, prefix, NULL))
        return false;
    if (seen_s != NULL && !to_int(seen_s, 0, INT64_C(1) << 40, &seen))
        return false;
    char *owner = NULL;
    bool legacy = kind == NULL || strcmp(kind, "?") == 0;
    if (kind != NULL && strcmp(kind, "u") == 0) {
        if ((owner = unescape(rest)) == NULL)
            return false;
    } else if (kind != NULL && strcmp(kind, "t") != 0 && strcmp(kind, "?") != 0) {
        return false;
    }
    int rc = set_entry(m, (int)n, prefix, owner, legacy, (time_t)seen);
    free(owner);
    return rc == 0;
}

static bool load_item(idmap *m, char *rest)
{
    long c, i;
    char *cs = word(&rest), *is = word(&rest), *name = word(&rest);
    if (!to_int(cs, 1, IDMAP_MAX_CLUSTER, &c) || !to_int(is, 0, IDMAP_MAX_ITEM, &i) ||
        name == NULL || m->c[c].prefix == NULL)
        return false;
    cluster_entry *e = &m->c[c];
    if (strmap_put(e->items, name, i) != 0)
        return false;
    if (i >= e->next_item)
        e->next_item = (int)i + 1;
    return true;
}

/* "indom S PREFIX.ARRAY"; a serial whose prefix is not in the map still
 * counts as used (it is never handed out again). */
static bool load_indom(idmap *m, char *rest, unsigned char *used)
{
    long s;
    char *ss = word(&rest), *key = word(&rest);
    if (!to_int(ss, 1, IDMAP_RESERVED_SERIAL - 1, &s) || key == NULL)
        return false;
    used[s / 8] |= (unsigned char)(1u << (s % 8));
    if (s >= m->next_serial)
        m->next_serial = (int)s + 1;
    char *dot = strchr(key, '.');
    int64_t c;
    if (dot == NULL)
        return false;
    *dot = '\0';
    if (strmap_get(m->by_prefix, key, &c))
        strmap_put(m->c[c].indoms, dot + 1, s);
    return true;
}

static void load(idmap *m, FILE *f, char *err, size_t errlen)
{
    unsigned char *used = calloc(IDMAP_RESERVED_SERIAL / 8 + 1, 1);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *rest = line, *kind = word(&rest);
        bool ok = kind != NULL &&
                  ((strcmp(kind, "cluster") == 0 && load_cluster(m, rest)) ||
                   (strcmp(kind, "item") == 0 && load_item(m, rest)) ||
                   (strcmp(kind, "indom") == 0 && used != NULL && load_indom(m, rest, used)));
        if (!ok && err[0] == '\0')
            snprintf(err, errlen, "%s line %d not understood; ignored", m->path, lineno);
    }
    free(line);
    /* serials below the highest that nobody holds (given back before a
     * restart) are handed out again */
    for (int s = m->next_serial - 1; used != NULL && s >= 1; s--)
        if (!(used[s / 8] & (1u << (s % 8))))
            give_back_serial(m, s);
    free(used);
}

idmap *idmap_open(const char *dir, char *err, size_t errlen)
{
    idmap *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    size_t n = strlen(dir) + 8;
    m->path = malloc(n);
    m->by_prefix = strmap_new();
    if (m->path == NULL || m->by_prefix == NULL) {
        idmap_free(m);
        return NULL;
    }
    snprintf(m->path, n, "%s/pmids", dir);
    m->next_serial = 1;
    m->now = time(NULL);
    idmap_set_policy(m, IDMAP_DEFAULT_RESERVE, IDMAP_DEFAULT_PER_ROOT);
    err[0] = '\0';
    FILE *f = fopen(m->path, "r");
    if (f == NULL) {
        if (errno != ENOENT)
            snprintf(err, errlen, "cannot read %s: %s", m->path, strerror(errno));
        return m;
    }
    load(m, f, err, errlen);
    fclose(f);
    return m;
}

static int write_all(FILE *f, const idmap *m)
{
    fprintf(f, "# staprelay PMID map: names keep these numbers while they are remembered.\n"
               "# Written by pmdastaprelay; edit only while it is stopped.\n"
               "# cluster N PREFIX LAST-PUBLISHED t (trusted) | u ROOT (untrusted)\n");
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++) {
        const cluster_entry *e = &m->c[i];
        if (e->prefix == NULL)
            continue;
        fprintf(f, "cluster %d %s %lld %s", i, e->prefix, (long long)e->seen,
                e->owner != NULL ? "u " : e->legacy ? "?" : "t");
        if (e->owner != NULL)
            put_escaped(f, e->owner);
        fputc('\n', f);
    }
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++) {
        const cluster_entry *e = &m->c[i];
        size_t cur = 0;
        const char *key;
        int64_t v;
        while (e->prefix != NULL && strmap_next(e->items, &cur, &key, &v))
            fprintf(f, "item %d %d %s\n", i, (int)v, key);
    }
    for (int i = 1; i <= IDMAP_MAX_CLUSTER; i++) {
        const cluster_entry *e = &m->c[i];
        size_t cur = 0;
        const char *key;
        int64_t v;
        while (e->prefix != NULL && strmap_next(e->indoms, &cur, &key, &v))
            fprintf(f, "indom %d %s.%s\n", (int)v, e->prefix, key);
    }
    return ferror(f) ? -EIO : 0;
}

int idmap_save(idmap *m)
{
    if (!m->dirty)
        return 0;
    size_t n = strlen(m->path) + 8;
    char *tmp = malloc(n);
    if (tmp == NULL)
        return -ENOMEM;
    snprintf(tmp, n, "%s.new", m->path);
    int rc = 0;
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        rc = -errno;
    } else {
        rc = write_all(f, m);
        if (fflush(f) != 0 || fsync(fileno(f)) != 0)
            rc = -errno;
        if (fclose(f) != 0 && rc == 0)
            rc = -errno;
        if (rc == 0 && rename(tmp, m->path) != 0)
            rc = -errno;
        if (rc != 0)
            unlink(tmp);
    }
    free(tmp);
    if (rc == 0)
        m->dirty = false;
    return rc;
}
