/* palette: frame colours and the consistent palette (see palette.h). */
#include "client/render/palette.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/stack/hotcold.h"
#include "client/stack/stacktab.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

static const struct { const char *name; palette p; } palettes[] = {
    { "hot", PAL_HOT }, { "mem", PAL_MEM }, { "io", PAL_IO },
    { "wakeup", PAL_WAKEUP }, { "chain", PAL_CHAIN }, { "java", PAL_JAVA },
    { "js", PAL_JS }, { "perl", PAL_PERL }, { "red", PAL_RED },
    { "green", PAL_GREEN }, { "blue", PAL_BLUE }, { "aqua", PAL_AQUA },
    { "yellow", PAL_YELLOW }, { "purple", PAL_PURPLE },
    { "orange", PAL_ORANGE }, { "hotcold", PAL_HOTCOLD },
};

bool palette_parse(const char *name, palette *out)
{
    for (size_t i = 0; i < sizeof palettes / sizeof palettes[0]; i++)
        if (strcmp(name, palettes[i].name) == 0) {
            *out = palettes[i].p;
            return true;
        }
    return false;
}

const char *palette_name(palette p)
{
    for (size_t i = 0; i < sizeof palettes / sizeof palettes[0]; i++)
        if (palettes[i].p == p)
            return palettes[i].name;
    return "hot";
}

double perl_srand_rand(uint32_t seed)
{
    /* Perl's drand48: X0 = seed<<16 | 0x330E, X1 = a*X0 + c mod 2^48 */
    uint64_t x = ((uint64_t)seed << 16) + 0x330E;
    x = (x * 0x5DEECE66Dull + 0xB) & ((1ull << 48) - 1);
    return (double)x / (double)(1ull << 48);
}

uint32_t name_codepoint_sum(const char *s, size_t n)
{
    uint32_t sum = 0;     /* unpack("%32W*"): sum modulo 2^32 */
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        if (len == 0) {           /* invalid byte: its value */
            cp = (unsigned char)s[i];
            len = 1;
        }
        sum += cp;
        i += len;
    }
    return sum;
}

double flame_namehash(const char *s, size_t n)
{
    /* a leading "module`" prefix is dropped */
    for (size_t i = 1; i < n; i++)
        if (s[i] == '`') {
            s += i + 1;
            n -= i + 1;
            break;
        }
    double vector = 0, weight = 1, max = 1;
    int mod = 10;
    size_t i = 0;
    while (i < n && mod <= 12) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        if (len == 0) {
            cp = (unsigned char)s[i];
            len = 1;
        }
        i += len;
        double v = (double)(cp % (uint32_t)mod);
        vector += (v / (mod - 1)) * weight;
        mod++;
        max += weight;
        weight *= 0.70;
    }
    return 1 - vector / max;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t m = strlen(suf);
    return n >= m && memcmp(s + n - m, suf, m) == 0;
}

static bool has(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, needle, m) == 0)
            return true;
    return false;
}

static bool java_prefixed(const char *s, size_t n)
{
    static const char *pkgs[] = { "java/", "javax/", "jdk/", "net/",
                                  "org/", "com/", "io/", "sun/" };
    if (n > 0 && s[0] == 'L') {
        s++;
        n--;
    }
    for (size_t i = 0; i < sizeof pkgs / sizeof pkgs[0]; i++) {
        size_t m = strlen(pkgs[i]);
        if (n >= m && memcmp(s, pkgs[i], m) == 0)
            return true;
    }
    return false;
}

