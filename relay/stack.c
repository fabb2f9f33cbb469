/* stack: SystemTap backtraces, perf script frames and folded stacks to
 * canonical folded form (see stack.h; grammar in docs/formats.md). */
#include "relay/stack.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    size_t n;
} span;

/* Which half of the address space a line says its frame is in. */
typedef enum { SIDE_UNKNOWN, SIDE_USER, SIDE_KERNEL } side;

typedef struct {
    char *name;        /* frame text without annotation */
    side where;        /* SystemTap lines: evidence, resolved at the end */
    const char *mark;  /* perf lines: annotation decided by the line */
} frame;

typedef struct {
    frame *f;
    size_t n, cap;
} frame_list;

static void free_list(frame_list *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        free(fl->f[i].name);
    free(fl->f);
}

/* ---- spans ----------------------------------------------------------- */

static span sp(const char *s, size_t n)
{
    return (span){s, n};
}

static span trim(span t)
{
    while (t.n > 0 && isspace((unsigned char)t.s[0])) {
        t.s++;
        t.n--;
    }
    while (t.n > 0 && isspace((unsigned char)t.s[t.n - 1]))
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
    for (size_t i = 0; i + m <= t.n; i++)
        if (memcmp(t.s + i, p, m) == 0)
            return true;
    return false;
}

static size_t hex_run(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isxdigit((unsigned char)s[i]))
        i++;
    return i;
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
        if (!isdigit((unsigned char)t.s[i]))
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

/* ---- frames ---------------------------------------------------------- */

/* Copy a frame name: ';' separates frames, so it becomes ':'; control
 * bytes become '_' (a folded stack is one line). */
static char *frame_text(span pre, span name, span post)
{
    char *f = malloc(pre.n + name.n + post.n + 1);
    if (f == NULL)
        return NULL;
    size_t k = 0;
    const span parts[3] = {pre, name, post};
    for (int p = 0; p < 3; p++)
        for (size_t i = 0; i < parts[p].n; i++) {
            char c = parts[p].s[i];
            f[k++] = c == ';' ? ':' : (unsigned char)c < 0x20 ? '_' : c;
        }
    f[k] = '\0';
    return f;
}

static int push(frame_list *fl, char *name, side where, const char *mark)
{
    if (name == NULL)
        return -1;
    if (fl->n == fl->cap) {
        size_t nc = fl->cap ? fl->cap * 2 : 32;
        frame *nf = realloc(fl->f, nc * sizeof(*nf));
        if (nf == NULL) {
            free(name);
            return -1;
        }
        fl->f = nf;
        fl->cap = nc;
    }
    fl->f[fl->n++] = (frame){name, where, mark};
    return 0;
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

static side stap_side(span addr, span mod, bool has_mod)
{
    if (has_mod && mod.n == 6 && memcmp(mod.s, "kernel", 6) == 0)
        return SIDE_KERNEL;
    if (has_mod && memchr(mod.s, '/', mod.n) != NULL)
        return SIDE_USER;
    if (addr.n > 0)
        return kernel_address(addr) ? SIDE_KERNEL : SIDE_USER;
    return SIDE_UNKNOWN;   /* "sym+0x1 [ext4]" or "[libc.so.6]": see resolve() */
}

/* line := [ADDR " : "] body [" (inexact)"]
 * body := SYM "+" OFF ["/" SIZE] [" [" MODULE "]"]
 *       | ADDR [" [" MODULE ["+" OFF ["/" SIZE]] "]"]
 * Returns 1 with a frame pushed, 0 when the line is not this shape, -1
 * when out of memory. */
static int parse_stap(span l, frame_list *fl)
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
            return 0;
    }
    span head = body, mod = {NULL, 0};
    bool has_mod = false;
    if (body.n > 0 && body.s[body.n - 1] == ']') {
        size_t p = body.n;
        while (p-- > 1)
            if (body.s[p] == '[' && body.s[p - 1] == ' ')
                break;
        if (p == 0)
            return 0;
        head = trim(sp(body.s, p));
        mod = sp(body.s + p + 1, body.n - p - 2);
        has_mod = mod.n > 0;
    }
    if (head.n == 0)
        return 0;
    if (is_addr(head)) {
        /* unresolved: "[module]" names it (stackcollapse-perf's rule for
         * [unknown] symbols); a bare address stays as it is */
        if (has_mod) {
            mod.n = offset_at(mod);
            mod = basename_of(mod);
        }
        side where = stap_side(addr.n > 0 ? addr : head, mod, has_mod);
        char *name = has_mod && mod.n > 0 ? frame_text(sp("[", 1), mod, sp("]", 1))
                                          : frame_text(sp("", 0), head, sp("", 0));
        return push(fl, name, where, NULL) < 0 ? -1 : 1;
    }
    size_t plus = offset_at(head);
    if (plus == head.n)
        return 0;      /* backtraces always print a symbol's +OFF */
    span sym = trim(sp(head.s, plus));
    if (sym.n == 0)
        return 0;
    char *name = frame_text(sp("", 0), sym, sp("", 0));
    return push(fl, name, stap_side(addr, mod, has_mod), NULL) < 0 ? -1 : 1;
}

