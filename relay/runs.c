/* runs: queue, children and history of on-demand runs (see runs.h). */
#include "relay/runs.h"

#include "relay/exec.h"
#include "relay/metadata.h"
#include "relay/relay.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/duration.h"
#include "common/script_opts.h"
#include "common/strbuf.h"

#define MAX_REQUEST 1024
#define MAX_LOGGED_LINES 200   /* of one run's output; the rest is counted */
#define KILL_GRACE 10.0        /* seconds between SIGTERM and SIGKILL */

struct run {
    runs *owner;
    char *name;
    char *script;
    char *request;           /* normalised: "SCRIPT key=value ..." */
    char **argv;             /* NULL-terminated (owned) */
    double duration;
    run_state state;
    char reason[256];
    double queued, started, ended;   /* seconds since the epoch; 0 = not yet */
    char *prefix;            /* its metrics' name (--name), once it started */
    char **events;           /* event names below the prefix */
    size_t nevents;
    pid_t pid;
    int out_fd;
    ev_io out_w;
    ev_child child_w;
    ev_timer deadline_w;     /* duration + start_timeout, then SIGTERM */
    ev_timer kill_w;         /* grace after SIGTERM, then SIGKILL */
    bool stop_requested;
    bool timed_out;
    char partial[512];       /* output line being assembled */
    size_t partial_len;
    char last_line[256];     /* last non-empty output line */
    unsigned lines;
    char *json;              /* the run as runs_json shows it */
};

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void describe(run *r);

/* Every change of a run is made in the loop: its JSON is rebuilt here,
 * so a fetch only hands out the text. */
static void changed(run *r)
{
    r->owner->generation++;
    describe(r);
}

const char *run_state_name(run_state st)
{
    static const char *names[] = {"queued", "running", "done", "failed", "stopped"};
    return st <= RUN_STOPPED ? names[st] : "?";
}

static bool active(const run *r)
{
    return r->state == RUN_QUEUED || r->state == RUN_RUNNING;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

static void run_free(run *r)
{
    if (r == NULL)
        return;
    free(r->name);
    free(r->script);
    free(r->request);
    for (size_t i = 0; r->argv != NULL && r->argv[i] != NULL; i++)
        free(r->argv[i]);
    free(r->argv);
    free(r->prefix);
    free_strv(r->events, r->nevents);
    free(r->json);
    free(r);
}

/* ---- the request grammar ------------------------------------------------ */

typedef struct request {
    char script[65];
    double duration;
    long hz, pid;
    char cmd[65];
    char stacks[8];
} request;

static bool word_ok(const char *s, size_t n, const char *extra)
{
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && strchr(extra, s[i]) == NULL)
            return false;
    return true;
}

static int parse_option(request *q, const char *key, const char *val, unsigned *seen,
                        char *why, size_t whylen)
{
    static const char *keys[] = {"duration", "hz", "pid", "cmd", "stacks"};
    size_t k = 0;
    while (k < sizeof keys / sizeof keys[0] && strcmp(keys[k], key) != 0)
        k++;
    if (k == sizeof keys / sizeof keys[0]) {
        snprintf(why, whylen, "unknown option \"%.32s\" (duration, hz, pid, cmd, stacks)", key);
        return -EINVAL;
    }
    if (*seen & (1u << k)) {
        snprintf(why, whylen, "%s given twice", key);
        return -EINVAL;
    }
    *seen |= 1u << k;
    bool ok = true;
    switch (k) {
    case 0:
        q->duration = duration_parse(val);
        ok = q->duration > 0;
        break;
    case 1:
        ok = script_opt_value(script_opt_find("hz"), val, &q->hz);
        break;
    case 2:
        ok = script_opt_value(script_opt_find("pid"), val, &q->pid);
        break;
    case 3:
        ok = word_ok(val, strlen(val), "_.+-") && val[0] != '-';
        if (ok)
            snprintf(q->cmd, sizeof q->cmd, "%s", val);
        break;
    case 4:
        ok = strcmp(val, "kernel") == 0 || strcmp(val, "user") == 0;
        if (ok)
            snprintf(q->stacks, sizeof q->stacks, "%s", val);
        break;
    }
    if (!ok) {
        const char *want[] = {
            "seconds (20, 1.5, 90s, 500ms, 5m, 1h)", script_opt_find("hz")->what,
            script_opt_find("pid")->what, "a command name ([A-Za-z0-9_.+-], at most 64)",
            "kernel or user"};
        snprintf(why, whylen, "bad %s \"%.32s\": want %s", key, val, want[k]);
        return -EINVAL;
    }
    return 0;
}

