/* Suite: client/stack/heatmap and its renderers (render/heatmap_out,
 * heatmap_html): integer-microsecond bucketing (bucket edges, a last
 * sample on a whole second), FlameScope's idle regex, colours, JSON/HTML
 * output and the command's messages. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmd/builtin.h"
#include "client/render/heatmap_out.h"
#include "client/stack/heatmap.h"
#include "client/render/html.h"
#include "tests/testutil.h"

#define S(sec, us) ((int64_t)(sec) * 1000000 + (us))

START_TEST(cell_arithmetic)
{
    int c, r;
    /* 50 rows of 20 ms; row 0 is the top = the 980-1000 ms bucket */
    heatmap_cell(S(100, 0), 100, 50, &c, &r);
    ck_assert_int_eq(c, 0);
    ck_assert_int_eq(r, 49);
    heatmap_cell(S(100, 19999), 100, 50, &c, &r);       /* last us of bucket 0 */
    ck_assert_int_eq(r, 49);
    heatmap_cell(S(100, 20000), 100, 50, &c, &r);       /* first us of bucket 1 */
    ck_assert_int_eq(r, 48);
    /* FlameScope's floats put x.200000 in the 180 ms row; we do not */
    heatmap_cell(S(107, 200000), 100, 50, &c, &r);
    ck_assert_int_eq(c, 7);
    ck_assert_int_eq(r, 50 - 1 - 10);              /* the 200 ms row */
    heatmap_cell(S(100, 999999), 100, 50, &c, &r);
    ck_assert_int_eq(r, 0);
    /* rows that do not divide a second: bucket k starts at ceil(k*1e6/R) */
    ck_assert_int_eq(heatmap_row_start_us(49, 48), 0);
    ck_assert_int_eq(heatmap_row_start_us(49, 47), 20409);   /* ceil(20408.16) */
    heatmap_cell(S(0, 20408), 0, 49, &c, &r);
    ck_assert_int_eq(r, 48);
    heatmap_cell(S(0, 20409), 0, 49, &c, &r);
    ck_assert_int_eq(r, 47);
    ck_assert_int_eq(heatmap_row_start_us(50, 0), 980000);
    /* columns: floor(end) - floor(start) + 1 */
    ck_assert_int_eq(heatmap_columns(S(256, 872000), S(261, 887469)), 6);
    ck_assert_int_eq(heatmap_columns(S(256, 872000), S(262, 0)), 7);
    ck_assert_int_eq(heatmap_columns(S(5, 0), S(5, 0)), 1);
    ck_assert_int_eq(heatmap_floor_div(-1, 1000000), -1);
}
END_TEST

START_TEST(grid_known_offsets)
{
    heatmap *h = heatmap_new(false);
    heatmap_add(h, "app;main;a", S(1000, 0));          /* col 0, row 49 */
    heatmap_add(h, "app;main;a", S(1000, 19999));      /* col 0, row 49 */
    heatmap_add(h, "app;main;b", S(1000, 20000));      /* col 0, row 48 */
    heatmap_add(h, "swapper;cpu_startup_entry;cpuidle_enter_state;intel_idle",
                S(1000, 500000));                      /* idle: dropped */
    heatmap_add(h, "app;main;b", S(1001, 200000));     /* col 1, row 39 */
    heatmap_add(h, "app;main;c", S(1003, 0));          /* last, whole s */
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(heatmap_grid(h, 50, &err), 0);
    ck_assert_int_eq(h->cols, 4);
    ck_assert_int_eq(h->rows, 50);
    ck_assert_int_eq(h->base_s, 1000);
    ck_assert_uint_eq(heatmap_value(h, 0, 49), 2);
    ck_assert_uint_eq(heatmap_value(h, 0, 48), 1);
    ck_assert_uint_eq(heatmap_value(h, 0, 24), 0);     /* the idle one */
    ck_assert_uint_eq(heatmap_value(h, 1, 39), 1);
    ck_assert_uint_eq(heatmap_value(h, 1, 40), 0);
    ck_assert_uint_eq(heatmap_value(h, 3, 49), 1);
    ck_assert_uint_eq(h->maxvalue, 2);
    ck_assert_uint_eq(h->idle_dropped, 1);
    ck_assert_uint_eq(h->n, 5);
    uint64_t sum = 0;
    for (int c = 0; c < h->cols; c++)
        for (int r = 0; r < h->rows; r++)
            sum += heatmap_value(h, c, r);
    ck_assert_uint_eq(sum, 5);
    heatmap_free(h);

    /* idle kept; the start counts idle samples */
    h = heatmap_new(true);
    heatmap_add(h, "swapper;cpu_idle", S(9, 999999));
    heatmap_add(h, "app;x", S(10, 0));
    ck_assert_int_eq(heatmap_grid(h, 10, &err), 0);
    ck_assert_int_eq(h->cols, 2);
    ck_assert_uint_eq(heatmap_value(h, 0, 0), 1);
    ck_assert_uint_eq(heatmap_value(h, 1, 9), 1);
    heatmap_free(h);
    sb_free(&err);
}
END_TEST

