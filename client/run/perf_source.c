/* perf_source: perf script samples → a pmdajson-style source directory
 * (see perf_source.h). */
#include "client/run/perf_source.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcp/pmapi.h>

#include "client/run/child.h"
#include "common/frames.h"
#include "common/perf_header.h"
#include "common/script_opts.h"
#include "client/util/utf8.h"
#include "common/xalloc.h"

/* ---- parsing ------------------------------------------------------------ */

void perf_sampler_init(perf_sampler *ps, perf_sample_fn fn, void *arg)
{
    memset(ps, 0, sizeof *ps);
    ps->fn = fn;
    ps->arg = arg;
}

void perf_sampler_free(perf_sampler *ps)
{
    sb_free(&ps->cur.comm);
    sb_free(&ps->cur.stack);
}

/* What the header says (common/perf_header reads it). */
static void take_header(const perf_header *h, perf_sample *out)
{
    sb_reset(&out->comm);
    sb_add(&out->comm, h->comm, h->comm_len);
    out->tid = strtol(h->tid, NULL, 10);
    out->pid = h->pid ? strtol(h->pid, NULL, 10) : out->tid;
    out->cpu = h->cpu;
    out->ts_ns = h->has_time ? h->time_ns : 0;
}

/* The sample's kept frame lines, leaf first, one per line: the text the
 * relay folds (common/frames), so the source carries what perf printed
 * and no rule of the relay's is written again here. */
static void emit(perf_sampler *ps)
{
    if (!ps->in_sample)
        return;
    ps->in_sample = false;
    ps->samples++;
    if (ps->cur.pid == 0 && !ps->keep_idle) {
        ps->idle++;
        return;
    }
    ps->cur.nframes = ps->nframes;
    if (ps->nframes == 0) {
        ps->empty++;
        return;
    }
    ps->fn(ps->arg, &ps->cur);
}

void perf_sampler_line(perf_sampler *ps, const char *s, size_t n)
{
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (n == 0) {
        emit(ps);
        return;
    }
    if (isspace((unsigned char)s[0])) {
        if (!ps->in_sample)
            return;
        frame_line f;
        if (!frame_parse(s, n, &f) || f.kind != FRAME_PERF) {
            ps->bad_lines++;
            return;
        }
        bool kernel = f.side == FRAME_SIDE_KERNEL;
        if ((kernel && ps->user_only) || (!kernel && ps->kernel_only))
            return;
        while (isspace((unsigned char)*s))
            s++, n--;
        if (ps->cur.stack.len > 0)
            sb_addc(&ps->cur.stack, '\n');
        sb_add(&ps->cur.stack, s, n);
        ps->nframes += !f.empty;
        return;
    }
    emit(ps);                       /* a sample without a blank line after it */
    sb_reset(&ps->cur.stack);
    ps->nframes = 0;
    perf_header h;
    if (perf_header_parse(s, n, &h)) {
        take_header(&h, &ps->cur);
        ps->in_sample = true;
    } else {
        ps->bad_lines++;
    }
}

void perf_sampler_finish(perf_sampler *ps)
{
    emit(ps);
}

/* ---- the source directory ----------------------------------------------- */

const char *perf_source_parent(const char *dir, char *buf, size_t len)
{
    const char *parent = dir;
    if (parent == NULL) {
        const char *tmp = pmGetOptionalConfig("PCP_TMP_DIR");
        snprintf(buf, len, "%s/staprelay", tmp && *tmp ? tmp : "/var/lib/pcp/tmp");
        parent = buf;
    }
    struct stat st;
    if (stat(parent, &st) == 0)
        return parent;
    if (dir == NULL) {
        fprintf(stderr, "staprelay run: %s does not exist: pmdastaprelay's Install "
                "creates it and watches it (directory_list); install the PMDA, or "
                "give --dir DIR naming a directory it watches\n", parent);
        return NULL;
    }
    if (mkdir(parent, 0755) != 0) {
        fprintf(stderr, "staprelay run: cannot create %s: %s\n", parent, strerror(errno));
        return NULL;
    }
    return parent;
}

