/* The NCCL transport of a distributed cuda context: the halo exchange as
 * ncclSend/ncclRecv per neighbour inside one group, on a communication
 * stream forked from the context's stream (an event) that also runs the
 * pack before it and the ghosts' product after it, and that the context's
 * stream joins (waits for) before adding that product, so all of it
 * overlaps the local product with no host involvement; and
 * the reductions as ncclAllReduce of the scalars in device memory on the
 * context's stream.  Where the ranks share a host, sums and halo
 * exchanges go by peer-to-peer stores instead (dist_peer.c,
 * dist_peer_halo.c), on the same streams.  The communicator is
 * bootstrapped by broadcasting an ncclUniqueId over MPI.  One communicator
 * serves both streams safely because its operations never run
 * concurrently on a GPU: an exchange starts after everything queued before
 * the pack (reductions included) and the context's stream waits for it
 * before the non-local product, with no reduction queued in between. */
#ifdef KRYL_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cuda/cuda_hooks.h"
#include "dist/dist_peer.h"

struct kryl_nccl {
    ncclComm_t comm;
    cudaStream_t stream;      /* the context's */
    cudaStream_t comm_stream; /* the exchange's */
    cudaEvent_t forked, received;
    struct kryl_peer *peer; /* sums by peer-to-peer stores, or NULL: ncclAllReduce */
};

static kryl_status nccl_status(ncclResult_t r, const char *what)
{
    if (r == ncclSuccess) return KRYL_SUCCESS;
    return KRYL_ERROR(KRYL_ERR_DEVICE, "%s failed: %s", what, ncclGetErrorString(r));
}

void kryl_nccl_free(struct kryl_nccl *n)
{
    if (n == NULL) return;
    kryl_peer_free(n->peer);
    if (n->comm) ncclCommDestroy(n->comm);
    if (n->comm_stream) cudaStreamDestroy(n->comm_stream);
    if (n->forked) cudaEventDestroy(n->forked);
    if (n->received) cudaEventDestroy(n->received);
    free(n);
}

/* NCCL takes one rank per GPU, and a communicator whose ranks share one
 * fails on those ranks only, leaving the others waiting in its set-up: so
 * every rank first compares the PCI bus ids of all ranks' devices.
 * Collective. */
static kryl_status one_rank_per_device(struct kryl_dist_context *dc)
{
    enum { ID = 32 };
    char mine[ID] = {0};
    int device = 0;
    kryl_status st = kryl_dist_cuda_status(cudaGetDevice(&device), "cudaGetDevice");
    if (st == KRYL_SUCCESS)
        st =
            kryl_dist_cuda_status(cudaDeviceGetPCIBusId(mine, ID, device), "cudaDeviceGetPCIBusId");
    char *all = calloc((size_t)dc->size, ID);
    if (all == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "NCCL set-up: cannot allocate the device ids of %d ranks", dc->size);
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st != KRYL_SUCCESS) {
        free(all);
        return st;
    }
    MPI_Allgather(mine, ID, MPI_CHAR, all, ID, MPI_CHAR, dc->comm);
    for (int p = 0; p < dc->size && st == KRYL_SUCCESS; p++)
        for (int q = p + 1; q < dc->size && st == KRYL_SUCCESS; q++)
            if (strncmp(all + (size_t)p * ID, all + (size_t)q * ID, ID) == 0)
                st = KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                                "ranks %d and %d share the GPU %s (NCCL needs one rank per GPU)", p,
                                q, all + (size_t)p * ID);
    free(all);
    return st;
}

/* Where KRYL_NODE_SIZE emulates several nodes on one host, NCCL is told
 * that each is a host of its own (NCCL_HOSTID: this host's name and the
 * node), so it connects ranks of different nodes by its network transport
 * through host memory, as between hosts without GPUDirect, and those of
 * one node by NVLink or PCIe.  Before NCCL's first call, which reads it. */
