/* testutil: temp dirs and files for the Check suites. */
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <ftw.h>

char *tu_mkdtemp(void)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *p = malloc(strlen(base) + 32);
    if (p == NULL)
        return NULL;
    sprintf(p, "%s/staprelay-test-XXXXXX", base);
    if (mkdtemp(p) == NULL) {
        free(p);
        return NULL;
    }
    /* an untrusted source under it is read as its directory's owner, or
     * as exec_user when root owns it: others must be able to look in */
    chmod(p, 0755);
    return p;
}

static void mkparents(char *path)
{
    for (char *s = strchr(path + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
}

int tu_write(const char *dir, const char *name, const char *text)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path == NULL)
        return -1;
    snprintf(path, n, "%s/%s", dir, name);
    mkparents(path);
    /* write then rename, like a producer would, so readers never see half */
    size_t tn = n + 8;
    char *tmp = malloc(tn);
    snprintf(tmp, tn, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int rc = -1;
    if (f != NULL) {
        size_t len = strlen(text);
        rc = fwrite(text, 1, len, f) == len ? 0 : -1;
        if (fclose(f) != 0)
            rc = -1;
        if (rc == 0)
            rc = rename(tmp, path);
    }
    free(tmp);
    free(path);
    return rc;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}

char *tu_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

int tu_fifo_has_reader(const char *path)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK);
    int e = errno;
    if (fd >= 0)
        close(fd);
    return !(fd < 0 && e == ENXIO);
}

void tu_rmtree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *tu_slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf != NULL && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf != NULL)
        buf[len] = '\0';
    return buf;
}

int tu_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}
