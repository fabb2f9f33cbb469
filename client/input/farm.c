/* farm: -a arguments to archive contexts (see farm.h). */
#include "client/input/farm.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xalloc.h"

/* NAME.meta, possibly compressed as PCP reads them (.xz, .lzma, .bz2,
 * .bz, .gz, .Z, .z, .zst) */
static int is_meta(const char *name)
{
    static const char *const suffixes[] = {
        ".meta", ".meta.xz", ".meta.lzma", ".meta.bz2", ".meta.bz",
        ".meta.gz", ".meta.Z", ".meta.z", ".meta.zst",
    };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && strcmp(name + n - m, suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

int farm_dir_has_archive(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d)) != NULL)
        found = is_meta(e->d_name);
    closedir(d);
    return found;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add(farm_list *f, const char *spec, int origin)
{
    f->specs = xrealloc(f->specs, (f->n + 1) * sizeof *f->specs);
    f->origin = xrealloc(f->origin, (f->n + 1) * sizeof *f->origin);
    f->specs[f->n] = xstrdup(spec);
    f->origin[f->n] = origin;
    f->n++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sub-directories of dir that hold archives, sorted. */
static int expand_farm(const char *dir, int origin, farm_list *f, strbuf *err)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        sb_printf(err, "%s: %s", dir, strerror(errno));
        return 1;
    }
    char **hosts = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        strbuf p = STRBUF_INIT;
        sb_printf(&p, "%s/%s", dir, e->d_name);
        if (is_dir(p.buf) && farm_dir_has_archive(p.buf)) {
            hosts = xrealloc(hosts, (n + 1) * sizeof *hosts);
            hosts[n++] = sb_steal(&p);
        } else {
            sb_free(&p);
        }
    }
    closedir(d);
    if (n > 1)
        qsort(hosts, n, sizeof *hosts, by_name);
    for (size_t i = 0; i < n; i++) {
        add(f, hosts[i], origin);
        free(hosts[i]);
    }
    free(hosts);
    if (n == 0) {
        sb_printf(err, "%s: no PCP archives in it, nor in any directory in it",
                  dir);
        return 1;
    }
    return 0;
}

int farm_expand(const char *const *args, int nargs, farm_list *out,
                strbuf *err)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nargs; i++) {
        if (!is_dir(args[i]) || farm_dir_has_archive(args[i]))
            add(out, args[i], i);
        else if (expand_farm(args[i], i, out, err) != 0) {
            farm_free(out);
            return 1;
        }
    }
    return 0;
}

void farm_free(farm_list *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->specs[i]);
    free(f->specs);
    free(f->origin);
    memset(f, 0, sizeof *f);
}
