/* The distributed SpMV y = alpha A x + beta z in the three modes of
 * Kreutzer et al. 2012, section 3: the owned entries other ranks need are
 * packed (a gather through the send positions), exchanged with the
 * neighbours into the ghost vector, and
 *   vector: the exchange completes before y = alpha A_loc x + beta z and
 *           y += alpha A_nl ghosts (no overlap);
 *   naive:  the exchange is posted, the local product runs, then the wait
 *           and the non-local product (overlap if MPI progresses alone);
 *   task:   a communication thread posts and completes the exchange while
 *           the calling thread runs the local product.
 * Time is split into compute (products), comm (pack, post, unpack) and
 * wait (blocked on messages).  On cuda the exchange runs through NCCL on a
 * second stream, between the pack and the ghosts' product that run there
 * too (the local product overlaps all three in every mode but vector, and
 * only adding the ghosts' product to y follows it; host times then count
 * launches only) -- where the ranks share a host, by peer-to-peer stores
 * that gather straight into the neighbours' ghosts instead of the pack
 * and NCCL (dist_peer_halo.c) -- or through CUDA-aware MPI on
 * device memory, or staged in host memory (download/upload).  The exchange
 * alone (kryl_dist_halo_begin/end) also serves the multicolor sweeps of
 * dist_mcssor.c, which overlap it with a color's local product alike. */
#include "dist/dist_internal.h"

enum { HALO_TAG = 7301 };

