/* Suite: client/render/flamesvg: the SVG is well formed (xmllint), and the
 * frames it draws -- names, exact weights, title counts and
 * percentages, nesting -- are exactly what the folded input implies. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/render/flamesvg.h"
#include "client/input/folded.h"
#include "tests/testutil.h"

/* ---- helpers ------------------------------------------------------ */

static char *render(const char *folded, const svg_options *so,
                    const ft_options *fo)
{
    stacktab *tab = stacktab_new();
    stacktab_keep_sequence(tab, fo->flamechart);
    stack_sink sink;
    stack_sink_init(&sink, tab, 0, false);
    const char *p = folded;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        folded_feed(&sink, p, n);
        p += n + (nl ? 1 : 0);
    }
    stack_sink_free(&sink);
    ft_options o = *fo;
    if (stacktab_has_col1(tab))
        o.mode = FT_DIFF;
    flametree *t = flametree_build(tab, &o);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(flamesvg_write(fp, t, so), 0);
    fclose(fp);
    flametree_free(t);
    stacktab_free(tab);
    return buf;
}

static bool xmllint_ok(const char *svg)
{
    char *dir = tu_mkdtemp();
    tu_write(dir, "g.svg", svg);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s/g.svg' 2>/dev/null", dir);
    int rc = system(cmd);
    tu_rmtree(dir);
    free(dir);
    return rc == 0;
}

typedef struct frame {
    char  *name;       /* unescaped */
    char  *title;      /* raw title text */
    double y, x, w;
    int    depth;
    char  *path;
} frame;

static char *attr(const char *tag_start, const char *tag_end,
                  const char *name)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = strstr(tag_start, key);
    if (a == NULL || a > tag_end)
        return NULL;
    a += strlen(key);
    const char *e = strchr(a, '"');
    return strndup(a, (size_t)(e - a));
}

static double attr_num(const char *ts, const char *te, const char *name)
{
    char *v = attr(ts, te, name);
    ck_assert_msg(v != NULL, "missing %s", name);
    double d = strtod(v, NULL);
    free(v);
    return d;
}

static char *unescape(const char *s, size_t n)
{
    strbuf sb = STRBUF_INIT;
    static const struct { const char *e; char c; } ents[] = {
        { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' },
    };
    for (size_t i = 0; i < n;) {
        bool done = false;
        for (size_t k = 0; k < 4 && !done; k++) {
            size_t m = strlen(ents[k].e);
            if (i + m <= n && strncmp(s + i, ents[k].e, m) == 0) {
                sb_addc(&sb, ents[k].c);
                i += m;
                done = true;
            }
        }
        if (!done)
            sb_addc(&sb, s[i++]);
    }
    return sb_steal(&sb);
}

static size_t parse_frames(const char *svg, frame **out)
{
    size_t n = 0, cap = 0;
    frame *f = NULL;
    const char *p = strstr(svg, "<g id=\"frames\">");
    ck_assert_ptr_nonnull(p);
    while ((p = strstr(p, "<g >\n<title>")) != NULL) {
        p += strlen("<g >\n<title>");
        const char *te = strstr(p, "</title>");
        const char *rs = strstr(te, "<rect");
        const char *re = strstr(rs, "/>");
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            f = realloc(f, cap * sizeof *f);
        }
        frame *fr = &f[n++];
        memset(fr, 0, sizeof *fr);
        fr->title = strndup(p, (size_t)(te - p));
        const char *paren = strrchr(fr->title, '(');
        ck_assert_ptr_nonnull(paren);
        fr->name = unescape(fr->title, (size_t)(paren - fr->title - 1));
        fr->y = attr_num(rs, re, "y");
        fr->x = attr_num(rs, re, "fg:x");
        fr->w = attr_num(rs, re, "fg:w");
        p = re;
    }
    *out = f;
    return n;
}

static void free_frames(frame *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].name);
        free(f[i].title);
        free(f[i].path);
    }
    free(f);
}

