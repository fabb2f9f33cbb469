/* libFuzzer target: the data document's fast path (jsondoc_parse_arena:
 * our scanner building jansson values in an arena) against jansson's own
 * parser (jsondoc_parse), the oracle: for any input both refuse it, or
 * both give equal trees (json_equal: same values, same keys) and the
 * same error text.  A hostile document the scanner takes differently
 * from jansson shows up here. */
#include "relay/jsondoc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    json_error_t je1, je2;
    char e1[400], e2[400];
    e1[0] = e2[0] = '\0';
    json_t *oracle = jsondoc_parse(text, size, 64u << 20, &je1, e1, sizeof(e1));
    jsondoc_arena arena = JSONDOC_ARENA_INIT;
    json_t *fast = jsondoc_parse_arena(text, size, 64u << 20, &arena, &je2, e2, sizeof(e2));
    if ((oracle == NULL) != (fast == NULL))
        abort();                        /* one took it, the other refused */
    if (oracle == NULL && strcmp(e1, e2) != 0)
        abort();                        /* refused for different reasons */
    if (oracle != NULL && !json_equal(oracle, fast))
        abort();                        /* different trees */
    json_decref(oracle);
    jsondoc_arena_release(&arena);
    return 0;
}
