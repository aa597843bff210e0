/* Matrices: creation from CSR arrays, conversion, queries and SpMV. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/host_threads.h"
#include "core/setup_clock.h"
#include "order/color_backend.h"
#include "order/order.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

static kryl_status new_layout(const kryl_csr *csr, kryl_layout **layout)
{
    kryl_layout *l = calloc(1, sizeof *l);
    if (l == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a layout");
    l->refs = 1;
    l->n = csr->nrows;
    l->n_global = csr->nrows_global;
    l->row_begin = csr->row_begin;
    *layout = l;
    return KRYL_SUCCESS;
}

static void host_release(kryl_host_matrix *h)
{
    if (h == NULL || --h->refs > 0) return;
    kryl_csr_free(&h->csr);
    free(h->entry_of);
    free(h);
}

/* CSR arrays in backend memory (kryl_matrix_create_csr_device), `built`
 * by the library (kryl_matrix_from_built_csr_device). */
typedef struct device_csr {
    int64_t *row_ptr; /* written only where built: taken over */
    int32_t *col_idx;
    double *values;
    bool built;
} device_csr;

/* Where a new matrix's backend storage comes from, other than its
 * format's host arrays: CSR arrays in backend memory, or another matrix's
 * storage converted there in the format `params` describe (the
 * permutation, in backend memory, comes back in perm_backend). */
typedef struct storage_source {
    const device_csr *device;
    kryl_matrix from;
    const kryl_fmt_params *params;
    int32_t *perm_backend;
} storage_source;

/* A matrix object around a host copy, a layout and a format (taken over,
 * also on failure), with the backend's storage built from the format, or
 * from `src` where given, or left to kryl_matrix_need_storage (defer). */
static kryl_status matrix_new(kryl_matrix *A, kryl_context ctx, kryl_host_matrix *host,
                              kryl_layout *layout, kryl_precision precision, kryl_fmt *fmt,
                              storage_source *src, bool defer)
{
    struct kryl_matrix_s *m = calloc(1, sizeof *m);
    if (m == NULL) {
        kryl_fmt_free(fmt);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a matrix");
    }
    m->ctx = ctx;
    m->host = host;
    m->layout = layout;
    m->precision = precision;
    m->fmt = *fmt;
    memset(fmt, 0, sizeof *fmt);
    m->storage_deferred = defer;
    if (src && src->params) m->params = *src->params;
    const device_csr *device = src ? src->device : NULL;
    kryl_status st =
        defer              ? KRYL_SUCCESS
        : device           ? ctx->ops->matrix_setup_device(ctx, m, device->row_ptr, device->col_idx,
                                                           device->values, device->built)
        : src && src->from ? ctx->ops->matrix_convert(ctx, m, src->from, &src->perm_backend)
                           : ctx->ops->matrix_setup(ctx, m);
    if (st == KRYL_ERR_UNSUPPORTED && src && src->from) {
        /* not converted on the backend: the caller converts on the host */
        kryl_fmt_free(&m->fmt);
        free(m);
        return st;
    }
    if (st != KRYL_SUCCESS) {
        char what[160];
        snprintf(what, sizeof what, "the %s storage of a %lld-row matrix (%lld entries, %s)",
                 kryl_format_name(m->fmt.kind), (long long)m->fmt.nrows, (long long)m->fmt.nnz,
                 kryl_precision_name(precision));
        kryl_fmt_free(&m->fmt);
        free(m);
        /* a format's refusal names the format itself, as kryl_fmt_build's */
        return st == KRYL_ERR_FORMAT_UNSUITABLE ? st : kryl_error_prefix(st, what);
    }
    host->refs++;
    kryl_layout_retain(layout);
    ctx->live_objects++;
    *A = m;
    return KRYL_SUCCESS;
}

/* cols: the owned columns [cols[0], cols[1]) of a matrix whose columns
 * are split unlike its rows, or NULL. */
