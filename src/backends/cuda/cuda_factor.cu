/* The cuda backend's numeric IC(0) and ILU(0) on a kept pattern
 * (factor_setup, factor_numeric, factor_trsv and factor_release of the
 * operation table) and max |x_i| (amax).
 *
 * The factorization is one launch with a warp per row, synchronisation-
 * free in the manner of the triangular solves (cuda_trsv_syncfree.cu;
 * Liu, Li, Hou & Vinter, Euro-Par 2016): row i of the factor reads only
 * the finished rows j < i of its lower part (the dependencies of the lower
 * triangular solve), so each row waits on those rows' ready flags and is
 * factored by the serial factorization's formulas (src/factor/ic0.c,
 * ilu.c); only the order of a row's sums differs.  Rows are taken in the
 * lower triangle's level order by blocks that draw their positions from a
 * ticket in the order they start, so a row waits only on rows of running
 * or finished blocks (forward progress).  A row that fails (a non-positive
 * or zero pivot) still raises its flag; the first failing row, as the
 * serial factorization meets it, is the smallest, kept by atomicMin.
 *
 * The pattern and level schedules come from the host (factor_setup:
 * uploaded once) or are computed on the device (cuda_factor_analyse.cu).
 * The triangles' solve handles are built once from the device pattern,
 * their offsets counted and summed and their column indices copied on the
 * device from the factor's (IC's U = L^T from the transposed pattern), the
 * path chosen as for any triangle (cuda_trsv_choose.cu, never the host
 * path), and their values gathered from the factor on the device after
 * each factorization. */
#include <cuda/atomic>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_factor.cuh"
#include "backends/cuda/cuda_factor_hooks.h"
#include "backends/cuda/cuda_scan.cuh"
#include "backends/cuda/cuda_trsv.cuh"

extern "C" {
#include "factor/factor_pattern.h"
}

constexpr int WARP = 32;
constexpr unsigned long long NONE = ~0ull;

/* The sum of v over the warp, in every lane (lane 0's order). */
static __device__ double warp_total(double v)
{
    for (int offset = WARP / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return __shfl_sync(0xffffffffu, v, 0);
}

/* The row this warp factors: its position in the level order drawn from
 * the block ticket in the order blocks start; -1 past the last row.  Every
 * thread of the block calls it (a block barrier). */
static __device__ int64_t warp_row(int64_t n, const int32_t *rows, unsigned long long *ticket)
{
    __shared__ unsigned long long block;
    if (threadIdx.x == 0) block = atomicAdd(ticket, 1ull);
    __syncthreads();
    const int64_t slot = (int64_t)block * (blockDim.x / WARP) + threadIdx.x / WARP;
    return slot < n ? rows[slot] : -1;
}

/* Every lane waits until row j is finished; its values are visible after. */
static __device__ void wait_for(int32_t *ready, int64_t j)
{
    cuda::atomic_ref<int32_t, cuda::thread_scope_device> flag(ready[j]);
    while (flag.load(cuda::memory_order_acquire) == 0) {
    }
}

/* Row i is finished: the lanes' stores of it are released with its flag. */
static __device__ void publish(int32_t *ready, int64_t i, int lane)
{
    __threadfence();
    __syncwarp();
    if (lane == 0)
        cuda::atomic_ref<int32_t, cuda::thread_scope_device>(ready[i]).store(
            1, cuda::memory_order_release);
}

/* c = A's values on the pattern: c_q = a[source_q] */
__global__ void gather_kernel(int64_t nnz, const int64_t *__restrict__ source,
                              const double *__restrict__ a, double *__restrict__ c)
{
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < nnz;
         q += (int64_t)gridDim.x * blockDim.x)
        c[q] = a[source[q]];
}

/* sums_i = sum_j |a_ij| from A's values on C's pattern (IC: a_ij of the
 * strict lower part also counts for row j, as a_ji); sums are 0 on entry */
