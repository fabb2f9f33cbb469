/* libFuzzer target: RFC 6901 pointers against a fixed document. */
#include "relay/pointer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static json_t *doc;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (doc == NULL)
        doc = json_loads("{\"a\": [1, {\"b~c\": {\"d/e\": 2}}], \"\": {\"\": 3}, \"x\": \"s\"}", 0, NULL);
    char *ptr = malloc(size + 1);
    if (ptr == NULL)
        return 0;
    memcpy(ptr, data, size);
    ptr[size] = '\0';
    const char *why;
    pointer_check(ptr);
    pointer_get(doc, ptr, &why);
    free(ptr);
    return 0;
}
