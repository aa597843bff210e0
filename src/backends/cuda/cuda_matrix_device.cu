/* The cuda backend's CSR storage built from CSR arrays already on the device
 * (kryl_matrix_create_csr_device): the arrays are checked by kernels, their
 * row length statistics reduced there, and copied device to device (the
 * library's own, built ones taken over instead); the
 * host copy is downloaded from the storage only when a host-side step needs
 * it (kryl_matrix_download).  Also a single-precision copy of such a
 * storage, made device to device (matrix_convert to CSR). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_csr.cuh"
#include "backends/cuda/cuda_reduce.cuh"

/* What the checks found, in device memory: the first row (smallest index)
 * of each kind of fault, ULLONG_MAX where none, and the row lengths' sums. */
enum csr_fault { FAULT_OFFSETS, FAULT_COLUMN, FAULT_ORDER, FAULT_VALUE, FAULTS };
struct csr_check {
    unsigned long long first[FAULTS];
    unsigned long long max_len;
    double sum, sum2;
};

/* row_ptr[0] = 0, row_ptr[n] = nnz and row_ptr[i] <= row_ptr[i+1]: then every
 * offset lies in [0, nnz] and the entries' check may read the rows. */
__global__ void check_offsets_kernel(int64_t n, int64_t nnz, const int64_t *__restrict__ row_ptr,
                                     csr_check *check)
{
    if (blockIdx.x == 0 && threadIdx.x == 0 && (row_ptr[0] != 0 || row_ptr[n] != nnz))
        atomicMin(&check->first[FAULT_OFFSETS], (unsigned long long)n);
    KRYL_CUDA_FOR_EACH(i, n)
    {
        if (row_ptr[i + 1] < row_ptr[i])
            atomicMin(&check->first[FAULT_OFFSETS], (unsigned long long)i);
    }
}

/* Per row: columns in [0, ncols), ascending without repeats, finite values. */
__global__ void check_entries_kernel(int64_t n, int64_t ncols, const int64_t *__restrict__ row_ptr,
                                     const int32_t *__restrict__ col,
                                     const double *__restrict__ val, csr_check *check)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const int64_t begin = row_ptr[i], end = row_ptr[i + 1];
        const unsigned long long row = (unsigned long long)i;
        for (int64_t k = begin; k < end; k++) {
            if (col[k] < 0 || col[k] >= ncols) atomicMin(&check->first[FAULT_COLUMN], row);
            if (k > begin && col[k] <= col[k - 1]) atomicMin(&check->first[FAULT_ORDER], row);
            if (!isfinite(val[k])) atomicMin(&check->first[FAULT_VALUE], row);
        }
    }
}

/* Sum, sum of squares and maximum of the row lengths: the block's first,
 * then one atomic each per block (one per warp contended for the address). */
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void row_lengths_kernel(
    int64_t n, const int64_t *__restrict__ row_ptr, csr_check *check)
{
    double v[2] = {0.0, 0.0};
    unsigned long long longest = 0;
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const unsigned long long len = (unsigned long long)(row_ptr[i + 1] - row_ptr[i]);
        v[0] += (double)len;
        v[1] += (double)len * (double)len;
        longest = len > longest ? len : longest;
    }
    kryl_block_sum<2>(v);
    longest = kryl_block_max(longest);
    if (threadIdx.x == 0) {
        if (longest > 0) {
            atomicAdd(&check->sum, v[0]);
            atomicAdd(&check->sum2, v[1]);
            atomicMax(&check->max_len, longest);
        }
    }
}

/* 32-bit row offsets from 64-bit ones (all below 2^31) */
__global__ void narrow_offsets_kernel(int64_t count, const int64_t *__restrict__ wide,
                                      int32_t *__restrict__ narrow)
{
    KRYL_CUDA_FOR_EACH(i, count) narrow[i] = (int32_t)wide[i];
}

/* 64-bit row offsets from 32-bit ones */
__global__ void widen_offsets_kernel(int64_t count, const int32_t *__restrict__ narrow,
                                     int64_t *__restrict__ wide)
{
    KRYL_CUDA_FOR_EACH(i, count) wide[i] = narrow[i];
}

