/* writer: the soak's plain (pmdajson-style) sources.
 *
 *   writer INTERVAL SECONDS STATEFILE DIR...
 *
 * Every INTERVAL seconds, for SECONDS (or until SIGTERM/SIGINT), replaces
 * each DIR's data document atomically (temp file + rename) with new
 * values: DIR/data.json, or DIR/data.live.json when DIR/metadata.json
 * names a data-exec command (the soak's data-exec source cats that file).
 * The writes to the N directories are spread over the interval.
 *
 * Source k (1-based, the order of the DIRs) gets:
 *   tick     integer counter, +1 per write (a stuck source shows here)
 *   load     double, changes every write
 *   state    string, cycles through 7 texts of varying length
 *   disks[]  2 + k instances "disk N" (names with a space): rx, tx
 *            (counters), util (double)
 *   procs[]  5 + k instances with integer names (pids) drawn as a window
 *            sliding by one pid per write over a pool of 40: instances
 *            come and go all the time, the set of names is bounded
 *   lat      (k <= 3) a 12-bucket histogram with growing counts
 * bench/soak writes the matching metadata.json.
 *
 * STATEFILE is replaced every second and at the end with
 *   "writes W seconds S done 0|1".
 * Build: cc -O2 -o writer writer.c */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *states[] = {"ok", "degraded", "ok", "recovering from \"fault\"",
                               "ok", "busy: 95%", "idle \\ waiting"};

static int write_source(const char *dir, int k, long tick)
{
    char path[4096], tmp[4096], meta[4096];
    snprintf(meta, sizeof(meta), "%s/metadata.json", dir);
    int exec = 0;
    FILE *m = fopen(meta, "r");
    if (m != NULL) {
        char b[8192];
        size_t n = fread(b, 1, sizeof(b) - 1, m);
        b[n] = 0;
        exec = strstr(b, "\"data-exec\"") != NULL;
        fclose(m);
    }
    snprintf(path, sizeof(path), "%s/%s", dir, exec ? "data.live.json" : "data.json");
    snprintf(tmp, sizeof(tmp), "%s/.writer.tmp", dir);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "{\"tick\": %ld, \"load\": %.4f, \"state\": \"", tick,
            k + (tick % 100) / 37.0);
    for (const char *s = states[(tick + k) % 7]; *s; s++)
        fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
    fprintf(f, "\",\n \"disks\": [");
    for (int d = 0; d < 2 + k; d++)
        fprintf(f, "%s{\"name\": \"disk %d\", \"rx\": %ld, \"tx\": %ld, \"util\": %.3f}",
                d ? ", " : "", d, tick * (1000 + d), tick * (500 + 3 * d),
                ((tick * 7 + d * 13) % 1000) / 10.0);
    fprintf(f, "],\n \"procs\": [");
    for (int p = 0; p < 5 + k; p++) {
        long pid = 1000 + (tick + p) % 40;
        fprintf(f, "%s{\"pid\": %ld, \"comm\": \"worker-%ld\", \"rss\": %ld}", p ? ", " : "", pid,
                pid % 9, 4096 + (tick * pid) % 100000);
    }
    fprintf(f, "]");
    if (k <= 3) {
        fprintf(f, ",\n \"lat\": [{\"lo\": 0, \"hi\": 0, \"count\": %ld}", tick);
        for (int b = 0; b < 10; b++)
            fprintf(f, ", {\"lo\": %ld, \"hi\": %ld, \"count\": %ld}", 1L << b, (2L << b) - 1,
                    tick * (10 - b) + k);
        fprintf(f, ", {\"lo\": 1024, \"count\": %ld}]", tick / 3);
    }
    fprintf(f, "}\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: writer INTERVAL SECONDS STATEFILE DIR...\n");
        return 2;
    }
    double interval = atof(argv[1]), secs = atof(argv[2]);
    const char *state = argv[3];
    char statetmp[4096];
    snprintf(statetmp, sizeof(statetmp), "%s.tmp", state);
    int n = argc - 4;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    double t0 = mono(), last_state = 0;
    long writes = 0, tick = 0;
    int done = 0;
    while (!done) {
        tick++;
        for (int k = 0; k < n; k++) {
            double due = t0 + (tick - 1) * interval + interval * k / n;
            double now;
            while ((now = mono()) < due && !stop)
                usleep((useconds_t)((due - now) * 1e6 > 100000 ? 100000 : (due - now) * 1e6 + 1));
            if (stop || now - t0 >= secs) {
                done = 1;
                break;
            }
            if (write_source(argv[4 + k], k + 1, tick) != 0) {
                perror(argv[4 + k]);
                return 1;
            }
            writes++;
            if (now - last_state >= 1) {
                FILE *f = fopen(statetmp, "w");
                if (f != NULL) {
                    fprintf(f, "writes %ld seconds %.3f done 0\n", writes, now - t0);
                    fclose(f);
                    rename(statetmp, state);
                }
                last_state = now;
            }
        }
    }
    FILE *f = fopen(statetmp, "w");
    if (f != NULL) {
        fprintf(f, "writes %ld seconds %.3f done 1\n", writes, mono() - t0);
        fclose(f);
        rename(statetmp, state);
    }
    return 0;
}