__global__ void row_sums_kernel(int64_t n, bool ic, const int64_t *__restrict__ ptr,
                                const int32_t *__restrict__ col, const double *__restrict__ c,
                                double *sums)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double row = 0.0;
        for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) {
            row += fabs(c[e]);
            if (ic && col[e] < i) atomicAdd(&sums[col[e]], fabs(c[e]));
        }
        atomicAdd(&sums[i], row);
    }
}

/* out = max_i |x_i| (NaN: +Inf) as the bits of a non-negative double,
 * which order as the values do; *out is 0 on entry */
template <typename T>
__global__ void amax_kernel(int64_t n, const T *__restrict__ x, unsigned long long *out)
{
    unsigned long long m = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const double v = fabs((double)x[i]);
        const unsigned long long bits =
            (unsigned long long)__double_as_longlong(isnan(v) ? INFINITY : v);
        m = bits > m ? bits : m;
    }
    for (int offset = WARP / 2; offset > 0; offset /= 2) {
        const unsigned long long other = __shfl_down_sync(0xffffffffu, m, offset);
        m = other > m ? other : m;
    }
    if ((threadIdx.x & (WARP - 1)) == 0) atomicMax(out, m);
}

/* IC(0) of A + shift diag(A), a warp per row in level order:
 * l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj, l_ii = sqrt(a_ii (1 + shift) - sum l_ik^2) */
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void ic0_kernel(
    int64_t n, const int32_t *__restrict__ rows, const int64_t *__restrict__ ptr,
    const int32_t *__restrict__ col, const int64_t *__restrict__ diag, double *val, int32_t *ready,
    unsigned long long *status, double shift)
{
    const int64_t i = warp_row(n, rows, &status[3]);
    const int lane = (int)(threadIdx.x & (WARP - 1));
    if (i < 0) return;
    const int64_t start = ptr[i], dpos = diag[i];
    const double aii = val[dpos];
    int what = aii > 0.0 ? -1 : KRYL_PIVOT_DIAGONAL;
    double d = aii * (1.0 + shift);
    for (int64_t e = start; e < dpos && what < 0; e++) {
        const int64_t j = col[e], jd = diag[j];
        wait_for(ready, j);
        /* the lanes share row j's entries; each finds its column among row i's so far */
        double part = 0.0;
        for (int64_t f = ptr[j] + lane; f < jd; f += WARP) {
            const int64_t k = kryl_cuda_find_sorted(col, start, e, col[f]);
            if (k >= 0) part += val[f] * val[k];
        }
        const double x = (val[e] - warp_total(part)) / val[jd];
        __syncwarp();
        if (lane == 0) val[e] = x;
        __syncwarp();
        d -= x * x;
    }
    if (what < 0 && !(d > 0.0)) what = KRYL_PIVOT_BREAKDOWN;
    if (lane == 0) {
        /* a failing row keeps the value its refusal names */
        val[dpos] = what == KRYL_PIVOT_DIAGONAL ? aii : what == KRYL_PIVOT_BREAKDOWN ? d : sqrt(d);
        if (what >= 0) atomicMin(&status[0], 2ull * (unsigned long long)i + (unsigned)what);
    }
    publish(ready, i, lane);
}

/* ILU(0), a warp per row in level order (IKJ): for each k < i of row i,
 * l_ik = c_ik / u_kk, then c_ij -= l_ik u_kj for the j > k of row k in row i */
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void ilu0_kernel(
    int64_t n, const int32_t *__restrict__ rows, const int64_t *__restrict__ ptr,
    const int32_t *__restrict__ col, const int64_t *__restrict__ diag, double *val, int32_t *ready,
    unsigned long long *status)
{
    const int64_t i = warp_row(n, rows, &status[3]);
    const int lane = (int)(threadIdx.x & (WARP - 1));
    if (i < 0) return;
    const int64_t end = ptr[i + 1], dpos = diag[i];
    for (int64_t e = ptr[i]; e < dpos; e++) {
        const int64_t k = col[e], kd = diag[k];
        wait_for(ready, k);
        const double lik = val[e] / val[kd];
        __syncwarp();
        if (lane == 0) val[e] = lik;
        /* the lanes share row k's upper entries: distinct columns, distinct targets */
        for (int64_t f = kd + 1 + lane; f < ptr[k + 1]; f += WARP) {
            const int64_t q = kryl_cuda_find_sorted(col, e + 1, end, col[f]);
            if (q >= 0) val[q] -= lik * val[f];
        }
        __syncwarp();
    }
    if (lane == 0) {
        const double u = val[dpos];
        if (u == 0.0 || !isfinite(u))
            atomicMin(&status[0], 2ull * (unsigned long long)i + (unsigned)KRYL_PIVOT_BREAKDOWN);
        if (!(u > 0.0)) atomicMin(&status[1], (unsigned long long)i);
    }
    publish(ready, i, lane);
}

