/* counterdelta: increments between value sets (see counterdelta.h). */
#include "client/input/counterdelta.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "common/strmap.h"

/* Every name of the last set has a slot, found by one hash lookup per
 * value: a set of a thousand 700-byte stack names costs no allocation
 * once its names are known (a fleet-hour reads some 200,000 values of the
 * same names).  Names that left are dropped once they outnumber those of
 * the last set (compact): the rule needs only the last set, and a live
 * view that runs for days must not keep every stack it ever saw. */
typedef struct slot {
    char    *name;
    uint64_t value;      /* in the last set that had it */
    uint64_t set;        /* that set's number (1, 2, ...); 0: none yet */
} slot;

typedef struct entry {
    size_t   slot;
    uint64_t value;
} entry;

struct counterdelta {
    bool     u32;
    strmap  *by_name;    /* name -> index in slots */
    slot    *slots;
    size_t   nslots, capslots;
    int64_t  prev_ns;
    entry   *cur;        /* the set being read */
    size_t   ncur, capcur;
    int64_t  cur_ns;
    uint64_t sets;       /* sets ended since the last reset */
};

counterdelta *counterdelta_new(bool u32)
{
    counterdelta *cd = xcalloc(1, sizeof *cd);
    cd->u32 = u32;
    return cd;
}

void counterdelta_reset(counterdelta *cd)
{
    for (size_t i = 0; i < cd->nslots; i++)
        free(cd->slots[i].name);
    cd->nslots = 0;
    strmap_free(cd->by_name);
    cd->by_name = NULL;
    cd->ncur = 0;
    cd->sets = 0;
}

void counterdelta_free(counterdelta *cd)
{
    if (cd == NULL)
        return;
    counterdelta_reset(cd);
    free(cd->slots);
    free(cd->cur);
    free(cd);
}

void counterdelta_begin(counterdelta *cd, int64_t when_ns)
{
    cd->ncur = 0;
    cd->cur_ns = when_ns;
}

static void must(int rc)
{
    if (rc != 0) {
        fprintf(stderr, "staprelay: out of memory\n");
        abort();
    }
}

static size_t slot_of(counterdelta *cd, const char *name)
{
    int64_t i;
    if (cd->by_name == NULL && (cd->by_name = strmap_new()) == NULL)
        must(-1);
    if (strmap_get(cd->by_name, name, &i))
        return (size_t)i;
    if (cd->nslots == cd->capslots) {
        cd->capslots = cd->capslots ? 2 * cd->capslots : 64;
        cd->slots = xrealloc(cd->slots, cd->capslots * sizeof *cd->slots);
    }
    cd->slots[cd->nslots] = (slot){ xstrdup(name), 0, 0 };
    must(strmap_put(cd->by_name, name, (int64_t)cd->nslots));
    return cd->nslots++;
}

void counterdelta_value(counterdelta *cd, const char *name, uint64_t value)
{
    if (cd->ncur == cd->capcur) {
        cd->capcur = cd->capcur ? 2 * cd->capcur : 64;
        cd->cur = xrealloc(cd->cur, cd->capcur * sizeof *cd->cur);
    }
    cd->cur[cd->ncur++] = (entry){ slot_of(cd, name), value };
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

/* Keep only the slots of the last set, in their order. */
static void compact(counterdelta *cd)
{
    strmap *by_name = strmap_new();
    if (by_name == NULL)
        must(-1);
    size_t kept = 0;
    for (size_t i = 0; i < cd->nslots; i++) {
        slot s = cd->slots[i];
        if (s.set != cd->sets) {
            free(s.name);
            continue;
        }
        must(strmap_put(by_name, s.name, (int64_t)kept));
        cd->slots[kept++] = s;
    }
    strmap_free(cd->by_name);
    cd->by_name = by_name;
    cd->nslots = kept;
}

/* Two passes: every increment against the previous set first, then the
 * slots take this set's values (a name twice in one set is measured
 * against the previous set both times, and its last value stays). */
void counterdelta_end(counterdelta *cd, counterdelta_fn fn, void *arg)
{
    if (cd->ncur == 0)
        return;                     /* no value: not a set */
    for (size_t i = 0; cd->sets > 0 && i < cd->ncur; i++) {
        const entry *e = &cd->cur[i];
        const slot *s = &cd->slots[e->slot];
        uint64_t inc = increment(cd, s->set == cd->sets, s->value, e->value);
        if (inc > 0)
            fn(arg, s->name, inc, cd->prev_ns, cd->cur_ns);
    }
    cd->sets++;
    for (size_t i = 0; i < cd->ncur; i++) {
        slot *s = &cd->slots[cd->cur[i].slot];
        s->value = cd->cur[i].value;
        s->set = cd->sets;
    }
    cd->prev_ns = cd->cur_ns;
    if (cd->nslots > 2 * cd->ncur + 64)
        compact(cd);
    cd->ncur = 0;
}

size_t counterdelta_names(const counterdelta *cd)
{
    return cd->nslots;
}

uint64_t counterdelta_sets(const counterdelta *cd)
{
    return cd->sets;
}
