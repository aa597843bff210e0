/* Sparse triangular solves on the host: the factor split into off-diagonal
 * entries and diagonal, kept in the working precision; ref solves by plain
 * serial substitution and ignores the level schedule it keeps for omp. */
#include <stdlib.h>
#include <string.h>

#include "backends/ref/ref_trsv.h"

#define KRYL_REF_TEMPLATE "backends/ref/ref_trsv_template.h"
#include "backends/ref/ref_instantiate.h"

void kryl_ref_trsv_release(kryl_context ctx, void *handle)
{
    (void)ctx;
    kryl_host_trsv *T = handle;
    if (T == NULL) return;
    free(T->ptr);
    free(T->col);
    free(T->val);
    free(T->diag);
    free(T->rows);
    free(T->level_ptr);
    free(T);
}

/* Split T into off-diagonal entries (in *offdiag) and diagonal (in
 * *diagonal, unless unit), checking that every entry is in its triangle. */
static kryl_status split_rows(const kryl_csr *T, bool lower, bool unit, kryl_host_trsv *H,
                              double *offdiag, double *diagonal)
{
    int64_t nnz = 0;
    H->ptr[0] = 0;
    for (int64_t i = 0; i < T->nrows; i++) {
        bool have_diag = false;
        for (int64_t k = T->row_ptr[i]; k < T->row_ptr[i + 1]; k++) {
            int64_t j = T->col_idx[k];
            if (j == i && !unit) {
                diagonal[i] = T->values[k];
                have_diag = true;
            } else if (j == i || (lower ? j > i : j < i)) {
                return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                  "trsv_setup: row %lld has an entry in column %lld, which a "
                                  "%s triangle%s may not hold",
                                  (long long)i, (long long)j, lower ? "lower" : "upper",
                                  unit ? " with implied unit diagonal" : "");
            } else {
                H->col[nnz] = (int32_t)j;
                offdiag[nnz++] = T->values[k];
            }
        }
        if (!unit && (!have_diag || diagonal[i] == 0.0))
            return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                              "trsv_setup: the diagonal entry of row %lld (0-based) of the "
                              "%s triangle is %s",
                              (long long)i, lower ? "lower" : "upper",
                              have_diag ? "zero" : "missing");
        H->ptr[i + 1] = nnz;
    }
    return KRYL_SUCCESS;
}

/* Copy the level schedule (rows level by level). */
static kryl_status copy_levels(kryl_host_trsv *H, const int32_t *level_rows,
                               const int64_t *level_ptr, int64_t nlevels)
{
    if (level_rows == NULL || level_ptr == NULL || nlevels < 0 ||
        (nlevels > 0 && level_ptr[nlevels] != H->n))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "trsv_setup: the level schedule must list all %lld rows",
                          (long long)H->n);
    H->nlevels = nlevels;
    H->rows = malloc((size_t)(H->n > 0 ? H->n : 1) * sizeof *H->rows);
    H->level_ptr = malloc((size_t)(nlevels + 1) * sizeof *H->level_ptr);
    if (H->rows == NULL || H->level_ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "trsv_setup: cannot allocate %lld levels",
                          (long long)nlevels);
    if (H->n > 0) memcpy(H->rows, level_rows, (size_t)H->n * sizeof *H->rows);
    if (nlevels > 0)
        memcpy(H->level_ptr, level_ptr, (size_t)(nlevels + 1) * sizeof *H->level_ptr);
    else
        H->level_ptr[0] = 0;
    return KRYL_SUCCESS;
}

/* H's val and diag (allocated) = T's entries split as split_rows does. */
static kryl_status store_values(const kryl_csr *T, bool unit, kryl_host_trsv *H)
{
    const int64_t n = T->nrows, nnz = kryl_csr_nnz(T);
    double *offdiag = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *offdiag);
    double *diagonal = malloc((size_t)(n > 0 ? n : 1) * sizeof *diagonal);
    kryl_status st = offdiag && diagonal
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                      "trsv_setup: cannot store %lld entries", (long long)nnz);
    if (st == KRYL_SUCCESS) st = split_rows(T, H->lower, unit, H, offdiag, diagonal);
    if (st == KRYL_SUCCESS) {
        if (H->precision == KRYL_DOUBLE)
            ref_trsv_store_d(offdiag, diagonal, H->ptr[n], n, H->val, H->diag);
        else
            ref_trsv_store_s(offdiag, diagonal, H->ptr[n], n, H->val, H->diag);
    }
    free(offdiag);
    free(diagonal);
    return st;
}

kryl_status kryl_ref_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                bool lower, bool unit_diagonal, const int32_t *level_rows,
                                const int64_t *level_ptr, int64_t nlevels, void **handle)
{
    *handle = NULL;
    if (T->nrows != T->ncols || T->row_begin != 0)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE,
                          "trsv_setup: the triangle is %lld x %lld from row %lld; expected a "
                          "whole square matrix",
                          (long long)T->nrows, (long long)T->ncols, (long long)T->row_begin);
    if (precision != KRYL_DOUBLE && precision != KRYL_SINGLE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "trsv_setup: precision %d: expected double or single", (int)precision);
    kryl_host_trsv *H = calloc(1, sizeof *H);
    if (H == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "trsv_setup: out of memory");
    int64_t n = T->nrows, nnz = kryl_csr_nnz(T);
    size_t real = kryl_precision_size(precision);
    H->n = n;
    H->precision = precision;
    H->lower = lower;
    H->ptr = malloc((size_t)(n + 1) * sizeof *H->ptr);
    H->col = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *H->col);
    H->val = malloc((size_t)(nnz > 0 ? nnz : 1) * real);
    if (!unit_diagonal) H->diag = malloc((size_t)(n > 0 ? n : 1) * real);
    kryl_status st = KRYL_SUCCESS;
    if (H->ptr == NULL || H->col == NULL || H->val == NULL || (!unit_diagonal && !H->diag))
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "trsv_setup: cannot store %lld entries",
                        (long long)nnz);
    if (st == KRYL_SUCCESS) st = store_values(T, unit_diagonal, H);
    if (st == KRYL_SUCCESS) st = copy_levels(H, level_rows, level_ptr, nlevels);
    if (st != KRYL_SUCCESS) {
        kryl_ref_trsv_release(ctx, H);
        return st;
    }
    *handle = H;
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_trsv_refresh(kryl_host_trsv *H, const kryl_csr *T)
{
    if (T->nrows != H->n || kryl_csr_nnz(T) != H->ptr[H->n] + (H->diag ? H->n : 0))
        return KRYL_ERROR(KRYL_ERR_INTERNAL,
                          "trsv refresh: the triangle has %lld rows and %lld entries, the "
                          "handle %lld rows and another pattern",
                          (long long)T->nrows, (long long)kryl_csr_nnz(T), (long long)H->n);
    return store_values(T, H->diag == NULL, H);
}

void kryl_ref_trsv_serial(const kryl_host_trsv *T, const void *b, void *x)
{
    /* x = T^{-1} b */
    if (T->precision == KRYL_DOUBLE)
        ref_trsv_serial_d(T, b, x);
    else
        ref_trsv_serial_s(T, b, x);
}

kryl_status kryl_ref_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x)
{
    (void)ctx;
    kryl_ref_trsv_serial(handle, b->data, x->data);
    return KRYL_SUCCESS;
}

const char *kryl_ref_trsv_path(kryl_context ctx, const void *handle)
{
    (void)ctx;
    (void)handle;
    return "serial";
}
