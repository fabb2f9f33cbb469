/* hist_test.c - run the tapset's @hist_log bucket code and SystemTap's own
 * histogram runtime side by side (built and driven by hist_test.py).
 *
 * Built with -I<systemtap runtime> -I<dir with the extracted bodies>:
 *   log_bucket_body.h, log_bounds_body.h  the embedded C of __srl_log_bucket
 *                                         and __srl_log_bounds, as written
 *                                         in stap/tapset/staprelay.stp
 *   stat-common.c                         SystemTap's runtime, unchanged:
 *                                         _stp_val_to_bucket,
 *                                         _stp_bucket_to_val,
 *                                         _stp_stat_calc_buckets and
 *                                         __stp_stat_add (which fills the
 *                                         buckets of both layouts)
 *
 * Reads commands, one per line, and prints one line per command:
 *   v V                 tapset __srl_log_bucket(V), runtime bucket of V
 *                       (__stp_stat_add into a HIST_LOG), _stp_val_to_bucket(V)
 *   b B                 tapset __srl_log_bounds(B) | _stp_bucket_to_val(B)
 *   l V START STOP STEP runtime bucket of V in a HIST_LINEAR and its
 *                       number of buckets (_stp_stat_calc_buckets) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the runtime expects from the kernel (or dyninst) around it. */
#define unlikely(x) (x)
#define do_div(n, base) ({ uint64_t __b = (base); uint32_t __r = (n) % __b; (n) /= __b; __r; })
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define _stp_snprintf snprintf
static void _stp_warn(const char *fmt, ...)
{
    (void)fmt;
}
static int64_t _stp_div64(const char **err, int64_t x, int64_t y)
{
    (void)err;
    return y ? x / y : 0;
}
#include "stat-common.c"

static int64_t tapset_log_bucket(int64_t STAP_ARG_v)
{
    int64_t STAP_RETVALUE = -1;
#include "log_bucket_body.h"
    return STAP_RETVALUE;
}

static void tapset_log_bounds(int64_t STAP_ARG_b, char *STAP_RETVALUE)
{
#include "log_bounds_body.h"
}

/* The bucket __stp_stat_add counts v in. */
static int runtime_bucket(struct _Hist *h, int64_t v)
{
    static int64_t space[(sizeof(stat_data) + 8) / 8 + STP_MAX_BUCKETS + HIST_LOG_BUCKETS];
    stat_data *sd = (stat_data *)space;
    memset(space, 0, sizeof(space));
    __stp_stat_add(h, sd, v, 1, 1, 1, 1, 0);
    for (int i = 0; i < h->buckets; i++)
        if (sd->histogram[i] != 0)
            return i;
    return -1;
}

int main(void)
{
    char line[256], out[MAXSTRINGLEN];
    long long a, b, c, d;
    while (fgets(line, sizeof(line), stdin) != NULL) {
        if (sscanf(line, "v %lld", &a) == 1) {
            struct _Hist h = {.type = HIST_LOG, .buckets = HIST_LOG_BUCKETS};
            printf("%" PRId64 " %d %d\n", tapset_log_bucket(a), runtime_bucket(&h, a),
                   _stp_val_to_bucket(a));
        } else if (sscanf(line, "b %lld", &a) == 1) {
            tapset_log_bounds(a, out);
            printf("%s|%" PRId64 "\n", out, _stp_bucket_to_val((int)a));
        } else if (sscanf(line, "l %lld %lld %lld %lld", &a, &b, &c, &d) == 4) {
            struct _Hist h = {.type = HIST_LINEAR, .start = (int)b, .stop = (int)c, .interval = (int)d};
            h.buckets = _stp_stat_calc_buckets(h.stop, h.start, h.interval);
            printf("%d %d\n", h.buckets ? runtime_bucket(&h, a) : -1, h.buckets);
        } else {
            printf("? %s", line);
        }
    }
    return 0;
}
