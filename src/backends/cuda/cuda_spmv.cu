/* The SpMV kernels of the cuda backend, y = alpha*A*x + beta*z.
 *
 * Two kernels, templated over the value type T (float, double) and the
 * row-offset type I (int32 below 2^31 entries, else int64):
 *   - vector: LANES = 1..32 threads per row (1: a thread per row); each lane
 *     first issues the loads of its first VECTOR_DEPTH entries, then
 *     multiplies, and the lanes add with warp shuffles (CSR-vector, Bell and
 *     Garland, "Implementing sparse matrix-vector multiplication on
 *     throughput-oriented processors", SC09, with the lane count chosen from
 *     the row lengths as in CSR-Adaptive's CSR-vector).
 *   - stream: a block takes a run of whole rows holding at most STREAM_NNZ
 *     entries, forms their products a_k*x_col(k) with fully coalesced reads
 *     into shared memory, then sums each row there; a longer row has a block
 *     to itself (CSR-stream / CSR-vectorL of CSR-Adaptive, Greathouse and
 *     Daga, "Efficient sparse matrix-vector multiplication on GPUs using the
 *     CSR storage format", SC14).  Blocks hold equal work whatever the row
 *     lengths: the choice when a few rows are far longer than the rest.
 * cuda_matrix.cu chooses between them at setup.  Products are summed in
 * double in both precisions, as the ref backend does, and x is read through
 * the read-only data cache. */
#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_fmt.cuh"
#include "backends/cuda/cuda_reduce.cuh"

/* y_row = alpha*sum + beta*z_row (z NULL: alpha*sum) */
template <typename T>
__device__ inline void store_row(T *y, const T *z, int64_t row, double alpha, double beta,
                                 double sum)
{
    y[row] = (T)(z ? alpha * sum + beta * (double)z[row] : alpha * sum);
}

/* y = alpha*A*x + beta*z with LANES threads per row */
template <typename T, typename I, int LANES>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void spmv_vector_kernel(
    int64_t nrows, const I *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
    const T *__restrict__ values, const T *__restrict__ x, double alpha, double beta, const T *z,
    T *y, const int32_t *stop)
{
    if (stop && *stop) return;
    const int64_t row = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES;
    if (row >= nrows) return; /* whole groups leave together */
    const int lane = (int)(threadIdx.x % LANES);
    const double sum = row_sum<T, I, LANES>(row, lane, row_ptr, col_idx, values, x);
    if (lane == 0) store_row(y, z, row, alpha, beta, sum);
}

/* Row groups per thread group of spmv_dot's grid beyond which the plain
 * kernel and a separate dot are faster (kryl_cuda_spmv_dot). */
constexpr int64_t FUSED_ROWS_PER_GROUP = 4;

/* y = A*x and out = x'y (A square), LANES threads per row, the grid striding
 * over the rows so that its block sums fit the reduction's partials */
template <typename T, typename I, int LANES>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void spmv_dot_kernel(
    int64_t nrows, const I *__restrict__ row_ptr, const int32_t *__restrict__ col_idx,
    const T *__restrict__ values, const T *__restrict__ x, T *__restrict__ y, double *out,
    const int32_t *stop, double *partials, unsigned int stride, unsigned int *counter)
{
    if (stop && *stop) return; /* the whole grid leaves */
    const int lane = (int)(threadIdx.x % LANES);
    const int64_t groups = (int64_t)gridDim.x * (KRYL_CUDA_THREADS / LANES);
    double dot[1] = {0.0};
    for (int64_t row = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES; row < nrows;
         row += groups) {
        /* y_row = (A x)_row;  dot += x_row y_row */
        const double sum = row_sum<T, I, LANES>(row, lane, row_ptr, col_idx, values, x);
        if (lane == 0) {
            const T yi = (T)sum;
            y[row] = yi;
            dot[0] += (double)x[row] * (double)yi;
        }
    }
    if (kryl_grid_sum<1>(dot, partials, stride, counter)) *out = dot[0];
}

