/* The aggregation of the host backends (backend.h, amg_aggregate): the
 * strength graph and the parallel aggregation of src/amg/ on the host copy,
 * one thread on ref, the team on omp (the result is the same). */
#include "amg/amg.h"
#include "backends/host_step.h"
#include "core/host_threads.h"

kryl_status kryl_host_amg_aggregate(kryl_context ctx, kryl_matrix A, double theta, bool symmetric,
                                    bool finest, int32_t *aggregate, int64_t *count)
{
    int threads = kryl_host_threads(ctx);
    amg_graph G = {0};
    KRYL_TRY(amg_strength(&A->host->csr, theta, symmetric, threads, &G));
    kryl_status st = amg_aggregate_parallel(&G, finest, threads, aggregate, count);
    amg_graph_free(&G);
    return st;
}