/* A PCP record stands for `count` samples: cells and the page's samples
 * weigh it (rounded, at least 1); unweighted pages keep their format. */
START_TEST(weighted_records)
{
    ck_assert_uint_eq(heatmap_weight(1), 1);
    ck_assert_uint_eq(heatmap_weight(3), 3);
    ck_assert_uint_eq(heatmap_weight(2.5), 3);
    ck_assert_uint_eq(heatmap_weight(0.2), 1);
    ck_assert_uint_eq(heatmap_weight(1.49), 1);
    ck_assert_uint_eq(heatmap_weight(1e12), UINT32_MAX);
    heatmap *h = heatmap_new(false);
    size_t a = stacktab_add(h->tab, "m;a", 3, 0, 3);
    size_t b = stacktab_add(h->tab, "m;b", 3, 0, 1);
    heatmap_add_weighted(h, a, S(100, 0), 3);
    heatmap_add_weighted(h, b, S(100, 1000), 1);
    heatmap_add_weighted(h, a, S(101, 0), 200);
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(heatmap_grid(h, 50, &err), 0);
    ck_assert_uint_eq(heatmap_value(h, 0, 49), 4);
    ck_assert_uint_eq(heatmap_value(h, 1, 49), 200);
    ck_assert_uint_eq(h->maxvalue, 200);
    ck_assert_uint_eq(h->weight, 204);
    ck_assert(h->weighted);
    /* the page: "weighted", the total, and a weight after each sample */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(heatmap_write_html(fp, h, NULL), 0);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "\"nsamples\":3,\"weighted\":true,"
                                      "\"total\":204,"));
    /* varints: (0, 0, 3) (1000, 1, 1) (999000 = d8 fc 3c, 0, 200 = c8 01) */
    strbuf want = STRBUF_INIT;
    const unsigned char raw[] = { 0, 0, 3, 0xe8, 0x07, 1, 1,
                                  0xd8, 0xfc, 0x3c, 0, 0xc8, 0x01 };
    sb_adds(&want, "\"samples\":\"");
    html_base64(&want, raw, sizeof raw);
    ck_assert_msg(strstr(buf, want.buf) != NULL, "%s not in page", want.buf);
    free(buf);
    sb_free(&want);
    heatmap_free(h);

    h = heatmap_new(false);                 /* all weights 1 */
    heatmap_add(h, "m;a", S(100, 0));
    ck_assert_int_eq(heatmap_grid(h, 50, &err), 0);
    ck_assert(!h->weighted);
    buf = NULL;
    fp = open_memstream(&buf, &len);
    ck_assert_int_eq(heatmap_write_html(fp, h, NULL), 0);
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "\"weighted\":false,\"total\":1,"));
    ck_assert_ptr_nonnull(strstr(buf, "\"samples\":\"AAA=\""));
    free(buf);
    heatmap_free(h);
    sb_free(&err);
}
END_TEST

