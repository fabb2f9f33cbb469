/* qa/vm/workload: load for the bundled SystemTap scripts in the test VM.
 *
 *   workload cpu SECONDS        CPU loops in three functions of their own
 *                               (sr_spin_alpha/beta/gamma, under
 *                               sr_cpu_main) and reads of /dev/zero
 *                               (kernel time, sr_kernel_work), for profile
 *   workload block SECONDS      sleeps and blocking pipe reads
 *                               (sr_wait_sleep, sr_wait_pipe; a child,
 *                               sr_writer_main, writes the pipe), for
 *                               offcpu and offwake
 *   workload sweep ROUNDS       every system call number 0..SR_MAX_NR,
 *                               ROUNDS times (each in a child, with invalid
 *                               arguments: mostly errors); the numbers
 *                               that returned are listed in
 *                               $SR_SYSCALL_LIST
 *   workload syscalls SECONDS   common calls, some failing (ENOENT,
 *                               EBADF), until SECONDS
 *   workload io DEVICE SECONDS  O_DIRECT reads and writes of several sizes
 *                               on DEVICE, for iolat
 *   workload hotcold SECONDS    two threads of one process: "spinner"
 *                               loops on CPU (sr_hot_spin), "napper"
 *                               sleeps 20 ms at a time (sr_cold_nap), for
 *                               hotcold
 *
 * With $SR_START_FILE set, a mode starts once that file exists (vm 070:
 * the block mode's writer child must fork after the module loads).
 *
 * Built with frame pointers and without inlining (qa/vm/run) so that
 * user stacks name these functions.  Prints one summary line. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SR_MAX_NR 470
#define NOINLINE __attribute__((noinline))

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

NOINLINE static uint64_t sr_spin_gamma(uint64_t n)
{
    uint64_t x = n;
    for (uint64_t i = 0; i < 200000; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

NOINLINE static uint64_t sr_spin_beta(uint64_t n)
{
    uint64_t x = n;
    for (uint64_t i = 0; i < 100000; i++)
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x + sr_spin_gamma(x);
}

NOINLINE static uint64_t sr_spin_alpha(uint64_t n)
{
    uint64_t x = n;
    for (uint64_t i = 0; i < 300000; i++)
        x += i * i;
    return x;
}

/* Time in the kernel too (zeroing a buffer for read(2) of /dev/zero),
 * so that some samples have kernel frames under user ones. */
NOINLINE static void sr_kernel_work(int fd, char *buf, size_t n)
{
    if (read(fd, buf, n) < 0)
        sink++;
}

NOINLINE static int sr_cpu_main(double secs)
{
    double end = now() + secs;
    uint64_t rounds = 0;
    static char zbuf[1 << 20];
    int zero = open("/dev/zero", O_RDONLY);
    while (now() < end) {
        sink += sr_spin_alpha(rounds);
        sink += sr_spin_beta(rounds);
        if (zero >= 0)
            sr_kernel_work(zero, zbuf, sizeof zbuf);
        rounds++;
    }
    if (zero >= 0)
        close(zero);
    printf("cpu: %llu rounds\n", (unsigned long long)rounds);
    return 0;
}

NOINLINE static void sr_wait_sleep(long usec)
{
    struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

NOINLINE static ssize_t sr_wait_pipe(int fd)
{
    char c;
    return read(fd, &c, 1);
}

/* The waker of the pipe reads (off-wake graphs): sr_wake_pipe's own
 * frame is lost to perf's unwinder (libc's write has no frame pointer),
 * sr_writer_main is seen. */
NOINLINE static ssize_t sr_wake_pipe(int fd)
{
    return write(fd, "x", 1);
}

NOINLINE static void sr_writer_main(int fd)
{
    for (;;) {
        sr_wait_sleep(6000);
        if (sr_wake_pipe(fd) != 1)
            _exit(0);
    }
}

NOINLINE static int sr_block_main(double secs)
{
    int p[2];
    if (pipe(p) != 0)
        return 1;
    pid_t child = fork();
    if (child == 0) {
        /* the writer: one byte every 6 ms.  That is slower than the
         * reader's loop without the read (2-3 ms of sleep), so every read
         * finds the pipe empty and blocks for 3-4 ms, above offcpu.stp's
         * 1 ms threshold: both waits are recorded, about as often.  (A
         * writer faster than the reader filled the pipe ahead of it, and
         * almost no read blocked.) */
        close(p[0]);
        sr_writer_main(p[1]);
    }
    close(p[1]);
    double end = now() + secs;
    unsigned long sleeps = 0, reads = 0;
    while (now() < end) {
        sr_wait_sleep(2000 + (long)(sleeps % 3) * 500);
        sleeps++;
        if (sr_wait_pipe(p[0]) == 1)
            reads++;
    }
    close(p[0]);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    printf("block: %lu sleeps, %lu pipe reads\n", sleeps, reads);
    return 0;
}

/* Calls that would stop or confuse the caller even with bad arguments,
 * or that are slow to give up: not made. */
static int skipped(long nr)
{
    switch (nr) {
    case SYS_fork: case SYS_vfork: case SYS_clone: case SYS_clone3:
    case SYS_vhangup:
    case SYS_rt_sigreturn:      /* a bad frame: a fault, logged by the kernel */
        return 1;
    default:
        return 0;
    }
}

/* Every number 0..SR_MAX_NR, ROUNDS times over; the numbers whose call
 * returned (the child exited by itself, not killed by a signal: exit,
 * exit_group and pause never return) go to $SR_SYSCALL_LIST. */
NOINLINE static int sr_sweep_main(int rounds)
{
    long made = 0, returned = 0;
    static unsigned char ok[SR_MAX_NR + 1];
    for (int r = 0; r < rounds; r++) {
        for (long nr = 0; nr <= SR_MAX_NR; nr++) {
            if (skipped(nr))
                continue;
            pid_t c = fork();
            if (c == 0) {
                alarm(1);     /* pause() and friends */
                syscall(nr, -1L, -1L, -1L, -1L, -1L, -1L);
                _exit(0);
            }
            int st;
            if (c > 0 && waitpid(c, &st, 0) == c) {
                made++;
                /* exit(-1) and exit_group(-1) exit with 255 */
                if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && !ok[nr]) {
                    ok[nr] = 1;
                    returned++;
                }
            }
        }
    }
    const char *path = getenv("SR_SYSCALL_LIST");
    FILE *list = path ? fopen(path, "w") : NULL;
    for (long nr = 0; list && nr <= SR_MAX_NR; nr++)
        if (ok[nr])
            fprintf(list, "%ld\n", nr);
    if (list)
        fclose(list);
    printf("sweep: %ld calls, %ld numbers returned\n", made, returned);
    return 0;
}

