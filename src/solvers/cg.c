/*
 * Conjugate gradients, preconditioned when the solver has a preconditioner
 * (Hestenes & Stiefel 1952; the PCG loop of Saad, "Iterative Methods for
 * Sparse Linear Systems", Alg. 9.1).  Scalars never leave the backend: the
 * fused updates divide rz/pq and rz_new/rz themselves (Buatois et al. 2009
 * keep the whole loop on the GPU the same way).
 *
 * Without a preconditioner or with a pointwise one (Jacobi), where the
 * backend has the operations, a step takes one reduction
 * (cg_step_one_reduction); otherwise two.  Memory traffic per iteration of
 * the two-reduction step, in vector entries of n: SpMV (A once, p once, q
 * once) + p'q 2n + x,r update 6n (8n with z = dinv.*r fused in) + p update
 * 3n: 11n + SpMV without a preconditioner, 13n + SpMV with Jacobi.
 */
#include <stdlib.h>

#include "solvers/solver_impl.h"

typedef struct cg_work {
    kryl_vector r, z, p, q; /* z aliases r without a preconditioner */
    double *scalars;        /* backend: two (rz, rr) pairs used in turn, pq, then the
                               terms of a one-reduction step */
    int current;            /* which pair holds this iteration's rz */
    bool one_reduction;     /* steps by cg_step_one_reduction */
    bool resident;          /* and batches of them through cg1_steps */
    void *scratch;          /* cg1_steps' (backend memory) */
} cg_work;

enum { CG_PQ = 4, CG_TERMS = 5, CG_SCALARS = CG_TERMS + KRYL_CG1_TERMS };

static kryl_scalar rz_of(cg_work *w, int pair) { return kryl_scalar_at(w->scalars, 2 * pair); }
static kryl_scalar rr_of(cg_work *w, int pair) { return kryl_scalar_at(w->scalars, 2 * pair + 1); }

/* Whether steps can take one reduction: in double precision with no
 * preconditioner or a pointwise one, where the backend has the operations.
 * In single precision the expansion of r'z misses the rounding of the
 * stored r by about eps_single, and beta taken from it slows CG's last
 * phase (7-point 160^3, reliable updates on an H100: 530 single iterations
 * against 494). */
static bool one_reduction_possible(kryl_solver s)
{
    const kryl_backend_ops *ops = s->ops;
    if (!ops->cg1_terms || !ops->cg1_update || (s->pc && !s->pc->dinv)) return false;
    return s->Aw->precision == KRYL_DOUBLE;
}

/* Whether the backend runs batches of one-reduction steps in one launch
 * (cg1_steps: small matrices on cuda, 2-D 300^2 on an H100); its scratch
 * is kept where it does. */
static kryl_status resident_steps(kryl_solver s, cg_work *w)
{
    const kryl_backend_ops *ops = s->ops;
    if (!ops->cg1_steps || !kryl_reduce_is_local(s->ctx)) return KRYL_SUCCESS;
    /* steps = 0: only whether it would */
    KRYL_TRY(ops->cg1_steps(s->ctx, s->Aw, w->p, s->x_work, w->r, s->pc ? s->pc->dinv : NULL, NULL,
                            s->monitor, 0, &w->resident));
    if (!w->resident) return KRYL_SUCCESS;
    size_t bytes = 6 * (size_t)s->x_work->n * sizeof(double);
    return ops->alloc(s->ctx, &w->scratch, bytes > 0 ? bytes : sizeof(double));
}

