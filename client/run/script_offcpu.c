/* script_offcpu: `staprelay run offcpu` for the perf backend, for kernels
 * that load no modules (SystemTap's BPF runtime has no backtraces):
 *
 *   perf record --no-buffering -e sched:sched_switch -g -k mono --sample-cpu -a -o -
 *     | stdbuf -oL perf script -i - -F comm,pid,tid,cpu,time,trace,ip,sym,dso --ns
 *
 * Each sched_switch sample is the task leaving a CPU (prev), with the
 * stack it blocked in, and names the task getting the CPU (next).  As in
 * stap/offcpu.stp: the time and stack of each traced task's switch-out
 * are kept; when the task runs again its time off CPU goes into a log2
 * histogram, and an interval of at least 1 ms becomes a record of the
 * event `blocks` (pid, tid, cpu, comm, duration, the task state it left
 * in -- prev_state, "S", "D", "R+", ... -- and folded stack).  Published
 * with offcpu.stp's metric names as PARENT/NAME/{metadata.json,data.json}
 * through perf_source (pmdastaprelay relays it when PARENT is in its
 * directory_list, as for `run profile --backend perf`).
 *
 * `staprelay run offwake` is the same with sched:sched_waking recorded
 * too: that event fires in the waker's context (try_to_wake_up), so its
 * stack is the waker's.  The first waking of a task off CPU is kept with
 * it, and its record's stack is Brendan Gregg's off-wake stack: the
 * waker's frames inverted above a "--" frame, then the blocked stack
 * (leaf first, the order a record's stack has: waker root ... waker
 * leaf, --, blocked leaf ... blocked root); waker_pid, waker_tid and
 * waker_comm say who.  A block nothing woke (preempted, R+) keeps its
 * plain stack.  A waking in an interrupt is the interrupt's: its frames
 * end at the interrupt's entry and it names no task (waker_cut).
 *
 * `staprelay run hotcold` is offcpu with cpu-clock sampled too (-e
 * cpu-clock/freq=HZ/, --hz, 99 by default) in the same perf record: the
 * on-CPU samples of the traced threads are the event `samples`, as
 * profile publishes them (with taken, frequency, samples_dropped), and
 * their blocks the event `blocks`, each with its own sequence, so that
 * `flame --hotcold` draws both parts of the same threads from one run
 * on one clock.  A cpu-clock sample is the header with no trace text.
 *
 * When perf loses events (its buffer full on a busy machine: perf script
 * says so with --show-lost-events), every interval in flight is left
 * out, since its end or its waker may be among them, and counted in
 * events_lost and on the run's last line.
 *
 * --pid P follows process P's threads (all switches are recorded; the
 * others are ignored here); --cmd C starts C once perf records and
 * follows it until it exits.  perf's tracepoint clock is monotonic (-k realtime is refused
 * for tracepoints), converted to epoch time at the start. */
#include "client/run/script_offcpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/run/perf_pipe.h"
#include "client/run/perf_source.h"
#include "common/frames.h"
#include "common/strbuf.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

#define OFF_MIN_NS      1000000      /* offcpu.stp's min_us default */
#define OFF_BUCKETS     4096
#define OFF_MAX_TASKS   65536        /* tasks off CPU tracked at once */

typedef struct off_task {
    long tid, tgid;
    int64_t ts;
    char *stack;
    char state[8];                   /* prev_state at switch-out */
    /* offwake: the first waking since then (waker_stack NULL: none) */
    char *waker_stack;               /* leaf first, perf frame lines */
    int64_t waker_ts;
    long waker_pid, waker_tid;
    char *waker_comm;                /* NULL: an interrupt woke it */
    struct off_task *next;
} off_task;

typedef struct offcpu {
    perf_source src;
    off_task *tasks[OFF_BUCKETS];
    size_t ntasks;
    bool wake;                       /* offwake: sched_waking too */
    bool hot;                        /* hotcold: cpu-clock samples too */
    long hz;                         /* hotcold: their frequency */
    /* hotcold's samples since the last data.json (src holds the blocks) */
    strbuf samples;
    size_t nsamples;
    uint64_t sample_seq, sample_taken, sample_dropped, sample_written;
    long target;                     /* tgid followed, 0: every task */
    int64_t to_epoch;                /* add to perf's monotonic ns */
    uint64_t switches, offtime, untracked;
    uint64_t late;                   /* events older than their task's (task_late) */
    uint64_t lost, forgotten;        /* perf's lost events, intervals left out then */
    uint64_t woken;                  /* offwake: records with a waker */
    uint64_t hist[65];               /* @hist_log buckets of values >= 0 */
    /* the switch of the sample being read (its header line) */
    bool have_switch, have_waking, have_oncpu;
    long prev_pid, next_pid, woken_pid;
    char prev_state[8];
    strbuf next_comm;
} offcpu;

