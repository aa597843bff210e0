/* Setup of the cuda backend's CSR storage: the host CSR copied to the device
 * in the matrix's precision, row-length statistics, the stream kernel's row
 * blocks, and the choice of SpMV kernel (see cuda_spmv.cu). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/cuda/cuda_csr.cuh"

static void free_storage(cuda_csr *m)
{
    if (m == nullptr) return;
    cudaFree(m->row_ptr);
    cudaFree(m->col_idx);
    cudaFree(m->values);
    cudaFree(m->row_blocks);
    cudaGetLastError();
    free(m);
}

/* *dst = a device copy of bytes from host src */
static kryl_status device_copy(kryl_cuda_state *s, void **dst, const void *src, size_t bytes)
{
    KRYL_TRY(kryl_cuda_malloc(s, dst, bytes));
    if (bytes)
        KRYL_CUDA_CHECK(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, s->stream));
    return KRYL_SUCCESS;
}

/* Mean, standard deviation and maximum of the row lengths. */
static void row_statistics(const kryl_csr *h, cuda_csr *m)
{
    double sum = 0.0, sum2 = 0.0;
    m->max_len = 0;
    for (int64_t i = 0; i < h->nrows; i++) {
        int64_t len = h->row_ptr[i + 1] - h->row_ptr[i];
        sum += (double)len;
        sum2 += (double)len * (double)len;
        if (len > m->max_len) m->max_len = len;
    }
    double n = h->nrows > 0 ? (double)h->nrows : 1.0;
    m->mean = sum / n;
    double var = sum2 / n - m->mean * m->mean;
    m->sd = var > 0.0 ? sqrt(var) : 0.0;
}

/* Split the rows into stream blocks: consecutive rows while they hold at most
 * STREAM_NNZ entries and STREAM_THREADS rows; a longer row alone.  blocks has
 * room for nrows + 1 entries; returns the number of blocks. */
static int64_t stream_blocks(const kryl_csr *h, int32_t *blocks)
{
    int64_t count = 0, i = 0;
    while (i < h->nrows) {
        blocks[count++] = (int32_t)i;
        const int64_t first = i;
        if (h->row_ptr[i + 1] - h->row_ptr[i] > STREAM_NNZ) {
            i++;
            continue;
        }
        while (i < h->nrows && i - first < STREAM_THREADS &&
               h->row_ptr[i + 1] - h->row_ptr[first] <= STREAM_NNZ)
            i++;
    }
    blocks[count] = (int32_t)h->nrows;
    return count;
}

/* Lanes per row for the vector kernel, from a typical row length (mean plus
 * one standard deviation): one thread per row while a thread covers it in
 * two rounds of loads (short, uniform rows: the thread's entries share L1
 * lines), else the fewest lanes (a power of two, at most 32) whose first
 * round covers it.  Measured on an H100 (double): 1 lane for the 5- and
 * 7-point stencils, 4 for 9-point, 8 for 27-point, 32 for rows of about a
 * hundred entries. */
static int vector_lanes(double length)
{
    if (length <= 2.0 * VECTOR_DEPTH) return 1;
    int lanes = 2;
    while (lanes < 32 && (double)(lanes * VECTOR_DEPTH) < length) lanes *= 2;
    return lanes;
}

/* The kernel for these row lengths: the vector kernel unless the longest
 * row would keep its group of lanes for more than STREAM_MAX_PASSES rounds of
 * VECTOR_DEPTH loads (a few very long rows among short ones, where the whole
 * kernel would wait for one group): then the load-balanced stream kernel,
 * which gives such a row a block of its own. */
constexpr int STREAM_MAX_PASSES = 8;

static void choose_kernel(cuda_csr *m)
{
    m->lanes = vector_lanes(m->mean + m->sd);
    const int64_t per_pass = (int64_t)m->lanes * VECTOR_DEPTH;
    const bool long_tail = m->max_len > STREAM_MAX_PASSES * per_pass;
    m->kernel = long_tail ? KRYL_CUDA_SPMV_STREAM : KRYL_CUDA_SPMV_VECTOR;
}

/* Copy the host CSR to the device in A's precision (host temporaries freed on return). */
static kryl_status upload_csr(kryl_cuda_state *s, const kryl_csr *h, kryl_precision precision,
                              cuda_csr *m)
{
    const int64_t n = h->nrows, nnz = m->nnz;
    const bool narrow_rows = !m->wide, float_values = precision == KRYL_SINGLE && nnz > 0;
    int32_t *blocks = static_cast<int32_t *>(malloc((size_t)(n + 1) * sizeof(int32_t)));
    int32_t *rows32 =
        narrow_rows ? static_cast<int32_t *>(malloc((size_t)(n + 1) * sizeof(int32_t))) : nullptr;
    float *values32 =
        float_values ? static_cast<float *>(malloc((size_t)nnz * sizeof(float))) : nullptr;
    kryl_status st = KRYL_SUCCESS;
    cudaError_t err;
    if (blocks == nullptr || (narrow_rows && rows32 == nullptr) ||
        (float_values && values32 == nullptr)) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "cuda: cannot allocate host staging for a %lld-row matrix", (long long)n);
        goto done;
    }
    for (int64_t i = 0; narrow_rows && i <= n; i++) rows32[i] = (int32_t)h->row_ptr[i];
    for (int64_t k = 0; float_values && k < nnz; k++) values32[k] = (float)h->values[k];
    m->block_count = stream_blocks(h, blocks);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, &m->row_ptr,
                                narrow_rows ? (const void *)rows32 : (const void *)h->row_ptr,
                                (size_t)(n + 1) * (m->wide ? sizeof(int64_t) : sizeof(int32_t))),
                    done);
    KRYL_CHECK_GOTO(
        st, device_copy(s, (void **)&m->col_idx, h->col_idx, (size_t)nnz * sizeof(int32_t)), done);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, &m->values,
                                float_values ? (const void *)values32 : (const void *)h->values,
                                (size_t)nnz * kryl_precision_size(precision)),
                    done);
    KRYL_CHECK_GOTO(st,
                    device_copy(s, (void **)&m->row_blocks, blocks,
                                (size_t)(m->block_count + 1) * sizeof(int32_t)),
                    done);