const char perf_source_sample_fields[] =
    "        {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\", \"description\": \"folded stack, root first, kernel frames marked _[k]\"},\n"
    "        {\"name\": \"pid\", \"pointer\": \"/pid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"process id\"},\n"
    "        {\"name\": \"tid\", \"pointer\": \"/tid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"thread id\"},\n"
    "        {\"name\": \"cpu\", \"pointer\": \"/cpu\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"CPU number\"},\n"
    "        {\"name\": \"comm\", \"pointer\": \"/comm\", \"type\": \"string\", \"description\": \"command name\"},\n"
    "        {\"name\": \"count\", \"pointer\": \"/count\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"samples this record stands for\"}\n";

char *perf_source_metadata(const char *prefix, bool replay)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\n  \"prefix\": \"");
    json_escape(&sb, prefix, strlen(prefix));
    sb_adds(&sb,
            "\",\n"
            "  \"metrics\": [\n"
            "    {\n"
            "      \"name\": \"samples\",\n"
            "      \"pointer\": \"/samples\",\n"
            "      \"type\": \"event\",\n"
            "      \"description\": \"CPU samples with kernel and user stacks (perf record -g)\",\n"
            "      \"timestamp\": \"/ts\",\n"
            "      \"timestamp_units\": \"nsec\",\n"
            "      \"sequence\": \"/seq\",\n"
            "      \"dropped\": \"/samples_dropped\",\n");
    if (replay)
        sb_adds(&sb, "      \"replay\": true,\n");
    sb_adds(&sb,
            "      \"fields\": [\n");
    sb_adds(&sb, perf_source_sample_fields);
    sb_adds(&sb,
            "      ]\n"
            "    },\n"
            "    {\n"
            "      \"name\": \"taken\",\n"
            "      \"pointer\": \"/taken\",\n"
            "      \"type\": \"integer\",\n"
            "      \"semantics\": \"counter\",\n"
            "      \"units\": \"count\",\n"
            "      \"description\": \"samples that passed the filters\"\n"
            "    },\n"
            "    {\n"
            "      \"name\": \"frequency\",\n"
            "      \"pointer\": \"/frequency\",\n"
            "      \"type\": \"integer\",\n"
            "      \"semantics\": \"discrete\",\n"
            "      \"description\": \"sampling frequency in Hz\"\n"
            "    }\n"
            "  ]\n"
            "}\n");
    return sb_steal(&sb);
}

static char *pjoin(const char *a, const char *b)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "%s/%s", a, b);
    return sb_steal(&sb);
}

/* Note the reads of data.json that inotify has reported. */
static void drain_reads(perf_source *src)
{
    if (src->read_fd < 0)
        return;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;
    while ((n = read(src->read_fd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            if (ev->mask & IN_CLOSE_NOWRITE) {
                src->ever_read = true;
                if (ev->wd == src->data_wd)
                    src->data_read = true;
            }
            p += sizeof *ev + ev->len;
        }
    }
}

/* Watch the file about to become data.json (tmp, written and closed) in
 * place of the one it replaces. */
static void watch_next(perf_source *src, const char *tmp)
{
    if (src->read_fd < 0)
        return;
    drain_reads(src);
    if (src->data_wd >= 0)
        inotify_rm_watch(src->read_fd, src->data_wd);   /* gone already: EINVAL, harmless */
    src->data_wd = inotify_add_watch(src->read_fd, tmp, IN_CLOSE_NOWRITE);
    src->data_read = false;
}

/* Write dir/name atomically: dir/.name.tmp, fsync-free, rename.  src:
 * watch the new file's reads (data.json only). */
static int write_atomic(const char *dir, const char *name, const char *text, size_t len,
                        perf_source *src, char *err, size_t errlen)
{
    strbuf tmp = STRBUF_INIT;
    sb_printf(&tmp, "%s/.%s.tmp", dir, name);
    char *path = pjoin(dir, name);
    int rc = -1;
    int fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp.buf, strerror(errno));
        goto out;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errlen, "%s: %s", tmp.buf, strerror(errno));
            close(fd);
            unlink(tmp.buf);
            goto out;
        }
        off += (size_t)w;
    }
    if (close(fd) != 0) {
        snprintf(err, errlen, "%s: %s", tmp.buf, strerror(errno));
        unlink(tmp.buf);
        goto out;
    }
    if (src != NULL)
        watch_next(src, tmp.buf);
    if (rename(tmp.buf, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp.buf);
        goto out;
    }
    rc = 0;
out:
    sb_free(&tmp);
    free(path);
    return rc;
}

