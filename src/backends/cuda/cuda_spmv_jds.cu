/* SpMV of jagged diagonals: rows sorted by decreasing length, entry d of row
 * r at [diag_ptr[d] + r] (Cevahir et al. 2009, "Fast conjugate gradients
 * with multiple GPUs", ICCS).  Two kernels:
 *   - row (default): a thread per row walks its diagonals, the "CSR-like"
 *     multiplication of fig. 3, on diagonals padded to multiples of 32 so a
 *     warp's loads are coalesced; groups of very long rows are split over
 *     several warps (cuda_fmt.cuh);
 *   - diagonal: the plain JDS product of fig. 2, one launch per jagged
 *     diagonal and a thread per entry, adding into a sum per row kept in
 *     double, then y = alpha*sum + beta*z.
 * Both add a row's products in diagonal order. */
#include "backends/cuda/cuda_fmt.cuh"

/* Where JDS keeps row r's entries. */
struct jds_layout {
    const int64_t *diag_ptr;
    const int32_t *row_len;

    __device__ int length(int64_t r) const { return __ldg(row_len + r); }
    __device__ int64_t base(int64_t r) const { return r; }
    __device__ int64_t at(int64_t b, int d) const { return __ldg(diag_ptr + d) + b; }
};

/* acc_r (first: =, else +=) a_rd x_col(rd) for the rows r < rows that have a
 * d-th entry, at [start + r] */
template <typename T, typename M>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void jds_diagonal_kernel(
    int64_t rows, int64_t start, bool first, const int32_t *__restrict__ col,
    const T *__restrict__ val, const T *x, double *acc, const int32_t *stop)
{
    if (stop && *stop) return;
    const int64_t r = (int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x;
    if (r >= rows) return;
    const double product = (double)fmt_load1<M::A>(val + start + r) *
                           (double)fmt_load1<M::X>(x + fmt_load1<M::A>(col + start + r));
    acc[r] = first ? product : acc[r] + product;
}

/* y_r = alpha*acc_r + beta*z_r; rows past `filled` (no entry) have acc_r = 0 */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void jds_diagonal_finish(
    int64_t nrows, int64_t filled, const double *acc, double alpha, double beta, const T *z, T *y,
    const int32_t *stop)
{
    if (stop && *stop) return;
    const int64_t r = (int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x;
    if (r < nrows) fmt_store(y, z, r, alpha, beta, r < filled ? acc[r] : 0.0);
}

static kryl_status launch_diagonals(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    kryl_cuda_with_type(p, [&](auto t) {
        using T = decltype(t);
        const T *x = static_cast<const T *>(a->x), *val = static_cast<const T *>(m->val);
        fmt_with_loads(m, [&](auto loads) {
            for (int64_t d = 0; d < m->ndiag; d++) {
                const int64_t rows = m->diag_rows[d];
                jds_diagonal_kernel<T, decltype(loads)>
                    <<<kryl_cuda_blocks(rows, UINT32_MAX), KRYL_CUDA_THREADS, 0, a->stream>>>(
                        rows, m->diag_start[d], d == 0, m->col, val, x, m->acc, a->stop);
            }
        });
        jds_diagonal_finish<T>
            <<<kryl_cuda_blocks(m->nrows, UINT32_MAX), KRYL_CUDA_THREADS, 0, a->stream>>>(
                m->nrows, m->ndiag > 0 ? m->diag_rows[0] : 0, m->acc, a->alpha, a->beta,
                static_cast<const T *>(a->z), static_cast<T *>(a->y), a->stop);
    });
    KRYL_CUDA_CHECK_LAUNCH("the per-diagonal jds kernels");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_spmv_jds(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    if (m->variant == KRYL_CUDA_FMT_JDS_DIAGONAL) return launch_diagonals(m, p, a);
    const jds_layout layout = {m->ptr, m->row_len};
    return fmt_launch_slab(m, p, a, layout);
}
