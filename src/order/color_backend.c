/* --order color on the backend (color_backend.h): A's stored CSR colored
 * there by first fit in the natural order (color_first_fit, which reads
 * each row's own columns: A's pattern must be structurally symmetric,
 * csr_unmirrored says; else the host colors A + A^T's graph), the rows
 * grouped by color (color_group) and P A P^T copied with its columns
 * renumbered and sorted (csr_permute); only the color count and the group
 * starts reach the host. */
#include <stdlib.h>

#include "core/setup_clock.h"
#include "order/color_backend.h"

/* Whether the backend has every operation the order needs. */
static bool applies(const kryl_backend_ops *ops)
{
    return ops->matrix_csr_arrays && ops->csr_unmirrored && ops->color_first_fit &&
           ops->color_group && ops->csr_permute;
}

kryl_status kryl_order_permuted_csr(kryl_context ctx, int64_t n, int64_t nnz,
                                    const int64_t *row_ptr, const int32_t *col_idx,
                                    const double *values, const int32_t *perm, kryl_backend_csr *B)
{
    const kryl_backend_ops *ops = ctx->ops;
    *B = (kryl_backend_csr){.nrows = n, .ncols = n, .nnz = nnz};
    kryl_status st = ops->alloc(ctx, (void **)&B->row_ptr, ((size_t)n + 1) * sizeof *B->row_ptr);
    if (st == KRYL_SUCCESS)
        st = ops->alloc(ctx, (void **)&B->col_idx, (size_t)nnz * sizeof *B->col_idx);
    if (st == KRYL_SUCCESS)
        st = ops->alloc(ctx, (void **)&B->values, (size_t)nnz * sizeof *B->values);
    /* B = P A P^T: row i of B is row perm[i] of A, column j becomes inv(perm)[j] */
    if (st == KRYL_SUCCESS)
        st = ops->csr_permute(ctx, n, row_ptr, col_idx, values, perm, B->row_ptr, B->col_idx,
                              B->values);
    if (st != KRYL_SUCCESS) kryl_backend_csr_release(ctx, B);
    return st;
}

/* perm = the color groups of the graph of (row_ptr, col_idx): n > 0 rows. */
static kryl_status color_order(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                               const int32_t *col_idx, int32_t *perm, int32_t *ncolors)
{
    const kryl_backend_ops *ops = ctx->ops;
    int32_t *color = NULL;
    int64_t *color_ptr = NULL;
    kryl_status st = ops->alloc(ctx, (void **)&color, (size_t)n * sizeof *color);
    /* color_i = the smallest color of no row j < i coupled to row i */
    if (st == KRYL_SUCCESS) st = ops->color_first_fit(ctx, n, row_ptr, col_idx, color, ncolors);
    if (st == KRYL_SUCCESS) {
        color_ptr = malloc(((size_t)*ncolors + 1) * sizeof *color_ptr);
        if (color_ptr == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "--order color: cannot allocate %d colors",
                            (int)*ncolors);
    }
    /* perm = the rows color by color, ascending within a color */
    if (st == KRYL_SUCCESS) st = ops->color_group(ctx, n, color, *ncolors, perm, color_ptr);
    free(color_ptr);
    ops->release(ctx, color);
    return st;
}

kryl_status kryl_order_color_backend(kryl_matrix A, int32_t **perm, kryl_backend_csr *B,
                                     int32_t *ncolors)
{
    kryl_context ctx = A->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    *perm = NULL;
    *B = (kryl_backend_csr){0};
    *ncolors = 0;
    const int64_t n = A->layout->n, nnz = kryl_matrix_nnz(A);
    /* an empty matrix has nothing to color; the device's copy counts entries in 32 bits */
    if (!applies(ops) || !kryl_matrix_natural_csr(A) || n == 0 || nnz > INT32_MAX)
        return KRYL_ERR_UNSUPPORTED;
    int64_t *row_ptr = NULL;
    int32_t *col_idx = NULL;
    double *values = NULL;
    bool own_row_ptr = false;
    KRYL_TRY(ops->matrix_csr_arrays(ctx, A, &row_ptr, &own_row_ptr, &col_idx, &values));
    int phase = kryl_setup_enter(ctx, KRYL_SETUP_ORDERING);
    /* first fit by rows sees A + A^T's couplings only where A's pattern is symmetric */
    int64_t unmirrored = -1;
    kryl_status st = ops->csr_unmirrored(ctx, n, row_ptr, col_idx, &unmirrored);
    if (st == KRYL_SUCCESS && unmirrored >= 0) {
        kryl_log(ctx, KRYL_LOG_INFO,
                 "kryl: --order color on the host: row %lld stores an a_ij without a_ji",
                 (long long)unmirrored);
        st = KRYL_ERR_UNSUPPORTED;
    }
    if (st == KRYL_SUCCESS) st = ops->alloc(ctx, (void **)perm, (size_t)n * sizeof **perm);
    if (st == KRYL_SUCCESS) st = color_order(ctx, n, row_ptr, col_idx, *perm, ncolors);
    if (st == KRYL_SUCCESS) kryl_setup_enter(ctx, KRYL_SETUP_CONVERSION);
    if (st == KRYL_SUCCESS)
        st = kryl_order_permuted_csr(ctx, n, nnz, row_ptr, col_idx, values, *perm, B);
    kryl_setup_leave(ctx, phase);
    if (own_row_ptr) ops->release(ctx, row_ptr);
    if (st != KRYL_SUCCESS) {
        kryl_backend_csr_release(ctx, B);
        ops->release(ctx, *perm);
        *perm = NULL;
        *ncolors = 0;
    }
    return st;
}