static void name_emulated_host(const struct kryl_dist_context *dc)
{
    int node = kryl_dist_emulated_node(dc);
    if (node < 0 || dc->node_size >= dc->size) return;
    char host[64] = "", id[96];
    gethostname(host, sizeof host - 1);
    snprintf(id, sizeof id, "%s-kryl-node-%d", host, node);
    setenv("NCCL_HOSTID", id, 1);
}

kryl_status kryl_nccl_start(struct kryl_dist_context *dc, kryl_context ctx, struct kryl_nccl **out)
{
    *out = NULL;
    KRYL_TRY(one_rank_per_device(dc));
    name_emulated_host(dc);
    struct kryl_nccl *n = calloc(1, sizeof *n);
    ncclUniqueId id;
    kryl_status st = n ? KRYL_SUCCESS
                       : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                    "NCCL set-up: cannot allocate the communicator's state");
    if (st == KRYL_SUCCESS) n->stream = (cudaStream_t)kryl_cuda_stream(ctx);
    if (st == KRYL_SUCCESS && dc->rank == 0)
        st = nccl_status(ncclGetUniqueId(&id), "ncclGetUniqueId");
    /* every rank learns whether rank 0 has an id, then the id */
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st == KRYL_SUCCESS) {
        MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, dc->comm);
        /* NVLink SHARP (multicast) off unless the user chose otherwise */
        setenv("NCCL_NVLS_ENABLE", "0", 0);
        st = nccl_status(ncclCommInitRank(&n->comm, dc->size, id, dc->rank), "ncclCommInitRank");
    }
    /* the highest priority: the exchange's blocks are scheduled as soon as
     * the local product's leave room, not after all of them */
    int least = 0, greatest = 0;
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                                   "cudaDeviceGetStreamPriorityRange");
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(
            cudaStreamCreateWithPriority(&n->comm_stream, cudaStreamNonBlocking, greatest),
            "cudaStreamCreateWithPriority");
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaEventCreateWithFlags(&n->forked, cudaEventDisableTiming),
                                   "cudaEventCreateWithFlags");
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaEventCreateWithFlags(&n->received, cudaEventDisableTiming),
                                   "cudaEventCreateWithFlags");
    /* small sums by peer-to-peer stores where the ranks share a host */
    if (st == KRYL_SUCCESS) st = kryl_peer_start(dc, &n->peer);
    /* a first reduction sets up the collective's channels here, not in a solve */
    double *one = NULL;
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaMalloc((void **)&one, sizeof *one), "cudaMalloc");
    if (st == KRYL_SUCCESS)
        st = nccl_status(ncclAllReduce(one, one, 1, ncclDouble, ncclSum, n->comm, n->stream),
                         "ncclAllReduce");
    if (st == KRYL_SUCCESS)
        st = kryl_dist_cuda_status(cudaStreamSynchronize(n->stream), "cudaStreamSynchronize");
    cudaFree(one);
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st != KRYL_SUCCESS) {
        kryl_nccl_free(n);
        return st;
    }
    *out = n;
    return KRYL_SUCCESS;
}

kryl_status kryl_nccl_fork(struct kryl_dist_context *dc)
{
    struct kryl_nccl *n = dc->nccl;
    /* the communication stream continues from everything queued so far */
    KRYL_TRY(kryl_dist_cuda_status(cudaEventRecord(n->forked, n->stream), "cudaEventRecord"));
    KRYL_TRY(kryl_dist_cuda_status(cudaStreamWaitEvent(n->comm_stream, n->forked, 0),
                                   "cudaStreamWaitEvent"));
    kryl_cuda_set_stream(&dc->inner, n->comm_stream);
    return KRYL_SUCCESS;
}