/* ---- perf script lines (stackcollapse-perf.pl) ----------------------- */

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

/* Cut the argument list at the first '(' (but keep C++ "(anonymous
 * namespace)" and Go "pkg.(*T).M") and delete quotes, as
 * stackcollapse-perf.pl does. */
static char *perf_tidy(span func)
{
    static const char anon[] = "(anonymous namespace)";
    size_t cut = func.n;
    if (!go_method(func))
        for (size_t i = 0; i < func.n; i++)
            if (func.s[i] == '(' && !starts_with(sp(func.s + i, func.n - i), anon)) {
                cut = i;
                break;
            }
    char *out = frame_text(sp("", 0), sp(func.s, cut), sp("", 0));
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; out[i]; i++)
        if (out[i] != '"' && out[i] != '\'')
            out[k++] = out[i];
    out[k] = '\0';
    return out;
}

static bool jit_map(span dso)
{
    static const char pre[] = "/tmp/perf-";
    for (size_t i = 0; i + sizeof(pre) - 1 < dso.n; i++) {
        if (memcmp(dso.s + i, pre, sizeof(pre) - 1) != 0)
            continue;
        size_t j = i + sizeof(pre) - 1, d = j;
        while (j < dso.n && isdigit((unsigned char)dso.s[j]))
            j++;
        if (j > d && starts_with(sp(dso.s + j, dso.n - j), ".map"))
            return true;
    }
    return false;
}

static const char *perf_mark(span dso)
{
    if (!contains(dso, "unknown") && ((dso.n > 0 && dso.s[0] == '[') || ends_with(dso, "vmlinux")))
        return "_[k]";
    return jit_map(dso) ? "_[j]" : "";
}

static char *perf_name(span part, span dso)
{
    if (part.n == 9 && memcmp(part.s, "[unknown]", 9) == 0) {
        span base = dso.n == 9 && memcmp(dso.s, "[unknown]", 9) == 0 ? sp("unknown", 7)
                                                                      : basename_of(dso);
        char *b = frame_text(sp("[", 1), base, sp("]", 1));
        if (b == NULL)
            return NULL;
        char *t = perf_tidy(sp(b, strlen(b)));
        free(b);
        return t;
    }
    return perf_tidy(part);
}

/* line := HEXADDR blanks FUNC ["+0x" OFF] " (" DSO ")"; FUNC may hold
 * "a->b" inlined calls.  Returns the number of frames pushed (0: a
 * "(...)" process-name line, which perf's collapser skips too), -1 when
 * the line is not this shape, -2 when out of memory. */
