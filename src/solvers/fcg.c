/*
 * Flexible CG: the outer iteration of the inner-outer mixed-precision
 * scheme for symmetric positive definite A (Cevahir et al. 2009, section
 * 2.2, after Buttari et al. 2008): CG in double whose preconditioner z =
 * B(r) is the caller's method (CG, PCG, pipecg) in single precision from
 * zero, run until it has reduced the residual by options.inner_rtol (or
 * reached half the outer tolerance) or for options.inner_iterations steps.  B changes from step to
 * step (it is not even linear), so beta takes the Polak-Ribiere form of Golub & Ye (SIAM J. Sci.
 * Comput. 21, 1999) and Notay (SIAM J. Sci. Comput. 22, 2000): beta = (r_new - r_old,
 * z_new)/(r_old, z_old) = -(q, z_new)/(p, q), using r_new - r_old = -alpha q with q = A p.  The
 * outer residual is double, so the method reaches double accuracy at the cost of single- precision
 * inner iterations.
 *
 * Memory traffic per outer iteration: SpMV, p'q 2n, x,r update 6n, the
 * inner solve, z to double 3n, (r'z, q'z) 3n, p update 3n: 17n + SpMV.
 */
#include <stdlib.h>

#include "solvers/mixed.h"
#include "solvers/require_op.h"

typedef struct fcg_work {
    kryl_vector r, z, p, q; /* double */
    double *scalars;        /* backend: FCG_* */
} fcg_work;

enum { FCG_RZ = 0, FCG_QZ, FCG_PQ, FCG_RR, FCG_RR_COPY, FCG_SCALARS };

static kryl_scalar at(fcg_work *w, int k) { return kryl_scalar_at(w->scalars, k); }

static kryl_status fcg_setup(kryl_solver s)
{
    KRYL_REQUIRE_OP(s, "inner-outer (flexible CG)", monitor_restart);
    KRYL_REQUIRE_OP(s, "inner-outer (flexible CG)", dot2);
    KRYL_REQUIRE_OP(s, "inner-outer (flexible CG)", fcg_update_p);
    fcg_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "fcg: cannot allocate workspace");
    s->work = w;
    kryl_vector *own[] = {&w->r, &w->z, &w->p, &w->q};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        KRYL_TRY(kryl_solver_work_vector(s, own[i]));
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->scalars, FCG_SCALARS * sizeof(double)));
    return kryl_inner_create(s);
}

/* z = B(r) in single precision;  (rz, qz) = (r'z, q'z) */
static kryl_status precondition(kryl_solver s, fcg_work *w)
{
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
    KRYL_TRY(kryl_inner_solve(s, w->r, at(w, FCG_RR), s->options.inner_rtol * s->options.inner_rtol,
                              w->z));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    KRYL_TRY(s->ops->dot2(s->ctx, w->r, w->q, w->z, at(w, FCG_RZ)));
    KRYL_TRY(kryl_reduce_begin(s->ctx, at(w, FCG_RZ), 2));
    return kryl_reduce_end(s->ctx);
}

static kryl_status fcg_start(kryl_solver s, kryl_vector r0)
{
    fcg_work *w = s->work;
    kryl_context ctx = s->ctx;
    /* r = r0;  rr = r'r */
    KRYL_TRY(s->ops->permute_copy(ctx, w->r, r0, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(s->ops->dot(ctx, w->r, w->r, at(w, FCG_RR)));
    KRYL_TRY(kryl_reduce_begin(ctx, at(w, FCG_RR), 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(s->ops->monitor_update(ctx, s->monitor, at(w, FCG_RR), 0));
    /* z = B(r);  rz = r'z (q'z is not used yet);  p = z */
    KRYL_TRY(s->ops->fill(ctx, w->q, 0.0));
    KRYL_TRY(precondition(s, w));
    return s->ops->permute_copy(ctx, w->p, w->z, NULL, KRYL_GATHER, NULL);
}

static kryl_status fcg_step(kryl_solver s)
{
    fcg_work *w = s->work;
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* q = A p */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, w->p, 0.0, NULL, w->q, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* pq = p'q */
    KRYL_TRY(ops->dot(ctx, w->p, w->q, at(w, FCG_PQ)));
    KRYL_TRY(kryl_reduce_begin(ctx, at(w, FCG_PQ), 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* alpha = rz/pq;  x += alpha p;  r -= alpha q;  rr = r'r (twice) */
    KRYL_TRY(ops->cg_update_xr(ctx, at(w, FCG_RZ), at(w, FCG_PQ), w->p, w->q, s->x_work, w->r, NULL,
                               NULL, at(w, FCG_RR_COPY), at(w, FCG_RR), s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, at(w, FCG_RR), 2));
    KRYL_TRY(kryl_reduce_end(ctx));
    /* record ||r||; stop when it meets the tolerance */
    KRYL_TRY(ops->monitor_update(ctx, s->monitor, at(w, FCG_RR), 1));
    /* z = B(r);  rz = r'z;  qz = q'z */
    KRYL_TRY(precondition(s, w));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* beta = -qz/pq;  p = z + beta p */
    return ops->fcg_update_p(ctx, at(w, FCG_QZ), at(w, FCG_PQ), w->z, w->p, s->monitor);
}

static void fcg_destroy(kryl_solver s)
{
    fcg_work *w = s->work;
    kryl_solver_destroy(&s->inner);
    kryl_vector *own[] = {&w->r, &w->z, &w->p, &w->q};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) kryl_vector_destroy(own[i]);
    if (w->scalars) s->ops->release(s->ctx, w->scalars);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_fcg = {
    .name = "inner-outer cg",
    .period = 1,
    .inner_solver = true,
    .needs_symmetric = true,
    .setup = fcg_setup,
    .start = fcg_start,
    .step = fcg_step,
    .destroy = fcg_destroy,
};
