/* Flags between the GPUs of one host, in memory every rank maps
 * (cuda_peer_sum.cu, cuda_peer_halo.cu): a rank raises a counter in
 * another's memory once the values it stored there are visible (after
 * __threadfence_system), and the other waits until it reaches a count. */
#ifndef KRYL_CUDA_PEER_CUH
#define KRYL_CUDA_PEER_CUH

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

#endif