/* y = alpha*A*x + beta*z over the rows [row_blocks[b], row_blocks[b+1]) of block b */
template <typename T, typename I>
__global__ __launch_bounds__(STREAM_THREADS) void spmv_stream_kernel(
    const int32_t *__restrict__ row_blocks, const I *__restrict__ row_ptr,
    const int32_t *__restrict__ col_idx, const T *__restrict__ values, const T *__restrict__ x,
    double alpha, double beta, const T *z, T *y, const int32_t *stop)
{
    __shared__ double products[STREAM_NNZ];
    if (stop && *stop) return;
    const int first = row_blocks[blockIdx.x], last = row_blocks[blockIdx.x + 1];
    const I begin = row_ptr[first], end = row_ptr[last];
    if (end - begin > STREAM_NNZ) {
        /* one long row: the block sums a_k x_col(k) STREAM_THREADS entries apart */
        double sum[1] = {0.0};
        for (I k = begin + threadIdx.x; k < end; k += STREAM_THREADS)
            sum[0] += (double)values[k] * (double)__ldg(&x[col_idx[k]]);
        kryl_block_sum<1>(sum);
        if (threadIdx.x == 0) store_row(y, z, first, alpha, beta, sum[0]);
        return;
    }
    /* products_k = a_k x_col(k) for the block's entries, read contiguously */
    const int count = (int)(end - begin);
    for (int k = threadIdx.x; k < count; k += STREAM_THREADS)
        products[k] = (double)values[begin + k] * (double)__ldg(&x[col_idx[begin + k]]);
    __syncthreads();
    /* each row summed by the largest power-of-two group that fits the block */
    const int rows = last - first;
    int lanes = 32;
    while (lanes > 1 && lanes * rows > STREAM_THREADS) lanes >>= 1;
    const int local = threadIdx.x / lanes, lane = threadIdx.x & (lanes - 1);
    if (local >= rows) return;
    const int row = first + local;
    const int row_end = (int)(row_ptr[row + 1] - begin);
    double sum = 0.0;
    for (int k = (int)(row_ptr[row] - begin) + lane; k < row_end; k += lanes) sum += products[k];
    sum = group_sum(sum, lanes);
    if (lane == 0) store_row(y, z, row, alpha, beta, sum);
}

template <typename T, typename I, int LANES>
static void launch_vector(const cuda_csr *m, cudaStream_t stream, double alpha, const T *x,
                          double beta, const T *z, T *y, const int32_t *stop)
{
    const int64_t threads = m->nrows * LANES;
    const unsigned int blocks =
        (unsigned int)((threads + KRYL_CUDA_THREADS - 1) / KRYL_CUDA_THREADS);
    spmv_vector_kernel<T, I, LANES><<<blocks, KRYL_CUDA_THREADS, 0, stream>>>(
        m->nrows, static_cast<const I *>(m->row_ptr), m->col_idx, static_cast<const T *>(m->values),
        x, alpha, beta, z, y, stop);
}

template <typename T, typename I>
static void launch_spmv(const cuda_csr *m, cudaStream_t stream, double alpha, const T *x,
                        double beta, const T *z, T *y, const int32_t *stop)
{
    if (m->kernel == KRYL_CUDA_SPMV_STREAM) {
        spmv_stream_kernel<T, I><<<(unsigned int)m->block_count, STREAM_THREADS, 0, stream>>>(
            m->row_blocks, static_cast<const I *>(m->row_ptr), m->col_idx,
            static_cast<const T *>(m->values), x, alpha, beta, z, y, stop);
        return;
    }
    kryl_cuda_with_lanes(m->lanes, [&](auto lanes) {
        launch_vector<T, I, decltype(lanes)::value>(m, stream, alpha, x, beta, z, y, stop);
    });
}

template <typename T, typename I, int LANES>
static void launch_dot(const cuda_csr *m, const kryl_cuda_state *s, const T *x, T *y, double *out,
                       const int32_t *stop)
{
    const unsigned int grid = kryl_cuda_reduce_grid(s, m->nrows * LANES);
    spmv_dot_kernel<T, I, LANES><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
        m->nrows, static_cast<const I *>(m->row_ptr), m->col_idx, static_cast<const T *>(m->values),
        x, y, out, stop, s->partials, s->reduce_blocks, s->counter);
}

template <typename T, typename I>
static void launch_spmv_dot(const cuda_csr *m, const kryl_cuda_state *s, const void *x, void *y,
                            double *out, const int32_t *stop)
{
    const T *xt = static_cast<const T *>(x);
    T *yt = static_cast<T *>(y);
    kryl_cuda_with_lanes(m->lanes, [&](auto lanes) {
        launch_dot<T, I, decltype(lanes)::value>(m, s, xt, yt, out, stop);
    });
}

template <typename T>
static void launch_spmv_offsets(const cuda_csr *m, cudaStream_t stream, double alpha, const void *x,
                                double beta, const void *z, void *y, const int32_t *stop)
{
    const T *xt = static_cast<const T *>(x), *zt = static_cast<const T *>(z);
    T *yt = static_cast<T *>(y);
    kryl_cuda_with_offsets(
        m, [&](auto i) { launch_spmv<T, decltype(i)>(m, stream, alpha, xt, beta, zt, yt, stop); });
}