/* Give every frame its depth and root-first path via fg:x nesting. */
static void reconstruct(frame *f, size_t n, double fh, bool inverted)
{
    double rooty = f[0].y;
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, "all") == 0 && f[i].w >= f[0].w)
            rooty = f[i].y;
    for (size_t i = 0; i < n; i++)
        f[i].depth = (int)lround((inverted ? f[i].y - rooty
                                           : rooty - f[i].y) / fh);
    for (int d = 1;; d++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            if (f[i].depth != d)
                continue;
            any = true;
            frame *parent = NULL;
            for (size_t j = 0; j < n; j++)
                if (f[j].depth == d - 1 && f[j].x <= f[i].x
                    && f[i].x < f[j].x + f[j].w)
                    parent = &f[j];
            ck_assert_msg(parent != NULL, "no parent for %s", f[i].name);
            strbuf sb = STRBUF_INIT;
            if (parent->path)
                sb_printf(&sb, "%s;", parent->path);
            sb_adds(&sb, f[i].name);
            f[i].path = sb_steal(&sb);
            ck_assert(f[i].x + f[i].w <= parent->x + parent->w + 1e-9);
        }
        if (!any)
            break;
    }
}

/* Every prefix of every input stack must be exactly one frame with the
 * summed weight, a title of "NAME (N samples, P%)", and nothing else
 * may be drawn. */
static void check_against_folded(const char *svg, const char *folded,
                                 double fh, bool inverted)
{
    stacktab *want = stacktab_new();
    double total = 0;
    const char *p = folded;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        folded_line fl;
        if (folded_parse(p, n, &fl)) {
            total += fl.count[0];
            for (size_t i = 0; i <= fl.stack_len; i++)
                if (i == fl.stack_len || fl.stack[i] == ';')
                    stacktab_add(want, fl.stack, i, 0, fl.count[0]);
        }
        p += n + (nl ? 1 : 0);
    }
    frame *f;
    size_t n = parse_frames(svg, &f);
    reconstruct(f, n, fh, inverted);
    ck_assert_uint_eq(n, stacktab_size(want) + 1);
    for (size_t i = 0; i < n; i++) {
        char cnt[64], expect[512];
        num_thousands(cnt, sizeof cnt, f[i].w);
        if (f[i].depth == 0) {
            ck_assert_double_eq(f[i].w, total);
            snprintf(expect, sizeof expect, "all (%s samples, 100%%)", cnt);
            ck_assert_str_eq(f[i].title, expect);
            continue;
        }
        const stack_entry *e = stacktab_find(want, f[i].path,
                                             strlen(f[i].path));
        ck_assert_msg(e != NULL, "unexpected frame %s", f[i].path);
        ck_assert_double_eq_tol(e->count[0], f[i].w, 1e-9);
        char pct[32];
        snprintf(pct, sizeof pct, "%.2f", 100 * round(f[i].w) / total);
        ck_assert_ptr_nonnull(strstr(f[i].title, cnt));
        snprintf(expect, sizeof expect, "samples, %s%%)", pct);
        ck_assert_msg(strstr(f[i].title, expect) != NULL, "%s lacks %s",
                      f[i].title, expect);
    }
    free_frames(f, n);
    stacktab_free(want);
}

static const char sample[] =
    "main;init;parse 120\n"
    "main;run;compute;add 900\n"
    "main;run;compute;mul 450\n"
    "main;run;io;read 300\n"
    "main;run 77\n"
    "main;run;io;write 33\n"
    "other;x 20\n";

/* ---- tests -------------------------------------------------------- */

START_TEST(frames_match_folded_input)
{
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    ft_options fo = { 0 };
    char *svg = render(sample, &so, &fo);
    ck_assert(xmllint_ok(svg));
    check_against_folded(svg, sample, so.frameheight, false);
    ck_assert_ptr_nonnull(strstr(svg, "<text id=\"title\""));
    ck_assert_ptr_nonnull(strstr(svg, ">Flame Graph</text>"));
    ck_assert_ptr_nonnull(strstr(svg, "id=\"details\""));
    ck_assert_ptr_nonnull(strstr(svg, "id=\"matched\""));
    ck_assert_ptr_nonnull(strstr(svg, "id=\"unzoom\""));
    ck_assert_ptr_nonnull(strstr(svg, "id=\"ignorecase\""));
    ck_assert_ptr_nonnull(strstr(svg, "function zoom("));
    ck_assert_ptr_nonnull(strstr(svg, "history.replaceState"));
    free(svg);
}
END_TEST