/* narrow[k] = wide[k] rounded to the nearest float, as the host's (float) cast */
__global__ void narrow_values_kernel(int64_t count, const double *__restrict__ wide,
                                     float *__restrict__ narrow)
{
    KRYL_CUDA_FOR_EACH(k, count) narrow[k] = __double2float_rn(wide[k]);
}

/* *out = the check's result, copied to the host once the kernels are done. */
static kryl_status fetch_check(kryl_cuda_state *s, const csr_check *device, csr_check *out)
{
    KRYL_CUDA_CHECK(cudaMemcpyAsync(out, device, sizeof *out, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* The refusal of the first fault found, naming its row. */
static kryl_status refuse(const csr_check *c, int64_t n, int64_t ncols, int64_t nnz)
{
    const unsigned long long none = ULLONG_MAX;
    if (c->first[FAULT_OFFSETS] == (unsigned long long)n)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "device CSR: row_ptr[0] must be 0 and row_ptr[%lld] = nnz = %lld",
                          (long long)n, (long long)nnz);
    if (c->first[FAULT_OFFSETS] != none)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "device CSR: row_ptr decreases at row %llu",
                          c->first[FAULT_OFFSETS]);
    if (c->first[FAULT_COLUMN] != none)
        return KRYL_ERROR(KRYL_ERR_INDEX_OUT_OF_RANGE,
                          "device CSR: row %llu has a column outside [0, %lld)",
                          c->first[FAULT_COLUMN], (long long)ncols);
    if (c->first[FAULT_ORDER] != none)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "device CSR: the columns of row %llu are not ascending without repeats "
                          "(sort them and sum repeats first, e.g. CuPy's sum_duplicates())",
                          c->first[FAULT_ORDER]);
    if (c->first[FAULT_VALUE] != none)
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE, "device CSR: row %llu has a NaN or Inf value",
                          c->first[FAULT_VALUE]);
    return KRYL_SUCCESS;
}

/* Check the arrays on the device unless `built` (the library's own); m gets
 * the row length statistics. */
static kryl_status check_arrays(kryl_cuda_state *s, cuda_csr *m, const int64_t *row_ptr,
                                const int32_t *col_idx, const double *values, bool built)
{
    csr_check *device = nullptr, found;
    memset(&found, 0xff, sizeof found.first);
    found.max_len = 0;
    found.sum = found.sum2 = 0.0;
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&device, sizeof *device, "the check of device CSR arrays"));
    kryl_status st = KRYL_SUCCESS;
    cudaError_t err =
        cudaMemcpyAsync(device, &found, sizeof found, cudaMemcpyHostToDevice, s->stream);
    if (err != cudaSuccess) st = kryl_cuda_failed(err, "cudaMemcpyAsync", KRYL_WHERE);
    const unsigned int grid = kryl_cuda_stream_grid(s, m->nrows);
    if (st == KRYL_SUCCESS && !built) {
        check_offsets_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(m->nrows, m->nnz, row_ptr,
                                                                        device);
        err = cudaGetLastError();
        if (err != cudaSuccess) st = kryl_cuda_failed(err, "launch of check_offsets", KRYL_WHERE);
        if (st == KRYL_SUCCESS) st = fetch_check(s, device, &found);
        if (st == KRYL_SUCCESS) st = refuse(&found, m->nrows, m->ncols, m->nnz);
        if (st == KRYL_SUCCESS) {
            check_entries_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                m->nrows, m->ncols, row_ptr, col_idx, values, device);
            err = cudaGetLastError();
            if (err != cudaSuccess)
                st = kryl_cuda_failed(err, "launch of check_entries", KRYL_WHERE);
        }
    }
    if (st == KRYL_SUCCESS) {
        row_lengths_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(m->nrows, row_ptr, device);
        err = cudaGetLastError();
        if (err != cudaSuccess) st = kryl_cuda_failed(err, "launch of row_lengths", KRYL_WHERE);
    }
    if (st == KRYL_SUCCESS) st = fetch_check(s, device, &found);
    if (st == KRYL_SUCCESS) st = refuse(&found, m->nrows, m->ncols, m->nnz);
    kryl_cuda_free(s, device);
    if (st != KRYL_SUCCESS) return st;
    const double rows = m->nrows > 0 ? (double)m->nrows : 1.0;
    m->mean = found.sum / rows;
    const double var = found.sum2 / rows - m->mean * m->mean;
    m->sd = var > 0.0 ? sqrt(var) : 0.0;
    m->max_len = (int64_t)found.max_len;
    return KRYL_SUCCESS;
}

