/* stackcount: the batched, bounded stacks counter (see stackcount.h). */
#include "relay/stackcount.h"
#include "common/stackname.h"
#include "common/strmap.h"

#include <stdlib.h>
#include <string.h>

/* A newcomer must score this much more than a kept stack to replace it. */
#define KEEP_BONUS 1.25
/* A change must bring in this much of all the candidates' score more than
 * it lets go (worth_a_change). */
#define MATERIAL 0.02
/* The first refresh interval after the first one; doubled up to refresh. */
#define FIRST_INTERVAL 1.0

typedef struct candidate {
    char *folded;        /* the key (owned) */
    char *name;          /* instance name while it is a row (owned), else NULL */
    uint64_t pending;    /* weight since the last refresh, not yet in a row */
    uint64_t recent;     /* all weight since the last refresh */
    double score;
    double last_seen;
    long row;            /* index in rows, or -1 */
    bool kept;           /* a row that counts (not frozen) */
} candidate;

struct stackcount {
    stackcount_limits lim;
    candidate *c;
    size_t n, cap;
    strmap *index;        /* folded -> candidate position */
    stackcount_row *rows; /* rows[nrows - 1] is STACKNAME_OTHER */
    size_t *row_cand;     /* candidate position of rows[i], i < nrows - 1 */
    size_t nrows;
    size_t bytes, max_bytes;  /* what the candidates cost, and the bound */
    double next_refresh;  /* < 0: nothing to refresh yet */
    double interval;      /* 0 before the first refresh */
    uint64_t generation;
    uint64_t evicted;
};

stackcount *stackcount_new(const stackcount_limits *lim)
{
    stackcount *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->lim = *lim;
    if (t->lim.max_stacks < 1)
        t->lim.max_stacks = 1;
    /* rows (kept and frozen) are never forgotten: leave room besides them */
    if (t->lim.max_candidates < 2 * t->lim.max_stacks + 64)
        t->lim.max_candidates = 2 * t->lim.max_stacks + 64;
    t->index = strmap_new();
    t->rows = calloc(1, sizeof(*t->rows));
    if (t->index == NULL || t->rows == NULL) {
        stackcount_free(t);
        return NULL;
    }
    t->rows[0] = (stackcount_row){STACKNAME_OTHER, 0};
    t->nrows = 1;
    t->next_refresh = -1;
    t->max_bytes = SIZE_MAX;
    return t;
}

void stackcount_free(stackcount *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->c[i].folded);
        free(t->c[i].name);
    }
    free(t->c);
    free(t->rows);
    free(t->row_cand);
    strmap_free(t->index);
    free(t);
}

/* Counts saturate at UINT64_MAX, never wrap (a hostile count field). */
static void add_sat(uint64_t *c, uint64_t w)
{
    if (__builtin_add_overflow(*c, w, c))
        *c = UINT64_MAX;
}

/* What a candidate costs: its key (and its name while it is a row),
 * allocator headers, its slot and its index entry. */
static size_t cost_of(const char *folded)
{
    return 2 * (strlen(folded) + 1 + 16) + sizeof(candidate) + 32;
}

static stackcount_row *other(stackcount *t)
{
    return &t->rows[t->nrows - 1];
}

/* Forget candidate i (not a row): the last one moves into its place. */
static void forget(stackcount *t, size_t i)
{
    candidate *c = &t->c[i];
    add_sat(&other(t)->count, c->pending);
    t->bytes -= cost_of(c->folded);
    strmap_del(t->index, c->folded);
    free(c->folded);
    t->n--;
    if (i != t->n) {
        t->c[i] = t->c[t->n];
        strmap_put(t->index, t->c[i].folded, (int64_t)i);
        if (t->c[i].row >= 0)
            t->row_cand[t->c[i].row] = i;
    }
}

