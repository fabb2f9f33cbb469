/* hot: a small CPU workload whose hot functions are known, for `make
 * demo` and the qa tests that profile something real.  Built with frame
 * pointers and symbols (-O0 -g -fno-omit-frame-pointer, every
 * function out of line), so `perf record -g` and SystemTap walk its stacks:
 *
 *   main;hot_run;hot_compute;hot_multiply   about 60-65 % of its CPU
 *   main;hot_run;hot_compute;hot_hash       about 25-30 %
 *   main;hot_run;hot_parse                  about 8-10 %
 *
 * Usage: hot [-c] [SECONDS]  (default 5; fractions allowed).  One
 * thread, so at F Hz a window of T seconds holds at most about F*T
 * samples.  -c: SECONDS of its own CPU time rather than of the clock,
 * so a test that needs a number of samples gets them however loaded the
 * machine is. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;      /* keeps every loop's result alive */

static double now(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One unit of work is the same loop body in each: the units a round
 * gives each function set their shares. */
#define UNIT 20000

NOINLINE void hot_multiply(unsigned units)
{
    uint64_t x = sink | 1;
    for (unsigned i = 0; i < units * UNIT; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

NOINLINE void hot_hash(unsigned units)
{
    uint64_t h = sink ^ 0xcbf29ce484222325ull;
    for (unsigned i = 0; i < units * UNIT; i++)
        h = (h ^ (i & 0xff)) * 0x100000001b3ull;
    sink = h;
}

NOINLINE void hot_parse(unsigned units)
{
    uint64_t v = sink;
    for (unsigned i = 0; i < units * UNIT; i++)
        v = v * 10 + (i % 10);
    sink = v;
}

NOINLINE void hot_compute(void)
{
    hot_multiply(6);
    hot_hash(3);
}

NOINLINE void hot_run(double seconds, clockid_t clk)
{
    double end = now(clk) + seconds;
    while (now(clk) < end) {
        hot_compute();
        hot_parse(1);
    }
}

int main(int argc, char **argv)
{
    clockid_t clk = CLOCK_MONOTONIC;
    int a = 1;
    if (a < argc && strcmp(argv[a], "-c") == 0) {
        clk = CLOCK_PROCESS_CPUTIME_ID;
        a++;
    }
    double seconds = a < argc ? strtod(argv[a], NULL) : 5;
    if (!(seconds > 0) || seconds > 86400 || a + 1 < argc) {
        fprintf(stderr, "usage: hot [-c] [SECONDS]\n");
        return 2;
    }
    hot_run(seconds, clk);
    return 0;
}
