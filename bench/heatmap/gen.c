/* gen: seeded `perf script` text for the heat-map benchmark: SAMPLES
 * samples spread evenly over SECONDS seconds (two CPUs, a few hundred
 * distinct stacks of 3-8 frames, ~5% idle swapper samples).
 *   gen SAMPLES SECONDS SEED */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen SAMPLES SECONDS SEED\n");
        return 2;
    }
    long n = atol(argv[1]);
    double secs = atof(argv[2]);
    rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)atol(argv[3]);
    static const char *fn[] = { "main", "run_loop", "handle_request", "parse",
        "json_decode", "hash_lookup", "memcpy", "malloc", "free", "compress",
        "deflate", "write_out", "sys_write", "vfs_write", "ext4_write",
        "tcp_sendmsg", "schedule", "futex_wait", "render", "sort_items" };
    const int nfn = sizeof fn / sizeof fn[0];
    char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    int64_t t0 = 5000LL * 1000000, span = (int64_t)(secs * 1e6);
    for (long i = 0; i < n; i++) {
        int64_t t = t0 + span * i / n;
        int cpu = (int)(i & 1);
        if (next() % 20 == 0) {
            printf("swapper     0 [%03d] %lld.%06lld:    1001001 cpu-clock:pppH: \n"
                   "\tffffffff81a2 intel_idle+0x1 ([kernel.kallsyms])\n"
                   "\tffffffff81a3 cpuidle_enter_state+0x2 ([kernel.kallsyms])\n"
                   "\tffffffff81a4 cpu_startup_entry+0x3 ([kernel.kallsyms])\n\n",
                   cpu, (long long)(t / 1000000), (long long)(t % 1000000));
            continue;
        }
        /* a phase every 30 s changes the mix, so the map has structure */
        uint32_t phase = (uint32_t)((t - t0) / 30000000);
        int depth = 3 + (int)(next() % 6);
        printf("app %d [%03d] %lld.%06lld:    1001001 cpu-clock:pppH: \n",
               4000 + cpu, cpu, (long long)(t / 1000000),
               (long long)(t % 1000000));
        uint32_t h = phase * 7 + next() % 5;
        for (int d = depth - 1; d >= 0; d--) {
            int f = d == 0 ? 0 : (int)((h * 31 + (uint32_t)d * 17) % (uint32_t)nfn);
            printf("\t%x %s+0x%x (/usr/bin/app)\n", 0x400000 + f * 64 + d, fn[f], d);
        }
        putchar('\n');
    }
    return 0;
}
