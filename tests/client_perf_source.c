/* Suite: client/run/perf_source, the perf backend's samples (frame
 * lines kept as perf printed them, as the relay folds them) and its
 * pmdajson-style source directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/run/perf_source.h"
#include "common/frames.h"
#include "tests/testutil.h"

typedef struct got {
    int n;
    char stack[8][256];
    char comm[8][32];
    long pid[8], tid[8];
    int cpu[8];
    long long ts[8];
} got;

/* The relay folds the frame lines a sample carries (common/frames, with
 * its marks); so does the test, to read them. */
static void collect(void *arg, const perf_sample *s)
{
    got *g = arg;
    if (g->n >= 8)
        return;
    ck_assert_ptr_null(strchr(s->stack.buf, '\t'));     /* blanks before go */
    frame_opts relay = { .mark_kernel = true, .mark_jit = true };
    stackfold sf;
    stackfold_init(&sf, &relay, false);
    for (const char *p = s->stack.buf; *p;) {
        size_t n = strcspn(p, "\n");
        ck_assert_int_eq(stackfold_line(&sf, p, n), FRAME_PERF);
        p += n + (p[n] == '\n');
    }
    strbuf folded = STRBUF_INIT;
    stackfold_write(&sf, &folded);
    snprintf(g->stack[g->n], sizeof g->stack[0], "%s", folded.buf);
    sb_free(&folded);
    stackfold_free(&sf);
    snprintf(g->comm[g->n], sizeof g->comm[0], "%s", s->comm.buf);
    g->pid[g->n] = s->pid;
    g->tid[g->n] = s->tid;
    g->cpu[g->n] = s->cpu;
    g->ts[g->n] = (long long)s->ts_ns;
    g->n++;
}

static void feed(perf_sampler *ps, const char *text)
{
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        perf_sampler_line(ps, p, n);
        p += n + (p[n] == '\n');
    }
    perf_sampler_finish(ps);
}

static const char script_text[] =
    "dd 4242/4243 [001] 1764450000.123456789: \n"
    "\tffffffff81cdb1b0 rw_verify_area+0x10 ([kernel.kallsyms])\n"
    "\tffffffff8133f6f5 vfs_write+0x1d5 ([kernel.kallsyms])\n"
    "\t    7f0011223344 __GI___libc_write+0x14 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\t            6041 [unknown] (/usr/bin/dd)\n"
    "\n"
    "swapper     0/0     [000] 1764450000.200000000: \n"
    "\tffffffff8103ce3b native_safe_halt+0xb ([kernel.kallsyms])\n"
    "\n"
    "Web Content 77/78 [000] 1764450000.3: \n"
    "\t               0 [unknown] ([unknown])\n"
    "\t            1234 std::vector<int>::push_back(int const&)+0x4 (/usr/bin/x)\n"
    "\t            1235 main; evil+0x4 (/usr/bin/x)\n"
    "not a header\n"
    "sh 9/9 [001] 1764450000.4: \n";

START_TEST(sampler)
{
    got g;
    memset(&g, 0, sizeof g);
    perf_sampler ps;
    perf_sampler_init(&ps, collect, &g);
    feed(&ps, script_text);
    ck_assert_int_eq(g.n, 2);
    ck_assert_str_eq(g.comm[0], "dd");
    ck_assert_int_eq(g.pid[0], 4242);
    ck_assert_int_eq(g.tid[0], 4243);
    ck_assert_int_eq(g.cpu[0], 1);
    ck_assert_int_eq(g.ts[0], 1764450000123456789LL);
    ck_assert_str_eq(g.stack[0], "[dd];__GI___libc_write;vfs_write_[k];rw_verify_area_[k]");
    ck_assert_str_eq(g.comm[1], "Web Content");
    ck_assert_int_eq(g.ts[1], 1764450000300000000LL);
    ck_assert_str_eq(g.stack[1], "main: evil;std::vector<int>::push_back;[unknown]");
    ck_assert_uint_eq(ps.idle, 1);          /* swapper, pid 0 */
    ck_assert_uint_eq(ps.empty, 1);         /* sh: no frames */
    ck_assert_uint_eq(ps.bad_lines, 1);
    perf_sampler_free(&ps);

    memset(&g, 0, sizeof g);
    perf_sampler_init(&ps, collect, &g);
    ps.kernel_only = true;
    ps.keep_idle = true;
    feed(&ps, script_text);
    ck_assert_int_eq(g.n, 2);
    ck_assert_str_eq(g.stack[0], "vfs_write_[k];rw_verify_area_[k]");
    ck_assert_str_eq(g.stack[1], "native_safe_halt_[k]");
    perf_sampler_free(&ps);

    memset(&g, 0, sizeof g);
    perf_sampler_init(&ps, collect, &g);
    ps.user_only = true;
    feed(&ps, script_text);
    ck_assert_str_eq(g.stack[0], "[dd];__GI___libc_write");
    perf_sampler_free(&ps);
}
END_TEST

