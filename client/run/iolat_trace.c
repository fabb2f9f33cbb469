/* iolat_trace: see iolat_trace.h. */
#include "client/run/iolat_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/run/perf_source.h"
#include "client/util/utf8.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#define IOLAT_MAX_KEYS     256        /* iolat.stp's max_keys default */
#define IOLAT_BUCKETS      4096
#define IOLAT_MAX_INFLIGHT 65536      /* requests issued, not completed */
#define IOLAT_STALE_NS     (30LL * 1000000000LL)   /* never completed */

typedef struct inflight {
    unsigned dev;
    unsigned long long sector;
    int64_t ts;
    struct inflight *next;
} inflight;

typedef struct io_key {            /* one "disk:dir" row */
    char *id;
    char *hist_name;               /* latency_<id>, unique */
    uint64_t requests, bytes, errors, time, max;
    uint64_t hist[65];
} io_key;

typedef struct disk_name {
    unsigned dev;
    char *name;
    struct disk_name *next;
} disk_name;

struct iolat_trace {
    char *sys_root;                /* "" or a fake tree (tests) */
    inflight *table[IOLAT_BUCKETS];
    size_t ninflight;
    io_key *keys;
    size_t nkeys, cap;
    disk_name *disks;
    uint64_t requests, errors, hist[65];
    uint64_t untracked, untimed, unparsed, lost;
    bool meta_changed;
};
typedef struct iolat_trace iolat;

/* ---- metadata.json --------------------------------------------------------- */

static const char meta_head[] =
    "{\n"
    "  \"metrics\": [\n"
    "    {\"name\": \"omitted\", \"pointer\": \"/omitted\", \"type\": \"integer\", "
    "\"semantics\": \"instant\", \"units\": \"count\", \"description\": \"always 0 (the "
    "perf backend leaves nothing out)\"},\n"
    "    {\"name\": \"requests\", \"pointer\": \"/requests\", \"type\": \"integer\", "
    "\"semantics\": \"counter\", \"units\": \"count\", \"description\": \"block requests completed\"},\n"
    "    {\"name\": \"errors\", \"pointer\": \"/errors\", \"type\": \"integer\", "
    "\"semantics\": \"counter\", \"units\": \"count\", \"description\": \"block requests "
    "completed with an error\"},\n"
    "    {\"name\": \"latency\", \"pointer\": \"/latency\", \"type\": \"histogram\", "
    "\"units\": \"nanosec\", \"description\": \"block request latency, all devices\"},\n"
    "    {\"name\": \"devices\", \"pointer\": \"/devices\", \"type\": \"array\", "
    "\"description\": \"per disk and direction (disk:read|write|other)\", \"index\": \"/__id\",\n"
    "     \"metrics\": [\n"
    "       {\"name\": \"requests\", \"pointer\": \"/requests\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"requests completed\"},\n"
    "       {\"name\": \"bytes\", \"pointer\": \"/bytes\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"byte\", \"description\": \"bytes completed\"},\n"
    "       {\"name\": \"errors\", \"pointer\": \"/errors\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"requests completed with an error\"},\n"
    "       {\"name\": \"time\", \"pointer\": \"/time\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"nanosec\", \"description\": \"total request time\"},\n"
    "       {\"name\": \"max\", \"pointer\": \"/max\", \"type\": \"integer\", \"semantics\": \"instant\", \"units\": \"nanosec\", \"description\": \"longest request\"}\n"
    "     ]}";

char *iolat_trace_metadata(const iolat_trace *io)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, meta_head);
    for (size_t i = 0; i < io->nkeys; i++) {
        sb_printf(&sb, ",\n    {\"name\": \"%s\", \"pointer\": \"/%s\", \"type\": \"histogram\", "
                  "\"units\": \"nanosec\", \"description\": \"block request latency of ",
                  io->keys[i].hist_name, io->keys[i].hist_name);
        json_escape(&sb, io->keys[i].id, strlen(io->keys[i].id));
        sb_adds(&sb, "\"}");
    }
    sb_adds(&sb, "\n  ]\n}\n");
    return sb_steal(&sb);
}

/* ---- disks and keys -------------------------------------------------------- */

/* The kernel's name of block device MAJ:MIN (its uevent's DEVNAME), or
 * "MAJ,MIN" when sysfs does not say. */
