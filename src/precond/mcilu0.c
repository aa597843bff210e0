/* Multicolor ILU(0) preconditioner (Li & Saad, GPU-accelerated
 * preconditioned iterative linear solvers, J. Supercomputing 63 (2013),
 * section 5.3 and Figure 4; Saad, Iterative Methods for Sparse Linear
 * Systems, 2nd ed., SIAM 2003, section 12.4.3): M = L U, the ILU(0) of
 * P_c A P_c^T with P_c the greedy color order of mcolor.c.  Rows of one
 * color are not coupled, so ILU(0) creates no entry between them either
 * (its pattern is that of the matrix): L and U have one level per color and
 * the level-scheduled triangular solves are the per-color products and
 * diagonal scalings of the paper.  The factorization is ilu.c's, on a
 * private color order (r gathered into it, z scattered back); with a
 * sparsified coloring the couplings inside one color are dropped before
 * factoring (mcssor.c says why).  The backend factors in the color order
 * itself where it can (on the device for cuda: P A P^T copied there,
 * analysed and factored; ilu_backend.c).
 *
 * ILU(0) of a symmetric matrix has U = D L^T, so M = L D L^T is symmetric
 * and, when every pivot is positive, the same M as IC(0) (L D^{1/2}).  For
 * a symmetric A with a CG method (cg, pcg, pipecg) the factorization is
 * therefore IC(0) in the color order, stored as L L^T, and, as for mic0,
 * shifted (A + alpha diag(A)) with a warning when a pivot is not positive,
 * so M stays symmetric positive definite.  Nonsymmetric A is for gmres and
 * bicgstab (CG refuses it before any preconditioner is built). */
#include <stdio.h>
#include <stdlib.h>

#include "precond/ilu_backend.h"
#include "precond/mcolor.h"

typedef struct mcilu0_data {
    kryl_precond factor; /* the factorization in the color order */
    kryl_mcolor mc;      /* the coloring, kept for refactoring with new values */
} mcilu0_data;

static kryl_status mcilu0_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    mcilu0_data *d = pc->data;
    /* z = U^{-1} L^{-1} r in the color order */
    return d->factor.apply(&d->factor, r, z);
}

/* New values: the same colors, L and U factored again. */
static kryl_status mcilu0_update(kryl_precond *pc)
{
    mcilu0_data *d = pc->data;
    return kryl_precond_factor_update(&d->factor);
}

static void mcilu0_destroy(kryl_precond *pc)
{
    mcilu0_data *d = pc->data;
    if (d == NULL) return;
    if (d->factor.destroy) d->factor.destroy(&d->factor);
    kryl_mcolor_free(&d->mc);
    free(d);
    pc->data = NULL;
}

kryl_status kryl_precond_mcilu0_create_keeping(kryl_precond *pc, kryl_matrix A,
                                               const kryl_solver_options *opts,
                                               int32_t backend_colors)
{
    KRYL_TRY(kryl_matrix_need_host(A, kryl_precond_name(pc->kind)));
    bool ic =
        kryl_precond_for_cg(opts) && kryl_host_matrix_is_symmetric(A->host, opts->symmetry_tol);
    mcilu0_data *d = calloc(1, sizeof *d);
    if (d == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "mcilu0: out of memory");
    pc->data = d;
    pc->apply = mcilu0_apply;
    pc->update = mcilu0_update;
    pc->destroy = mcilu0_destroy;
    d->factor.kind = pc->kind;
    d->factor.ctx = pc->ctx;
    /* colored from A's storage where it is CSR */
    const kryl_precond_kind kind = ic ? KRYL_PRECOND_MIC0 : KRYL_PRECOND_ILU0;
    const bool backend_orders = kryl_ilu_backend_applies(pc, A, kind, opts, false, false) &&
                                kryl_ilu_backend_orders(pc->ctx, A);
    const bool stored = pc->ctx->ops->matrix_csr_arrays && kryl_matrix_natural_csr(A);
    kryl_mcolor_arrays on = {0};
    if (stored) KRYL_TRY(kryl_mcolor_arrays_get(pc->ctx, A, &on));
    kryl_status st =
        kryl_mcolor_create(pc, A, stored ? &on : NULL,
                           backend_orders ? backend_colors : KRYL_MCOLOR_FEW_COLORS, &d->mc);
    kryl_mcolor_arrays_release(pc->ctx, &on);
    KRYL_TRY(st);
    /* a coloring of the whole graph leaves no coupling inside a color to drop:
     * without a filter the backend factors (on the device for cuda) */
    kryl_precond_filter filter = {kryl_mcolor_filter, &d->mc};
    kryl_precond_ordering ordering = {.order = d->mc.c.perm};
    st = kryl_precond_factor_create_ordered(&d->factor, A, opts, kind,
                                            d->mc.dropped > 0 ? &filter : NULL, &ordering);
    if (st == KRYL_ERR_ZERO_DIAGONAL || st == KRYL_ERR_NOT_POSITIVE_DEFINITE) {
        /* every a_ii is nonzero (mcolor.c): the pivot vanished in the elimination */
        char why[512];
        snprintf(why, sizeof why, "%s", kryl_last_error());
        st = KRYL_ERROR(st, "%s (rows counted in the color order); use mcssor or ilutp", why);
    }
    if (st == KRYL_SUCCESS) {
        snprintf(pc->info, sizeof pc->info, "%s", d->factor.info);
        kryl_log(pc->ctx, KRYL_LOG_INFO,
                 "mcilu0: %s in the color order, %d colors (= levels of L and U)",
                 ic ? "IC(0) (symmetric A, CG method)" : "ILU(0)", (int)d->mc.c.ncolors);
    }
    return st;
}

kryl_status kryl_precond_mcilu0_create(kryl_precond *pc, kryl_matrix A,
                                       const kryl_solver_options *opts)
{
    return kryl_precond_mcilu0_create_keeping(pc, A, opts, KRYL_MCOLOR_FEW_COLORS);
}
