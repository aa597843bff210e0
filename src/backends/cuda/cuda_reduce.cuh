/* Deterministic sums inside one kernel launch: a fixed-shape block tree,
 * then the "last block finishes" step of CUDA's threadFenceReduction sample
 * (each block stores its partial and takes a ticket that releases it; the
 * block with the last ticket adds the partials in block order).  The order
 * of every addition depends only on the grid, which depends only on the
 * vector length, so repeated calls give bit-identical results. */
#ifndef KRYL_BACKENDS_CUDA_REDUCE_CUH
#define KRYL_BACKENDS_CUDA_REDUCE_CUH

#include "backends/cuda/cuda_internal.cuh"

/* The operations of the block trees below. */
struct kryl_sum_op {
    template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct kryl_max_op {
    template <typename T> __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

/* v[j] = op of v[j] over the block (a fixed tree: warps by shuffles, then
 * the warps' results in warp 0), valid in thread 0 (blockDim.x =
 * KRYL_CUDA_THREADS); `none` is op's identity.  Synchronises the block. */
template <int N, typename T, typename Op>
__device__ inline void kryl_block_reduce(T (&v)[N], T none, Op op)
{
    constexpr int WARPS = KRYL_CUDA_THREADS / 32;
    __shared__ T warp_parts[N][WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* warp tree: v = op(v, v[lane + offset]) for offset 16, 8, 4, 2, 1 */
    for (int offset = 16; offset > 0; offset >>= 1)
        for (int j = 0; j < N; j++) v[j] = op(v[j], __shfl_down_sync(0xffffffffu, v[j], offset));
    if (lane == 0)
        for (int j = 0; j < N; j++) warp_parts[j][warp] = v[j];
    __syncthreads();
    if (warp == 0) {
        for (int j = 0; j < N; j++) v[j] = lane < WARPS ? warp_parts[j][lane] : none;
        for (int offset = WARPS / 2; offset > 0; offset >>= 1)
            for (int j = 0; j < N; j++)
                v[j] = op(v[j], __shfl_down_sync(0xffffffffu, v[j], offset));
    }
    __syncthreads(); /* warp_parts may be reused by the next call */
}

/* v[j] = sum of v[j] over the block, valid in thread 0 (blockDim.x = KRYL_CUDA_THREADS). */
template <int N> __device__ inline void kryl_block_sum(double (&v)[N])
{
    kryl_block_reduce<N>(v, 0.0, kryl_sum_op{});
}

/* The largest v over the block, valid in thread 0 (blockDim.x = KRYL_CUDA_THREADS). */
__device__ inline unsigned long long kryl_block_max(unsigned long long v)
{
    unsigned long long w[1] = {v};
    kryl_block_reduce<1>(w, 0ull, kryl_max_op{});
    return w[0];
}

/* The acquire and release operations of the PTX memory model at GPU scope,
 * which the grid-wide steps below are built on (as CUTLASS's grid barrier):
 * a release publishes what the thread wrote, and what its block wrote
 * before a __syncthreads; an acquire that reads it makes all of that
 * visible to the reading thread, and to its block after a __syncthreads,
 * through L1 too (the hardware invalidates the SM's L1 on an acquire).
 * They replace __threadfence(), a sequentially consistent fence, which
 * these message-passing steps do not need (H100, the resident CG's steps
 * on 2-D 300^2: 7.5 against 8.0 us). */

/* old = *p; *p = old >= limit ? 0 : old + 1; acquire and release */
__device__ inline unsigned int kryl_inc_acq_rel(unsigned int *p, unsigned int limit)
{
    unsigned int old;
    asm volatile("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(p), "r"(limit)
                 : "memory");
    return old;
}

/* *p = value; release */
__device__ inline void kryl_store_release(unsigned int *p, unsigned int value)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(value) : "memory");
}

/* *p; acquire */
__device__ inline unsigned int kryl_load_acquire(const unsigned int *p)
{
    unsigned int value;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(p) : "memory");
    return value;
}

/* Whether this block is the last of the grid to get here, in every thread
 * of the block: thread 0 takes a ticket, which releases the block's
 * partials (written before the call) and, in the last block, acquires
 * everyone's.  counter is 0 on entry and is left 0. */
__device__ inline bool kryl_last_block(unsigned int *counter)
{
    __shared__ bool is_last;
    if (threadIdx.x == 0)
        /* the increment wraps to 0 after gridDim.x - 1: the last ticket resets the counter */
        is_last = kryl_inc_acq_rel(counter, gridDim.x - 1) == gridDim.x - 1;
    __syncthreads();
    return is_last;
}

/* v[j] = sum over the grid's blocks b of partials[j * stride + b], added in
 * the same order by any block that calls it: valid in thread 0. */
template <int N>
__device__ inline void kryl_partials_sum(double (&v)[N], const double *partials,
                                         unsigned int stride)
{
    /* each thread in block order, then the block tree */
    for (int j = 0; j < N; j++) {
        v[j] = 0.0;
        for (unsigned int b = threadIdx.x; b < gridDim.x; b += KRYL_CUDA_THREADS)
            v[j] += __ldcg(&partials[j * stride + b]);
    }
    kryl_block_sum<N>(v);
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
    kryl_partials_sum<N>(v, partials, stride);
    return threadIdx.x == 0;
}

/* A kryl_resident_sum that leaves the grid's totals as they are. */
struct kryl_totals_kept {
    __device__ void operator()(double *) const {}
};

/* In a grid whose blocks are all resident at once (a cooperative launch):
 * v[j] = the grid's sum of v[j] in every thread, and a grid barrier (what
 * any thread wrote before it, every thread can read after it, with plain
 * loads: not through the read-only path, which the acquire does not cover).
 * Each block stores its partials and takes a ticket; only the last block
 * adds them (in block order, as kryl_grid_sum), stores the totals, lets
 * `finish(totals)` change them (run by the whole block: a sum over ranks,
 * kryl_peer_block_sum) and advances *generation to `target`, which the
 * other blocks wait for (every block reading every partial instead is
 * slower: hundreds of blocks read the same lines).  target: the value
 * *generation had when the launch began plus the number of this barrier in
 * it, from 1.  totals: N doubles of scratch; counter is 0 on entry and
 * left 0. */
template <int N, typename Finish = kryl_totals_kept>
__device__ inline void kryl_resident_sum(double (&v)[N], double *partials, unsigned int stride,
                                         unsigned int *counter, unsigned int *generation,
                                         unsigned int target, double *totals,
                                         Finish finish = Finish{})
{
    __shared__ double block_totals[N];
    kryl_block_sum<N>(v);
    if (threadIdx.x == 0)
        for (int j = 0; j < N; j++) partials[j * stride + blockIdx.x] = v[j];
    if (kryl_last_block(counter)) {
        kryl_partials_sum<N>(v, partials, stride);
        if (threadIdx.x == 0)
            for (int j = 0; j < N; j++) totals[j] = v[j];
        __syncthreads();
        finish(totals);
        __syncthreads();
        if (threadIdx.x == 0) kryl_store_release(generation, target);
    } else if (threadIdx.x == 0) {
        /* wraps safely: the difference is what counts */
        while ((int)(kryl_load_acquire(generation) - target) < 0) {
        }
    }
    if (threadIdx.x == 0)
        for (int j = 0; j < N; j++) block_totals[j] = __ldcg(&totals[j]);
    __syncthreads();
    for (int j = 0; j < N; j++) v[j] = block_totals[j];
}

#endif
