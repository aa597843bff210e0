/* The checks a method makes of its matrix, run on the device over the CSR
 * storage (backend.h's csr_asymmetry, csr_diagonal and csr_row_sums;
 * csr_unmirrored over CSR arrays there, for the color order built on the
 * device): a matrix created from device arrays is checked without a host
 * copy, and one uploaded from the host without a pass of host threads over
 * it. */
#include <limits.h>
#include <string.h>

#include "backends/cuda/cuda_csr.cuh"

/* What the kernels found, in device memory.  Maxima of nonnegative doubles
 * are kept as their bits, which order as the doubles do; first rows are
 * ULLONG_MAX where none. */
struct csr_findings {
    unsigned long long worst, largest;                /* max |a_ij - a_ji|, max |a_ij| */
    unsigned long long first_zero, first_nonpositive; /* rows of the diagonal check */
    double value;                                     /* a_ii of first_nonpositive */
};

/* Position of column j in the sorted row i, or -1 (binary search). */
template <typename I>
__device__ inline int64_t find_entry(const I *__restrict__ row_ptr, const int32_t *__restrict__ col,
                                     int64_t i, int64_t j)
{
    return kryl_cuda_find_sorted(col, (int64_t)row_ptr[i], (int64_t)row_ptr[i + 1], (int32_t)j);
}

/* max of v over the warp, into lane 0 */
__device__ inline double warp_max(double v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmax(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

/* The row i holding entry k: the last i < n with row_ptr[i] <= k (a binary
 * search of the offsets; row_ptr[n] = nnz > k). */
template <typename I>
__device__ inline int64_t row_of(const I *__restrict__ row_ptr, int64_t n, int64_t k)
{
    /* the first i in [1, n) with row_ptr[i] > k, or n, less one */
    return kryl_cuda_partition_point(1, n, [&](int64_t i) { return (int64_t)row_ptr[i] <= k; }) - 1;
}

/* worst = max |a_ij - a_ji| (a_ji = 0 where row j has no column i) and
 * largest = max |a_ij|, a thread per entry, so that a few very long rows
 * take no longer than many short ones */
template <typename I>
__global__ void asymmetry_kernel(int64_t n, int64_t nnz, const I *__restrict__ row_ptr,
                                 const int32_t *__restrict__ col, const double *__restrict__ val,
                                 csr_findings *found)
{
    double worst = 0.0, largest = 0.0;
    KRYL_CUDA_FOR_EACH(k, nnz)
    {
        const int64_t i = row_of(row_ptr, n, k);
        const int64_t t = find_entry(row_ptr, col, col[k], i);
        const double aji = t < 0 ? 0.0 : val[t];
        worst = fmax(worst, fabs(val[k] - aji));
        largest = fmax(largest, fabs(val[k]));
    }
    worst = warp_max(worst);
    largest = warp_max(largest);
    if ((threadIdx.x & 31) == 0) {
        atomicMax(&found->worst, (unsigned long long)__double_as_longlong(worst));
        atomicMax(&found->largest, (unsigned long long)__double_as_longlong(largest));
    }
}

/* *first = min over the rows i holding an a_ij (j != i) whose row j stores
 * no column i, a thread per entry */
__global__ void unmirrored_kernel(int64_t n, int64_t nnz, const int64_t *__restrict__ row_ptr,
                                  const int32_t *__restrict__ col, unsigned long long *first)
{
    KRYL_CUDA_FOR_EACH(k, nnz)
    {
        const int64_t i = row_of(row_ptr, n, k);
        if (col[k] != i && find_entry(row_ptr, col, col[k], i) < 0)
            atomicMin(first, (unsigned long long)i);
    }
}

/* d_i = a_ii, or 1/a_ii when invert (d may be NULL); the first rows whose
 * a_ii is 0 and not > 0 */
template <typename I>
__global__ void diagonal_kernel(int64_t n, const I *__restrict__ row_ptr,
                                const int32_t *__restrict__ col, const double *__restrict__ val,
                                double *__restrict__ d, bool invert, csr_findings *found)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int64_t k = find_entry(row_ptr, col, i, i);
        const double aii = k < 0 ? 0.0 : val[k];
        if (d) d[i] = invert ? 1.0 / aii : aii;
        if (!(aii > 0.0)) atomicMin(&found->first_nonpositive, (unsigned long long)i);
        if (aii == 0.0) atomicMin(&found->first_zero, (unsigned long long)i);
    }
}

