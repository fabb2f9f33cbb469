/* producer: writes event records for bench/events/run as fast as the PMDA
 * takes them.
 *
 *   producer DIR TOTAL BATCH SECONDS DONEFILE [PROGRESSFILE WINDOW]
 *
 * Writes DIR/data.json atomically (temp file + rename), BATCH records per
 * document with increasing sequence numbers, then waits (inotify,
 * IN_CLOSE_NOWRITE on data.json) until a reader -- the PMDA -- has read it
 * before writing the next one, so no document is replaced unread: records
 * are produced exactly as fast as the PMDA ingests them.  A document that
 * is not read within 2 s is replaced anyway (the PMDA would count a gap as
 * lost).  Stops after TOTAL records or SECONDS, then creates DONEFILE with
 * "records N seconds S".  TOTAL 0 = no limit.  With PROGRESSFILE (a count
 * of records a client has taken, written by evclient -P) the producer
 * also waits until no more than WINDOW records are outstanding: the
 * fastest rate the whole path sustains without loss.
 *
 * Records look like stap/profile.stp's: seq, ts (ns), pid, tid, cpu, comm
 * and a folded stack drawn from 1000 distinct stacks of 8..15 frames.
 * Build: cc -O2 -o producer producer.c */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *fn[] = {"do_syscall_64", "entry_SYSCALL_64", "ksys_read", "vfs_read",
                           "ext4_file_read_iter", "filemap_read", "copy_page_to_iter",
                           "schedule", "__schedule", "pick_next_task_fair", "main",
                           "run_loop", "handle_request", "parse_json", "hash_lookup",
                           "memcpy", "compress_block", "write_output", "poll_events",
                           "dispatch"};

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 8) {
        fprintf(stderr, "usage: producer DIR TOTAL BATCH SECONDS DONEFILE [PROGRESS WINDOW]\n");
        return 2;
    }
    const char *dir = argv[1];
    long total = atol(argv[2]), batch = atol(argv[3]);
    double secs = atof(argv[4]);
    char path[4096], tmp[4096];
    snprintf(path, sizeof(path), "%s/data.json", dir);
    snprintf(tmp, sizeof(tmp), "%s/.data.json.tmp", dir);

    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, dir, IN_CLOSE_NOWRITE) < 0) {
        perror("inotify");
        return 1;
    }
    /* stack texts */
    static char stacks[1000][400];
    srand(42);
    for (int s = 0; s < 1000; s++) {
        int nf = 8 + rand() % 8, k = 0;
        k += snprintf(stacks[s] + k, sizeof(stacks[s]) - k, "main");
        for (int f = 1; f < nf; f++)
            k += snprintf(stacks[s] + k, sizeof(stacks[s]) - k, ";%s%s", fn[rand() % 20],
                          f >= nf - 3 ? "_[k]" : "");
        snprintf(stacks[s] + k, sizeof(stacks[s]) - k, ";leaf%d", s);
    }
    size_t cap = (size_t)batch * 600 + 64;
    char *buf = malloc(cap);
    long seq = 0, docs = 0, unread = 0;
    double t0 = now();
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    int64_t ts = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
    const char *progress = argc == 8 ? argv[6] : NULL;
    long window = argc == 8 ? atol(argv[7]) : 0;
    long waits = 0;
    while ((total == 0 || seq < total) && now() - t0 < secs) {
        while (progress != NULL && now() - t0 < secs) {
            FILE *pf = fopen(progress, "r");
            long taken = 0;
            if (pf != NULL) {
                if (fscanf(pf, "%ld", &taken) != 1)
                    taken = 0;
                fclose(pf);
            }
            if (seq - taken <= window)
                break;
            waits++;
            usleep(500);
        }
        size_t k = 0;
        k += snprintf(buf + k, cap - k, "{\"dropped\": 0, \"samples\": [");
        for (long i = 0; i < batch && (total == 0 || seq < total); i++) {
            seq++;
            ts += 10000;
            k += snprintf(buf + k, cap - k,
                          "%s\n{\"seq\": %ld, \"ts\": %lld, \"pid\": %ld, \"tid\": %ld, \"cpu\": %ld, "
                          "\"comm\": \"bench\", \"stack\": \"%s\"}",
                          i ? "," : "", seq, (long long)ts, 1000 + seq % 7, 1000 + seq % 13,
                          seq % 2, stacks[seq % 1000]);
        }
        k += snprintf(buf + k, cap - k, "]}\n");
        FILE *f = fopen(tmp, "w");
        if (f == NULL || fwrite(buf, 1, k, f) != k || fclose(f) != 0 || rename(tmp, path) != 0) {
            perror(tmp);
            return 1;
        }
        docs++;
        /* wait until data.json was read (and closed) by someone */
        double deadline = now() + 2.0;
        int seen = 0;
        while (!seen && now() < deadline) {
            struct pollfd p = {in, POLLIN, 0};
            if (poll(&p, 1, 100) <= 0)
                continue;
            char ev[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
            ssize_t n;
            while ((n = read(in, ev, sizeof(ev))) > 0) {
                for (char *q = ev; q < ev + n;) {
                    struct inotify_event *e = (struct inotify_event *)q;
                    if (e->len > 0 && strcmp(e->name, "data.json") == 0)
                        seen = 1;
                    q += sizeof(*e) + e->len;
                }
            }
        }
        if (!seen)
            unread++;
    }
    double el = now() - t0;
    FILE *d = fopen(argv[5], "w");
    if (d != NULL) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(d, "records %ld seconds %.3f documents %ld unread %ld waits %ld cpu %.2f\n", seq, el,
                docs, unread, waits,
                ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
        fclose(d);
    }
    return 0;
}
