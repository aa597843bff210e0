/* Sparse triangular solves on the device: the factor is split and checked
 * on the host exactly as the ref backend does (ref_trsv.c), its
 * off-diagonal entries by row, diagonal and level schedule are copied to
 * the device, and setup picks the solve path (cuda_trsv_choose.cu): level
 * by level (cuda_trsv_levels.cu), synchronisation-free
 * (cuda_trsv_syncfree.cu) or on the host (cuda_trsv_host.cu). */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_trsv.cuh"

const char *kryl_cuda_trsv_path_name(kryl_cuda_trsv_path_kind path)
{
    switch (path) {
    case KRYL_CUDA_TRSV_LEVELS: return "levels";
    case KRYL_CUDA_TRSV_SYNCFREE: return "syncfree";
    case KRYL_CUDA_TRSV_HOST: return "host";
    default: return "auto";
    }
}

const char *kryl_cuda_trsv_path(kryl_context ctx, const void *handle)
{
    (void)ctx;
    const cuda_trsv *D = static_cast<const cuda_trsv *>(handle);
    return D ? kryl_cuda_trsv_path_name(D->path) : "none";
}

/* Free the device copy of the factor (the host path does not need it). */
static void release_device_arrays(kryl_cuda_state *s, cuda_trsv *D)
{
    kryl_cuda_free(s, D->ptr);
    kryl_cuda_free(s, D->col);
    kryl_cuda_free(s, D->val);
    kryl_cuda_free(s, D->diag);
    kryl_cuda_free(s, D->rows);
    D->ptr = nullptr;
    D->col = nullptr;
    D->val = D->diag = nullptr;
    D->rows = nullptr;
}

void kryl_cuda_trsv_release(kryl_context ctx, void *handle)
{
    cuda_trsv *D = static_cast<cuda_trsv *>(handle);
    kryl_cuda_state *s = nullptr;
    if (D == nullptr || kryl_cuda_enter(ctx, &s) != KRYL_SUCCESS) return;
    release_device_arrays(s, D);
    kryl_cuda_free(s, D->ticket);
    kryl_cuda_trsv_host_release(D);
    free(D->level_ptr);
    free(D);
}

/* *dst = a device copy of bytes from host src (at least one byte allocated) */
static kryl_status device_copy(kryl_cuda_state *s, void **dst, const void *src, size_t bytes,
                               const char *what)
{
    KRYL_TRY(kryl_cuda_malloc(s, dst, bytes > 0 ? bytes : 1, what));
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
    KRYL_TRY(device_copy(s, (void **)&D->ptr, H->ptr, (size_t)(n + 1) * sizeof *H->ptr,
                         "the triangular factor's row offsets"));
    KRYL_TRY(device_copy(s, (void **)&D->col, H->col, (size_t)nnz * sizeof *H->col,
                         "the triangular factor's column indices"));
    KRYL_TRY(device_copy(s, &D->val, H->val, (size_t)nnz * real, "the triangular factor's values"));
    if (H->diag)
        KRYL_TRY(device_copy(s, &D->diag, H->diag, (size_t)n * real,
                             "the triangular factor's diagonal"));
    KRYL_TRY(device_copy(s, (void **)&D->rows, H->rows, (size_t)n * sizeof *H->rows,
                         "the triangular factor's level order"));
    /* the host split may be freed after this: wait for its copies */
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}

/* D's level schedule (host copy) and its widest level. */
static kryl_status describe_levels(cuda_trsv *D, const int64_t *level_ptr, int64_t nlevels)
{
    D->nlevels = nlevels;
    D->level_ptr = static_cast<int64_t *>(malloc((size_t)(nlevels + 1) * sizeof(int64_t)));
    if (D->level_ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda trsv_setup: cannot allocate %lld levels",
                          (long long)nlevels);
    D->level_ptr[0] = 0;
    if (nlevels > 0) memcpy(D->level_ptr, level_ptr, (size_t)(nlevels + 1) * sizeof(int64_t));
    for (int64_t l = 0; l < D->nlevels; l++) {
        const int64_t rows = D->level_ptr[l + 1] - D->level_ptr[l];
        if (rows > D->max_level_rows) D->max_level_rows = rows;
    }
    return KRYL_SUCCESS;
}

/* D's sizes and level schedule from the host split H. */
static kryl_status describe(const kryl_host_trsv *H, cuda_trsv *D)
{
    D->n = H->n;
    D->nnz = H->ptr[H->n];
    D->lower = H->lower;
    D->precision = H->precision;
    D->lanes = lanes_for(D->nnz, H->n);
    return describe_levels(D, H->level_ptr, H->nlevels);
}

