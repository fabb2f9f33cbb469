/* svgattr: --nameattr (see svgattr.h). */
#include "client/render/svgattr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/stacktab.h"
#include "common/xalloc.h"

/* The table keys names with a stacktab (its entry index is the name's
 * slot in the parallel array). */

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