static int by_value(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int descending(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x > y ? -1 : x < y;
}

/* The candidate table is full: forget the tenth with the least weight
 * among those that are not rows (rows take at most 2 max_stacks, and the
 * table holds at least 64 more). */
static size_t forget_coldest(stackcount *t)
{
    size_t want = t->lim.max_candidates / 10 ? t->lim.max_candidates / 10 : 1;
    double (*order)[2] = malloc(t->n * sizeof(*order));
    if (order == NULL)
        return 0;
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->c[i].row < 0) {
            order[m][0] = t->c[i].score + (double)t->c[i].recent;
            order[m][1] = (double)i;
            m++;
        }
    qsort(order, m, sizeof(*order), by_value);
    if (want > m)
        want = m;
    /* highest positions first, so the moves of forget() touch none left */
    size_t *pos = malloc((want ? want : 1) * sizeof(*pos));
    if (pos != NULL) {
        for (size_t k = 0; k < want; k++)
            pos[k] = (size_t)order[k][1];
        qsort(pos, want, sizeof(*pos), descending);
        for (size_t k = 0; k < want; k++)
            forget(t, pos[k]);
    }
    size_t done = pos != NULL ? want : 0;
    t->evicted += done;   /* let go for room: counted, their weight went to [other] */
    free(pos);
    free(order);
    return done;
}

static candidate *find_or_add(stackcount *t, const char *folded, double now)
{
    int64_t pos;
    if (strmap_get(t->index, folded, &pos))
        return &t->c[pos];
    size_t cost = cost_of(folded);
    if (cost > t->max_bytes) {
        t->evicted++;   /* larger than the bound alone: never tracked */
        return NULL;
    }
    if (t->n >= t->lim.max_candidates)
        forget_coldest(t);
    while (t->bytes + cost > t->max_bytes)
        if (forget_coldest(t) == 0)
            return NULL;   /* the rows alone fill the bound */
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        candidate *nn = realloc(t->c, nc * sizeof(*nn));
        if (nn == NULL)
            return NULL;
        t->c = nn;
        t->cap = nc;
    }
    char *key = strdup(folded);
    if (key == NULL || strmap_put(t->index, key, (int64_t)t->n) != 0) {
        free(key);
        return NULL;
    }
    t->c[t->n] = (candidate){key, NULL, 0, 0, 0, now, -1, false};
    t->bytes += cost;
    return &t->c[t->n++];
}

int stackcount_add(stackcount *t, const char *folded, uint64_t weight, double now)
{
    candidate *c = find_or_add(t, folded, now);
    if (c == NULL) {
        add_sat(&other(t)->count, weight);
        return -1;
    }
    if (c->kept)
        add_sat(&t->rows[c->row].count, weight);
    else
        add_sat(&c->pending, weight);
    add_sat(&c->recent, weight);
    c->last_seen = now;
    if (t->next_refresh < 0)
        t->next_refresh = now;   /* the first refresh: at the next tick */
    return 0;
}

/* ---- refresh ------------------------------------------------------------ */

typedef struct ranked {
    double score;
    size_t cand;
    const char *key;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* Mark the candidates to keep: the max_stacks best by score, kept ones
 * with the bonus, among those seen within expiry.  Returns -1 without
 * memory (nothing changes then). */
static int choose(stackcount *t, double now, bool *keep)
{
    ranked *r = malloc((t->n ? t->n : 1) * sizeof(*r));
    if (r == NULL)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++) {
        candidate *c = &t->c[i];
        if (c->score <= 0 || now - c->last_seen > t->lim.expiry)
            continue;
        r[m++] = (ranked){c->score * (c->kept ? KEEP_BONUS : 1), i, c->folded};
    }
    qsort(r, m, sizeof(*r), by_rank);
    /* with a byte bound, rows take at most half of it */
    size_t room = t->max_bytes == SIZE_MAX ? SIZE_MAX : t->max_bytes / 2, used = 0;
    for (size_t k = 0; k < m && k < t->lim.max_stacks; k++) {
        size_t cost = cost_of(r[k].key);
        if (used + cost > room)
            break;
        used += cost;
        keep[r[k].cand] = true;
    }
    free(r);
    return 0;
}

/* Rebuild rows from the candidates that are rows, existing rows first in
 * their order, then the new ones, then STACKNAME_OTHER. */
