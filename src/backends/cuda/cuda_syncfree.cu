/* What the synchronisation-free sweeps (cuda_syncfree.cuh) share beyond
 * the sweep itself: the largest word one published (the top level, the
 * last color). */
#include "backends/cuda/cuda_syncfree.cuh"

/* top[0] = max(top[0], the largest of word[0 .. n)), a block's max at a time */
__global__ void largest_word_kernel(int64_t n, const unsigned int *__restrict__ word,
                                    unsigned long long *top)
{
    unsigned int m = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        m = word[i] > m ? word[i] : m;
    m = kryl_group_reduce(m, 32, [](unsigned int a, unsigned int b) { return a > b ? a : b; });
    __shared__ unsigned int warp_max[KRYL_CUDA_THREADS / 32];
    if ((threadIdx.x & 31u) == 0) warp_max[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < KRYL_CUDA_THREADS / 32; w++) m = warp_max[w] > m ? warp_max[w] : m;
        atomicMax(top, (unsigned long long)m);
    }
}

kryl_status kryl_cuda_largest_word(kryl_cuda_state *s, int64_t n, const unsigned int *word,
                                   unsigned long long *scratch, unsigned int *largest)
{
    KRYL_CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof *scratch, s->stream));
    /* scratch = max_i word[i] */
    largest_word_kernel<<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(n, word,
                                                                                          scratch);
    KRYL_CUDA_CHECK_LAUNCH("largest_word_kernel");
    unsigned long long top = 0;
    KRYL_CUDA_CHECK(cudaMemcpyAsync(&top, scratch, sizeof top, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    *largest = (unsigned int)top;
    return KRYL_SUCCESS;
}