/* metadata.json; %s: hotcold's sample metrics, the event's
 * description, the replay flag (set only for the PMDA's runs, --replay,
 * as perf_source_metadata does), the stack's description and offwake's
 * waker fields */
static const char meta_fmt[] =
    "{\n"
    "  \"metrics\": [\n"
    "%s"
    "    {\"name\": \"omitted\", \"pointer\": \"/omitted\", \"type\": \"integer\", "
    "\"semantics\": \"instant\", \"units\": \"count\", \"description\": \"always 0 (the "
    "perf backend leaves nothing out)\"},\n"
    "    {\"name\": \"blocks\", \"pointer\": \"/blocks\", \"type\": \"event\",\n"
    "     \"description\": \"%s\",\n"
    "     \"timestamp\": \"/ts\", \"timestamp_units\": \"nsec\", \"sequence\": \"/seq\",\n"
    "     \"dropped\": \"/blocks_dropped\", %s\n"
    "     \"fields\": [\n"
    "       {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\", \"description\": "
    "\"%s\"},\n"
    "       {\"name\": \"pid\", \"pointer\": \"/pid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"process id\"},\n"
    "       {\"name\": \"tid\", \"pointer\": \"/tid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"thread id\"},\n"
    "       {\"name\": \"cpu\", \"pointer\": \"/cpu\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"CPU it ran on again\"},\n"
    "       {\"name\": \"comm\", \"pointer\": \"/comm\", \"type\": \"string\", \"description\": \"command name\"},\n"
    "       {\"name\": \"duration\", \"pointer\": \"/duration\", \"type\": \"integer\", \"units\": \"nanosec\", \"description\": \"time off CPU\"},\n"
    "       {\"name\": \"state\", \"pointer\": \"/state\", \"type\": \"string\", \"optional\": true, \"description\": \"task state at switch-out (S, D, R+, ...)\"}%s\n"
    "     ]},\n"
    "    {\"name\": \"switches\", \"pointer\": \"/switches\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"context switches of traced threads\"},\n"
    "    {\"name\": \"events_lost\", \"pointer\": \"/events_lost\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"events perf lost (its buffer was full); the intervals in flight then are left out\"},\n"
    "    {\"name\": \"offcpu_time\", \"pointer\": \"/offcpu_time\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"nanosec\", \"description\": \"total time off CPU\"},\n"
    "    {\"name\": \"offcpu\", \"pointer\": \"/offcpu\", \"type\": \"histogram\", \"units\": \"nanosec\", \"description\": \"off-CPU intervals\"}\n"
    "  ]\n"
    "}\n";

/* hotcold: profile's metrics (perf_source_metadata's); %s: replay and
 * the sample's fields */
static const char sample_metrics_fmt[] =
    "    {\"name\": \"samples\", \"pointer\": \"/samples\", \"type\": \"event\",\n"
    "     \"description\": \"on-CPU samples of the traced threads (perf cpu-clock)\",\n"
    "     \"timestamp\": \"/ts\", \"timestamp_units\": \"nsec\", \"sequence\": \"/seq\",\n"
    "     \"dropped\": \"/samples_dropped\", %s\n"
    "     \"fields\": [\n"
    "%s"
    "     ]},\n"
    "    {\"name\": \"taken\", \"pointer\": \"/taken\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"on-CPU samples of the traced threads\"},\n"
    "    {\"name\": \"frequency\", \"pointer\": \"/frequency\", \"type\": \"integer\", \"semantics\": \"discrete\", \"units\": \"count\", \"description\": \"sampling frequency (Hz)\"},\n";

static const char waker_fields[] =
    ",\n"
    "       {\"name\": \"waker_pid\", \"pointer\": \"/waker_pid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"optional\": true, \"description\": \"process id of the task that woke it\"},\n"
    "       {\"name\": \"waker_tid\", \"pointer\": \"/waker_tid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"optional\": true, \"description\": \"thread id of the task that woke it\"},\n"
    "       {\"name\": \"waker_comm\", \"pointer\": \"/waker_comm\", \"type\": \"string\", \"optional\": true, \"description\": \"command name of the task that woke it\"}";

