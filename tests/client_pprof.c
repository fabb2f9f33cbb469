/* Tests for client/pprof (codec), client/input/pprof_read and
 * client/render/pprof_write: the encode/decode edge cases -- round trips
 * of names, addresses, inlined lines, labels and sample types; every
 * kind of broken reference an untrusted profile can hold; gzip that is
 * truncated, corrupt or inflates past the cap; pprof's choice of
 * sample type. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "client/input/pprof_read.h"
#include "client/pprof/pprof_codec.h"
#include "client/render/pprof_write.h"
#include "tests/testutil.h"

/* Encode a profile message (not compressed) into a malloc'd buffer. */
static uint8_t *pack(const pprof_msg *m, size_t *n)
{
    *n = perftools__profiles__profile__get_packed_size(m);
    uint8_t *buf = malloc(*n + 1);
    perftools__profiles__profile__pack(m, buf);
    return buf;
}

/* A small valid profile: 2 functions, 2 locations, 1 sample. */
typedef struct fixture {
    pprof_msg m;
    Perftools__Profiles__ValueType vt[2], *vtp[2];
    Perftools__Profiles__Function fn[2], *fnp[2];
    Perftools__Profiles__Location loc[2], *locp[2];
    Perftools__Profiles__Line line[2], *linep[2];
    Perftools__Profiles__Sample s, *sp;
    Perftools__Profiles__Label lab, *labp;
    uint64_t ids[2];
    int64_t vals[2];
    char *strs[8];
} fixture;

