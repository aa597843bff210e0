/*
 * The smoothers of the multigrid cycle, through backend operations only:
 *   jacobi     x += omega D^-1 (b - A x), omega = 4 / (3 lambda_max(D^-1 A))
 *   l1jacobi   x += D_l1^-1 (b - A x), (D_l1)_ii = sum_j |a_ij|, convergent for
 *              SPD A without an eigenvalue estimate (Baker, Falgout, Kolev &
 *              Yang, SIAM J. Sci. Comput. 33, 2011)
 *   chebyshev  the Chebyshev iteration of degree k for D^-1 A on
 *              [upper/4, upper], upper = 1.1 lambda_max (Saad, "Iterative
 *              Methods for Sparse Linear Systems", Algorithm 12.1; Adams,
 *              Brezina, Hu & Tuminaro, J. Comput. Phys. 188, 2003)
 *   mcgs       x += M^-1 (b - A x), M one multicolor symmetric Gauss-Seidel
 *              sweep (mcssor.c with omega 1)
 *   ilu0       x += M^-1 (b - A x), M = L U the multicolor ILU(0) of the
 *              level (mcilu0.c; IC(0) on a symmetric level under a CG
 *              method), over ranks of each rank's diagonal block: it holds
 *              convection-dominated couplings the pointwise ones miss;
 *              where the backend factors in the color order, colorings of
 *              up to KRYL_MCOLOR_BACKEND_COLORS colors are kept whole
 * Each is symmetric in A's inner product where A is, so the cycle is too.
 */
#include <math.h>
#include <stdio.h>

#include "amg/amg.h"
#include "precond/mcolor.h"

/* L->dinv (the level's order and precision) from d (double, natural
 * order, in the layout of the level's double matrix): scaled, converted. */
static kryl_status level_dinv(amg_hierarchy *h, amg_level *L, kryl_vector d, double scale)
{
    const kryl_backend_ops *ops = h->ctx->ops;
    /* d = scale d */
    if (scale != 1.0) KRYL_TRY(ops->axpby(h->ctx, 0.0, d, scale, d));
    if (amg_level_matrix(L) == L->Ab) {
        L->dinv = d;
        return KRYL_SUCCESS;
    }
    /* a copy of the natural double matrix: the same order, another precision */
    kryl_status st = kryl_vector_create_like(&L->dinv, h->ctx, L->Ab->layout, L->Ab->precision);
    if (st == KRYL_SUCCESS) st = ops->permute_copy(h->ctx, L->dinv, d, NULL, KRYL_GATHER, NULL);
    kryl_vector_destroy(&d);
    return st;
}

/* The diagonal check of M, where it is stored: a zero a_ii refused naming
 * its row, as the smoother divides by it; d (or NULL) gets 1 / a_ii. */
static kryl_status nonzero_diagonal(const amg_hierarchy *h, kryl_matrix M, kryl_vector d)
{
    kryl_diagonal_check found;
    KRYL_TRY(kryl_matrix_check_diagonal(M, "the multigrid smoother", d, true, &found));
    if (found.first_zero < M->host->csr.nrows)
        return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                          "amg: row %lld of a level has a zero diagonal; the %s smoother "
                          "divides by it",
                          (long long)found.first_zero, kryl_amg_smoother_name(h->opts.smoother));
    return KRYL_SUCCESS;
}

/* dinv_i = scale / a_ii by the diagonal check, where the level is stored. */
static kryl_status jacobi_diagonal(amg_hierarchy *h, amg_level *L, double scale)
{
    kryl_matrix M = amg_level_matrix(L);
    kryl_vector d = NULL;
    KRYL_TRY(kryl_vector_create_like(&d, h->ctx, M->layout, M->precision));
    kryl_status st = nonzero_diagonal(h, M, d);
    if (st != KRYL_SUCCESS) {
        kryl_vector_destroy(&d);
        return st;
    }
    return level_dinv(h, L, d, scale);
}

/* dinv_i = 1 / sum_j |a_ij| (l1-Jacobi), where the level is stored. */
static kryl_status l1_diagonal(amg_hierarchy *h, amg_level *L)
{
    kryl_matrix M = amg_level_matrix(L);
    kryl_vector d = NULL;
    int64_t zero_row = -1;
    KRYL_TRY(kryl_vector_create_like(&d, h->ctx, M->layout, M->precision));
    kryl_status st = kryl_matrix_abs_row_sums(M, "the multigrid l1-Jacobi smoother",
                                              KRYL_ROW_SUMS_INVERSE, d, &zero_row);
    if (st == KRYL_SUCCESS && zero_row >= 0)
        st = KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                        "amg: row %lld of a level is zero; the l1jacobi smoother divides by its "
                        "sum",
                        (long long)zero_row);
    if (st != KRYL_SUCCESS) {
        kryl_vector_destroy(&d);
        return st;
    }
    return level_dinv(h, L, d, 1.0);
}

/* z = M^-1 r of a rank without rows on a level: nothing. */
static kryl_status relax_nothing(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    (void)pc, (void)r, (void)z;
    return KRYL_SUCCESS;
}

/* M = the multicolor ILU(0) of the level's rows here (its diagonal block
 * over ranks); under a CG method on a symmetric level IC(0) with mcilu0's
 * shift, so that M stays symmetric positive definite. */