/* ---- tasks off CPU ------------------------------------------------------- */

static off_task **slot(offcpu *oc, long tid)
{
    off_task **p = &oc->tasks[(unsigned long)tid % OFF_BUCKETS];
    while (*p && (*p)->tid != tid)
        p = &(*p)->next;
    return p;
}

static void task_forget_waker(off_task *t)
{
    free(t->waker_stack);
    free(t->waker_comm);
    t->waker_stack = t->waker_comm = NULL;
}

static void task_free(off_task *t)
{
    task_forget_waker(t);
    free(t->stack);
    free(t);
}

/* perf script can hand over one CPU's events after a later event of
 * another: a task's switch-out on CPU 0 after its switch-in and next
 * switch-out on CPU 1.  An event older than the switch-out its task is
 * tracked with belongs to an interval whose record is made or lost: it
 * is left out and counted, so that no record pairs one block's stack
 * with another's time or waker. */
static bool task_late(offcpu *oc, const off_task *t, int64_t ts)
{
    if (t == NULL || ts >= t->ts)
        return false;
    oc->late++;
    return true;
}

/* The task tid left a CPU at ts with stack, in state. */
static void task_out(offcpu *oc, long tid, long tgid, int64_t ts, const strbuf *stack,
                     const char *state)
{
    off_task **p = slot(oc, tid);
    off_task *t = *p;
    if (task_late(oc, t, ts))
        return;
    if (t == NULL) {
        if (oc->ntasks >= OFF_MAX_TASKS) {
            oc->untracked++;
            return;
        }
        t = xmalloc(sizeof *t);
        memset(t, 0, sizeof *t);
        t->tid = tid;
        *p = t;
        oc->ntasks++;
    }
    free(t->stack);
    t->stack = xstrdup(stack->buf ? stack->buf : "");
    task_forget_waker(t);
    t->tgid = tgid;
    t->ts = ts;
    snprintf(t->state, sizeof t->state, "%s", state);
}

/* An interrupt's handler, as x86-64 names the ones its entry asm_NAME
 * calls: device interrupts, system vectors (timer, IPIs), NMIs. */
static bool interrupt_handler(const char *s, size_t n)
{
    static const char *const names[] = { "common_interrupt", "spurious_interrupt", "exc_nmi" };
    if (n > 7 && memcmp(s, "sysvec_", 7) == 0)
        return true;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (n == strlen(names[i]) && memcmp(s, names[i], n) == 0)
            return true;
    return false;
}

/* A waking in an interrupt runs on whatever task the interrupt came in
 * on, so the frames below the interrupt's entry, and that task's pid,
 * tid and comm, are not the waker's: qa 114 and vm 070 saw a timer's
 * wakeup of a sleep "woken" by a pipe writer that happened to be
 * running.  The waker's stack (perf frame lines, leaf first) is cut
 * after the entry asm_NAME reached from its handler NAME; true when it
 * was.  The tapset keeps the same rule (__srl_kwaker in
 * stap/tapset/staprelay_offcpu.stp). */
static bool waker_cut(char *stack)
{
    const char *handler = NULL;
    size_t hlen = 0;
    for (char *line = stack; *line != '\0';) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        frame_line f;
        if (frame_parse(line, n, &f) && f.kind == FRAME_PERF && f.name != NULL) {
            if (handler != NULL && f.name_len == hlen + 4 && memcmp(f.name, "asm_", 4) == 0 &&
                memcmp(f.name + 4, handler, hlen) == 0) {
                line[n] = '\0';
                return true;
            }
            handler = interrupt_handler(f.name, f.name_len) ? f.name : NULL;
            hlen = f.name_len;
        } else {
            handler = NULL;
        }
        if (nl == NULL)
            break;
        line = nl + 1;
    }
    return false;
}

/* offwake: the sample s (the waker, its stack) woke tid; the first
 * waking of a task that is off CPU is kept.  First by time, not by
 * arrival: a later interval's waking, handed over early from another
 * CPU, gives way to this one's when it comes (and task_in drops one
 * stamped after the task was back). */
