/* parse1m: in-process cost of one relay read+parse of a large SystemTap
 * events document served by qa/fuse/stapfs (bench/stap/run part 2).
 *
 *   parse1m ROOT SCRIPT MODULE STAGE N
 *
 * Links relay/ directly (no PCP).  ROOT is the stapfs mount (a SystemTap
 * root), SCRIPT its script directory, MODULE a module whose data.json is a
 * drained document; STAGE holds doc.1 .. doc.N (large event documents).
 * One untimed relay_poll() finds the module; then for each document: a
 * timed poll of the drained document (baseline), then the document is
 * queued (moved to SCRIPT/MODULE/data.json.K: the next open serves it)
 * and the next relay_poll() is timed: discovery, metadata re-read, open,
 * read through FUSE, JSON parse, snapshot, event ingest.  Wall time
 * (CLOCK_MONOTONIC) and this process's CPU (CLOCK_PROCESS_CPUTIME_ID; the
 * stapfs daemon's CPU is not included) per poll, median of N.
 * Prints one "key value" line per figure. */
#include "relay/config.h"
#include "relay/events.h"
#include "relay/relay.h"
#include "relay/source.h"

#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void timed_poll(relay *r, double *wall, double *cpu)
{
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    relay_poll(r);
    *cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *wall = now(CLOCK_MONOTONIC) - w0;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: parse1m ROOT SCRIPT MODULE STAGE N\n");
        return 2;
    }
    const char *root = argv[1], *script = argv[2], *module = argv[3], *stage = argv[4];
    int n = atoi(argv[5]);
    if (n < 1 || n > 100)
        return 2;
    relay_config *cfg = config_new_default();
    cfg->stap_roots = calloc(1, sizeof(char *));
    cfg->stap_roots[0] = strdup(root);
    cfg->nstap_roots = 1;
    relay *r = relay_new(EV_DEFAULT, cfg, NULL, NULL);
    relay_poll(r);
    if (r->nsources != 1 || r->sources[0]->meta == NULL || r->sources[0]->streams == NULL) {
        fprintf(stderr, "parse1m: module %s not found under %s (or no event metric)\n", module, root);
        return 1;
    }
    double *bw = calloc(n, sizeof(double)), *bc = calloc(n, sizeof(double));
    double *dw = calloc(n, sizeof(double)), *dc = calloc(n, sizeof(double));
    long long bytes = 0;
    uint64_t rec0 = 0, gen0;
    for (size_t i = 0; i < r->sources[0]->meta->nevents; i++)
        rec0 += r->sources[0]->streams[i]->received;
    int updates = 0;
    for (int k = 1; k <= n; k++) {
        char from[4096], to[4096];
        struct stat st;
        timed_poll(r, &bw[k - 1], &bc[k - 1]);
        snprintf(from, sizeof(from), "%s/doc.%d", stage, k);
        snprintf(to, sizeof(to), "%s/%s/data.json.%d", script, module, k);
        if (stat(from, &st) != 0 || rename(from, to) != 0) {
            perror(from);
            return 1;
        }
        bytes += st.st_size;
        gen0 = r->sources[0]->generation;
        timed_poll(r, &dw[k - 1], &dc[k - 1]);
        updates += r->sources[0]->generation != gen0 && r->sources[0]->state == SRC_OK;
    }
    uint64_t rec = 0;
    for (size_t i = 0; i < r->sources[0]->meta->nevents; i++)
        rec += r->sources[0]->streams[i]->received;
    rec -= rec0;
    printf("documents %d\n", n);
    printf("bytes_per_document %lld\n", bytes / n);
    printf("records_per_document %.0f\n", (double)rec / n);
    printf("updates %d\n", updates);
    printf("parse_errors %llu\n", (unsigned long long)r->sources[0]->stats.parse_errors);
    printf("wall_ms %.2f\n", median(dw, n) * 1e3);
    printf("cpu_ms %.2f\n", median(dc, n) * 1e3);
    printf("baseline_wall_ms %.2f\n", median(bw, n) * 1e3);
    printf("baseline_cpu_ms %.2f\n", median(bc, n) * 1e3);
    relay_free(r);
    return 0;
}