static kryl_status cg_setup(kryl_solver s)
{
    cg_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cg: cannot allocate workspace");
    s->work = w;
    KRYL_TRY(kryl_solver_work_vector(s, &w->r));
    KRYL_TRY(kryl_solver_work_vector(s, &w->p));
    KRYL_TRY(kryl_solver_work_vector(s, &w->q));
    if (s->pc) KRYL_TRY(kryl_solver_work_vector(s, &w->z));
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->scalars, CG_SCALARS * sizeof(double)));
    if (!one_reduction_possible(s)) return KRYL_SUCCESS;
    KRYL_TRY(resident_steps(s, w));
    /* launched singly, a small matrix's SpMV with p'q fused (cuda) saves more
     * than the pass one reduction saves (2-D 300^2 on an H100: 13.5 against
     * 14.3 us per iteration) */
    const kryl_backend_ops *ops = s->ops;
    bool fuses = ops->spmv_dot_fuses && ops->spmv_dot_fuses(s->ctx, s->Aw);
    w->one_reduction = w->resident || !fuses;
    /* the traffic counted above: 10n (12n with Jacobi) with one reduction,
     * 9n (11n) with two and p'q fused into the SpMV */
    s->iteration_vectors = (w->one_reduction ? 10 : 9) + (s->pc ? 2 : 0);
    return KRYL_SUCCESS;
}

/* r = r0 (in the working precision);  z = M^{-1} r;  this iteration's rz and
 * rr from them, in pair 0 as after a start (a recorded graph of the steps
 * replays from that pair).  p is not touched. */
static kryl_status cg_replace_residual(kryl_solver s, kryl_vector r0)
{
    cg_work *w = s->work;
    kryl_context ctx = s->ctx;
    kryl_vector z = s->pc ? w->z : w->r;
    const int current = w->current = 0;
    KRYL_TRY(s->ops->permute_copy(ctx, w->r, r0, NULL, KRYL_GATHER, NULL));
    if (s->pc) KRYL_TRY(s->pc->apply(s->pc, w->r, z));
    /* rz = r'z;  rr = r'r */
    KRYL_TRY(s->ops->dot(ctx, w->r, z, rz_of(w, current)));
    KRYL_TRY(s->ops->dot(ctx, w->r, w->r, rr_of(w, current)));
    KRYL_TRY(kryl_reduce_begin(ctx, rz_of(w, current), 2));
    return kryl_reduce_end(ctx);
}

static kryl_status cg_start(kryl_solver s, kryl_vector r0)
{
    cg_work *w = s->work;
    /* r = r0;  z = M^{-1} r;  rz, rr */
    KRYL_TRY(cg_replace_residual(s, r0));
    /* p = z */
    KRYL_TRY(s->ops->permute_copy(s->ctx, w->p, s->pc ? w->z : w->r, NULL, KRYL_GATHER, NULL));
    return s->ops->monitor_update(s->ctx, s->monitor, rr_of(w, 0), 0);
}

/* A step with one reduction (D'Azevedo, Eijkhout & Romine 1993): every inner
 * product comes from one pass after the SpMV and the next r'z is expanded
 * from them, so x, r and p are updated in one pass after one reduction.
 * Traffic: SpMV + terms 3n (4n with Jacobi) + update 7n (8n): 10n + SpMV
 * against 11n, and over ranks one reduction instead of two. */
static kryl_status cg_step_one_reduction(kryl_solver s)
{
    cg_work *w = s->work;
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    kryl_vector dinv = s->pc ? s->pc->dinv : NULL;
    kryl_scalar t = kryl_scalar_at(w->scalars, CG_TERMS);

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* q = A p */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, w->p, 0.0, NULL, w->q, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    if (ops->cg1_step)
        /* the terms, their sum over the ranks and the update below, as one operation */
        return ops->cg1_step(ctx, w->p, w->q, s->x_work, w->r, dinv, t, s->monitor);
    /* t = p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq] */
    KRYL_TRY(ops->cg1_terms(ctx, w->p, w->q, w->r, dinv, t, s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, t, dinv ? KRYL_CG1_TERMS : KRYL_CG1_RDR));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* record ||r||;  alpha = rz/pq;  x += alpha p;  r -= alpha q;  rz' expanded;
     * beta = rz'/rz;  p = dinv.*r + beta p;  record ||r'|| */
    return ops->cg1_update(ctx, t, w->p, w->q, s->x_work, w->r, dinv, s->monitor);
}