static int rebuild_rows(stackcount *t, uint64_t other_count)
{
    size_t nr = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->c[i].name != NULL)
            nr++;
    stackcount_row *rows = malloc((nr + 1) * sizeof(*rows));
    size_t *rc = malloc((nr + 1) * sizeof(*rc));
    long *old = malloc((t->n ? t->n : 1) * sizeof(*old));
    if (rows == NULL || rc == NULL || old == NULL) {
        free(rows);
        free(rc);
        free(old);
        return -1;
    }
    size_t k = 0;
    for (size_t r = 0; r + 1 < t->nrows; r++) {       /* survivors, in order */
        candidate *c = &t->c[t->row_cand[r]];
        if (c->name != NULL && c->row == (long)r) {
            rows[k] = (stackcount_row){c->name, t->rows[r].count};
            rc[k] = t->row_cand[r];
            old[t->row_cand[r]] = (long)k++;
        }
    }
    for (size_t i = 0; i < t->n; i++)                  /* newcomers */
        if (t->c[i].name != NULL && t->c[i].row < 0) {
            rows[k] = (stackcount_row){t->c[i].name, t->c[i].pending};
            rc[k] = i;
            old[i] = (long)k++;
        }
    for (size_t i = 0; i < t->n; i++)
        t->c[i].row = t->c[i].name != NULL ? old[i] : -1;
    rows[k] = (stackcount_row){STACKNAME_OTHER, other_count};
    free(old);
    free(t->rows);
    free(t->row_cand);
    t->rows = rows;
    t->row_cand = rc;
    t->nrows = k + 1;
    return 0;
}

typedef enum { KEEP_ROWS, SWAP_ROWS, NEW_ROWS } refresh_kind;

/* Whether the chosen set (keep) is worth applying.  Bringing in a stack
 * that has no row changes the instances (and costs a v2 archive a copy of
 * the whole domain); bringing back a frozen one does not.  Either is done
 * when it displaces no kept stack (a free row), or when what comes in
 * outscores what goes by MATERIAL of all the candidates' score: near ties
 * in the long tail of a profile swap places all the time and matter to no
 * flame graph.  Otherwise keep becomes the kept set as it is. */
static refresh_kind worth_a_change(const stackcount *t, bool *keep)
{
    double in = 0, out = 0, total = 0;
    size_t entering = 0, adding = 0, leaving = 0;
    for (size_t i = 0; i < t->n; i++) {
        const candidate *c = &t->c[i];
        total += c->score;
        if (keep[i] && !c->kept) {
            in += c->score;
            entering++;
            adding += c->row < 0;
        } else if (!keep[i] && c->kept) {
            out += c->score;
            leaving++;
        }
    }
    if (entering > 0 && (leaving == 0 || in - out >= MATERIAL * total))
        return adding > 0 ? NEW_ROWS : SWAP_ROWS;
    for (size_t i = 0; i < t->n; i++)
        keep[i] = t->c[i].kept;
    return KEEP_ROWS;
}

/* Apply the chosen set: new rows start with their pending weight; a
 * stack that drops out freezes.  When rows are added anyway, the rows that
 * froze at an earlier change go, and so does a dropping stack that had no
 * sample for expiry seconds (its final value is old news).  Returns
 * whether rows came or went. */
static bool apply_change(stackcount *t, const bool *keep, double now,
                         bool new_rows, uint64_t *to_other)
{
    bool changed = false;
    for (size_t i = 0; i < t->n; i++) {
        candidate *c = &t->c[i];
        bool gone = new_rows && !keep[i] && c->row >= 0 &&
                    (!c->kept || now - c->last_seen > t->lim.expiry);
        if (keep[i] && c->row < 0) {
            changed = true;
        } else if (keep[i]) {
            add_sat(&t->rows[c->row].count, c->pending);   /* kept, or back from frozen */
            c->pending = 0;
        } else if (gone) {
            free(c->name);
            c->name = NULL;
            c->kept = false;
            t->evicted++;
            changed = true;
        } else if (c->kept) {
            c->kept = false;                       /* freezes */
        }
        if (!keep[i]) {
            add_sat(to_other, c->pending);
            c->pending = 0;
        }
    }
    return changed;
}

