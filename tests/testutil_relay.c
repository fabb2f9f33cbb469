/* testutil_relay: see testutil_relay.h. */
#include "tests/testutil_relay.h"
#include "tests/testutil.h"

#include <string.h>

source_meta *tu_meta_parse(const char *text)
{
    char err[512] = "";
    source_meta *m = metadata_parse(text, strlen(text), TU_META_PREFIX, err, sizeof(err));
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

int tu_meta_find(const source_meta *m, const char *name)
{
    for (size_t i = 0; i < m->nmetrics; i++)
        if (strcmp(m->metrics[i].name, name) == 0)
            return (int)i;
    return -1;
}

int tu_meta_index(const source_meta *m, const char *name)
{
    int i = tu_meta_find(m, name);
    ck_assert_msg(i >= 0, "no metric %s", name);
    return i;
}