/* Split text into words and parse them into q.  Returns 0 or -EINVAL. */
static int parse_request(const char *text, request *q, char *why, size_t whylen)
{
    memset(q, 0, sizeof *q);
    q->duration = -1;
    if (strlen(text) > MAX_REQUEST) {
        snprintf(why, whylen, "request longer than %d bytes", MAX_REQUEST);
        return -EINVAL;
    }
    char buf[MAX_REQUEST + 1];
    snprintf(buf, sizeof buf, "%s", text);
    unsigned seen = 0;
    int nwords = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t\r\n", &save); w != NULL;
         w = strtok_r(NULL, " \t\r\n", &save), nwords++) {
        if (nwords == 0) {
            if (!word_ok(w, strlen(w), "_") || !islower((unsigned char)w[0])) {
                snprintf(why, whylen, "\"%.32s\" is not a script name: the request is "
                         "\"SCRIPT [key=value ...]\"", w);
                return -EINVAL;
            }
            snprintf(q->script, sizeof q->script, "%s", w);
            continue;
        }
        char *eq = strchr(w, '=');
        if (eq == NULL || eq == w || eq[1] == '\0') {
            snprintf(why, whylen, "\"%.32s\" is not key=value", w);
            return -EINVAL;
        }
        *eq = '\0';
        int rc = parse_option(q, w, eq + 1, &seen, why, whylen);
        if (rc != 0)
            return rc;
    }
    if (nwords == 0) {
        snprintf(why, whylen, "empty request: want \"SCRIPT [key=value ...]\"");
        return -EINVAL;
    }
    return 0;
}

static bool script_allowed(const runs_config *cfg, const char *script)
{
    for (size_t i = 0; i < cfg->nscripts; i++)
        if (strcmp(cfg->scripts[i], script) == 0)
            return true;
    return false;
}

/* ---- building a run ----------------------------------------------------- */

/* A formatted copy, or NULL when out of memory: the relay never aborts
 * (docs/design.md), so its callers check (unlike common/xalloc's x*). */
static char *asprintf_or_null(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *asprintf_or_null(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* The run as one JSON object (docs/runs.md); metric names are under
 * staprelay, the PMDA's root, as staprelay run prints them. */
static void describe(run *r)
{
    char prefix[200] = "";
    if (r->prefix != NULL)
        snprintf(prefix, sizeof prefix, "staprelay.%s", r->prefix);
    json_t *events = json_array();
    for (size_t e = 0; e < r->nevents; e++) {
        char *m = r->events[e] ? asprintf_or_null("%s.%s.records", prefix, r->events[e]) : NULL;
        if (m != NULL)
            json_array_append_new(events, json_string(m));
        free(m);
    }
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:s, s:o}",
                          "name", r->name, "script", r->script, "request", r->request,
                          "state", run_state_name(r->state), "reason", r->reason,
                          "queued", r->queued, "started", r->started, "ended", r->ended,
                          "prefix", prefix, "events", events);
    char *text = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(13)) : NULL;
    json_decref(o);
    if (text != NULL) {
        free(r->json);
        r->json = text;
    }
}

