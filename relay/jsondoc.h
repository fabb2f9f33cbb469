/* jsondoc: parse a source's JSON document within a memory budget, and
 * keep the numbers jansson cannot hold.
 *
 * Memory.  jansson spends about 230 bytes on an empty object and 140 on
 * an empty array, so a document's shape, not its size, decides what
 * parsing it costs: 6 MiB of "{}," took 600 MB.  One pass over the text
 * (a JSON lexer that allocates nothing) estimates, from above, what
 * jansson will allocate for it; a document whose estimate is over the
 * budget is refused before any of it is parsed.
 *
 * Numbers.  jansson refuses a whole document for one integer outside
 * int64 ("too big integer", a real u64 counter) or one real outside double
 * ("real number overflow").  The same pass finds such numbers and they
 * are parsed, in a copy of the text, as strings no document can contain:
 * a NUL ("\u0000", which the lexer refuses in the document itself), a
 * marker letter and the number's own text.  jsondoc_number reads any
 * number, plain or kept that way, as int64, uint64 or double, and says
 * when it does not fit; jsondoc_string is a string that is not such a
 * kept number.  Nothing else of jansson's is changed.
 *
 * Arenas.  A data document lives only while one read is taken in (the
 * snapshot and the event queues copy what they keep), and jansson's
 * malloc and free of every value and the walk that frees them cost more
 * than parsing does (5,000 event records: about 25 allocations each).
 * jsondoc_parse_arena puts every value in one arena instead (jansson's
 * allocator is swapped in for the parse only) and jsondoc_arena_release
 * frees it all at once.  Such a document is read only: never
 * json_decref it, change it, or keep any of its values past the
 * release. */
#ifndef STAPRELAY_JSONDOC_H
#define STAPRELAY_JSONDOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct jsondoc_scan {
    size_t objects, arrays, members, strings, numbers, literals;
    size_t key_bytes, string_bytes;
    size_t wide_numbers;    /* numbers jansson cannot hold, kept as text */
    bool nul_escape;        /* a "\u0000" in a string: jansson refuses it */
    size_t estimate;        /* bytes jansson will allocate, from above */
} jsondoc_scan;

/* One pass over text: counts and the memory estimate. */
void jsondoc_prescan(const char *text, size_t len, jsondoc_scan *scan);

/* Parse text whose estimate fits max_memory.  NULL on failure with a
 * one-line reason in err: "invalid JSON at line L column C: ..." (jerr
 * filled as jansson filled it), or that parsing would take more than
 * max_memory (jerr->line is then 0). */
json_t *jsondoc_parse(const char *text, size_t len, size_t max_memory, json_error_t *jerr,
                      char *err, size_t errlen);

/* Where an arena document's values live (jsondoc_parse_arena). */
typedef struct jsondoc_arena {
    struct arena_chunk *chunks;   /* newest first */
    size_t bytes;                 /* what the chunks take from malloc */
} jsondoc_arena;

#define JSONDOC_ARENA_INIT {NULL, 0}

/* jsondoc_parse with every value of the document in *arena (empty on
 * entry; released by jsondoc_arena_release, also on failure). */
json_t *jsondoc_parse_arena(const char *text, size_t len, size_t max_memory,
                            jsondoc_arena *arena, json_error_t *jerr, char *err, size_t errlen);

/* Frees every value of the arena's document at once; the arena is empty
 * again. */
void jsondoc_arena_release(jsondoc_arena *arena);

typedef enum {
    NUM_OK = 0,
    NUM_NOT_NUMBER,    /* not a number (nor a kept one) */
    NUM_RANGE,         /* a number that does not fit the type asked for */
} num_status;

/* A number as int64 (integers only), uint64 (non-negative integers
 * only) or double (any number; integers beyond 2^53 round). */
num_status jsondoc_int64(const json_t *v, int64_t *out);
num_status jsondoc_uint64(const json_t *v, uint64_t *out);
num_status jsondoc_double(const json_t *v, double *out);

/* Is v an integer (plain or kept)?  A number at all? */
bool jsondoc_is_integer(const json_t *v);
bool jsondoc_is_number(const json_t *v);

/* The string's text, or NULL when v is not a string or is a kept number. */
const char *jsondoc_string(const json_t *v, size_t *len);

/* A kept number's own text ("18446744073709551615"), else NULL. */
const char *jsondoc_number_text(const json_t *v);

#endif
