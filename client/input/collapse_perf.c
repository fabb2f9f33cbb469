/* collapse_perf: `perf script` → folded stacks (see collapse_perf.h). */
#include "client/input/collapse_perf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

struct perf_collapser {
    perf_options opt;
    stack_sink  *sink;
    bool         in_sample;   /* a kept header was seen ($pname set) */
    bool         java;        /* comm starts with "java" */
    double       period;
    strbuf       pname;       /* root frame text */
    strbuf       groups;      /* frames of each line, ';'-joined */
    size_t      *group_off;   /* start of each line's group in groups */
    size_t       ngroups, group_cap;
    strbuf       stack;       /* assembled root-first stack */
    strbuf       tmp;
    strbuf       event;       /* event filter */
    uint64_t     ignored;
    uint64_t     filtered;
};

perf_collapser *perf_collapser_new(const perf_options *opt, stack_sink *sink)
{
    perf_collapser *pc = xcalloc(1, sizeof *pc);
    pc->opt = *opt;
    pc->sink = sink;
    return pc;
}

void perf_collapser_free(perf_collapser *pc)
{
    if (pc == NULL)
        return;
    sb_free(&pc->pname);
    sb_free(&pc->groups);
    sb_free(&pc->stack);
    sb_free(&pc->tmp);
    sb_free(&pc->event);
    free(pc->group_off);
    free(pc);
}

uint64_t perf_collapser_ignored(const perf_collapser *pc) { return pc->ignored; }
uint64_t perf_collapser_filtered(const perf_collapser *pc) { return pc->filtered; }
const char *perf_collapser_event(const perf_collapser *pc)
{
    return pc->event.buf ? pc->event.buf : "";
}

static bool is_word(unsigned char c) { return isalnum(c) || c == '_'; }

/* The period: a digit run of at most 31 characters. */
static double period_of(const char *s, size_t n)
{
    char buf[32];
    size_t len = n < 31 ? n : 31;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtod(buf, NULL);
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return n > 0;
}

/* The fields perf prints between the PID and the event when there is no
 * timestamp: an optional "[CPU]" and an optional period, nothing else
 * ("java 12688/12764 10309278 cpu-clock:", "swapper 0 [000] cpu-clock:").
 * Sets *period (0 when absent); false if [from, to) holds anything
 * else. */
static bool untimed_fields(const char *s, size_t from, size_t to,
                           double *period)
{
    bool cpu = false;
    *period = 0;
    size_t i = from;
    while (i < to) {
        while (i < to && isspace((unsigned char)s[i]))
            i++;
        size_t t = i;
        while (i < to && !isspace((unsigned char)s[i]))
            i++;
        if (i == t)
            break;
        if (!cpu && *period == 0 && i - t >= 3 && s[t] == '['
            && s[i - 1] == ']' && all_digits(s + t + 1, i - t - 2))
            cpu = true;
        else if (*period == 0 && all_digits(s + t, i - t))
            *period = period_of(s + t, i - t);
        else
            return false;
    }
    return true;
}

/* Header, as stackcollapse-perf.pl's regex: a comm of two or more
 * characters (spaces allowed), blanks, PID or PID/TID, blanks; then,
 * optionally, ": [PERIOD] EVENT:" at the end of the line.
 *
 * Without a timestamp (perf script -F without time) there is no ':'
 * before the period; stackcollapse-perf.pl then finds no event (so it
 * filters nothing) and reuses the previous sample's period.  We take
 * the event and period there too, when only "[CPU]" and the period
 * stand between the PID and the event, as inferno does for the event. */