static kryl_status ilu0_relaxation(amg_hierarchy *h, amg_level *L)
{
    kryl_matrix M = kryl_matrix_local_part(L->Ab);
    L->sweep.kind = KRYL_PRECOND_MCILU0;
    L->sweep.ctx = M->ctx;
    if (M->layout->n == 0) {
        L->sweep.apply = relax_nothing;
        return KRYL_SUCCESS;
    }
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = h->cg_method && L->symmetric ? KRYL_METHOD_PCG : KRYL_METHOD_GMRES;
    KRYL_TRY(kryl_matrix_need_host(M, "the multigrid ILU(0) smoother"));
    KRYL_TRY(nonzero_diagonal(h, M, NULL));
    kryl_status st =
        kryl_precond_mcilu0_create_keeping(&L->sweep, M, &o, KRYL_MCOLOR_BACKEND_COLORS);
    if (st == KRYL_SUCCESS) return st;
    char prefix[96];
    snprintf(prefix, sizeof prefix, "amg: the ILU(0) smoother of a level of %lld rows",
             (long long)M->layout->n);
    return kryl_error_prefix(st, prefix);
}

kryl_status amg_smoother_setup(amg_hierarchy *h, int level)
{
    amg_level *L = &h->levels[level];
    switch (h->opts.smoother) {
    case KRYL_AMG_JACOBI: return jacobi_diagonal(h, L, 4.0 / (3.0 * L->lambda_max));
    case KRYL_AMG_L1JACOBI: return l1_diagonal(h, L);
    case KRYL_AMG_CHEBYSHEV: return jacobi_diagonal(h, L, 1.0);
    case KRYL_AMG_MCGS: {
        kryl_solver_options o;
        kryl_solver_options_init(&o);
        o.sweeps = 1;
        o.omega = 1.0;
        L->sweep.kind = KRYL_PRECOND_MCSSOR;
        L->sweep.ctx = h->ctx;
        return kryl_precond_mcssor_create(&L->sweep, L->Ab, &o);
    }
    case KRYL_AMG_ILU0: return ilu0_relaxation(h, L);
    case KRYL_AMG_AUTO_SMOOTHER: break; /* resolved before the setup */
    }
    return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "amg: unknown smoother %d", (int)h->opts.smoother);
}

/* x += M^-1 (b - A x) (x = M^-1 b from zero) for M = diag, one mcgs sweep or ILU(0). */
static kryl_status relax(amg_hierarchy *h, amg_level *L, kryl_vector b, kryl_vector x,
                         bool zero_start)
{
    const kryl_backend_ops *ops = h->ctx->ops;
    kryl_context ctx = h->ctx;
    kryl_vector in = b;
    if (!zero_start) {
        /* r = b - A x */
        KRYL_TRY(ops->spmv(ctx, L->Ab, -1.0, x, 1.0, b, L->r, NULL));
        in = L->r;
    }
    /* x += D^-1 in (x = D^-1 in from zero): the Chebyshev step of degree one, not kept */
    if (L->dinv) return ops->chebyshev_step(ctx, 1.0, in, L->dinv, 0.0, NULL, x, zero_start);
    /* x = M^-1 in from zero, else t = M^-1 in;  x += t */
    KRYL_TRY(L->sweep.apply(&L->sweep, in, zero_start ? x : L->t));
    if (!zero_start) KRYL_TRY(ops->axpby(ctx, 1.0, L->t, 1.0, x));
    return KRYL_SUCCESS;
}

/* Chebyshev iteration of degree `degree` for D^-1 A x = D^-1 b on [lower, upper]. */
static kryl_status chebyshev(amg_hierarchy *h, amg_level *L, kryl_vector b, kryl_vector x,
                             bool zero_start, int degree)
{
    const kryl_backend_ops *ops = h->ctx->ops;
    kryl_context ctx = h->ctx;
    double upper = KRYL_AMG_CHEBYSHEV_MARGIN * L->lambda_max;
    double lower = upper / KRYL_AMG_CHEBYSHEV_RATIO;
    double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower);
    double sigma = theta / delta, rho = 1.0 / sigma;
    /* r = b - A x (from zero: b itself) */
    kryl_vector r = b;
    if (!zero_start) {
        KRYL_TRY(ops->spmv(ctx, L->Ab, -1.0, x, 1.0, b, L->r, NULL));
        r = L->r;
    }
    /* d = D^-1 r / theta;  x += d (x = d from zero); d kept for a next step */
    KRYL_TRY(ops->chebyshev_step(ctx, 1.0 / theta, r, L->dinv, 0.0, degree > 1 ? L->d : NULL, x,
                                 zero_start));
    for (int k = 2; k <= degree; k++) {
        /* r -= A d (from zero: r = b - A d) */
        KRYL_TRY(ops->spmv(ctx, L->Ab, -1.0, L->d, 1.0, r, L->r, NULL));
        r = L->r;
        /* d = rho' rho d + (2 rho' / delta) D^-1 r;  x += d;  rho' = 1 / (2 sigma - rho) */
        double rho_next = 1.0 / (2.0 * sigma - rho);
        KRYL_TRY(ops->chebyshev_step(ctx, 2.0 * rho_next / delta, r, L->dinv, rho_next * rho, L->d,
                                     x, false));
        rho = rho_next;
    }
    return KRYL_SUCCESS;
}

kryl_status amg_smooth(amg_hierarchy *h, int level, kryl_vector b, kryl_vector x, bool zero_start)
{
    amg_level *L = &h->levels[level];
    if (h->opts.smoother == KRYL_AMG_CHEBYSHEV)
        return chebyshev(h, L, b, x, zero_start, h->opts.sweeps);
    for (int s = 0; s < h->opts.sweeps; s++) KRYL_TRY(relax(h, L, b, x, zero_start && s == 0));
    return KRYL_SUCCESS;
}
