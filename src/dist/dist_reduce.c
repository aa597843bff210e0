/* Reductions over the ranks: the rank-local scalars are copied to host
 * memory (a plain copy on the CPU backends, a download on cuda), summed by
 * a non-blocking MPI_Iallreduce and copied back at the end, so a method
 * that works between begin and end (pipelined CG's SpMV, Tiwari &
 * Vadhiyar section 3) hides the reduction behind that work.  With NCCL
 * the scalars are summed in device memory on the context's stream. */
#include <stdlib.h>

#include "dist/dist_internal.h"

kryl_status kryl_dist_reduce_begin(kryl_context ctx, kryl_scalar first, int count)
{
    struct kryl_dist_context *d = ctx->dist;
    if (d->reduce_req != MPI_REQUEST_NULL)
        return KRYL_ERROR(KRYL_ERR_INTERNAL, "a reduction was started while another was in flight");
#ifdef KRYL_HAVE_NCCL
    if (d->transport == KRYL_TRANSPORT_NCCL) return kryl_nccl_allreduce(d, first.ptr, count);
#endif
    if (count > d->reduce_capacity) {
        /* grows once per larger count (the first GMRES cycle), never after */
        double *grown = realloc(d->reduce_buf, (size_t)count * sizeof *grown);
        if (grown == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %d reduction scalars",
                              count);
        d->reduce_buf = grown;
        d->reduce_capacity = count;
    }
    KRYL_TRY(d->inner_ops->download(ctx, d->reduce_buf, first.ptr, (size_t)count * sizeof(double)));
    d->reduce_first = first;
    d->reduce_count = count;
    /* buf = sum over ranks of buf */
    return kryl_mpi_status(MPI_Iallreduce(MPI_IN_PLACE, d->reduce_buf, count, MPI_DOUBLE, MPI_SUM,
                                          d->comm, &d->reduce_req),
                           "MPI_Iallreduce");
}

kryl_status kryl_dist_reduce_end(kryl_context ctx)
{
    struct kryl_dist_context *d = ctx->dist;
    if (d->reduce_req == MPI_REQUEST_NULL) return KRYL_SUCCESS;
    KRYL_TRY(kryl_mpi_status(MPI_Wait(&d->reduce_req, MPI_STATUS_IGNORE), "MPI_Wait"));
    return d->inner_ops->upload(ctx, d->reduce_first.ptr, d->reduce_buf,
                                (size_t)d->reduce_count * sizeof(double));
}

void kryl_dist_host_sum(kryl_context ctx, int64_t *values, int count)
{
    MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_INT64_T, MPI_SUM, ctx->dist->comm);
}

void kryl_dist_host_max(kryl_context ctx, double *values, int count)
{
    MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, ctx->dist->comm);
}

int64_t kryl_dist_host_exscan(kryl_context ctx, int64_t value)
{
    int64_t before = 0;
    MPI_Exscan(&value, &before, 1, MPI_INT64_T, MPI_SUM, ctx->dist->comm);
    return ctx->dist->rank == 0 ? 0 : before; /* rank 0's result is undefined */
}
