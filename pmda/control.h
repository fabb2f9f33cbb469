/* control: staprelay.control.*, the relay's own health.  Cluster 0 of
 * the domain; per-source metrics use instance domain serial 0, whose
 * instances are source directories. */
#ifndef STAPRELAY_CONTROL_H
#define STAPRELAY_CONTROL_H

#include "pmda/context.h"

typedef struct control_metric {
    int item;
    const char *name;     /* below staprelay.control. */
    int type;
    int sem;
    indom_kind indom;     /* INDOM_SOURCES or INDOM_EVENTS when per_instance */
    bool per_instance;
    pmUnits units;
    const char *oneline;
    const char *help;
} control_metric;

extern const control_metric control_metrics[];
extern const size_t control_nmetrics;

const control_metric *control_lookup(int item);
/* Value of one control metric; pos is a position in its indom. */
int control_fetch(pmda_ctx *ctx, const control_metric *cm, long pos, pmAtomValue *atom);
/* pmstore into staprelay.control.run and .stop (the only storable metrics);
 * anything else is PM_ERR_PERMISSION. */
int control_store(pmdaResult *result, pmdaExt *pmda);
/* A client context ended: forget its control.run answer. */
void control_end_context(pmda_ctx *ctx, int context);
void control_free(pmda_ctx *ctx);

#endif
