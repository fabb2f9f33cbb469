/* strbuf: a growable byte buffer.  Owns its storage; assembles folded
 * stacks, SVG fragments and JSON text without fixed limits.
 *
 * What happens when memory runs out is the owner's choice, made when
 * the buffer is initialised: STRBUF_INIT aborts through common/xalloc
 * (the client's rule: allocation cannot fail), STRBUF_INIT_SOFT marks
 * the buffer failed and ignores further writes, for code that must
 * survive and report it (the relay inside the PMDA: "out of memory" is
 * an error it returns).  A failed buffer keeps what it held. */
#ifndef STAPRELAY_STRBUF_H
#define STAPRELAY_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct strbuf {
    char  *buf;     /* always NUL-terminated when cap > 0 */
    size_t len;
    size_t cap;
    bool   soft;    /* out of memory sets failed instead of aborting */
    bool   failed;
} strbuf;

#define STRBUF_INIT      { NULL, 0, 0, false, false }
#define STRBUF_INIT_SOFT { NULL, 0, 0, true, false }

void sb_free(strbuf *sb);
void sb_reset(strbuf *sb);              /* len = 0, keep storage */
/* Room for extra more bytes; false only for a failed soft buffer. */
bool sb_reserve_grow(strbuf *sb, size_t extra);
/* The appends are inline: folding a profile makes several per frame,
 * and the call was a tenth of the collapse loop's time.  Only growing
 * goes out of line. */
static inline bool sb_reserve(strbuf *sb, size_t extra)
{
    if (!sb->failed && sb->cap > sb->len && extra < sb->cap - sb->len)
        return true;
    return sb_reserve_grow(sb, extra);
}
static inline void sb_add(strbuf *sb, const char *s, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    if (n)
        memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}
static inline void sb_adds(strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}
static inline void sb_addc(strbuf *sb, char c)
{
    if (!sb_reserve(sb, 1))
        return;
    sb->buf[sb->len++] = c;
    sb->buf[sb->len] = '\0';
}
void sb_printf(strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* Detach the buffer (caller frees; NULL for a failed soft buffer); the
 * strbuf becomes empty. */
char *sb_steal(strbuf *sb);

/* ---- numbers ----------------------------------------------------------
 * The one rule for a number that must read back as the same double
 * (JSON, folded counts, exact weights): an integer (|v| < 2^53) without
 * a fraction or exponent, anything else in the shortest of %.15g, %.16g
 * and %.17g that strtod turns back into v.  (SVG geometry follows Perl's
 * %.15g instead, on purpose: render/flamesvg.c.) */
#define NUM_TEXT_MAX 32
/* Writes v into buf (NUM_TEXT_MAX bytes); returns buf. */
const char *num_text(char buf[NUM_TEXT_MAX], double v);
void sb_addnum(strbuf *sb, double v);
/* For people, not for reading back: "1,234,567", v rounded to an integer
 * (flamegraph.pl's "%.0f" plus thousands separators, in titles and top's
 * table).  buf needs 40 bytes. */
const char *num_thousands(char *buf, size_t size, double v);

#endif
