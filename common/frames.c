/* frames: the one frame grammar (see frames.h; docs/formats.md,
 * "Stacks"). */
#include "common/frames.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

typedef struct {
    const char *s;
    size_t n;
} span;

/* ---- ASCII classes ---------------------------------------------------- */

/* The grammar is ASCII (perf and SystemTap print it in the C locale):
 * these are <ctype.h>'s classes there, without a locale lookup per byte
 * (the collapse loop spent a tenth of its time in __ctype_b_loc). */
static inline bool is_space(int c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* A hex digit's value plus one, 0 for any other byte: one load a digit
 * (addresses are 16 of them on every perf frame line). */
static const unsigned char hex_plus1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
    ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* A hex digit's value, or -1. */
static inline int hex_digit(int c)
{
    return (int)hex_plus1[c & 0xff] - 1;
}

/* Eight bytes at a time (a word of the text, any alignment): whether
 * one of them is below n (n <= 128), or equal to c -- exact tests, the
 * bit tricks of "Bit Twiddling Hacks" (hasless, haszero). */
#define ONES  0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
static inline uint64_t word_at(const char *s)
{
    uint64_t w;
    memcpy(&w, s, sizeof w);
    return w;
}

static inline bool word_has_less(uint64_t w, unsigned n)
{
    return ((w - ONES * n) & ~w & HIGHS) != 0;
}

static inline bool word_has_byte(uint64_t w, unsigned char c)
{
    return word_has_less(w ^ (ONES * c), 1);
}

/* Whether t holds a blank (is_space): a word at a time, bytewise only
 * in a word with a byte <= ' ' (DSO paths have none). */
static bool has_blank(const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        if (word_has_less(word_at(s + i), ' ' + 1))
            break;
    for (; i < n; i++)
        if (is_space((unsigned char)s[i]))
            return true;
    return false;
}

/* ---- spans ----------------------------------------------------------- */

static span sp(const char *s, size_t n)
{
    return (span){s, n};
}

static span trim(span t)
{
    while (t.n > 0 && is_space((unsigned char)t.s[0])) {
        t.s++;
        t.n--;
    }
    while (t.n > 0 && is_space((unsigned char)t.s[t.n - 1]))
        t.n--;
    return t;
}

static bool starts_with(span t, const char *p)
{
    size_t m = strlen(p);
    return t.n >= m && memcmp(t.s, p, m) == 0;
}

static bool ends_with(span t, const char *p)
{
    size_t m = strlen(p);
    return t.n >= m && memcmp(t.s + t.n - m, p, m) == 0;
}

static bool contains(span t, const char *p)
{
    size_t m = strlen(p);
    if (m == 0)
        return true;
    const char *at = t.s, *end = t.s + t.n;
    /* memchr to each place the first byte is: the needles are short
     * words ("unknown", "_[i]"), and most texts hold no such byte */
    while ((size_t)(end - at) >= m && (at = memchr(at, p[0], (size_t)(end - at) - m + 1)) != NULL) {
        if (memcmp(at, p, m) == 0)
            return true;
        at++;
    }
    return false;
}

static bool equals(span t, const char *p)
{
    return t.n == strlen(p) && memcmp(t.s, p, t.n) == 0;
}

static size_t hex_run(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && hex_digit((unsigned char)s[i]) >= 0)
        i++;
    return i;
}

/* The value of up to 16 hex digits. */
static uint64_t hex_value(span t)
{
    uint64_t v = 0;
    size_t m = t.n < 16 ? t.n : 16;
    for (size_t i = 0; i < m; i++)
        v = v << 4 | (uint64_t)(hex_plus1[(unsigned char)t.s[i]] - 1);
    return v;
}

/* Length of a leading "0xHEX" (SystemTap's %p), or 0. */
static size_t lead_addr(span t)
{
    if (t.n < 3 || t.s[0] != '0' || (t.s[1] != 'x' && t.s[1] != 'X'))
        return 0;
    size_t h = hex_run(t.s + 2, t.n - 2);
    return h ? 2 + h : 0;
}

static bool is_addr(span t)
{
    return t.n > 0 && lead_addr(t) == t.n;
}