static void task_woken(offcpu *oc, long tid, const perf_sample *s)
{
    off_task *t = *slot(oc, tid);
    if (t == NULL || task_late(oc, t, s->ts_ns))
        return;
    if (t->waker_stack != NULL) {
        if (s->ts_ns >= t->waker_ts)
            return;
        oc->late++;   /* the one kept was early: it is not this block's */
        task_forget_waker(t);
    }
    t->waker_ts = s->ts_ns;
    t->waker_stack = xstrdup(s->stack.buf ? s->stack.buf : "");
    if (waker_cut(t->waker_stack))
        return;   /* an interrupt: no task's comm */
    t->waker_comm = xstrdup(s->comm.buf ? s->comm.buf : "");
    t->waker_pid = s->pid;
    t->waker_tid = s->tid;
}

/* The record's stack: the blocked one, or the off-wake one (the waker's
 * lines in reverse, the delimiter, the blocked lines). */
static void record_stack(strbuf *out, const off_task *t)
{
    if (t->waker_stack != NULL && t->waker_stack[0] != '\0') {
        const char *w = t->waker_stack, *end = w + strlen(w);
        while (end > w) {
            const char *b = end;
            while (b > w && b[-1] != '\n')
                b--;
            sb_add(out, b, (size_t)(end - b));
            sb_addc(out, '\n');
            end = b > w ? b - 1 : w;
        }
        sb_adds(out, FRAME_DELIMITER "\n");
    }
    sb_adds(out, t->stack);
}

/* The task tid got a CPU back: its record, if it was tracked. */
static void task_in(offcpu *oc, long tid, int cpu, const char *comm, int64_t ts)
{
    off_task **p = slot(oc, tid);
    off_task *t = *p;
    if (t == NULL || task_late(oc, t, ts))
        return;
    *p = t->next;
    oc->ntasks--;
    if (t->waker_stack != NULL && t->waker_ts > ts) {
        oc->late++;   /* woken after it was back: a later block's waker */
        task_forget_waker(t);
    }
    int64_t d = ts - t->ts;
    if (d >= 0) {
        perf_source_hist_add(oc->hist, (uint64_t)d);
        oc->offtime += (uint64_t)d;
        oc->src.dirty = true;
        if (d >= OFF_MIN_NS) {
            strbuf r = STRBUF_INIT;
            sb_printf(&r, "{\"seq\": %llu, \"ts\": %lld, \"pid\": %ld, \"tid\": %ld, \"cpu\": %d, "
                      "\"comm\": \"", (unsigned long long)++oc->src.seq,
                      (long long)(ts + oc->to_epoch), t->tgid, tid, cpu < 0 ? 0 : cpu);
            json_escape(&r, comm, strlen(comm));
            sb_printf(&r, "\", \"duration\": %lld, \"state\": \"", (long long)d);
            json_escape(&r, t->state, strlen(t->state));
            if (t->waker_stack != NULL)
                oc->woken++;
            if (t->waker_comm != NULL) {
                sb_printf(&r, "\", \"waker_pid\": %ld, \"waker_tid\": %ld, \"waker_comm\": \"",
                          t->waker_pid, t->waker_tid);
                json_escape(&r, t->waker_comm, strlen(t->waker_comm));
            }
            sb_adds(&r, "\", \"stack\": \"");
            strbuf stk = STRBUF_INIT;
            record_stack(&stk, t);
            json_escape(&r, stk.buf, stk.len);
            sb_free(&stk);
            sb_adds(&r, "\"}");
            perf_source_add_json(&oc->src, r.buf);
            sb_free(&r);
        }
    }
    task_free(t);
}

/* hotcold: a cpu-clock sample of a traced thread (not the idle task) */
static void oncpu_sample(offcpu *oc, const perf_sample *s)
{
    if (s->pid == 0 || (oc->target && s->pid != oc->target))
        return;
    oc->sample_taken++;
    oc->src.dirty = true;
    if (oc->nsamples >= oc->src.max_pending) {
        oc->sample_dropped++;
        return;
    }
    sb_adds(&oc->samples, oc->nsamples++ ? ",\n    " : "    ");
    perf_source_sample_json(&oc->samples, ++oc->sample_seq, s->ts_ns + oc->to_epoch, s);
}

