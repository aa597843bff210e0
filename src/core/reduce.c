/* Reductions over the context's ranks: one rank, so nothing to combine. */
#include "core/reduce.h"

kryl_status kryl_reduce_begin(kryl_context ctx, kryl_scalar first, int count)
{
    (void)ctx;
    (void)first;
    (void)count;
    return KRYL_SUCCESS;
}

kryl_status kryl_reduce_end(kryl_context ctx)
{
    (void)ctx;
    return KRYL_SUCCESS;
}