/* Where a triangle's entries come from in C. */
enum refill_mode {
    REFILL_LOWER = 0,     /* row i's off-diagonal entries are C's row i from its start */
    REFILL_UPPER = 1,     /* ... from just after C's diagonal (ILU's U) */
    REFILL_TRANSPOSED = 2 /* u_ij = l_ji, found in C's row j (IC's U = L^T) */
};

/* The triangle D's values (in T) from C's: a thread per row */
template <typename T>
__global__ void refill_kernel(int64_t n, int mode, const int64_t *__restrict__ cptr,
                              const int32_t *__restrict__ ccol, const int64_t *__restrict__ cdiag,
                              const double *__restrict__ cval, const int64_t *__restrict__ dptr,
                              const int32_t *__restrict__ dcol, T *__restrict__ dval,
                              T *__restrict__ ddiag)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t first = dptr[i], count = dptr[i + 1] - first;
        if (mode == REFILL_TRANSPOSED) {
            for (int64_t t = 0; t < count; t++) {
                const int64_t j = dcol[first + t];
                const int64_t at = kryl_cuda_find_sorted(ccol, cptr[j], cdiag[j], (int32_t)i);
                dval[first + t] = (T)(at >= 0 ? cval[at] : nan(""));
            }
        } else {
            const int64_t from = mode == REFILL_LOWER ? cptr[i] : cdiag[i] + 1;
            for (int64_t t = 0; t < count; t++) dval[first + t] = (T)cval[from + t];
        }
        if (ddiag) ddiag[i] = (T)cval[cdiag[i]];
    }
}

/* *dst = a device copy of count items of host src. */
template <typename V>
static kryl_status to_device(kryl_cuda_state *s, V **dst, const V *src, int64_t count,
                             const char *what)
{
    const size_t bytes = (size_t)(count > 0 ? count : 1) * sizeof(V);
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(dst), bytes, what));
    if (count > 0)
        KRYL_CUDA_CHECK(cudaMemcpyAsync(*dst, src, (size_t)count * sizeof(V),
                                        cudaMemcpyHostToDevice, s->stream));
    return KRYL_SUCCESS;
}

void kryl_cuda_factor_free(kryl_cuda_state *s, cuda_factor *F)
{
    kryl_cuda_free(s, F->ptr);
    kryl_cuda_free(s, F->col);
    kryl_cuda_free(s, F->diag);
    kryl_cuda_free(s, F->source);
    kryl_cuda_free(s, F->uptr);
    kryl_cuda_free(s, F->ucol);
    for (cuda_schedule &lv : F->levels) {
        kryl_cuda_free(s, lv.rows);
        free(lv.level_ptr);
    }
    kryl_cuda_free(s, F->val);
    kryl_cuda_free(s, F->a);
    kryl_cuda_free(s, F->ready);
    kryl_cuda_free(s, F->sums);
    kryl_cuda_free(s, F->status);
    free(F);
}