/* A sample: prev (the task in the header) left, next came back. */
static void on_sample(void *arg, const perf_sample *s)
{
    offcpu *oc = arg;
    if (oc->have_oncpu) {
        oncpu_sample(oc, s);
        return;
    }
    if (oc->have_waking) {
        task_woken(oc, oc->woken_pid, s);
        return;
    }
    if (!oc->have_switch)
        return;
    task_in(oc, oc->next_pid, s->cpu, oc->next_comm.buf ? oc->next_comm.buf : "", s->ts_ns);
    if (oc->prev_pid != 0 && (!oc->target || s->pid == oc->target)) {
        oc->switches++;
        oc->src.dirty = true;
        task_out(oc, oc->prev_pid, s->pid, s->ts_ns, &s->stack, oc->prev_state);
    }
}

/* "... prev_pid=P ... prev_state=S ==> next_comm=C next_pid=N ..." (comm
 * may hold blanks: each value runs to the next " key="). */
static bool parse_switch(offcpu *oc, const char *t)
{
    const char *pp = strstr(t, "prev_pid=");
    const char *arrow = strstr(t, " ==> next_comm=");
    const char *np = arrow ? strstr(arrow, " next_pid=") : NULL;
    if (pp == NULL || arrow == NULL || np == NULL)
        return false;
    oc->prev_pid = strtol(pp + 9, NULL, 10);
    const char *ps = strstr(pp, " prev_state=");
    size_t n = 0;
    if (ps != NULL && ps < arrow) {
        ps += 12;
        n = strcspn(ps, " ");
        if (n >= sizeof oc->prev_state)
            n = sizeof oc->prev_state - 1;
        memcpy(oc->prev_state, ps, n);
    }
    oc->prev_state[n] = '\0';
    oc->next_pid = strtol(np + 10, NULL, 10);
    const char *c = arrow + 15;
    sb_reset(&oc->next_comm);
    sb_add(&oc->next_comm, c, (size_t)(np - c));
    return true;
}

/* offwake: sched_waking's "comm=C pid=P prio=N target_cpu=N" (the last
 * " pid=": only numbers follow it, a comm may hold anything). */
static bool parse_waking(offcpu *oc, const char *t)
{
    if (!oc->wake || strncmp(t, "comm=", 5) != 0 || strstr(t, " target_cpu=") == NULL)
        return false;
    const char *pid = NULL;
    for (const char *p = strstr(t, " pid="); p != NULL; p = strstr(p + 1, " pid="))
        pid = p;
    if (pid == NULL)
        return false;
    oc->woken_pid = strtol(pid + 5, NULL, 10);
    return oc->woken_pid > 0;
}

/* perf lost events (its buffer was full: "PERF_RECORD_LOST lost N",
 * printed with --show-lost-events): any task's switch or waking may be
 * among them, so no interval in flight can be trusted any more.  They
 * are all left out and counted; tracking starts again from the next
 * switch-out. */
static void on_lost(offcpu *oc, const char *t)
{
    oc->lost += strtoull(t + strlen("PERF_RECORD_LOST lost "), NULL, 10);
    for (size_t i = 0; i < OFF_BUCKETS; i++)
        while (oc->tasks[i]) {
            off_task *k = oc->tasks[i];
            oc->tasks[i] = k->next;
            task_free(k);
            oc->forgotten++;
        }
    oc->ntasks = 0;
    oc->src.dirty = true;
}

/* A line of perf script: a header "comm pid/tid [cpu] sec.nsec: TRACE" is
 * cut after the time for the sampler (which emits the previous sample),
 * and its switch kept for the sample it starts. */
static void on_line(offcpu *oc, perf_sampler *ps, const char *s, size_t n)
{
    if (n == 0 || s[0] == ' ' || s[0] == '\t') {
        perf_sampler_line(ps, s, n);
        return;
    }
    const char *colon = memmem(s, n, ": ", 2);
    while (colon != NULL && colon > s && !(colon[-1] >= '0' && colon[-1] <= '9'))
        colon = memmem(colon + 1, n - (size_t)(colon + 1 - s), ": ", 2);
    if (colon == NULL) {
        perf_sampler_line(ps, s, n);
        return;
    }
    perf_sampler_line(ps, s, (size_t)(colon + 1 - s));
    strbuf t = STRBUF_INIT;
    sb_add(&t, colon + 2, n - (size_t)(colon + 2 - s));
    oc->have_switch = parse_switch(oc, t.buf);
    oc->have_waking = !oc->have_switch && parse_waking(oc, t.buf);
    /* hotcold's cpu-clock sample: no trace text after the time */
    oc->have_oncpu = oc->hot && !oc->have_switch && !oc->have_waking
                     && t.buf[strspn(t.buf, " ")] == '\0';
    if (!oc->have_switch && strncmp(t.buf, "PERF_RECORD_LOST lost ", 22) == 0)
        on_lost(oc, t.buf);
    sb_free(&t);
}