kryl_status kryl_nccl_exchange(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                               kryl_precision precision)
{
    struct kryl_nccl *n = dc->nccl;
    const kryl_halo *h = d->halo;
    size_t es = kryl_precision_size(precision);
    ncclDataType_t type = precision == KRYL_SINGLE ? ncclFloat : ncclDouble;
    char *recv = d->ghost->data, *send = d->sendbuf->data;
    KRYL_TRY(nccl_status(ncclGroupStart(), "ncclGroupStart"));
    for (int q = 0; q < h->nneigh; q++) {
        /* ghosts[recv_offset ..] <- rank neigh[q];  rank neigh[q] <- send[send_offset ..] */
        if (h->recv_count[q] > 0)
            ncclRecv(recv + (size_t)h->recv_offset[q] * es, (size_t)h->recv_count[q], type,
                     h->neigh[q], n->comm, n->comm_stream);
        if (h->send_count[q] > 0)
            ncclSend(send + (size_t)h->send_offset[q] * es, (size_t)h->send_count[q], type,
                     h->neigh[q], n->comm, n->comm_stream);
    }
    return nccl_status(ncclGroupEnd(), "ncclGroupEnd (halo exchange)");
}

kryl_status kryl_nccl_connect(struct kryl_dist_context *dc, struct kryl_dist_matrix *d,
                              kryl_precision precision)
{
    if (dc->nccl->peer) {
        KRYL_TRY(kryl_peer_halo_start(dc, d, precision, &d->peer_halo));
        if (d->peer_halo) return KRYL_SUCCESS;
    }
    /* NCCL connects to a peer at its first send or receive (about 1 s on two
     * H200s): one exchange now keeps that out of the first solve */
    KRYL_TRY(kryl_nccl_fork(dc));
    kryl_status st = kryl_nccl_exchange(dc, d, precision);
    kryl_status ended = kryl_nccl_fork_end(dc); /* also after a failure */
    if (st == KRYL_SUCCESS) st = ended;
    if (st == KRYL_SUCCESS) st = kryl_nccl_wait(dc);
    return st == KRYL_SUCCESS ? kryl_dist_cuda_status(cudaStreamSynchronize(dc->nccl->stream),
                                                      "cudaStreamSynchronize")
                              : st;
}

kryl_status kryl_nccl_fork_end(struct kryl_dist_context *dc)
{
    struct kryl_nccl *n = dc->nccl;
    kryl_cuda_set_stream(&dc->inner, n->stream);
    return kryl_dist_cuda_status(cudaEventRecord(n->received, n->comm_stream), "cudaEventRecord");
}

kryl_status kryl_nccl_wait(struct kryl_dist_context *dc)
{
    /* the context's stream continues once the communication stream's work is done */
    return kryl_dist_cuda_status(cudaStreamWaitEvent(dc->nccl->stream, dc->nccl->received, 0),
                                 "cudaStreamWaitEvent");
}

kryl_status kryl_nccl_allreduce(struct kryl_dist_context *dc, double *scalars, int count)
{
    struct kryl_nccl *n = dc->nccl;
    if (kryl_peer_sums(n->peer, count)) return kryl_peer_sum(n->peer, n->stream, scalars, count);
    /* scalars = sum over ranks, on the context's stream */
    return nccl_status(
        ncclAllReduce(scalars, scalars, (size_t)count, ncclDouble, ncclSum, n->comm, n->stream),
        "ncclAllReduce");
}

bool kryl_nccl_peer_sums(const struct kryl_dist_context *dc, int count)
{
    return kryl_peer_sums(dc->nccl->peer, count);
}

kryl_status kryl_nccl_cg1_step(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector x,
                               kryl_vector r, kryl_vector dinv, kryl_scalar t,
                               kryl_monitor *monitor)
{
    /* t = the terms summed over the ranks;  then the update */
    return kryl_peer_cg1_step(ctx->dist->nccl->peer, ctx, p, q, x, r, dinv, t, monitor);
}
#else
typedef int kryl_dist_nccl_empty; /* ISO C: a translation unit is never empty */
#endif