START_TEST(geometry_follows_flamegraph_pl)
{
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    ft_options fo = { 0 };
    char *svg = render("a;b 1\na 3\n", &so, &fo);
    /* depthmax 2: H = 3*16 + 36 + 34 = 118; a spans all 1180 px */
    ck_assert_ptr_nonnull(strstr(svg, "width=\"1200\" height=\"118\""));
    ck_assert_ptr_nonnull(strstr(svg,
        "<title>a (4 samples, 100.00%)</title><rect x=\"10.0\" y=\"53\" "
        "width=\"1180.0\" height=\"15.0\""));
    /* b: 1/4 of 1180 = 295 px, left aligned, label "b" at x+3 */
    ck_assert_ptr_nonnull(strstr(svg,
        "<title>b (1 samples, 25.00%)</title><rect x=\"10.0\" y=\"37\" "
        "width=\"295.0\" height=\"15.0\""));
    ck_assert_ptr_nonnull(strstr(svg, "<text  x=\"13.00\" y=\"47.5\" >b</text>"));
    free(svg);
}
END_TEST

START_TEST(hostile_names_are_escaped)
{
    const char *in =
        "main;a<b>&c;\"quoted\" 'x';bad\xff\xfe utf8;ctl\x01\x02 5\n"
        "main;]]>;</script> 3\n"
        "main;caf\xc3\xa9 2\n";
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    so.title = "T <&> \"q\"";
    so.subtitle = "]]> & --";
    so.nametype = "Fn\"]]></script>:";
    so.notes = "a -- b <c>";
    ft_options fo = { 0 };
    char *svg = render(in, &so, &fo);
    ck_assert(xmllint_ok(svg));
    frame *f;
    size_t n = parse_frames(svg, &f);
    bool saw_amp = false, saw_bad = false, saw_cafe = false;
    for (size_t i = 0; i < n; i++) {
        saw_amp |= strcmp(f[i].name, "a<b>&c") == 0;
        saw_bad |= strcmp(f[i].name, "bad\\xFF\\xFE utf8") == 0;
        saw_cafe |= strcmp(f[i].name, "caf\xc3\xa9") == 0;
    }
    ck_assert(saw_amp && saw_bad && saw_cafe);
    free_frames(f, n);
    free(svg);
}
END_TEST

/* Issue 13: control bytes, non-characters and invalid UTF-8 in any
 * user-supplied string (--notes, --nametype, --title, --subtitle,
 * --countname, the font) went raw into the SVG, which was then not XML. */
START_TEST(hostile_options_are_escaped)
{
    static const char *hostile[] = {
        "ctl\x01\x02\x1b[31m\x7f", "nonchar \xef\xbf\xbe \xef\xbf\xbf", "bad \xff\xc3",
        "dash -- - -", "end -", "]]> </script> <!-- -->", "nl\nand\rcr\ttab",
        "c1 \xc2\x85 \xc2\x9f", "ls \xe2\x80\xa8 ps \xe2\x80\xa9", "surrogate \xed\xa0\x80",
    };
    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        svg_options so;
        svg_options_default(&so);
        so.minwidth = 0;
        so.title = so.subtitle = so.nametype = so.notes = so.countname = hostile[i];
        ft_options fo = { 0 };
        char *svg = render("main;a 5\nmain;b 3\n", &so, &fo);
        ck_assert_msg(xmllint_ok(svg), "not XML with user strings \"%s\"", hostile[i]);
        free(svg);
    }
}
END_TEST

START_TEST(minwidth_prunes_and_height_follows)
{
    strbuf in = STRBUF_INIT;
    sb_adds(&in, "big 100000\n");
    sb_adds(&in, "tiny;deeper;deepest 1\n");
    svg_options so;
    svg_options_default(&so);      /* 0.1 px: 1/100001*1180 px is less */
    ft_options fo = { 0 };
    char *svg = render(in.buf, &so, &fo);
    ck_assert_ptr_null(strstr(svg, "deepest"));
    ck_assert_ptr_nonnull(strstr(svg, "height=\"102\""));   /* 2*16+70 */
    free(svg);
    so.minwidth = 0;
    svg = render(in.buf, &so, &fo);
    ck_assert_ptr_nonnull(strstr(svg, "deepest"));
    free(svg);
    so.minwidth = 50;              /* percent */
    so.minwidth_pct = true;
    svg = render("a 60\nb 40\n", &so, &fo);
    ck_assert_ptr_nonnull(strstr(svg, "<title>a ("));
    ck_assert_ptr_null(strstr(svg, "<title>b ("));
    free(svg);
    sb_free(&in);
}
END_TEST

