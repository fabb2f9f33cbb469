/* stackfilter: pprof's sample filters (see stackfilter.h). */
#include "client/stack/stackfilter.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

enum { RE_FOCUS, RE_IGNORE, RE_HIDE, RE_SHOW, RE_N };

static const char *const re_option[RE_N] = {
    "--focus", "--ignore", "--hide", "--show",
};

struct stackfilter {
    bool     has[RE_N];
    regex_t  re[RE_N];
    int64_t  pids[STACKFILTER_MAX_IDS];  int npids;
    int64_t  tids[STACKFILTER_MAX_IDS];  int ntids;
    char    *comms[STACKFILTER_MAX_IDS]; int ncomms;
    char    *hosts[STACKFILTER_MAX_IDS]; int nhosts;
    unsigned states;
};

/* ---- what a pattern may be ------------------------------------------------ */

/* The largest repetition count of "{n}", "{n,}" or "{n,m}" at p (p just
 * after '{'), or -1 when it is no bound (then '{' is a literal). */
static long bound_at(const char *p, const char **end)
{
    long max = -1;
    char *e;
    long n = strtol(p, &e, 10);
    if (e == p || n < 0)
        return -1;
    max = n;
    if (*e == ',') {
        const char *q = e + 1;
        if (*q == '}') {
            max = n > 1 ? n : 1;       /* {n,}: n copies, then a star */
            e = (char *)q;
        } else {
            long m = strtol(q, &e, 10);
            if (e == q)
                return -1;
            max = m;
        }
    }
    if (*e != '}')
        return -1;
    *end = e + 1;
    return max;
}

/* glibc's regcomp expands a bounded repetition into copies of its atom,
 * multiplied through nesting ("((a{1,100}){1,100}){1,100}" is a million
 * states and seconds of compiling), and back-references make regexec
 * exponential ("(a*)*\1b" never ends on a long frame).  Neither is in
 * RE2, pprof's regex syntax, so both are refused: a pattern is at most
 * STACKFILTER_MAX_PATTERN bytes, has no back-reference, and its
 * repetition counts multiplied through nesting stay at most
 * STACKFILTER_MAX_REPEAT.  Without them glibc matches in time
 * polynomial in the frame's and the pattern's lengths. */
static bool pattern_ok(const char *pat, strbuf *why)
{
    size_t len = strlen(pat);
    if (len > STACKFILTER_MAX_PATTERN) {
        sb_printf(why, "longer than %d bytes", STACKFILTER_MAX_PATTERN);
        return false;
    }
    /* weight[d]: the largest expansion inside the group open at depth d;
     * last: the expansion of the atom just read (what a bound repeats) */
    long weight[STACKFILTER_MAX_PATTERN + 2];
    int depth = 0;
    long last = 1;
    weight[0] = 1;
    bool in_bracket = false;
    for (const char *p = pat; *p; p++) {
        if (in_bracket) {
            if (*p == ']' && p[-1] != '[' && !(p[-1] == '^' && p[-2] == '['))
                in_bracket = false;
            else if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                const char *close = strstr(p + 2, (char[]){ p[1], ']', 0 });
                if (close)
                    p = close + 1;
            }
            continue;
        }
        switch (*p) {
        case '\\':
            if (p[1] >= '1' && p[1] <= '9') {
                sb_printf(why, "back-references (\\%c) are not supported "
                          "(they make matching exponential)", p[1]);
                return false;
            }
            if (p[1])
                p++;
            last = 1;
            break;
        case '[':
            in_bracket = true;
            last = 1;
            break;
        case '(':
            weight[++depth] = 1;
            last = 1;
            break;
        case ')':
            if (depth > 0) {
                last = weight[depth--];
                break;
            }
            last = 1;
            break;
        case '{': {
            const char *end;
            long n = bound_at(p + 1, &end);
            if (n < 0) {
                last = 1;
                break;
            }
            if (n > STACKFILTER_MAX_REPEAT
                || (last > 0 && n > STACKFILTER_MAX_REPEAT / last)) {
                sb_printf(why, "repetition counts multiplied through "
                          "nesting exceed %d", STACKFILTER_MAX_REPEAT);
                return false;
            }
            last *= n > 0 ? n : 1;
            p = end - 1;
            break;
        }
        default:
            last = 1;
            break;
        }
        if (last > weight[depth])
            weight[depth] = last;
    }
    return true;
}

static bool compile(stackfilter *f, int which, const char *pat, strbuf *err)
{
    if (pat == NULL || *pat == '\0')    /* none (an empty form field) */
        return true;
    strbuf why = STRBUF_INIT;
    if (!pattern_ok(pat, &why)) {
        if (strlen(pat) > STACKFILTER_MAX_PATTERN)   /* not echoed whole */
            sb_printf(err, "%s: bad regex '%.40s...': %s", re_option[which],
                      pat, why.buf);
        else
            sb_printf(err, "%s: bad regex '%s': %s", re_option[which], pat,
                      why.buf);
        sb_free(&why);
        return false;
    }
    sb_free(&why);
    int rc = regcomp(&f->re[which], pat, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &f->re[which], msg, sizeof msg);
        sb_printf(err, "%s: bad regex '%s': %s", re_option[which], pat, msg);
        return false;
    }
    f->has[which] = true;
    return true;
}

/* ---- the filter ------------------------------------------------------------ */