static const char *disk_of(iolat *io, unsigned dev, unsigned maj, unsigned min)
{
    for (disk_name *d = io->disks; d; d = d->next)
        if (d->dev == dev)
            return d->name;
    char path[4200], line[256], name[256] = "";
    snprintf(path, sizeof path, "%s/sys/dev/block/%u:%u/uevent", io->sys_root, maj, min);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "DEVNAME=", 8) == 0) {
            snprintf(name, sizeof name, "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
            break;
        }
    if (f)
        fclose(f);
    if (name[0] == '\0')
        snprintf(name, sizeof name, "%u,%u", maj, min);
    disk_name *d = xmalloc(sizeof *d);
    d->dev = dev;
    d->name = xstrdup(name);
    d->next = io->disks;
    io->disks = d;
    return d->name;
}

/* iolat.stp's histogram name for a key: latency_ + the key with every
 * byte other than [A-Za-z0-9_] made '_' (staprelay_sanitize_name), with
 * _2, _3... on a clash (staprelay_unique_name). */
static char *hist_name_for(const iolat *io, const char *id)
{
    strbuf base = STRBUF_INIT;
    sb_adds(&base, "latency_");
    for (const char *p = id; *p; p++) {
        char c = *p;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
        sb_addc(&base, keep ? c : '_');
    }
    strbuf name = STRBUF_INIT;
    sb_adds(&name, base.buf);
    for (int n = 2;; n++) {
        bool taken = false;
        for (size_t i = 0; i < io->nkeys && !taken; i++)
            taken = strcmp(io->keys[i].hist_name, name.buf) == 0;
        if (!taken)
            break;
        sb_reset(&name);
        sb_printf(&name, "%s_%d", base.buf, n);
    }
    sb_free(&base);
    return sb_steal(&name);
}

static io_key *key_of(iolat *io, const char *disk, const char *dir)
{
    strbuf id = STRBUF_INIT;
    sb_printf(&id, "%s:%s", disk, dir);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < io->nkeys; i++)
            if (strcmp(io->keys[i].id, id.buf) == 0) {
                sb_free(&id);
                return &io->keys[i];
            }
        if (io->nkeys < IOLAT_MAX_KEYS)
            break;
        /* beyond the limit, new disks share "other:DIR" */
        sb_reset(&id);
        sb_printf(&id, "other:%s", dir);
    }
    if (io->nkeys == io->cap) {
        io->cap = io->cap ? io->cap * 2 : 8;
        io->keys = xrealloc(io->keys, io->cap * sizeof *io->keys);
    }
    io_key *k = &io->keys[io->nkeys];
    memset(k, 0, sizeof *k);
    k->hist_name = hist_name_for(io, id.buf);
    k->id = sb_steal(&id);
    io->nkeys++;
    io->meta_changed = true;
    return k;
}

/* ---- requests ------------------------------------------------------------- */

static inflight **slot(iolat *io, unsigned dev, unsigned long long sector)
{
    unsigned long long h = (sector * 0x9e3779b97f4a7c15ULL) ^ dev;
    inflight **p = &io->table[(h >> 20) % IOLAT_BUCKETS];
    while (*p && !((*p)->dev == dev && (*p)->sector == sector))
        p = &(*p)->next;
    return p;
}

/* Forget the requests in flight issued before CUTOFF (ns): long ago ones
 * that never completed, so that a full table does not stop new requests
 * from being timed for good; or all of them. */
static void forget_issued_before(iolat *io, int64_t cutoff)
{
    for (size_t b = 0; b < IOLAT_BUCKETS; b++)
        for (inflight **p = &io->table[b]; *p;) {
            if ((*p)->ts < cutoff) {
                inflight *gone = *p;
                *p = gone->next;
                free(gone);
                io->ninflight--;
            } else {
                p = &(*p)->next;
            }
        }
}

/* Requests with the same key may be in flight together (flushes always
 * share theirs, and a sector may be read ahead while it is read): each
 * issue is kept, after those before it, and a completion takes the
 * oldest. */
static void on_issue(iolat *io, unsigned dev, unsigned long long sector, int64_t ts)
{
    if (io->ninflight >= IOLAT_MAX_INFLIGHT)
        forget_issued_before(io, ts - IOLAT_STALE_NS);
    if (io->ninflight >= IOLAT_MAX_INFLIGHT) {
        io->untracked++;
        return;
    }
    inflight **p = slot(io, dev, sector);
    while (*p != NULL)
        p = &(*p)->next;
    *p = xmalloc(sizeof **p);
    (*p)->dev = dev;
    (*p)->sector = sector;
    (*p)->ts = ts;
    (*p)->next = NULL;
    io->ninflight++;
}

