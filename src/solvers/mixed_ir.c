/*
 * Mixed-precision iterative refinement (Buttari et al., "Using mixed
 * precision for sparse matrix computations to enhance the performance
 * while achieving 64-bit accuracy", ACM TOMS 34, 2008; the scheme Cevahir
 * et al. 2009 build on).  x and r = b - A x are double and computed with
 * the double matrix; each refinement step solves A d = r approximately in
 * single precision with the caller's method (CG/PCG/pipecg for symmetric
 * A, GMRES/BiCGSTAB otherwise) until it has reduced the residual by
 * options.inner_rtol or run options.inner_iterations steps, then updates
 * x += omega d with the step length the inner method's own optimality
 * suggests (omega = 1 for an exact d): for symmetric positive definite A
 * omega = (r, d)/(A d, d) minimises the A-norm of the error along d (as CG
 * does), otherwise omega = (r, A d)/(A d, A d) minimises ||r - omega A d||
 * (as GMRES does).  So a poor inner solve can slow the refinement but
 * never make the error grow, and a NaN from it stops the iteration before
 * it reaches x.  While the inner solves contract, the
 * error shrinks by about inner_rtol per step down to double precision's
 * floor: 1e-12 is reached where single precision alone stalls near 1e-7.
 * An iteration of the monitor is one refinement step.
 *
 * Memory traffic per step: the inner solve, d to double 3n, t = A d
 * (SpMV), the two dots 3n, x += omega d (with the recursive r -= omega t)
 * 6n, r = b - A x (SpMV + 2n), r'r n: 15n + 2 SpMV.
 */
#include <stdlib.h>

#include "solvers/mixed.h"
#include "solvers/require_op.h"

typedef struct ir_work {
    kryl_vector r, d, t; /* double */
    double *scalars;     /* backend: IR_* */
} ir_work;

enum { IR_RR = 0, IR_NUM, IR_DEN, IR_RR_COPY, IR_SCALARS };

static kryl_scalar at(ir_work *w, int k) { return kryl_scalar_at(w->scalars, k); }

static kryl_status ir_setup(kryl_solver s)
{
    KRYL_REQUIRE_OP(s, "mixed-precision iterative refinement", monitor_restart);
    KRYL_REQUIRE_OP(s, "mixed-precision iterative refinement", dot2);
    ir_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "ir: cannot allocate workspace");
    s->work = w;
    KRYL_TRY(kryl_solver_work_vector(s, &w->r));
    KRYL_TRY(kryl_solver_work_vector(s, &w->d));
    KRYL_TRY(kryl_solver_work_vector(s, &w->t));
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->scalars, IR_SCALARS * sizeof(double)));
    return kryl_inner_create(s);
}

/* rr = r'r, completed over the ranks */
static kryl_status residual_norm(kryl_solver s, ir_work *w)
{
    KRYL_TRY(s->ops->dot(s->ctx, w->r, w->r, at(w, IR_RR)));
    KRYL_TRY(kryl_reduce_begin(s->ctx, at(w, IR_RR), 1));
    return kryl_reduce_end(s->ctx);
}

static kryl_status ir_start(kryl_solver s, kryl_vector r0)
{
    ir_work *w = s->work;
    /* r = r0;  rr = r'r */
    KRYL_TRY(s->ops->permute_copy(s->ctx, w->r, r0, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(residual_norm(s, w));
    return s->ops->monitor_update(s->ctx, s->monitor, at(w, IR_RR), 0);
}

static kryl_status ir_step(kryl_solver s)
{
    ir_work *w = s->work;
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    double rtol = s->options.inner_rtol;

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
    /* d ~ A^{-1} r in single precision (d = 0 once the monitor has stopped) */
    KRYL_TRY(kryl_inner_solve(s, w->r, at(w, IR_RR), rtol * rtol, w->d));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* t = A d */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, w->d, 0.0, NULL, w->t, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* symmetric A: (num, den) = (r'd, t'd);  else (r't, t't) */
    KRYL_TRY(
        ops->dot2(ctx, w->r, w->t, s->inner->method->needs_symmetric ? w->d : w->t, at(w, IR_NUM)));
    KRYL_TRY(kryl_reduce_begin(ctx, at(w, IR_NUM), 2));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* omega = num/den;  x += omega d  (den <= 0: no usable d, BREAKDOWN) */
    KRYL_TRY(ops->cg_update_xr(ctx, at(w, IR_NUM), at(w, IR_DEN), w->d, w->t, s->x_work, w->r, NULL,
                               NULL, at(w, IR_RR_COPY), at(w, IR_RR), s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* r = b - A x, in double with the double matrix */
    KRYL_TRY(ops->spmv(ctx, s->Aw, -1.0, s->x_work, 1.0, s->b_work, w->r, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* record ||r||; stop when it meets the tolerance */
    KRYL_TRY(residual_norm(s, w));
    return ops->monitor_update(ctx, s->monitor, at(w, IR_RR), 1);
}

static void ir_destroy(kryl_solver s)
{
    ir_work *w = s->work;
    kryl_solver_destroy(&s->inner);
    kryl_vector_destroy(&w->r);
    kryl_vector_destroy(&w->d);
    kryl_vector_destroy(&w->t);
    if (w->scalars) s->ops->release(s->ctx, w->scalars);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_mixed_ir = {
    .name = "ir",
    .period = 1,
    .inner_solver = true,
    .needs_symmetric = false, /* the inner solver checks what its method needs */
    .setup = ir_setup,
    .start = ir_start,
    .step = ir_step,
    .destroy = ir_destroy,
};
