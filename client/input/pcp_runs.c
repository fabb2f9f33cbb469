/* pcp_runs: parsing a staprelay.control.runs value (see pcp_runs.h). */
#include "client/input/pcp_runs.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "client/util/utf8.h"
#include "common/xalloc.h"

/* 2286-11-20: ten digits of epoch seconds, far enough for any clock */
#define MAX_EPOCH 1e10

static const char *const state_names[] = {
    [PCP_RUN_QUEUED] = "queued",   [PCP_RUN_RUNNING] = "running",
    [PCP_RUN_DONE] = "done",       [PCP_RUN_FAILED] = "failed",
    [PCP_RUN_STOPPED] = "stopped",
};

const char *pcp_run_state_name(pcp_run_state s)
{
    return (unsigned)s < sizeof state_names / sizeof state_names[0]
           ? state_names[s] : "?";
}

bool pcp_run_terminal(const pcp_run *r)
{
    return r->state == PCP_RUN_DONE || r->state == PCP_RUN_FAILED
           || r->state == PCP_RUN_STOPPED;
}

void pcp_run_free(pcp_run *r)
{
    free(r->name);
    free(r->script);
    free(r->request);
    free(r->reason);
    free(r->prefix);
    for (int i = 0; i < r->nevents; i++)
        free(r->events[i]);
    memset(r, 0, sizeof *r);
}

bool pcp_metric_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 255)
        return false;
    bool start = true;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool digit = c >= '0' && c <= '9';
        if (c == '.') {
            if (start)
                return false;       /* empty component */
            start = true;
        } else if (start) {
            if (!alpha)
                return false;
            start = false;
        } else if (!alpha && !digit && c != '_') {
            return false;
        }
    }
    return !start;
}

void pcp_run_text(strbuf *out, const char *s, size_t max)
{
    size_t n = strlen(s);
    bool cut = n > max;
    if (cut)
        n = max;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        size_t k;
        if (c >= 0x20 && c < 0x7f) {
            sb_addc(out, (char)c);
            i++;
        } else if (c >= 0x80 && (k = utf8_decode(s + i, n - i, &cp)) > 0
                   && cp >= 0xa0) {
            sb_add(out, s + i, k);      /* printable beyond C1 controls */
            i += k;
        } else {
            sb_printf(out, "\\x%02x", c);
            i++;
        }
    }
    if (cut)
        sb_adds(out, "...");
}

/* ---- parsing ------------------------------------------------------------ */

static int get_string(json_t *obj, const char *key, char **out, strbuf *err)
{
    json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        *out = xstrdup("");
        return 0;
    }
    if (!json_is_string(v)) {
        sb_printf(err, "\"%s\" is not a string", key);
        return -1;
    }
    *out = xstrdup(json_string_value(v));
    return 0;
}

static int get_time(json_t *obj, const char *key, double *out, strbuf *err)
{
    json_t *v = json_object_get(obj, key);
    *out = 0;
    if (v == NULL)
        return 0;
    if (!json_is_number(v)) {
        sb_printf(err, "\"%s\" is not a number", key);
        return -1;
    }
    double d = json_number_value(v);
    if (!isfinite(d) || d < 0 || d > MAX_EPOCH) {
        sb_printf(err, "\"%s\" is not a time in seconds since the epoch",
                  key);
        return -1;
    }
    *out = d;
    return 0;
}

static int parse_object(json_t *root, pcp_run *r, strbuf *err)
{
    if (!json_is_object(root)) {
        sb_adds(err, "not a JSON object");
        return -1;
    }
    json_t *st = json_object_get(root, "state");
    if (st == NULL) {
        sb_adds(err, "no \"state\"");
        return -1;
    }
    if (!json_is_string(st)) {
        sb_adds(err, "\"state\" is not a string");
        return -1;
    }
    const char *s = json_string_value(st);
    size_t i;
    for (i = 0; i < sizeof state_names / sizeof state_names[0]; i++)
        if (strcmp(s, state_names[i]) == 0)
            break;
    if (i == sizeof state_names / sizeof state_names[0]) {
        sb_adds(err, "unknown state \"");
        pcp_run_text(err, s, 40);
        sb_adds(err, "\"");
        return -1;
    }
    r->state = (pcp_run_state)i;
    if (get_string(root, "name", &r->name, err) < 0
        || get_string(root, "script", &r->script, err) < 0
        || get_string(root, "request", &r->request, err) < 0
        || get_string(root, "reason", &r->reason, err) < 0
        || get_string(root, "prefix", &r->prefix, err) < 0
        || get_time(root, "queued", &r->queued, err) < 0
        || get_time(root, "started", &r->started, err) < 0
        || get_time(root, "ended", &r->ended, err) < 0)
        return -1;
    if (r->ended > 0 && r->started > 0 && r->ended < r->started) {
        sb_adds(err, "\"ended\" is before \"started\"");
        return -1;
    }
    json_t *ev = json_object_get(root, "events");
    if (ev == NULL)
        return 0;
    if (!json_is_array(ev)) {
        sb_adds(err, "\"events\" is not an array");
        return -1;
    }
    size_t k;
    json_t *e;
    json_array_foreach(ev, k, e) {
        if (!json_is_string(e)) {
            sb_printf(err, "\"events\"[%zu] is not a string", k);
            return -1;
        }
        const char *name = json_string_value(e);
        if (!pcp_metric_name_ok(name)) {
            sb_printf(err, "\"events\"[%zu] is not a metric name: \"", k);
            pcp_run_text(err, name, 80);
            sb_adds(err, "\"");
            return -1;
        }
        if (r->nevents < PCP_RUN_MAX_EVENTS)
            r->events[r->nevents++] = xstrdup(name);
    }
    return 0;
}

int pcp_run_parse(const char *json, size_t len, pcp_run *r, strbuf *err)
{
    memset(r, 0, sizeof *r);
    json_error_t je;
    /* JSON_REJECT_DUPLICATES: one "state", not a choice between two */
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        sb_adds(err, "not JSON: ");
        pcp_run_text(err, je.text, 120);
        return -1;
    }
    int rc = parse_object(root, r, err);
    json_decref(root);
    if (rc < 0)
        pcp_run_free(r);
    return rc;
}

/* seconds (at most MAX_EPOCH) to ns, the fraction rounded on its own
 * so that 1796000523.25 is ...523250000000 exactly */
static int64_t epoch_ns(double t)
{
    double sec = floor(t);
    return (int64_t)sec * 1000000000 + (int64_t)llround((t - sec) * 1e9);
}

void pcp_run_window(const pcp_run *r, int64_t *lo_ns, int64_t *hi_ns)
{
    *lo_ns = r->started > 0 ? epoch_ns(r->started) - PCP_RUN_SLACK_BEFORE_NS
                            : INT64_MIN;
    *hi_ns = r->ended > 0 ? epoch_ns(r->ended) + PCP_RUN_SLACK_AFTER_NS
                          : INT64_MAX;
}

bool pcp_run_choose_window(const pcp_run *r, bool live, bool user_window,
                           int64_t *lo_ns, int64_t *hi_ns)
{
    if (!live && user_window)
        return false;
    pcp_run_window(r, lo_ns, hi_ns);
    return true;
}