/* a script's own layout (hotcold's): its data_fn makes data.json, its
 * flushed_fn hears when that is on disk, and only then */
static char *own_data(const perf_source *src, void *arg)
{
    (void)src;
    int *calls = arg;
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "{\"own\": %d}\n", calls[0]);
    return sb_steal(&sb);
}

static void own_flushed(void *arg)
{
    int *calls = arg;
    calls[0]++;
}

START_TEST(own_layout_flushed)
{
    char *d = tu_mkdtemp();
    char err[512];
    int calls[1] = { 0 };
    perf_source src;
    ck_assert_int_eq(perf_source_open_as(&src, d, "own", 0, false, "{\"metrics\": []}\n",
                                         own_data, calls, err, sizeof err), 0);
    src.flushed_fn = own_flushed;
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), 0);
    ck_assert_int_eq(calls[0], 0);                 /* nothing changed */
    perf_source_add_json(&src, "{\"seq\": 1}");
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), 0);
    ck_assert_int_eq(calls[0], 1);
    char *path = NULL;
    ck_assert_int_ne(asprintf(&path, "%s/own/data.json", d), -1);
    char *data = tu_slurp(path);
    ck_assert_str_eq(data, "{\"own\": 0}\n");   /* made before the hook */
    free(data);
    /* a write that fails keeps what it had: no hook */
    perf_source_add_json(&src, "{\"seq\": 2}");
    char *dir = src.dir;
    src.dir = "/nonexistent/own";
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), -1);
    src.dir = dir;
    ck_assert_int_eq(calls[0], 1);
    ck_assert_uint_eq(src.npending, 1);
    /* and the sample record both layouts write */
    perf_sample s;
    memset(&s, 0, sizeof s);
    sb_adds(&s.comm, "c");
    sb_adds(&s.stack, "f");
    s.pid = 3;
    s.tid = 4;
    s.cpu = -1;
    strbuf r = STRBUF_INIT;
    perf_source_sample_json(&r, 9, 1000, &s);
    ck_assert_str_eq(r.buf, "{\"seq\": 9, \"ts\": 1000, \"pid\": 3, \"tid\": 4, \"cpu\": 0, "
                            "\"comm\": \"c\", \"count\": 1, \"stack\": \"f\"}");
    sb_free(&r);
    sb_free(&s.comm);
    sb_free(&s.stack);
    perf_source_close(&src, true);
    free(path);
    tu_rmtree(d);
    free(d);
}
END_TEST