static kryl_status from_csr(kryl_matrix *A, kryl_context ctx, kryl_csr *csr, bool defer,
                            const int64_t *cols)
{
    *A = NULL;
    kryl_host_matrix *host = calloc(1, sizeof *host);
    kryl_layout *layout = NULL;
    kryl_status st = host ? new_layout(csr, &layout)
                          : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a matrix");
    if (st != KRYL_SUCCESS) {
        free(host);
        kryl_csr_free(csr);
        return st;
    }
    host->refs = 1;
    host->csr = *csr;
    host->asymmetry = -1.0;
    host->threads = kryl_host_threads(ctx);
    host->cols_split = cols != NULL;
    host->col_begin = cols ? cols[0] : csr->row_begin;
    host->col_end = cols ? cols[1] : csr->row_begin + csr->nrows;
    csr->row_ptr = NULL;
    csr->col_idx = NULL;
    csr->values = NULL;
    kryl_fmt fmt;
    kryl_fmt_borrow_csr(&host->csr, &fmt);
    st = matrix_new(A, ctx, host, layout, KRYL_DOUBLE, &fmt, NULL, defer);
    /* the matrix holds its own references (none if it failed: then these free) */
    host_release(host);
    kryl_layout_release(ctx, layout);
    return st;
}

kryl_status kryl_matrix_from_csr(kryl_matrix *A, kryl_context ctx, kryl_csr *csr)
{
    return from_csr(A, ctx, csr, false, NULL);
}

kryl_status kryl_matrix_from_csr_columns(kryl_matrix *A, kryl_context ctx, kryl_csr *csr,
                                         int64_t col_begin, int64_t col_end)
{
    int64_t cols[2] = {col_begin, col_end};
    return from_csr(A, ctx, csr, false, cols);
}

kryl_status kryl_matrix_from_caller_csr(kryl_matrix *A, kryl_context ctx, kryl_csr *csr)
{
    return from_csr(A, ctx, csr, ctx->defer_storage, NULL);
}

kryl_status kryl_matrix_need_storage(kryl_matrix A, const char *why)
{
    if (!A->storage_deferred) return KRYL_SUCCESS;
    kryl_context ctx = A->ctx;
    kryl_status st = ctx->ops->matrix_setup(ctx, A);
    if (st != KRYL_SUCCESS) {
        char what[200];
        snprintf(what, sizeof what,
                 "%s needs the whole %lld-row matrix (%lld entries) in the %s backend's memory",
                 why, (long long)A->fmt.nrows, (long long)A->fmt.nnz, ctx->ops->name);
        return kryl_error_prefix(st, what);
    }
    A->storage_deferred = false;
    kryl_log(ctx, KRYL_LOG_INFO, "kryl: the %s storage of the %lld-row matrix is built for %s",
             ctx->ops->name, (long long)A->fmt.nrows, why);
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_create_csr(kryl_matrix *A, kryl_context ctx, int64_t nrows, int64_t ncols,
                                   int64_t row_begin, int64_t row_end, const int64_t *row_ptr,
                                   const int64_t *col_idx, const double *values)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(row_ptr);
    kryl_csr csr;
    KRYL_TRY(
        kryl_csr_from_arrays(&csr, nrows, ncols, row_begin, row_end, row_ptr, col_idx, values));
    int64_t *entry_of = NULL;
    kryl_status st = kryl_csr_entry_map(&csr, row_ptr, col_idx, &entry_of);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(&csr);
        return st;
    }
    st = kryl_matrix_from_caller_csr(A, ctx, &csr);
    if (st != KRYL_SUCCESS) {
        free(entry_of);
        return st;
    }
    (*A)->host->entry_of = entry_of;
    (*A)->host->entries = row_ptr[row_end - row_begin];
    return KRYL_SUCCESS;
}