/* The path KRYL_TRSV_PATH asks for (AUTO when unset or "auto"). */
static kryl_status path_from_environment(kryl_cuda_trsv_path_kind *path)
{
    *path = KRYL_CUDA_TRSV_AUTO;
    const char *name = getenv("KRYL_TRSV_PATH");
    if (name == nullptr || name[0] == '\0') return KRYL_SUCCESS;
    for (int p = 0; p < KRYL_CUDA_TRSV_PATHS; p++)
        if (strcmp(name, kryl_cuda_trsv_path_name((kryl_cuda_trsv_path_kind)p)) == 0) {
            *path = (kryl_cuda_trsv_path_kind)p;
            return KRYL_SUCCESS;
        }
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                      "KRYL_TRSV_PATH=\"%s\": expected auto, levels, syncfree or host", name);
}

/* Build D from the host split H (D takes H): device arrays, the choice
 * (which sets up what its candidate paths need), then whatever the chosen
 * path does not use is freed. */
static kryl_status build(kryl_context ctx, kryl_cuda_state *s, kryl_host_trsv *H, cuda_trsv *D,
                         kryl_cuda_trsv_path_kind requested)
{
    D->host = H;
    KRYL_TRY(describe(H, D));
    KRYL_TRY(upload(s, H, D));
    KRYL_TRY(kryl_cuda_trsv_choose(ctx, s, D, requested));
    if (D->path != KRYL_CUDA_TRSV_HOST) kryl_cuda_trsv_host_release(D);
    if (D->path != KRYL_CUDA_TRSV_SYNCFREE) {
        kryl_cuda_free(s, D->ticket);
        D->ticket = nullptr;
    }
    if (D->path == KRYL_CUDA_TRSV_HOST) release_device_arrays(s, D);
    return KRYL_SUCCESS;
}

/* trsv_setup by `path`. */
static kryl_status setup_with(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                              bool lower, bool unit_diagonal, const int32_t *level_rows,
                              const int64_t *level_ptr, int64_t nlevels,
                              kryl_cuda_trsv_path_kind path, void **handle)
{
    KRYL_REQUIRE_ARG(handle);
    *handle = nullptr;
    KRYL_REQUIRE_ARG(T);
    if ((int)path < 0 || (int)path >= KRYL_CUDA_TRSV_PATHS)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda trsv_setup: path %d: expected auto, levels, syncfree or host",
                          (int)path);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (path == KRYL_CUDA_TRSV_AUTO) KRYL_TRY(path_from_environment(&path));
    void *host = nullptr;
    KRYL_TRY(kryl_ref_trsv_setup(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr,
                                 nlevels, &host));
    cuda_trsv *D = static_cast<cuda_trsv *>(calloc(1, sizeof *D));
    if (D == nullptr) {
        kryl_ref_trsv_release(ctx, host);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda trsv_setup: out of memory");
    }
    kryl_status st = build(ctx, s, static_cast<kryl_host_trsv *>(host), D, path);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_trsv_release(ctx, D);
        return st;
    }
    *handle = D;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_trsv_setup_path(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                      bool lower, bool unit_diagonal, const int32_t *level_rows,
                                      const int64_t *level_ptr, int64_t nlevels,
                                      kryl_cuda_trsv_path_kind path, void **handle)
{
    return setup_with(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr, nlevels, path,
                      handle);
}

kryl_status kryl_cuda_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                 bool lower, bool unit_diagonal, const int32_t *level_rows,
                                 const int64_t *level_ptr, int64_t nlevels, void **handle)
{
    return setup_with(ctx, T, precision, lower, unit_diagonal, level_rows, level_ptr, nlevels,
                      KRYL_CUDA_TRSV_AUTO, handle);
}

kryl_status kryl_cuda_trsv_adopt(kryl_context ctx, kryl_cuda_state *s, cuda_trsv *D,
                                 const int64_t *level_ptr, int64_t nlevels)
{
    D->device_only = true;
    D->lanes = lanes_for(D->nnz, D->n);
    KRYL_TRY(describe_levels(D, level_ptr, nlevels));
    kryl_cuda_trsv_path_kind path = KRYL_CUDA_TRSV_AUTO;
    KRYL_TRY(path_from_environment(&path));
    if (path == KRYL_CUDA_TRSV_HOST) path = KRYL_CUDA_TRSV_AUTO;
    KRYL_TRY(kryl_cuda_trsv_choose(ctx, s, D, path));
    if (D->path != KRYL_CUDA_TRSV_SYNCFREE) {
        kryl_cuda_free(s, D->ticket);
        D->ticket = nullptr;
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_trsv_run(kryl_cuda_state *s, cuda_trsv *D, const void *b, void *x)
{
    switch (D->path) {
    case KRYL_CUDA_TRSV_SYNCFREE: return kryl_cuda_trsv_syncfree(s, D, b, x);
    case KRYL_CUDA_TRSV_HOST: return kryl_cuda_trsv_host(s, D, b, x);
    default: return kryl_cuda_trsv_levels(s, D, b, x);
    }
}

kryl_status kryl_cuda_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_TRY(kryl_cuda_check_vectors("trsv", b, x));
    cuda_trsv *D = static_cast<cuda_trsv *>(handle);
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
    /* x = T^{-1} b */
    return kryl_cuda_trsv_run(s, D, b->data, x->data);
}
