/* perf_source: perf script samples → a pmdajson-style source directory
 * (see perf_source.h). */
#include "client/perf_source.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/collapse_perf.h"
#include "client/utf8.h"

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
    sb_free(&ps->frames);
    sb_free(&ps->tmp);
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Step from the token s[b..e) to the one before it (blanks between). */
static void prev_token(const char *s, size_t *b, size_t *e)
{
    *e = *b;
    while (*e > 0 && isspace((unsigned char)s[*e - 1]))
        (*e)--;
    *b = *e;
    while (*b > 0 && !isspace((unsigned char)s[*b - 1]))
        (*b)--;
}

/* Parsed from the right, so a comm with blanks stays whole:
 * "comm  PID/TID [CPU] SEC.NSEC:" with [CPU] and the time optional. */
bool perf_sample_header(const char *s, size_t n, perf_sample *out)
{
    if (n == 0 || isspace((unsigned char)s[0]))
        return false;
    size_t e = n;
    while (e > 0 && isspace((unsigned char)s[e - 1]))
        e--;
    if (e == 0 || s[e - 1] != ':')
        return false;
    e--;
    /* tokens from the right */
    out->ts_ns = 0;
    out->cpu = -1;
    size_t b = e;
    while (b > 0 && !isspace((unsigned char)s[b - 1]))
        b--;
    /* time? SEC.FRAC */
    const char *dot = memchr(s + b, '.', e - b);
    if (dot != NULL && all_digits(s + b, (size_t)(dot - (s + b)))
        && all_digits(dot + 1, e - (size_t)(dot + 1 - s))) {
        int64_t sec = strtoll(s + b, NULL, 10);
        int64_t frac = 0;
        size_t fl = e - (size_t)(dot + 1 - s);
        for (size_t i = 0; i < 9; i++)
            frac = frac * 10 + (i < fl ? dot[1 + i] - '0' : 0);
        out->ts_ns = sec * 1000000000LL + frac;
        prev_token(s, &b, &e);
    }
    /* [CPU]? */
    if (e - b >= 3 && s[b] == '[' && s[e - 1] == ']' && all_digits(s + b + 1, e - b - 2)) {
        out->cpu = atoi(s + b + 1);
        prev_token(s, &b, &e);
    }
    /* PID/TID or TID */
    const char *slash = memchr(s + b, '/', e - b);
    if (slash != NULL) {
        if (!all_digits(s + b, (size_t)(slash - (s + b)))
            || !all_digits(slash + 1, e - (size_t)(slash + 1 - s)))
            return false;
        out->pid = strtol(s + b, NULL, 10);
        out->tid = strtol(slash + 1, NULL, 10);
    } else {
        if (!all_digits(s + b, e - b))
            return false;
        out->pid = out->tid = strtol(s + b, NULL, 10);
    }
    e = b;
    while (e > 0 && isspace((unsigned char)s[e - 1]))
        e--;
    if (e == 0)
        return false;
    sb_reset(&out->comm);
    sb_add(&out->comm, s, e);
    return true;
}

static bool mod_kernel(const char *m, size_t n)
{
    if (n == 9 && memcmp(m, "[unknown]", 9) == 0)
        return false;
    if (n > 0 && m[0] == '[')          /* [kernel.kallsyms], [bpf_prog], [xfs] */
        return true;
    return n >= 7 && memcmp(m + n - 7, "vmlinux", 7) == 0;
}

