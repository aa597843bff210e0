/* CUDA graphs of a distributed context.  With the NCCL transport every
 * operation of a step is queued on streams with no host involvement (the
 * pack, the exchange on the communication stream joined by events, the
 * products, ncclAllReduce of the scalars), and NCCL records into stream
 * capture, so the batches of steps are captured and replayed as on one
 * rank.  Every rank captures and replays the same batches (the driver does
 * not grow them from timings over ranks), so the NCCL operations inside
 * the graphs match.  A capture queues the distributed SpMVs without running
 * them: the statistics count them at each replay instead. */
#include <stdlib.h>

#include "dist/dist_internal.h"

typedef struct dist_graph {
    void *graph;   /* the backend's */
    int64_t spmvs; /* distributed SpMVs one replay runs */
} dist_graph;

static kryl_status dist_capture_begin(kryl_context ctx)
{
    struct kryl_dist_context *d = ctx->dist;
    d->spmvs_before_capture = d->stats.spmvs;
    return d->inner_ops->capture_begin(ctx);
}

static kryl_status dist_capture_end(kryl_context ctx, void **graph)
{
    struct kryl_dist_context *d = ctx->dist;
    *graph = NULL;
    int64_t spmvs = d->stats.spmvs - d->spmvs_before_capture;
    d->stats.spmvs = d->spmvs_before_capture; /* recorded, not run */
    void *recorded = NULL;
    KRYL_TRY(d->inner_ops->capture_end(ctx, &recorded));
    dist_graph *g = malloc(sizeof *g);
    if (g == NULL) {
        d->inner_ops->graph_release(ctx, recorded);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a graph record");
    }
    g->graph = recorded;
    g->spmvs = spmvs;
    *graph = g;
    return KRYL_SUCCESS;
}

static kryl_status dist_graph_launch(kryl_context ctx, void *graph)
{
    struct kryl_dist_context *d = ctx->dist;
    dist_graph *g = graph;
    KRYL_TRY(d->inner_ops->graph_launch(ctx, g->graph));
    d->stats.spmvs += g->spmvs;
    return KRYL_SUCCESS;
}

static void dist_graph_release(kryl_context ctx, void *graph)
{
    dist_graph *g = graph;
    if (g == NULL) return;
    ctx->dist->inner_ops->graph_release(ctx, g->graph);
    free(g);
}

void kryl_dist_graph_ops(struct kryl_dist_context *d)
{
    bool on_streams = d->transport == KRYL_TRANSPORT_NCCL && d->inner_ops->capture_begin != NULL;
    d->ops.capture_begin = on_streams ? dist_capture_begin : NULL;
    d->ops.capture_end = on_streams ? dist_capture_end : NULL;
    d->ops.graph_launch = on_streams ? dist_graph_launch : NULL;
    d->ops.graph_release = on_streams ? dist_graph_release : NULL;
}