static char **build_argv(const runs *rs, const request *q, char **text)
{
    char *args[24];
    size_t k = 0;
    args[k++] = asprintf_or_null("%s", rs->command);
    args[k++] = asprintf_or_null("run");
    args[k++] = asprintf_or_null("%s", q->script);
    char dur[NUM_TEXT_MAX];
    num_text(dur, q->duration);
    args[k++] = asprintf_or_null("-T");
    args[k++] = asprintf_or_null("%s", dur);
    args[k++] = asprintf_or_null("--dir");
    args[k++] = asprintf_or_null("%s", rs->directory);
    /* a run's records replay, so `--run NAME` gets it from its start */
    args[k++] = asprintf_or_null("--replay");
    char name[96];
    script_run_name(name, sizeof name, q->script);
    args[k++] = asprintf_or_null("--name");     /* where its metrics will be */
    args[k++] = asprintf_or_null("%s", name);
    if (q->hz > 0) {
        args[k++] = asprintf_or_null("--hz");
        args[k++] = asprintf_or_null("%ld", q->hz);
    }
    if (q->pid > 0) {
        args[k++] = asprintf_or_null("--pid");
        args[k++] = asprintf_or_null("%ld", q->pid);
    }
    if (q->cmd[0] != '\0') {
        args[k++] = asprintf_or_null("--cmd");
        args[k++] = asprintf_or_null("%s", q->cmd);
    }
    if (q->stacks[0] != '\0')
        args[k++] = asprintf_or_null(strcmp(q->stacks, "kernel") == 0 ? "--kernel-only"
                                                                 : "--user-only");
    char **argv = calloc(k + 1, sizeof(char *));
    bool ok = argv != NULL;
    for (size_t i = 0; i < k; i++)
        ok = ok && args[i] != NULL;
    *text = asprintf_or_null("%s duration=%s%s%.0ld%s%.0ld%s%s%s%s", q->script, dur,
                      q->hz ? " hz=" : "", q->hz, q->pid ? " pid=" : "", q->pid,
                      q->cmd[0] ? " cmd=" : "", q->cmd, q->stacks[0] ? " stacks=" : "",
                      q->stacks);
    if (!ok || *text == NULL) {
        for (size_t i = 0; i < k; i++)
            free(args[i]);
        free(argv);
        free(*text);
        *text = NULL;
        return NULL;
    }
    memcpy(argv, args, k * sizeof(char *));
    return argv;
}

/* SCRIPT-YYYYMMDDTHHMMSS in UTC, -2, -3... when the second is taken. */
static char *new_name(const runs *rs, const char *script, double now)
{
    time_t t = (time_t)now;
    struct tm tm;
    gmtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
    for (int k = 1;; k++) {
        char *name = k == 1 ? asprintf_or_null("%s-%s", script, stamp)
                            : asprintf_or_null("%s-%s-%d", script, stamp, k);
        if (name == NULL)
            return NULL;
        bool taken = false;
        for (size_t i = 0; i < rs->n && !taken; i++)
            taken = strcmp(rs->v[i]->name, name) == 0;
        if (!taken)
            return name;
        free(name);
    }
}

/* ---- children ----------------------------------------------------------- */

static void schedule(runs *rs);
static void prune(runs *rs);
static void note_run_sources(run *r);

static void take_line(run *r)
{
    r->partial[r->partial_len] = '\0';
    char *line = r->partial;
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        line[--n] = '\0';
    /* printable ASCII only: the line ends up in JSON and in the log */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e)
            line[i] = '?';
    r->partial_len = 0;
    if (n == 0)
        return;
    snprintf(r->last_line, sizeof r->last_line, "%s", line);
    if (++r->lines <= MAX_LOGGED_LINES)
        log_msg(&r->owner->log, LOG_LVL_INFO, "run %s: %s", r->name, line);
    else if (r->lines == MAX_LOGGED_LINES + 1)
        log_msg(&r->owner->log, LOG_LVL_INFO, "run %s: more output, not logged", r->name);
}

