/* stackname: a folded stack as an instance name of the <event>.stacks
 * counter, and back.  The rule is written for the three readers that see
 * these names (docs/formats.md, "Stack instance names"):
 *
 *   - grafana-pcp's flame graph splits a name on ',' and newline, trims
 *     each frame, drops empty ones and unescapes nothing;
 *   - pmproxy serves names as JSON, but only ASCII survives it (bytes
 *     over 0x7f become U+FFFD in /pmapi/indom and invalid "\xNN" escapes
 *     in /series/instances), while control characters are escaped
 *     properly (tab is "\u0009" or "\t");
 *   - PCP matches instance names by their first word, the text before the
 *     first U+0020 space (pmdaCache, pmdaInstance, archive lookups), so a
 *     name with a space must be unique up to it.
 *
 * Encoding, byte by byte of the folded stack (root first, frames joined by
 * ';'; a folded frame never holds ';' or a control byte):
 *   ';' (between frames)          -> ','
 *   ',' inside a frame            -> ';'
 *   ' ' inside a frame            -> TAB (grafana's canvas and HTML draw
 *                                    it as a space; PCP's first word
 *                                    ends only at U+0020)
 *   ' ' first or last in a frame  -> "%20" (grafana would trim a tab)
 *   '%', control bytes, bytes >= 0x7f -> "%XX" (upper-case hex)
 *   a one-frame stack "[other]"   -> "%5Bother]" (STACKNAME_OTHER is the
 *                                    instance of the stacks not kept)
 * So a name holds no space, no newline and no byte over 0x7e, and the
 * mapping is injective.  Decoding reverses it, and also reads the names
 * earlier versions published ("%20", "%2C"). */
#ifndef STAPRELAY_STACKNAME_H
#define STAPRELAY_STACKNAME_H

#include <stddef.h>

/* The instance that counts the samples of stacks not in the counter. */
#define STACKNAME_OTHER "[other]"

/* The instance name of a folded stack (malloc'd), or NULL without memory. */
char *stackname_encode(const char *folded);

/* The folded stack of an instance name: writes at most len + 1 bytes
 * (decoding never lengthens) into out, NUL-terminated; returns the
 * folded length.  "[other]" decodes to the one frame "[other]". */
size_t stackname_decode(const char *name, size_t len, char *out);

#endif
