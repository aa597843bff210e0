/* lambda_max(D^-1 A) for the prolongator's damping and the smoothers: a
 * few Lanczos steps on the backend in the D^-1 inner product (Lanczos 1950;
 * solvers/lanczos.c), on the device for cuda, whose largest Ritz value
 * converges first; or Gershgorin's bound where Lanczos does not apply. */
#include <math.h>
#include <stdlib.h>

#include "amg/amg.h"
#include "solvers/lanczos.h"

/* max_i sum_j |a_ij| / |a_ii|, an upper bound on |lambda(D^-1 A)| */
static kryl_status gershgorin(const kryl_csr *A, double *bound)
{
    double *diag = malloc(((size_t)A->nrows + 1) * sizeof *diag);
    if (diag == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld rows",
                          (long long)A->nrows);
    kryl_csr_diagonal(A, diag);
    *bound = 0.0;
    for (int64_t i = 0; i < A->nrows; i++) {
        double sum = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) sum += fabs(A->values[k]);
        if (diag[i] != 0.0 && sum / fabs(diag[i]) > *bound) *bound = sum / fabs(diag[i]);
    }
    free(diag);
    return KRYL_SUCCESS;
}

kryl_status amg_lambda_max(const amg_level *L, double *lambda)
{
    kryl_matrix M = amg_level_matrix(L);
    kryl_context ctx = L->Ab->ctx;
    /* rows with a_ii <= 0 (checked where the level is stored) and rows, over all ranks */
    int64_t count[2] = {0, M->host->csr.nrows};
    kryl_status st = KRYL_SUCCESS;
    if (L->symmetric) {
        kryl_diagonal_check found = {0};
        st = kryl_matrix_check_diagonal(M, "the multigrid lambda_max", NULL, false, &found);
        count[0] = st != KRYL_SUCCESS || found.first_nonpositive < count[1];
    }
    amg_ranks_sum(ctx, count, 2);
    KRYL_TRY(kryl_context_agree(ctx, st));
    if (L->symmetric && count[0] == 0 && count[1] > 0) {
        int steps = count[1] < KRYL_AMG_LANCZOS_STEPS ? (int)count[1] : KRYL_AMG_LANCZOS_STEPS;
        double lambda_min = 0.0;
        st = kryl_lanczos_extremes(L->Ab, KRYL_PRECOND_JACOBI, steps, &lambda_min, lambda);
    } else {
        st = kryl_matrix_need_host(M, "the multigrid Gershgorin bound");
        if (st == KRYL_SUCCESS) st = gershgorin(&M->host->csr, lambda);
        st = kryl_context_agree(ctx, st);
        amg_ranks_max(ctx, lambda, 1);
    }
    if (st == KRYL_SUCCESS && !(*lambda > 0.0 && isfinite(*lambda)))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "amg: the estimate of lambda_max(D^-1 A) of a level is %g", *lambda);
    return st;
}
