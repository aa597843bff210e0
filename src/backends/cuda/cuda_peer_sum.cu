/* Sums of a few scalars over the ranks of one host whose GPUs reach each
 * other's memory (dist_peer.c opens the boxes; kryl_peer_block_sum).  One
 * small kernel, no host involvement, so it is
 * recorded into graphs like any other.  In a CG iteration on 2 H200s,
 * ncclAllReduce of the 4 scalars cost 17 us and this 10 us
 * (docs/BENCHMARKS.md). */
#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"
#include "backends/cuda/cuda_peer.cuh"

/* Threads of the one block: a slot each, for 4 sums over 8 ranks. */
constexpr int PEER_THREADS = 64;

/* scalars[0..count) = the sum over ranks of each rank's scalars, in rank order */
__global__ void peer_sum_kernel(double *scalars, int count, int rank, int size,
                                kryl_peer_box *const *boxes)
{
    kryl_peer_block_sum(scalars, count, rank, size, boxes);
}

extern "C" kryl_status kryl_cuda_peer_sum(void *stream, double *scalars, int count, int rank,
                                          int size, kryl_peer_box *const *boxes)
{
    if (count < 0 || count > KRYL_PEER_MAX_SUMS || size < 1 || size > KRYL_PEER_MAX_RANKS ||
        rank < 0 || rank >= size)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda peer_sum: %d sums over rank %d of %d (at most %d sums, %d ranks)",
                          count, rank, size, KRYL_PEER_MAX_SUMS, KRYL_PEER_MAX_RANKS);
    /* scalars = sum over ranks */
    peer_sum_kernel<<<1, PEER_THREADS, 0, static_cast<cudaStream_t>(stream)>>>(scalars, count, rank,
                                                                               size, boxes);
    KRYL_CUDA_CHECK(cudaGetLastError());
    return KRYL_SUCCESS;
}
