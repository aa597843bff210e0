/* The level-scheduled path of the device triangular solves (Li & Saad 2013,
 * sections 4.1-4.2, Algorithm 1): one kernel per level on the context's
 * stream; each row of the level gets a group of lanes (up to a warp) that
 * reduces its sum over already solved entries of x, and the group's first
 * lane divides by the diagonal. */
#include "backends/cuda/cuda_trsv.cuh"

/* x_i = (b_i - sum_{j != i} t_ij x_j) / t_ii for the rows i of one level,
 * `lanes` threads per row summing in double (Li & Saad 2013, section 4.2) */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void trsv_level_kernel(
    int64_t count, const int32_t *__restrict__ rows, const int64_t *__restrict__ ptr,
    const int32_t *__restrict__ col, const T *__restrict__ val, const T *__restrict__ diag,
    const T *__restrict__ b, T *x, int lanes)
{
    const int64_t slot = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / lanes;
    const int lane = (int)(threadIdx.x & (unsigned)(lanes - 1));
    const int64_t i = slot < count ? rows[slot] : 0;
    double sum = 0.0;
    if (slot < count)
        for (int64_t k = ptr[i] + lane; k < ptr[i + 1]; k += lanes)
            sum += (double)val[k] * (double)x[col[k]];
    /* every lane of the warp takes part in the reduction, in or past the level */
    for (int offset = lanes / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
    if (slot < count && lane == 0) {
        const double r = (double)b[i] - sum;
        x[i] = (T)(diag ? r / (double)diag[i] : r);
    }
}

kryl_status kryl_cuda_trsv_levels(kryl_cuda_state *s, const cuda_trsv *D, const void *b, void *x)
{
    /* x = T^{-1} b, level after level */
    for (int64_t l = 0; l < D->nlevels; l++) {
        const int64_t first = D->level_ptr[l], count = D->level_ptr[l + 1] - first;
        if (count == 0) continue;
        const unsigned int grid = kryl_cuda_blocks(count * D->lanes, 0x7fffffffu);
        kryl_cuda_with_type(D->precision, [&](auto t) {
            using T = decltype(t);
            trsv_level_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                count, D->rows + first, D->ptr, D->col, static_cast<const T *>(D->val),
                static_cast<const T *>(D->diag), static_cast<const T *>(b), static_cast<T *>(x),
                D->lanes);
        });
        KRYL_CUDA_CHECK_LAUNCH("trsv_level_kernel");
    }
    return KRYL_SUCCESS;
}
