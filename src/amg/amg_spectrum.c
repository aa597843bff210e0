/* lambda_max(D^-1 A) for the prolongator's damping and the smoothers: a
 * few Lanczos steps on the backend in the D^-1 inner product (Lanczos 1950;
 * solvers/lanczos.c), on the device for cuda, whose largest Ritz value
 * converges first; or Gershgorin's bound where Lanczos does not apply. */
#include <math.h>
#include <stdlib.h>

#include "amg/amg.h"
#include "solvers/lanczos.h"

/* max_i sum_j |a_ij| / |a_ii|, an upper bound on |lambda(D^-1 A)| */
static double gershgorin(const kryl_csr *A, const double *diag)
{
    double bound = 0.0;
    for (int64_t i = 0; i < A->nrows; i++) {
        double sum = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) sum += fabs(A->values[k]);
        if (diag[i] != 0.0 && sum / fabs(diag[i]) > bound) bound = sum / fabs(diag[i]);
    }
    return bound;
}

kryl_status amg_lambda_max(const amg_level *L, double *lambda)
{
    const kryl_csr *A = L->A;
    int64_t n = A->nrows;
    double *diag = malloc(((size_t)n + 1) * sizeof *diag);
    if (diag == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld rows", (long long)n);
    kryl_csr_diagonal(A, diag);
    /* rows with a_ii <= 0 and rows, over all ranks */
    int64_t count[2] = {0, n};
    for (int64_t i = 0; i < n; i++) count[0] += !(diag[i] > 0.0);
    amg_ranks_sum(L->Ab->ctx, count, 2);
    kryl_status st = KRYL_SUCCESS;
    if (L->symmetric && count[0] == 0 && count[1] > 0) {
        int steps = count[1] < KRYL_AMG_LANCZOS_STEPS ? (int)count[1] : KRYL_AMG_LANCZOS_STEPS;
        double lambda_min = 0.0;
        st = kryl_lanczos_extremes(L->Ab, KRYL_PRECOND_JACOBI, steps, &lambda_min, lambda);
    } else {
        *lambda = gershgorin(A, diag);
        amg_ranks_max(L->Ab->ctx, lambda, 1);
    }
    free(diag);
    if (st == KRYL_SUCCESS && !(*lambda > 0.0 && isfinite(*lambda)))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "amg: the estimate of lambda_max(D^-1 A) of a level is %g", *lambda);
    return st;
}
