/*
 * BiCGSTAB (van der Vorst, SIAM J. Sci. Stat. Comput. 13, 1992), right-
 * preconditioned (Saad, "Iterative Methods for Sparse Linear Systems",
 * Alg. 7.7 applied to A M^-1), so r is the true residual:
 *   v = A M^-1 p;  alpha = rho/(r^, v);  s = r - alpha v;
 *   t = A M^-1 s;  omega = (t, s)/(t, t);
 *   x += alpha M^-1 p + omega M^-1 s;  r = s - omega t;
 *   rho' = (r^, r);  beta = (rho'/rho)(alpha/omega);  p = r + beta (p - omega v).
 * r^ = r0.  Breakdowns stop the iteration through the monitor, the
 * operation that finds them changing nothing: (r^, v) = 0 in
 * bicgstab_update_s; rho' = 0 or omega = 0 in bicgstab_update_p.  omega =
 * 0 still applies the half step x += alpha M^-1 p, r = s, which is exact
 * when s = 0.
 *
 * An iteration: 2 SpMVs, 3 reductions.  Memory traffic without a
 * preconditioner (s overwrites r, p_hat = p, s_hat = s): (r^,v) 2n, s 3n,
 * (t,s),(t,t) 2n, x,r update 7n, p update 4n: 18n + 2 SpMV; with Jacobi
 * (fused into the updates) 23n + 2 SpMV.
 */
#include <stdlib.h>

#include "solvers/require_op.h"

typedef struct bicgstab_work {
    kryl_vector r, r_hat, p, v, t; /* r holds s between the half steps */
    kryl_vector p_hat, s_hat;      /* M^-1 p, M^-1 s: NULL without a preconditioner */
    double *scalars;               /* backend: KRYL_BICG_SCALARS */
} bicgstab_work;

static kryl_scalar at(bicgstab_work *w, int k) { return kryl_scalar_at(w->scalars, k); }

static kryl_status bicgstab_setup(kryl_solver s)
{
    KRYL_REQUIRE_OP(s, "bicgstab", dot2);
    KRYL_REQUIRE_OP(s, "bicgstab", bicgstab_update_s);
    KRYL_REQUIRE_OP(s, "bicgstab", bicgstab_update_xr);
    KRYL_REQUIRE_OP(s, "bicgstab", bicgstab_update_p);
    bicgstab_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "bicgstab: cannot allocate workspace");
    s->work = w;
    kryl_vector *own[] = {&w->r, &w->r_hat, &w->p, &w->v, &w->t};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        KRYL_TRY(kryl_solver_work_vector(s, own[i]));
    if (s->pc) {
        KRYL_TRY(kryl_solver_work_vector(s, &w->p_hat));
        KRYL_TRY(kryl_solver_work_vector(s, &w->s_hat));
    }
    return s->ops->alloc(s->ctx, (void **)&w->scalars, KRYL_BICG_SCALARS * sizeof(double));
}

/* out = x'y, completed over the ranks */
static kryl_status reduced_dot(kryl_solver s, kryl_vector x, kryl_vector y, kryl_scalar out)
{
    KRYL_TRY(s->ops->dot(s->ctx, x, y, out));
    KRYL_TRY(kryl_reduce_begin(s->ctx, out, 1));
    return kryl_reduce_end(s->ctx);
}

static kryl_status bicgstab_start(kryl_solver s, kryl_vector r0)
{
    bicgstab_work *w = s->work;
    kryl_context ctx = s->ctx;
    /* r = r0;  r^ = r0;  p = r0;  p_hat = M^-1 p */
    KRYL_TRY(s->ops->permute_copy(ctx, w->r, r0, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(s->ops->permute_copy(ctx, w->r_hat, w->r, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(s->ops->permute_copy(ctx, w->p, w->r, NULL, KRYL_GATHER, NULL));
    if (s->pc) KRYL_TRY(s->pc->apply(s->pc, w->p, w->p_hat));
    /* rho = r^'r;  r^'r^;  rr = r'r */
    KRYL_TRY(reduced_dot(s, w->r_hat, w->r, at(w, KRYL_BICG_RHO)));
    KRYL_TRY(reduced_dot(s, w->r_hat, w->r_hat, at(w, KRYL_BICG_RHAT2)));
    KRYL_TRY(reduced_dot(s, w->r, w->r, at(w, KRYL_BICG_RR)));
    return s->ops->monitor_update(ctx, s->monitor, at(w, KRYL_BICG_RR), 0);
}

static kryl_status bicgstab_step(kryl_solver s)
{
    bicgstab_work *w = s->work;
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    kryl_precond *pc = s->pc;
    kryl_vector dinv = pc ? pc->dinv : NULL; /* a pointwise M fuses into the updates */
    kryl_vector p_hat = pc ? w->p_hat : w->p, s_hat = pc ? w->s_hat : w->r;

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* v = A p_hat */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, p_hat, 0.0, NULL, w->v, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* rv = r^'v */
    KRYL_TRY(reduced_dot(s, w->r_hat, w->v, at(w, KRYL_BICG_RV)));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* alpha = rho/rv;  s = r - alpha v (in r);  s_hat = dinv .* s */
    KRYL_TRY(ops->bicgstab_update_s(ctx, at(w, 0), w->r, w->v, dinv, s_hat, s->monitor));
    if (pc && !dinv) {
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
        /* s_hat = M^-1 s */
        KRYL_TRY(pc->apply(pc, w->r, s_hat));
    }
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* t = A s_hat */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, s_hat, 0.0, NULL, w->t, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* ts = t's;  tt = t't */
    KRYL_TRY(ops->dot2(ctx, w->r, w->t, w->t, at(w, KRYL_BICG_TS)));
    KRYL_TRY(kryl_reduce_begin(ctx, at(w, KRYL_BICG_TS), 2));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* omega = ts/tt;  x += alpha p_hat + omega s_hat;  r = s - omega t;  rr;  rho' */
    KRYL_TRY(ops->bicgstab_update_xr(ctx, at(w, 0), s->x_work, w->r, p_hat, s_hat, w->t, w->r_hat,
                                     s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, at(w, KRYL_BICG_RR), 2));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* record ||r||; stop when it meets the tolerance */
    KRYL_TRY(ops->monitor_update(ctx, s->monitor, at(w, KRYL_BICG_RR), 1));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* beta = (rho'/rho)(alpha/omega);  p = r + beta (p - omega v);  p_hat = dinv .* p */
    KRYL_TRY(ops->bicgstab_update_p(ctx, at(w, 0), w->p, w->r, w->v, dinv, p_hat, s->monitor));
    if (pc && !dinv) {
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
        /* p_hat = M^-1 p */
        KRYL_TRY(pc->apply(pc, w->p, p_hat));
    }
    return KRYL_SUCCESS;
}

static void bicgstab_destroy(kryl_solver s)
{
    bicgstab_work *w = s->work;
    kryl_vector *own[] = {&w->r, &w->r_hat, &w->p, &w->v, &w->t, &w->p_hat, &w->s_hat};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) kryl_vector_destroy(own[i]);
    if (w->scalars) s->ops->release(s->ctx, w->scalars);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_bicgstab = {
    .name = "bicgstab",
    .period = 1,
    .needs_symmetric = false,
    .setup = bicgstab_setup,
    .start = bicgstab_start,
    .step = bicgstab_step,
    .breakdown_restarts = 10,
    .destroy = bicgstab_destroy,
};