/* ---- data.json ------------------------------------------------------------ */

static char *offcpu_data(const perf_source *src, void *arg)
{
    const offcpu *oc = arg;
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "{\n  \"switches\": %llu,\n  \"offcpu_time\": %llu,\n  \"events_lost\": %llu,"
              "\n  \"offcpu\": ", (unsigned long long)oc->switches,
              (unsigned long long)oc->offtime, (unsigned long long)oc->lost);
    perf_source_hist_log(&sb, oc->hist);
    sb_adds(&sb, ",\n");
    if (oc->hot) {
        perf_source_samples_json(&sb, oc->sample_taken, oc->hz, oc->sample_dropped,
                                 &oc->samples, oc->nsamples);
        sb_adds(&sb, ",\n");
    }
    sb_printf(&sb, "  \"blocks_dropped\": %llu,\n", (unsigned long long)src->dropped);
    perf_source_event_array(&sb, "blocks", &src->pending, src->npending);
    sb_adds(&sb, ",\n  \"omitted\": 0\n}\n");
    return sb_steal(&sb);
}

/* data.json holds hotcold's samples: they go */
static void offcpu_flushed(void *arg)
{
    offcpu *oc = arg;
    oc->sample_written += oc->nsamples;
    oc->nsamples = 0;
    sb_reset(&oc->samples);
}

/* ---- the run ---------------------------------------------------------------- */

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* perf_pipe's callbacks: a line, and the end of the lines */
typedef struct offcpu_reader {
    offcpu *oc;
    perf_sampler *ps;
} offcpu_reader;

static void reader_line(void *arg, const char *s, size_t n)
{
    offcpu_reader *r = arg;
    on_line(r->oc, r->ps, s, n);
}

static void reader_end(void *arg)
{
    offcpu_reader *r = arg;
    perf_sampler_finish(r->ps);
}

/* metadata.json and the source directory.  Returns 0 or -1 (said). */
static int offcpu_open(offcpu *oc, const run_opts *o, const char *parent, const char *name)
{
    const char *replay = o->replay ? "\"replay\": true," : "";
    strbuf meta = STRBUF_INIT, samples = STRBUF_INIT;
    if (oc->hot)
        sb_printf(&samples, sample_metrics_fmt, replay, perf_source_sample_fields);
    sb_printf(&meta, meta_fmt, samples.buf ? samples.buf : "",
              oc->wake ? "off-CPU intervals with the stack they blocked in and the waker's "
                         "(perf sched_switch, sched_waking)"
                       : "off-CPU intervals with the stack they blocked in (perf sched_switch)",
              replay,
              oc->wake ? "off-wake stack, root first: the blocked stack, then -- and the "
                         "waker's stack inverted; kernel frames marked _[k]"
                       : "folded stack at switch-out, root first, kernel frames marked _[k]",
              oc->wake ? waker_fields : "");
    char err[1024];
    int rc = perf_source_open_as(&oc->src, parent, name, oc->hz, o->replay, meta.buf,
                                 offcpu_data, oc, err, sizeof err);
    sb_free(&meta);
    sb_free(&samples);
    if (rc != 0) {
        fprintf(stderr, "staprelay run: %s\n", err);
        return -1;
    }
    oc->src.flushed_fn = offcpu_flushed;
    return 0;
}

/* The run's last lines: what was seen, published, left out. */
static void say_end(const offcpu *oc)
{
    fprintf(stderr, "staprelay run: %llu switches, %llu records published, %llu dropped, "
            "%llu tasks not tracked (table full), %llu events out of time order left out, "
            "%llu events lost by perf (%llu intervals in flight left out)\n",
            (unsigned long long)oc->switches, (unsigned long long)oc->src.written,
            (unsigned long long)oc->src.dropped, (unsigned long long)oc->untracked,
            (unsigned long long)oc->late, (unsigned long long)oc->lost,
            (unsigned long long)oc->forgotten);
    if (oc->wake)
        fprintf(stderr, "staprelay run: %llu records with their waker's stack\n",
                (unsigned long long)oc->woken);
    if (oc->hot)
        fprintf(stderr, "staprelay run: %llu on-CPU samples, %llu published, %llu dropped\n",
                (unsigned long long)oc->sample_taken, (unsigned long long)oc->sample_written,
                (unsigned long long)oc->sample_dropped);
    fprintf(stderr, "staprelay run: removed %s\n", oc->src.dir);
}