START_TEST(inverted_flamechart_and_titles)
{
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    so.inverted = true;
    ft_options fo = { 0 };
    char *svg = render(sample, &so, &fo);
    ck_assert_ptr_nonnull(strstr(svg, ">Icicle Graph</text>"));
    ck_assert_ptr_nonnull(strstr(svg, "var inverted = 1;"));
    check_against_folded(svg, sample, so.frameheight, true);
    free(svg);
    svg_options_default(&so);
    so.flamechart = true;
    fo.flamechart = true;
    svg = render("m;a 1\nm;b 1\nm;a 1\n", &so, &fo);
    ck_assert_ptr_nonnull(strstr(svg, ">Flame Chart</text>"));
    frame *f;
    size_t n = parse_frames(svg, &f);
    int as = 0;
    for (size_t i = 0; i < n; i++)
        as += strcmp(f[i].name, "a") == 0;
    ck_assert_int_eq(as, 2);
    free_frames(f, n);
    free(svg);
}
END_TEST

START_TEST(differential_titles_and_colours)
{
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    ft_options fo = { 0 };
    char *svg = render("m;grew 10 30\nm;shrank 40 10\nm;same 5 5\n", &so, &fo);
    ck_assert(xmllint_ok(svg));
    /* total (after) 45; deltas +20, -30, 0; maxdelta 30 */
    ck_assert_ptr_nonnull(strstr(svg, "<title>grew (30 samples, 66.67%; +44.44%)"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>shrank (10 samples, 22.22%; -66.67%)"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>same (5 samples, 11.11%; 0.00%)"));
    /* grew: k = int(210*(30-20)/30) = 70 → rgb(255,70,70); shrank: blue 0 */
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"rgb(255,70,70)\""));
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"rgb(0,0,255)\""));
    free(svg);
}
END_TEST

/* --negate (difffolded's before/after read the other way): deltas and
 * hues swap, an unchanged frame still reads 0.00% (never -0.00%) */
START_TEST(differential_negate)
{
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    so.negate = true;
    ft_options fo = { 0 };
    char *svg = render("m;grew 10 30\nm;shrank 40 10\nm;same 5 5\n", &so, &fo);
    ck_assert(xmllint_ok(svg));
    ck_assert_ptr_nonnull(strstr(svg, "<title>grew (30 samples, 66.67%; -44.44%)"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>shrank (10 samples, 22.22%; +66.67%)"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>same (5 samples, 11.11%; 0.00%)"));
    ck_assert_ptr_nonnull(strstr(svg, "<title>m (45 samples, 100.00%; 0.00%)"));
    ck_assert_ptr_null(strstr(svg, "-0.00%"));
    /* grew is blue now: k = 70 → rgb(70,70,255); shrank red: rgb(255,0,0) */
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"rgb(70,70,255)\""));
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"rgb(255,0,0)\""));
    ck_assert_ptr_null(strstr(svg, "fill=\"rgb(255,70,70)\""));
    ck_assert_ptr_null(strstr(svg, "fill=\"rgb(0,0,255)\""));
    /* unchanged frames stay white */
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"rgb(255,255,255)\""));
    free(svg);
}
END_TEST

START_TEST(labels_truncate_with_dots)
{
    svg_options so;
    svg_options_default(&so);
    so.minwidth = 0;
    so.width = 120;                 /* 100 px: int(100/7.08) = 14 chars */
    ft_options fo = { 0 };
    char *svg = render("abcdefghijklmnopqrstuvwxyz 1\n", &so, &fo);
    ck_assert_ptr_nonnull(strstr(svg, ">abcdefghijkl..</text>"));
    free(svg);
}
END_TEST