void kryl_cuda_factor_release(kryl_context ctx, void *handle)
{
    kryl_cuda_state *s = nullptr;
    if (handle == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    kryl_cuda_factor_free(s, static_cast<cuda_factor *>(handle));
}

kryl_status kryl_cuda_factor_workspace(kryl_cuda_state *s, cuda_factor *F)
{
    const size_t n = (size_t)(F->n > 0 ? F->n : 1), nnz = (size_t)(F->nnz > 0 ? F->nnz : 1);
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&F->val), nnz * sizeof(double),
                              "the factor's values"));
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&F->ready), n * sizeof(int32_t),
                              "the factor's ready flags"));
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&F->sums), n * sizeof(double),
                              "the factored matrix's row sums"));
    if (F->status != nullptr) return KRYL_SUCCESS; /* the analysis's */
    return kryl_cuda_malloc(s, reinterpret_cast<void **>(&F->status),
                            4 * sizeof(unsigned long long), "the factor's pivot status");
}

/* lv = the host schedule's device rows and host level offsets. */
static kryl_status upload_schedule(kryl_cuda_state *s, int64_t n, const kryl_levels *host,
                                   cuda_schedule *lv)
{
    KRYL_TRY(to_device(s, &lv->rows, host->order, n, "a triangle's level order"));
    lv->nlevels = host->nlevels;
    const size_t bytes = ((size_t)host->nlevels + 1) * sizeof *lv->level_ptr;
    lv->level_ptr = static_cast<int64_t *>(malloc(bytes));
    if (lv->level_ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda factor_setup: cannot allocate %d levels",
                          (int)host->nlevels);
    memcpy(lv->level_ptr, host->level_ptr, bytes);
    return KRYL_SUCCESS;
}

/* The device arrays of F from the host pattern. */
static kryl_status upload_pattern(kryl_cuda_state *s, const kryl_factor_pattern *P, cuda_factor *F)
{
    const int64_t n = P->n, nnz = F->nnz;
    KRYL_TRY(to_device(s, &F->ptr, P->ptr, n + 1, "the factor's row offsets"));
    KRYL_TRY(to_device(s, &F->col, P->col, nnz, "the factor's column indices"));
    KRYL_TRY(to_device(s, &F->diag, P->diag, n, "the factor's diagonal positions"));
    KRYL_TRY(to_device(s, &F->source, P->source, nnz, "the factor's value sources"));
    if (F->ic) {
        KRYL_TRY(
            to_device(s, &F->uptr, P->upper.row_ptr, n + 1, "the transposed pattern's offsets"));
        KRYL_TRY(to_device(s, &F->ucol, P->upper.col_idx, nnz, "the transposed pattern's columns"));
    }
    KRYL_TRY(upload_schedule(s, n, &P->levels_L, &F->levels[0]));
    KRYL_TRY(upload_schedule(s, n, &P->levels_U, &F->levels[1]));
    KRYL_TRY(kryl_cuda_factor_workspace(s, F));
    /* the host pattern may change after this: wait for its copies */
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_factor_setup(kryl_context ctx, const kryl_factor_pattern *P, void **handle)
{
    KRYL_REQUIRE_ARG(handle);
    *handle = nullptr;
    KRYL_REQUIRE_ARG(P);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_factor *F = static_cast<cuda_factor *>(calloc(1, sizeof *F));
    if (F == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda factor_setup: out of memory");
    F->ic = P->kind == KRYL_FACTOR_IC0;
    F->n = P->n;
    F->nnz = P->n > 0 ? P->ptr[P->n] : 0;
    F->a_nnz = P->a_nnz;
    kryl_status st = upload_pattern(s, P, F);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_factor_free(s, F);
        return st;
    }
    *handle = F;
    return KRYL_SUCCESS;
}

/* The values F's sources index, on the device: A's stored CSR for a
 * pattern analysed there; else A's values in host CSR order, its CSR
 * storage where that holds them in that order in double, or a copy of the
 * host values. */
static kryl_status device_values(kryl_cuda_state *s, cuda_factor *F, kryl_matrix A,
                                 const double **a)
{
    if (F->stored_sources) {
        const cuda_csr *m = A->fmt.kind == KRYL_FORMAT_CSR && A->precision == KRYL_DOUBLE
                                ? static_cast<const cuda_csr *>(A->storage)
                                : nullptr;
        if (m == nullptr || m->nnz != F->a_nnz)
            return KRYL_ERROR(KRYL_ERR_INTERNAL,
                              "cuda factor_numeric: the pattern was analysed from a stored CSR "
                              "of %lld entries, the matrix is not stored so",
                              (long long)F->a_nnz);
        *a = static_cast<const double *>(m->values);
        return KRYL_SUCCESS;
    }
    const kryl_csr *h = &A->host->csr;
    if (kryl_csr_nnz(h) != F->a_nnz)
        return KRYL_ERROR(KRYL_ERR_INTERNAL,
                          "cuda factor_numeric: the matrix has %lld host entries, the pattern "
                          "was built for %lld",
                          (long long)kryl_csr_nnz(h), (long long)F->a_nnz);
    const double *stored = A->ctx == nullptr || A->ctx->kind != KRYL_BACKEND_CUDA || A->dist
                               ? nullptr
                               : kryl_matrix_stored_values(A);
    if (stored) {
        *a = stored;
        return KRYL_SUCCESS;
    }
    const size_t bytes = (size_t)(F->a_nnz > 0 ? F->a_nnz : 1) * sizeof(double);
    if (F->a == nullptr)
        KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&F->a), bytes,
                                  "a copy of the factored matrix's values"));
    if (F->a_nnz > 0)
        KRYL_CUDA_CHECK(cudaMemcpyAsync(F->a, h->values, (size_t)F->a_nnz * sizeof(double),
                                        cudaMemcpyHostToDevice, s->stream));
    *a = F->a;
    return KRYL_SUCCESS;
}