static void close_output(run *r)
{
    if (r->out_fd < 0)
        return;
    ev_io_stop(r->owner->loop, &r->out_w);
    close(r->out_fd);
    r->out_fd = -1;
    if (r->partial_len > 0)
        take_line(r);
}

/* Read what is there; at EOF or error, close. */
static void read_output(run *r)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(r->out_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            close_output(r);
            return;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n' || r->partial_len == sizeof r->partial - 1)
                take_line(r);
            if (buf[i] != '\n')
                r->partial[r->partial_len++] = buf[i];
        }
    }
}

static void on_output(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop; (void)revents;
    read_output(w->data);
}

static void signal_group(run *r, int sig)
{
    if (r->pid > 0 && kill(-r->pid, sig) != 0)
        kill(r->pid, sig);
}

static void on_kill(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop; (void)revents;
    run *r = w->data;
    log_msg(&r->owner->log, LOG_LVL_WARNING, "run %s: still there %gs after SIGTERM: SIGKILL",
            r->name, KILL_GRACE);
    signal_group(r, SIGKILL);
}

static void terminate(run *r)
{
    signal_group(r, SIGTERM);
    if (!ev_is_active(&r->kill_w))
        ev_timer_start(r->owner->loop, &r->kill_w);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop; (void)revents;
    run *r = w->data;
    r->timed_out = true;
    log_msg(&r->owner->log, LOG_LVL_WARNING, "run %s: still running after %gs (duration "
            "%gs + start_timeout %gs): stopping it", r->name, r->duration +
            r->owner->cfg->start_timeout, r->duration, r->owner->cfg->start_timeout);
    terminate(r);
}

static void finish(run *r, int status)
{
    runs *rs = r->owner;
    ev_timer_stop(rs->loop, &r->deadline_w);
    ev_timer_stop(rs->loop, &r->kill_w);
    /* what the child printed last is the best reason there is */
    if (r->out_fd >= 0) {
        read_output(r);
        close_output(r);
    }
    signal_group(r, SIGKILL);   /* nothing of the run outlives it */
    r->pid = 0;
    note_run_sources(r);        /* a short run may end between two polls */
    r->ended = wall_now();
    if (r->stop_requested) {
        r->state = RUN_STOPPED;
        snprintf(r->reason, sizeof r->reason, "stopped by request");
    } else if (r->timed_out) {
        r->state = RUN_FAILED;
        snprintf(r->reason, sizeof r->reason, "killed after %gs (duration + start_timeout)",
                 r->duration + rs->cfg->start_timeout);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        r->state = RUN_DONE;
    } else {
        r->state = RUN_FAILED;
        char how[48];
        if (WIFEXITED(status))
            snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
        else
            snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
        if (r->last_line[0] != '\0')
            snprintf(r->reason, sizeof r->reason, "%.200s (%s)", r->last_line, how);
        else
            snprintf(r->reason, sizeof r->reason, "%s", how);
    }
    log_msg(&rs->log, r->state == RUN_DONE ? LOG_LVL_INFO : LOG_LVL_WARNING,
            "run %s: %s%s%s", r->name, run_state_name(r->state), r->reason[0] ? ": " : "",
            r->reason);
    changed(r);
    prune(rs);
    schedule(rs);
}

static void on_child(struct ev_loop *loop, ev_child *w, int revents)
{
    (void)revents;
    ev_child_stop(loop, w);
    finish(w->data, w->rstatus);
}

/* A new run publishes under the prefix an earlier run of its script used.
 * That run's source may still be there with its last values: its
 * directory was not gone yet when the relay last looked (the new run
 * starts the moment the old one ends), or it was left behind by a run
 * that was killed.  The new run takes the directory over; until the
 * relay has read what the new run writes, those values would read as
 * the new run's (issue 25: taken read the previous run's final 1187).
 * So the old source goes now, as if its directory had gone: its values
 * go, its names stay, and the next discovery makes a fresh source of
 * what the new run writes (runs_note_sources skips vanished ones). */