START_TEST(output_is_deterministic)
{
    svg_options so;
    svg_options_default(&so);
    ft_options fo = { 0 };
    char *a = render(sample, &so, &fo);
    char *b = render(sample, &so, &fo);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(deep_stack_renders)
{
    strbuf in = STRBUF_INIT;
    for (int i = 0; i < 2500; i++)
        sb_printf(&in, i ? ";frame%d" : "frame%d", i);
    sb_adds(&in, " 10\n");
    svg_options so;
    svg_options_default(&so);
    ft_options fo = { 0 };
    char *svg = render(in.buf, &so, &fo);
    ck_assert(xmllint_ok(svg));
    check_against_folded(svg, in.buf, so.frameheight, false);
    free(svg);
    sb_free(&in);
}
END_TEST

/* The printf-free number writers must agree with printf everywhere:
 * exact ties (round half to even), their neighbours, negatives, -0,
 * huge values and non-numbers. */
START_TEST(numbers_match_printf)
{
    uint64_t x = 88172645463325252ull;
    strbuf sb = STRBUF_INIT;
    char want[512];
    for (int i = 0; i < 600000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        switch (i % 8) {
        case 0: v = (double)(x % 100000000) / 1000; break;
        case 1: v = (double)(x % 10000000) / 8; break;       /* ties */
        case 2: v = nextafter((double)(x % 1000000) / 8, 0); break;
        case 3: v = nextafter((double)(x % 1000000) / 8, 1e300); break;
        case 4: v = 10 + (double)(x % 1000000) * (1180.0 / 999983); break;
        case 5: v = -(double)(x % 100000) / 200; break;
        case 6: memcpy(&v, &x, sizeof v); break;            /* any bits */
        default: v = (double)(x % 1000) * 1e-3 + 1e13 * (x % 3); break;
        }
        for (int digits = 1; digits <= 2; digits++) {
            sb_reset(&sb);
            flamesvg_fixed(&sb, v, digits);
            snprintf(want, sizeof want, "%.*f", digits, v);
            ck_assert_msg(strcmp(sb.buf, want) == 0, "%.17g: %s != %s", v,
                          sb.buf, want);
        }
        sb_reset(&sb);
        flamesvg_perl_num(&sb, v);
        snprintf(want, sizeof want, "%.15g", v == 0 ? 0 : v);
        ck_assert_msg(strcmp(sb.buf, want) == 0, "%.17g: %s != %s", v,
                      sb.buf, want);
        if (v == floor(v) && fabs(v) < 1e18) {
            char got[64], digits[64];
            num_thousands(got, sizeof got, v);
            snprintf(digits, sizeof digits, "%.0f", v);
            size_t j = 0;
            for (const char *p = got; *p; p++)
                if (*p != ',')
                    want[j++] = *p;
            want[j] = '\0';
            ck_assert_str_eq(want, digits);
        }
    }
    const double special[] = { 0.0, -0.0, 0.05, 0.15, 0.25, 0.35, 0.125,
                               0.375, -0.05, -0.04, 2.5, 1e15, 4e14, 4e15,
                               9.007199254740993e15, 1e300, -1e300, INFINITY,
                               -INFINITY, NAN, 5e-324, 1180.05, 2031.5 };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        for (int digits = 1; digits <= 2; digits++) {
            sb_reset(&sb);
            flamesvg_fixed(&sb, special[i], digits);
            snprintf(want, sizeof want, "%.*f", digits, special[i]);
            ck_assert_str_eq(sb.buf, want);
        }
    sb_free(&sb);
}
END_TEST

static char *write_tree(const flametree *t, const svg_options *so)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_int_eq(flamesvg_write(fp, t, so), 0);
    fclose(fp);
    return buf;
}

/* Building only the frames that will be drawn (ft_options.prune) must
 * not change a byte of the SVG, whatever the options. */
