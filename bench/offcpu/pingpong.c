/* bench/offcpu/pingpong: a context-switch-heavy load for the off-CPU
 * tracers' overhead: two processes pinned to one CPU hand a byte back and
 * forth over two pipes, so every hand-over blocks one and wakes the
 * other (two context switches a round trip, each a sched_switch and a
 * sched_waking that a tracer sees, each switch-out with a blocked stack).
 *
 *   pingpong ROUNDS [CPU]
 *
 * Prints "rounds R switches S wall_ns W": S is the two processes'
 * context switches (/proc/PID/status: voluntary ones, and the
 * non-voluntary ones of a writer preempted by the reader it woke), W the
 * parent's
 * monotonic time for the ROUNDS round trips. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long switches(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long v = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
            v += atol(line + 24);
        if (strncmp(line, "nonvoluntary_ctxt_switches:", 27) == 0)
            v += atol(line + 27);
    }
    if (f)
        fclose(f);
    return v;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pingpong ROUNDS [CPU]\n");
        return 2;
    }
    long rounds = atol(argv[1]);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(argc > 2 ? atoi(argv[2]) : 0, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        perror("sched_setaffinity");
    int ab[2], ba[2];
    if (pipe(ab) != 0 || pipe(ba) != 0)
        return 1;
    char c = 0;
    pid_t child = fork();
    if (child == 0) {
        for (;;) {
            if (read(ab[0], &c, 1) != 1)
                _exit(0);
            if (write(ba[1], &c, 1) != 1)
                _exit(1);
        }
    }
    long before = switches(getpid()) + switches(child);
    long long t0 = now_ns();
    for (long i = 0; i < rounds; i++)
        if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
            return 1;
    long long t1 = now_ns();
    long after = switches(getpid()) + switches(child);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    printf("rounds %ld switches %ld wall_ns %lld\n", rounds, after - before, t1 - t0);
    return 0;
}
