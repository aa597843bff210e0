/* Running sums on the device (row offsets from row counts), by cub's scan
 * with a workspace of its own. */
#ifndef KRYL_BACKENDS_CUDA_SCAN_CUH
#define KRYL_BACKENDS_CUDA_SCAN_CUH

#include <cub/cub.cuh>

#include "backends/cuda/cuda_internal.cuh"

/* out[0] = 0, out[1..count] = the running sums of in (cub's scan). */
template <typename T>
static kryl_status kryl_cuda_running_sums(kryl_cuda_state *s, const T *in, T *out, int64_t count)
{
    void *temp = nullptr;
    size_t bytes = 0;
    kryl_status st = KRYL_SUCCESS;
    CUDA_STEP(st, cudaMemsetAsync(out, 0, sizeof *out, s->stream));
    CUDA_STEP(st,
              cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out + 1, (int)count, s->stream));
    KRYL_STEP(st, kryl_cuda_malloc(s, &temp, bytes, "a scan's workspace"));
    CUDA_STEP(st, cub::DeviceScan::InclusiveSum(temp, bytes, in, out + 1, (int)count, s->stream));
    kryl_cuda_free(s, temp);
    return st;
}

#endif
