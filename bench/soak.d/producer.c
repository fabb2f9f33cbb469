/* producer: the soak's event source, records at a steady rate.
 *
 *   producer DIR RATE SECONDS STATEFILE [MAX_PENDING [STACKS]]
 *
 * Generates RATE records per second (paced on the monotonic clock, every
 * 10 ms) for SECONDS, or until SIGTERM/SIGINT, and hands them to the PMDA
 * through DIR/data.json the way a SystemTap module's buffer does: records
 * wait in a bounded buffer (MAX_PENDING records, default 30,000, so a
 * document stays far below max_document_size) until the reader has taken
 * the previous document; a record generated while the buffer is full is
 * dropped and counted in the document's "dropped" total, without taking a
 * sequence number (the PMDA adds the growth of "dropped" to its lost count).
 *
 * "Taken" means inotify reported IN_CLOSE_NOWRITE on data.json after the
 * document was renamed into place: the PMDA re-reads a regular file only
 * when it changed, so that close is its read of this document.  If no
 * read is seen within 3 s the document is written again with its records
 * plus the new ones (nothing is thrown away unread; had the PMDA read it
 * after all, it counts the repeats as duplicates).  A new document is
 * written at most every 50 ms.
 *
 * At the end no new records are generated; the buffer is flushed and the
 * last document's read awaited (up to 15 s).  Every second, and at the
 * end, STATEFILE is replaced (atomically) by one line:
 *
 *   generated G written W dropped D last_seq L documents N rewrites R
 *   pending P unconfirmed U seconds S cpu C done 0|1
 *
 * generated = written + dropped; written records carry seq 1..L (L = W).
 * Records look like stap/profile.stp's (seq, ts in ns, pid, tid, cpu,
 * comm, folded stack) with STACKS (default 2000) distinct stacks of 8..15
 * frames, drawn pseudo-randomly.
 * Build: cc -O2 -o producer producer.c */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
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

static int64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const char *fn[] = {"do_syscall_64", "entry_SYSCALL_64", "ksys_read", "vfs_read",
                           "ext4_file_read_iter", "filemap_read", "copy_page_to_iter",
                           "schedule", "__schedule", "pick_next_task_fair", "main",
                           "run_loop", "handle_request", "parse_json", "hash_lookup",
                           "memcpy", "compress_block", "write_output", "poll_events",
                           "dispatch"};

typedef struct {
    int64_t seq, ts;
    int stack;
} rec;

static rec *buf;          /* ring of records not yet confirmed read */
static long cap, head, count, inflight;   /* inflight: first `inflight` of
                                             the ring are in data.json */
static char (*stacks)[400];
static long nstacks = 2000;
static char path[4096], tmp[4096], state[4096], statetmp[4096];
static long long generated, written, dropped, docs, rewrites;
static double t0;

static void write_state(int done)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    FILE *f = fopen(statetmp, "w");
    if (f == NULL)
        return;
    fprintf(f, "generated %lld written %lld dropped %lld last_seq %lld documents %lld "
               "rewrites %lld pending %ld unconfirmed %ld seconds %.3f cpu %.2f done %d\n",
            generated, written, dropped, written, docs, rewrites, count - inflight, inflight,
            mono() - t0,
            ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
                (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6, done);
    fclose(f);
    rename(statetmp, state);
}

