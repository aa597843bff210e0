/* Reductions over the context's ranks: nothing to combine on one rank; a
 * distributed context sums the ranks' values (src/dist/dist_reduce.c). */
#include "core/reduce.h"

#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

kryl_status kryl_reduce_begin(kryl_context ctx, kryl_scalar first, int count)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return kryl_dist_reduce_begin(ctx, first, count);
#endif
    (void)ctx;
    (void)first;
    (void)count;
    return KRYL_SUCCESS;
}

bool kryl_reduce_is_local(kryl_context ctx)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return false;
#endif
    (void)ctx;
    return true;
}

kryl_status kryl_reduce_end(kryl_context ctx)
{
#ifdef KRYL_HAVE_MPI
    if (kryl_dist_active(ctx)) return kryl_dist_reduce_end(ctx);
#endif
    (void)ctx;
    return KRYL_SUCCESS;
}