/* d_i = 1/s_i or s_i/|a_ii| (0 where the divisor is 0), s_i = sum_j |a_ij|;
 * the first row with s_i = 0.  A thread per row adds its entries in their
 * order, as the host does, so d has the host's bits. */
template <typename I>
__global__ void row_sums_kernel(int64_t n, const I *__restrict__ row_ptr,
                                const int32_t *__restrict__ col, const double *__restrict__ val,
                                kryl_row_sums what, double *__restrict__ d, csr_findings *found)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        double sum = 0.0, aii = 0.0;
        for (I k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            sum += fabs(val[k]);
            if (col[k] == i) aii = fabs(val[k]);
        }
        if (sum == 0.0) atomicMin(&found->first_zero, (unsigned long long)i);
        if (what == KRYL_ROW_SUMS_INVERSE)
            d[i] = sum == 0.0 ? 0.0 : 1.0 / sum;
        else
            d[i] = aii == 0.0 ? 0.0 : sum / aii;
    }
}

/* found->value = a_rr of the row r the diagonal check stopped at (one thread) */
template <typename I>
__global__ void diagonal_value_kernel(const I *__restrict__ row_ptr,
                                      const int32_t *__restrict__ col,
                                      const double *__restrict__ val, csr_findings *found)
{
    const int64_t r = (int64_t)found->first_nonpositive;
    const int64_t k = find_entry(row_ptr, col, r, r);
    found->value = k < 0 ? 0.0 : val[k];
}

/* The findings record on the device, set to "nothing found". */
static kryl_status findings_start(kryl_cuda_state *s, csr_findings **device)
{
    csr_findings none;
    memset(&none, 0, sizeof none);
    none.first_zero = none.first_nonpositive = ULLONG_MAX;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)device, sizeof none, "the findings of a matrix check"));
    cudaError_t err =
        cudaMemcpyAsync(*device, &none, sizeof none, cudaMemcpyHostToDevice, s->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream); /* the copy reads none */
    if (err == cudaSuccess) return KRYL_SUCCESS;
    kryl_cuda_free(s, *device);
    *device = nullptr;
    return kryl_cuda_failed(err, "upload of a matrix check's findings", KRYL_WHERE);
}