/* Common calls until the time is up, some failing (ENOENT, EBADF). */
NOINLINE static int sr_syscalls_main(double secs)
{
    double end = now() + secs;
    unsigned long rounds = 0, failed = 0;
    char buf[256];
    while (now() < end) {
        int fd = open("/proc/self/stat", O_RDONLY);
        if (fd >= 0) {
            if (read(fd, buf, sizeof buf) < 0)
                failed++;
            close(fd);
        }
        if (open("/nonexistent/staprelay", O_RDONLY) < 0)
            failed++;
        if (close(-1) < 0)
            failed++;
        struct stat st;
        stat("/", &st);
        getpid();
        sr_wait_sleep(200);
        rounds++;
    }
    printf("syscalls: %lu rounds, %lu failed calls\n", rounds, failed);
    return 0;
}

NOINLINE static int sr_io_main(const char *dev, double secs)
{
    int fd = open(dev, O_RDWR | O_DIRECT);
    if (fd < 0) {
        fprintf(stderr, "io: %s: %s\n", dev, strerror(errno));
        return 1;
    }
    void *buf;
    if (posix_memalign(&buf, 4096, 1 << 20) != 0)
        return 1;
    memset(buf, 0x5a, 1 << 20);
    static const size_t sizes[] = { 4096, 16384, 65536, 262144 };
    off_t span = 32 << 20;
    double end = now() + secs;
    unsigned long reads = 0, writes = 0, i = 0;
    while (now() < end) {
        size_t sz = sizes[i % 4];
        off_t off = (off_t)((i * 7919 * 4096) % (unsigned long)(span - (off_t)sz)) & ~(off_t)4095;
        if (i % 3 == 0) {
            if (pwrite(fd, buf, sz, off) == (ssize_t)sz)
                writes++;
        } else if (pread(fd, buf, sz, off) == (ssize_t)sz) {
            reads++;
        }
        i++;
        if (i % 16 == 0)
            sr_wait_sleep(1000);
    }
    close(fd);
    free(buf);
    printf("io: %lu reads, %lu writes\n", reads, writes);
    return 0;
}

/* hotcold: the spinner thread, on CPU until the end */
NOINLINE static void *sr_hot_spin(void *arg)
{
    double end = *(const double *)arg;
    uint64_t rounds = 0;
    pthread_setname_np(pthread_self(), "spinner");
    while (now() < end)
        sink += sr_spin_alpha(rounds++);
    return NULL;
}

NOINLINE static void sr_cold_nap(void)
{
    sr_wait_sleep(20000);
}

NOINLINE static int sr_hotcold_main(double secs)
{
    double end = now() + secs;
    pthread_t spinner;
    if (pthread_create(&spinner, NULL, sr_hot_spin, &end) != 0) {
        perror("pthread_create");
        return 1;
    }
    pthread_setname_np(pthread_self(), "napper");
    unsigned long naps = 0;
    while (now() < end) {
        sr_cold_nap();
        naps++;
    }
    pthread_join(spinner, NULL);
    printf("hotcold: %lu naps\n", naps);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *start = getenv("SR_START_FILE");
    while (start != NULL && access(start, F_OK) != 0)
        sr_wait_sleep(10000);
    if (argc == 3 && strcmp(argv[1], "cpu") == 0)
        return sr_cpu_main(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "block") == 0)
        return sr_block_main(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "syscalls") == 0)
        return sr_syscalls_main(atof(argv[2]));
    if (argc == 3 && strcmp(argv[1], "sweep") == 0)
        return sr_sweep_main(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "hotcold") == 0)
        return sr_hotcold_main(atof(argv[2]));
    if (argc == 4 && strcmp(argv[1], "io") == 0)
        return sr_io_main(argv[2], atof(argv[3]));
    fprintf(stderr, "usage: workload cpu|block|syscalls|hotcold SECONDS | sweep ROUNDS | io DEVICE SECONDS\n");
    return 2;
}