/* A request put back to be issued again: its issue so far is not its
 * start (iolat.stp's issued[$rq] is overwritten by the next issue). */
static void on_requeue(iolat *io, unsigned dev, unsigned long long sector)
{
    inflight **p = slot(io, dev, sector);
    inflight *r = *p;
    if (r != NULL) {
        *p = r->next;
        free(r);
        io->ninflight--;
    }
}

static void on_complete(iolat *io, unsigned dev, unsigned maj, unsigned min,
                        unsigned long long sector, unsigned nr_sector, const char *rwbs,
                        int error, int64_t ts)
{
    inflight **p = slot(io, dev, sector);
    inflight *r = *p;
    if (r == NULL) {
        io->untimed++;               /* issued before the run, or not kept */
        return;
    }
    *p = r->next;
    io->ninflight--;
    int64_t d = ts - r->ts;
    free(r);
    if (d < 0) {
        io->untimed++;               /* an earlier request to the same sector */
        return;
    }
    const char *dir = strchr(rwbs, 'R') ? "read" : strchr(rwbs, 'W') ? "write" : "other";
    io_key *k = key_of(io, disk_of(io, dev, maj, min), dir);
    k->requests++;
    k->bytes += (uint64_t)nr_sector * 512;
    k->time += (uint64_t)d;
    if ((uint64_t)d > k->max)
        k->max = (uint64_t)d;
    perf_source_hist_add(k->hist, (uint64_t)d);
    perf_source_hist_add(io->hist, (uint64_t)d);
    io->requests++;
    if (error) {
        k->errors++;
        io->errors++;
    }
}

/* The time of a trace line, "SEC.FRACTION" before ": EVENT: ", in ns. */
static bool line_time(const char *line, const char *event_at, int64_t *ts)
{
    const char *end = event_at;              /* at ": EVENT: " */
    const char *p = end;
    while (p > line && p[-1] != ' ')
        p--;
    const char *dot = memchr(p, '.', (size_t)(end - p));
    /* (12 digits of seconds are 31,000 years of uptime: more is not a time
     * and would overflow) */
    if (dot == NULL || dot == p || dot - p > 12)
        return false;
    int64_t sec = 0, frac = 0, scale = 1000000000;
    for (const char *q = p; q < dot; q++) {
        if (*q < '0' || *q > '9')
            return false;
        sec = sec * 10 + (*q - '0');
    }
    for (const char *q = dot + 1; q < end; q++) {
        if (*q < '0' || *q > '9')
            return false;
        if (scale > 1) {
            scale /= 10;
            frac += (*q - '0') * scale;
        }
    }
    *ts = sec * 1000000000LL + frac;
    return true;
}

/* A line of trace_pipe:
 *   COMM-PID [CPU] FLAGS SEC.USEC: block_rq_issue: MAJ,MIN RWBS BYTES (CMD) SECTOR + NR ...
 *   COMM-PID [CPU] FLAGS SEC.USEC: block_rq_complete: MAJ,MIN RWBS (CMD) SECTOR + NR ... [ERROR]
 *   COMM-PID [CPU] FLAGS SEC.USEC: block_rq_requeue: MAJ,MIN RWBS (CMD) SECTOR + NR ...
 * (kernels differ in what follows NR: 6.1 prints the comm or error at
 * once, later ones an I/O priority first).  CMD may hold blanks: the
 * sector is what follows its closing ") ". */
