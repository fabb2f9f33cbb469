/* libFuzzer target: the relay's configuration parser. */
#include "relay/config.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512], warn[1024];
    relay_config *cfg = config_parse((const char *)data, size, err, sizeof(err), warn,
                                     sizeof(warn));
    config_free(cfg);
    return 0;
}
