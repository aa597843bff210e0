/* IC(0) and its shifted form MIC(0): A ~ L L^T with L on the pattern of
 * tril(A).  Row-oriented incomplete Cholesky (Saad 2003, section 10.3.4);
 * the shift A + alpha diag(A) follows Manteuffel, An incomplete factorization
 * technique for positive definite linear systems, Math. Comp. 34 (1980). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "factor/factor_internal.h"

/* L = tril(A) (copied); the diagonal must close every row. */
static kryl_status lower_pattern(const kryl_csr *A, kryl_csr *L, const char *who)
{
    const int64_t n = A->nrows;
    int64_t nnz = 0;
    /* nnz = entries of tril(A) */
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) nnz += A->col_idx[e] <= i;
    KRYL_TRY(kryl_csr_alloc(L, n, n, nnz));
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1] && A->col_idx[e] <= i; e++) {
            L->col_idx[at] = A->col_idx[e];
            L->values[at++] = A->values[e];
        }
        L->row_ptr[i + 1] = at;
        if (at == L->row_ptr[i] || L->col_idx[at - 1] != i) {
            kryl_csr_free(L);
            return kryl_factor_no_diagonal_error(KRYL_FACTOR_IC0, who, i);
        }
    }
    return KRYL_SUCCESS;
}

/* In place: L (= tril(A) on entry) becomes the IC(0) factor of A + alpha diag(A). */
static kryl_status ic0_numeric(kryl_csr *L, double alpha, double *x, const char *who)
{
    for (int64_t i = 0; i < L->nrows; i++) {
        const int64_t dpos = L->row_ptr[i + 1] - 1;
        if (!(L->values[dpos] > 0.0))
            return kryl_factor_pivot_error(KRYL_FACTOR_IC0, who, KRYL_PIVOT_DIAGONAL, i,
                                           L->values[dpos]);
        double d = L->values[dpos] * (1.0 + alpha);
        for (int64_t e = L->row_ptr[i]; e < dpos; e++) {
            /* l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj, x holds row i of L so far */
            const int64_t j = L->col_idx[e], jd = L->row_ptr[j + 1] - 1;
            double s = L->values[e];
            for (int64_t f = L->row_ptr[j]; f < jd; f++) s -= L->values[f] * x[L->col_idx[f]];
            x[j] = s / L->values[jd];
            L->values[e] = x[j];
            d -= x[j] * x[j];
        }
        for (int64_t e = L->row_ptr[i]; e < dpos; e++) x[L->col_idx[e]] = 0.0;
        if (!(d > 0.0))
            return kryl_factor_pivot_error(KRYL_FACTOR_IC0, who, KRYL_PIVOT_BREAKDOWN, i, d);
        /* l_ii = sqrt(a_ii (1 + alpha) - sum_{k<i} l_ik^2) */
        L->values[dpos] = sqrt(d);
    }
    return KRYL_SUCCESS;
}

/* The factor of A + alpha diag(A) into F, or the failure (F left empty). */
static kryl_status ic0_shifted(const kryl_csr *A, double alpha, kryl_factor *F, const char *who)
{
    kryl_csr L;
    KRYL_TRY(lower_pattern(A, &L, who));
    double *x = calloc((size_t)(A->nrows > 0 ? A->nrows : 1), sizeof *x);
    if (x == NULL) {
        kryl_csr_free(&L);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate a row of %lld", who,
                          (long long)A->nrows);
    }
    kryl_status st = ic0_numeric(&L, alpha, x, who);
    free(x);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(&L);
        return st;
    }
    return kryl_factor_from_cholesky(&L, A, F);
}

kryl_status kryl_factor_ic0(const kryl_csr *A, kryl_factor *F)
{
    KRYL_REQUIRE_ARG(F);
    memset(F, 0, sizeof *F);
    KRYL_TRY(kryl_factor_check_input(A, "ic0"));
    F->kind = KRYL_FACTOR_IC0;
    return ic0_shifted(A, 0.0, F, "ic0");
}

kryl_status kryl_factor_mic0_bound(const kryl_csr *A, double *bound)
{
    /* bound = max_i sum_{j != i} |a_ij| / a_ii: beyond it A + alpha diag(A) is strictly
     * diagonally dominant with a positive diagonal, where IC(0) always exists */
    *bound = 0.0;
    for (int64_t i = 0; i < A->nrows; i++) {
        double diag = 0.0, off = 0.0;
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            if (A->col_idx[e] == i)
                diag = A->values[e];
            else
                off += fabs(A->values[e]);
        if (!(diag > 0.0))
            return kryl_factor_pivot_error(KRYL_FACTOR_MIC0, "mic0", KRYL_PIVOT_DIAGONAL, i, diag);
        if (off / diag > *bound) *bound = off / diag;
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_factor_mic0_next_shift(double bound, double *alpha)
{
    if (*alpha > 2.0 * bound + 1.0)
        return KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                          "mic0: IC(0) of A + alpha diag(A) still breaks down at alpha = %g, "
                          "beyond diagonal dominance: are the values finite?",
                          *alpha);
    /* alpha = 1e-3, then doubled (Manteuffel 1980) */
    *alpha = *alpha == 0.0 ? 1e-3 : 2.0 * *alpha;
    return KRYL_SUCCESS;
}

kryl_status kryl_factor_mic0(const kryl_csr *A, kryl_factor *F)
{
    KRYL_REQUIRE_ARG(F);
    memset(F, 0, sizeof *F);
    KRYL_TRY(kryl_factor_check_input(A, "mic0"));
    double bound = 0.0, alpha = 0.0;
    KRYL_TRY(kryl_factor_mic0_bound(A, &bound));
    for (;;) {
        F->kind = KRYL_FACTOR_MIC0;
        kryl_status st = ic0_shifted(A, alpha, F, "mic0");
        if (st == KRYL_SUCCESS) {
            F->shift = alpha;
            return KRYL_SUCCESS;
        }
        if (st != KRYL_ERR_NOT_POSITIVE_DEFINITE) return st;
        KRYL_TRY(kryl_factor_mic0_next_shift(bound, &alpha));
    }
}