static int parse_perf(span l, frame_list *fl)
{
    size_t pc = hex_run(l.s, l.n);
    if (pc == 0 || pc == l.n || !isspace((unsigned char)l.s[pc]) || l.s[l.n - 1] != ')')
        return -1;
    span rest = trim(sp(l.s + pc, l.n - pc));
    size_t open = rest.n;
    for (size_t k = rest.n - 1; k-- > 1;) {
        if (isspace((unsigned char)rest.s[k]))
            break;
        if (rest.s[k] == '(' && rest.s[k - 1] == ' ') {
            open = k;
            break;
        }
    }
    if (open == rest.n)
        return -1;
    span func = trim(sp(rest.s, open)), dso = sp(rest.s + open + 1, rest.n - open - 2);
    if (func.n == 0)
        return -1;
    size_t h = 0;
    while (h < func.n && isxdigit((unsigned char)func.s[func.n - 1 - h]))
        h++;
    if (h > 0 && h + 3 <= func.n && memcmp(func.s + func.n - h - 3, "+0x", 3) == 0)
        func.n -= h + 3;
    if (func.n == 0 || func.s[0] == '(')
        return 0;
    /* "a->b->c" are inlined calls, outermost first: push c, b, a (the
     * list is leaf first); a carries the line's mark, the others _[i] */
    int pushed = 0;
    size_t end = func.n;
    for (;;) {
        size_t a = end;
        for (size_t j = end; j >= 2; j--)
            if (func.s[j - 2] == '-' && func.s[j - 1] == '>') {
                a = j - 2;
                break;
            }
        bool inlined = a != end;
        size_t start = inlined ? a + 2 : 0;
        char *name = perf_name(sp(func.s + start, end - start), dso);
        if (name == NULL)
            return -2;
        const char *mark = !inlined ? perf_mark(dso) : strstr(name, "_[i]") ? "" : "_[i]";
        if (name[0] == '\0') {
            free(name);     /* "(args)" cut to nothing */
        } else {
            if (push(fl, name, strcmp(mark, "_[k]") == 0 ? SIDE_KERNEL : SIDE_USER, mark) < 0)
                return -2;
            pushed++;
        }
        if (!inlined)
            break;
        end = a;
    }
    return pushed;
}

/* ---- the stack ------------------------------------------------------- */

/* Kernel frames come first (leaf side) when SystemTap kernel and user
 * backtraces are concatenated, so a line with no evidence of its own
 * (sprint_backtrace's "sym+0x1 [ext4]" has no address, and a module
 * basename could be either side) is a kernel frame when a kernel frame
 * lies further from the leaf, and a user frame otherwise. */
static void resolve(frame_list *fl)
{
    size_t last_kernel = 0;
    bool any = false;
    for (size_t i = 0; i < fl->n; i++)
        if (fl->f[i].where == SIDE_KERNEL) {
            last_kernel = i;
            any = true;
        }
    for (size_t i = 0; i < fl->n; i++) {
        frame *f = &fl->f[i];
        if (f->mark != NULL)
            continue;
        bool k = f->where == SIDE_KERNEL || (f->where == SIDE_UNKNOWN && any && i < last_kernel);
        f->mark = k ? "_[k]" : "";
    }
}

static char *join(const frame_list *fl, bool reverse)
{
    size_t total = 1;
    for (size_t i = 0; i < fl->n; i++)
        total += strlen(fl->f[i].name) + strlen(fl->f[i].mark) + 1;
    char *out = malloc(total);
    if (out == NULL)
        return NULL;
    size_t k = 0;
    for (size_t j = 0; j < fl->n; j++) {
        const frame *f = &fl->f[reverse ? fl->n - 1 - j : j];
        if (j > 0)
            out[k++] = ';';
        size_t a = strlen(f->name), b = strlen(f->mark);
        memcpy(out + k, f->name, a);
        memcpy(out + k + a, f->mark, b);
        k += a + b;
    }
    out[k] = '\0';
    return out;
}

/* 1 frame(s) pushed or a line without frames, 0 not a frame line, -1 oom */
static int parse_line(span l, frame_list *fl)
{
    if (no_backtrace_line(l))
        return 1;
    int r = parse_stap(l, fl);
    if (r != 0)
        return r;
    r = parse_perf(l, fl);
    return r >= 0 ? 1 : r == -1 ? 0 : -1;
}

/* SystemTap's sprint_* functions cut their text at MAXSTRINGLEN, so the
 * last line of a stack may be a frame cut short (with a newline after it
 * when a tapset splits the text into lines and re-terminates them, as
 * staprelay.stpm does).  It is dropped when its first word could begin a
 * frame line. */
static bool cut_frame(span l)
{
    l = strip_returning(l);
    size_t w = 0;
    while (w < l.n && !isspace((unsigned char)l.s[w]))
        w++;
    span word = sp(l.s, w);
    return w == l.n || lead_addr(word) > 0 || contains(word, "+0x");
}