/* *value = C's value at its diagonal of row (host). */
static kryl_status diagonal_value(kryl_cuda_state *s, const cuda_factor *F, int64_t row,
                                  double *value)
{
    int64_t at = 0;
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(&at, F->diag + row, sizeof at, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(value, F->val + at, sizeof *value, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_factor_numeric(kryl_context ctx, void *handle, kryl_matrix A, double shift,
                                     kryl_factor_pivots *pivots)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_REQUIRE_ARG(pivots);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_factor *F = static_cast<cuda_factor *>(handle);
    *pivots = kryl_factor_pivots{-1, -1, 0.0, -1, 0.0, 0.0};
    if (F->n == 0) return KRYL_SUCCESS;
    const double *a = nullptr;
    KRYL_TRY(device_values(s, F, A, &a));
    const bool ic = F->ic;
    /* ready = 0;  sums = 0;  status = none, none, max 0, ticket 0 */
    KRYL_CUDA_CHECK(cudaMemsetAsync(F->ready, 0, (size_t)F->n * sizeof(int32_t), s->stream));
    KRYL_CUDA_CHECK(cudaMemsetAsync(F->sums, 0, (size_t)F->n * sizeof(double), s->stream));
    KRYL_CUDA_CHECK(cudaMemsetAsync(F->status, 0xff, 2 * sizeof(unsigned long long), s->stream));
    KRYL_CUDA_CHECK(cudaMemsetAsync(F->status + 2, 0, 2 * sizeof(unsigned long long), s->stream));
    /* c = A's values on the pattern */
    gather_kernel<<<kryl_cuda_stream_grid(s, F->nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
        F->nnz, F->source, a, F->val);
    KRYL_CUDA_CHECK_LAUNCH("gather_kernel");
    /* status[2] = ||A||_inf = max_i sum_j |a_ij| */
    row_sums_kernel<<<kryl_cuda_stream_grid(s, F->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        F->n, ic, F->ptr, F->col, F->val, F->sums);
    KRYL_CUDA_CHECK_LAUNCH("row_sums_kernel");
    amax_kernel<double><<<kryl_cuda_stream_grid(s, F->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        F->n, F->sums, F->status + 2);
    KRYL_CUDA_CHECK_LAUNCH("amax_kernel");
    const unsigned int grid = kryl_cuda_blocks(F->n * WARP, 0x7fffffffu);
    /* C = the factor, row by row as the rows it reads are done */
    if (ic) {
        ic0_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            F->n, F->levels[0].rows, F->ptr, F->col, F->diag, F->val, F->ready, F->status, shift);
        KRYL_CUDA_CHECK_LAUNCH("ic0_kernel");
    } else {
        ilu0_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            F->n, F->levels[0].rows, F->ptr, F->col, F->diag, F->val, F->ready, F->status);
        KRYL_CUDA_CHECK_LAUNCH("ilu0_kernel");
    }
    unsigned long long status[3];
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(status, F->status, sizeof status, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(&pivots->norm_inf, &status[2], sizeof pivots->norm_inf);
    if (status[0] != NONE) {
        pivots->row = (int64_t)(status[0] / 2);
        pivots->what = (int)(status[0] % 2);
        return diagonal_value(s, F, pivots->row, &pivots->value);
    }
    if (!F->ic && status[1] != NONE) {
        pivots->nonpositive_row = (int64_t)status[1];
        return diagonal_value(s, F, pivots->nonpositive_row, &pivots->nonpositive_value);
    }
    return KRYL_SUCCESS;
}

/* The triangle D's off-diagonal columns, row i's from scol at its first
 * position: C's row from its start (lower), from just after its diagonal
 * (ILU's upper) or the transposed pattern's row after its diagonal (IC's U) */
__global__ void columns_kernel(int64_t n, int mode, const int64_t *__restrict__ cptr,
                               const int64_t *__restrict__ cdiag, const int64_t *__restrict__ uptr,
                               const int32_t *__restrict__ scol, const int64_t *__restrict__ dptr,
                               int32_t *__restrict__ dcol)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t from = mode == REFILL_LOWER   ? cptr[i]
                             : mode == REFILL_UPPER ? cdiag[i] + 1
                                                    : uptr[i] + 1;
        for (int64_t t = 0; t < dptr[i + 1] - dptr[i]; t++) dcol[dptr[i] + t] = scol[from + t];
    }
}