START_TEST(disorder_and_errors)
{
    strbuf err = STRBUF_INIT, w = STRBUF_INIT;
    heatmap *h = heatmap_new(false);
    heatmap_add(h, "a", S(10, 500000));
    heatmap_add(h, "b", S(10, 100000));     /* out of order */
    heatmap_add(h, "c", S(20, 0));          /* 9.5 s gap */
    ck_assert_int_eq(heatmap_grid(h, 50, &err), 0);
    ck_assert_int_eq(h->cols, 11);
    ck_assert_int_eq(h->s[0].t_us, S(10, 100000));     /* sorted */
    ck_assert_uint_eq(heatmap_value(h, 0, 44), 1);
    ck_assert_uint_eq(heatmap_value(h, 0, 24), 1);
    heatmap_warnings(h, &w);
    ck_assert_ptr_nonnull(strstr(w.buf, "1 samples were out of time order"));
    ck_assert_ptr_nonnull(strstr(w.buf, "gaps of 5 s or more"));
    heatmap_free(h);

    /* a clock jump */
    h = heatmap_new(false);
    heatmap_add(h, "a", S(10, 0));
    heatmap_add(h, "a", S(1700000000, 0));
    ck_assert_int_eq(heatmap_grid(h, 50, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "a clock jump?"));
    heatmap_free(h);

    /* only idle, nothing */
    sb_reset(&err);
    h = heatmap_new(false);
    heatmap_add(h, "swapper;native_safe_halt", S(1, 0));
    ck_assert_int_eq(heatmap_grid(h, 50, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "all 1 samples are idle"));
    heatmap_free(h);
    sb_reset(&err);
    h = heatmap_new(false);
    ck_assert_int_eq(heatmap_grid(h, 50, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.buf, "no stack samples"));
    heatmap_free(h);
    sb_free(&err);
    sb_free(&w);
}
END_TEST

START_TEST(idle_regex_and_perf_time)
{
    const char *idle = "swapper;secondary_startup_64;cpu_startup_entry;"
                       "do_idle;cpuidle_enter";
    ck_assert(heatmap_is_idle(idle, strlen(idle)));
    ck_assert(heatmap_is_idle("swapper;xen_hypercall_vcpu_op", 29));
    ck_assert(!heatmap_is_idle("cpuidle;swapper", 15));      /* order matters */
    ck_assert(!heatmap_is_idle("app;cpuidle_enter", 17));
    ck_assert(!heatmap_is_idle("swapper;schedule", 16));
}
END_TEST

START_TEST(colours)
{
    char b[8];
    heatmap_color(0, 40, false, b);
    ck_assert_str_eq(b, "#ffffff");
    heatmap_color(20, 40, false, b);
    ck_assert_str_eq(b, "#ff5032");
    heatmap_color(40, 40, false, b);
    ck_assert_str_eq(b, "#e50914");
    heatmap_color(10, 40, false, b);          /* halfway white -> #FF5032 */
    ck_assert_str_eq(b, "#ffa899");
    heatmap_color(1, 40, true, b);
    ck_assert_str_eq(b, "#6aaaff");
    heatmap_color(3, 40, true, b);
    ck_assert_str_eq(b, "#faa0b5");
}
END_TEST

static char *render(const heatmap *h, int kind)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    heatmap_page o = { "t<i>tle", "src", false };
    if (kind == 0)
        heatmap_write_json(fp, h);
    else if (kind == 1)
        heatmap_write_html(fp, h, &o);
    else
        heatmap_write_svg(fp, h, &o);
    fclose(fp);
    return buf;
}