/* *out = the findings once the kernels queued before are done */
static kryl_status findings_fetch(kryl_cuda_state *s, const csr_findings *device, csr_findings *out)
{
    KRYL_CUDA_CHECK(cudaMemcpyAsync(out, device, sizeof *out, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_asymmetry(kryl_context ctx, kryl_matrix A, double *worst, double *largest)
{
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    csr_findings *device = nullptr, found;
    KRYL_TRY(findings_start(s, &device));
    const unsigned int grid = kryl_cuda_stream_grid(s, m->nnz);
    kryl_cuda_with_offsets(m, [&](auto offset) {
        using I = decltype(offset);
        /* worst = max |a_ij - a_ji|, largest = max |a_ij| */
        asymmetry_kernel<I><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            m->nrows, m->nnz, static_cast<const I *>(m->row_ptr), m->col_idx,
            static_cast<const double *>(m->values), device);
    });
    cudaError_t err = cudaGetLastError();
    kryl_status st = err == cudaSuccess ? findings_fetch(s, device, &found)
                                        : kryl_cuda_failed(err, "launch of asymmetry", KRYL_WHERE);
    kryl_cuda_free(s, device);
    if (st != KRYL_SUCCESS) return st;
    memcpy(worst, &found.worst, sizeof *worst); /* the bits of the doubles */
    memcpy(largest, &found.largest, sizeof *largest);
    return KRYL_SUCCESS;
}

/* The diagonal check's kernels on m, then the value at the row it stopped at. */
static kryl_status check_diagonal(kryl_cuda_state *s, const cuda_csr *m, double *d, bool invert,
                                  csr_findings *device, csr_findings *found)
{
    const unsigned int grid = kryl_cuda_stream_grid(s, m->nrows);
    kryl_cuda_with_offsets(m, [&](auto offset) {
        using I = decltype(offset);
        /* d = diag(A) or 1 ./ diag(A); the first zero and nonpositive a_ii */
        diagonal_kernel<I><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            m->nrows, static_cast<const I *>(m->row_ptr), m->col_idx,
            static_cast<const double *>(m->values), d, invert, device);
    });
    KRYL_CUDA_CHECK_LAUNCH("diagonal");
    KRYL_TRY(findings_fetch(s, device, found));
    if (found->first_nonpositive >= (unsigned long long)m->nrows) return KRYL_SUCCESS;
    kryl_cuda_with_offsets(m, [&](auto offset) {
        using I = decltype(offset);
        /* value = a_rr of that row */
        diagonal_value_kernel<I>
            <<<1, 1, 0, s->stream>>>(static_cast<const I *>(m->row_ptr), m->col_idx,
                                     static_cast<const double *>(m->values), device);
    });
    KRYL_CUDA_CHECK_LAUNCH("diagonal_value");
    return findings_fetch(s, device, found);
}

kryl_status kryl_cuda_csr_diagonal(kryl_context ctx, kryl_matrix A, kryl_vector d, bool invert,
                                   kryl_diagonal_check *out)
{
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (d != nullptr && (d->precision != KRYL_DOUBLE || d->n != m->nrows))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "csr_diagonal: d has %lld %s entries, expected %lld doubles",
                          (long long)d->n, kryl_precision_name(d->precision), (long long)m->nrows);
    csr_findings *device = nullptr, found;
    KRYL_TRY(findings_start(s, &device));
    kryl_status st =
        check_diagonal(s, m, d ? static_cast<double *>(d->data) : nullptr, invert, device, &found);
    kryl_cuda_free(s, device);
    if (st != KRYL_SUCCESS) return st;
    const unsigned long long n = (unsigned long long)m->nrows;
    out->first_zero = (int64_t)(found.first_zero < n ? found.first_zero : n);
    out->first_nonpositive = (int64_t)(found.first_nonpositive < n ? found.first_nonpositive : n);
    out->value = found.first_nonpositive < n ? found.value : 0.0;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_row_sums(kryl_context ctx, kryl_matrix A, kryl_row_sums what,
                                   kryl_vector d, int64_t *zero_row)
{
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (d->precision != KRYL_DOUBLE || d->n != m->nrows)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "csr_row_sums: d has %lld %s entries, expected %lld doubles",
                          (long long)d->n, kryl_precision_name(d->precision), (long long)m->nrows);
    csr_findings *device = nullptr, found;
    KRYL_TRY(findings_start(s, &device));
    const unsigned int grid = kryl_cuda_stream_grid(s, m->nrows);
    kryl_cuda_with_offsets(m, [&](auto offset) {
        using I = decltype(offset);
        /* d_i = 1 / sum_j |a_ij|, or sum_j |a_ij| / |a_ii|; the first zero sum */
        row_sums_kernel<I><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            m->nrows, static_cast<const I *>(m->row_ptr), m->col_idx,
            static_cast<const double *>(m->values), what, static_cast<double *>(d->data), device);
    });
    cudaError_t err = cudaGetLastError();
    kryl_status st = err == cudaSuccess ? findings_fetch(s, device, &found)
                                        : kryl_cuda_failed(err, "launch of row_sums", KRYL_WHERE);
    kryl_cuda_free(s, device);
    if (st == KRYL_SUCCESS)
        *zero_row =
            found.first_zero < (unsigned long long)m->nrows ? (int64_t)found.first_zero : -1;
    return st;
}

kryl_status kryl_cuda_csr_unmirrored(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                     const int32_t *col_idx, int64_t *row)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    *row = -1;
    if (n == 0) return KRYL_SUCCESS;
    csr_findings *device = nullptr, found;
    KRYL_TRY(findings_start(s, &device));
    int64_t nnz = 0;
    cudaError_t err =
        cudaMemcpyAsync(&nnz, row_ptr + n, sizeof nnz, cudaMemcpyDeviceToHost, s->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
    if (err == cudaSuccess && nnz > 0) {
        /* first_zero = the first row with an entry whose mirror is not stored */
        unmirrored_kernel<<<kryl_cuda_stream_grid(s, nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
            n, nnz, row_ptr, col_idx, &device->first_zero);
        err = cudaGetLastError();
    }
    kryl_status st = err == cudaSuccess ? findings_fetch(s, device, &found)
                                        : kryl_cuda_failed(err, "the pattern check", KRYL_WHERE);
    kryl_cuda_free(s, device);
    if (st == KRYL_SUCCESS && found.first_zero != ULLONG_MAX) *row = (int64_t)found.first_zero;
    return st;
}
