/* The monitor guard of the ref backend's iteration operations: whether an
 * operation must do nothing, how it stops the iteration, and the check of
 * its scalar inputs. */
#ifndef KRYL_BACKENDS_REF_GUARD_H
#define KRYL_BACKENDS_REF_GUARD_H

#include <math.h>
#include <stdbool.h>

#include "backends/backend.h"

/* monitor->stop is set: the operation does nothing */
static inline bool halted(const kryl_monitor *monitor)
{
    return monitor != NULL && monitor->stop != KRYL_STOP_RUNNING;
}

/* Stop the iteration for `why`; the calling operation then changes nothing. */
static inline kryl_status halt(kryl_monitor *monitor, int why)
{
    if (monitor) monitor->stop = why;
    return KRYL_SUCCESS;
}

/* v[0..count) are all finite */
static inline bool all_finite(const double *v, int count)
{
    for (int i = 0; i < count; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

#endif