START_TEST(outputs)
{
    heatmap *h = heatmap_new(false);
    heatmap_add(h, "app;main;a", S(50, 10000));
    heatmap_add(h, "app;</script>;b", S(51, 0));
    strbuf err = STRBUF_INIT;
    ck_assert_int_eq(heatmap_grid(h, 10, &err), 0);
    char *js = render(h, 0);
    json_error_t je;
    json_t *j = json_loads(js, 0, &je);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_array_size(json_object_get(j, "rows")), 10);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(j, "rows"), 0)), 900);
    ck_assert_int_eq(json_array_size(json_object_get(j, "columns")), 2);
    json_t *v = json_object_get(j, "values");
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(v, 0), 9)), 1);
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(v, 1), 9)), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "maxvalue")), 1);
    json_decref(j);
    free(js);

    char *html = render(h, 1);
    ck_assert_ptr_nonnull(strstr(html, "<title>t&lt;i&gt;tle</title>"));
    /* the only </script> are ours: data cannot close the element */
    size_t n = 0;
    for (char *p = html; (p = strstr(p, "</script>")); p++)
        n++;
    ck_assert_uint_eq(n, 3);
    /* no network: nothing loaded (only the SVG namespace URI) */
    ck_assert_ptr_null(strstr(html, "src="));
    ck_assert_ptr_null(strstr(html, "<link"));
    ck_assert_ptr_null(strstr(html, "https://"));
    /* samples: 10000 us step from 50.000000, stack 0; 990000, stack 1 */
    strbuf b = STRBUF_INIT, b64 = STRBUF_INIT;
    html_varint(&b, 10000);
    html_varint(&b, 0);
    html_varint(&b, 990000);
    html_varint(&b, 1);
    html_base64(&b64, (const unsigned char *)b.buf, b.len);
    strbuf want = STRBUF_INIT;
    sb_printf(&want, "\"samples\":\"%s\"", b64.buf);
    ck_assert_ptr_nonnull(strstr(html, want.buf));
    free(html);
    char *svg = render(h, 2);
    ck_assert_ptr_nonnull(strstr(svg, "<title>second: 1, millisecond: 0, count: 1</title>"));
    free(svg);
    sb_free(&b);
    sb_free(&b64);
    sb_free(&want);
    sb_free(&err);
    heatmap_free(h);
}
END_TEST

START_TEST(base64_and_varint)
{
    strbuf b = STRBUF_INIT;
    html_varint(&b, 300);
    ck_assert_uint_eq(b.len, 2);
    ck_assert_uint_eq((unsigned char)b.buf[0], 0xac);
    ck_assert_uint_eq((unsigned char)b.buf[1], 0x02);
    strbuf o = STRBUF_INIT;
    html_base64(&o, (const unsigned char *)"foob", 4);
    ck_assert_str_eq(o.buf, "Zm9vYg==");
    sb_reset(&o);
    html_base64(&o, (const unsigned char *)"fooba", 5);
    ck_assert_str_eq(o.buf, "Zm9vYmE=");
    sb_free(&o);
    sb_free(&b);
}
END_TEST

static int run_cmd(const char *dir, const char *a1, const char *a2,
                   const char *a3, const char *a4)
{
    char *argv[8] = { "heatmap" };
    int argc = 1;
    const char *in[] = { a1, a2, a3, a4 };
    for (int i = 0; i < 4 && in[i]; i++)
        argv[argc++] = (char *)in[i];
    argv[argc] = NULL;
    (void)dir;
    fflush(stderr);
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    int rc = cmd_heatmap(argc, argv);
    fclose(stderr);
    stderr = saved;
    return rc;
}