bool perf_parse_header(const char *s, size_t n, perf_header *h)
{
    memset(h, 0, sizeof *h);
    if (n < 2 || isspace((unsigned char)s[0]))
        return false;
    bool found = false;
    size_t pid_end = 0;
    for (size_t p = 2; p < n && !found; p++) {
        if (!isspace((unsigned char)s[p]))
            continue;
        size_t q = p;
        while (q < n && isspace((unsigned char)s[q]))
            q++;
        size_t d1 = q;
        while (q < n && isdigit((unsigned char)s[q]))
            q++;
        if (q == d1)
            continue;
        size_t d1e = q;
        while (q < n && s[q] == '/')
            q++;
        size_t d2 = q;
        while (q < n && isdigit((unsigned char)s[q]))
            q++;
        size_t d2e = q;
        if (q >= n || !isspace((unsigned char)s[q]))
            continue;
        h->comm = s;
        h->comm_len = p;
        if (d2e > d2) {
            h->pid = s + d1;
            h->pid_len = d1e - d1;
            h->tid = s + d2;
            h->tid_len = d2e - d2;
        } else {
            h->tid = s + d1;
            h->tid_len = d1e - d1;
        }
        pid_end = q;
        found = true;
    }
    if (!found)
        return false;
    /* event: the text before the final ':' (trailing blanks allowed),
     * after whitespace; the period is the digit run before it. */
    size_t e = n;
    while (e > 0 && isspace((unsigned char)s[e - 1]))
        e--;
    if (e == 0 || s[e - 1] != ':')
        return true;
    size_t ev_end = e - 1, b = ev_end;
    while (b > 0 && !isspace((unsigned char)s[b - 1]))
        b--;
    if (b == ev_end || b == 0 || b < pid_end)
        return true;
    /* before the event: \s+, optional digits, \s*, ':' */
    size_t q = b;
    while (q > 0 && isspace((unsigned char)s[q - 1]))
        q--;
    size_t dend = q;
    while (q > 0 && isdigit((unsigned char)s[q - 1]))
        q--;
    size_t dstart = q;
    while (q > 0 && isspace((unsigned char)s[q - 1]))
        q--;
    if (q > 0 && s[q - 1] == ':') {
        h->event = s + b;
        h->event_len = ev_end - b;
        if (dend > dstart)
            h->period = period_of(s + dstart, dend - dstart);
        return true;
    }
    /* no timestamp; a final "NNN.NNN:" is a timestamp, not an event */
    bool time_like = true;
    for (size_t i = b; i < ev_end && time_like; i++)
        time_like = isdigit((unsigned char)s[i]) || s[i] == '.';
    double period;
    if (time_like || !untimed_fields(s, pid_end, b, &period))
        return true;
    h->event = s + b;
    h->event_len = ev_end - b;
    h->period = period;
    return true;
}

/* Frame: ^\s*(\w+)\s*(.+) \((\S*)\) -- the greedy (.+) takes the last
 * " (" that is followed by a space-free "...)". */
bool perf_parse_frame(const char *s, size_t n, perf_frame *f)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t pc = i;
    while (i < n && is_word((unsigned char)s[i]))
        i++;
    if (i == pc)
        return false;
    f->pc = s + pc;
    f->pc_len = i - pc;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    size_t func = i;
    if (func >= n)
        return false;
    for (size_t k = n; k-- > func + 1;) {
        if (s[k] != '(' || s[k - 1] != ' ')
            continue;
        /* need \S* then ')' */
        size_t m = k + 1, close = 0;
        bool ok = false;
        while (m < n && !isspace((unsigned char)s[m])) {
            if (s[m] == ')') {
                close = m;
                ok = true;
            }
            m++;
        }
        if (!ok || k - 1 <= func)
            continue;
        f->func = s + func;
        f->func_len = k - 1 - func;
        f->mod = s + k + 1;
        f->mod_len = close - (k + 1);
        return true;
    }
    return false;
}

static bool contains(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    if (m > n)
        return false;
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, needle, m) == 0)
            return true;
    return false;
}

/* Go method names look like "pkg.(*T).Method": \.\(.*\)\. */
static bool looks_like_go_method(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] == '.' && s[i + 1] == '(') {
            for (size_t j = n - 1; j > i + 1; j--)
                if (s[j] == '.' && s[j - 1] == ')')
                    return true;
            return false;
        }
    }
    return false;
}

