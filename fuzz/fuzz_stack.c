/* libFuzzer target: stack text (SystemTap backtraces, folded) to folded,
 * and the folded stack to its instance name (common/stackname) and back. */
#include "common/stackname.h"
#include "relay/stack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What stackname.h promises of a name: no space, no newline, no control
 * byte but the TAB that stands for a frame's inner space, ASCII, and
 * decoding gives the folded stack back. */
static void check_name(const char *folded)
{
    char *name = stackname_encode(folded);
    if (name == NULL)
        return;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if ((*p <= 0x20 && *p != '\t') || *p > 0x7e)
            abort();
    size_t len = strlen(name);
    char *back = malloc(len + 1);
    if (back != NULL) {
        size_t n = stackname_decode(name, len, back);
        if (n != strlen(folded) || memcmp(back, folded, n) != 0)
            abort();
    }
    free(back);
    free(name);
}

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
        /* folded output never contains a newline or an empty frame */
        if (strchr(folded, '\n') != NULL || strstr(folded, ";;") != NULL)
            abort();
        if (strcmp(folded, STACKNAME_OTHER) != 0)
            check_name(folded);
    }
    free(folded);
    free(text);
    return 0;
}
