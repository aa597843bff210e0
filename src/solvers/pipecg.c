/*
 * Pipelined preconditioned CG (Ghysels & Vanroose, "Hiding global
 * synchronization latency in the preconditioned conjugate gradient
 * algorithm", Parallel Computing 40, 2014; Algorithm 2 of Tiwari &
 * Vadhiyar).  Extra recurrences for s = A p, q = M^-1 s, z = A q, w = A u
 * and m = M^-1 w make the three dot products of an iteration independent
 * of its SpMV, so they form one reduction that can overlap it.  As in
 * section V-B of Tiwari & Vadhiyar, all vector updates, the dot products
 * and the Jacobi preconditioner m = dinv .* w are one fused operation, and
 * alpha, beta are computed from backend scalars inside it.
 *
 * An iteration: pipecg_update, SpMV n = A m, monitor_update.  On one rank,
 * where no reduction needs hiding, a backend with pipecg_spmv_update does
 * the SpMV and the update in one pass instead: n is never stored, and the
 * SpMV's input (m, or w) is double-buffered because rows still read it
 * while it is updated (3n less traffic; one launch per iteration), and
 * where the backend can keep every row's values on chip across steps
 * (pipecg_spmv_steps: small problems, where a step is latency, not
 * bandwidth) the steps up to the next replacement are one launch.  Memory
 * traffic, in vectors of n: with Jacobi the update reads 11 (x r u w m n p
 * s q z dinv) and writes 9: 20n + SpMV; without a preconditioner 7 + 6:
 * 13n + SpMV (CG: 13n and 11n).  Convergence is tested on ||r||, the
 * unpreconditioned residual, like every method here.
 *
 * Rounding errors in the extra recurrences propagate (Cools et al.,
 * "Analyzing the effect of local rounding error propagation on the maximal
 * attainable accuracy of the pipelined CG method", SIAM J. Matrix Anal.
 * Appl. 39, 2018): w drifts from A u, delta - beta gamma/alpha_old from
 * (p, A p), and on ill-conditioned matrices the method stagnates or meets
 * a negative denominator that CG never sees.  So every 50 steps the
 * vectors are recomputed from x and p (their residual replacement: 4
 * SpMVs, 8% more), and pipecg_update restarts the recurrence (beta = 0)
 * instead of breaking down when a denominator of a non-restart step is
 * not positive.  With both, pipecg converged on every SPD test matrix that
 * Jacobi-PCG solves but bcsstk19, within a few percent of PCG's iterations
 * (docs/SOLVERS.md).  Independently, the driver replaces r by b - A x when
 * the recursive residual meets the tolerance and the true one does not,
 * and start() rebuilds every vector from the residual it is given.  In
 * single precision the recurrences can still lose what they reached
 * (1138_bus with Jacobi: 8.6e-4, then 1e+8): each replacement's ||b - A x||
 * keeps the best iterate, one PIPECG_LOST above it stops as stagnated, and
 * finish() returns the best.
 */
#include <math.h>
#include <stdlib.h>

#include "solvers/pipecg.h"
#include "solvers/require_op.h"

typedef struct pipecg_work {
    kryl_pipecg_vectors v;  /* u, m, q NULL without a preconditioner */
    double *scalars;        /* backend: KRYL_PIPECG_SCALARS */
    int since_replacement;  /* steps since the vectors were recomputed */
    bool fused;             /* steps through pipecg_spmv_update */
    bool resident;          /* and batches of them through pipecg_spmv_steps */
    kryl_vector spare;      /* fused, when the step writes the SpMV's input: its other buffer */
    bool swapped;           /* spare and that input have traded places an odd number of times */
    kryl_vector x_best;     /* the iterate of the lowest ||b - A x|| a replacement computed */
    double rr_best;         /* that ||b - A x||^2 (working precision) */
    int64_t best_iteration; /* and its iteration */
    double *check;          /* backend: ||b - A x||^2 of a replacement, completed over the ranks */
} pipecg_work;

/* A replacement whose true ||r|| is this factor above the best one ends
 * the iteration as stagnated: the recurrences have lost what they had
 * reached (single precision on 1138_bus with Jacobi: 2e-3, then 1e+8). */
static const double PIPECG_LOST = 1e3;