/* A matrix over device CSR arrays, its host copy left to be made. */
static kryl_status matrix_from_device(kryl_matrix *A, kryl_context ctx, int64_t nrows,
                                      int64_t ncols, int64_t nnz, const device_csr *device)
{
    if (nrows < 0 || ncols < 0 || nnz < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "a %lld x %lld matrix of %lld entries",
                          (long long)nrows, (long long)ncols, (long long)nnz);
    if (nrows > INT32_MAX || ncols > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "%lld x %lld exceeds the 32-bit index range of rows and columns",
                          (long long)nrows, (long long)ncols);
    if (nnz > 0 && (device->col_idx == NULL || device->values == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%lld entries announced but col_idx or values is NULL", (long long)nnz);
    kryl_host_matrix *host = calloc(1, sizeof *host);
    if (host == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a matrix");
    host->refs = 1;
    host->threads = kryl_host_threads(ctx);
    host->csr.nrows = host->csr.nrows_global = nrows;
    host->csr.ncols = ncols;
    host->asymmetry = -1.0;
    host->entries = nnz;
    kryl_layout *layout = NULL;
    kryl_status st = new_layout(&host->csr, &layout);
    kryl_fmt fmt; /* CSR over the host arrays, which are NULL until made */
    memset(&fmt, 0, sizeof fmt);
    fmt.kind = KRYL_FORMAT_CSR;
    fmt.nrows = nrows;
    fmt.ncols = ncols;
    fmt.nnz = fmt.stored = nnz;
    fmt.borrowed = true;
    storage_source src = {device, NULL, NULL, NULL};
    if (st == KRYL_SUCCESS) st = matrix_new(A, ctx, host, layout, KRYL_DOUBLE, &fmt, &src, false);
    if (st == KRYL_SUCCESS) host->origin = *A;
    host_release(host);
    kryl_layout_release(ctx, layout);
    return st;
}

kryl_status kryl_matrix_create_csr_device(kryl_matrix *A, kryl_context ctx, int64_t nrows,
                                          int64_t ncols, int64_t nnz, const int64_t *row_ptr,
                                          const int32_t *col_idx, const double *values)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(row_ptr);
    if (ctx->dist)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_matrix_create_csr_device: one process only; a distributed "
                          "context takes each rank's rows with kryl_matrix_create_csr");
    if (ctx->ops->matrix_setup_device != NULL) {
        /* the caller's arrays: only read (not built) */
        const device_csr device = {(int64_t *)row_ptr, (int32_t *)col_idx, (double *)values, false};
        return matrix_from_device(A, ctx, nrows, ncols, nnz, &device);
    }
    /* host memory: checked and copied as it is */
    kryl_csr csr;
    KRYL_TRY(kryl_csr_from_sorted_arrays(&csr, nrows, ncols, nnz, row_ptr, col_idx, values));
    return kryl_matrix_from_csr(A, ctx, &csr);
}

kryl_status kryl_matrix_from_built_csr_device(kryl_matrix *A, kryl_context ctx, kryl_backend_csr *M)
{
    *A = NULL;
    kryl_status st;
    if (ctx->ops->matrix_setup_device != NULL) {
        const device_csr device = {M->row_ptr, M->col_idx, M->values, true};
        st = matrix_from_device(A, ctx, M->nrows, M->ncols, M->nnz, &device);
        /* the storage holds the arrays now */
        if (st == KRYL_SUCCESS) *M = (kryl_backend_csr){0};
    } else {
        /* host memory: copied as it is */
        kryl_csr csr;
        st = kryl_csr_from_sorted_arrays(&csr, M->nrows, M->ncols, M->nnz, M->row_ptr, M->col_idx,
                                         M->values);
        if (st == KRYL_SUCCESS) st = kryl_matrix_from_csr(A, ctx, &csr);
    }
    kryl_backend_csr_release(ctx, M);
    return st;
}

kryl_status kryl_matrix_need_host(kryl_matrix A, const char *why)
{
    kryl_host_matrix *h = A->host;
    if (h->values_on) {
        /* new values given on the device: the host copy takes them now */
        kryl_matrix on = h->values_on;
        const double *values = kryl_matrix_stored_values(on);
        const int64_t nnz = kryl_csr_nnz(&h->csr);
        if (values == NULL && nnz > 0)
            return KRYL_ERROR(KRYL_ERR_INTERNAL,
                              "%s: the new values given on the device are no longer in the "
                              "matrix's storage",
                              why);
        KRYL_TRY(on->ctx->ops->download(on->ctx, h->csr.values, values,
                                        (size_t)nnz * sizeof *h->csr.values));
        h->values_on = NULL;
    }
    if (h->csr.row_ptr != NULL) return KRYL_SUCCESS;
    if (h->origin == NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s: the matrix was converted on the device from one since destroyed, "
                          "and no host copy can be made of it",
                          why);
    kryl_matrix origin = h->origin;
    kryl_context ctx = origin->ctx;
    kryl_csr csr;
    KRYL_TRY(kryl_csr_alloc(&csr, h->csr.nrows, h->csr.ncols, h->entries));
    kryl_status st = ctx->ops->matrix_download(ctx, origin, &csr);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(&csr);
        return st;
    }
    h->csr.row_ptr = csr.row_ptr;
    h->csr.col_idx = csr.col_idx;
    h->csr.values = csr.values;
    kryl_fmt_borrow_csr(&h->csr, &origin->fmt);
    snprintf(h->copied_for, sizeof h->copied_for, "%s", why);
    kryl_log(ctx, KRYL_LOG_INFO,
             "kryl: the host copy of the %lld-row matrix created on the device is made for %s",
             (long long)h->csr.nrows, why);
    return KRYL_SUCCESS;
}

