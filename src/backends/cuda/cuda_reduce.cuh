/* Deterministic sums inside one kernel launch: a fixed-shape block tree,
 * then the "last block finishes" step of CUDA's threadFenceReduction sample
 * (each block stores its partial, fences, takes a ticket; the block with the
 * last ticket adds the partials in block order).  The order of every addition
 * depends only on the grid, which depends only on the vector length, so
 * repeated calls give bit-identical results. */
#ifndef KRYL_BACKENDS_CUDA_REDUCE_CUH
#define KRYL_BACKENDS_CUDA_REDUCE_CUH

#include "backends/cuda/cuda_internal.cuh"

/* v[j] = sum of v[j] over the block, valid in thread 0 (blockDim.x = KRYL_CUDA_THREADS). */
template <int N> __device__ inline void kryl_block_sum(double (&v)[N])
{
    constexpr int WARPS = KRYL_CUDA_THREADS / 32;
    __shared__ double warp_sums[N][WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* warp tree: v += v[lane + offset] for offset 16, 8, 4, 2, 1 */
    for (int offset = 16; offset > 0; offset >>= 1)
        for (int j = 0; j < N; j++) v[j] += __shfl_down_sync(0xffffffffu, v[j], offset);
    if (lane == 0)
        for (int j = 0; j < N; j++) warp_sums[j][warp] = v[j];
    __syncthreads();
    if (warp == 0) {
        for (int j = 0; j < N; j++) v[j] = lane < WARPS ? warp_sums[j][lane] : 0.0;
        for (int offset = WARPS / 2; offset > 0; offset >>= 1)
            for (int j = 0; j < N; j++) v[j] += __shfl_down_sync(0xffffffffu, v[j], offset);
    }
    __syncthreads(); /* warp_sums may be reused by the next call */
}

/* Whether this block is the last of the grid to get here, in every thread
 * of the block: each block's partials (written by thread 0 before the call)
 * are fenced, then thread 0 takes a ticket.  counter is 0 on entry and is
 * left 0. */
__device__ inline bool kryl_last_block(unsigned int *counter)
{
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        __threadfence();
        /* atomicInc wraps to 0 after gridDim.x - 1: the last ticket resets the counter */
        is_last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    return is_last;
}

/* Sum each thread's v[j] over the whole grid.  Returns true in exactly one
 * thread (thread 0 of the last block to finish), which then holds the
 * totals in v.  partials holds N x stride doubles (stride >= gridDim.x);
 * counter is 0 on entry and is left 0. */
template <int N>
__device__ inline bool kryl_grid_sum(double (&v)[N], double *partials, unsigned int stride,
                                     unsigned int *counter)
{
    kryl_block_sum<N>(v);
    if (threadIdx.x == 0)
        for (int j = 0; j < N; j++) partials[j * stride + blockIdx.x] = v[j];
    if (!kryl_last_block(counter)) return false;
    /* v[j] = sum over blocks b of partials[j][b], each thread in block order */
    for (int j = 0; j < N; j++) {
        v[j] = 0.0;
        for (unsigned int b = threadIdx.x; b < gridDim.x; b += KRYL_CUDA_THREADS)
            v[j] += __ldcg(&partials[j * stride + b]);
    }
    kryl_block_sum<N>(v);
    return threadIdx.x == 0;
}

#endif
