/* Level-scheduled sparse triangular solves on the device (Li & Saad 2013,
 * sections 4.1-4.2): the factor is split and checked on the host exactly as
 * the ref backend does (ref_trsv.c), then its off-diagonal entries by row,
 * diagonal and level schedule are copied to the device.  A solve launches
 * one kernel per level on the context's stream; each row of the level gets
 * a group of lanes (up to a warp) that reduces its sum over already solved
 * entries of x, and the group's first lane divides by the diagonal. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_trsv.cuh"

extern "C" {
#include "backends/ref/ref_trsv.h"
}

/* The device copy of one triangle (the handle). */
struct cuda_trsv {
    int64_t n;
    kryl_precision precision;
    int lanes;          /* threads per row: a power of two, at most a warp */
    int64_t *ptr;       /* device, n + 1: off-diagonal entries of row i at [ptr[i], ptr[i+1]) */
    int32_t *col;       /* device: column of each off-diagonal entry */
    void *val;          /* device: its value, float or double */
    void *diag;         /* device: n diagonal values; NULL: unit diagonal */
    int32_t *rows;      /* device: rows level by level */
    int64_t *level_ptr; /* host, nlevels + 1: level l's rows at rows[level_ptr[l] ..] */
    int64_t nlevels;
};

void kryl_cuda_trsv_release(kryl_context ctx, void *handle)
{
    (void)ctx;
    cuda_trsv *D = static_cast<cuda_trsv *>(handle);
    if (D == nullptr) return;
    cudaFree(D->ptr);
    cudaFree(D->col);
    cudaFree(D->val);
    cudaFree(D->diag);
    cudaFree(D->rows);
    cudaGetLastError();
    free(D->level_ptr);
    free(D);
}

/* *dst = a device copy of bytes from host src (at least one byte allocated) */
static kryl_status device_copy(kryl_cuda_state *s, void **dst, const void *src, size_t bytes)
{
    KRYL_TRY(kryl_cuda_malloc(s, dst, bytes > 0 ? bytes : 1));
    if (bytes > 0)
        KRYL_CUDA_CHECK(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, s->stream));
    return KRYL_SUCCESS;
}

/* Lanes per row: the power of two at least the mean row length, from 2 to a
 * warp (Li & Saad 2013, section 4.2, give each row a warp; short rows of
 * incomplete factors leave most of it idle). */
static int lanes_for(int64_t nnz, int64_t n)
{
    double mean = n > 0 ? (double)nnz / (double)n : 0.0;
    int lanes = 2;
    while (lanes < 32 && lanes < mean) lanes *= 2;
    return lanes;
}

/* Copy the host split H to the device as D. */
static kryl_status upload(kryl_cuda_state *s, const kryl_host_trsv *H, cuda_trsv *D)
{
    const int64_t n = H->n, nnz = H->ptr[n];
    const size_t real = kryl_precision_size(H->precision);
    KRYL_TRY(device_copy(s, (void **)&D->ptr, H->ptr, (size_t)(n + 1) * sizeof *H->ptr));
    KRYL_TRY(device_copy(s, (void **)&D->col, H->col, (size_t)nnz * sizeof *H->col));
    KRYL_TRY(device_copy(s, &D->val, H->val, (size_t)nnz * real));
    if (H->diag) KRYL_TRY(device_copy(s, &D->diag, H->diag, (size_t)n * real));
    KRYL_TRY(device_copy(s, (void **)&D->rows, H->rows, (size_t)n * sizeof *H->rows));
    /* the host split is freed after this: wait for its copies */
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                 bool lower, bool unit_diagonal, const int32_t *level_rows,
                                 const int64_t *level_ptr, int64_t nlevels, void **handle)
{
    KRYL_REQUIRE_ARG(handle);
    *handle = nullptr;
    KRYL_REQUIRE_ARG(T);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    void *host = nullptr;
    KRYL_TRY(kryl_ref_trsv_setup(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr,
                                 nlevels, &host));
    const kryl_host_trsv *H = static_cast<const kryl_host_trsv *>(host);
    cuda_trsv *D = static_cast<cuda_trsv *>(calloc(1, sizeof *D));
    kryl_status st = KRYL_SUCCESS;
    if (D != nullptr) {
        D->n = H->n;
        D->precision = H->precision;
        D->lanes = lanes_for(H->ptr[H->n], H->n);
        D->nlevels = H->nlevels;
        D->level_ptr = static_cast<int64_t *>(malloc((size_t)(H->nlevels + 1) * sizeof(int64_t)));
    }
    if (D == nullptr || D->level_ptr == nullptr)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda trsv_setup: cannot allocate %lld levels",
                        (long long)H->nlevels);
    if (st == KRYL_SUCCESS) {
        memcpy(D->level_ptr, H->level_ptr, (size_t)(H->nlevels + 1) * sizeof(int64_t));
        st = upload(s, H, D);
    }
    if (st == KRYL_SUCCESS)
        kryl_log(ctx, KRYL_LOG_INFO,
                 "cuda trsv: %s triangle, n = %lld, %lld off-diagonal entries, %lld levels, "
                 "%d lanes per row",
                 lower ? "lower" : "upper", (long long)H->n, (long long)H->ptr[H->n],
                 (long long)H->nlevels, D->lanes);
    kryl_ref_trsv_release(ctx, host);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_trsv_release(ctx, D);
        return st;
    }
    *handle = D;
    return KRYL_SUCCESS;
}

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

kryl_status kryl_cuda_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_TRY(kryl_cuda_check_vectors("trsv", b, x));
    const cuda_trsv *D = static_cast<const cuda_trsv *>(handle);
    const bool same = b->data == x->data && D->n > 0;
    if (b->n != D->n || b->precision != D->precision || same)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda trsv: expected two distinct %s vectors of %lld entries, got %s "
                          "vectors of %lld entries%s",
                          kryl_precision_name(D->precision), (long long)D->n,
                          kryl_precision_name(b->precision), (long long)b->n,
                          same ? " sharing their storage" : "");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    /* x = T^{-1} b, level after level */
    for (int64_t l = 0; l < D->nlevels; l++) {
        const int64_t first = D->level_ptr[l], count = D->level_ptr[l + 1] - first;
        if (count == 0) continue;
        const unsigned int grid = kryl_cuda_blocks(count * D->lanes, 0x7fffffffu);
        kryl_cuda_with_type(D->precision, [&](auto t) {
            using T = decltype(t);
            trsv_level_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                count, D->rows + first, D->ptr, D->col, static_cast<const T *>(D->val),
                static_cast<const T *>(D->diag), static_cast<const T *>(b->data),
                static_cast<T *>(x->data), D->lanes);
        });
        KRYL_CUDA_CHECK_LAUNCH("trsv_level_kernel");
    }
    return KRYL_SUCCESS;
}
