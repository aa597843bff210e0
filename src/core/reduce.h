/* Completion of rank-local reductions.  Every dot or norm a solver computes
 * goes through a begin/end pair, so that a distributed context can combine
 * the ranks' values (and overlap that with other work) without changing the
 * solvers.  On one rank both are no-ops. */
#ifndef KRYL_CORE_REDUCE_H
#define KRYL_CORE_REDUCE_H

#include "backends/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start summing count consecutive scalars from `first` over all ranks. */
kryl_status kryl_reduce_begin(kryl_context ctx, kryl_scalar first, int count);

/* Wait for the reduction started last; the scalars then hold global sums. */
kryl_status kryl_reduce_end(kryl_context ctx);

/* Whether rank-local sums are already the global ones (one rank): then a
 * fused update may feed its sums straight into the monitor. */
bool kryl_reduce_is_local(kryl_context ctx);

#ifdef __cplusplus
}
#endif

#endif