/* The multi-palettes pick a flat palette from annotations and names. */
static palette resolve(palette p, const char *s, size_t n)
{
    switch (p) {
    case PAL_JAVA:
        if (ends_with(s, n, "_[j]")) return PAL_GREEN;
        if (ends_with(s, n, "_[i]")) return PAL_AQUA;
        if (java_prefixed(s, n)) return PAL_GREEN;
        if (has(s, n, ":::")) return PAL_GREEN;
        if (has(s, n, "::")) return PAL_YELLOW;
        if (ends_with(s, n, "_[k]")) return PAL_ORANGE;
        return PAL_RED;
    case PAL_PERL:
        if (has(s, n, "::")) return PAL_YELLOW;
        if (has(s, n, "Perl") || has(s, n, ".pl")) return PAL_GREEN;
        if (ends_with(s, n, "_[k]")) return PAL_ORANGE;
        return PAL_RED;
    case PAL_JS:
        if (ends_with(s, n, "_[j]"))
            return has(s, n, "/") ? PAL_GREEN : PAL_AQUA;
        if (has(s, n, "::")) return PAL_YELLOW;
        if (has(s, n, "/") && has(s, n, ".js")) return PAL_GREEN;
        if (has(s, n, ":")) return PAL_AQUA;
        if (n == 1 && s[0] == ' ') return PAL_GREEN;
        if (has(s, n, "_[k]")) return PAL_ORANGE;
        return PAL_RED;
    case PAL_WAKEUP:
        return PAL_AQUA;
    case PAL_CHAIN:
        return has(s, n, "_[w]") ? PAL_AQUA : PAL_BLUE;
    case PAL_HOTCOLD:      /* by name alone: only the mark itself */
        return palette_of_part(p, s, n);
    default:
        return p;
    }
}

palette palette_of_part(palette p, const char *root, size_t root_len)
{
    if (p != PAL_HOTCOLD)
        return p;
    static const char off[] = HOTCOLD_OFF;
    return root_len == sizeof off - 1 && memcmp(root, off, root_len) == 0
           ? PAL_BLUE : PAL_HOT;
}

rgb palette_color(palette p, bool use_hash, const char *name, size_t len)
{
    if (len == 2 && memcmp(name, "--", 2) == 0)
        return (rgb){ 160, 160, 160 };
    if (len == 1 && name[0] == '-')
        return (rgb){ 200, 200, 200 };
    double v1, v2, v3;
    if (use_hash) {
        v1 = flame_namehash(name, len);
        char rev[512];
        /* reverse by bytes of at most the first 512: namehash only ever
         * looks at three characters (of the reversed name's start) */
        size_t m = len < sizeof rev ? len : sizeof rev;
        for (size_t i = 0; i < m; i++)
            rev[i] = name[len - 1 - i];
        v2 = v3 = flame_namehash(rev, m);
    } else {
        v1 = v2 = v3 = perl_srand_rand(name_codepoint_sum(name, len));
    }
    switch (resolve(p, name, len)) {
    case PAL_HOT:
        return (rgb){ 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2) };
    case PAL_MEM:
        return (rgb){ 0, 190 + (int)(50 * v2), (int)(210 * v1) };
    case PAL_IO: {
        int r = 80 + (int)(60 * v1);
        return (rgb){ r, r, 190 + (int)(55 * v2) };
    }
    case PAL_RED: {
        int x = 50 + (int)(80 * v1);
        return (rgb){ 200 + (int)(55 * v1), x, x };
    }
    case PAL_GREEN: {
        int x = 50 + (int)(60 * v1);
        return (rgb){ x, 200 + (int)(55 * v1), x };
    }
    case PAL_BLUE: {
        int x = 80 + (int)(60 * v1);
        return (rgb){ x, x, 205 + (int)(50 * v1) };
    }
    case PAL_YELLOW: {
        int x = 175 + (int)(55 * v1);
        return (rgb){ x, x, 50 + (int)(20 * v1) };
    }
    case PAL_PURPLE: {
        int x = 190 + (int)(65 * v1);
        return (rgb){ x, 80 + (int)(60 * v1), x };
    }
    case PAL_AQUA:
        return (rgb){ 50 + (int)(60 * v1), 165 + (int)(55 * v1),
                      165 + (int)(55 * v1) };
    case PAL_ORANGE:
        return (rgb){ 190 + (int)(65 * v1), 90 + (int)(65 * v1), 0 };
    default:
        return (rgb){ 0, 0, 0 };
    }
}

