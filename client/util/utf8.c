/* utf8: decoding and escaping of frame names (see utf8.h). */
#include "client/util/utf8.h"

#include <stdio.h>

size_t utf8_decode(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    size_t len;
    uint32_t c, min;
    if ((u[0] & 0xE0) == 0xC0) { len = 2; c = u[0] & 0x1F; min = 0x80; }
    else if ((u[0] & 0xF0) == 0xE0) { len = 3; c = u[0] & 0x0F; min = 0x800; }
    else if ((u[0] & 0xF8) == 0xF0) { len = 4; c = u[0] & 0x07; min = 0x10000; }
    else return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (u[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

size_t utf8_units(const char *s, size_t n)
{
    size_t units = 0, i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        i += len ? len : 1;
        units++;
    }
    return units;
}

size_t utf8_prefix_bytes(const char *s, size_t n, size_t units)
{
    size_t i = 0;
    while (i < n && units > 0) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        i += len ? len : 1;
        units--;
    }
    return i;
}

static bool xml_char_ok(uint32_t c)
{
    if (c < 0x20)
        return c == 0x09;   /* LF/CR would be normalised away: escape */
    if (c >= 0xD800 && c <= 0xDFFF)
        return false;
    return c != 0xFFFE && c != 0xFFFF;
}

static void hex_byte(strbuf *out, unsigned char b)
{
    sb_printf(out, "\\x%02X", b);
}

/* The XML character at s[i], or 0 after writing what XML refuses there
 * (invalid UTF-8, disallowed characters) as "\xNN" and moving *i past it. */
static size_t xml_next(strbuf *out, const char *s, size_t n, size_t *i, uint32_t *cp)
{
    size_t len = utf8_decode(s + *i, n - *i, cp);
    if (len != 0 && xml_char_ok(*cp))
        return len;
    size_t bad = len ? len : 1;
    for (size_t k = 0; k < bad; k++)
        hex_byte(out, (unsigned char)s[*i + k]);
    *i += bad;
    return 0;
}

void xml_escape(strbuf *out, const char *s, size_t n, bool quot)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = xml_next(out, s, n, &i, &cp);
        if (len == 0)
            continue;
        switch (cp) {
        case '&': sb_add(out, "&amp;", 5); break;
        case '<': sb_add(out, "&lt;", 4); break;
        case '>': sb_add(out, "&gt;", 4); break;
        case '"':
            if (quot) sb_add(out, "&quot;", 6);
            else sb_addc(out, '"');
            break;
        default:
            sb_add(out, s + i, len);
        }
        i += len;
    }
}

void xml_comment_escape(strbuf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = xml_next(out, s, n, &i, &cp);
        if (len == 0)
            continue;
        if (cp == '<' || cp == '>') {
            i += len;   /* flamegraph.pl's notes drop markup */
            continue;
        }
        sb_add(out, s + i, len);
        /* "--" may not occur in a comment, nor '-' just before its end */
        if (cp == '-' && (i + 1 >= n || s[i + 1] == '-'))
            sb_addc(out, ' ');
        i += len;
    }
}

void json_escape(strbuf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = utf8_decode(s + i, n - i, &cp);
        if (len == 0) {
            /* keep invalid bytes visible and the JSON valid */
            sb_printf(out, "\\\\x%02X", (unsigned char)s[i]);
            i++;
            continue;
        }
        switch (cp) {
        case '"': sb_add(out, "\\\"", 2); break;
        case '\\': sb_add(out, "\\\\", 2); break;
        case '\n': sb_add(out, "\\n", 2); break;
        case '\t': sb_add(out, "\\t", 2); break;
        case '\r': sb_add(out, "\\r", 2); break;
        case '<': sb_add(out, "\\u003c", 6); break;
        case '>': sb_add(out, "\\u003e", 6); break;
        case '&': sb_add(out, "\\u0026", 6); break;
        default:
            /* controls, C1 controls, the line separators JS sees as
             * newlines, and the non-characters XML refuses (the text may
             * land in an SVG's script) */
            if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
                cp == 0xFFFE || cp == 0xFFFF)
                sb_printf(out, "\\u%04x", (unsigned)cp);
            else
                sb_add(out, s + i, len);
        }
        i += len;
    }
}