static void forget_previous_run(run *r, const char *prefix)
{
    const relay *rl = r->owner->relay;
    for (size_t k = 0; rl != NULL && k < rl->nsources; k++) {
        source *s = rl->sources[k];
        const char *p = source_prefix(s);
        if (p == NULL || s->state == SRC_VANISHED || !s->ends_by_design ||
            strcmp(p, prefix) != 0)
            continue;
        source_vanish(s);
        snprintf(s->last_error, sizeof s->last_error, "an earlier run's source: its values "
                 "went when run %s started", r->name);
        log_msg(&r->owner->log, LOG_LVL_INFO, "run %s: the values %s held under %s are "
                "dropped (a new run)", r->name, s->dir, prefix);
    }
}

static void start(run *r)
{
    runs *rs = r->owner;
    char prefix[96];
    script_run_name(prefix, sizeof prefix, r->script);
    forget_previous_run(r, prefix);
    int p[2];
    char err[256] = "";
    pid_t pid = -1;
    if (pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, sizeof err, "pipe: %s", strerror(errno));
    } else {
        const struct passwd *pw = getpwuid(getuid());
        char home[300];
        snprintf(home, sizeof home, "HOME=%s", pw != NULL ? pw->pw_dir : "/");
        char *env[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                       "LANG=C", "LC_ALL=C", home, NULL};
        exec_opts o = {.env = env, .parent_death_signal = SIGTERM};
        pid = exec_spawn(r->argv, &o, p[1], p[1], err, sizeof err);
        close(p[1]);
        if (pid < 0)
            close(p[0]);
    }
    r->started = wall_now();
    if (pid < 0) {
        r->state = RUN_FAILED;
        r->ended = r->started;
        snprintf(r->reason, sizeof r->reason, "cannot start %s: %s", rs->command, err);
        log_msg(&rs->log, LOG_LVL_ERROR, "run %s: %s", r->name, r->reason);
        changed(r);
        return;
    }
    r->pid = pid;
    r->state = RUN_RUNNING;
    char name[96];
    script_run_name(name, sizeof name, r->script);
    r->prefix = strdup(name);   /* what --name told it; NULL: shown empty */
    r->out_fd = p[0];
    fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
    ev_io_init(&r->out_w, on_output, r->out_fd, EV_READ);
    ev_child_init(&r->child_w, on_child, pid, 0);
    ev_timer_init(&r->deadline_w, on_deadline, r->duration + rs->cfg->start_timeout, 0.);
    ev_timer_init(&r->kill_w, on_kill, KILL_GRACE, 0.);
    r->out_w.data = r->child_w.data = r->deadline_w.data = r->kill_w.data = r;
    ev_io_start(rs->loop, &r->out_w);
    ev_child_start(rs->loop, &r->child_w);
    ev_timer_start(rs->loop, &r->deadline_w);
    log_msg(&rs->log, LOG_LVL_INFO, "run %s: started %s (pid %d)", r->name, r->request, (int)pid);
    changed(r);
}

static size_t count_state(const runs *rs, run_state st, const char *script)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i]->state == st && (script == NULL || strcmp(rs->v[i]->script, script) == 0))
            n++;
    return n;
}

/* Start queued runs, oldest first, while there is room; a script runs
 * once at a time (its metrics have one name). */
static void schedule(runs *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        run *r = rs->v[i];
        if (r->state != RUN_QUEUED)
            continue;
        if (count_state(rs, RUN_RUNNING, NULL) >= rs->cfg->max_concurrent)
            return;
        if (count_state(rs, RUN_RUNNING, r->script) == 0)
            start(r);
    }
}