/* count[i] = the off-diagonal entries of row i of the triangle D:
 * C's row before its diagonal (lower), after it (ILU's upper) or the
 * transposed pattern's row after its diagonal (IC's U) */
__global__ void offdiag_counts_kernel(int64_t n, int mode, const int64_t *__restrict__ cptr,
                                      const int64_t *__restrict__ cdiag,
                                      const int64_t *__restrict__ uptr, int64_t *__restrict__ count)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        count[i] = mode == REFILL_LOWER   ? cdiag[i] - cptr[i]
                   : mode == REFILL_UPPER ? cptr[i + 1] - cdiag[i] - 1
                                          : uptr[i + 1] - uptr[i] - 1;
}

/* D->ptr (device, n + 1) = the offsets of the triangle's off-diagonal
 * entries, D->nnz their number (waits for it); `count` is n entries of
 * scratch. */
static kryl_status offdiag_offsets(kryl_cuda_state *s, const cuda_factor *F, int mode,
                                   int64_t *count, cuda_trsv *D)
{
    const int64_t n = F->n;
    KRYL_CUDA_CHECK(cudaMemsetAsync(D->ptr, 0, sizeof *D->ptr, s->stream));
    D->nnz = 0;
    if (n == 0) return KRYL_SUCCESS;
    offdiag_counts_kernel<<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, mode, F->ptr, F->diag, F->uptr, count);
    KRYL_CUDA_CHECK_LAUNCH("offdiag_counts_kernel");
    /* ptr[i + 1] = count[0] + ... + count[i] */
    KRYL_TRY(kryl_cuda_running_sums(s, count, D->ptr, n));
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(&D->nnz, D->ptr + n, sizeof D->nnz, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* The triangle D's values (and diagonal) = C's, in D's precision. */
static kryl_status refill(kryl_cuda_state *s, const cuda_factor *F, int mode, cuda_trsv *D)
{
    if (F->n == 0) return KRYL_SUCCESS;
    kryl_cuda_with_type(D->precision, [&](auto t) {
        using T = decltype(t);
        refill_kernel<T><<<kryl_cuda_stream_grid(s, F->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            F->n, mode, F->ptr, F->col, F->diag, F->val, D->ptr, D->col, static_cast<T *>(D->val),
            static_cast<T *>(D->diag));
    });
    KRYL_CUDA_CHECK_LAUNCH("refill_kernel");
    return KRYL_SUCCESS;
}

/* D's device arrays from the factor's pattern, its values from C. */
static kryl_status fill_triangle(kryl_cuda_state *s, const cuda_factor *F, int mode, bool unit,
                                 cuda_trsv *D)
{
    const int64_t n = F->n;
    const size_t real = kryl_precision_size(D->precision), slots = (size_t)(n > 0 ? n : 1);
    const cuda_schedule *lv = &F->levels[D->lower ? 0 : 1];
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&D->ptr), (slots + 1) * sizeof *D->ptr,
                              "the triangular factor's row offsets"));
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&D->rows), slots * sizeof *D->rows,
                              "the triangular factor's level order"));
    if (!unit)
        KRYL_TRY(kryl_cuda_malloc(s, &D->diag, slots * real, "the triangular factor's diagonal"));
    int64_t *count = nullptr;
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&count), slots * sizeof *count,
                              "the triangular factor's row counts"));
    const kryl_status st = offdiag_offsets(s, F, mode, count, D);
    kryl_cuda_free(s, count);
    KRYL_TRY(st);
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&D->col),
                              (size_t)(D->nnz > 0 ? D->nnz : 1) * sizeof(int32_t),
                              "the triangular factor's column indices"));
    KRYL_TRY(kryl_cuda_malloc(s, &D->val, (size_t)(D->nnz > 0 ? D->nnz : 1) * real,
                              "the triangular factor's values"));
    if (n == 0) return KRYL_SUCCESS;
    KRYL_CUDA_CHECK(cudaMemcpyAsync(D->rows, lv->rows, (size_t)n * sizeof *D->rows,
                                    cudaMemcpyDeviceToDevice, s->stream));
    /* the triangle's columns from the factor's (or the transposed pattern's) */
    columns_kernel<<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, mode, F->ptr, F->diag, F->uptr, mode == REFILL_TRANSPOSED ? F->ucol : F->col, D->ptr,
        D->col);
    KRYL_CUDA_CHECK_LAUNCH("columns_kernel");
    return refill(s, F, mode, D);
}