void perf_tidy_symbol(strbuf *out, const char *func, size_t n, bool java)
{
    size_t cut = n;
    if (!looks_like_go_method(func, n)) {
        /* everything after the first '(' is argument noise, except
         * for C++ "(anonymous namespace)" */
        static const char anon[] = "(anonymous namespace)";
        for (size_t i = 0; i < n; i++) {
            if (func[i] != '(')
                continue;
            if (n - i >= sizeof anon - 1
                && memcmp(func + i, anon, sizeof anon - 1) == 0)
                continue;
            cut = i;
            break;
        }
    }
    size_t start = 0;
    if (java && contains(func, cut, "/")) {
        /* Java: drop the JVM type-signature 'L' (after quote removal,
         * which cannot create a leading L, so order does not matter) */
        while (start < cut && (func[start] == '"' || func[start] == '\''))
            start++;
        if (start < cut && func[start] == 'L')
            start++;
        else
            start = 0;
    }
    for (size_t i = start; i < cut; i++) {
        char c = func[i];
        if (c == '"' || c == '\'')
            continue;
        sb_addc(out, c == ';' ? ':' : c);
    }
}

static bool mod_is_kernel(const char *m, size_t n)
{
    if (contains(m, n, "unknown"))
        return false;
    if (n > 0 && m[0] == '[')
        return true;
    return n >= 7 && memcmp(m + n - 7, "vmlinux", 7) == 0;
}

static bool mod_is_jit_map(const char *m, size_t n)
{
    /* m:/tmp/perf-\d+\.map: anywhere in the module */
    static const char pre[] = "/tmp/perf-";
    for (size_t i = 0; i + sizeof pre - 1 < n; i++) {
        if (memcmp(m + i, pre, sizeof pre - 1) != 0)
            continue;
        size_t j = i + sizeof pre - 1, d = j;
        while (j < n && isdigit((unsigned char)m[j]))
            j++;
        if (j > d && n - j >= 4 && memcmp(m + j, ".map", 4) == 0)
            return true;
    }
    return false;
}

static void reset_sample(perf_collapser *pc)
{
    pc->in_sample = false;
    sb_reset(&pc->groups);
    pc->ngroups = 0;
}

static void emit_sample(perf_collapser *pc)
{
    if (!pc->in_sample) {
        reset_sample(pc);
        return;
    }
    sb_reset(&pc->stack);
    sb_add(&pc->stack, pc->pname.buf, pc->pname.len);
    /* lines arrived leaf first; each line's own group keeps its order */
    for (size_t g = pc->ngroups; g-- > 0;) {
        size_t from = pc->group_off[g];
        size_t to = g + 1 < pc->ngroups ? pc->group_off[g + 1]
                                        : pc->groups.len;
        sb_addc(&pc->stack, ';');
        sb_add(&pc->stack, pc->groups.buf + from, to - from);
    }
    stack_sink_add(pc->sink, pc->stack.buf, pc->stack.len, pc->period, -1);
    reset_sample(pc);
}

static void on_header(perf_collapser *pc, const perf_header *h)
{
    if (pc->in_sample && pc->ngroups > 0)
        emit_sample(pc);   /* a sample with no blank line after it */
    reset_sample(pc);
    if (h->event) {
        if (pc->event.len == 0) {
            sb_add(&pc->event, h->event, h->event_len);
        } else if (h->event_len != pc->event.len
                   || memcmp(h->event, pc->event.buf, h->event_len) != 0) {
            pc->filtered++;
            return;
        }
    }
    pc->period = h->period > 0 ? h->period : 1;
    sb_reset(&pc->pname);
    sb_add(&pc->pname, h->comm, h->comm_len);
    if (pc->opt.include_tid || pc->opt.include_pid) {
        sb_addc(&pc->pname, '-');
        if (h->pid)
            sb_add(&pc->pname, h->pid, h->pid_len);
        else
            sb_addc(&pc->pname, '?');
        if (pc->opt.include_tid) {
            sb_addc(&pc->pname, '/');
            sb_add(&pc->pname, h->tid, h->tid_len);
        }
    }
    for (size_t i = 0; i < pc->pname.len; i++) {
        if (pc->pname.buf[i] == ' ')
            pc->pname.buf[i] = '_';
        else if (pc->pname.buf[i] == ';')   /* keep the stack well formed */
            pc->pname.buf[i] = ':';
    }
    pc->java = h->comm_len >= 4 && memcmp(h->comm, "java", 4) == 0;
    pc->in_sample = true;
}