/* data.json := every buffered record (the unconfirmed ones again, if any) */
static int write_doc(void)
{
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "{\"dropped\": %lld, \"samples\": [", dropped);
    for (long i = 0; i < count; i++) {
        rec *r = &buf[(head + i) % cap];
        fprintf(f, "%s\n{\"seq\": %lld, \"ts\": %lld, \"pid\": %lld, \"tid\": %lld, \"cpu\": %lld, "
                   "\"comm\": \"soak\", \"stack\": \"%s\"}",
                i ? "," : "", (long long)r->seq, (long long)r->ts, (long long)(1000 + r->seq % 7),
                (long long)(1000 + r->seq % 13), (long long)(r->seq % 2), stacks[r->stack]);
    }
    fputs("]}\n", f);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return -1;
    docs++;
    inflight = count;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7) {
        fprintf(stderr, "usage: producer DIR RATE SECONDS STATEFILE [MAX_PENDING [STACKS]]\n");
        return 2;
    }
    const char *dir = argv[1];
    double rate = atof(argv[2]), secs = atof(argv[3]);
    cap = argc > 5 ? atol(argv[5]) : 30000;
    if (argc > 6)
        nstacks = atol(argv[6]);
    if (rate <= 0 || cap < 1 || nstacks < 1) {
        fprintf(stderr, "producer: bad arguments\n");
        return 2;
    }
    snprintf(path, sizeof(path), "%s/data.json", dir);
    snprintf(tmp, sizeof(tmp), "%s/.data.json.tmp", dir);
    snprintf(state, sizeof(state), "%s", argv[4]);
    snprintf(statetmp, sizeof(statetmp), "%s.tmp", argv[4]);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, dir, IN_CLOSE_NOWRITE) < 0) {
        perror("producer: inotify");
        return 1;
    }
    buf = malloc(cap * sizeof(*buf));
    stacks = malloc(nstacks * sizeof(*stacks));
    if (buf == NULL || stacks == NULL) {
        perror("producer");
        return 1;
    }
    srand(42);
    for (long s = 0; s < nstacks; s++) {
        int nf = 8 + rand() % 8, k = 0;
        k += snprintf(stacks[s] + k, sizeof(stacks[s]) - k, "main");
        for (int f = 1; f < nf; f++)
            k += snprintf(stacks[s] + k, sizeof(stacks[s]) - k, ";%s%s", fn[rand() % 20],
                          f >= nf - 3 ? "_[k]" : "");
        snprintf(stacks[s] + k, sizeof(stacks[s]) - k, ";leaf%ld", s);
    }
    unsigned rng = 12345;
    t0 = mono();
    double last_write = 0, last_state = 0, flush_deadline = 0;
    int64_t last_ts = 0;
    int confirmed = 1, ending = 0;
    for (;;) {
        double now = mono();
        if (!ending && (stop || now - t0 >= secs)) {
            ending = 1;
            flush_deadline = now + 15;
        }
        if (!ending) {
            /* records due by now */
            long long due = (long long)((now - t0) * rate);
            int64_t ts = wall_ns();
            for (; generated < due; generated++) {
                if (count == cap) {
                    dropped++;
                    continue;
                }
                rec *r = &buf[(head + count++) % cap];
                r->seq = ++written;
                /* strictly increasing, never ahead of the wall clock */
                r->ts = ts > last_ts ? ts : last_ts + 1;
                last_ts = r->ts;
                rng = rng * 1103515245u + 12345u;
                r->stack = (int)((rng >> 8) % (unsigned)nstacks);
            }
        } else if (confirmed && count == 0) {
            break;                          /* everything was read */
        } else if (now > flush_deadline) {
            break;                          /* the reader went away */
        }
        /* has the PMDA read the document? */
        char ev[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n;
        while ((n = read(in, ev, sizeof(ev))) > 0)
            for (char *q = ev; q < ev + n;) {
                struct inotify_event *e = (struct inotify_event *)q;
                if (e->len > 0 && strcmp(e->name, "data.json") == 0 && !confirmed) {
                    confirmed = 1;
                    head = (head + inflight) % cap;
                    count -= inflight;
                    inflight = 0;
                }
                q += sizeof(*e) + e->len;
            }
        now = mono();
        if (count > 0 && ((confirmed && now - last_write >= 0.05) || (!confirmed && now - last_write >= 3))) {
            if (!confirmed)
                rewrites++;
            if (write_doc() != 0) {
                perror(tmp);
                return 1;
            }
            confirmed = 0;
            last_write = now;
        }
        if (now - last_state >= 1) {
            write_state(0);
            last_state = now;
        }
        struct pollfd p = {in, POLLIN, 0};
        poll(&p, 1, 10);
    }
    write_state(1);
    return 0;
}
