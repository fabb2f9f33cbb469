/* pprof_read: pprof profiles into the stack sink (see pprof_read.h). */
#include "client/input/pprof_read.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "client/pprof/pprof_codec.h"

typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Sample pb_sample;

typedef struct pprof_reader {
    const pprof_profile *p;
    int        index;        /* the sample value read */
    int        samples_at;   /* the "samples"/"count" value, or -1 */
    const char *type, *unit;
    stackfold  frames;       /* the sample's frames, leaf first */
    strbuf     stack;
    size_t     folded_bytes; /* delivered so far */
} pprof_reader;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* pprof's name of a frame without a function name: the mapping's file
 * in brackets, else "<unknown>". */
static void unnamed(const pprof_reader *r, const pb_location *l, strbuf *out)
{
    const Perftools__Profiles__Mapping *m = pprof_mapping(r->p, l->mapping_id);
    const char *file = m ? pprof_str(r->p, m->filename) : "";
    if (*file)
        sb_printf(out, "[%s]", base_name(file));
    else
        sb_adds(out, "<unknown>");
}

/* Push the frames of one location, innermost (line[0]) first. */
static void push_location(pprof_reader *r, const pb_location *l,
                          unsigned ordinal, strbuf *name)
{
    const Perftools__Profiles__Mapping *m = pprof_mapping(r->p, l->mapping_id);
    const char *module = m && *pprof_str(r->p, m->filename)
                         ? pprof_str(r->p, m->filename) : NULL;
    size_t nlines = l->n_line ? l->n_line : 1;
    for (size_t k = 0; k < nlines; k++) {
        const Perftools__Profiles__Function *f =
            l->n_line ? pprof_function(r->p, l->line[k]->function_id) : NULL;
        const char *fn = f ? pprof_str(r->p, f->name) : "";
        sb_reset(name);
        if (*fn)
            sb_adds(name, fn);
        else
            unnamed(r, l, name);
        stackfold_push(&r->frames, name->buf, name->len, l->address, module,
                       ordinal);
    }
}

/* The sample's labels as a context (and its time, if labelled). */
static void sample_context(const pprof_reader *r, const pb_sample *s,
                           stack_context *ctx, int64_t *when_ns)
{
    *ctx = (stack_context){ .pid = -1, .tid = -1,
                            .time_ns = STACK_TIME_UNKNOWN,
                            .samples = -1,
                            .weight_type = r->type, .weight_unit = r->unit,
                            .frames = &r->frames };
    *when_ns = STACK_TIME_UNKNOWN;
    if (r->samples_at >= 0)
        ctx->samples = (double)s->value[r->samples_at];
    for (size_t i = 0; i < s->n_label; i++) {
        const Perftools__Profiles__Label *l = s->label[i];
        const char *key = pprof_str(r->p, l->key);
        const char *str = pprof_str(r->p, l->str);
        if (strcmp(key, "pid") == 0 && l->num > 0)
            ctx->pid = l->num;
        else if (strcmp(key, "tid") == 0 && l->num > 0)
            ctx->tid = l->num;
        else if (strcmp(key, "comm") == 0 && *str) {
            ctx->comm = str;
            ctx->comm_len = strlen(str);
        } else if (strcmp(key, "host") == 0 && *str)
            ctx->host = str;
        else if (strcmp(key, "timestamp_ns") == 0 && l->str == 0)
            *when_ns = l->num;
    }
}

/* One sample into the sink.  Returns 1 delivered, 0 ignored, -1 the
 * profile expands too far (err set). */
static int read_sample(pprof_reader *r, const pb_sample *s, stack_sink *sink,
                       input_stats *st, strbuf *err)
{
    int64_t v = s->value[r->index];
    if (v == 0)
        return 0;
    if (v < 0 || s->n_location_id == 0) {
        st->ignored++;
        return 0;
    }
    stackfold_reset(&r->frames);
    strbuf name = STRBUF_INIT;
    for (size_t i = 0; i < s->n_location_id; i++) {
        push_location(r, pprof_location(r->p, s->location_id[i]), (unsigned)i,
                      &name);
        if (r->frames.names.len > PPROF_MAX_STACK_BYTES)
            break;
    }
    sb_free(&name);
    if (r->frames.names.len > PPROF_MAX_STACK_BYTES) {
        st->ignored++;
        return 0;
    }
    sb_reset(&r->stack);
    stackfold_write(&r->frames, &r->stack);
    r->folded_bytes += r->stack.len;
    if (r->folded_bytes > PPROF_MAX_FOLDED_BYTES) {
        sb_printf(err, "its stacks add up to more than %zu MiB of text (the "
                  "limit)", PPROF_MAX_FOLDED_BYTES >> 20);
        return -1;
    }
    stack_context ctx;
    int64_t when_ns;
    sample_context(r, s, &ctx, &when_ns);
    stack_sink_add_ctx(sink, r->stack.buf, r->stack.len, (double)v, -1,
                       when_ns, &ctx);
    return 1;
}

/* The index of sample type "samples" with unit "count", or -1. */
static int samples_type(const pprof_profile *p)
{
    for (size_t i = 0; i < p->msg->n_sample_type; i++) {
        const Perftools__Profiles__ValueType *t = p->msg->sample_type[i];
        if (strcmp(pprof_str(p, t->type), "samples") == 0
            && strcmp(pprof_str(p, t->unit), "count") == 0)
            return (int)i;
    }
    return -1;
}

int pprof_read_buffer(const uint8_t *buf, size_t n, const input_options *opt,
                      stack_sink *sink, input_stats *st, strbuf *err)
{
    pprof_profile *p = pprof_decode(buf, n, err);
    if (p == NULL)
        return -1;
    pprof_reader r = { .p = p, .stack = STRBUF_INIT };
    r.samples_at = samples_type(p);
    const char *want = opt->sample_index;
    if (want == NULL && opt->count_samples && r.samples_at >= 0)
        r.index = r.samples_at;        /* heat maps count samples */
    else
        r.index = p->msg->n_sample_type ? pprof_sample_index(p, want, err) : 0;
    if (r.index < 0) {
        pprof_free(p);
        return -1;
    }
    if (p->msg->n_sample_type) {
        r.type = pprof_str(p, p->msg->sample_type[r.index]->type);
        r.unit = pprof_str(p, p->msg->sample_type[r.index]->unit);
        snprintf(st->event, sizeof st->event, "%s (%s)", r.type, r.unit);
    }
    stackfold_init(&r.frames, NULL, false);
    int rc = 0;
    for (size_t i = 0; i < p->msg->n_sample && rc >= 0; i++) {
        rc = read_sample(&r, p->msg->sample[i], sink, st, err);
        st->stacks += rc > 0;
    }
    st->format = INPUT_PPROF;
    stackfold_free(&r.frames);
    sb_free(&r.stack);
    pprof_free(p);
    return rc < 0 ? -1 : 0;
}

int pprof_read_stream(FILE *fp, int first, const input_options *opt,
                      stack_sink *sink, input_stats *st, strbuf *err)
{
    uint8_t *buf;
    size_t n;
    if (pprof_slurp(fp, first, &buf, &n, err) < 0)
        return -1;
    int rc = pprof_read_buffer(buf, n, opt, sink, st, err);
    free(buf);
    return rc;
}