kryl_status kryl_cuda_factor_trsv(kryl_context ctx, void *handle, bool lower,
                                  kryl_precision precision, void **trsv)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_REQUIRE_ARG(trsv);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_factor *F = static_cast<cuda_factor *>(handle);
    const bool ic = F->ic;
    const int mode = lower ? REFILL_LOWER : ic ? REFILL_TRANSPOSED : REFILL_UPPER;
    if (*trsv != nullptr) {
        cuda_trsv *D = static_cast<cuda_trsv *>(*trsv);
        if (D->n != F->n || !D->device_only || D->lower != lower)
            return KRYL_ERROR(KRYL_ERR_INTERNAL,
                              "cuda factor_trsv: the triangle (n = %lld) is not this factor's "
                              "%s one (n = %lld)",
                              (long long)D->n, lower ? "lower" : "upper", (long long)F->n);
        /* new values on the kept triangle */
        return refill(s, F, mode, D);
    }
    if (precision != KRYL_DOUBLE && precision != KRYL_SINGLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda factor_trsv: precision %d: expected double or single",
                          (int)precision);
    cuda_trsv *D = static_cast<cuda_trsv *>(calloc(1, sizeof *D));
    if (D == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda factor_trsv: out of memory");
    D->n = F->n;
    D->lower = lower;
    D->precision = precision;
    const cuda_schedule *lv = &F->levels[lower ? 0 : 1];
    /* ILU's L has the unit diagonal implied */
    kryl_status st = fill_triangle(s, F, mode, lower && !ic, D);
    if (st == KRYL_SUCCESS) st = kryl_cuda_trsv_adopt(ctx, s, D, lv->level_ptr, lv->nlevels);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_trsv_release(ctx, D);
        return st;
    }
    *trsv = D;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_amax(kryl_context ctx, kryl_vector x, kryl_scalar out)
{
    KRYL_REQUIRE_ARG(x);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_CUDA_CHECK(cudaMemsetAsync(out.ptr, 0, sizeof(double), s->stream));
    if (x->n == 0) return KRYL_SUCCESS;
    kryl_cuda_with_type(x->precision, [&](auto t) {
        using T = decltype(t);
        amax_kernel<T><<<kryl_cuda_stream_grid(s, x->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            x->n, static_cast<const T *>(x->data), reinterpret_cast<unsigned long long *>(out.ptr));
    });
    KRYL_CUDA_CHECK_LAUNCH("amax_kernel");
    return KRYL_SUCCESS;
}