bool perf_sample_frame(const char *s, size_t n, strbuf *out, bool *kernel)
{
    perf_frame f;
    if (n == 0 || !isspace((unsigned char)s[0]) || !perf_parse_frame(s, n, &f))
        return false;
    const char *func = f.func;
    size_t fn = f.func_len;
    /* strip "+0xOFF" */
    size_t j = fn;
    while (j > 0 && isxdigit((unsigned char)func[j - 1]))
        j--;
    if (j < fn && j >= 3 && func[j - 1] == 'x' && func[j - 2] == '0' && func[j - 3] == '+')
        fn = j - 3;
    *kernel = mod_kernel(f.mod, f.mod_len);
    size_t start = out->len;
    if (fn == 9 && memcmp(func, "[unknown]", 9) == 0) {
        const char *name = "unknown";
        size_t nl = 7;
        if (!(f.mod_len == 9 && memcmp(f.mod, "[unknown]", 9) == 0) && f.mod_len > 0) {
            name = f.mod;
            nl = f.mod_len;
            for (size_t i = nl; i-- > 0;)
                if (f.mod[i] == '/') {
                    name = f.mod + i + 1;
                    nl = f.mod_len - i - 1;
                    break;
                }
        }
        sb_addc(out, '[');
        sb_add(out, name, nl);
        sb_addc(out, ']');
    } else {
        perf_tidy_symbol(out, func, fn, false);
    }
    if (out->len == start)
        sb_adds(out, "[unknown]");
    /* keep the folded text well formed: no ';', no control bytes, and
     * never " : " (the relay would take it for backtrace text) */
    for (size_t i = start; i < out->len; i++) {
        char c = out->buf[i];
        if (c == ';')
            out->buf[i] = ':';
        else if ((unsigned char)c < 0x20)
            out->buf[i] = '_';
        else if (c == ' ' && i + 1 < out->len && out->buf[i + 1] == ':')
            out->buf[i] = '_';
    }
    if (*kernel)
        sb_adds(out, "_[k]");
    return true;
}

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
    /* frames are leaf first, NUL-separated: join root first */
    sb_reset(&ps->cur.stack);
    size_t nf = 0;
    const char *base = ps->frames.buf;
    size_t end = ps->frames.len;
    while (end > 0) {
        size_t b = end - 1;        /* end - 1 is the NUL of the last frame */
        while (b > 0 && base[b - 1] != '\0')
            b--;
        if (nf++)
            sb_addc(&ps->cur.stack, ';');
        sb_add(&ps->cur.stack, base + b, end - 1 - b);
        end = b;
    }
    ps->cur.nframes = nf;
    if (nf == 0) {
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
        bool kernel;
        sb_reset(&ps->tmp);
        if (!perf_sample_frame(s, n, &ps->tmp, &kernel)) {
            ps->bad_lines++;
            return;
        }
        if ((kernel && ps->user_only) || (!kernel && ps->kernel_only))
            return;
        sb_add(&ps->frames, ps->tmp.buf, ps->tmp.len);
        sb_addc(&ps->frames, '\0');
        ps->nframes++;
        return;
    }
    emit(ps);                       /* a sample without a blank line after it */
    sb_reset(&ps->frames);
    ps->nframes = 0;
    if (perf_sample_header(s, n, &ps->cur))
        ps->in_sample = true;
    else
        ps->bad_lines++;
}

void perf_sampler_finish(perf_sampler *ps)
{
    emit(ps);
}

/* ---- the source directory ----------------------------------------------- */

char *perf_source_metadata(const char *prefix)
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
            "      \"dropped\": \"/samples_dropped\",\n"
            "      \"replay\": true,\n"
            "      \"fields\": [\n"
            "        {\"name\": \"stack\", \"pointer\": \"/stack\", \"type\": \"stack\", \"description\": \"folded stack, root first, kernel frames marked _[k]\"},\n"
            "        {\"name\": \"pid\", \"pointer\": \"/pid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"process id\"},\n"
            "        {\"name\": \"tid\", \"pointer\": \"/tid\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"thread id\"},\n"
            "        {\"name\": \"cpu\", \"pointer\": \"/cpu\", \"type\": \"integer\", \"semantics\": \"discrete\", \"description\": \"CPU number\"},\n"
            "        {\"name\": \"comm\", \"pointer\": \"/comm\", \"type\": \"string\", \"description\": \"command name\"},\n"
            "        {\"name\": \"count\", \"pointer\": \"/count\", \"type\": \"integer\", \"semantics\": \"counter\", \"units\": \"count\", \"description\": \"samples this record stands for\"}\n"
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