/* Forget the oldest finished runs beyond cfg->history. */
static void prune(runs *rs)
{
    size_t finished = rs->n - count_state(rs, RUN_QUEUED, NULL) -
                      count_state(rs, RUN_RUNNING, NULL);
    size_t w = 0;
    for (size_t i = 0; i < rs->n; i++) {
        run *r = rs->v[i];
        if (!active(r) && finished > rs->cfg->history) {
            finished--;
            run_free(r);
            continue;
        }
        rs->v[w++] = r;
    }
    if (w != rs->n) {
        rs->n = w;
        rs->generation++;
    }
}

/* ---- the interface ------------------------------------------------------ */

runs *runs_new(struct ev_loop *loop, const runs_config *cfg, const char *command,
               const char *directory, const log_sink *log)
{
    runs *rs = calloc(1, sizeof *rs);
    if (rs == NULL)
        return NULL;
    rs->loop = loop;
    rs->cfg = cfg;
    rs->command = strdup(command);
    rs->directory = strdup(directory);
    if (log != NULL)
        rs->log = *log;
    if (rs->command == NULL || rs->directory == NULL) {
        runs_free(rs);
        return NULL;
    }
    return rs;
}

void runs_free(runs *rs)
{
    if (rs == NULL)
        return;
    /* the PMDA is going: stop what runs, give it a moment to clean up */
    double until = 0;
    for (size_t i = 0; i < rs->n; i++) {
        run *r = rs->v[i];
        if (r->state == RUN_RUNNING) {
            signal_group(r, SIGTERM);
            until = ev_time() + 5;
        }
    }
    for (size_t i = 0; i < rs->n; i++) {
        run *r = rs->v[i];
        if (r->state == RUN_RUNNING) {
            while (waitpid(r->pid, NULL, WNOHANG) == 0 && ev_time() < until)
                usleep(20000);
            signal_group(r, SIGKILL);
            waitpid(r->pid, NULL, WNOHANG);
            ev_child_stop(rs->loop, &r->child_w);
            ev_timer_stop(rs->loop, &r->deadline_w);
            ev_timer_stop(rs->loop, &r->kill_w);
            close_output(r);
            log_msg(&rs->log, LOG_LVL_INFO, "run %s: stopped: the PMDA exited", r->name);
        }
        run_free(r);
    }
    free(rs->v);
    free(rs->command);
    free(rs->directory);
    free(rs);
}

static int refuse(runs *rs, int rc, const char *why)
{
    rs->refusals++;
    snprintf(rs->last, sizeof rs->last, "refused: %s", why);
    log_msg(&rs->log, LOG_LVL_WARNING, "run request refused: %s", why);
    rs->generation++;
    return rc;
}

int runs_reject(runs *rs, int rc, const char *why)
{
    rs->requests++;
    return refuse(rs, rc, why);
}