kryl_status kryl_pipecg_rebuild(kryl_solver s, const kryl_pipecg_vectors *v, double *scalars)
{
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    kryl_vector u = s->pc ? v->u : v->r, m = s->pc ? v->m : v->w;
    if (s->pc) KRYL_TRY(s->pc->apply(s->pc, v->r, u));
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, u, 0.0, NULL, v->w, s->monitor));
    if (s->pc) KRYL_TRY(s->pc->apply(s->pc, v->w, m));
    KRYL_TRY(ops->dot2(ctx, v->r, v->w, u, kryl_scalar_at(scalars, KRYL_PIPECG_GAMMA)));
    return ops->dot(ctx, v->r, v->r, kryl_scalar_at(scalars, KRYL_PIPECG_RR));
}

kryl_status kryl_pipecg_replace(kryl_solver s, const kryl_pipecg_vectors *v, double *scalars)
{
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    kryl_vector q = s->pc ? v->q : v->s;
    KRYL_TRY(ops->spmv(ctx, s->Aw, -1.0, s->x_work, 1.0, s->b_work, v->r, s->monitor));
    KRYL_TRY(kryl_pipecg_rebuild(s, v, scalars));
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, v->p, 0.0, NULL, v->s, s->monitor));
    if (s->pc) KRYL_TRY(s->pc->apply(s->pc, v->s, q));
    return ops->spmv(ctx, s->Aw, 1.0, q, 0.0, NULL, v->z, s->monitor);
}

/* rr = ||r||^2 of the replaced residual r = b - A x, over the ranks;
 * keep x if it is the best so far; a true ||r|| PIPECG_LOST above the best
 * stops the iteration as stagnated. */
static kryl_status judge_replacement(kryl_solver s, pipecg_work *w)
{
    const kryl_backend_ops *ops = s->ops;
    double rr;
    KRYL_TRY(ops->dot(s->ctx, w->v.r, w->v.r, kryl_scalar_at(w->check, 0)));
    KRYL_TRY(kryl_reduce_begin(s->ctx, kryl_scalar_at(w->check, 0), 1));
    KRYL_TRY(kryl_reduce_end(s->ctx));
    KRYL_TRY(ops->download(s->ctx, &rr, w->check, sizeof rr));
    kryl_monitor m;
    KRYL_TRY(ops->download(s->ctx, &m, s->monitor, sizeof m));
    if (rr < w->rr_best) {
        w->rr_best = rr;
        w->best_iteration = m.iteration;
        /* x_best = x */
        return ops->permute_copy(s->ctx, w->x_best, s->x_work, NULL, KRYL_GATHER, NULL);
    }
    if (!(rr <= PIPECG_LOST * PIPECG_LOST * w->rr_best)) {
        if (m.stop != KRYL_STOP_RUNNING) return KRYL_SUCCESS;
        m.stop = KRYL_STOP_STAGNATED;
        return ops->upload(s->ctx, s->monitor, &m, sizeof m);
    }
    return KRYL_SUCCESS;
}

/* The fused step wrote the SpMV's input (w, or m with Jacobi) to the spare
 * buffer: they trade places. */
static void swap_input(kryl_solver s, pipecg_work *w)
{
    if (w->spare == NULL) return;
    kryl_vector *in = s->pc ? &w->v.m : &w->v.w;
    kryl_vector t = *in;
    *in = w->spare;
    w->spare = t;
    w->swapped = !w->swapped;
}

static kryl_status pipecg_setup(kryl_solver s)
{
    KRYL_REQUIRE_OP(s, "pipecg", pipecg_update);
    KRYL_REQUIRE_OP(s, "pipecg", dot2);
    pipecg_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "pipecg: cannot allocate workspace");
    s->work = w;
    w->v.x = s->x_work;
    kryl_vector *own[] = {&w->v.r, &w->v.w, &w->v.n, &w->v.p, &w->v.s, &w->v.z};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        KRYL_TRY(kryl_solver_work_vector(s, own[i]));
    if (s->pc) {
        KRYL_TRY(kryl_solver_work_vector(s, &w->v.u));
        KRYL_TRY(kryl_solver_work_vector(s, &w->v.m));
        KRYL_TRY(kryl_solver_work_vector(s, &w->v.q));
    }
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->scalars, KRYL_PIPECG_SCALARS * sizeof(double)));
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->check, sizeof(double)));
    KRYL_TRY(kryl_solver_work_vector(s, &w->x_best));
    /* one rank: the SpMV has no reduction to overlap and fuses into the step */
    w->fused = s->ops->pipecg_spmv_update != NULL && kryl_reduce_is_local(s->ctx);
    if (w->fused && (s->pc == NULL || s->pc->dinv)) {
        KRYL_TRY(kryl_solver_work_vector(s, &w->spare));
        /* whether the backend runs many of these steps in one launch */
        if (s->ops->pipecg_spmv_steps)
            KRYL_TRY(s->ops->pipecg_spmv_steps(s->ctx, s->Aw, kryl_scalar_at(w->scalars, 0), &w->v,
                                               s->pc ? s->pc->dinv : NULL, w->spare,
                                               s->cg_coefficients, s->monitor, 0, &w->resident));
    }
    /* steps launched one by one judge each replacement on the host
     * (judge_replacement reads ||r||), which a recorded graph cannot replay:
     * no graphs for them */
    if (!w->resident) s->period = 0;
    if (s->options.record_history) {
        size_t entries = 2 * (size_t)(s->options.max_iterations + 1);
        KRYL_TRY(s->ops->alloc(s->ctx, (void **)&s->cg_coefficients, entries * sizeof(double)));
    }
    return KRYL_SUCCESS;
}

