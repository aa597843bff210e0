/* The thread count of host setup work (host_threads.h). */
#ifdef KRYL_HAVE_OPENMP
#include <omp.h>
#endif

#include "core/host_threads.h"
#include "core/objects.h"

int kryl_host_threads(kryl_context ctx)
{
#ifdef KRYL_HAVE_OPENMP
    if (ctx->kind == KRYL_BACKEND_REF) return 1;
    if (ctx->host_team) return ctx->host_team(ctx);
    return ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
#else
    (void)ctx;
    return 1;
#endif
}

int kryl_host_thread(void)
{
#ifdef KRYL_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

int kryl_host_team(void)
{
#ifdef KRYL_HAVE_OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

int kryl_host_max_threads(void)
{
#ifdef KRYL_HAVE_OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
