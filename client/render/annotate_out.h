/* annotate_out: `staprelay annotate`'s text (pprof -list) of the
 * samples observed, one writer for the command and for staprelay web's
 * /api/annotate (see annotate_out.c for the address rules).
 *
 *   annotate *a = annotate_new(REGEX, "staprelay annotate", stderr);
 *   in.on_detail = annotate_observe; in.on_detail_arg = a;  (read)
 *   if (annotate_found(a)) annotate_print(out, a);
 *
 * annotate_observe is a stack_detail_fn: it needs the frames as read
 * (ctx->frames: module and address), which perf script and SystemTap
 * backtrace input give.  Warnings about one routine (no binary, no
 * line table) go to warn, each line prefixed "WHO: ". */
#ifndef STAPRELAY_RENDER_ANNOTATE_OUT_H
#define STAPRELAY_RENDER_ANNOTATE_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "client/stack/stacksink.h"
#include "common/strbuf.h"

typedef struct annotate annotate;

/* NULL: regex is not a POSIX extended regular expression. */
annotate *annotate_new(const char *regex, const char *who, FILE *warn);
void      annotate_free(annotate *a);
void      annotate_observe(void *arg, const char *stack, size_t len,
                           double weight, int col, int64_t when_ns,
                           const stack_context *ctx);
/* A matching frame with an address and a binary was seen. */
bool      annotate_found(const annotate *a);
/* Why nothing was found (appended to why, no newline). */
void      annotate_none(const annotate *a, const char *regex, strbuf *why);
/* "Total: N" and each routine.  Returns 0, or 1 when no routine could
 * be shown (warnings say why). */
int       annotate_print(FILE *out, const annotate *a);

#endif
