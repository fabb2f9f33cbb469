/* libFuzzer target: pmproxy's /series/values reply as `staprelay
 * --series` reads it in place (client/input/series_values).  The oracle
 * is jansson: a body the scanner accepts must be a JSON array of as many
 * objects, whose series, instance and value strings and timestamp are
 * those the scanner gave.  Seed: a real reply of pmproxy 6.0.3
 * (fuzz/seeds/pmproxy-values.json). */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client/input/series_values.h"

typedef struct check {
    json_t *doc;
    size_t  i;
} check;

static void same_str(json_t *o, const char *key, const char *p, size_t n)
{
    json_t *v = json_object_get(o, key);
    if (p == NULL)
        return;     /* a key the scanner passed over or did not see */
    if (!json_is_string(v) || json_string_length(v) != n
        || memcmp(json_string_value(v), p, n) != 0)
        abort();
}

static void compare(void *arg, const series_value *v)
{
    check *c = arg;
    json_t *o = json_array_get(c->doc, c->i++);
    if (!json_is_object(o))
        abort();
    same_str(o, "series", v->series, v->series_len);
    same_str(o, "instance", v->instance, v->instance_len);
    same_str(o, "value", v->value, v->value_len);
    json_t *ts = json_object_get(o, "timestamp");
    if (!isnan(v->timestamp) && (!json_is_number(ts)
                                 || json_number_value(ts) != v->timestamp))
        abort();
}

static void nothing(void *arg, const series_value *v)
{
    (void)arg, (void)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    long n = series_values_scan(body, size, nothing, NULL);
    if (n < 0)
        return 0;
    json_error_t je;
    check c = { json_loadb(body, size, JSON_ALLOW_NUL, &je), 0 };
    if (!json_is_array(c.doc) || json_array_size(c.doc) != (size_t)n)
        abort();
    series_values_scan(body, size, compare, &c);
    json_decref(c.doc);
    return 0;
}