/* A step with two reductions: p'q, then r'z and r'r. */
static kryl_status cg_step_two_reductions(kryl_solver s)
{
    cg_work *w = s->work;
    kryl_context ctx = s->ctx;
    const kryl_backend_ops *ops = s->ops;
    kryl_precond *pc = s->pc;
    kryl_vector dinv = pc ? pc->dinv : NULL; /* a pointwise M fuses into the update */
    kryl_vector z = pc ? w->z : w->r;
    int old = w->current, new = 1 - old;
    kryl_scalar pq = kryl_scalar_at(w->scalars, CG_PQ);

    /* with rank-local sums already global, the p update records ||r|| itself */
    const bool fused_record = kryl_reduce_is_local(ctx);

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    if (ops->spmv_dot) {
        /* q = A p;  pq = p'q (one pass) */
        KRYL_TRY(ops->spmv_dot(ctx, s->Aw, w->p, w->q, pq, s->monitor));
    } else {
        /* q = A p */
        KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, w->p, 0.0, NULL, w->q, s->monitor));
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
        /* pq = p'q */
        KRYL_TRY(ops->dot(ctx, w->p, w->q, pq));
    }
    KRYL_TRY(kryl_reduce_begin(ctx, pq, 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* alpha = rz/pq;  x += alpha p;  r -= alpha q;  [z = dinv.*r];  rz' = r'z;  rr = r'r */
    KRYL_TRY(ops->cg_update_xr(ctx, rz_of(w, old), pq, w->p, w->q, s->x_work, w->r, dinv,
                               dinv ? z : NULL, rz_of(w, new), rr_of(w, new), s->monitor));
    if (pc && !dinv) {
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
        /* z = M^{-1} r;  rz' = r'z (over ranks summed with rr: one reduction, not two) */
        KRYL_TRY(pc->apply(pc, w->r, z));
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
        KRYL_TRY(ops->dot(ctx, w->r, z, rz_of(w, new)));
    }
    KRYL_TRY(kryl_reduce_begin(ctx, rz_of(w, new), 2));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* beta = rz'/rz;  p = z + beta p;  [record ||r||]: a stop comes after a whole step */
    const kryl_scalar record = fused_record ? rr_of(w, new) : (kryl_scalar){NULL};
    KRYL_TRY(ops->cg_update_p(ctx, rz_of(w, new), rz_of(w, old), z, w->p, record, s->monitor));
    w->current = new;
    if (fused_record) return KRYL_SUCCESS;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* record ||r||; stop when it meets the tolerance */
    return ops->monitor_update(ctx, s->monitor, rr_of(w, new), 1);
}

/* `count` one-reduction steps in one launch (cg1_steps) where the backend
 * takes them. */
static kryl_status cg_steps(kryl_solver s, int64_t count, bool *queued)
{
    cg_work *w = s->work;
    *queued = w->resident;
    if (!w->resident || count == 0) return KRYL_SUCCESS;
    bool launched = false;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* count times: q = A p;  t;  alpha, beta;  x, r, p updated;  ||r|| recorded */
    KRYL_TRY(s->ops->cg1_steps(s->ctx, s->Aw, w->p, s->x_work, w->r, s->pc ? s->pc->dinv : NULL,
                               w->scratch, s->monitor, count, &launched));
    if (!launched) return KRYL_ERROR(KRYL_ERR_INTERNAL, "cg: the backend stopped taking batches");
    return KRYL_SUCCESS;
}

static kryl_status cg_step(kryl_solver s)
{
    const cg_work *w = s->work;
    return w->one_reduction ? cg_step_one_reduction(s) : cg_step_two_reductions(s);
}

static void cg_destroy(kryl_solver s)
{
    cg_work *w = s->work;
    if (w == NULL) return;
    kryl_vector_destroy(&w->r);
    kryl_vector_destroy(&w->z);
    kryl_vector_destroy(&w->p);
    kryl_vector_destroy(&w->q);
    if (w->scalars) s->ops->release(s->ctx, w->scalars);
    if (w->scratch) s->ops->release(s->ctx, w->scratch);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_cg = {
    .name = "cg",
    .needs_symmetric = true,
    .period = 2,
    .setup = cg_setup,
    .start = cg_start,
    .step = cg_step,
    .steps = cg_steps,
    .replace_residual = cg_replace_residual,
    .destroy = cg_destroy,
};
