/* Reductions over the ranks of one host by peer-to-peer stores
 * (kryl_cuda_peer_sum) instead of ncclAllReduce, where every rank runs on
 * the same node (kryl_dist_one_node: a host, or one emulated by
 * KRYL_NODE_SIZE) and each rank's GPU can map every other's memory: each
 * rank allocates a box, sends its CUDA IPC export over MPI and maps the
 * others'.  Where any of that fails on any rank, all ranks keep NCCL.
 * The exports themselves (dist_peer.h) are here too. */
#ifdef KRYL_HAVE_NCCL
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_hooks.h"
#include "dist/dist_peer.h"

struct kryl_peer {
    int rank, size;
    kryl_peer_box *mine;    /* device */
    kryl_peer_box **mapped; /* host: every rank's box as this rank maps it */
    void **opened;          /* host: the other ranks' mapped blocks, to close */
    kryl_peer_box **boxes;  /* device: the same pointers as mapped */
};

kryl_status kryl_dist_cuda_status(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return KRYL_SUCCESS;
    cudaGetLastError();
    return KRYL_ERROR(KRYL_ERR_DEVICE, "%s failed: %s", what, cudaGetErrorString(e));
}

/* The driver's cuMemGetAddressRange, found at run time: the library needs
 * no link to the driver (it runs its CPU backends where none is installed). */
typedef CUresult (*address_range_fn)(CUdeviceptr *base, size_t *size, CUdeviceptr p);

kryl_status kryl_peer_export_memory(void *p, kryl_peer_export *e)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t err = cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000,
                                                       cudaEnableDefault, &found);
#else
    cudaError_t err =
        cudaGetDriverEntryPoint("cuMemGetAddressRange", &fn, cudaEnableDefault, &found);
#endif
    KRYL_TRY(kryl_dist_cuda_status(err, "cudaGetDriverEntryPoint(cuMemGetAddressRange)"));
    if (found != cudaDriverEntryPointSuccess || fn == NULL)
        return KRYL_ERROR(KRYL_ERR_DEVICE, "the CUDA driver has no cuMemGetAddressRange");
    CUdeviceptr base = 0;
    size_t size = 0;
    address_range_fn range; /* as POSIX dlsym does: object pointer to function pointer */
    memcpy(&range, &fn, sizeof range);
    CUresult r = range(&base, &size, (CUdeviceptr)p);
    if (r != CUDA_SUCCESS)
        return KRYL_ERROR(KRYL_ERR_DEVICE, "cuMemGetAddressRange failed (CUresult %d)", (int)r);
    e->offset = (int64_t)((CUdeviceptr)p - base);
    return kryl_dist_cuda_status(cudaIpcGetMemHandle(&e->block, (void *)base),
                                 "cudaIpcGetMemHandle");
}

kryl_status kryl_peer_new_box(size_t bytes, void **box, kryl_peer_export *e)
{
    KRYL_TRY(kryl_dist_cuda_status(cudaMalloc(box, bytes), "cudaMalloc"));
    KRYL_TRY(kryl_dist_cuda_status(cudaMemset(*box, 0, bytes), "cudaMemset"));
    KRYL_TRY(kryl_dist_cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
    return kryl_peer_export_memory(*box, e);
}

kryl_status kryl_peer_import_memory(const kryl_peer_export *e, void **block, void **p)
{
    *p = NULL;
    KRYL_TRY(
        kryl_dist_cuda_status(cudaIpcOpenMemHandle(block, e->block, cudaIpcMemLazyEnablePeerAccess),
                              "cudaIpcOpenMemHandle"));
    *p = (char *)*block + e->offset;
    return KRYL_SUCCESS;
}

void kryl_peer_free(struct kryl_peer *p)
{
    if (p == NULL) return;
    for (int q = 0; p->opened && q < p->size; q++)
        if (p->opened[q]) cudaIpcCloseMemHandle(p->opened[q]);
    cudaFree(p->mine);
    cudaFree(p->boxes);
    cudaGetLastError(); /* teardown errors are not reported: clear them */
    free(p->mapped);
    free(p->opened);
    free(p);
}

/* Every other rank's box mapped from its export, then the device table. */
static kryl_status map_boxes(struct kryl_peer *p, const kryl_peer_export *exports)
{
    p->mapped = calloc((size_t)p->size, sizeof *p->mapped);
    p->opened = calloc((size_t)p->size, sizeof *p->opened);
    if (p->mapped == NULL || p->opened == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "peer memory: cannot allocate the tables of %d ranks' buffers", p->size);
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank)
            p->mapped[q] = p->mine;
        else
            KRYL_TRY(kryl_peer_import_memory(&exports[q], &p->opened[q], (void **)&p->mapped[q]));
    }
    size_t bytes = (size_t)p->size * sizeof *p->boxes;
    KRYL_TRY(kryl_dist_cuda_status(cudaMalloc((void **)&p->boxes, bytes), "cudaMalloc"));
    return kryl_dist_cuda_status(cudaMemcpy(p->boxes, p->mapped, bytes, cudaMemcpyHostToDevice),
                                 "cudaMemcpy");
}

kryl_status kryl_peer_start(struct kryl_dist_context *dc, struct kryl_peer **out)
{
    *out = NULL;
    if (dc->size > KRYL_PEER_MAX_RANKS || !kryl_dist_one_node(dc)) return KRYL_SUCCESS;
    struct kryl_peer *p = calloc(1, sizeof *p);
    kryl_peer_export *exports = calloc((size_t)dc->size, sizeof *exports);
    kryl_peer_export mine;
    kryl_status st =
        p && exports ? KRYL_SUCCESS
                     : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                  "peer memory: cannot allocate the exports of %d ranks", dc->size);
    if (st == KRYL_SUCCESS) {
        p->rank = dc->rank;
        p->size = dc->size;
        st = kryl_peer_new_box(sizeof *p->mine, (void **)&p->mine, &mine);
    }
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st == KRYL_SUCCESS) {
        MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, exports, (int)sizeof mine, MPI_BYTE,
                      dc->comm);
        st = map_boxes(p, exports);
    }
    /* every box is zeroed and mapped everywhere before any rank writes */
    st = kryl_dist_agree_comm(dc->comm, st);
    free(exports);
    if (st != KRYL_SUCCESS) {
        /* NCCL sums instead */
        kryl_peer_free(p);
        return KRYL_SUCCESS;
    }
    *out = p;
    return KRYL_SUCCESS;
}

bool kryl_peer_sums(const struct kryl_peer *p, int count)
{
    return p != NULL && count <= KRYL_PEER_MAX_SUMS;
}

kryl_status kryl_peer_sum(struct kryl_peer *p, void *stream, double *scalars, int count)
{
    /* scalars = sum over ranks */
    return kryl_cuda_peer_sum(stream, scalars, count, p->rank, p->size, p->boxes);
}

kryl_status kryl_peer_cg1_step(struct kryl_peer *peer, kryl_context ctx, kryl_vector p,
                               kryl_vector q, kryl_vector x, kryl_vector r, kryl_vector dinv,
                               kryl_scalar t, kryl_monitor *monitor)
{
    const kryl_peer_group group = {peer->rank, peer->size, peer->boxes};
    /* t = the terms summed over the ranks;  then the update */
    return kryl_cuda_cg1_step_ranks(ctx, p, q, x, r, dinv, t, monitor, &group);
}
#else
typedef int kryl_dist_peer_empty; /* ISO C: a translation unit is never empty */
#endif