static kryl_status pipecg_start(kryl_solver s, kryl_vector r0)
{
    pipecg_work *w = s->work;
    kryl_pipecg_vectors *v = &w->v;
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    /* every start from the same buffers, as the steps of a recorded graph expect */
    if (w->swapped) swap_input(s, w);
    /* r = r0;  u, w, m and gamma, delta, rr from it;  n = A m (a fused step makes its own) */
    KRYL_TRY(ops->permute_copy(ctx, v->r, r0, NULL, KRYL_GATHER, NULL));
    /* x_best = x, the start's ||r0|| */
    KRYL_TRY(ops->permute_copy(ctx, w->x_best, s->x_work, NULL, KRYL_GATHER, NULL));
    w->rr_best = INFINITY;
    KRYL_TRY(judge_replacement(s, w));
    KRYL_TRY(kryl_pipecg_rebuild(s, &w->v, w->scalars));
    if (!w->fused)
        KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, s->pc ? v->m : v->w, 0.0, NULL, v->n, s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, kryl_scalar_at(w->scalars, 0), 3));
    KRYL_TRY(kryl_reduce_end(ctx));
    /* p = 0 and (gamma_old, alpha_old) = (p'p, p'p) = 0 make the first step
     * a fresh start on the backend (the textbook p_{-1} = 0), so every step
     * queues the same operations and graphs of them replay */
    KRYL_TRY(ops->fill(ctx, v->p, 0.0));
    KRYL_TRY(ops->dot2(ctx, v->p, v->p, v->p, kryl_scalar_at(w->scalars, KRYL_PIPECG_GAMMA_OLD)));
    w->since_replacement = 0;
    return ops->monitor_update(ctx, s->monitor, kryl_scalar_at(w->scalars, KRYL_PIPECG_RR), 0);
}

/* Steps since the last replacement; every PIPECG_REPLACE_INTERVAL-th
 * recomputes the vectors. */
static kryl_status count_step(kryl_solver s, pipecg_work *w)
{
    if (++w->since_replacement < PIPECG_REPLACE_INTERVAL) return KRYL_SUCCESS;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    w->since_replacement = 0;
    KRYL_TRY(kryl_pipecg_replace(s, &w->v, w->scalars));
    return judge_replacement(s, w);
}

/* One rank: n = A m, the updates and the reduction in one operation, ||r||
 * recorded by it; then m = M^-1 w for a preconditioner other than Jacobi. */
static kryl_status fused_step(kryl_solver s, pipecg_work *w)
{
    kryl_pipecg_vectors *v = &w->v;
    kryl_vector dinv = s->pc ? s->pc->dinv : NULL;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* n = A m;  alpha, beta;  z q s p x r u w updates;  m' = dinv .* w;  gamma, delta, rr */
    KRYL_TRY(s->ops->pipecg_spmv_update(s->ctx, s->Aw, kryl_scalar_at(w->scalars, 0), v, dinv,
                                        w->spare, s->cg_coefficients, s->monitor, true));
    swap_input(s, w);
    KRYL_TRY(count_step(s, w));
    if (s->pc == NULL || dinv) return KRYL_SUCCESS;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
    /* m = M^-1 w */
    return s->pc->apply(s->pc, v->w, v->m);
}

/* `count` fused steps in launches of many (pipecg_spmv_steps), each batch
 * ending at the next replacement of the vectors. */