kryl_status kryl_cuda_spmv(kryl_context ctx, kryl_matrix A, double alpha, kryl_vector x,
                           double beta, kryl_vector z, kryl_vector y, const kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(x);
    KRYL_REQUIRE_ARG(y);
    if (A->storage == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda spmv: A has no storage");
    const int64_t nrows = A->fmt.nrows, ncols = A->fmt.ncols;
    if (x->n != ncols || y->n != nrows || (z && z->n != nrows))
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "cuda spmv: A is %lld x %lld but x has %lld, y %lld and z %lld entries",
                          (long long)nrows, (long long)ncols, (long long)x->n, (long long)y->n,
                          z ? (long long)z->n : -1LL);
    if (x->precision != A->precision || y->precision != A->precision ||
        (z && z->precision != A->precision))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda spmv: x, y and z must be %s like A",
                          kryl_precision_name(A->precision));
    if (x->data != nullptr && x->data == y->data)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda spmv: x and y must not be one vector");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (nrows == 0) return KRYL_SUCCESS;
    const int32_t *stop = kryl_cuda_stop_flag(monitor);
    /* beta = 0 reads no z (as in BLAS), so y = A*x costs no read of y */
    const void *zd = z && beta != 0.0 ? z->data : nullptr;
    if (A->fmt.kind != KRYL_FORMAT_CSR) {
        const cuda_fmt_args args = {s->stream, alpha, beta, x->data, zd, y->data, stop};
        return kryl_cuda_fmt_spmv(A, &args);
    }
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    if (A->precision == KRYL_DOUBLE)
        launch_spmv_offsets<double>(m, s->stream, alpha, x->data, beta, zd, y->data, stop);
    else
        launch_spmv_offsets<float>(m, s->stream, alpha, x->data, beta, zd, y->data, stop);
    KRYL_CUDA_CHECK_LAUNCH("the spmv kernel");
    return KRYL_SUCCESS;
}

/* Fused only where the grid of a reduction holds every row group at most
 * FUSED_ROWS_PER_GROUP times: there one launch less is what counts (H100,
 * 2-D 300^2 CG: 18.7 -> 13.5 us per iteration), while a larger matrix
 * streams faster through the plain kernel's one row per group (7-point
 * 160^3: 0.28 ms per CG iteration split, 0.317 ms fused). */
static bool spmv_dot_fused(const kryl_cuda_state *s, kryl_matrix A, const cuda_csr *m)
{
    return m != nullptr && A->fmt.nrows * m->lanes <=
                               FUSED_ROWS_PER_GROUP * (int64_t)s->reduce_blocks * KRYL_CUDA_THREADS;
}

bool kryl_cuda_spmv_dot_fuses(kryl_context ctx, kryl_matrix A)
{
    kryl_cuda_state *s = nullptr;
    return A != nullptr && kryl_cuda_enter(ctx, &s) == KRYL_SUCCESS &&
           spmv_dot_fused(s, A, kryl_cuda_vector_csr(A));
}

kryl_status kryl_cuda_spmv_dot(kryl_context ctx, kryl_matrix A, kryl_vector x, kryl_vector y,
                               kryl_scalar out, const kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(x);
    if (out.ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda spmv_dot: the scalar out is NULL");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const cuda_csr *m = kryl_cuda_vector_csr(A);
    if (!spmv_dot_fused(s, A, m)) {
        /* y = A x;  out = x'y */
        KRYL_TRY(kryl_cuda_spmv(ctx, A, 1.0, x, 0.0, nullptr, y, monitor));
        return kryl_cuda_dot(ctx, x, y, out);
    }
    KRYL_TRY(kryl_cuda_check_vectors("spmv_dot", x, y));
    if (x->n != A->fmt.ncols || x->precision != A->precision)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH,
                          "cuda spmv_dot: A is %lld x %lld %s but x has %lld %s entries",
                          (long long)A->fmt.nrows, (long long)A->fmt.ncols,
                          kryl_precision_name(A->precision), (long long)x->n,
                          kryl_precision_name(x->precision));
    if (x->data == y->data)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda spmv_dot: x and y must not be one vector");
    const int32_t *stop = kryl_cuda_stop_flag(monitor);
    /* y = A x;  out = x'y */
    kryl_cuda_with_type(A->precision, [&](auto t) {
        using T = decltype(t);
        kryl_cuda_with_offsets(m, [&](auto i) {
            launch_spmv_dot<T, decltype(i)>(m, s, x->data, y->data, out.ptr, stop);
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("spmv_dot_kernel");
    return KRYL_SUCCESS;
}