/* Write dir/name atomically: dir/.name.tmp, fsync-free, rename. */
static int write_atomic(const char *dir, const char *name, const char *text, size_t len,
                        char *err, size_t errlen)
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
    if (close(fd) != 0 || rename(tmp.buf, path) != 0) {
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
        "metadata.json", "data.json", ".data.json.tmp", ".metadata.json.tmp", ".staprelay-run",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *p = pjoin(dir, files[i]);
        unlink(p);
        free(p);
    }
}

int perf_source_open(perf_source *src, const char *parent, const char *name, long hz,
                     char *err, size_t errlen)
{
    return perf_source_open_as(src, parent, name, hz, NULL, NULL, NULL, err, errlen);
}

int perf_source_open_as(perf_source *src, const char *parent, const char *name, long hz,
                        const char *meta_text, perf_source_data_fn data_fn, void *data_arg,
                        char *err, size_t errlen)
{
    memset(src, 0, sizeof *src);
    src->meta_text = meta_text;
    src->data_fn = data_fn;
    src->data_arg = data_arg;
    src->max_pending = 20000;
    src->hz = hz;
    src->name = strdup(name);
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
        char *pf = pjoin(src->dir, ".staprelay-run");
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
    if (write_atomic(src->dir, ".staprelay-run", pidtext, (size_t)pl, err, errlen) != 0)
        goto fail_rm;
    /* data first: the relay sees a complete source once metadata lands */
    src->dirty = true;
    if (perf_source_flush(src, err, errlen) != 0)
        goto fail_rm;
    char *meta = src->meta_text ? strdup(src->meta_text) : perf_source_metadata(name);
    int rc = meta ? write_atomic(src->dir, "metadata.json", meta, strlen(meta), err, errlen) : -1;
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
    return -1;
}

void perf_source_add(perf_source *src, const perf_sample *s)
{
    src->taken++;
    src->dirty = true;
    if (src->npending >= src->max_pending) {
        src->dropped++;
        return;
    }
    strbuf *p = &src->pending;
    if (src->npending++)
        sb_adds(p, ",\n");
    sb_printf(p, "    {\"seq\": %llu, \"ts\": %lld, \"pid\": %ld, \"tid\": %ld, \"cpu\": %d, "
              "\"comm\": \"", (unsigned long long)++src->seq, (long long)s->ts_ns,
              s->pid, s->tid, s->cpu < 0 ? 0 : s->cpu);
    json_escape(p, s->comm.buf ? s->comm.buf : "", s->comm.len);
    sb_adds(p, "\", \"count\": 1, \"stack\": \"");
    json_escape(p, s->stack.buf ? s->stack.buf : "", s->stack.len);
    sb_adds(p, "\"}");
}

char *perf_source_data(const perf_source *src)
{
    strbuf sb = STRBUF_INIT;
    sb_printf(&sb, "{\n  \"taken\": %llu,\n  \"frequency\": %ld,\n  \"samples_dropped\": %llu,\n"
              "  \"samples\": [", (unsigned long long)src->taken, src->hz,
              (unsigned long long)src->dropped);
    if (src->npending) {
        sb_adds(&sb, "\n");
        sb_add(&sb, src->pending.buf, src->pending.len);
        sb_adds(&sb, "\n  ");
    }
    sb_adds(&sb, "]\n}\n");
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
    int rc = write_atomic(src->dir, "data.json", text, strlen(text), err, errlen);
    free(text);
    if (rc != 0)
        return -1;
    src->written += src->npending;
    src->npending = 0;
    sb_reset(&src->pending);
    src->dirty = false;
    return 0;
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
    memset(src, 0, sizeof *src);
}