rgb palette_diff_color(double delta, double maxdelta, bool negate)
{
    if (negate)
        delta = -delta;
    if (maxdelta <= 0)
        maxdelta = 1;
    if (delta > 0) {
        int k = (int)(210 * (maxdelta - delta) / maxdelta);
        return (rgb){ 255, k, k };
    }
    if (delta < 0) {
        int k = (int)(210 * (maxdelta + delta) / maxdelta);
        return (rgb){ k, k, 255 };
    }
    return (rgb){ 255, 255, 255 };
}

void palette_background(palette p, const char **top, const char **bottom)
{
    switch (p) {
    case PAL_MEM:
        *top = "#eef2ee"; *bottom = "#e0ffe0"; return;
    case PAL_IO: case PAL_WAKEUP: case PAL_CHAIN: case PAL_HOTCOLD:
        *top = "#eeeeee"; *bottom = "#e0e0ff"; return;
    case PAL_HOT: case PAL_JAVA: case PAL_JS: case PAL_PERL:
        *top = "#eeeeee"; *bottom = "#eeeeb0"; return;
    default:
        *top = "#f8f8f8"; *bottom = "#e8e8e8"; return;
    }
}

/* ---- the consistent palette (--cp) ---------------------------------- */

/* Names keyed with a stacktab (its entry index is the name's slot in the
 * parallel array). */

struct palette_map {
    stacktab *names;
    char    **color;     /* "rgb(r,g,b)" per entry */
    size_t    cap;
};

static void pm_put(palette_map *m, const char *name, size_t len,
                   const char *color)
{
    size_t i = stacktab_add(m->names, name, len, 0, 1);
    if (i >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        while (cap <= i)
            cap *= 2;
        m->color = xrealloc(m->color, cap * sizeof *m->color);
        memset(m->color + m->cap, 0, (cap - m->cap) * sizeof *m->color);
        m->cap = cap;
    }
    free(m->color[i]);
    m->color[i] = xstrdup(color);
}

palette_map *palette_map_load(const char *path, strbuf *err)
{
    palette_map *m = xcalloc(1, sizeof *m);
    m->names = stacktab_new();
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        if (errno == ENOENT)
            return m;
        sb_printf(err, "%s: %s", path, strerror(errno));
        palette_map_free(m);
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        /* flamegraph.pl: split("->", $line): the name before the first
         * "->", the colour up to the next */
        char *arrow = strstr(line, "->");
        if (arrow == NULL)
            continue;
        char *color = arrow + 2;
        char *more = strstr(color, "->");
        if (more)
            *more = '\0';
        pm_put(m, line, (size_t)(arrow - line), color);
    }
    free(line);
    fclose(fp);
    return m;
}

rgb palette_map_color(palette_map *m, palette p, bool hash, const char *name,
                      size_t len)
{
    const stack_entry *e = stacktab_find(m->names, name, len);
    if (e) {
        size_t i = (size_t)(e - stacktab_entry(m->names, 0));
        rgb c;
        if (i < m->cap && m->color[i]
            && sscanf(m->color[i], "rgb(%d,%d,%d)", &c.r, &c.g, &c.b) == 3)
            return c;
    }
    rgb c = palette_color(p, hash, name, len);
    char buf[48];
    snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", c.r, c.g, c.b);
    pm_put(m, name, len, buf);
    return c;
}

int palette_map_save(const palette_map *m, const char *path, strbuf *err)
{
    FILE *fp = fopen(path, "w");
    if (fp == NULL) {
        sb_printf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t *order = stacktab_sorted(m->names, STACK_ORDER_BYTES);
    const stack_entry *base = stacktab_entry(m->names, 0);
    for (size_t k = 0; k < stacktab_size(m->names); k++) {
        const stack_entry *e = stacktab_entry(m->names, order[k]);
        size_t i = (size_t)(e - base);
        fwrite(e->stack, 1, e->len, fp);
        fprintf(fp, "->%s\n", m->color[i] ? m->color[i] : "");
    }
    free(order);
    if (fclose(fp) != 0) {
        sb_printf(err, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void palette_map_free(palette_map *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free(m->color[i]);
    free(m->color);
    stacktab_free(m->names);
    free(m);
}