void kryl_matrix_drop_host_copy(kryl_matrix A)
{
    kryl_host_matrix *h = A->host;
    const kryl_backend_ops *ops = A->ctx->ops;
    if (A->storage_deferred || ops->memory_info == NULL || ops->matrix_download == NULL ||
        h->refs != 1 || h->origin != NULL || h->entry_of != NULL || h->values_on != NULL ||
        A->fmt.kind != KRYL_FORMAT_CSR || A->fmt.perm != NULL || A->precision != KRYL_DOUBLE)
        return;
    h->entries = kryl_csr_nnz(&h->csr);
    kryl_csr_free(&h->csr);
    /* the format borrowed the freed arrays; need_host lends it the new ones */
    memset(&A->fmt.u, 0, sizeof A->fmt.u);
    h->origin = A;
}

int64_t kryl_matrix_nnz(kryl_matrix A)
{
    const kryl_host_matrix *h = A->host;
    return h->csr.row_ptr ? kryl_csr_nnz(&h->csr) : h->entries;
}

kryl_status kryl_matrix_host_copy(kryl_matrix A, bool *has_copy, const char **why)
{
    KRYL_REQUIRE_ARG(A);
    const kryl_host_matrix *h = A->host;
    if (has_copy) *has_copy = h->csr.row_ptr != NULL;
    if (why) *why = h->origin ? h->copied_for : "";
    return KRYL_SUCCESS;
}

/* The layout of a format: the natural one, or the format's permutation
 * (copied to the backend for the gathers and scatters of vectors). */
static kryl_status format_layout(kryl_context ctx, const kryl_csr *csr, const kryl_fmt *fmt,
                                 kryl_layout **layout)
{
    KRYL_TRY(new_layout(csr, layout));
    kryl_layout *l = *layout;
    if (fmt->perm == NULL) return KRYL_SUCCESS;
    size_t bytes = (size_t)l->n * sizeof(int32_t);
    l->perm = malloc(bytes > 0 ? bytes : 1);
    kryl_status st = l->perm ? ctx->ops->alloc(ctx, (void **)&l->perm_backend, bytes)
                             : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation");
    if (st == KRYL_SUCCESS) {
        memcpy(l->perm, fmt->perm, bytes);
        st = ctx->ops->upload(ctx, l->perm_backend, l->perm, bytes);
    }
    if (st != KRYL_SUCCESS) {
        kryl_layout_release(ctx, l);
        *layout = NULL;
        char what[64];
        snprintf(what, sizeof what, "the row permutation of the %s format",
                 kryl_format_name(fmt->kind));
        kryl_error_prefix(st, what);
    }
    return st;
}