kryl_status kryl_dist_exchange_post(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                    kryl_precision precision)
{
    const kryl_halo *h = d->halo;
    size_t es = kryl_precision_size(precision);
    MPI_Datatype type = precision == KRYL_SINGLE ? MPI_FLOAT : MPI_DOUBLE;
    bool staged = dc->transport == KRYL_TRANSPORT_STAGED;
    char *recv = staged ? d->recv_host : d->ghost->data;
    char *send = staged ? d->send_host : d->sendbuf->data;
    for (int q = 0; q < h->nneigh; q++) {
        /* ghosts[recv_offset ..] <- rank neigh[q];  rank neigh[q] <- send[send_offset ..] */
        int err = MPI_Irecv(recv + (size_t)h->recv_offset[q] * es, h->recv_count[q], type,
                            h->neigh[q], HALO_TAG, dc->comm, &d->requests[2 * q]);
        if (err == MPI_SUCCESS)
            err = MPI_Isend(send + (size_t)h->send_offset[q] * es, h->send_count[q], type,
                            h->neigh[q], HALO_TAG, dc->comm, &d->requests[2 * q + 1]);
        KRYL_TRY(kryl_mpi_status(err, "the halo exchange's MPI_Irecv/MPI_Isend"));
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_dist_exchange_wait(struct kryl_dist_matrix *d)
{
    return kryl_mpi_status(MPI_Waitall(2 * d->halo->nneigh, d->requests, MPI_STATUSES_IGNORE),
                           "the halo exchange's MPI_Waitall");
}

/* The mode this context can run: task needs MPI calls from a second thread. */
static kryl_overlap usable_mode(kryl_context ctx)
{
    struct kryl_dist_context *dc = ctx->dist;
    /* NCCL overlaps on the device: no thread needed */
    if (dc->overlap != KRYL_OVERLAP_TASK || dc->transport == KRYL_TRANSPORT_NCCL)
        return dc->overlap == KRYL_OVERLAP_TASK ? KRYL_OVERLAP_NAIVE : dc->overlap;
    if (dc->thread_level < MPI_THREAD_SERIALIZED) {
        if (!dc->task_warned)
            kryl_log(ctx, KRYL_LOG_WARNING,
                     "kryl: task overlap needs MPI_THREAD_SERIALIZED or more (MPI gave level "
                     "%d): using naive overlap",
                     dc->thread_level);
        dc->task_warned = true;
        return KRYL_OVERLAP_NAIVE;
    }
    if (dc->thread == NULL && kryl_comm_thread_start(&dc->thread) != KRYL_SUCCESS) {
        if (!dc->task_warned)
            kryl_log(ctx, KRYL_LOG_WARNING,
                     "kryl: cannot start a communication thread (%s): using naive overlap",
                     kryl_last_error());
        dc->task_warned = true;
        return KRYL_OVERLAP_NAIVE;
    }
    return KRYL_OVERLAP_TASK;
}

/* Pack x's entries for the neighbours (and stage them on the host). */
static kryl_status pack(struct kryl_dist_context *dc, struct kryl_dist_matrix *d, kryl_vector x)
{
    kryl_context in = &dc->inner;
    bool staged = dc->transport == KRYL_TRANSPORT_STAGED;
    /* staged: the last exchange's upload from the pinned receive buffer may still
     * be reading it when MPI writes the next one (the download below waits too) */
    if (d->halo->nsend == 0) return staged ? dc->inner_ops->synchronize(in) : KRYL_SUCCESS;
    /* x seen with the send buffer's length: the gather reads x[send_perm[k]] only */
    struct kryl_vector_s view = *x;
    view.n = d->halo->nsend;
    /* sendbuf[k] = x[send_perm[k]] */
    KRYL_TRY(dc->inner_ops->permute_copy(in, d->sendbuf, &view, d->send_perm, KRYL_GATHER, NULL));
    /* MPI reads device memory once the gather is done; staging copies it out */
    if (dc->transport == KRYL_TRANSPORT_DEVICE_MPI) return dc->inner_ops->synchronize(in);
    if (!staged) return KRYL_SUCCESS;
    return dc->inner_ops->download(in, d->send_host, d->sendbuf->data,
                                   (size_t)d->halo->nsend * kryl_precision_size(x->precision));
}

/* Move received ghosts to backend memory (device backends). */
static kryl_status unpack(struct kryl_dist_context *dc, struct kryl_dist_matrix *d)
{
    if (dc->transport != KRYL_TRANSPORT_STAGED || d->halo->nghost == 0) return KRYL_SUCCESS;
    return dc->inner_ops->upload(&dc->inner, d->ghost->data, d->recv_host,
                                 (size_t)d->halo->nghost *
                                     kryl_precision_size(d->ghost->precision));
}

#ifdef KRYL_HAVE_NCCL
/* The pack, then the exchange by NCCL. */
static kryl_status pack_and_send(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                 kryl_vector x)
{
    KRYL_TRY(pack(dc, d, x));
    return kryl_nccl_exchange(dc, d, x->precision);
}
#endif

/* The ghosts' product a distributed SpMV may start with the exchange. */
typedef struct ghost_product {
    double alpha;
    const kryl_monitor *monitor;
} ghost_product;

/* Pack and exchange (or store into the neighbours' ghosts) on the NCCL
 * communication stream, followed there by
 * the ghosts' product (gp non-NULL): the context's stream meanwhile runs
 * the local product, and joins them in kryl_nccl_wait. */
static kryl_status start_on_comm_stream(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                        kryl_vector x, const ghost_product *gp)
{
#ifdef KRYL_HAVE_NCCL
    KRYL_TRY(kryl_nccl_fork(dc));
    /* the neighbours' ghosts <- x[send positions] */
    kryl_status st = d->peer_halo ? kryl_peer_halo_exchange(dc, d, x) : pack_and_send(dc, d, x);
    /* y_b = alpha A_c ghosts */
    if (st == KRYL_SUCCESS && gp) st = kryl_dist_boundary_product(dc, d, gp->alpha, gp->monitor);
    kryl_status ended = kryl_nccl_fork_end(dc); /* also after a failure: back to one stream */
    return st != KRYL_SUCCESS ? st : ended;
#else
    (void)d, (void)x, (void)gp;
    return KRYL_ERROR(KRYL_ERR_INTERNAL, "the NCCL transport in a build without NCCL (%d)",
                      (int)dc->transport);
#endif
}

/* Finish an exchange in flight: on NCCL, the context's stream joins the
 * communication stream; else MPI's wait. */
static kryl_status finish_exchange(struct kryl_dist_context *dc, struct kryl_dist_matrix *d)
{
#ifdef KRYL_HAVE_NCCL
    if (dc->transport == KRYL_TRANSPORT_NCCL) return kryl_nccl_wait(dc);
#endif
    (void)dc;
    return kryl_dist_exchange_wait(d);
}

/* Wait for the exchange started in `mode` (on NCCL, for all the
 * communication stream's work) and move the ghosts to backend memory. */
static kryl_status complete_exchange(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                                     kryl_overlap mode)
{
    double t0 = kryl_wtime();
    KRYL_TRY(mode == KRYL_OVERLAP_TASK ? kryl_comm_thread_wait(dc->thread)
                                       : finish_exchange(dc, d));
    double t1 = kryl_wtime();
    dc->stats.wait_s += t1 - t0;
    KRYL_TRY(unpack(dc, d));
    dc->stats.comm_s += kryl_wtime() - t1;
    return KRYL_SUCCESS;
}

/* kryl_dist_halo_begin, and on the NCCL transport the ghosts' product gp. */
static kryl_status halo_start(kryl_context ctx, struct kryl_dist_matrix *d, kryl_vector x,
                              kryl_overlap *mode, const ghost_product *gp)
{
    struct kryl_dist_context *dc = ctx->dist;
    *mode = usable_mode(ctx);
    double t0 = kryl_wtime();
    if (dc->transport == KRYL_TRANSPORT_NCCL) {
        KRYL_TRY(start_on_comm_stream(dc, d, x, gp));
    } else {
        KRYL_TRY(pack(dc, d, x));
        if (*mode == KRYL_OVERLAP_TASK)
            kryl_comm_thread_run(dc->thread, dc, d, x->precision);
        else
            KRYL_TRY(kryl_dist_exchange_post(dc, d, x->precision));
    }
    dc->stats.comm_s += kryl_wtime() - t0;
    /* vector mode: the ghosts are complete before any product */
    return *mode == KRYL_OVERLAP_VECTOR ? complete_exchange(dc, d, *mode) : KRYL_SUCCESS;
}

kryl_status kryl_dist_halo_begin(kryl_context ctx, struct kryl_dist_matrix *d, kryl_vector x,
                                 kryl_overlap *mode)
{
    return halo_start(ctx, d, x, mode, NULL);
}

kryl_status kryl_dist_halo_end(kryl_context ctx, struct kryl_dist_matrix *d, kryl_overlap mode)
{
    if (mode == KRYL_OVERLAP_VECTOR) return KRYL_SUCCESS; /* completed by kryl_dist_halo_begin */
    return complete_exchange(ctx->dist, d, mode);
}

kryl_status kryl_dist_spmv(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x,
                           double beta, kryl_vector z, kryl_vector y, const kryl_monitor *monitor)
{
    struct kryl_dist_context *dc = ctx->dist;
    struct kryl_dist_matrix *d = A->dist;
    kryl_dist_stats *s = &dc->stats;
    bool rows = A->layout->n > 0, ghosts = d->halo->nghost > 0;
    /* on NCCL the ghosts' product follows the exchange on its stream */
    ghost_product gp = {alpha, monitor};
    bool early = rows && ghosts && dc->transport == KRYL_TRANSPORT_NCCL;
    kryl_overlap mode;
    KRYL_TRY(halo_start(ctx, d, x, &mode, early ? &gp : NULL));
    double t0 = kryl_wtime();
    /* y = alpha A_loc x + beta z */
    if (rows) KRYL_TRY(dc->inner_ops->spmv(&dc->inner, d->loc, alpha, x, beta, z, y, monitor));
    s->compute_s += kryl_wtime() - t0;
    KRYL_TRY(kryl_dist_halo_end(ctx, d, mode));
    double t1 = kryl_wtime();
    /* y += alpha A_nl ghosts */
    if (rows && ghosts && !early) KRYL_TRY(kryl_dist_boundary_product(dc, d, alpha, monitor));
    if (rows && ghosts) KRYL_TRY(kryl_dist_boundary_add(dc, d, alpha, y, monitor));
    s->compute_s += kryl_wtime() - t1;
    s->spmvs++;
    return KRYL_SUCCESS;
}
