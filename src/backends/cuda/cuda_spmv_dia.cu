/* SpMV of DIA: val[d*stride + i] = a(i, i + offset[d]), 0 outside the
 * matrix (Li & Saad, "GPU-accelerated preconditioned iterative linear
 * solvers", DIA kernel: a thread per row over the diagonals; the loads of
 * one diagonal are coalesced and x is read at unit stride).  ROWS = 2 rows
 * per thread load two values of a diagonal with one vector load. */
#include "backends/cuda/cuda_fmt.cuh"

/* Where a kernel finds the diagonals' offsets.  Loaded: from device memory,
 * DIA_DEPTH diagonals a pass.  Fixed: ND offsets passed by value, one pass,
 * every index a constant, so no load stands before the x loads (H100,
 * 7-point 160^3 in single precision: the product 50-54 against 55-58 us
 * inside a CG solve). */
constexpr int DIA_DEPTH = 8;

struct dia_loaded_offsets {
    static constexpr int DEPTH = DIA_DEPTH;
    const int32_t *offset;
    int ndiag;
    __device__ int count() const { return ndiag; }
    __device__ int at(int d) const { return __ldg(offset + d); }
};

template <int ND> struct dia_fixed_offsets {
    static constexpr int DEPTH = ND;
    int32_t offset[ND];
    __device__ static constexpr int count() { return ND; }
    __device__ int at(int d) const { return offset[d]; }
};

/* The diagonal counts with a kernel of their own (1-D, 2-D 5-point and
 * 3-D 7-point stencils). */
template <typename F> static bool dia_with_fixed_count(int64_t ndiag, F &&f)
{
    switch (ndiag) {
    case 3: f(std::integral_constant<int, 3>{}); return true;
    case 5: f(std::integral_constant<int, 5>{}); return true;
    case 7: f(std::integral_constant<int, 7>{}); return true;
    default: return false;
    }
}

/* y_i = alpha sum_d val[d*stride + i] x[i + offset[d]] + beta z_i for rows
 * i = ROWS*t .. ROWS*t + ROWS - 1 */
template <typename T, int ROWS, typename M, typename O>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void dia_kernel(
    int64_t nrows, int64_t ncols, int64_t stride, O offsets, const T *__restrict__ val, const T *x,
    double alpha, double beta, const T *z, T *y, const int32_t *stop)
{
    constexpr int DEPTH = O::DEPTH;
    if (stop && *stop) return;
    const int64_t i0 = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) * ROWS;
    if (i0 >= nrows) return;
    const int ndiag = offsets.count();
    double sum[ROWS] = {};
    for (int d0 = 0; d0 < ndiag; d0 += DEPTH) {
        /* every load of the pass issued before any is used: the slots past
         * the last diagonal load that diagonal again (a cache hit, not
         * used), since loads behind a branch each wait for the one before
         * (H100, 7-point 160^3 in single precision: 53 against 61 us) */
        T a[DEPTH][ROWS];
        int off[DEPTH];
#pragma unroll
        for (int q = 0; q < DEPTH; q++) {
            const int d = min(d0 + q, ndiag - 1);
            off[q] = offsets.at(d);
            fmt_load<M::A>(val + (int64_t)d * stride + i0, a[q]);
        }
        /* the x loads (x_0 for j outside the matrix: no branch), then
         * sum_r += a(i0 + r, j) x_j, j = i0 + r + offset inside the matrix */
        T xv[DEPTH][ROWS];
        bool in[DEPTH][ROWS];
#pragma unroll
        for (int q = 0; q < DEPTH; q++) {
#pragma unroll
            for (int r = 0; r < ROWS; r++) {
                const int64_t j = i0 + r + off[q];
                in[q][r] = d0 + q < ndiag && j >= 0 && j < ncols;
                xv[q][r] = fmt_load1<M::X>(x + (in[q][r] ? j : 0));
            }
        }
#pragma unroll
        for (int q = 0; q < DEPTH; q++)
#pragma unroll
            for (int r = 0; r < ROWS; r++)
                if (in[q][r]) sum[r] += (double)a[q][r] * (double)xv[q][r];
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        if (i0 + r < nrows) fmt_store(y, z, i0 + r, alpha, beta, sum[r]);
}

template <typename T, int ROWS, typename M, typename O>
static void launch_dia(const cuda_fmt *m, const cuda_fmt_args *a, O offsets)
{
    const unsigned int blocks = kryl_cuda_blocks((m->nrows + ROWS - 1) / ROWS, UINT32_MAX);
    dia_kernel<T, ROWS, M, O><<<blocks, KRYL_CUDA_THREADS, 0, a->stream>>>(
        m->nrows, m->ncols, m->stride, offsets, static_cast<const T *>(m->val),
        static_cast<const T *>(a->x), a->alpha, a->beta, static_cast<const T *>(a->z),
        static_cast<T *>(a->y), a->stop);
}

template <typename T, int ROWS, typename M>
static void launch_dia_offsets(const cuda_fmt *m, const cuda_fmt_args *a)
{
    const bool fixed = dia_with_fixed_count(m->ndiag, [&](auto nd) {
        dia_fixed_offsets<decltype(nd)::value> o;
        /* |offset| < n < 2^31 */
        for (int d = 0; d < nd; d++) o.offset[d] = (int32_t)m->offset_host[d];
        launch_dia<T, ROWS, M>(m, a, o);
    });
    if (!fixed) launch_dia<T, ROWS, M>(m, a, dia_loaded_offsets{m->offset, (int)m->ndiag});
}

kryl_status kryl_cuda_spmv_dia(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    kryl_cuda_with_type(p, [&](auto t) {
        using T = decltype(t);
        fmt_with_loads(m, [&](auto loads) {
            using M = decltype(loads);
            if (m->variant == 2)
                launch_dia_offsets<T, 2, M>(m, a);
            else
                launch_dia_offsets<T, 1, M>(m, a);
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("the dia kernel");
    return KRYL_SUCCESS;
}