/* As run_cmd, with stderr kept in *err (caller frees). */
static int run_cmd_err(const char *dir, const char *a1, const char *a2,
                       char **err)
{
    char *argv[4] = { "heatmap", (char *)a1, (char *)a2, NULL };
    int argc = a2 ? 3 : a1 ? 2 : 1;
    strbuf path = STRBUF_INIT;
    sb_printf(&path, "%s/stderr", dir);
    fflush(stderr);
    FILE *saved = stderr;
    stderr = fopen(path.buf, "w");
    int rc = cmd_heatmap(argc, argv);
    fclose(stderr);
    stderr = saved;
    *err = tu_slurp(path.buf);
    sb_free(&path);
    return rc;
}

/* Empty input says so (as flame does), not that it lacks timestamps. */
START_TEST(empty_input_says_no_input)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "empty", "");
    tu_write(dir, "blank", "\n  \n\n");
    tu_write(dir, "folded", "main;f 3\n");
    strbuf p = STRBUF_INIT;
    char *err;
    const char *names[] = { "empty", "blank" };
    for (int i = 0; i < 2; i++) {
        sb_reset(&p);
        sb_printf(&p, "%s/%s", dir, names[i]);
        ck_assert_int_eq(run_cmd_err(dir, p.buf, NULL, &err), 2);
        ck_assert_msg(strstr(err, ": no input (expected `perf script` output")
                      != NULL, "%s", err);
        ck_assert_ptr_null(strstr(err, "timestamps"));
        free(err);
    }
    sb_reset(&p);
    sb_printf(&p, "%s/folded", dir);
    ck_assert_int_eq(run_cmd_err(dir, p.buf, NULL, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "folded input has no per-sample "
                                      "timestamps"));
    free(err);
    /* forced perf format: still "no input" */
    sb_reset(&p);
    sb_printf(&p, "%s/empty", dir);
    ck_assert_int_eq(run_cmd_err(dir, "--input-format=perf", p.buf, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "no input"));
    free(err);
    sb_free(&p);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(command)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "p.perf",
             "app 1 [000] 7.999999: 1 cpu-clock: \n\t1 f (/x)\n\t2 main (/x)\n\n"
             "app 1 [000] 8.000000: 1 cpu-clock: \n\t1 g (/x)\n\t2 main (/x)\n");
    tu_write(dir, "f.folded", "main;f 3\n");
    strbuf in = STRBUF_INIT, out = STRBUF_INIT, fin = STRBUF_INIT;
    sb_printf(&in, "%s/p.perf", dir);
    sb_printf(&out, "%s/o.json", dir);
    sb_printf(&fin, "%s/f.folded", dir);
    ck_assert_int_eq(run_cmd(dir, "--format=json", "-o", out.buf, in.buf), 0);
    char *txt = tu_slurp(out.buf);
    json_t *j = json_loads(txt, 0, NULL);
    ck_assert_ptr_nonnull(j);
    json_t *v = json_object_get(j, "values");
    ck_assert_int_eq(json_array_size(v), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(v, 0), 0)), 1);
    ck_assert_int_eq(json_integer_value(json_array_get(json_array_get(v, 1), 49)), 1);
    json_decref(j);
    free(txt);
    ck_assert_int_eq(run_cmd(dir, "--rows", "0", in.buf, NULL), 2);
    ck_assert_int_eq(run_cmd(dir, "--format", "png", in.buf, NULL), 2);
    ck_assert_int_eq(run_cmd(dir, "-o", out.buf, fin.buf, NULL), 2);
    sb_free(&in);
    sb_free(&out);
    sb_free(&fin);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

TEST_SUITE(client_heatmap)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("heatmap");
    tcase_add_test(tc, cell_arithmetic);
    tcase_add_test(tc, empty_input_says_no_input);
    tcase_add_test(tc, weighted_records);
    tcase_add_test(tc, grid_known_offsets);
    tcase_add_test(tc, disorder_and_errors);
    tcase_add_test(tc, idle_regex_and_perf_time);
    tcase_add_test(tc, colours);
    tcase_add_test(tc, outputs);
    tcase_add_test(tc, base64_and_varint);
    tcase_add_test(tc, command);
    suite_add_tcase(s, tc);
    return s;
}
