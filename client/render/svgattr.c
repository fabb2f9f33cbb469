/* svgattr: palette.map and --nameattr (see svgattr.h). */
#include "client/render/svgattr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/stacktab.h"
#include "common/xalloc.h"

/* Both tables key names with a stacktab (its entry index is the name's
 * slot in the parallel array). */

struct palette_map {
    stacktab *names;
    char    **color;     /* "rgb(r,g,b)" per entry */
    size_t    cap;
};

static void pm_put(palette_map *m, const char *name, size_t len,
                   const char *color)
{
    size_t i = stacktab_add(m->names, name, len, 0, 1);
    if (i >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        while (cap <= i)
            cap *= 2;
        m->color = xrealloc(m->color, cap * sizeof *m->color);
        memset(m->color + m->cap, 0, (cap - m->cap) * sizeof *m->color);
        m->cap = cap;
    }
    free(m->color[i]);
    m->color[i] = xstrdup(color);
}

palette_map *palette_map_load(const char *path, strbuf *err)
{
    palette_map *m = xcalloc(1, sizeof *m);
    m->names = stacktab_new();
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        if (errno == ENOENT)
            return m;
        sb_printf(err, "%s: %s", path, strerror(errno));
        palette_map_free(m);
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        /* flamegraph.pl: split("->", $line): the name before the first
         * "->", the colour up to the next */
        char *arrow = strstr(line, "->");
        if (arrow == NULL)
            continue;
        char *color = arrow + 2;
        char *more = strstr(color, "->");
        if (more)
            *more = '\0';
        pm_put(m, line, (size_t)(arrow - line), color);
    }
    free(line);
    fclose(fp);
    return m;
}

rgb palette_map_color(palette_map *m, palette p, bool hash, const char *name,
                      size_t len)
{
    const stack_entry *e = stacktab_find(m->names, name, len);
    if (e) {
        size_t i = (size_t)(e - stacktab_entry(m->names, 0));
        rgb c;
        if (i < m->cap && m->color[i]
            && sscanf(m->color[i], "rgb(%d,%d,%d)", &c.r, &c.g, &c.b) == 3)
            return c;
    }
    rgb c = palette_color(p, hash, name, len);
    char buf[48];
    snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", c.r, c.g, c.b);
    pm_put(m, name, len, buf);
    return c;
}

int palette_map_save(const palette_map *m, const char *path, strbuf *err)
{
    FILE *fp = fopen(path, "w");
    if (fp == NULL) {
        sb_printf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t *order = stacktab_sorted(m->names, STACK_ORDER_BYTES);
    const stack_entry *base = stacktab_entry(m->names, 0);
    for (size_t k = 0; k < stacktab_size(m->names); k++) {
        const stack_entry *e = stacktab_entry(m->names, order[k]);
        size_t i = (size_t)(e - base);
        fwrite(e->stack, 1, e->len, fp);
        fprintf(fp, "->%s\n", m->color[i] ? m->color[i] : "");
    }
    free(order);
    if (fclose(fp) != 0) {
        sb_printf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void palette_map_free(palette_map *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free(m->color[i]);
    free(m->color);
    stacktab_free(m->names);
    free(m);
}

/* ---- --nameattr ----------------------------------------------------- */

struct name_attrs {
    stacktab  *names;
    name_attr *attr;
    size_t     cap;
    strbuf     text;      /* the values, NUL-separated */
    char      *base;
};

static const char **attr_slot(name_attr *a, const char *key, size_t n)
{
    static const struct { const char *k; size_t off; } keys[] = {
        { "id", offsetof(name_attr, id) },
        { "class", offsetof(name_attr, class_) },
        { "g_extra", offsetof(name_attr, g_extra) },
        { "href", offsetof(name_attr, href) },
        { "target", offsetof(name_attr, target) },
        { "a_extra", offsetof(name_attr, a_extra) },
        { "title", offsetof(name_attr, title) },
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i].k) == n && memcmp(keys[i].k, key, n) == 0)
            return (const char **)((char *)a + keys[i].off);
    return NULL;
}

name_attrs *name_attrs_load(const char *path, strbuf *err)
{
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        sb_printf(err, "--nameattr %s: %s", path, strerror(errno));
        return NULL;
    }
    name_attrs *na = xcalloc(1, sizeof *na);
    na->names = stacktab_new();
    /* values are kept as offsets into text until the end (it moves) */
    typedef struct { size_t entry; size_t key_off, key_len, val_off; } kv;
    kv *kvs = NULL;
    size_t nkv = 0, capkv = 0;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    bool ok = true;
    while (ok && (n = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        char *tab = strchr(line, '\t');
        if (tab == NULL) {     /* flamegraph.pl: "Invalid format" */
            sb_printf(err, "--nameattr %s:%zu: no tab after the name",
                      path, lineno);
            ok = false;
            break;
        }
        size_t entry = stacktab_add(na->names, line, (size_t)(tab - line), 0, 1);
        for (char *f = tab + 1; ok;) {
            char *next = strchr(f, '\t');
            size_t flen = next ? (size_t)(next - f) : strlen(f);
            char *eq = memchr(f, '=', flen);
            if (flen > 0 && eq != NULL) {
                if (nkv == capkv) {
                    capkv = capkv ? capkv * 2 : 32;
                    kvs = xrealloc(kvs, capkv * sizeof *kvs);
                }
                size_t val_off = na->text.len;
                sb_add(&na->text, eq + 1, flen - (size_t)(eq - f) - 1);
                sb_addc(&na->text, '\0');
                size_t key_off = na->text.len;
                sb_add(&na->text, f, (size_t)(eq - f));
                sb_addc(&na->text, '\0');
                kvs[nkv++] = (kv){ entry, key_off, (size_t)(eq - f), val_off };
            }
            if (next == NULL)
                break;
            f = next + 1;
        }
    }
    free(line);
    fclose(fp);
    if (!ok) {
        free(kvs);
        name_attrs_free(na);
        return NULL;
    }
    na->cap = stacktab_size(na->names);
    na->attr = xcalloc(na->cap ? na->cap : 1, sizeof *na->attr);
    na->base = na->text.buf;
    for (size_t i = 0; i < nkv; i++) {
        const char **slot = attr_slot(&na->attr[kvs[i].entry],
                                      na->base + kvs[i].key_off,
                                      kvs[i].key_len);
        if (slot)
            *slot = na->base + kvs[i].val_off;
    }
    free(kvs);
    return na;
}

const name_attr *name_attrs_find(const name_attrs *na, const char *name,
                                 size_t len)
{
    if (na == NULL)
        return NULL;
    const stack_entry *e = stacktab_find(na->names, name, len);
    if (e == NULL)
        return NULL;
    return &na->attr[e - stacktab_entry(na->names, 0)];
}

void name_attrs_free(name_attrs *na)
{
    if (na == NULL)
        return;
    stacktab_free(na->names);
    free(na->attr);
    sb_free(&na->text);
    free(na);
}
