/* duration: run durations (see duration.h). */
#include "common/duration.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

double duration_parse(const char *s)
{
    if (s == NULL || !isdigit((unsigned char)s[0]))
        return -1;              /* no sign, blank, "inf" or hex */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || end[-1] == '.' || v != v)
        return -1;
    for (const char *p = s; p < end; p++)       /* digits and one point */
        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
    static const struct { const char *unit; double mul; } units[] = {
        { "", 1 }, { "s", 1 }, { "sec", 1 }, { "secs", 1 }, { "second", 1 },
        { "seconds", 1 }, { "ms", 0.001 }, { "msec", 0.001 }, { "msecs", 0.001 },
        { "m", 60 }, { "min", 60 }, { "mins", 60 }, { "minute", 60 },
        { "minutes", 60 }, { "h", 3600 }, { "hour", 3600 }, { "hours", 3600 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            double r = v * units[i].mul;
            return r > 0 && r <= DURATION_MAX_SECONDS ? r : -1;
        }
    return -1;
}
