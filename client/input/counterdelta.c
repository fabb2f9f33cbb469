/* counterdelta: increments between value sets (see counterdelta.h). */
#include "client/input/counterdelta.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "relay/strmap.h"

typedef struct entry {
    char    *name;
    uint64_t value;
} entry;

struct counterdelta {
    bool     u32;
    strmap  *prev;       /* name -> value of the previous set, or NULL */
    int64_t  prev_ns;
    entry   *cur;        /* the set being read */
    size_t   ncur, capcur;
    int64_t  cur_ns;
    uint64_t sets;
};

counterdelta *counterdelta_new(bool u32)
{
    counterdelta *cd = xcalloc(1, sizeof *cd);
    cd->u32 = u32;
    return cd;
}

static void clear_cur(counterdelta *cd)
{
    for (size_t i = 0; i < cd->ncur; i++)
        free(cd->cur[i].name);
    cd->ncur = 0;
}

void counterdelta_reset(counterdelta *cd)
{
    clear_cur(cd);
    strmap_free(cd->prev);
    cd->prev = NULL;
    cd->sets = 0;
}

void counterdelta_free(counterdelta *cd)
{
    if (cd == NULL)
        return;
    counterdelta_reset(cd);
    free(cd->cur);
    free(cd);
}

void counterdelta_begin(counterdelta *cd, int64_t when_ns)
{
    clear_cur(cd);
    cd->cur_ns = when_ns;
}

void counterdelta_value(counterdelta *cd, const char *name, uint64_t value)
{
    if (cd->ncur == cd->capcur) {
        cd->capcur = cd->capcur ? 2 * cd->capcur : 64;
        cd->cur = xrealloc(cd->cur, cd->capcur * sizeof *cd->cur);
    }
    cd->cur[cd->ncur++] = (entry){ xstrdup(name), value };
}

static uint64_t increment(const counterdelta *cd, bool had, uint64_t before,
                          uint64_t now)
{
    if (!had)
        return now;                 /* entered since: from zero */
    if (now >= before)
        return now - before;
    if (cd->u32 && before - now > ((uint64_t)1 << 31))
        return now + ((uint64_t)1 << 32) - before;   /* wrapped */
    return now;                     /* went down: restarted */
}

static void must(int rc)
{
    if (rc != 0) {
        fprintf(stderr, "staprelay: out of memory\n");
        abort();
    }
}

void counterdelta_end(counterdelta *cd, counterdelta_fn fn, void *arg)
{
    if (cd->ncur == 0)
        return;                     /* no value: not a set */
    strmap *next = strmap_new();
    if (next == NULL)
        must(-1);
    for (size_t i = 0; i < cd->ncur; i++) {
        const entry *e = &cd->cur[i];
        if (cd->prev != NULL) {
            int64_t before = 0;
            bool had = strmap_get(cd->prev, e->name, &before);
            uint64_t inc = increment(cd, had, (uint64_t)before, e->value);
            if (inc > 0)
                fn(arg, e->name, inc, cd->prev_ns, cd->cur_ns);
        }
        must(strmap_put(next, e->name, (int64_t)e->value));
    }
    strmap_free(cd->prev);
    cd->prev = next;
    cd->prev_ns = cd->cur_ns;
    cd->sets++;
    clear_cur(cd);
}

uint64_t counterdelta_sets(const counterdelta *cd)
{
    return cd->sets;
}
