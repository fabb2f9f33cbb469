/* libFuzzer target: stack text (SystemTap backtraces, folded) to folded. */
#include "relay/stack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char err[64];
    size_t n;
    char *folded = stack_fold(text, &n, err, sizeof(err));
    if (folded != NULL) {
        char *name = stack_instance_name(folded);
        /* folded output never contains a newline or an empty frame */
        if (strchr(folded, '\n') != NULL || strstr(folded, ";;") != NULL)
            abort();
        free(name);
    }
    free(folded);
    free(text);
    return 0;
}
