/* Signals between the GPUs of one host, in memory every rank maps: flags
 * (cuda_peer_halo.cu), which a rank raises in another's memory once the
 * values it stored there are visible (after __threadfence_system) and the
 * other waits to reach a count; and tagged slots, which carry their own
 * signal (kryl_peer_block_sum: cuda_peer_sum.cu, cuda_cg1_step.cu). */
#ifndef KRYL_CUDA_PEER_CUH
#define KRYL_CUDA_PEER_CUH

#include "backends/cuda/cuda_hooks.h"

/* *flag = count, seen by the other GPUs */
__device__ inline void peer_raise(unsigned long long *flag, unsigned long long count)
{
    *(volatile unsigned long long *)flag = count;
}

/* until *flag >= count */
__device__ inline void peer_wait(const unsigned long long *flag, unsigned long long count)
{
    while (*(const volatile unsigned long long *)flag < count) {
    }
}

/* scalars[0..count) = the sum over ranks of each rank's scalars, in rank
 * order, by one whole block: each rank stores its values straight into
 * every rank's box and waits for every rank's in its own, then adds them in
 * rank order, so every rank gets the same bits.  A value travels as two
 * slots of 8 bytes, each half of it beside the number k of the call (the
 * box's sequence + 1): an 8-byte store reaches the other GPU whole, so a
 * slot that shows k holds its half of call k, and neither side needs a
 * fence (the low-latency protocol of NCCL).  Call k uses the slots of
 * parity k % 2: a rank can start call k + 1 while a slower one still reads
 * call k's, never call k + 2 (that needs the slower rank's values of
 * k + 1, stored after its reads of k). */
__device__ inline void kryl_peer_block_sum(double *scalars, int count, int rank, int size,
                                           kryl_peer_box *const *boxes)
{
    __shared__ unsigned int halves[KRYL_PEER_MAX_RANKS][2 * KRYL_PEER_MAX_SUMS];
    kryl_peer_box *mine = boxes[rank];
    const unsigned long long k = mine->sequence + 1;
    const unsigned long long tag = (k & 0xffffffffull) << 32;
    const int parity = (int)(k % 2);
    const int slots = 2 * count;
    /* my values' halves, tagged, into row `rank` of every rank's box */
    for (int i = threadIdx.x; i < size * slots; i += blockDim.x) {
        const int q = i / slots, h = i % slots;
        const unsigned long long bits = (unsigned long long)__double_as_longlong(scalars[h / 2]);
        const unsigned long long half = h % 2 ? bits >> 32 : bits & 0xffffffffull;
        *(volatile unsigned long long *)&boxes[q]->slots[parity][rank][h] = tag | half;
    }
    /* every rank's halves in my box, once tagged with k */
    for (int i = threadIdx.x; i < size * slots; i += blockDim.x) {
        const int q = i / slots, h = i % slots;
        const volatile unsigned long long *slot = &mine->slots[parity][q][h];
        unsigned long long v;
        do {
            v = *slot;
        } while ((v & ~0xffffffffull) != tag);
        halves[q][h] = (unsigned int)v;
    }
    __syncthreads(); /* also: every thread has read scalars before any writes them */
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
        double sum = 0.0;
        for (int q = 0; q < size; q++)
            sum += __longlong_as_double(
                (long long)(((unsigned long long)halves[q][2 * t + 1] << 32) | halves[q][2 * t]));
        scalars[t] = sum;
    }
    if (threadIdx.x == 0) mine->sequence = k;
}

#endif