static bool parse_line(iolat *io, const char *s)
{
    const char *at = strstr(s, ": block_rq_issue: ");
    bool issue = at != NULL, requeue = false;
    if (at == NULL && (at = strstr(s, ": block_rq_requeue: ")) != NULL)
        requeue = true;
    if (at == NULL)
        at = strstr(s, ": block_rq_complete: ");
    int64_t ts;
    if (at == NULL || !line_time(s, at, &ts))
        return false;
    const char *f = strchr(at + 2, ' ') + 1;     /* after "EVENT: " */
    unsigned maj, min;
    char rwbs[16];
    if (sscanf(f, "%u,%u %15s", &maj, &min, rwbs) != 3)
        return false;
    const char *cmd = strstr(f, " (");
    const char *close = cmd ? strstr(cmd, ") ") : NULL;
    unsigned long long sector;
    unsigned nr;
    if (close == NULL || sscanf(close + 2, "%llu + %u", &sector, &nr) != 2)
        return false;
    unsigned dev = (maj << 20) | min;
    /* A flush ("FF") is issued at sector 0 and completes at sector -1:
     * flushes are known by their device alone.  A write with a preflush
     * or FUA completes twice: its data (at its sector), then, at the end
     * of the flush sequence, once more with nothing left ("WS () 0 + 0");
     * that second one is not a request (iolat.stp, keyed by the request,
     * skips it too). */
    if (rwbs[0] == 'F')
        sector = ~0ULL;
    else if (!issue && !requeue && nr == 0)
        return true;
    if (issue) {
        on_issue(io, dev, sector, ts);
    } else if (requeue) {
        on_requeue(io, dev, sector);
    } else {
        const char *br = strrchr(close, '[');
        int error = br ? atoi(br + 1) : 0;
        on_complete(io, dev, maj, min, sector, nr, rwbs, error, ts);
    }
    return true;
}

/* ---- data.json ------------------------------------------------------------ */

char *iolat_trace_data(const iolat_trace *io)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "{\n  \"requests\": %llu,\n  \"errors\": %llu,\n  \"latency\": ",
              (unsigned long long)io->requests, (unsigned long long)io->errors);
    perf_source_hist_log(&sb, io->hist);
    sb_adds(&sb, ",\n  \"devices\": [");
    for (size_t i = 0; i < io->nkeys; i++) {
        const io_key *k = &io->keys[i];
        sb_adds(&sb, i ? ",\n    {\"__id\": \"" : "\n    {\"__id\": \"");
        json_escape(&sb, k->id, strlen(k->id));
        sb_printf(&sb, "\", \"requests\": %llu, \"bytes\": %llu, \"errors\": %llu, "
                  "\"time\": %llu, \"max\": %llu}", (unsigned long long)k->requests,
                  (unsigned long long)k->bytes, (unsigned long long)k->errors,
                  (unsigned long long)k->time, (unsigned long long)k->max);
    }
    sb_adds(&sb, io->nkeys ? "\n  ]" : "]");
    for (size_t i = 0; i < io->nkeys; i++) {
        sb_printf(&sb, ",\n  \"%s\": ", io->keys[i].hist_name);
        perf_source_hist_log(&sb, io->keys[i].hist);
    }
    sb_adds(&sb, ",\n  \"omitted\": 0\n}\n");
    return sb_steal(&sb);
}

/* ---- the reader's interface ------------------------------------------------ */

iolat_trace *iolat_trace_new(const char *sys_root)
{
    iolat *io = xcalloc(1, sizeof *io);
    io->sys_root = xstrdup(sys_root ? sys_root : "");
    return io;
}

bool iolat_trace_line(iolat_trace *io, const char *s, size_t n)
{
    strbuf line = STRBUF_INIT;
    sb_add(&line, s, n);
    const char *lost = strstr(line.buf ? line.buf : "", "[LOST ");
    if (lost) {
        io->lost += strtoull(lost + 6, NULL, 10);
        /* Any completion may be among the lost: a request still in flight
         * would take a later one of its key (oldest first), and every
         * flush after it would be timed from the one before.  Pairing
         * starts again; what completes of the forgotten counts untimed. */
        forget_issued_before(io, INT64_MAX);
    } else if (n > 0 && !parse_line(io, line.buf))
        io->unparsed++;
    sb_free(&line);
    bool changed = io->meta_changed;
    io->meta_changed = false;
    return changed;
}

void iolat_trace_counts(const iolat_trace *io, iolat_counts *c)
{
    c->requests = io->requests;
    c->errors = io->errors;
    c->untracked = io->untracked;
    c->untimed = io->untimed;
    c->lost = io->lost;
    c->unparsed = io->unparsed;
    c->rows = io->nkeys;
}

void iolat_trace_free(iolat_trace *io)
{
    if (io == NULL)
        return;
    forget_issued_before(io, INT64_MAX);
    for (size_t i = 0; i < io->nkeys; i++) {
        free(io->keys[i].id);
        free(io->keys[i].hist_name);
    }
    free(io->keys);
    while (io->disks) {
        disk_name *d = io->disks;
        io->disks = d->next;
        free(d->name);
        free(d);
    }
    free(io->sys_root);
    free(io);
}
