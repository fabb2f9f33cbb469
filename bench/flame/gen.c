/* gen: seeded generator of synthetic profiles for bench/flame/run.
 *
 *   gen perf SAMPLES SEED     `perf script` text (callchains, periods)
 *   gen folded STACKS SEED    folded text with exactly STACKS distinct stacks
 *
 * Stacks are random walks down a fixed synthetic call tree, so prefixes
 * are shared the way real profiles share them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng { uint64_t s; } rng;

static uint64_t next(rng *r)
{
    /* xorshift64*: small, fast, reproducible */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

static unsigned below(rng *r, unsigned n) { return (unsigned)(next(r) % n); }

static const char *mods[] = { "/usr/bin/server", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                              "/usr/lib/libssl.so.3", "[kernel.kallsyms]" };
static const char *words[] = { "read", "write", "parse", "handle", "dispatch",
                               "alloc", "free", "hash", "lookup", "insert",
                               "encode", "decode", "send", "recv", "poll",
                               "lock", "unlock", "copy", "compress", "flush" };

/* The name of child k of node id at depth d: deterministic. */
static void frame_name(char *buf, size_t n, unsigned depth, unsigned id)
{
    snprintf(buf, n, "%s_%s_%u", words[id % 20], words[(id / 20 + depth) % 20],
             id % 97);
}

static int gen_perf(long samples, uint64_t seed)
{
    rng r = { seed * 2654435761u + 1 };
    char name[64];
    double ts = 1000.0;
    unsigned ids[64];
    for (long s = 0; s < samples; s++) {
        unsigned tid = 4000 + below(&r, 8);
        ts += 0.000250 + below(&r, 100) * 1e-6;
        printf("server %u/%u [%03u] %.6f:    1001001 cpu-clock:pppH: \n",
               4000u, tid, below(&r, 2), ts);
        unsigned depth = 4 + below(&r, 24), id = 1;
        for (unsigned d = 0; d < depth; d++) {
            id = id * 7 + below(&r, d < 3 ? 3 : 5);
            ids[d] = id;
        }
        for (unsigned d = depth; d-- > 0;) {   /* leaf first */
            const char *mod = mods[d > depth - 3 && ids[d] % 3 == 0 ? 3 : ids[d] % 3];
            frame_name(name, sizeof name, d, ids[d]);
            printf("\t%016" PRIx64 " %s+0x%x (%s)\n",
                   (uint64_t)0x400000 + ids[d] * 16, name, below(&r, 512), mod);
        }
        printf("\n");
    }
    return 0;
}

static int gen_folded(long stacks, uint64_t seed)
{
    rng r = { seed * 2654435761u + 7 };
    char name[64];
    for (long s = 0; s < stacks; s++) {
        unsigned depth = 3 + below(&r, 14), id = 1;
        fputs("server", stdout);
        for (unsigned d = 0; d < depth; d++) {
            id = id * 7 + below(&r, d < 3 ? 3 : 6);
            frame_name(name, sizeof name, d, id);
            putchar(';');
            fputs(name, stdout);
        }
        /* a unique leaf makes every line a distinct stack */
        printf(";leaf_%ld %u\n", s, 1 + below(&r, 50));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen perf|folded COUNT SEED\n");
        return 2;
    }
    long n = atol(argv[2]);
    uint64_t seed = strtoull(argv[3], NULL, 10);
    if (strcmp(argv[1], "perf") == 0)
        return gen_perf(n, seed);
    if (strcmp(argv[1], "folded") == 0)
        return gen_folded(n, seed);
    fprintf(stderr, "gen: unknown kind %s\n", argv[1]);
    return 2;
}