static void refresh(stackcount *t, double now)
{
    bool *keep = calloc(t->n ? t->n : 1, sizeof(*keep));
    for (size_t i = 0; i < t->n; i++) {
        t->c[i].score = t->c[i].score / 2 + (double)t->c[i].recent;
        t->c[i].recent = 0;
    }
    if (keep == NULL || choose(t, now, keep) != 0) {
        free(keep);
        return;   /* out of memory: try again at the next tick */
    }
    refresh_kind kind = worth_a_change(t, keep);
    /* names of new rows first: without memory, nothing changes */
    for (size_t i = 0; kind == NEW_ROWS && i < t->n; i++)
        if (keep[i] && t->c[i].name == NULL &&
            (t->c[i].name = stackname_encode(t->c[i].folded)) == NULL) {
            for (size_t k = 0; k < t->n; k++)
                keep[k] = t->c[k].kept;
            kind = KEEP_ROWS;
        }
    uint64_t to_other = 0;
    bool changed = false;
    if (kind != KEEP_ROWS) {
        changed = apply_change(t, keep, now, kind == NEW_ROWS, &to_other);
    } else {
        for (size_t i = 0; i < t->n; i++)
            if (!t->c[i].kept) {
                add_sat(&to_other, t->c[i].pending);
                t->c[i].pending = 0;
            }
    }
    uint64_t other_count = other(t)->count;
    add_sat(&other_count, to_other);
    if (changed && rebuild_rows(t, other_count) != 0) {
        /* out of memory: undo the names of rows not built, count their
         * weight as the others' (it can no longer wait) */
        for (size_t i = 0; i < t->n; i++)
            if (t->c[i].row < 0 && t->c[i].name != NULL) {
                free(t->c[i].name);
                t->c[i].name = NULL;
                add_sat(&other_count, t->c[i].pending);
            }
        other(t)->count = other_count;
        for (size_t i = 0; i < t->n; i++)
            if (t->c[i].row < 0)
                t->c[i].pending = 0;
        free(keep);
        return;
    }
    other(t)->count = other_count;
    for (size_t i = 0; i < t->n; i++) {
        if (keep[i]) {
            t->c[i].kept = true;
            t->c[i].pending = 0;
        }
    }
    free(keep);
    if (changed)
        t->generation++;
    /* forget what is neither a row nor seen within expiry */
    for (size_t i = t->n; i-- > 0;)
        if (t->c[i].row < 0 && now - t->c[i].last_seen > t->lim.expiry)
            forget(t, i);
    double first = FIRST_INTERVAL < t->lim.refresh ? FIRST_INTERVAL : t->lim.refresh;
    t->interval = t->interval <= 0 ? first
                  : t->interval * 2 < t->lim.refresh ? t->interval * 2 : t->lim.refresh;
    t->next_refresh = now + t->interval;
}

void stackcount_tick(stackcount *t, double now)
{
    if (t->next_refresh >= 0 && now >= t->next_refresh)
        refresh(t, now);
}

size_t stackcount_size(const stackcount *t)
{
    return t->nrows;
}

const stackcount_row *stackcount_entry(const stackcount *t, size_t i)
{
    return i < t->nrows ? &t->rows[i] : NULL;
}

uint64_t stackcount_generation(const stackcount *t)
{
    return t->generation;
}

uint64_t stackcount_evicted(const stackcount *t)
{
    return t->evicted;
}

size_t stackcount_candidates(const stackcount *t)
{
    return t->n;
}

void stackcount_set_max_bytes(stackcount *t, size_t max_bytes)
{
    t->max_bytes = max_bytes;
    while (t->bytes > t->max_bytes)
        if (forget_coldest(t) == 0)
            break;     /* rows go at the next refresh (choose) */
}

size_t stackcount_bytes(const stackcount *t)
{
    return t->bytes;
}

double stackcount_next_refresh(const stackcount *t)
{
    return t->next_refresh;
}