static void offcpu_free(offcpu *oc)
{
    for (size_t i = 0; i < OFF_BUCKETS; i++)
        while (oc->tasks[i]) {
            off_task *t = oc->tasks[i];
            oc->tasks[i] = t->next;
            task_free(t);
        }
    sb_free(&oc->next_comm);
    sb_free(&oc->samples);
    free(oc);
}

char *script_offcpu_replay(const char *text, bool wake, uint64_t *late)
{
    offcpu *oc = xmalloc(sizeof *oc);
    memset(oc, 0, sizeof *oc);
    oc->wake = wake;
    oc->src.max_pending = 20000;
    perf_sampler ps;
    perf_sampler_init(&ps, on_sample, oc);
    ps.keep_idle = true;
    for (const char *l = text; *l != '\0';) {
        size_t n = strcspn(l, "\n");
        on_line(oc, &ps, l, n);
        l += n + (l[n] == '\n');
    }
    perf_sampler_finish(&ps);
    perf_sampler_free(&ps);
    *late = oc->late;
    char *records = sb_steal(&oc->src.pending);
    if (records == NULL)
        records = xstrdup("");
    offcpu_free(oc);
    return records;
}

int script_offcpu_run(const run_script *s, const run_opts *o, const char *name)
{
    char pbuf[4096];
    const char *parent = perf_source_parent(o->dir, pbuf, sizeof pbuf);
    if (parent == NULL)
        return RUN_EXIT_FAILED;
    offcpu *oc = xmalloc(sizeof *oc);
    memset(oc, 0, sizeof *oc);
    oc->to_epoch = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC);
    oc->wake = strcmp(s->name, "offwake") == 0;
    oc->hot = strcmp(s->name, "hotcold") == 0;
    oc->hz = oc->hot ? (o->hz ? o->hz : 99) : 0;
    if (offcpu_open(oc, o, parent, name) != 0) {
        offcpu_free(oc);
        return RUN_EXIT_FAILED;
    }
    if (o->pid)
        oc->target = o->pid;

    char cpu_clock[48];
    snprintf(cpu_clock, sizeof cpu_clock, "cpu-clock/freq=%ld/", oc->hz);
    const char *rargv[] = { "perf", "record", "--no-buffering", "-q", "-e",
                            "sched:sched_switch", "-e", NULL, "-g", "-k", "mono",
                            "--sample-cpu", "-a", "-o", "-", NULL };
    /* the second event, or the options follow the first directly */
    const char *second = oc->wake ? "sched:sched_waking" : oc->hot ? cpu_clock : NULL;
    if (second)
        rargv[7] = second;
    else
        memmove(&rargv[6], &rargv[8], 8 * sizeof rargv[0]);
    const char *sargv[] = { "perf", "script", "-i", "-", "-F",
                            "comm,pid,tid,cpu,time,trace,ip,sym,dso", "--ns",
                            "--show-lost-events", NULL };
    fprintf(stderr, "staprelay run: perf record -e sched:sched_switch%s%s -g -a | perf script: "
            "%s; files in %s\nstaprelay run: metrics: pminfo -f staprelay.%s   events: "
            "pmevent -t 1 staprelay.%s.blocks.records\n",
            second ? " -e " : "", second ? second : "",
            o->pid || o->cmd ? "following one process" : "every task", oc->src.dir, name, name);
    if (oc->hot)
        fprintf(stderr, "staprelay run: hot/cold: staprelay flame --hotcold -h HOST "
                "staprelay.%s.samples staprelay.%s.blocks\n", name, name);

    perf_sampler ps;
    perf_sampler_init(&ps, on_sample, oc);
    ps.keep_idle = true;              /* the idle task's switches bring tasks back */
    offcpu_reader reader = { oc, &ps };
    perf_pipe pp = { .record_argv = rargv, .script_argv = sargv, .src = &oc->src,
                     .on_line = reader_line, .on_end = reader_end, .arg = &reader,
                     .target = &oc->target };
    int rc = perf_pipe_run(&pp, o);
    perf_sampler_free(&ps);
    say_end(oc);
    perf_source_close(&oc->src, true);
    offcpu_free(oc);
    return rc;
}