/* B's layout: A->fmt's permutation, on the backend already (taken over). */
static kryl_status permuted_layout(kryl_matrix B, int32_t *perm_backend)
{
    kryl_context ctx = B->ctx;
    kryl_layout *l = NULL;
    kryl_status st = new_layout(&B->host->csr, &l);
    const size_t bytes = (size_t)B->fmt.nrows * sizeof(int32_t);
    if (st == KRYL_SUCCESS) {
        l->perm_backend = perm_backend;
        l->perm = malloc(bytes > 0 ? bytes : 1);
        if (l->perm == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation");
    } else {
        ctx->ops->release(ctx, perm_backend);
    }
    if (st != KRYL_SUCCESS) {
        kryl_layout_release(ctx, l);
        return st;
    }
    memcpy(l->perm, B->fmt.perm, bytes);
    kryl_layout_release(ctx, B->layout);
    B->layout = l;
    return KRYL_SUCCESS;
}

/* B = A in CSR of another precision, its values rounded on the backend
 * from A's storage (double CSR of all its rows in the natural order, of
 * any shape, on one rank): B borrows A's host copy where it has one, and
 * none is made where it has none.  Else KRYL_ERR_UNSUPPORTED without a
 * message (the host converts from its copy).  The host's rounding is
 * the same, but its copy would cross the link (7-point 160^3: 109 ms). */
static kryl_status precision_on_backend(kryl_matrix *B, kryl_matrix A, kryl_precision precision)
{
    kryl_context ctx = A->ctx;
    const kryl_host_matrix *h = A->host;
    bool host_copy = h->csr.row_ptr != NULL;
    if (precision == A->precision || (!host_copy && h->origin == NULL) || A->storage_deferred ||
        A->dist != NULL || ctx->dist != NULL || A->fmt.kind != KRYL_FORMAT_CSR ||
        A->precision != KRYL_DOUBLE || A->layout->perm != NULL)
        return KRYL_ERR_UNSUPPORTED;
    kryl_fmt fmt; /* CSR over the host arrays, as A's: NULL until made */
    if (host_copy) {
        kryl_fmt_borrow_csr(&h->csr, &fmt);
    } else {
        memset(&fmt, 0, sizeof fmt);
        fmt.kind = KRYL_FORMAT_CSR;
        fmt.nrows = h->csr.nrows;
        fmt.ncols = h->csr.ncols;
        fmt.nnz = fmt.stored = h->entries;
        fmt.borrowed = true;
    }
    kryl_layout *layout = NULL;
    KRYL_TRY(new_layout(&h->csr, &layout));
    storage_source src = {NULL, A, NULL, NULL};
    kryl_status st = matrix_new(B, ctx, A->host, layout, precision, &fmt, &src, false);
    kryl_layout_release(ctx, layout); /* B holds its own reference */
    return st;
}

/* B = A in `format`, converted on the backend from A's CSR there (uploaded
 * now where deferred: the solve needs it there too), or
 * KRYL_ERR_UNSUPPORTED without a message where the backend does not. */
static kryl_status convert_on_backend(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                      kryl_format format, const kryl_fmt_params *used)
{
    kryl_context ctx = A->ctx;
    if (ctx->ops->matrix_convert == NULL) return KRYL_ERR_UNSUPPORTED;
    if (format == KRYL_FORMAT_CSR) return precision_on_backend(B, A, precision);
    kryl_setup_enter(ctx, KRYL_SETUP_UPLOAD);
    KRYL_TRY(kryl_matrix_need_storage(A, "a conversion of its storage on the backend"));
    if (!kryl_matrix_natural_csr(A)) return KRYL_ERR_UNSUPPORTED;
    kryl_setup_enter(ctx, KRYL_SETUP_CONVERSION);
    const kryl_csr *csr = &A->host->csr;
    kryl_fmt fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.kind = format;
    fmt.nrows = fmt.ncols = csr->nrows;
    fmt.nnz = kryl_matrix_nnz(A);
    kryl_layout *layout = NULL;
    KRYL_TRY(new_layout(csr, &layout));
    storage_source src = {NULL, A, used, NULL};
    kryl_status st = matrix_new(B, ctx, A->host, layout, precision, &fmt, &src, false);
    kryl_layout_release(ctx, layout); /* B holds its own reference */
    if (st == KRYL_SUCCESS && src.perm_backend) st = permuted_layout(*B, src.perm_backend);
    if (st != KRYL_SUCCESS) kryl_matrix_destroy(B);
    return st;
}

/* st, or, where the device's copies ran out of its memory, KRYL_ERR_UNSUPPORTED:
 * the host's path, which holds one copy of P A P^T there, orders instead. */
static kryl_status host_if_out_of_memory(kryl_context ctx, kryl_status st)
{
    if (st != KRYL_ERR_OUT_OF_MEMORY) return st;
    kryl_log(ctx, KRYL_LOG_INFO, "kryl: --order color on the host: %s", kryl_last_error());
    return KRYL_ERR_UNSUPPORTED;
}

/* B = P A P^T in double CSR, P the color order, colored and copied on the
 * backend from A's CSR there (kryl_order_color_backend) and stored from
 * those arrays; the host gets the permutation only, for B's layout (n
 * indices: the host-side steps of a permuted basis and the map of new
 * values read it).  KRYL_ERR_UNSUPPORTED where the backend does not (the
 * host orders). */
static kryl_status color_on_backend(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                    kryl_format format, const kryl_fmt_params *used)
{
    kryl_context ctx = A->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    if (format != KRYL_FORMAT_CSR || precision != KRYL_DOUBLE || ops->matrix_setup_device == NULL ||
        ops->matrix_csr_arrays == NULL)
        return KRYL_ERR_UNSUPPORTED;
    kryl_setup_enter(ctx, KRYL_SETUP_UPLOAD);
    KRYL_TRY(kryl_matrix_need_storage(A, "an ordering on the backend"));
    int32_t *perm_backend = NULL, ncolors = 0;
    kryl_backend_csr C;
    KRYL_TRY(host_if_out_of_memory(ctx, kryl_order_color_backend(A, &perm_backend, &C, &ncolors)));
    kryl_setup_enter(ctx, KRYL_SETUP_CONVERSION);
    const kryl_csr *csr = &A->host->csr;
    const int64_t n = C.nrows;
    kryl_fmt fmt; /* CSR of P A P^T, its arrays only on the backend */
    memset(&fmt, 0, sizeof fmt);
    fmt.kind = KRYL_FORMAT_CSR;
    fmt.nrows = fmt.ncols = n;
    fmt.nnz = fmt.stored = C.nnz;
    fmt.on_backend = true;
    fmt.perm = malloc((size_t)n * sizeof *fmt.perm);
    kryl_status st = fmt.perm
                         ? ops->download(ctx, fmt.perm, perm_backend, (size_t)n * sizeof *fmt.perm)
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate an ordering");
    kryl_layout *layout = NULL;
    if (st == KRYL_SUCCESS) st = new_layout(csr, &layout);
    const device_csr device = {C.row_ptr, C.col_idx, C.values, true}; /* A's rows, permuted */
    storage_source src = {&device, NULL, used, NULL};
    if (st == KRYL_SUCCESS)
        st = matrix_new(B, ctx, A->host, layout, KRYL_DOUBLE, &fmt, &src, false);
    /* B's storage holds C's arrays now */
    if (st == KRYL_SUCCESS) C = (kryl_backend_csr){0};
    kryl_fmt_free(&fmt); /* emptied by matrix_new */
    kryl_layout_release(ctx, layout);
    kryl_backend_csr_release(ctx, &C);
    /* B's layout takes perm_backend over */
    if (st == KRYL_SUCCESS) {
        st = permuted_layout(*B, perm_backend);
        if (st != KRYL_SUCCESS) kryl_matrix_destroy(B);
    } else {
        ops->release(ctx, perm_backend);
    }
    if (st == KRYL_SUCCESS)
        kryl_log(ctx, KRYL_LOG_INFO,
                 "kryl: color order of %d colors and P A P^T built on the %s backend", (int)ncolors,
                 ops->name);
    return host_if_out_of_memory(ctx, st);
}

kryl_status kryl_matrix_convert(kryl_matrix *B, kryl_matrix A, kryl_precision precision,
                                kryl_format format, const kryl_fmt_params *params,
                                kryl_order_kind order)
{
    KRYL_REQUIRE_ARG(B);
    *B = NULL;
    KRYL_REQUIRE_ARG(A);
    kryl_context ctx = A->ctx;
#ifdef KRYL_HAVE_MPI
    if (A->dist) return kryl_dist_matrix_convert(B, A, precision, format, params, order);
#endif
    if (format < KRYL_FORMAT_CSR || format > KRYL_FORMAT_DIA)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "convert: format %d is not a storage format",
                          (int)format);
    if (!(ctx->ops->formats & (1u << format)))
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED, "the %s backend has no %s SpMV kernel",
                          ctx->ops->name, kryl_format_name(format));
    kryl_fmt_params used;
    if (params)
        used = *params;
    else
        kryl_fmt_params_init(&used);
    used.threads = A->host->threads;
    if (order < KRYL_ORDER_NONE || order > KRYL_ORDER_COLOR)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "convert: ordering %d is not known",
                          (int)order);
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_CONVERSION);
    kryl_status st = order == KRYL_ORDER_NONE ? convert_on_backend(B, A, precision, format, &used)
                     : order == KRYL_ORDER_COLOR ? color_on_backend(B, A, precision, format, &used)
                                                 : KRYL_ERR_UNSUPPORTED;
    if (st != KRYL_ERR_UNSUPPORTED) {
        kryl_setup_leave(ctx, phase);
        return st;
    }
    st = kryl_matrix_need_host(A, "a conversion of its storage");
    if (st != KRYL_SUCCESS) {
        kryl_setup_leave(ctx, phase);
        return st;
    }
    const kryl_csr *csr = &A->host->csr;
    int32_t *perm = NULL; /* the ordering, which the format's own sort composes with */
    kryl_setup_enter(ctx, KRYL_SETUP_ORDERING);
    if (order != KRYL_ORDER_NONE) {
        perm = malloc((size_t)(csr->nrows > 0 ? csr->nrows : 1) * sizeof *perm);
        st = perm ? kryl_order_compute_on(csr, order, used.threads, perm)
                  : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate an ordering");
    }
    kryl_setup_enter(ctx, KRYL_SETUP_CONVERSION);
    kryl_fmt fmt;
    memset(&fmt, 0, sizeof fmt);
    if (st == KRYL_SUCCESS && format == KRYL_FORMAT_CSR && perm == NULL)
        kryl_fmt_borrow_csr(csr, &fmt);
    else if (st == KRYL_SUCCESS)
        st = kryl_fmt_build(csr, format, perm, &used, &fmt);
    free(perm);
    kryl_setup_enter(ctx, KRYL_SETUP_UPLOAD);
    kryl_layout *layout = NULL;
    if (st == KRYL_SUCCESS) st = format_layout(ctx, csr, &fmt, &layout);
    storage_source src = {NULL, NULL, &used, NULL};
    if (st == KRYL_SUCCESS) st = matrix_new(B, ctx, A->host, layout, precision, &fmt, &src, false);
    kryl_fmt_free(&fmt);              /* emptied by matrix_new */
    kryl_layout_release(ctx, layout); /* B holds its own reference */
    kryl_setup_leave(ctx, phase);
    return st;
}

