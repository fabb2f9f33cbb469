/* strbuf: a growable byte buffer.  Owns its storage; used to assemble
 * folded stacks, SVG fragments and JSON text without fixed limits. */
#ifndef STAPRELAY_STRBUF_H
#define STAPRELAY_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char  *buf;   /* always NUL-terminated when cap > 0 */
    size_t len;
    size_t cap;
} strbuf;

#define STRBUF_INIT { NULL, 0, 0 }

void sb_free(strbuf *sb);
void sb_reset(strbuf *sb);              /* len = 0, keep storage */
void sb_reserve(strbuf *sb, size_t extra);
void sb_add(strbuf *sb, const char *s, size_t n);
void sb_adds(strbuf *sb, const char *s);
void sb_addc(strbuf *sb, char c);
void sb_printf(strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* An exact JSON number: integers without a fraction, others "%.17g". */
void sb_addnum(strbuf *sb, double v);
/* Detach the buffer (caller frees); the strbuf becomes empty. */
char *sb_steal(strbuf *sb);

#endif