static void not_a_frame(char *err, size_t errlen, size_t lineno, span l)
{
    char ex[33];
    size_t n = l.n < 32 ? l.n : 29;
    for (size_t i = 0; i < n; i++)
        ex[i] = isprint((unsigned char)l.s[i]) ? l.s[i] : '?';
    ex[n] = '\0';
    snprintf(err, errlen, "line %zu is not a frame: \"%s%s\"", lineno, ex,
             l.n < 32 ? "" : "...");
}

static int fold_folded(span t, frame_list *fl)
{
    const char *p = t.s, *end = t.s + t.n;
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *e = semi ? semi : end;
        span f = trim(sp(p, (size_t)(e - p)));
        if (f.n > 0 && push(fl, frame_text(sp("", 0), f, sp("", 0)), SIDE_USER, "") < 0)
            return -1;
        p = semi ? semi + 1 : end;
    }
    return 0;
}

/* Backtrace text, one frame line per line, leaf first.  Returns 0, or -1
 * with err set. */
static int fold_lines(span t, frame_list *fl, char *err, size_t errlen)
{
    const char *p = t.s, *end = t.s + t.n;
    for (size_t lineno = 1; p < end; lineno++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        span l = trim(sp(p, (size_t)(e - p)));
        p = nl ? nl + 1 : end;
        if (l.n == 0)
            continue;
        int r = parse_line(l, fl);
        if (r < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (r > 0)
            continue;
        if (trim(sp(p, (size_t)(end - p))).n == 0 && fl->n > 0 && cut_frame(l))
            break;
        not_a_frame(err, errlen, lineno, l);
        return -1;
    }
    return 0;
}

char *stack_fold(const char *text, size_t *nframes, char *err, size_t errlen)
{
    frame_list fl = {0};
    size_t len = strlen(text);
    span t = trim(sp(text, len));
    /* One line: folded, unless it is a frame line (a lone SystemTap or
     * perf frame, with or without its newline) */
    bool folded = false, lines = memchr(t.s, '\n', t.n) != NULL;
    if (!lines && memchr(t.s, ';', t.n) == NULL && t.n > 0) {
        size_t before = fl.n;
        int k = parse_line(t, &fl);
        if (k < 0) {
            snprintf(err, errlen, "out of memory");
            free_list(&fl);
            return NULL;
        }
        if (k == 0 && (lead_addr(t) > 0 || starts_with(t, "Returning "))) {
            not_a_frame(err, errlen, 1, t);
            free_list(&fl);
            return NULL;
        }
        folded = k == 0 && fl.n == before;
    } else if (!lines) {
        folded = true;
    } else if (fold_lines(t, &fl, err, errlen) < 0) {
        free_list(&fl);
        return NULL;
    }
    if (folded && fold_folded(t, &fl) < 0) {
        snprintf(err, errlen, "out of memory");
        free_list(&fl);
        return NULL;
    }
    *nframes = fl.n;
    if (fl.n == 0) {
        snprintf(err, errlen, "stack has no frames");
        free_list(&fl);
        return NULL;
    }
    resolve(&fl);
    /* backtrace text is leaf first; folded is already root first */
    char *out = join(&fl, !folded);
    free_list(&fl);
    if (out == NULL)
        snprintf(err, errlen, "out of memory");
    return out;
}

/* ---- instance names -------------------------------------------------- */

/* Bytes that would split the name (blanks: PCP's first-word rule; ',':
 * grafana-pcp's frame separator) or make the escape ambiguous ('%'). */
static bool escaped(unsigned char c)
{
    return c == '%' || c == ',' || c <= 0x20 || c == 0x7f;
}

char *stack_instance_name(const char *folded)
{
    size_t n = 1;
    for (const char *c = folded; *c; c++)
        n += escaped((unsigned char)*c) ? 3 : 1;
    char *out = malloc(n);
    if (out == NULL)
        return NULL;
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (const char *c = folded; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if (u == ';') {
            out[k++] = ',';
        } else if (escaped(u)) {
            out[k++] = '%';
            out[k++] = hex[u >> 4];
            out[k++] = hex[u & 15];
        } else {
            out[k++] = (char)u;
        }
    }
    out[k] = '\0';
    return out;
}