static kryl_status pipecg_steps(kryl_solver s, int64_t count, bool *queued)
{
    pipecg_work *w = s->work;
    kryl_vector dinv = s->pc ? s->pc->dinv : NULL;
    *queued = w->resident;
    for (int64_t left = count; w->resident && left > 0;) {
        int64_t batch = PIPECG_REPLACE_INTERVAL - w->since_replacement;
        if (batch > left) batch = left;
        bool launched = false;
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
        /* batch times: n = A m;  alpha, beta;  z q s p x r u w updates;
         * m' = dinv .* w;  gamma, delta, rr recorded */
        KRYL_TRY(s->ops->pipecg_spmv_steps(s->ctx, s->Aw, kryl_scalar_at(w->scalars, 0), &w->v,
                                           dinv, w->spare, s->cg_coefficients, s->monitor, batch,
                                           &launched));
        if (!launched)
            return KRYL_ERROR(KRYL_ERR_INTERNAL, "pipecg: the backend stopped taking batches");
        if (batch % 2) swap_input(s, w);
        w->since_replacement += batch - 1;
        KRYL_TRY(count_step(s, w));
        left -= batch;
    }
    return KRYL_SUCCESS;
}

static kryl_status pipecg_step(kryl_solver s)
{
    pipecg_work *w = s->work;
    kryl_pipecg_vectors *v = &w->v;
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    kryl_vector dinv = s->pc ? s->pc->dinv : NULL; /* a pointwise M fuses into the update */
    kryl_vector m = s->pc ? v->m : v->w;

    /* with rank-local sums already global, the update records ||r|| itself */
    bool fused_record = kryl_reduce_is_local(ctx);

    if (w->fused) return fused_step(s, w);
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* alpha, beta;  z q s p x r u w updates;  m = dinv .* w;  gamma, delta, rr;
     * (alpha, beta) recorded for kryl_solver_spectrum */
    KRYL_TRY(ops->pipecg_update(ctx, kryl_scalar_at(w->scalars, 0), 0, v, dinv, s->cg_coefficients,
                                s->monitor, fused_record));
    KRYL_TRY(count_step(s, w));
    /* the one reduction of the iteration, overlapping the SpMV */
    KRYL_TRY(kryl_reduce_begin(ctx, kryl_scalar_at(w->scalars, 0), 3));
    if (s->pc && !dinv) {
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
        /* m = M^-1 w */
        KRYL_TRY(s->pc->apply(s->pc, v->w, m));
    }
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* n = A m */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, m, 0.0, NULL, v->n, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    KRYL_TRY(kryl_reduce_end(ctx));
    /* record ||r||; stop when it meets the tolerance */
    if (fused_record) return KRYL_SUCCESS;
    return ops->monitor_update(ctx, s->monitor, kryl_scalar_at(w->scalars, KRYL_PIPECG_RR), 1);
}

/* A stop other than convergence: x = x_best where a replacement computed a
 * lower ||b - A x|| than the last x has (r = b - A x recomputed for it). */
static kryl_status pipecg_finish(kryl_solver s)
{
    pipecg_work *w = s->work;
    kryl_monitor m;
    KRYL_TRY(s->ops->download(s->ctx, &m, s->monitor, sizeof m));
    if (m.stop == KRYL_STOP_CONVERGED) return KRYL_SUCCESS;
    const double best = w->rr_best;
    /* r = b - A x;  its ||r||^2 */
    KRYL_TRY(s->ops->spmv(s->ctx, s->Aw, -1.0, s->x_work, 1.0, s->b_work, w->v.r, NULL));
    KRYL_TRY(judge_replacement(s, w));
    if (w->rr_best < best) return KRYL_SUCCESS;
    s->x_iteration = w->best_iteration;
    /* x = x_best */
    return s->ops->permute_copy(s->ctx, s->x_work, w->x_best, NULL, KRYL_GATHER, NULL);
}

static void pipecg_destroy(kryl_solver s)
{
    pipecg_work *w = s->work;
    kryl_vector *own[] = {&w->v.r, &w->v.w, &w->v.n, &w->v.p,   &w->v.s,   &w->v.z,
                          &w->v.u, &w->v.m, &w->v.q, &w->spare, &w->x_best};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) kryl_vector_destroy(own[i]);
    if (w->scalars) s->ops->release(s->ctx, w->scalars);
    if (w->check) s->ops->release(s->ctx, w->check);
    if (s->cg_coefficients) s->ops->release(s->ctx, s->cg_coefficients);
    s->cg_coefficients = NULL;
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_pipecg = {
    .name = "pipecg",
    .needs_symmetric = true,
    .period = PIPECG_REPLACE_INTERVAL,
    .setup = pipecg_setup,
    .start = pipecg_start,
    .step = pipecg_step,
    .steps = pipecg_steps,
    .finish = pipecg_finish,
    .destroy = pipecg_destroy,
};
