/* stacksink: delivery point for collapsed stacks (see stacksink.h). */
#include "client/stack/stacksink.h"

#include <ctype.h>
#include <string.h>

#include "client/stack/stackfilter.h"

void stack_sink_init(stack_sink *s, stacktab *tab, int col, bool strip_hex)
{
    s->tab = tab;
    s->col = col;
    s->strip_hex = strip_hex;
    s->stacks = 0;
    s->first_ns = s->last_ns = STACK_TIME_UNKNOWN;
    s->on_sample = NULL;
    s->on_sample_arg = NULL;
    s->on_detail = NULL;
    s->on_detail_arg = NULL;
    s->filter = NULL;
    s->filtered = 0;
    s->scratch = (strbuf)STRBUF_INIT;
    s->kept = (strbuf)STRBUF_INIT;
}

void stack_sink_free(stack_sink *s)
{
    sb_free(&s->scratch);
    sb_free(&s->kept);
}

bool stack_context_weighs_time(const stack_context *ctx)
{
    return ctx && ctx->weight_unit
           && strcmp(ctx->weight_unit, STACK_TIME_WEIGHT_UNIT) == 0;
}

void stack_sink_filter(stack_sink *s, const struct stackfilter *f)
{
    s->filter = stackfilter_empty(f) ? NULL : f;
}

static bool is_lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

void stack_sink_observe(stack_sink *s, stack_sample_fn fn, void *arg)
{
    s->on_sample = fn;
    s->on_sample_arg = arg;
}

void stack_sink_observe_detail(stack_sink *s, stack_detail_fn fn, void *arg)
{
    s->on_detail = fn;
    s->on_detail_arg = arg;
}

void stack_sink_add(stack_sink *s, const char *stack, size_t len,
                    double weight, int col)
{
    stack_sink_add_ctx(s, stack, len, weight, col, STACK_TIME_UNKNOWN, NULL);
}

void stack_sink_add_at(stack_sink *s, const char *stack, size_t len,
                       double weight, int col, int64_t when_ns)
{
    stack_sink_add_ctx(s, stack, len, weight, col, when_ns, NULL);
}

/* --strip-hex: 0x[0-9a-f]+ as 0x... (difffolded.pl -s) */
static void strip_hex(stack_sink *s, const char **stack, size_t *len)
{
    const char *in = *stack;
    size_t n = *len;
    sb_reset(&s->scratch);
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '0' && i + 2 < n && in[i + 1] == 'x'
            && is_lower_hex(in[i + 2])) {
            sb_add(&s->scratch, "0x...", 5);
            i += 2;
            while (i + 1 < n && is_lower_hex(in[i + 1]))
                i++;
            continue;
        }
        sb_addc(&s->scratch, in[i]);
    }
    *stack = s->scratch.buf;
    *len = s->scratch.len;
}

/* stack_sink_pass; *reshaped: the filter took frames out. */
static bool pass(stack_sink *s, const char **stack, size_t *len,
                 const stack_context *ctx, bool *reshaped)
{
    *reshaped = false;
    if (s->strip_hex)
        strip_hex(s, stack, len);
    if (s->filter == NULL)
        return true;
    if (!stackfilter_apply(s->filter, *stack, *len, ctx, &s->kept)) {
        s->filtered++;
        return false;
    }
    *reshaped = s->kept.len != *len;     /* hide/show only take out */
    *stack = s->kept.buf;
    *len = s->kept.len;
    return true;
}

bool stack_sink_pass(stack_sink *s, const char **stack, size_t *len,
                     const stack_context *ctx)
{
    bool reshaped;
    return pass(s, stack, len, ctx, &reshaped);
}

void stack_sink_add_ctx(stack_sink *s, const char *stack, size_t len,
                        double weight, int col, int64_t when_ns,
                        const stack_context *ctx)
{
    if (col < 0)
        col = s->col;
    bool reshaped;
    if (!pass(s, &stack, &len, ctx, &reshaped))
        return;
    stack_context bare;
    if (reshaped && ctx && ctx->frames) {
        /* --hide/--show took frames out: the frames as read no longer
         * line up with the stack's (pprof's locations would) */
        bare = *ctx;
        bare.frames = NULL;
        ctx = &bare;
    }
    size_t entry = stacktab_add(s->tab, stack, len, col, weight);
    s->stacks++;
    if (when_ns != STACK_TIME_UNKNOWN) {
        if (s->first_ns == STACK_TIME_UNKNOWN || when_ns < s->first_ns)
            s->first_ns = when_ns;
        if (s->last_ns == STACK_TIME_UNKNOWN || when_ns > s->last_ns)
            s->last_ns = when_ns;
    }
    if (s->on_sample)
        s->on_sample(s->on_sample_arg, entry, col, weight, when_ns);
    if (s->on_detail)
        s->on_detail(s->on_detail_arg, stack, len, weight, col, when_ns, ctx);
}