kryl_status kryl_matrix_destroy(kryl_matrix *A)
{
    if (A == NULL || *A == NULL) return KRYL_SUCCESS;
    kryl_matrix m = *A;
    kryl_context ctx = m->ctx;
    if (m->solvers > 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_matrix_destroy: %d solver%s still use%s the matrix; destroy "
                          "them first (the matrix is left as it is)",
                          m->solvers, m->solvers == 1 ? "" : "s", m->solvers == 1 ? "s" : "");
    /* the host copy's values, where they live only in m's storage */
    if (m->host->values_on == m) {
        kryl_status st = kryl_matrix_need_host(m, "a matrix sharing the host copy");
        if (st != KRYL_SUCCESS) return st;
    }
    if (!m->storage_deferred) ctx->ops->matrix_release(ctx, m);
    kryl_fmt_free(&m->fmt);
    free(m->value_source);
    if (m->host->origin == m) m->host->origin = NULL;
    host_release(m->host);
    kryl_layout_release(ctx, m->layout);
    ctx->live_objects--;
    free(m);
    *A = NULL;
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_size(kryl_matrix A, int64_t *nrows, int64_t *ncols, int64_t *nnz)
{
    KRYL_REQUIRE_ARG(A);
    const kryl_csr *csr = &A->host->csr;
    if (nrows) *nrows = csr->nrows_global;
    if (ncols) *ncols = csr->ncols;
    if (nnz) *nnz = kryl_matrix_nnz(A);
#ifdef KRYL_HAVE_MPI
    if (nnz && A->dist) *nnz = kryl_dist_matrix_nnz(A);
#endif
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_csr_view(kryl_matrix A, const int64_t **row_ptr, const int32_t **col_idx,
                                 const double **values)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_TRY(kryl_matrix_need_host(A, "kryl_matrix_csr_view"));
    if (row_ptr) *row_ptr = A->host->csr.row_ptr;
    if (col_idx) *col_idx = A->host->csr.col_idx;
    if (values) *values = A->host->csr.values;
    return KRYL_SUCCESS;
}

/* y = alpha*A*x + beta*y with A's host copy (natural order, double), x
 * and y copied across: a matrix whose storage is deferred is not built
 * for one product. */
static kryl_status host_spmv(kryl_matrix A, double alpha, kryl_vector x, double beta, kryl_vector y)
{
    kryl_context ctx = A->ctx;
    const kryl_csr *c = &A->host->csr;
    double *xh = malloc((size_t)(c->ncols > 0 ? c->ncols : 1) * sizeof *xh);
    double *yh = malloc((size_t)(c->nrows > 0 ? c->nrows : 1) * sizeof *yh);
    kryl_status st = xh && yh ? KRYL_SUCCESS
                              : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                           "spmv: cannot allocate host copies of x and y");
    if (st == KRYL_SUCCESS)
        st = ctx->ops->download(ctx, xh, x->data, (size_t)c->ncols * sizeof *xh);
    if (st == KRYL_SUCCESS && beta != 0.0)
        st = ctx->ops->download(ctx, yh, y->data, (size_t)c->nrows * sizeof *yh);
    if (st == KRYL_SUCCESS) {
        KRYL_HOST_PARALLEL_FOR(A->host->threads)
        for (int64_t i = 0; i < c->nrows; i++) {
            double sum = 0.0;
            for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++)
                sum += c->values[k] * xh[c->col_idx[k]];
            yh[i] = alpha * sum + (beta != 0.0 ? beta * yh[i] : 0.0);
        }
        st = ctx->ops->upload(ctx, y->data, yh, (size_t)c->nrows * sizeof *yh);
    }
    free(xh);
    free(yh);
    return st;
}