/* A number as %#lx prints it: "0x1f", or "0" (and decimal, leniently). */
static bool is_num(span t)
{
    if (is_addr(t))
        return true;
    if (t.n == 0)
        return false;
    for (size_t i = 0; i < t.n; i++)
        if (!is_digit((unsigned char)t.s[i]))
            return false;
    return true;
}

/* "+OFF" or "+OFF/SIZE". */
static bool is_offset(span t)
{
    if (t.n < 2 || t.s[0] != '+')
        return false;
    t.s++;
    t.n--;
    const char *slash = memchr(t.s, '/', t.n);
    if (slash == NULL)
        return is_num(t);
    size_t k = (size_t)(slash - t.s);
    return is_num(sp(t.s, k)) && is_num(sp(slash + 1, t.n - k - 1));
}

/* Index of the last '+' starting a valid offset suffix, or t.n. */
static size_t offset_at(span t)
{
    for (size_t i = t.n; i-- > 0;)
        if (t.s[i] == '+')
            return is_offset(sp(t.s + i, t.n - i)) ? i : t.n;
    return t.n;
}

/* Kernel text lives in the top half of the 64-bit address space; user
 * addresses print shorter than 16 digits (%p does not pad). */
static bool kernel_address(span a)
{
    return is_addr(a) && a.n == 18 && strchr("89abcdefABCDEF", a.s[2]) != NULL;
}

static span basename_of(span t)
{
    for (size_t i = t.n; i-- > 0;)
        if (t.s[i] == '/')
            return sp(t.s + i + 1, t.n - i - 1);
    return t;
}

void frame_clean(strbuf *out, const char *s, size_t n)
{
    if (!sb_reserve(out, n))
        return;
    char *d = out->buf + out->len;
    if (n)
        memcpy(d, s, n);
    size_t i = 0;
    /* whole words without a ';' or a control byte need nothing */
    while (i + 8 <= n) {
        uint64_t w = word_at(d + i);
        if (word_has_less(w, 0x20) || word_has_byte(w, ';'))
            break;
        i += 8;
    }
    for (; i < n; i++)
        if ((unsigned char)d[i] <= ';')
            d[i] = d[i] == ';' ? ':' : (unsigned char)d[i] < 0x20 ? '_' : d[i];
    out->len += n;
    out->buf[out->len] = '\0';
}

/* ---- SystemTap lines (runtime/sym.c _stp_snprint_addr) --------------- */

/* Lines SystemTap prints instead of a backtrace: no frame in them. */
static bool no_backtrace_line(span l)
{
    return starts_with(l, "<no ") && ends_with(l, ">") && contains(l, "backtrace");
}

/* print_backtrace in a return probe prefixes the first two lines. */
static span strip_returning(span l)
{
    static const char *const pre[] = {"Returning from:", "Returning to  :"};
    for (size_t i = 0; i < 2; i++)
        if (starts_with(l, pre[i]))
            return trim(sp(l.s + strlen(pre[i]), l.n - strlen(pre[i])));
    return l;
}

static frame_side stap_side(span addr, span mod)
{
    if (equals(mod, "kernel"))
        return FRAME_SIDE_KERNEL;
    if (memchr(mod.s, '/', mod.n) != NULL)
        return FRAME_SIDE_USER;
    if (addr.n > 0)
        return kernel_address(addr) ? FRAME_SIDE_KERNEL : FRAME_SIDE_USER;
    return FRAME_SIDE_UNKNOWN;   /* "sym+0x1 [ext4]", "[libc.so.6]": at the end */
}

/* line := [ADDR " : "] body [" (inexact)"]
 * body := SYM "+" OFF ["/" SIZE] [" [" MODULE "]"]
 *       | ADDR [" [" MODULE ["+" OFF ["/" SIZE]] "]"] */
