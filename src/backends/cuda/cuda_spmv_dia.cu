/* SpMV of DIA: val[d*stride + i] = a(i, i + offset[d]), 0 outside the
 * matrix (Li & Saad, "GPU-accelerated preconditioned iterative linear
 * solvers", DIA kernel: a thread per row over the diagonals; the loads of
 * one diagonal are coalesced and x is read at unit stride).  ROWS = 2 rows
 * per thread load two values of a diagonal with one vector load. */
#include "backends/cuda/cuda_fmt.cuh"

/* Diagonals whose values a thread loads before it uses any. */
constexpr int DIA_DEPTH = 8;

/* y_i = alpha sum_d val[d*stride + i] x[i + offset[d]] + beta z_i for rows
 * i = ROWS*t .. ROWS*t + ROWS - 1 */
template <typename T, int ROWS, typename M>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void dia_kernel(
    int64_t nrows, int64_t ncols, int64_t stride, int ndiag, const int32_t *__restrict__ offset,
    const T *__restrict__ val, const T *x, double alpha, double beta, const T *z, T *y,
    const int32_t *stop)
{
    if (stop && *stop) return;
    const int64_t i0 = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) * ROWS;
    if (i0 >= nrows) return;
    double sum[ROWS] = {};
    for (int d0 = 0; d0 < ndiag; d0 += DIA_DEPTH) {
        /* every load of the pass issued before any is used: the slots past
         * the last diagonal load that diagonal again (a cache hit, not
         * used), since loads behind a branch each wait for the one before
         * (H100, 7-point 160^3 in single precision: 53 against 61 us) */
        T a[DIA_DEPTH][ROWS];
        int off[DIA_DEPTH];
#pragma unroll
        for (int q = 0; q < DIA_DEPTH; q++) {
            const int d = min(d0 + q, ndiag - 1);
            off[q] = __ldg(offset + d);
            fmt_load<M::A>(val + (int64_t)d * stride + i0, a[q]);
        }
        /* the x loads (x_0 for j outside the matrix: no branch), then
         * sum_r += a(i0 + r, j) x_j, j = i0 + r + offset inside the matrix */
        T xv[DIA_DEPTH][ROWS];
        bool in[DIA_DEPTH][ROWS];
#pragma unroll
        for (int q = 0; q < DIA_DEPTH; q++) {
#pragma unroll
            for (int r = 0; r < ROWS; r++) {
                const int64_t j = i0 + r + off[q];
                in[q][r] = d0 + q < ndiag && j >= 0 && j < ncols;
                xv[q][r] = fmt_load1<M::X>(x + (in[q][r] ? j : 0));
            }
        }
#pragma unroll
        for (int q = 0; q < DIA_DEPTH; q++)
#pragma unroll
            for (int r = 0; r < ROWS; r++)
                if (in[q][r]) sum[r] += (double)a[q][r] * (double)xv[q][r];
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        if (i0 + r < nrows) fmt_store(y, z, i0 + r, alpha, beta, sum[r]);
}

kryl_status kryl_cuda_spmv_dia(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    const int rows = m->variant == 2 ? 2 : 1;
    const unsigned int blocks = kryl_cuda_blocks((m->nrows + rows - 1) / rows, UINT32_MAX);
    kryl_cuda_with_type(p, [&](auto t) {
        using T = decltype(t);
        const T *x = static_cast<const T *>(a->x), *z = static_cast<const T *>(a->z);
        const T *val = static_cast<const T *>(m->val);
        T *y = static_cast<T *>(a->y);
        fmt_with_loads(m, [&](auto loads) {
            using M = decltype(loads);
            if (rows == 2)
                dia_kernel<T, 2, M><<<blocks, KRYL_CUDA_THREADS, 0, a->stream>>>(
                    m->nrows, m->ncols, m->stride, (int)m->ndiag, m->offset, val, x, a->alpha,
                    a->beta, z, y, a->stop);
            else
                dia_kernel<T, 1, M><<<blocks, KRYL_CUDA_THREADS, 0, a->stream>>>(
                    m->nrows, m->ncols, m->stride, (int)m->ndiag, m->offset, val, x, a->alpha,
                    a->beta, z, y, a->stop);
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("the dia kernel");
    return KRYL_SUCCESS;
}
