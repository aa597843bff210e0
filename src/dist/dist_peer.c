/* Reductions over the ranks of one host by peer-to-peer stores
 * (kryl_cuda_peer_sum) instead of ncclAllReduce, where every rank runs on
 * the same host and each rank's GPU can map every other's memory: each
 * rank allocates a box, shares its CUDA IPC handle over MPI and maps the
 * others'.  Where any of that fails on any rank, all ranks keep NCCL. */
#ifdef KRYL_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "backends/cuda/cuda_hooks.h"
#include "dist/dist_internal.h"

struct kryl_peer {
    int rank, size;
    kryl_peer_box *mine;    /* device */
    kryl_peer_box **mapped; /* host: every rank's box as this rank maps it */
    kryl_peer_box **boxes;  /* device: the same pointers */
};

static kryl_status peer_cuda(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return KRYL_SUCCESS;
    cudaGetLastError();
    return KRYL_ERROR(KRYL_ERR_DEVICE, "%s failed: %s", what, cudaGetErrorString(e));
}

void kryl_peer_free(struct kryl_peer *p)
{
    if (p == NULL) return;
    for (int q = 0; p->mapped && q < p->size; q++)
        if (q != p->rank && p->mapped[q]) cudaIpcCloseMemHandle(p->mapped[q]);
    cudaFree(p->mine);
    cudaFree(p->boxes);
    cudaGetLastError(); /* teardown errors are not reported: clear them */
    free(p->mapped);
    free(p);
}

/* Whether all ranks of comm share this process's host. */
static bool one_host(MPI_Comm comm, int size)
{
    MPI_Comm local;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) != MPI_SUCCESS)
        return false;
    int local_size = 0;
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
    return local_size == size;
}

/* This rank's box, zeroed, and its IPC handle. */
static kryl_status open_box(struct kryl_peer *p, cudaIpcMemHandle_t *handle)
{
    KRYL_TRY(peer_cuda(cudaMalloc((void **)&p->mine, sizeof *p->mine), "cudaMalloc"));
    KRYL_TRY(peer_cuda(cudaMemset(p->mine, 0, sizeof *p->mine), "cudaMemset"));
    KRYL_TRY(peer_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
    return peer_cuda(cudaIpcGetMemHandle(handle, p->mine), "cudaIpcGetMemHandle");
}

/* Every other rank's box mapped from its handle, then the device table. */
static kryl_status map_boxes(struct kryl_peer *p, const cudaIpcMemHandle_t *handles)
{
    p->mapped = calloc((size_t)p->size, sizeof *p->mapped);
    if (p->mapped == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "out of memory");
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank) {
            p->mapped[q] = p->mine;
            continue;
        }
        void *box = NULL;
        KRYL_TRY(peer_cuda(cudaIpcOpenMemHandle(&box, handles[q], cudaIpcMemLazyEnablePeerAccess),
                           "cudaIpcOpenMemHandle"));
        p->mapped[q] = box;
    }
    size_t bytes = (size_t)p->size * sizeof *p->boxes;
    KRYL_TRY(peer_cuda(cudaMalloc((void **)&p->boxes, bytes), "cudaMalloc"));
    return peer_cuda(cudaMemcpy(p->boxes, p->mapped, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
}

kryl_status kryl_peer_start(struct kryl_dist_context *dc, struct kryl_peer **out)
{
    *out = NULL;
    if (dc->size > KRYL_PEER_MAX_RANKS || !one_host(dc->comm, dc->size)) return KRYL_SUCCESS;
    struct kryl_peer *p = calloc(1, sizeof *p);
    cudaIpcMemHandle_t *handles = calloc((size_t)dc->size, sizeof *handles);
    cudaIpcMemHandle_t handle;
    kryl_status st =
        p && handles ? KRYL_SUCCESS : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "out of memory");
    if (st == KRYL_SUCCESS) {
        p->rank = dc->rank;
        p->size = dc->size;
        st = open_box(p, &handle);
    }
    st = kryl_dist_agree_comm(dc->comm, st);
    if (st == KRYL_SUCCESS) {
        MPI_Allgather(&handle, (int)sizeof handle, MPI_BYTE, handles, (int)sizeof handle, MPI_BYTE,
                      dc->comm);
        st = map_boxes(p, handles);
    }
    /* every box is zeroed and mapped everywhere before any rank writes */
    st = kryl_dist_agree_comm(dc->comm, st);
    free(handles);
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
#else
typedef int kryl_dist_peer_empty; /* ISO C: a translation unit is never empty */
#endif