static bool parse_stap(span l, frame_line *fl)
{
    l = strip_returning(l);
    if (ends_with(l, " (inexact)"))
        l = trim(sp(l.s, l.n - 10));
    span addr = {l.s, lead_addr(l)}, body = l;
    if (addr.n > 0 && addr.n < l.n) {
        span rest = sp(l.s + addr.n, l.n - addr.n);
        span after = trim(rest);
        if (rest.s[0] == ' ' && after.n > 0 && after.s[0] == ':')
            body = trim(sp(after.s + 1, after.n - 1));
        else if (!(rest.s[0] == ' ' && after.n > 0 && after.s[0] == '['))
            return false;
    }
    span head = body, mod = {"", 0};
    if (body.n > 0 && body.s[body.n - 1] == ']') {
        size_t p = body.n;
        while (p-- > 1)
            if (body.s[p] == '[' && body.s[p - 1] == ' ')
                break;
        if (p == 0)
            return false;
        head = trim(sp(body.s, p));
        mod = sp(body.s + p + 1, body.n - p - 2);
    }
    if (head.n == 0)
        return false;
    if (is_addr(head)) {
        /* unresolved: the module may carry the offset */
        mod.n = offset_at(mod);
        fl->unresolved = true;
        fl->name = head.s;
        fl->name_len = head.n;
        fl->side = stap_side(addr.n > 0 ? addr : head, mod);
    } else {
        size_t plus = offset_at(head);
        if (plus == head.n)
            return false;      /* backtraces always print a symbol's +OFF */
        span sym = trim(sp(head.s, plus));
        if (sym.n == 0)
            return false;
        span off = sp(head.s + plus + 1, head.n - plus - 1);   /* 0xb[/0xd] */
        if (lead_addr(off) > 0) {
            fl->sym_off = hex_value(sp(off.s + 2, lead_addr(off) - 2));
            fl->has_off = true;
        }
        fl->name = sym.s;
        fl->name_len = sym.n;
        fl->side = stap_side(addr, mod);
    }
    fl->module = mod.n > 0 ? mod.s : NULL;
    fl->module_len = mod.n;
    span where = addr.n > 0 ? addr : fl->unresolved ? head : sp(NULL, 0);
    fl->pc = where.s;
    fl->pc_len = where.n;
    fl->kind = FRAME_STAP;
    return true;
}

/* ---- perf script lines (stackcollapse-perf.pl) ----------------------- */

static bool perf_kernel_dso(span dso)
{
    return ((dso.n > 0 && dso.s[0] == '[') || ends_with(dso, "vmlinux"))
           && !contains(dso, "unknown");
}

static bool perf_jit_dso(span dso)
{
    static const char pre[] = "/tmp/perf-";
    const char *at = dso.s, *end = dso.s + dso.n;
    /* memchr to each '/' (a few a path) rather than memmem, whose set-up
     * costs more than the search on texts this short */
    while (end - at > (ptrdiff_t)(sizeof(pre) - 1)
           && (at = memchr(at, '/', (size_t)(end - at) - (sizeof(pre) - 1))) != NULL) {
        size_t i = (size_t)(at++ - dso.s);
        if (memcmp(dso.s + i, pre, sizeof(pre) - 1) != 0)
            continue;
        size_t j = i + sizeof(pre) - 1, d = j;
        while (j < dso.n && is_digit((unsigned char)dso.s[j]))
            j++;
        if (j > d && starts_with(sp(dso.s + j, dso.n - j), ".map"))
            return true;
    }
    return false;
}

/* A DSO with blanks or parentheses in it ("(/home/a b/app)", perf's
 * "(/lib/x.so (deleted))"), which the usual rule (and
 * stackcollapse-perf.pl's \S*) cuts or drops: the " (" that opens the
 * line's last parenthesised group, parentheses counted from the closing
 * ')'.  rest.n when there is none. */
static size_t balanced_open(span rest)
{
    int depth = 0;
    for (size_t k = rest.n; k-- > 1;) {
        if (rest.s[k] == ')')
            depth++;
        else if (rest.s[k] == '(' && --depth == 0)
            return rest.s[k - 1] == ' ' ? k : rest.n;
    }
    return rest.n;
}

