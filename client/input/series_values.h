/* series_values: pmproxy's /series/values reply, scanned in place.
 *
 * A fleet-hour of the stacks counter is some 230,000 values, 35 MB of
 * JSON; building jansson's tree of it cost the client three quarters of
 * its time (a malloc per object, key and string).  The reply has one
 * shape, an array of flat objects
 *   {"series":"<id>","instance":"<id>","timestamp":<ms>,"value":"<text>"}
 * (keys in any order, "instance" absent for a metric without instances),
 * so it is read without a tree: each object's fields point into the body.
 * Anything else -- an escape or a byte that is not printable ASCII in a
 * string, a nested value, an unknown token -- makes the scan give up, and the caller reads the body with a
 * real JSON parser instead: a reply this scanner does not know is never
 * misread. */
#ifndef STAPRELAY_SERIES_VALUES_H
#define STAPRELAY_SERIES_VALUES_H

#include <stddef.h>

/* One value; the strings are not NUL-terminated (they point into the
 * body), NULL where the object had no such key. */
typedef struct series_value {
    const char *series, *instance, *value;
    size_t      series_len, instance_len, value_len;
    double      timestamp;      /* milliseconds; NAN: none */
} series_value;

typedef void (*series_value_fn)(void *arg, const series_value *v);

/* Calls fn for each object of body[0..len).  Returns the number of
 * objects, or -1 when the body is not of the shape above (fn may have
 * been called for the objects before the point of giving up). */
long series_values_scan(const char *body, size_t len, series_value_fn fn,
                        void *arg);

#endif