done:
    /* the temporaries are read by the copies queued above */
    err = cudaStreamSynchronize(s->stream);
    if (err != cudaSuccess && st == KRYL_SUCCESS)
        st = kryl_cuda_failed(err, "cudaStreamSynchronize", KRYL_WHERE);
    free(blocks);
    free(rows32);
    free(values32);
    return st;
}

static const char *describe(const cuda_csr *m, char *buf, size_t size)
{
    if (m->kernel == KRYL_CUDA_SPMV_STREAM)
        snprintf(buf, size, "stream");
    else if (m->lanes == 1)
        snprintf(buf, size, "scalar");
    else
        snprintf(buf, size, "vector/%d", m->lanes);
    return buf;
}

kryl_status kryl_cuda_matrix_setup(kryl_context ctx, kryl_matrix A)
{
    KRYL_REQUIRE_ARG(A);
    const kryl_csr *h = &A->host->csr;
    /* Rows are kept in their natural order: permuted layouts (A->layout->perm)
     * are not supported yet and are refused. */
    if (A->layout != nullptr && A->layout->perm != nullptr)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED, "cuda: permuted layouts are not supported yet");
    if (h->nrows >= INT32_MAX || h->ncols > (int64_t)INT32_MAX + 1)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "cuda: a %lld x %lld matrix has more rows than 32-bit indices allow",
                          (long long)h->nrows, (long long)h->ncols);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_csr *m = static_cast<cuda_csr *>(calloc(1, sizeof(cuda_csr)));
    if (m == nullptr) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda: cannot allocate storage");
    m->nrows = h->nrows;
    m->ncols = h->ncols;
    m->nnz = kryl_csr_nnz(h);
    /* 32-bit offsets while every offset a kernel forms (an entry's plus a few
     * rounds of lanes) stays below 2^31 */
    m->wide = m->nnz > INT32_MAX - 4096;
    row_statistics(h, m);
    choose_kernel(m);
    kryl_status st = upload_csr(s, h, A->precision, m);
    if (st != KRYL_SUCCESS) {
        free_storage(m);
        return st;
    }
    A->storage = m;
    char name[32];
    kryl_log(ctx, KRYL_LOG_INFO,
             "cuda: spmv kernel %s for %lld rows, %lld entries (row length mean %.2f, sd %.2f, "
             "max %lld), %d-bit offsets, %s",
             describe(m, name, sizeof name), (long long)m->nrows, (long long)m->nnz, m->mean, m->sd,
             (long long)m->max_len, m->wide ? 64 : 32, kryl_precision_name(A->precision));
    return KRYL_SUCCESS;
}

void kryl_cuda_matrix_release(kryl_context ctx, kryl_matrix A)
{
    kryl_cuda_state *s = nullptr;
    if (A == nullptr || A->storage == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    free_storage(static_cast<cuda_csr *>(A->storage));
    A->storage = nullptr;
}

extern "C" kryl_status kryl_cuda_spmv_select(kryl_matrix A, kryl_cuda_spmv_kernel kernel, int lanes)
{
    KRYL_REQUIRE_ARG(A);
    if (A->ctx == nullptr || A->ctx->kind != KRYL_BACKEND_CUDA || A->storage == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda spmv_select: A is not a cuda matrix");
    cuda_csr *m = static_cast<cuda_csr *>(A->storage);
    if (kernel == KRYL_CUDA_SPMV_STREAM) {
        m->kernel = kernel;
        return KRYL_SUCCESS;
    }
    if (kernel != KRYL_CUDA_SPMV_VECTOR || lanes < 1 || lanes > 32 || (lanes & (lanes - 1)))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda spmv_select: kernel %d with %d lanes; expected stream, or vector "
                          "with 1, 2, 4, 8, 16 or 32 lanes",
                          (int)kernel, lanes);
    m->kernel = kernel;
    m->lanes = lanes;
    return KRYL_SUCCESS;
}

extern "C" void kryl_cuda_spmv_describe(kryl_matrix A, char *buf, size_t size)
{
    if (buf == nullptr || size == 0) return;
    if (A == nullptr || A->ctx == nullptr || A->ctx->kind != KRYL_BACKEND_CUDA ||
        A->storage == nullptr) {
        snprintf(buf, size, "none");
        return;
    }
    describe(static_cast<const cuda_csr *>(A->storage), buf, size);
}
