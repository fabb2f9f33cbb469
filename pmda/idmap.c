/* idmap: persistent cluster/item/indom numbering. */
#include <stddef.h>
#include "pmda/idmap.h"
#include "relay/strmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct idmap {
    char *path;
    strmap *clusters;     /* prefix -> cluster */
    strmap *items;        /* "cluster name" -> item */
    strmap *indoms;       /* "prefix.array" -> serial */
    int next_cluster;
    int *next_item;       /* per cluster */
    int next_serial;
    bool dirty;
};

idmap *idmap_open(const char *dir, char *err, size_t errlen)
{
    idmap *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return NULL;
    size_t n = strlen(dir) + 8;
    m->path = malloc(n);
    m->clusters = strmap_new();
    m->items = strmap_new();
    m->indoms = strmap_new();
    m->next_item = calloc(IDMAP_MAX_CLUSTER + 1, sizeof(int));
    if (m->path == NULL || m->clusters == NULL || m->items == NULL || m->indoms == NULL ||
        m->next_item == NULL) {
        idmap_free(m);
        return NULL;
    }
    snprintf(m->path, n, "%s/pmids", dir);
    m->next_cluster = 1;
    m->next_serial = 1;
    err[0] = '\0';
    FILE *f = fopen(m->path, "r");
    if (f == NULL) {
        if (errno != ENOENT)
            snprintf(err, errlen, "cannot read %s: %s", m->path, strerror(errno));
        return m;
    }
    char line[1200], name[1024];
    int a, b, lineno = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "cluster %d %1023s", &a, name) == 2 && a > 0 && a <= IDMAP_MAX_CLUSTER) {
            strmap_put(m->clusters, name, a);
            if (a >= m->next_cluster)
                m->next_cluster = a + 1;
        } else if (sscanf(line, "item %d %d %1023s", &a, &b, name) == 3 && a > 0 &&
                   a <= IDMAP_MAX_CLUSTER && b >= 0 && b <= IDMAP_MAX_ITEM) {
            char key[1100];
            snprintf(key, sizeof(key), "%d %s", a, name);
            strmap_put(m->items, key, b);
            if (b >= m->next_item[a])
                m->next_item[a] = b + 1;
        } else if (sscanf(line, "indom %d %1023s", &a, name) == 2 && a > 0 &&
                   a < IDMAP_RESERVED_SERIAL) {
            strmap_put(m->indoms, name, a);
            if (a >= m->next_serial)
                m->next_serial = a + 1;
        } else if (err[0] == '\0') {
            snprintf(err, errlen, "%s line %d not understood; ignored", m->path, lineno);
        }
    }
    fclose(f);
    return m;
}

void idmap_free(idmap *m)
{
    if (m == NULL)
        return;
    strmap_free(m->clusters);
    strmap_free(m->items);
    strmap_free(m->indoms);
    free(m->next_item);
    free(m->path);
    free(m);
}

bool idmap_dirty(const idmap *m)
{
    return m->dirty;
}

int idmap_cluster(idmap *m, const char *prefix)
{
    int64_t v;
    if (strmap_get(m->clusters, prefix, &v))
        return (int)v;
    if (m->next_cluster > IDMAP_MAX_CLUSTER)
        return -1;
    strmap_put(m->clusters, prefix, m->next_cluster);
    m->dirty = true;
    return m->next_cluster++;
}

int idmap_item(idmap *m, int cluster, const char *name)
{
    char key[1100];
    int64_t v;
    snprintf(key, sizeof(key), "%d %s", cluster, name);
    if (strmap_get(m->items, key, &v))
        return (int)v;
    if (m->next_item[cluster] > IDMAP_MAX_ITEM)
        return -1;
    strmap_put(m->items, key, m->next_item[cluster]);
    m->dirty = true;
    return m->next_item[cluster]++;
}

int idmap_indom(idmap *m, const char *prefix, const char *array)
{
    char key[1100];
    int64_t v;
    snprintf(key, sizeof(key), "%s.%s", prefix, array);
    if (strmap_get(m->indoms, key, &v))
        return (int)v;
    if (m->next_serial >= IDMAP_RESERVED_SERIAL)
        return -1;
    strmap_put(m->indoms, key, m->next_serial);
    m->dirty = true;
    return m->next_serial++;
}

static int write_all(FILE *f, const idmap *m)
{
    size_t cur = 0;
    const char *key;
    int64_t v;
    fprintf(f, "# staprelay PMID map: names keep these numbers for ever.\n"
               "# Written by pmdastaprelay; edit only while it is stopped.\n");
    while (strmap_next(m->clusters, &cur, &key, &v))
        fprintf(f, "cluster %d %s\n", (int)v, key);
    cur = 0;
    while (strmap_next(m->items, &cur, &key, &v)) {
        int c;
        char name[1024];
        if (sscanf(key, "%d %1023s", &c, name) == 2)
            fprintf(f, "item %d %d %s\n", c, (int)v, name);
    }
    cur = 0;
    while (strmap_next(m->indoms, &cur, &key, &v))
        fprintf(f, "indom %d %s\n", (int)v, key);
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