kryl_status kryl_matrix_spmv(kryl_matrix A, double alpha, kryl_vector x, double beta, kryl_vector y)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(x);
    KRYL_REQUIRE_ARG(y);
    if (x->ctx != A->ctx || y->ctx != A->ctx)
        return KRYL_ERROR(KRYL_ERR_CONTEXT_MISMATCH, "spmv: operands from different contexts");
    /* a distributed matrix's x holds the columns this rank owns */
    int64_t ncols = A->dist ? A->host->col_end - A->host->col_begin : A->host->csr.ncols;
    if (x->n != ncols || y->n != A->host->csr.nrows)
        return KRYL_ERROR(
            KRYL_ERR_DIMENSION_MISMATCH, "spmv: A is %lld x %lld but x has %lld and y %lld entries",
            (long long)A->host->csr.nrows, (long long)ncols, (long long)x->n, (long long)y->n);
    if (x->precision != A->precision || y->precision != A->precision)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "spmv: A is %s but x is %s and y is %s; convert them first",
                          kryl_precision_name(A->precision), kryl_precision_name(x->precision),
                          kryl_precision_name(y->precision));
    if (x == y)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "spmv: x and y are the same vector; y = alpha*A*x + beta*y needs "
                          "separate vectors");
    if (A->storage_deferred) return host_spmv(A, alpha, x, beta, y);
    /* y = alpha*A*x + beta*y */
    return A->ctx->ops->spmv(A->ctx, A, alpha, x, beta, y, y, NULL);
}

kryl_matrix kryl_matrix_local_part(kryl_matrix A)
{
#ifdef KRYL_HAVE_MPI
    if (A->dist) return kryl_dist_matrix_local(A);
#endif
    return A;
}

kryl_status kryl_matrix_dist_info(kryl_matrix A, kryl_dist_info *info)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(info);
    memset(info, 0, sizeof *info);
    info->size = 1;
    info->rows = A->layout->n;
    info->nnz = kryl_matrix_nnz(A);
#ifdef KRYL_HAVE_MPI
    if (A->ctx->dist) kryl_dist_matrix_info(A, info);
#endif
    return KRYL_SUCCESS;
}