START_TEST(pruned_build_renders_the_same)
{
    /* frac: fractional weights take the flow builder, as flame charts
     * (fc) do */
    for (int frac = 0; frac < 2; frac++)
    for (int fc = 0; fc < 2; fc++) {
        stacktab *tab = stacktab_new();
        stacktab_keep_sequence(tab, true);
        char buf[96];
        for (int i = 0; i < 3000; i++) {
            int n = snprintf(buf, sizeof buf, "r%d;m%d;f%d;g%d", i % 2,
                             i % 7, i % 61, i);
            double w = i % 97 == 0 ? 500 : 1 + i % 4;
            if (frac)
                w += 0.1 * (i % 3);
            stacktab_add(tab, buf, (size_t)n, 0, w);
            if (i % 3)
                stacktab_add(tab, buf, (size_t)n, 1, 1 + i % 5);
        }
        stacktab_add(tab, "", 0, 0, 3);
        stacktab_add(tab, "r0;;x;", 6, 0, 40);
        for (int v = 0; v < 32; v++) {
            svg_options so;
            svg_options_default(&so);
            ft_options fo = { 0 };
            fo.mode = (v & 1) ? FT_DIFF : FT_SINGLE;
            fo.reverse = v & 2;
            fo.sort_weight = v & 4;
            fo.flamechart = fc;
            so.flamechart = fc;
            switch (v >> 3) {
            case 0: break;                            /* 0.1 px */
            case 1: so.minwidth = 0; break;
            case 2: so.minwidth = 4; so.width = 700; break;
            case 3: so.minwidth = 1; so.minwidth_pct = true; break;
            }
            flametree *full = flametree_build(tab, &fo);
            flamesvg_tree_options(&so, &fo);
            flametree *pruned = flametree_build(tab, &fo);
            ck_assert_uint_le(pruned->n, full->n);
            if (v >> 3 != 1)
                ck_assert_uint_lt(pruned->n, full->n);
            char *a = write_tree(full, &so);
            char *b = write_tree(pruned, &so);
            ck_assert_msg(strcmp(a, b) == 0, "variant %d frac %d fc %d", v,
                          frac, fc);
            free(a);
            free(b);
            flametree_free(full);
            flametree_free(pruned);
        }
        stacktab_free(tab);
    }
}
END_TEST

START_TEST(million_distinct_stacks_render)
{
    stacktab *tab = stacktab_new();
    char buf[96];
    double total = 0;
    for (int i = 0; i < 1000000; i++) {
        int n = snprintf(buf, sizeof buf, "main;m%d;f%d;leaf%d", i % 13,
                         i % 1009, i);
        double w = 1 + i % 5;
        stacktab_add(tab, buf, (size_t)n, 0, w);
        total += w;
    }
    ck_assert_uint_eq(stacktab_size(tab), 1000000);
    ft_options fo = { 0 };
    flametree *t = flametree_build(tab, &fo);
    ck_assert_double_eq(flametree_total(t), total);
    svg_options so;
    svg_options_default(&so);
    char *svg = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&svg, &len);
    ck_assert_int_eq(flamesvg_write(fp, t, &so), 0);
    fclose(fp);
    ck_assert(xmllint_ok(svg));
    char want[64], cnt[40];
    snprintf(want, sizeof want, "all (%s samples",
             num_thousands(cnt, sizeof cnt, total));
    ck_assert_ptr_nonnull(strstr(svg, want));
    free(svg);
    flametree_free(t);
    stacktab_free(tab);
}
END_TEST

TEST_SUITE(client_flamesvg)
{
    Suite *s = suite_create(test_suite_name);
    TCase *tc = tcase_create("svg");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, frames_match_folded_input);
    tcase_add_test(tc, geometry_follows_flamegraph_pl);
    tcase_add_test(tc, hostile_names_are_escaped);
    tcase_add_test(tc, hostile_options_are_escaped);
    tcase_add_test(tc, minwidth_prunes_and_height_follows);
    tcase_add_test(tc, inverted_flamechart_and_titles);
    tcase_add_test(tc, differential_titles_and_colours);
    tcase_add_test(tc, differential_negate);
    tcase_add_test(tc, labels_truncate_with_dots);
    tcase_add_test(tc, output_is_deterministic);
    tcase_add_test(tc, deep_stack_renders);
    tcase_add_test(tc, pruned_build_renders_the_same);
    tcase_add_test(tc, numbers_match_printf);
    suite_add_tcase(s, tc);
    TCase *big = tcase_create("big");
    tcase_set_timeout(big, 300);
    tcase_add_test(big, million_distinct_stacks_render);
    suite_add_tcase(s, big);
    return s;
}