static void fixture_init(fixture *f)
{
    static char *strs[] = { "", "samples", "count", "cpu", "nanoseconds",
                            "main", "work;x", "pid" };
    memset(f, 0, sizeof *f);
    f->m = (pprof_msg)PERFTOOLS__PROFILES__PROFILE__INIT;
    memcpy(f->strs, strs, sizeof strs);
    f->m.n_string_table = 8;
    f->m.string_table = f->strs;
    for (int i = 0; i < 2; i++) {
        f->vt[i] = (Perftools__Profiles__ValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        f->vt[i].type = 1 + 2 * i;
        f->vt[i].unit = 2 + 2 * i;
        f->vtp[i] = &f->vt[i];
        f->fn[i] = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
        f->fn[i].id = 10 + i;            /* not dense: the bsearch path */
        f->fn[i].name = 5 + i;
        f->fnp[i] = &f->fn[i];
        f->line[i] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
        f->line[i].function_id = 10 + i;
        f->linep[i] = &f->line[i];
        f->loc[i] = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
        f->loc[i].id = i + 1;
        f->loc[i].address = 0x1000 + i;
        f->loc[i].n_line = 1;
        f->loc[i].line = &f->linep[i];
        f->locp[i] = &f->loc[i];
    }
    f->m.n_sample_type = 2;
    f->m.sample_type = f->vtp;
    f->m.n_function = 2;
    f->m.function = f->fnp;
    f->m.n_location = 2;
    f->m.location = f->locp;
    f->s = (Perftools__Profiles__Sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
    f->ids[0] = 2;                     /* leaf: work;x */
    f->ids[1] = 1;                     /* root: main */
    f->s.n_location_id = 2;
    f->s.location_id = f->ids;
    f->vals[0] = 3;
    f->vals[1] = 30000000;
    f->s.n_value = 2;
    f->s.value = f->vals;
    f->lab = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
    f->lab.key = 7;
    f->lab.num = 42;
    f->labp = &f->lab;
    f->s.n_label = 1;
    f->s.label = &f->labp;
    f->sp = &f->s;
    f->m.n_sample = 1;
    f->m.sample = &f->sp;
}

/* Decode f; NULL and the message in err when it is refused. */
static pprof_profile *decode(const fixture *f, strbuf *err)
{
    size_t n;
    uint8_t *buf = pack(&f->m, &n);
    pprof_profile *p = pprof_decode(buf, n, err);
    free(buf);
    return p;
}

static void expect_refused(const fixture *f, const char *why)
{
    strbuf err = STRBUF_INIT;
    pprof_profile *p = decode(f, &err);
    ck_assert_msg(p == NULL, "accepted a profile with %s", why);
    ck_assert_msg(err.len > 0, "no message for %s", why);
    sb_free(&err);
}

START_TEST(valid_profile_reads_into_folded_stacks)
{
    fixture f;
    fixture_init(&f);
    size_t n;
    uint8_t *buf = pack(&f.m, &n);
    stacktab *t = stacktab_new();
    stack_sink sink;
    stack_sink_init(&sink, t, 0, false);
    input_options opt;
    memset(&opt, 0, sizeof opt);
    input_stats st;
    memset(&st, 0, sizeof st);
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(pprof_read_buffer(buf, n, &opt, &sink, &st, &err), 0);
    /* the last type (cpu) by default; ';' in a name becomes ':' */
    const stack_entry *e = stacktab_find(t, "main;work:x", 11);
    ck_assert_ptr_nonnull(e);
    ck_assert_double_eq(e->count[0], 30000000);
    ck_assert_str_eq(st.event, "cpu (nanoseconds)");
    stacktab_free(t);
    t = stacktab_new();
    stack_sink_free(&sink);
    stack_sink_init(&sink, t, 0, false);
    opt.sample_index = "samples";
    ck_assert_int_eq(pprof_read_buffer(buf, n, &opt, &sink, &st, &err), 0);
    ck_assert_double_eq(stacktab_total(t, 0), 3);
    opt.sample_index = "2";
    ck_assert_int_eq(pprof_read_buffer(buf, n, &opt, &sink, &st, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "outside the range"));
    stack_sink_free(&sink);
    stacktab_free(t);
    sb_free(&err);
    free(buf);
}
END_TEST

START_TEST(default_sample_type_wins_over_the_last)
{
    fixture f;
    fixture_init(&f);
    f.m.default_sample_type = 1;       /* "samples" */
    strbuf err = STRBUF_INIT;
    pprof_profile *p = decode(&f, &err);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(pprof_sample_index(p, NULL, &err), 0);
    ck_assert_int_eq(pprof_sample_index(p, "cpu", &err), 1);
    ck_assert_int_eq(pprof_sample_index(p, "inuse_cpu", &err), 1);
    ck_assert_int_eq(pprof_sample_index(p, "bytes", &err), -1);
    pprof_free(p);
    sb_free(&err);
}
END_TEST

START_TEST(broken_references_are_refused)
{
    fixture f;
    fixture_init(&f);
    f.ids[0] = 99;
    expect_refused(&f, "a sample's location that does not exist");
    fixture_init(&f);
    f.line[1].function_id = 7;
    expect_refused(&f, "a line's function that does not exist");
    fixture_init(&f);
    f.loc[0].mapping_id = 3;
    expect_refused(&f, "a location's mapping that does not exist");
    fixture_init(&f);
    f.fn[1].name = 8;
    expect_refused(&f, "a name past the string table");
    fixture_init(&f);
    f.fn[1].name = -1;
    expect_refused(&f, "a negative string index");
    fixture_init(&f);
    f.lab.str = 1000;
    expect_refused(&f, "a label string past the table");
    fixture_init(&f);
    f.vt[1].unit = 1 << 30;
    expect_refused(&f, "a sample type unit past the table");
    fixture_init(&f);
    f.m.default_sample_type = 8;
    expect_refused(&f, "default_sample_type past the table");
    fixture_init(&f);
    f.s.n_value = 1;
    expect_refused(&f, "fewer values than sample types");
    fixture_init(&f);
    f.fn[1].id = 10;
    expect_refused(&f, "two functions with one id");
    fixture_init(&f);
    f.loc[0].id = 0;
    expect_refused(&f, "a location with id 0");
    fixture_init(&f);
    f.strs[0] = "x";
    expect_refused(&f, "a string table not starting with \"\"");
    fixture_init(&f);
    f.m.n_string_table = 0;
    f.m.n_sample_type = 0;
    f.m.n_function = 0;
    f.m.n_location = 0;
    f.m.n_sample = 0;
    expect_refused(&f, "no string table");
}
END_TEST

START_TEST(not_a_profile_is_refused)
{
    strbuf err = STRBUF_INIT;
    const uint8_t junk[] = { 0xff, 0xff, 0xff, 0x0f, 0x01 };
    ck_assert_ptr_null(pprof_decode(junk, sizeof junk, &err));
    ck_assert_ptr_nonnull(strstr(err.buf, "not a pprof profile"));
    sb_free(&err);
}
END_TEST

/* gzip of n bytes of zeros */
static uint8_t *gzip_zeros(size_t n, size_t *outn)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    size_t cap = n / 500 + 4096;
    uint8_t *out = malloc(cap), *zeros = calloc(1, 1 << 20);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    for (size_t left = n; left > 0;) {
        size_t part = left > (1u << 20) ? (1u << 20) : left;
        z.next_in = zeros;
        z.avail_in = (uInt)part;
        deflate(&z, Z_NO_FLUSH);
        left -= part;
    }
    deflate(&z, Z_FINISH);
    *outn = cap - z.avail_out;
    deflateEnd(&z);
    free(zeros);
    return out;
}

START_TEST(gzip_bomb_truncation_and_corruption_are_refused)
{
    strbuf err = STRBUF_INIT;
    size_t n;
    uint8_t *bomb = gzip_zeros(PPROF_MAX_BYTES + 1024, &n);
    ck_assert(n < 1 << 20);            /* a small file ... */
    ck_assert_ptr_null(pprof_decode(bomb, n, &err));
    ck_assert_msg(strstr(err.buf, "inflates to more than") != NULL, "%s",
                  err.buf);            /* ... refused at the cap */
    sb_reset(&err);
    uint8_t *small = gzip_zeros(100, &n);
    ck_assert_ptr_null(pprof_decode(small, n - 6, &err));
    ck_assert_msg(strstr(err.buf, "truncated") != NULL, "%s", err.buf);
    sb_reset(&err);
    small[n / 2] ^= 0x55;
    small[n / 2 + 1] ^= 0x55;
    ck_assert_ptr_null(pprof_decode(small, n, &err));
    ck_assert(err.len > 0);
    free(bomb);
    free(small);
    sb_free(&err);
}
END_TEST

/* Write a builder's profile to memory and decode it. */
static pprof_profile *built(pprof_builder *b, strbuf *notes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(pprof_builder_write(b, fp, "test", notes), 0);
    fclose(fp);
    ck_assert(pprof_is_gzip((uint8_t *)buf, len));
    strbuf err = STRBUF_INIT;
    pprof_profile *p = pprof_decode((uint8_t *)buf, len, &err);
    ck_assert_msg(p != NULL, "%s", err.buf);
    sb_free(&err);
    free(buf);
    return p;
}

START_TEST(export_keeps_addresses_inlines_labels_and_types)
{
    pprof_builder *b = pprof_builder_new(true);
    stackfold sf;
    stackfold_init(&sf, NULL, false);
    /* leaf first: b inlined into a at 0x10 in /bin/x, then main */
    stackfold_push(&sf, "b", 1, 0x10, "/bin/x", 0);
    stackfold_push(&sf, "a", 1, 0x10, "/bin/x", 0);
    stackfold_push(&sf, "main", 4, 0x20, "/bin/x", 1);
    stack_context ctx = { .comm = "prog", .comm_len = 4, .pid = 7, .tid = 8,
                          .time_ns = 1500000000000000000LL, .samples = 1,
                          .weight_type = "cpu", .weight_unit = "nanoseconds",
                          .frames = &sf };
    const char *stack = "prog;main;a;b";
    pprof_builder_observe(b, stack, strlen(stack), 2.5, 0, STACK_TIME_UNKNOWN,
                          &ctx);
    strbuf notes = STRBUF_INIT;
    pprof_profile *p = built(b, &notes);
    ck_assert_ptr_nonnull(strstr(notes.buf, "rounded 1"));
    const pprof_msg *m = p->msg;
    ck_assert_uint_eq(m->n_sample_type, 2);
    ck_assert_str_eq(pprof_str(p, m->sample_type[0]->type), "samples");
    ck_assert_str_eq(pprof_str(p, m->sample_type[1]->type), "cpu");
    ck_assert_str_eq(pprof_str(p, m->default_sample_type), "cpu");
    ck_assert_int_eq(m->time_nanos, 1500000000000000000LL);
    ck_assert_uint_eq(m->n_sample, 1);
    const Perftools__Profiles__Sample *s = m->sample[0];
    ck_assert_int_eq(s->value[0], 1);
    ck_assert_int_eq(s->value[1], 3);          /* 2.5 rounded */
    ck_assert_uint_eq(s->n_location_id, 3);    /* (b,a) main prog */
    const Perftools__Profiles__Location *leaf = pprof_location(p, s->location_id[0]);
    ck_assert_uint_eq(leaf->address, 0x10);
    ck_assert_uint_eq(leaf->n_line, 2);        /* inlined b, then a */
    ck_assert_str_eq(pprof_str(p, pprof_function(p, leaf->line[0]->function_id)->name), "b");
    ck_assert_str_eq(pprof_str(p, pprof_function(p, leaf->line[1]->function_id)->name), "a");
    ck_assert_str_eq(pprof_str(p, pprof_mapping(p, leaf->mapping_id)->filename), "/bin/x");
    const Perftools__Profiles__Location *root = pprof_location(p, s->location_id[2]);
    ck_assert_uint_eq(root->mapping_id, 0);    /* the comm frame: no address */
    bool pid = false, comm = false, ts = false;
    for (size_t i = 0; i < s->n_label; i++) {
        const char *k = pprof_str(p, s->label[i]->key);
        pid |= strcmp(k, "pid") == 0 && s->label[i]->num == 7;
        comm |= strcmp(k, "comm") == 0
                && strcmp(pprof_str(p, s->label[i]->str), "prog") == 0;
        ts |= strcmp(k, "timestamp_ns") == 0
              && s->label[i]->num == 1500000000000000000LL;
    }
    ck_assert(pid && comm && ts);
    pprof_free(p);
    pprof_builder_free(b);
    stackfold_free(&sf);
    sb_free(&notes);
}
END_TEST

/* pprof takes mapping[0] for the main binary (`File:` in its reports):
 * the sampled program's, not that of the library every stack starts in
 * (seen first, root first); by comm, else the heaviest non-library. */
static const char *main_file_of(const char *comm, const char *prog)
{
    pprof_builder *b = pprof_builder_new(false);
    stackfold sf;
    stackfold_init(&sf, NULL, false);
    stackfold_push(&sf, "spin", 4, 0x1165, prog, 0);
    stackfold_push(&sf, "__libc_start_call_main", 22, 0x2724a,
                   "/usr/lib/x86_64-linux-gnu/libc.so.6", 1);
    stackfold_push(&sf, "_start", 6, 0x1000, "/usr/lib/ld-linux.so.2", 2);
    stack_context ctx = { .comm = comm, .comm_len = strlen(comm), .pid = 1,
                          .tid = 1, .samples = 1, .frames = &sf };
    const char *stack = "_start;__libc_start_call_main;spin";
    pprof_builder_observe(b, stack, strlen(stack), 1, 0, STACK_TIME_UNKNOWN,
                          &ctx);
    strbuf notes = STRBUF_INIT;
    pprof_profile *p = built(b, &notes);
    const pprof_msg *m = p->msg;
    ck_assert_uint_eq(m->n_mapping, 3);
    ck_assert_uint_eq(m->mapping[0]->id, 1);
    static char file[256];
    snprintf(file, sizeof file, "%s", pprof_str(p, m->mapping[0]->filename));
    /* the leaf's location still names its own mapping */
    const Perftools__Profiles__Location *leaf =
        pprof_location(p, m->sample[0]->location_id[0]);
    ck_assert_str_eq(pprof_str(p, pprof_mapping(p, leaf->mapping_id)->filename),
                     prog);
    pprof_free(p);
    pprof_builder_free(b);
    stackfold_free(&sf);
    sb_free(&notes);
    return file;
}

START_TEST(export_puts_the_sampled_program_first)
{
    ck_assert_str_eq(main_file_of("hot", "/tmp/x/hot"), "/tmp/x/hot");
    /* a thread's own name: the one mapping that is no library */
    ck_assert_str_eq(main_file_of("worker-3", "/tmp/x/hot"), "/tmp/x/hot");
    /* comm is the first 15 bytes of the program's name */
    ck_assert_str_eq(main_file_of("a_long_program_", "/bin/a_long_program_name"),
                     "/bin/a_long_program_name");
}
END_TEST

START_TEST(export_of_folded_counts_is_samples_and_reads_back)
{
    pprof_builder *b = pprof_builder_new(false);
    const char *s1 = "m;a;b", *s2 = "m;a";
    pprof_builder_observe(b, s1, strlen(s1), 5, 0, STACK_TIME_UNKNOWN, NULL);
    pprof_builder_observe(b, s2, strlen(s2), 2, 0, STACK_TIME_UNKNOWN, NULL);
    pprof_builder_observe(b, s1, strlen(s1), 1, 0, STACK_TIME_UNKNOWN, NULL);
    strbuf notes = STRBUF_INIT;
    pprof_profile *p = built(b, &notes);
    ck_assert_uint_eq(p->msg->n_sample_type, 1);
    ck_assert_str_eq(pprof_str(p, p->msg->sample_type[0]->type), "samples");
    ck_assert_uint_eq(p->msg->n_sample, 2);    /* equal stacks merged */
    ck_assert_uint_eq(p->msg->n_function, 3);
    ck_assert_int_eq(p->msg->time_nanos, 0);   /* no times: none claimed */
    pprof_free(p);
    pprof_builder_free(b);
    sb_free(&notes);
}
END_TEST

TEST_SUITE(client_pprof)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("pprof");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, valid_profile_reads_into_folded_stacks);
    tcase_add_test(tc, default_sample_type_wins_over_the_last);
    tcase_add_test(tc, broken_references_are_refused);
    tcase_add_test(tc, not_a_profile_is_refused);
    tcase_add_test(tc, gzip_bomb_truncation_and_corruption_are_refused);
    tcase_add_test(tc, export_keeps_addresses_inlines_labels_and_types);
    tcase_add_test(tc, export_of_folded_counts_is_samples_and_reads_back);
    tcase_add_test(tc, export_puts_the_sampled_program_first);
    suite_add_tcase(s, tc);
    return s;
}