/* m->row_ptr (allocated) = row_ptr narrowed to 32 bits (m not wide). */
static kryl_status narrow_row_ptr(kryl_cuda_state *s, cuda_csr *m, const int64_t *row_ptr)
{
    const int64_t offsets = m->nrows + 1;
    KRYL_TRY(kryl_cuda_malloc(s, &m->row_ptr, (size_t)offsets * sizeof(int32_t),
                              "a matrix's row offsets"));
    narrow_offsets_kernel<<<kryl_cuda_stream_grid(s, offsets), KRYL_CUDA_THREADS, 0, s->stream>>>(
        offsets, row_ptr, static_cast<int32_t *>(m->row_ptr));
    KRYL_CUDA_CHECK_LAUNCH("narrow_offsets");
    return KRYL_SUCCESS;
}

/* m's device arrays: copies of the caller's, row offsets narrowed to 32 bits
 * unless m is wide. */
static kryl_status copy_arrays(kryl_cuda_state *s, cuda_csr *m, const int64_t *row_ptr,
                               const int32_t *col_idx, const double *values)
{
    const int64_t offsets = m->nrows + 1;
    if (m->wide) {
        KRYL_TRY(kryl_cuda_malloc(s, &m->row_ptr, (size_t)offsets * sizeof(int64_t),
                                  "a matrix's row offsets"));
        KRYL_CUDA_CHECK(cudaMemcpyAsync(m->row_ptr, row_ptr, (size_t)offsets * sizeof(int64_t),
                                        cudaMemcpyDeviceToDevice, s->stream));
    } else {
        KRYL_TRY(narrow_row_ptr(s, m, row_ptr));
    }
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&m->col_idx, (size_t)m->nnz * sizeof(int32_t),
                              "a matrix's columns"));
    KRYL_TRY(kryl_cuda_malloc(s, &m->values, (size_t)m->nnz * sizeof(double), "a matrix's values"));
    if (m->nnz > 0) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(m->col_idx, col_idx, (size_t)m->nnz * sizeof(int32_t),
                                        cudaMemcpyDeviceToDevice, s->stream));
        KRYL_CUDA_CHECK(cudaMemcpyAsync(m->values, values, (size_t)m->nnz * sizeof(double),
                                        cudaMemcpyDeviceToDevice, s->stream));
    }
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* host row_ptr (n + 1 entries, int64) = m's device row offsets */
static kryl_status download_offsets(kryl_cuda_state *s, const cuda_csr *m, int64_t *row_ptr)
{
    const int64_t offsets = m->nrows + 1;
    if (m->wide) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(row_ptr, m->row_ptr, (size_t)offsets * sizeof(int64_t),
                                        cudaMemcpyDeviceToHost, s->stream));
        KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
        return KRYL_SUCCESS;
    }
    int64_t *wide = nullptr;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&wide, (size_t)offsets * sizeof(int64_t),
                              "64-bit row offsets"));
    widen_offsets_kernel<<<kryl_cuda_stream_grid(s, offsets), KRYL_CUDA_THREADS, 0, s->stream>>>(
        offsets, static_cast<const int32_t *>(m->row_ptr), wide);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(row_ptr, wide, (size_t)offsets * sizeof(int64_t),
                              cudaMemcpyDeviceToHost, s->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
    kryl_cuda_free(s, wide);
    if (err != cudaSuccess) return kryl_cuda_failed(err, "download of the row offsets", KRYL_WHERE);
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_blocks(kryl_cuda_state *s, cuda_csr *m)
{
    if (m->row_blocks != nullptr) return KRYL_SUCCESS;
    kryl_csr h = {};
    h.nrows = h.nrows_global = m->nrows;
    h.ncols = m->ncols;
    h.row_ptr = static_cast<int64_t *>(malloc((size_t)(m->nrows + 1) * sizeof(int64_t)));
    int32_t *blocks = static_cast<int32_t *>(malloc((size_t)(m->nrows + 1) * sizeof(int32_t)));
    kryl_status st = h.row_ptr && blocks ? download_offsets(s, m, h.row_ptr)
                                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                      "cuda: cannot allocate the stream blocks of "
                                                      "%lld rows",
                                                      (long long)m->nrows);
    if (st == KRYL_SUCCESS) {
        m->block_count = kryl_cuda_stream_blocks(&h, blocks);
        const size_t bytes = (size_t)(m->block_count + 1) * sizeof(int32_t);
        st = kryl_cuda_malloc(s, (void **)&m->row_blocks, bytes, "the stream blocks");
        cudaError_t err = cudaSuccess;
        if (st == KRYL_SUCCESS)
            err = cudaMemcpyAsync(m->row_blocks, blocks, bytes, cudaMemcpyHostToDevice, s->stream);
        if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream); /* the copy reads blocks */
        if (st == KRYL_SUCCESS && err != cudaSuccess)
            st = kryl_cuda_failed(err, "upload of the stream blocks", KRYL_WHERE);
    }
    free(h.row_ptr);
    free(blocks);
    return st;
}

