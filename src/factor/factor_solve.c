/* Forward and backward substitution with an incomplete factorization on the
 * host: the serial reference of the level-scheduled triangular solves. */
#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "factor/factor.h"

kryl_status kryl_factor_solve_host(const kryl_factor *F, const double *b, double *x)
{
    KRYL_REQUIRE_ARG(F);
    if (F->n > 0) {
        KRYL_REQUIRE_ARG(b);
        KRYL_REQUIRE_ARG(x);
        if (F->L.row_ptr == NULL || F->U.row_ptr == NULL)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "factor solve: the factorization is empty (freed or never built)");
    }
    const kryl_csr *L = &F->L, *U = &F->U;
    for (int64_t i = 0; i < F->n; i++) {
        /* y_i = (b_i - sum_{j<i} l_ij y_j) / l_ii, y stored in x */
        const int64_t end = F->unit_lower ? L->row_ptr[i + 1] : L->row_ptr[i + 1] - 1;
        double s = b[i];
        for (int64_t e = L->row_ptr[i]; e < end; e++) s -= L->values[e] * x[L->col_idx[e]];
        x[i] = F->unit_lower ? s : s / L->values[end];
    }
    for (int64_t i = F->n - 1; i >= 0; i--) {
        /* x_i = (y_i - sum_{j>i} u_ij x_j) / u_ii, u_ii first in row i */
        const int64_t d = U->row_ptr[i];
        double s = x[i];
        for (int64_t e = d + 1; e < U->row_ptr[i + 1]; e++) s -= U->values[e] * x[U->col_idx[e]];
        x[i] = s / U->values[d];
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_factor_condest(const kryl_factor *F, const kryl_csr *A, double *condest)
{
    KRYL_REQUIRE_ARG(F);
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(condest);
    *condest = 0.0;
    if (F->n == 0) return KRYL_SUCCESS;
    double *e = malloc((size_t)F->n * sizeof *e), *x = malloc((size_t)F->n * sizeof *x);
    kryl_status st = e && x ? KRYL_SUCCESS
                            : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                         "condest: cannot allocate 2 x %lld", (long long)F->n);
    for (int64_t i = 0; st == KRYL_SUCCESS && i < F->n; i++) e[i] = 1.0;
    /* x = U^{-1} L^{-1} e;  condest = ||A||_inf max |x_i| (a NaN counts as infinite) */
    if (st == KRYL_SUCCESS) st = kryl_factor_solve_host(F, e, x);
    double inv = 0.0, norm = 0.0;
    for (int64_t i = 0; st == KRYL_SUCCESS && i < F->n; i++)
        inv = isnan(x[i]) || isinf(inv) ? INFINITY : fmax(inv, fabs(x[i]));
    /* ||A||_inf = max_i sum_j |a_ij| */
    for (int64_t i = 0; i < A->nrows; i++) {
        double row = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) row += fabs(A->values[k]);
        norm = fmax(norm, row);
    }
    *condest = norm * inv;
    free(e);
    free(x);
    return st;
}
