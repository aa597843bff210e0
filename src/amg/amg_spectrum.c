/* lambda_max(D^-1 A) for the prolongator's damping and the smoothers: a
 * few Lanczos steps on the backend in the D^-1 inner product (Lanczos 1950;
 * solvers/lanczos.c), on the device for cuda, whose largest Ritz value
 * converges first: taken from as many Jacobi-CG steps (no fetch between
 * them), or by Lanczos itself where CG breaks down; or Gershgorin's bound
 * where Lanczos does not apply, from the rows' sums on the backend too. */
#include <math.h>

#include "amg/amg.h"
#include "solvers/lanczos.h"

/* max_i sum_j |a_ij| / |a_ii| (rows with a_ii = 0 left out), an upper
 * bound on |lambda(D^-1 A)|, from the rows' sums where M is stored */
static kryl_status gershgorin(kryl_matrix M, double *bound)
{
    kryl_context ctx = M->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    kryl_vector radii = NULL;
    kryl_scalar largest = {NULL};
    int64_t zero_row = -1;
    kryl_status st = kryl_vector_create_like(&radii, ctx, M->layout, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS)
        st = kryl_matrix_abs_row_sums(M, "the multigrid Gershgorin bound",
                                      KRYL_ROW_SUMS_BY_DIAGONAL, radii, &zero_row);
    if (st == KRYL_SUCCESS) st = ops->alloc(ctx, (void **)&largest.ptr, sizeof *largest.ptr);
    /* largest = max_i |radii_i| */
    if (st == KRYL_SUCCESS) st = ops->amax(ctx, radii, largest);
    if (st == KRYL_SUCCESS) st = ops->download(ctx, bound, largest.ptr, sizeof *bound);
    ops->release(ctx, largest.ptr);
    kryl_vector_destroy(&radii);
    return st;
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
        /* on the double level, where it is stored: a single-precision copy's
         * Jacobi diagonal would be read from a host copy of a device-built level */
        bool done = false;
        st = kryl_cg_extremes(M, KRYL_PRECOND_JACOBI, steps, &done, &lambda_min, lambda);
        if (st == KRYL_SUCCESS && !done)
            st = kryl_lanczos_extremes(M, KRYL_PRECOND_JACOBI, steps, &lambda_min, lambda);
    } else {
        st = kryl_context_agree(ctx, gershgorin(M, lambda));
        amg_ranks_max(ctx, lambda, 1);
    }
    if (st == KRYL_SUCCESS && !(*lambda > 0.0 && isfinite(*lambda)))
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "amg: the estimate of lambda_max(D^-1 A) of a level is %g", *lambda);
    return st;
}