static void add_func(perf_collapser *pc, const perf_frame *f,
                     const char *func, size_t n, bool first_in_line)
{
    strbuf *t = &pc->tmp;
    sb_reset(t);
    if (n == 9 && memcmp(func, "[unknown]", 9) == 0) {
        const char *name = "unknown";
        size_t nlen = 7;
        if (!(f->mod_len == 9 && memcmp(f->mod, "[unknown]", 9) == 0)) {
            name = f->mod;
            nlen = f->mod_len;
            for (size_t i = nlen; i-- > 0;)
                if (f->mod[i] == '/') {
                    name = f->mod + i + 1;
                    nlen = f->mod_len - i - 1;
                    break;
                }
        }
        sb_addc(t, '[');
        sb_add(t, name, nlen);
        if (pc->opt.include_addrs) {
            sb_adds(t, " <");
            sb_add(t, f->pc, f->pc_len);
            sb_addc(t, '>');
        }
        sb_addc(t, ']');
        strbuf raw = *t;
        *t = (strbuf)STRBUF_INIT;
        perf_tidy_symbol(t, raw.buf, raw.len, pc->java);
        sb_free(&raw);
    } else {
        perf_tidy_symbol(t, func, n, pc->java);
    }
    if (!first_in_line) {
        if (!contains(t->buf ? t->buf : "", t->len, "_[i]"))
            sb_adds(t, "_[i]");
    } else if (pc->opt.annotate_kernel && mod_is_kernel(f->mod, f->mod_len)) {
        sb_adds(t, "_[k]");
    } else if (pc->opt.annotate_jit && mod_is_jit_map(f->mod, f->mod_len)) {
        if (!contains(t->buf ? t->buf : "", t->len, "_[j]"))
            sb_adds(t, "_[j]");
    }
    if (!first_in_line)
        sb_addc(&pc->groups, ';');
    sb_add(&pc->groups, t->buf ? t->buf : "", t->len);
}

static void on_frame(perf_collapser *pc, const perf_frame *f)
{
    const char *func = f->func;
    size_t n = f->func_len;
    /* strip a symbol offset: s/\+0x[\da-f]+$// (Linux 4.8+) */
    size_t j = n;
    while (j > 0 && (isdigit((unsigned char)func[j - 1])
                     || (func[j - 1] >= 'a' && func[j - 1] <= 'f')))
        j--;
    if (j < n && j >= 3 && func[j - 1] == 'x' && func[j - 2] == '0'
        && func[j - 3] == '+')
        n = j - 3;
    if (n > 0 && func[0] == '(')
        return;                        /* process names */
    if (pc->ngroups == pc->group_cap) {
        pc->group_cap = pc->group_cap ? pc->group_cap * 2 : 64;
        pc->group_off = xrealloc(pc->group_off,
                                pc->group_cap * sizeof *pc->group_off);
    }
    pc->group_off[pc->ngroups++] = pc->groups.len;
    /* "a->b->c": inlined call chain in one line */
    size_t start = 0;
    bool first = true;
    for (size_t i = 0; i + 1 < n; i++) {
        if (func[i] == '-' && func[i + 1] == '>') {
            add_func(pc, f, func + start, i - start, first);
            first = false;
            start = i + 2;
            i++;
        }
    }
    add_func(pc, f, func + start, n - start, first);
}

void perf_collapser_line(perf_collapser *pc, const char *s, size_t n)
{
    if (n > 0 && s[0] == '#')
        return;
    if (n == 0) {
        emit_sample(pc);
        return;
    }
    perf_header h;
    if (perf_parse_header(s, n, &h)) {
        on_header(pc, &h);
        return;
    }
    perf_frame f;
    if (perf_parse_frame(s, n, &f)) {
        if (pc->in_sample)
            on_frame(pc, &f);
        return;
    }
    pc->ignored++;
}

void perf_collapser_finish(perf_collapser *pc)
{
    if (pc->in_sample)
        emit_sample(pc);
}
