/* utf8: decoding and escaping of frame names, which are arbitrary bytes.
 * Output formats need valid text: XML 1.0 characters for SVG, UTF-8
 * for JSON.  Bytes that are not (valid UTF-8 for an allowed character)
 * are written as the visible text "\xNN", so nothing can break the
 * document and nothing is silently lost. */
#ifndef STAPRELAY_UTF8_H
#define STAPRELAY_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/strbuf.h"

/* Decode one UTF-8 sequence at s (n bytes available).  Returns its
 * length, or 0 if it is invalid (overlong, surrogate, > U+10FFFF,
 * truncated). */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Length in display units (characters, or single invalid bytes). */
size_t utf8_units(const char *s, size_t n);
/* Byte offset of the first `units` display units. */
size_t utf8_prefix_bytes(const char *s, size_t n, size_t units);

/* Append s escaped as XML character data; quot also escapes '"'. */
void xml_escape(strbuf *out, const char *s, size_t n, bool quot);
/* Append s as text inside an XML comment: characters XML refuses as
 * "\xNN", '<' and '>' left out (as flamegraph.pl does for its notes), and
 * no "--" nor a final '-' (a space goes between). */
void xml_comment_escape(strbuf *out, const char *s, size_t n);
/* Append s as the inside of a JSON/JS string literal ('<' and '>' as
 * \u003c / \u003e so the text is safe inside CDATA and HTML). */
void json_escape(strbuf *out, const char *s, size_t n);

#endif