/* m's arrays: the built ones taken over, the row offsets narrowed to 32
 * bits unless m is wide; nothing taken on failure. */
static kryl_status take_arrays(kryl_cuda_state *s, cuda_csr *m, int64_t *row_ptr, int32_t *col_idx,
                               double *values)
{
    if (m->wide)
        m->row_ptr = row_ptr;
    else
        KRYL_TRY(narrow_row_ptr(s, m, row_ptr));
    m->col_idx = col_idx;
    m->values = values;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_matrix_setup_device(kryl_context ctx, kryl_matrix A, int64_t *row_ptr,
                                          int32_t *col_idx, double *values, bool built)
{
    const kryl_fmt *f = &A->fmt;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_csr *m = kryl_cuda_csr_new(f->nrows, f->ncols, f->nnz);
    if (m == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate storage");
    kryl_status st = check_arrays(s, m, row_ptr, col_idx, values, built);
    /* the library's own arrays are kept as they are, the caller's copied */
    bool taken = false;
    if (st == KRYL_SUCCESS && built) {
        st = take_arrays(s, m, row_ptr, col_idx, values);
        taken = st == KRYL_SUCCESS;
    } else if (st == KRYL_SUCCESS) {
        st = copy_arrays(s, m, row_ptr, col_idx, values);
    }
    if (st == KRYL_SUCCESS) kryl_cuda_csr_choose_kernel(m);
    /* the stream kernel's blocks need the offsets on the host: made only for it */
    if (st == KRYL_SUCCESS && m->kernel == KRYL_CUDA_SPMV_STREAM) st = kryl_cuda_csr_blocks(s, m);
    if (taken && st == KRYL_SUCCESS && !m->wide) {
        /* the narrowed copy replaces the 64-bit offsets (the stream orders the release) */
        kryl_cuda_free(s, row_ptr);
    } else if (taken && st != KRYL_SUCCESS) {
        /* the caller keeps its arrays on failure: m lets go of the taken ones */
        if (m->wide) m->row_ptr = nullptr;
        m->col_idx = nullptr;
        m->values = nullptr;
    }
    return kryl_cuda_csr_adopt(ctx, s, A, m, st, " from device arrays (no host copy)");
}

/* m's arrays (m sized as f): f's row offsets, columns and stream blocks
 * copied, its values rounded to float. */
static kryl_status copy_rounded(kryl_cuda_state *s, const cuda_csr *f, cuda_csr *m)
{
    const size_t offsets = (size_t)(m->nrows + 1) * (m->wide ? sizeof(int64_t) : sizeof(int32_t));
    KRYL_TRY(kryl_cuda_malloc(s, &m->row_ptr, offsets, "a matrix's row offsets"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&m->col_idx, (size_t)m->nnz * sizeof(int32_t),
                              "a matrix's columns"));
    KRYL_TRY(kryl_cuda_malloc(s, &m->values, (size_t)m->nnz * sizeof(float), "a matrix's values"));
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(m->row_ptr, f->row_ptr, offsets, cudaMemcpyDeviceToDevice, s->stream));
    if (m->nnz > 0) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(m->col_idx, f->col_idx, (size_t)m->nnz * sizeof(int32_t),
                                        cudaMemcpyDeviceToDevice, s->stream));
        /* values: a_k rounded to float */
        narrow_values_kernel<<<kryl_cuda_stream_grid(s, m->nnz), KRYL_CUDA_THREADS, 0, s->stream>>>(
            m->nnz, static_cast<const double *>(f->values), static_cast<float *>(m->values));
        KRYL_CUDA_CHECK_LAUNCH("narrow_values");
    }
    if (f->row_blocks != nullptr) {
        const size_t bytes = (size_t)(f->block_count + 1) * sizeof(int32_t);
        KRYL_TRY(kryl_cuda_malloc(s, (void **)&m->row_blocks, bytes, "the stream blocks"));
        KRYL_CUDA_CHECK(cudaMemcpyAsync(m->row_blocks, f->row_blocks, bytes,
                                        cudaMemcpyDeviceToDevice, s->stream));
        m->block_count = f->block_count;
    }
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_csr_round(kryl_context ctx, kryl_matrix A, kryl_matrix from)
{
    const cuda_csr *f = static_cast<const cuda_csr *>(from->storage);
    if (f == nullptr || from->fmt.kind != KRYL_FORMAT_CSR || from->precision != KRYL_DOUBLE ||
        from->layout->perm != nullptr || A->precision != KRYL_SINGLE || A->fmt.nrows != f->nrows ||
        A->fmt.ncols != f->ncols || A->fmt.nnz != f->nnz)
        return KRYL_ERR_UNSUPPORTED;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_csr *m = kryl_cuda_csr_new(f->nrows, f->ncols, f->nnz);
    if (m == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate storage");
    /* the same pattern: the same statistics and kernel */
    m->mean = f->mean;
    m->sd = f->sd;
    m->max_len = f->max_len;
    kryl_cuda_csr_choose_kernel(m);
    kryl_status st = copy_rounded(s, f, m);
    if (st == KRYL_SUCCESS && m->kernel == KRYL_CUDA_SPMV_STREAM) st = kryl_cuda_csr_blocks(s, m);
    return kryl_cuda_csr_adopt(ctx, s, A, m, st, ", rounded on the device from double");
}

kryl_status kryl_cuda_matrix_download(kryl_context ctx, kryl_matrix A, kryl_csr *csr)
{
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    KRYL_TRY(download_offsets(s, m, csr->row_ptr));
    if (m->nnz > 0) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(csr->col_idx, m->col_idx, (size_t)m->nnz * sizeof(int32_t),
                                        cudaMemcpyDeviceToHost, s->stream));
        KRYL_CUDA_CHECK(cudaMemcpyAsync(csr->values, m->values, (size_t)m->nnz * sizeof(double),
                                        cudaMemcpyDeviceToHost, s->stream));
    }
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_matrix_csr_arrays(kryl_context ctx, kryl_matrix A, int64_t **row_ptr,
                                        bool *row_ptr_copy, int32_t **col_idx, double **values)
{
    const cuda_csr *m = static_cast<const cuda_csr *>(A->storage);
    if (row_ptr) *row_ptr = nullptr;
    if (row_ptr_copy) *row_ptr_copy = false;
    *values = nullptr;
    const bool stored = A->fmt.kind == KRYL_FORMAT_CSR && A->precision == KRYL_DOUBLE &&
                        (kryl_matrix_stored_csr(A) || A->fmt.borrowed);
    if (m == nullptr || !stored)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda matrix_csr_arrays: the matrix is not stored as double CSR of all "
                          "its rows or in its host CSR's order");
    if (col_idx) *col_idx = m->col_idx;
    *values = static_cast<double *>(m->values);
    if (row_ptr == nullptr) return KRYL_SUCCESS;
    if (m->wide) {
        *row_ptr = static_cast<int64_t *>(m->row_ptr);
        return KRYL_SUCCESS;
    }
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const int64_t count = m->nrows + 1;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)row_ptr, (size_t)count * sizeof **row_ptr,
                              "64-bit CSR row offsets"));
    *row_ptr_copy = true;
    widen_offsets_kernel<<<kryl_cuda_stream_grid(s, count), KRYL_CUDA_THREADS, 0, s->stream>>>(
        count, static_cast<const int32_t *>(m->row_ptr), *row_ptr);
    KRYL_CUDA_CHECK_LAUNCH("widen_offsets_kernel");
    return KRYL_SUCCESS;
}