stackfilter *stackfilter_new(const stackfilter_spec *spec, strbuf *err)
{
    stackfilter *f = xcalloc(1, sizeof *f);
    const char *pats[RE_N] = { spec->focus, spec->ignore, spec->hide,
                               spec->show };
    for (int i = 0; i < RE_N; i++)
        if (!compile(f, i, pats[i], err)) {
            stackfilter_free(f);
            return NULL;
        }
    if (spec->npids < 0 || spec->npids > STACKFILTER_MAX_IDS
        || spec->ntids < 0 || spec->ntids > STACKFILTER_MAX_IDS
        || spec->ncomms < 0 || spec->ncomms > STACKFILTER_MAX_IDS
        || spec->nhosts < 0 || spec->nhosts > STACKFILTER_MAX_IDS) {
        sb_printf(err, "at most %d pids, tids, command names and hosts "
                  "each", STACKFILTER_MAX_IDS);
        stackfilter_free(f);
        return NULL;
    }
    f->npids = spec->npids;
    memcpy(f->pids, spec->pids, sizeof f->pids[0] * (size_t)spec->npids);
    f->ntids = spec->ntids;
    memcpy(f->tids, spec->tids, sizeof f->tids[0] * (size_t)spec->ntids);
    for (int i = 0; i < spec->ncomms; i++)
        f->comms[f->ncomms++] = xstrdup(spec->comms[i]);
    for (int i = 0; i < spec->nhosts; i++)
        f->hosts[f->nhosts++] = xstrdup(spec->hosts[i]);
    f->states = spec->states;
    return f;
}

void stackfilter_free(stackfilter *f)
{
    if (f == NULL)
        return;
    for (int i = 0; i < RE_N; i++)
        if (f->has[i])
            regfree(&f->re[i]);
    for (int i = 0; i < f->ncomms; i++)
        free(f->comms[i]);
    for (int i = 0; i < f->nhosts; i++)
        free(f->hosts[i]);
    free(f);
}

bool stackfilter_empty(const stackfilter *f)
{
    if (f == NULL)
        return true;
    for (int i = 0; i < RE_N; i++)
        if (f->has[i])
            return false;
    return f->npids == 0 && f->ntids == 0 && f->ncomms == 0
           && f->nhosts == 0 && f->states == 0;
}

bool stackfilter_wants_state(const stackfilter *f)
{
    return f != NULL && f->states != 0;
}

static bool id_in(const int64_t *ids, int n, int64_t id)
{
    if (id < 0)
        return false;       /* unknown: no match */
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

static bool name_in(char *const *names, int n, const char *s, size_t len)
{
    if (s == NULL)
        return false;
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return true;
    return false;
}

/* Rule 1: the context lists. */
static bool context_ok(const stackfilter *f, const stack_context *ctx)
{
    if (f->npids && !id_in(f->pids, f->npids, ctx ? ctx->pid : -1))
        return false;
    if (f->ntids && !id_in(f->tids, f->ntids, ctx ? ctx->tid : -1))
        return false;
    if (f->ncomms && !name_in(f->comms, f->ncomms, ctx ? ctx->comm : NULL,
                              ctx && ctx->comm ? ctx->comm_len : 0))
        return false;
    if (f->nhosts && !name_in(f->hosts, f->nhosts, ctx ? ctx->host : NULL,
                              ctx && ctx->host ? strlen(ctx->host) : 0))
        return false;
    /* a sample of no known state (BLOCK_STATE_NONE, bit 0) never matches */
    if (f->states && !(ctx && ctx->state != BLOCK_STATE_NONE
                       && (f->states & (1u << ctx->state))))
        return false;
    return true;
}

/* Does the frame [s, s+len) match re?  REG_STARTEND: no copy, and '^'
 * and '$' are the frame's own ends. */
static bool frame_matches(const regex_t *re, const char *s, size_t len)
{
    regmatch_t pm[1] = { { .rm_so = 0, .rm_eo = (regoff_t)len } };
    return regexec(re, s, 1, pm, REG_STARTEND) == 0;
}

static bool any_frame_matches(const regex_t *re, const char *stack,
                              size_t len)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || stack[i] == ';') {
            if (frame_matches(re, stack + start, i - start))
                return true;
            start = i + 1;
        }
    return false;
}

bool stackfilter_apply(const stackfilter *f, const char *stack, size_t len,
                       const stack_context *ctx, strbuf *out)
{
    sb_reset(out);
    if (f != NULL) {
        if (!context_ok(f, ctx))
            return false;
        if (f->has[RE_FOCUS] && !any_frame_matches(&f->re[RE_FOCUS], stack, len))
            return false;
        if (f->has[RE_IGNORE] && any_frame_matches(&f->re[RE_IGNORE], stack, len))
            return false;
    }
    if (f == NULL || (!f->has[RE_HIDE] && !f->has[RE_SHOW])) {
        sb_add(out, stack, len);
        return len > 0;
    }
    size_t start = 0, kept = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && stack[i] != ';')
            continue;
        const char *fr = stack + start;
        size_t n = i - start;
        start = i + 1;
        if (f->has[RE_HIDE] && frame_matches(&f->re[RE_HIDE], fr, n))
            continue;
        if (f->has[RE_SHOW] && !frame_matches(&f->re[RE_SHOW], fr, n))
            continue;
        if (kept++ > 0)
            sb_addc(out, ';');
        sb_add(out, fr, n);
    }
    return out->len > 0;
}