/* line := HEXPC blanks FUNC ["+0x" HEX] " (" DSO ")" */
static bool parse_perf(span l, frame_line *fl)
{
    size_t pc = hex_run(l.s, l.n);
    if (pc == 0 || pc == l.n || !is_space((unsigned char)l.s[pc]) || l.s[l.n - 1] != ')')
        return false;
    span rest = trim(sp(l.s + pc, l.n - pc));
    /* the DSO: after the last " (" with no blank between it and the
     * closing ')'; memrchr jumps to each '(' (one or two a line) */
    size_t open = rest.n, end = rest.n - 1;
    while (end > 1) {
        const char *p = memrchr(rest.s + 1, '(', end - 1);
        size_t k = p ? (size_t)(p - rest.s) : 0;
        if (k == 0 || has_blank(rest.s + k + 1, end - k - 1))
            break;                      /* no '(', or a blank after it */
        if (rest.s[k - 1] == ' ') {
            open = k;
            break;
        }
        end = k;
    }
    if (open == rest.n || memchr(rest.s + open, ')', rest.n - 1 - open) != NULL) {
        size_t b = balanced_open(rest);   /* blanks, or "(x (deleted))" */
        if (b != rest.n)
            open = b;
    }
    if (open == rest.n)
        return false;
    span func = trim(sp(rest.s, open)), dso = sp(rest.s + open + 1, rest.n - open - 2);
    size_t h = 0;
    while (h < func.n && hex_digit((unsigned char)func.s[func.n - 1 - h]) >= 0)
        h++;
    if (h > 0 && h + 3 <= func.n && memcmp(func.s + func.n - h - 3, "+0x", 3) == 0) {
        fl->sym_off = hex_value(sp(func.s + func.n - h, h));
        fl->has_off = true;
        func.n -= h + 3;
    }
    if (func.n == 0)
        return false;
    fl->kind = FRAME_PERF;
    fl->empty = func.s[0] == '(';          /* a process name */
    fl->name = func.s;
    fl->name_len = func.n;
    fl->module = dso.s;
    fl->module_len = dso.n;
    fl->pc = l.s;
    fl->pc_len = pc;
    fl->side = perf_kernel_dso(dso) ? FRAME_SIDE_KERNEL : FRAME_SIDE_USER;
    return true;
}

bool frame_parse(const char *s, size_t n, frame_line *fl)
{
    memset(fl, 0, sizeof *fl);
    span l = trim(sp(s, n));
    if (l.n == 0)
        return false;
    if (no_backtrace_line(l)) {
        fl->kind = FRAME_STAP;
        fl->empty = true;
        return true;
    }
    if (equals(l, FRAME_DELIMITER)) {
        fl->kind = FRAME_DELIM;
        fl->name = l.s;
        fl->name_len = l.n;
        return true;
    }
    /* A line ending in ')' is never SystemTap's (its grammar ends in a
     * symbol's "+OFF[/SIZE]", a "]" or " (inexact)"): perf's lines go
     * straight to parse_perf. */
    bool perf_shaped = l.s[l.n - 1] == ')' && !ends_with(l, " (inexact)");
    if (!perf_shaped) {
        if (parse_stap(l, fl))
            return true;
        memset(fl, 0, sizeof *fl);
    }
    if (parse_perf(l, fl))
        return true;
    memset(fl, 0, sizeof *fl);
    return false;
}

bool frame_line_addressed(const char *s, size_t n)
{
    span l = trim(sp(s, n));
    return lead_addr(l) > 0 || starts_with(l, "Returning ");
}

bool frame_line_cut_short(const char *s, size_t n)
{
    span l = strip_returning(trim(sp(s, n)));
    size_t w = 0;
    while (w < l.n && !is_space((unsigned char)l.s[w]))
        w++;
    span word = sp(l.s, w);
    return w == l.n || lead_addr(word) > 0 || contains(word, "+0x");
}

void frame_process(strbuf *out, const char *comm, size_t comm_len,
                   const char *pid, size_t pid_len, const char *tid,
                   size_t tid_len, bool with_pid, bool with_tid)
{
    if (comm == NULL || comm_len == 0) {
        sb_addc(out, '?');
    } else {
        size_t from = out->len;
        frame_clean(out, comm, comm_len);
        for (size_t i = from; i < out->len; i++)
            if (out->buf[i] == ' ')
                out->buf[i] = '_';
    }
    if (!with_pid && !with_tid)
        return;
    sb_addc(out, '-');
    if (pid != NULL && pid_len > 0)
        frame_clean(out, pid, pid_len);
    else
        sb_addc(out, '?');
    if (with_tid) {
        sb_addc(out, '/');
        if (tid != NULL && tid_len > 0)
            frame_clean(out, tid, tid_len);
        else
            sb_addc(out, '?');
    }
}

/* ---- names ------------------------------------------------------------ */

