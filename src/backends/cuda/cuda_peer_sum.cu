/* Sums of a few scalars over the ranks of one host whose GPUs reach each
 * other's memory (dist_peer.c opens the boxes): each rank stores its values
 * straight into every rank's box, raises its flag there, waits for every
 * rank's flag in its own box and adds the values in rank order, so every
 * rank gets the same bits.  One small kernel, no host involvement, so it is
 * recorded into graphs like any other.  In a CG iteration on 2 H200s,
 * ncclAllReduce of the 4 scalars cost 17 us and this 10 us
 * (docs/BENCHMARKS.md). */
#include "backends/cuda/cuda_hooks.h"
#include "backends/cuda/cuda_internal.cuh"
#include "backends/cuda/cuda_peer.cuh"

/* Threads of the one block: a thread per rank's flag, a value each. */
constexpr int PEER_THREADS = 64;
static_assert(KRYL_PEER_MAX_RANKS <= PEER_THREADS, "a thread per rank's flag");

/* scalars[0..count) = the sum over ranks of each rank's scalars, in rank
 * order.  Call k of a box (its sequence + 1) uses the values of parity
 * k % 2: a rank can start call k + 1 while a slower one still reads call
 * k's values, never call k + 2 (that needs the slower rank's flag of
 * k + 1). */
__global__ void peer_sum_kernel(double *scalars, int count, int rank, int size,
                                kryl_peer_box *const *boxes)
{
    kryl_peer_box *mine = boxes[rank];
    const unsigned long long k = mine->sequence + 1;
    const int parity = (int)(k % 2);
    /* my values into every rank's box, row `rank` */
    for (int q = 0; q < size; q++)
        for (int t = threadIdx.x; t < count; t += PEER_THREADS)
            boxes[q]->values[parity][rank][t] = scalars[t];
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x < size) {
        /* then my flag in rank q's box: my values are there */
        const int q = threadIdx.x;
        peer_raise(&boxes[q]->flags[rank], k);
        /* and rank q's flag in mine: its values are here */
        peer_wait(&mine->flags[q], k);
    }
    __threadfence_system();
    __syncthreads();
    for (int t = threadIdx.x; t < count; t += PEER_THREADS) {
        double sum = 0.0;
        for (int q = 0; q < size; q++) sum += *(volatile double *)&mine->values[parity][q][t];
        scalars[t] = sum;
    }
    if (threadIdx.x == 0) mine->sequence = k;
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