START_TEST(source_dir)
{
    char *d = tu_mkdtemp();
    char err[512];
    perf_source src;
    ck_assert_int_eq(perf_source_open(&src, d, "myprof", 99, false, err, sizeof err), 0);
    char *meta_path = NULL, *data_path = NULL;
    ck_assert_int_ne(asprintf(&meta_path, "%s/myprof/metadata.json", d), -1);
    ck_assert_int_ne(asprintf(&data_path, "%s/myprof/data.json", d), -1);
    char *meta = tu_slurp(meta_path);
    ck_assert_ptr_nonnull(meta);
    ck_assert_ptr_nonnull(strstr(meta, "\"prefix\": \"myprof\""));
    ck_assert_ptr_nonnull(strstr(meta, "\"sequence\": \"/seq\""));
    ck_assert_ptr_nonnull(strstr(meta, "\"dropped\": \"/samples_dropped\""));
    free(meta);
    char *data = tu_slurp(data_path);
    ck_assert_ptr_nonnull(strstr(data, "\"samples\": []"));
    free(data);

    /* a second run under the same name while this one lives: refused */
    perf_source other;
    ck_assert_int_eq(perf_source_open(&other, d, "myprof", 99, false, err, sizeof err), 0);
    /* (same pid: reused) */
    perf_source_close(&other, false);

    perf_sample s;
    memset(&s, 0, sizeof s);
    sb_adds(&s.comm, "we\"ird\n");
    sb_adds(&s.stack, "main;f\\g_[k]");
    s.pid = s.tid = 7;
    s.cpu = 1;
    s.ts_ns = 1764450000000000001LL;
    perf_source_add(&src, &s);
    perf_source_add(&src, &s);
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), 0);
    data = tu_slurp(data_path);
    ck_assert_ptr_nonnull(strstr(data, "\"taken\": 2"));
    ck_assert_ptr_nonnull(strstr(data, "\"seq\": 1, \"ts\": 1764450000000000001, \"pid\": 7"));
    ck_assert_ptr_nonnull(strstr(data, "\"seq\": 2,"));
    ck_assert_ptr_nonnull(strstr(data, "\"comm\": \"we\\\"ird\\n\""));
    ck_assert_ptr_nonnull(strstr(data, "\"stack\": \"main;f\\\\g_[k]\""));
    free(data);
    /* the next write holds only new records, numbered on */
    src.max_pending = 1;
    perf_source_add(&src, &s);
    perf_source_add(&src, &s);
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), 0);
    data = tu_slurp(data_path);
    ck_assert_ptr_null(strstr(data, "\"seq\": 1,"));
    ck_assert_ptr_nonnull(strstr(data, "\"seq\": 3,"));
    ck_assert_ptr_null(strstr(data, "\"seq\": 4,"));
    ck_assert_ptr_nonnull(strstr(data, "\"samples_dropped\": 1"));
    ck_assert_ptr_nonnull(strstr(data, "\"taken\": 4"));
    free(data);
    char *dir = NULL;
    ck_assert_int_ne(asprintf(&dir, "%s/myprof", d), -1);
    perf_source_close(&src, true);
    struct stat st;
    ck_assert_int_ne(stat(dir, &st), 0);

    /* a stale directory of a dead run is reused; a foreign one is not */
    mkdir(dir, 0755);
    tu_write(dir, ".staprelay-run", "999999999\n");
    ck_assert_int_eq(perf_source_open(&src, d, "myprof", 99, false, err, sizeof err), 0);
    perf_source_close(&src, true);
    mkdir(dir, 0755);
    tu_write(dir, "metadata.json", "{}");
    ck_assert_int_eq(perf_source_open(&src, d, "myprof", 99, false, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "already exists"));
    ck_assert_int_eq(perf_source_open(&src, "/nonexistent", "x", 99, false, err, sizeof err), -1);
    sb_free(&s.comm);
    sb_free(&s.stack);
    free(meta_path);
    free(data_path);
    free(dir);
    tu_rmtree(d);
    free(d);
}
END_TEST

/* A run waits for its last data.json to be read (perf_source_wait_read):
 * only a read of the file that holds the last records counts, not our
 * own write, nor a read of a file it replaced. */
START_TEST(last_read_seen)
{
    char *d = tu_mkdtemp();
    char err[512];
    perf_source src;
    ck_assert_int_eq(perf_source_open(&src, d, "rd", 99, false, err, sizeof err), 0);
    ck_assert_uint_eq(src.flushes, 1);             /* the first, empty data.json */
    char *path = NULL;
    ck_assert_int_ne(asprintf(&path, "%s/rd/data.json", d), -1);
    perf_source_add_json(&src, "{\"seq\": 1}");
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), 0);
    ck_assert_uint_eq(src.flushes, 2);
    ck_assert_int_eq(perf_source_wait_read(&src, 0.05), 0);   /* nobody read it */
    ck_assert(!src.ever_read);
    free(tu_slurp(path));
    ck_assert_int_eq(perf_source_wait_read(&src, 5), 1);
    ck_assert(src.ever_read);

    /* a reader that opened the file before it was replaced */
    int old = open(path, O_RDONLY);
    ck_assert_int_ge(old, 0);
    perf_source_add_json(&src, "{\"seq\": 2}");
    ck_assert_int_eq(perf_source_flush(&src, err, sizeof err), 0);
    close(old);
    ck_assert_int_eq(perf_source_wait_read(&src, 0.05), 0);
    char *data = tu_slurp(path);
    ck_assert_ptr_nonnull(strstr(data, "\"seq\": 2"));
    free(data);
    ck_assert_int_eq(perf_source_wait_read(&src, 5), 1);
    perf_source_close(&src, true);
    ck_assert_int_eq(src.read_fd, -1);
    free(path);
    tu_rmtree(d);
    free(d);
}
END_TEST

TEST_SUITE(client_perf_source)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("perf_source");
    tcase_add_test(tc, sampler);
    tcase_add_test(tc, source_dir);
    tcase_add_test(tc, own_layout_flushed);
    tcase_add_test(tc, last_read_seen);
    suite_add_tcase(s, tc);
    return s;
}