/* Go method names look like "pkg.(*T).Method": \.\(.*\)\. */
static bool go_method(span t)
{
    for (size_t i = 0; i + 1 < t.n; i++)
        if (t.s[i] == '.' && t.s[i + 1] == '(') {
            for (size_t j = t.n - 1; j > i + 1; j--)
                if (t.s[j] == '.' && t.s[j - 1] == ')')
                    return true;
            return false;
        }
    return false;
}

/* "Lpkg/Class;...": a JVM type signature (perf-map-agent's names). */
static bool jvm_signature(span t)
{
    if (t.n < 2 || t.s[0] != 'L')
        return false;
    const char *semi = memchr(t.s, ';', t.n);
    if (semi == NULL)
        return false;
    span cls = sp(t.s + 1, (size_t)(semi - t.s) - 1);
    return memchr(cls.s, '/', cls.n) != NULL && memchr(cls.s, ' ', cls.n) == NULL
           && memchr(cls.s, '(', cls.n) == NULL;
}

/* Tidy a perf symbol as stackcollapse-perf.pl does, appended as frame
 * text: the JVM 'L' off, the argument list cut at the first '(' (but
 * not "(anonymous namespace)" or a Go method's), quotes deleted. */
static void perf_tidy(strbuf *out, span func)
{
    static const char anon[] = "(anonymous namespace)";
    if (jvm_signature(func)) {
        func.s++;
        func.n--;
    }
    size_t cut = func.n;
    const char *paren = memchr(func.s, '(', func.n);
    if (paren != NULL && !go_method(func))
        for (size_t i = (size_t)(paren - func.s); i < func.n; i++)
            if (func.s[i] == '(' && !starts_with(sp(func.s + i, func.n - i), anon)) {
                cut = i;
                break;
            }
    size_t from = out->len;
    frame_clean(out, func.s, cut);
    if (memchr(func.s, '"', cut) == NULL && memchr(func.s, '\'', cut) == NULL)
        return;                        /* nothing to delete: the usual case */
    size_t k = from;
    for (size_t i = from; i < out->len; i++)
        if (out->buf[i] != '"' && out->buf[i] != '\'')
            out->buf[k++] = out->buf[i];
    if (out->buf != NULL) {
        out->len = k;
        out->buf[k] = '\0';
    }
}

/* One part of a perf FUNC ("a" of "a->b") as a frame name. */
static void perf_name(strbuf *out, span part, const frame_line *fl, bool addrs)
{
    if (!equals(part, "[unknown]")) {
        perf_tidy(out, part);
        return;
    }
    span dso = sp(fl->module, fl->module_len);
    span base = equals(dso, "[unknown]") ? sp("unknown", 7) : basename_of(dso);
    strbuf raw = out->soft ? (strbuf)STRBUF_INIT_SOFT : (strbuf)STRBUF_INIT;
    sb_addc(&raw, '[');
    sb_add(&raw, base.s, base.n);
    if (addrs) {
        sb_adds(&raw, " <");
        sb_add(&raw, fl->pc, fl->pc_len);
        sb_addc(&raw, '>');
    }
    sb_addc(&raw, ']');
    if (raw.failed)
        out->failed = true;
    else
        perf_tidy(out, sp(raw.buf, raw.len));
    sb_free(&raw);
}

/* ---- a stack ------------------------------------------------------------ */

void stackfold_init(stackfold *sf, const frame_opts *opt, bool soft)
{
    memset(sf, 0, sizeof *sf);
    if (opt != NULL)
        sf->opt = *opt;
    sf->names = soft ? (strbuf)STRBUF_INIT_SOFT : (strbuf)STRBUF_INIT;
}

void stackfold_free(stackfold *sf)
{
    sb_free(&sf->names);
    free(sf->f);
    sf->f = NULL;
    sf->n = sf->cap = 0;
}

void stackfold_reset(stackfold *sf)
{
    sb_reset(&sf->names);
    sf->n = 0;
    sf->lines = 0;
    sf->failed = false;
    sf->names.failed = false;
}

size_t stackfold_count(const stackfold *sf) { return sf->n; }

/* Close the name started at from (drop it when empty); returns 1 when a
 * frame was added. */