/* *dst = a host copy (malloc) of count items of device src; NULL on failure. */
template <typename V> static V *to_host(kryl_cuda_state *s, const V *src, int64_t count)
{
    V *dst = static_cast<V *>(malloc((size_t)(count > 0 ? count : 1) * sizeof(V)));
    if (dst != nullptr && count > 0 &&
        cudaMemcpyAsync(dst, src, (size_t)count * sizeof(V), cudaMemcpyDeviceToHost, s->stream) !=
            cudaSuccess) {
        free(dst);
        return nullptr;
    }
    return dst;
}

kryl_status kryl_cuda_factor_download(kryl_context ctx, const void *handle, kryl_factor_pattern *P)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_REQUIRE_ARG(P);
    memset(P, 0, sizeof *P);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const cuda_factor *F = static_cast<const cuda_factor *>(handle);
    const int64_t n = F->n;
    P->kind = F->ic ? KRYL_FACTOR_IC0 : KRYL_FACTOR_ILU0;
    P->n = n;
    P->a_nnz = F->a_nnz;
    P->ptr = to_host(s, F->ptr, n + 1);
    P->col = to_host(s, F->col, F->nnz);
    P->diag = to_host(s, F->diag, n);
    P->source = to_host(s, F->source, F->nnz);
    bool done = P->ptr && P->col && P->diag && P->source;
    if (F->ic) {
        P->upper.nrows = P->upper.ncols = P->upper.nrows_global = n;
        P->upper.row_ptr = to_host(s, F->uptr, n + 1);
        P->upper.col_idx = to_host(s, F->ucol, F->nnz);
        done = done && P->upper.row_ptr && P->upper.col_idx;
    }
    kryl_levels *host[2] = {&P->levels_L, &P->levels_U};
    for (int t = 0; t < 2; t++) {
        const cuda_schedule *lv = &F->levels[t];
        host[t]->nlevels = (int32_t)lv->nlevels;
        host[t]->order = to_host(s, lv->rows, lv->level_ptr ? n : 0);
        host[t]->level_ptr =
            static_cast<int64_t *>(malloc(((size_t)lv->nlevels + 1) * sizeof(int64_t)));
        done = done && host[t]->order && host[t]->level_ptr;
        if (host[t]->level_ptr && lv->level_ptr)
            memcpy(host[t]->level_ptr, lv->level_ptr, ((size_t)lv->nlevels + 1) * sizeof(int64_t));
    }
    const cudaError_t err = cudaStreamSynchronize(s->stream);
    if (done && err == cudaSuccess) return KRYL_SUCCESS;
    kryl_factor_pattern_free(P);
    return err != cudaSuccess
               ? kryl_cuda_failed(err, "cuda factor download", KRYL_WHERE)
               : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda factor download: out of memory");
}

kryl_status kryl_cuda_factor_values(kryl_context ctx, const void *handle, double **values,
                                    int64_t *count)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_REQUIRE_ARG(values);
    KRYL_REQUIRE_ARG(count);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const cuda_factor *F = static_cast<const cuda_factor *>(handle);
    *count = F->nnz;
    *values = to_host(s, F->val, F->nnz);
    const cudaError_t err = cudaStreamSynchronize(s->stream);
    if (*values != nullptr && err == cudaSuccess) return KRYL_SUCCESS;
    free(*values);
    *values = nullptr;
    return err != cudaSuccess
               ? kryl_cuda_failed(err, "cuda factor values download", KRYL_WHERE)
               : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda factor values download: out of memory");
}
