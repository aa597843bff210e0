/* Result handling shared by the factorizations: input checks, splitting the
 * combined factor into L and U, the transpose of an IC factor, fill counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "factor/factor_internal.h"

kryl_status kryl_factor_check_input(const kryl_csr *A, const char *who)
{
    KRYL_REQUIRE_ARG(A);
    if (A->row_begin != 0 || A->nrows != A->nrows_global)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s: needs the whole matrix on one process, got rows [%lld, %lld) of "
                          "%lld",
                          who, (long long)A->row_begin, (long long)(A->row_begin + A->nrows),
                          (long long)A->nrows_global);
    if (A->nrows != A->ncols)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE, "%s: needs a square matrix, got %lld x %lld", who,
                          (long long)A->nrows, (long long)A->ncols);
    if (A->nrows > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW, "%s: %lld rows do not fit int32 columns", who,
                          (long long)A->nrows);
    if (A->nrows > 0 && (A->row_ptr == NULL || A->col_idx == NULL || A->values == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s: the matrix arrays are NULL", who);
    return KRYL_SUCCESS;
}

/* Positions of C outside the pattern of A (same number of rows). */
static int64_t count_fill(const kryl_csr *C, const kryl_csr *A, int64_t *mark)
{
    int64_t fill = 0;
    for (int64_t i = 0; i < C->nrows; i++) {
        /* mark the columns of a_i* with i + 1, then count c_i* positions not marked */
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) mark[A->col_idx[e]] = i + 1;
        for (int64_t e = C->row_ptr[i]; e < C->row_ptr[i + 1]; e++)
            fill += mark[C->col_idx[e]] != i + 1;
    }
    return fill;
}

static kryl_status finish(kryl_factor *F, const kryl_csr *A, const kryl_csr *C)
{
    int64_t *mark = calloc((size_t)(A->nrows > 0 ? A->nrows : 1), sizeof *mark);
    if (mark == NULL) {
        kryl_factor_free(F);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "factor: cannot allocate %lld markers",
                          (long long)A->nrows);
    }
    F->n = A->nrows;
    F->nnz_L = kryl_csr_nnz(&F->L);
    F->nnz_U = kryl_csr_nnz(&F->U);
    F->fill_in = count_fill(C, A, mark);
    free(mark);
    return KRYL_SUCCESS;
}

kryl_status kryl_factor_split_lu(const kryl_csr *C, const kryl_csr *A, kryl_factor *F)
{
    const int64_t n = C->nrows;
    int64_t nl = 0;
    /* nl = entries strictly below the diagonal */
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = C->row_ptr[i]; e < C->row_ptr[i + 1]; e++) nl += C->col_idx[e] < i;
    kryl_status st = kryl_csr_alloc(&F->L, n, n, nl);
    if (st == KRYL_SUCCESS) st = kryl_csr_alloc(&F->U, n, n, kryl_csr_nnz(C) - nl);
    if (st != KRYL_SUCCESS) {
        kryl_factor_free(F);
        return st;
    }
    int64_t at_l = 0, at_u = 0;
    for (int64_t i = 0; i < n; i++) {
        /* row i of C: columns < i to L, the rest to U */
        for (int64_t e = C->row_ptr[i]; e < C->row_ptr[i + 1]; e++) {
            kryl_csr *T = C->col_idx[e] < i ? &F->L : &F->U;
            int64_t *at = C->col_idx[e] < i ? &at_l : &at_u;
            T->col_idx[*at] = C->col_idx[e];
            T->values[(*at)++] = C->values[e];
        }
        F->L.row_ptr[i + 1] = at_l;
        F->U.row_ptr[i + 1] = at_u;
    }
    F->unit_lower = true;
    return finish(F, A, C);
}

kryl_status kryl_factor_from_cholesky(kryl_csr *L, const kryl_csr *A, kryl_factor *F)
{
    const int64_t n = L->nrows;
    F->L = *L;
    memset(L, 0, sizeof *L);
    kryl_status st = kryl_csr_alloc(&F->U, n, n, kryl_csr_nnz(&F->L));
    if (st != KRYL_SUCCESS) {
        kryl_factor_free(F);
        return st;
    }
    /* U = L^T: count the entries of each column of L, then place them in row order */
    for (int64_t e = 0; e < kryl_csr_nnz(&F->L); e++) F->U.row_ptr[F->L.col_idx[e] + 1]++;
    for (int64_t j = 0; j < n; j++) F->U.row_ptr[j + 1] += F->U.row_ptr[j];
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = F->L.row_ptr[i]; e < F->L.row_ptr[i + 1]; e++) {
            const int64_t at = F->U.row_ptr[F->L.col_idx[e]]++;
            F->U.col_idx[at] = (int32_t)i;
            F->U.values[at] = F->L.values[e];
        }
    /* undo the advance of the row pointers: row_ptr[j] now holds the old row_ptr[j + 1] */
    for (int64_t j = n; j > 0; j--) F->U.row_ptr[j] = F->U.row_ptr[j - 1];
    F->U.row_ptr[0] = 0;
    F->unit_lower = false;
    return finish(F, A, &F->L);
}

void kryl_factor_free(kryl_factor *F)
{
    if (F == NULL) return;
    kryl_csr_free(&F->L);
    kryl_csr_free(&F->U);
    free(F->col_perm);
    memset(F, 0, sizeof *F);
}

kryl_status kryl_factor_no_diagonal_error(kryl_factor_kind kind, const char *who, int64_t row)
{
    if (kind == KRYL_FACTOR_IC0 || kind == KRYL_FACTOR_MIC0)
        return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          "%s: row %lld (0-based) has no diagonal entry, so its pivot is 0: "
                          "the matrix is not positive definite, as incomplete Cholesky "
                          "needs; use --method gmres with --precond ilutp, or --precond none",
                          who, (long long)row);
    return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                      "%s: row %lld (0-based) has no diagonal entry in the pattern, so "
                      "its pivot is 0; permute the rows to put nonzeros on the "
                      "diagonal (--match), or use ilutp (column pivoting) or the "
                      "default (--method auto, no --precond)",
                      who, (long long)row);
}

kryl_status kryl_factor_pivot_error(kryl_factor_kind kind, const char *who, int what, int64_t row,
                                    double value)
{
    if (kind != KRYL_FACTOR_IC0 && kind != KRYL_FACTOR_MIC0)
        return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                          "%s: the pivot u_ii at row %lld (0-based) is %g; use ilutp "
                          "(column pivoting), --match (rows permuted to put nonzeros on "
                          "the diagonal) or the default (--method auto, no --precond)",
                          who, (long long)row, value);
    if (what == KRYL_PIVOT_DIAGONAL)
        return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          "%s: the diagonal entry of row %lld (0-based) is %g <= 0: the "
                          "matrix is not positive definite, as incomplete Cholesky needs; "
                          "use --method gmres with --precond ilutp, or --precond none",
                          who, (long long)row, value);
    return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                      "%s: the pivot at row %lld (0-based) is %g <= 0: the matrix is not "
                      "positive definite or IC(0) breaks down; use mic0 (shifted) or "
                      "jacobi",
                      who, (long long)row, value);
}