static size_t push(stackfold *sf, size_t from, frame_side side, const char *mark)
{
    if (sf->names.failed) {
        sf->failed = true;
        return 0;
    }
    if (sf->names.len == from)
        return 0;                     /* an empty name is no frame */
    if (sf->n == sf->cap) {
        size_t nc = sf->cap ? sf->cap * 2 : 32;
        stack_frame *nf;
        if (sf->names.soft) {
            nf = realloc(sf->f, nc * sizeof *nf);
            if (nf == NULL) {
                sf->failed = true;
                sf->names.len = from;
                return 0;
            }
        } else {
            nf = xrealloc(sf->f, nc * sizeof *nf);
        }
        sf->f = nf;
        sf->cap = nc;
    }
    sb_addc(&sf->names, '\0');
    if (sf->names.failed) {
        sf->failed = true;
        return 0;
    }
    sf->f[sf->n++] = (stack_frame){from, side, mark, 0, STACK_FRAME_NO_MODULE,
                                   sf->lines, false, 0};
    return 1;
}

/* The address text of a line ("0x7f3a..." or perf's bare hex), or 0. */
static uint64_t line_addr(const frame_line *fl)
{
    if (fl->pc == NULL)
        return 0;
    span a = sp(fl->pc, fl->pc_len);
    if (lead_addr(a) == a.n) {
        a.s += 2;
        a.n -= 2;
    }
    return hex_value(a);
}

/* Give the last `added` frames where their line says they are. */
static void set_where(stackfold *sf, size_t added, uint64_t addr,
                      const char *module, size_t module_len, bool has_off,
                      uint64_t sym_off)
{
    if (added == 0)
        return;
    size_t module_off = STACK_FRAME_NO_MODULE;
    if (module != NULL && module_len > 0) {
        module_off = sf->names.len;
        sb_add(&sf->names, module, module_len);
        sb_addc(&sf->names, '\0');
        if (sf->names.failed) {
            sf->failed = true;
            module_off = STACK_FRAME_NO_MODULE;
        }
    }
    for (size_t i = sf->n - added; i < sf->n; i++) {
        sf->f[i].addr = addr;
        sf->f[i].module_off = module_off;
        sf->f[i].has_off = has_off;
        sf->f[i].sym_off = sym_off;
    }
}

static size_t add_stap(stackfold *sf, const frame_line *fl)
{
    size_t from = sf->names.len;
    span base = basename_of(sp(fl->module ? fl->module : "", fl->module_len));
    if (fl->unresolved && base.n > 0) {
        sb_addc(&sf->names, '[');
        frame_clean(&sf->names, base.s, base.n);
        sb_addc(&sf->names, ']');
    } else {
        frame_clean(&sf->names, fl->name, fl->name_len);
    }
    return push(sf, from, fl->side, NULL);
}

/* "a->b->c" are inlined calls, outermost first: c, b, a go in (the list
 * is leaf first); a carries the line's mark, the others "_[i]". */
static size_t add_perf(stackfold *sf, const frame_line *fl)
{
    if (fl->empty)
        return 0;
    span func = sp(fl->name, fl->name_len), dso = sp(fl->module, fl->module_len);
    bool kernel = fl->side == FRAME_SIDE_KERNEL;
    size_t added = 0, end = func.n;
    for (;;) {
        size_t a = end;
        for (size_t j = end; j >= 2; j--)
            if (func.s[j - 2] == '-' && func.s[j - 1] == '>') {
                a = j - 2;
                break;
            }
        bool inlined = a != end;
        size_t start = inlined ? a + 2 : 0, from = sf->names.len;
        perf_name(&sf->names, sp(func.s + start, end - start), fl, sf->opt.perf_addrs);
        span name = sp(sf->names.buf ? sf->names.buf + from : "", sf->names.len - from);
        const char *mark = "";
        if (inlined)
            mark = contains(name, "_[i]") ? "" : "_[i]";
        else if (kernel)
            mark = sf->opt.mark_kernel ? "_[k]" : "";
        else if (sf->opt.mark_jit && perf_jit_dso(dso))
            mark = contains(name, "_[j]") ? "" : "_[j]";
        added += push(sf, from, kernel ? FRAME_SIDE_KERNEL : FRAME_SIDE_USER, mark);
        if (!inlined)
            break;
        end = a;
    }
    return added;
}