int runs_request(runs *rs, const char *text)
{
    rs->requests++;
    const runs_config *cfg = rs->cfg;
    char why[256];
    if (!cfg->enabled)
        return refuse(rs, -EPERM, "runs are disabled (set runs.enabled in the config)");
    request q;
    int rc = parse_request(text, &q, why, sizeof why);
    if (rc != 0)
        return refuse(rs, rc, why);
    if (!script_allowed(cfg, q.script)) {
        snprintf(why, sizeof why, "script \"%s\" is not in runs.scripts", q.script);
        return refuse(rs, -EPERM, why);
    }
    if (q.duration < 0)
        q.duration = cfg->default_duration;
    if (q.duration > cfg->max_duration) {
        snprintf(why, sizeof why, "duration %gs is over runs.max_duration (%gs)",
                 q.duration, cfg->max_duration);
        return refuse(rs, -ERANGE, why);
    }
    /* Room is decided here, in the store, from states the loop does not
     * change in between: a run is RUNNING from the moment its child is
     * spawned (its start-up, a BPF build or perf starting, counts as
     * running) until the child is reaped, and a request is either started
     * in this call or QUEUED.  So max_concurrent running plus max_queued
     * waiting are all accepted, whatever the first run's start-up is
     * doing, and a refusal changes nothing (docs/runs.md). */
    size_t waiting = count_state(rs, RUN_QUEUED, NULL);
    bool can_start = count_state(rs, RUN_RUNNING, NULL) < cfg->max_concurrent &&
                     count_state(rs, RUN_RUNNING, q.script) == 0 && waiting == 0;
    if (!can_start && waiting >= cfg->max_queued) {
        snprintf(why, sizeof why, "%zu requests already wait (runs.max_queued)", waiting);
        return refuse(rs, -EBUSY, why);
    }
    run *r = calloc(1, sizeof *r);
    run **nv = realloc(rs->v, (rs->n + 1) * sizeof *nv);
    if (nv != NULL)
        rs->v = nv;
    if (r != NULL) {
        r->owner = rs;
        r->out_fd = -1;
        r->queued = wall_now();
        r->duration = q.duration;
        r->script = strdup(q.script);
        r->name = new_name(rs, q.script, r->queued);
        r->argv = build_argv(rs, &q, &r->request);
    }
    if (nv == NULL || r == NULL || r->script == NULL || r->name == NULL || r->argv == NULL) {
        run_free(r);
        return refuse(rs, -ENOMEM, "out of memory");
    }
    rs->v[rs->n++] = r;
    snprintf(rs->last, sizeof rs->last, "accepted: %s", r->name);
    log_msg(&rs->log, LOG_LVL_INFO, "run %s: accepted %s", r->name, r->request);
    changed(r);
    schedule(rs);
    return 0;
}

int runs_stop(runs *rs, const char *name)
{
    for (size_t i = 0; i < rs->n; i++) {
        run *r = rs->v[i];
        if (strcmp(r->name, name) != 0 || !active(r))
            continue;
        r->stop_requested = true;
        log_msg(&rs->log, LOG_LVL_INFO, "run %s: stop requested", r->name);
        if (r->state == RUN_QUEUED) {
            r->state = RUN_STOPPED;
            r->ended = wall_now();
            snprintf(r->reason, sizeof r->reason, "stopped by request before it started");
            changed(r);
            prune(rs);
        } else {
            terminate(r);
        }
        return 0;
    }
    return -ESRCH;
}

static void note_run_sources(run *r)
{
    const relay *rl = r->owner->relay;
    if (rl == NULL || r->prefix == NULL)
        return;
    for (size_t k = 0; k < rl->nsources; k++) {
        const source *s = rl->sources[k];
        const char *p = source_prefix(s);
        /* a vanished source of that name is an earlier run's: this run's
         * events are known once its own source is there */
        if (p == NULL || s->meta == NULL || s->state == SRC_VANISHED
            || strcmp(p, r->prefix) != 0)
            continue;
        const source_meta *m = s->meta;
        if (m->nevents == r->nevents)
            return;   /* a script's events do not change while it runs */
        char **ev = calloc(m->nevents ? m->nevents : 1, sizeof(char *));
        if (ev == NULL)
            return;
        for (size_t e = 0; e < m->nevents; e++)
            ev[e] = strdup(m->events[e].name);
        free_strv(r->events, r->nevents);
        r->events = ev;
        r->nevents = m->nevents;
        changed(r);
        return;
    }
}

void runs_note_sources(runs *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i]->state == RUN_RUNNING)
            note_run_sources(rs->v[i]);
}

size_t runs_count(const runs *rs)
{
    return rs->n;
}

const char *runs_name(const runs *rs, size_t i)
{
    return i < rs->n ? rs->v[i]->name : NULL;
}

run_state runs_state(const runs *rs, size_t i)
{
    return rs->v[i]->state;
}

const char *runs_json(const runs *rs, size_t i)
{
    return i < rs->n ? rs->v[i]->json : NULL;
}