static void clear_dir(const char *dir)
{
    static const char *const files[] = {
        "metadata.json", "data.json", ".data.json.tmp", ".metadata.json.tmp", SCRIPT_RUN_MARK,
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *p = pjoin(dir, files[i]);
        unlink(p);
        free(p);
    }
}

int perf_source_open(perf_source *src, const char *parent, const char *name, long hz,
                     bool replay,
                     char *err, size_t errlen)
{
    return perf_source_open_as(src, parent, name, hz, replay, NULL, NULL, NULL,
                               err, errlen);
}

int perf_source_open_as(perf_source *src, const char *parent, const char *name, long hz,
                        bool replay, const char *meta_text, perf_source_data_fn data_fn, void *data_arg,
                        char *err, size_t errlen)
{
    memset(src, 0, sizeof *src);
    src->read_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    src->data_wd = -1;
    src->data_fn = data_fn;
    src->data_arg = data_arg;
    src->max_pending = 20000;
    src->hz = hz;
    src->name = xstrdup(name);
    src->dir = pjoin(parent, name);
    struct stat st;
    if (stat(parent, &st) != 0) {
        snprintf(err, errlen, "%s: %s", parent, strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", parent);
        goto fail;
    }
    if (mkdir(src->dir, 0755) != 0) {
        if (errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", src->dir, strerror(errno));
            goto fail;
        }
        /* left behind by an earlier run? */
        char *pf = pjoin(src->dir, SCRIPT_RUN_MARK);
        FILE *fp = fopen(pf, "r");
        free(pf);
        long other = 0;
        if (fp != NULL) {
            if (fscanf(fp, "%ld", &other) != 1)
                other = 0;
            fclose(fp);
        }
        if (other <= 0) {
            snprintf(err, errlen, "%s already exists and is not a staprelay run's "
                     "directory: choose another --name (or remove it)", src->dir);
            goto fail;
        }
        if (other != (long)getpid() && (kill((pid_t)other, 0) == 0 || errno == EPERM)) {
            snprintf(err, errlen, "%s is in use by staprelay run (pid %ld): choose "
                     "another --name", src->dir, other);
            goto fail;
        }
        clear_dir(src->dir);
    }
    char pidtext[32];
    int pl = snprintf(pidtext, sizeof pidtext, "%ld\n", (long)getpid());
    if (write_atomic(src->dir, SCRIPT_RUN_MARK, pidtext, (size_t)pl, NULL, err, errlen) != 0)
        goto fail_rm;
    /* data first: the relay sees a complete source once metadata lands */
    src->dirty = true;
    if (perf_source_flush(src, err, errlen) != 0)
        goto fail_rm;
    char *meta = meta_text ? xstrdup(meta_text)
                                : perf_source_metadata(name, replay);
    int rc = write_atomic(src->dir, "metadata.json", meta, strlen(meta), NULL, err, errlen);
    free(meta);
    if (rc != 0)
        goto fail_rm;
    return 0;
fail_rm:
    clear_dir(src->dir);
    rmdir(src->dir);
fail:
    free(src->dir);
    free(src->name);
    src->dir = src->name = NULL;
    if (src->read_fd >= 0)
        close(src->read_fd);
    src->read_fd = -1;
    return -1;
}

int perf_source_set_metadata(perf_source *src, const char *meta_text, char *err, size_t errlen)
{
    return write_atomic(src->dir, "metadata.json", meta_text, strlen(meta_text), NULL, err, errlen);
}

void perf_source_hist_add(uint64_t hist[65], uint64_t v)
{
    int k = 0;
    for (; v; v >>= 1)
        k++;
    hist[k]++;
}

void perf_source_hist_log(strbuf *sb, const uint64_t hist[65])
{
    int lo = -1, hi = -1;
    for (int k = 0; k < 65; k++)
        if (hist[k]) {
            if (lo < 0)
                lo = k;
            hi = k;
        }
    sb_adds(sb, "[");
    for (int k = lo; lo >= 0 && k <= hi; k++) {
        unsigned long long blo = k == 0 ? 0 : 1ULL << (k - 1);
        unsigned long long bhi = k == 0 ? 0 : k == 64 ? ~0ULL : (1ULL << k) - 1;
        sb_printf(sb, "%s\n    {\"lo\": %llu, \"hi\": %llu, \"count\": %llu}", k > lo ? "," : "",
                  blo, bhi, (unsigned long long)hist[k]);
    }
    sb_adds(sb, lo >= 0 ? "\n  ]" : "]");
}

void perf_source_add(perf_source *src, const perf_sample *s)
{
    src->taken++;
    src->dirty = true;
    if (src->npending >= src->max_pending) {
        src->dropped++;
        return;
    }
    if (src->npending++)
        sb_adds(&src->pending, ",\n");
    sb_adds(&src->pending, "    ");
    perf_source_sample_json(&src->pending, ++src->seq, s->ts_ns, s);
}

void perf_source_sample_json(strbuf *p, uint64_t seq, int64_t ts_ns, const perf_sample *s)
{
    sb_printf(p, "{\"seq\": %llu, \"ts\": %lld, \"pid\": %ld, \"tid\": %ld, \"cpu\": %d, "
              "\"comm\": \"", (unsigned long long)seq, (long long)ts_ns,
              s->pid, s->tid, s->cpu < 0 ? 0 : s->cpu);
    json_escape(p, s->comm.buf ? s->comm.buf : "", s->comm.len);
    sb_adds(p, "\", \"count\": 1, \"stack\": \"");
    json_escape(p, s->stack.buf ? s->stack.buf : "", s->stack.len);
    sb_adds(p, "\"}");
}

void perf_source_event_array(strbuf *sb, const char *name, const strbuf *records, size_t n)
{
    sb_printf(sb, "  \"%s\": [", name);
    if (n) {
        sb_adds(sb, "\n");
        sb_add(sb, records->buf, records->len);
        sb_adds(sb, "\n  ");
    }
    sb_adds(sb, "]");
}

void perf_source_samples_json(strbuf *sb, uint64_t taken, long hz, uint64_t dropped,
                              const strbuf *records, size_t n)
{
    sb_printf(sb, "  \"taken\": %llu,\n  \"frequency\": %ld,\n  \"samples_dropped\": %llu,\n",
              (unsigned long long)taken, hz, (unsigned long long)dropped);
    perf_source_event_array(sb, "samples", records, n);
}

char *perf_source_data(const perf_source *src)
{
    strbuf sb = STRBUF_INIT;
    sb_adds(&sb, "{\n");
    perf_source_samples_json(&sb, src->taken, src->hz, src->dropped, &src->pending, src->npending);
    sb_adds(&sb, "\n}\n");
    return sb_steal(&sb);
}

void perf_source_add_json(perf_source *src, const char *record)
{
    src->dirty = true;
    if (src->npending >= src->max_pending) {
        src->dropped++;
        return;
    }
    if (src->npending++)
        sb_adds(&src->pending, ",\n");
    sb_printf(&src->pending, "    %s", record);
}

int perf_source_flush(perf_source *src, char *err, size_t errlen)
{
    if (!src->dirty)
        return 0;
    char *text = src->data_fn ? src->data_fn(src, src->data_arg) : perf_source_data(src);
    int rc = write_atomic(src->dir, "data.json", text, strlen(text), src, err, errlen);
    free(text);
    if (rc != 0)
        return -1;
    src->flushes++;
    src->written += src->npending;
    src->npending = 0;
    sb_reset(&src->pending);
    src->dirty = false;
    if (src->flushed_fn)
        src->flushed_fn(src->data_arg);
    return 0;
}

int perf_source_wait_read(perf_source *src, double timeout)
{
    if (src->read_fd < 0 || src->data_wd < 0)
        return -1;
    int stops = child_stop_requested();
    double deadline = child_now() + timeout;
    for (;;) {
        drain_reads(src);
        if (src->data_read)
            return 1;
        double left = deadline - child_now();
        if (left <= 0 || child_stop_requested() != stops)
            return 0;   /* late, or the user asked us to stop: wait no more */
        struct pollfd pfd = { .fd = src->read_fd, .events = POLLIN };
        if (poll(&pfd, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
            return -1;
    }
}

void perf_source_close(perf_source *src, bool remove)
{
    if (src->dir != NULL && remove) {
        clear_dir(src->dir);
        rmdir(src->dir);
    }
    free(src->dir);
    free(src->name);
    sb_free(&src->pending);
    if (src->read_fd >= 0)
        close(src->read_fd);
    memset(src, 0, sizeof *src);
    src->read_fd = src->data_wd = -1;
}