size_t stackfold_add(stackfold *sf, const frame_line *fl)
{
    size_t added = 0;
    if (fl->kind == FRAME_PERF)
        added = add_perf(sf, fl);
    else if (fl->kind == FRAME_STAP && !fl->empty)
        added = add_stap(sf, fl);
    else if (fl->kind == FRAME_DELIM) {
        size_t from = sf->names.len;
        sb_adds(&sf->names, FRAME_DELIMITER);
        added = push(sf, from, FRAME_SIDE_USER, "");
    }
    set_where(sf, added, line_addr(fl), fl->module, fl->module_len,
              fl->has_off, fl->sym_off);
    sf->lines++;
    return added;
}

void stackfold_push(stackfold *sf, const char *name, size_t n, uint64_t addr,
                    const char *module, unsigned line)
{
    size_t from = sf->names.len;
    frame_clean(&sf->names, name, n);
    if (push(sf, from, FRAME_SIDE_USER, "") == 0)
        return;
    sf->f[sf->n - 1].line = line;
    set_where(sf, 1, addr, module, module ? strlen(module) : 0, false, 0);
    if (line >= sf->lines)
        sf->lines = line + 1;
}

const char *stackfold_name(const stackfold *sf, size_t i)
{
    return sf->names.buf + sf->f[i].off;
}

const char *stackfold_module(const stackfold *sf, size_t i)
{
    size_t m = sf->f[i].module_off;
    return m == STACK_FRAME_NO_MODULE ? NULL : sf->names.buf + m;
}

frame_kind stackfold_line(stackfold *sf, const char *s, size_t n)
{
    frame_line fl;
    if (!frame_parse(s, n, &fl))
        return FRAME_NONE;
    stackfold_add(sf, &fl);
    return fl.kind;
}

void stackfold_folded(stackfold *sf, const char *s, size_t n)
{
    /* root first in the text, leaf first in the list: from the end */
    size_t end = n;
    for (;;) {
        size_t b = end;
        while (b > 0 && s[b - 1] != ';')
            b--;
        span f = trim(sp(s + b, end - b));
        size_t from = sf->names.len;
        frame_clean(&sf->names, f.s, f.n);
        push(sf, from, FRAME_SIDE_USER, "");
        sf->lines++;
        if (b == 0)
            break;
        end = b - 1;
    }
}

bool stackfold_write(const stackfold *sf, strbuf *out)
{
    /* A frame with no evidence of its own (SystemTap's "sym+0x1 [ext4]",
     * "[libc.so.6]") is a kernel frame when a kernel frame of its stack
     * lies further from that stack's leaf: kernel backtraces come first.
     * An off-wake stack is two: below the delimiter (nearest the root)
     * the blocked task's, leaf first as any; above it the waker's,
     * inverted (its leaf next to the delimiter, its root at the top).
     * Written root first: the blocked part's kernel frames further from
     * its leaf are already passed (kernel_below); in the waker's part
     * they are the ones nearer the top, from waker_kernel up. */
    size_t delim = 0, waker_kernel = sf->n;      /* 0: no waker part */
    for (size_t i = sf->n; i-- > 0;)
        if (strcmp(sf->names.buf + sf->f[i].off, FRAME_DELIMITER) == 0) {
            delim = i;
            break;
        }
    for (size_t i = 0; i < delim; i++)
        if (sf->f[i].side == FRAME_SIDE_KERNEL) {
            waker_kernel = i;
            break;
        }
    bool kernel_below = false;
    for (size_t j = 0; j < sf->n; j++) {
        size_t i = sf->n - 1 - j;
        const stack_frame *f = &sf->f[i];
        if (j > 0)
            sb_addc(out, ';');
        sb_adds(out, sf->names.buf + f->off);
        const char *mark = f->mark;
        if (mark == NULL) {
            bool inferred = i < delim ? waker_kernel < i : kernel_below;
            bool k = f->side == FRAME_SIDE_KERNEL
                     || (f->side == FRAME_SIDE_UNKNOWN && inferred);
            mark = k && sf->opt.mark_kernel ? "_[k]" : "";
        }
        sb_adds(out, mark);
        kernel_below = kernel_below || f->side == FRAME_SIDE_KERNEL;
    }
    return !sf->failed && !out->failed;
}
