/*
 * Mixed precision by reliable updates (Sleijpen & van der Vorst, "Reliable
 * updated residuals in hybrid Bi-CG methods", Computing 56, 1996; van der
 * Vorst & Ye, "Residual replacement strategies for Krylov subspace
 * iterative methods for the convergence of true residuals", SIAM J. Sci.
 * Comput. 22, 2000; in mixed precision, Clark et al., "Solving lattice QCD
 * systems of equations using mixed precision solvers on GPUs", Comput.
 * Phys. Commun. 181, 2010).  ONE single-precision CG runs through the whole
 * solve on A d = r: its iterate d is a correction, its residual a
 * recurrence.  An outer step lets it run until van der Vorst & Ye's bound
 * on the gap between that recurrence and r - A d crosses sqrt(u) ||r_n||
 * (gap_crossed), or its residual has fallen by inner_rtol (default 1e-2)
 * or to half the outer tolerance, then
 * folds the correction into the double x (x += d, d = 0), recomputes
 * r = b - A x in double and hands r to the CG as its residual, which keeps
 * its search direction.  Iterative refinement restarts the inner Krylov
 * space at every step and loses what CG had built (on 7-point 160^3 its
 * inner solves need 1.31 times the iterations of double CG); here nothing
 * is discarded, so the single-precision iterations number about what
 * double CG needs, while x and r carry double accuracy.  A drop of 1e-2
 * between refreshes stays above the gap that single-precision rounding
 * opens between the recurrence and the true residual (about eps_single
 * times the condition number).  An iteration of the monitor is one
 * refresh.
 *
 * The CG's own monitor stops it at the drop, after the whole step that
 * reached it (x, r and p updated), so the refreshes fall on the same steps
 * whatever the batches it is run in.  Refreshed at a batch boundary
 * instead, a recurrence that ran far below the true residual in a long
 * batch left a search direction that no longer fitted the refreshed
 * residual, and the next steps diverged (lund_a with Jacobi: 6e-9, then
 * 1e+22).  After a NaN or breakdown (its last step undone) it starts
 * afresh from the refreshed residual; one right after such a start stops
 * the outer iteration with the same reason.
 *
 * Memory traffic per refresh: d to double 3n, x += d 3n, d = 0 n,
 * r = b - A x (SpMV + 2n), r'r n, the CG's residual from r with its two
 * dots 5n (+ M^-1): about 15n + SpMV, once per many single iterations.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "solvers/mixed.h"
#include "solvers/require_op.h"

typedef struct reliable_work {
    kryl_vector r, d;         /* double */
    double *rr;               /* backend: r'r */
    double rnorm;             /* ||r|| of the last refresh */
    double rnorm_prev;        /* the CG's ||r|| of the step before */
    double bound, bound_init; /* van der Vorst & Ye's d_n, d_init */
} reliable_work;

static kryl_status reliable_setup(kryl_solver s)
{
    KRYL_REQUIRE_OP(s, "mixed precision by reliable updates", monitor_restart);
    reliable_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "reliable: cannot allocate workspace");
    s->work = w;
    KRYL_TRY(kryl_solver_work_vector(s, &w->r));
    KRYL_TRY(kryl_solver_work_vector(s, &w->d));
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->rr, sizeof(double)));
    KRYL_TRY(kryl_inner_create(s));
    if (s->inner->method->replace_residual == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "the mixed scheme reliable keeps one single-precision CG going and "
                          "refreshes its residual: it needs method cg or pcg, not %s",
                          kryl_method_name(s->options.method));
    return KRYL_SUCCESS;
}

/* rr = r'r, completed over the ranks */
static kryl_status residual_norm(kryl_solver s, reliable_work *w)
{
    KRYL_TRY(s->ops->dot(s->ctx, w->r, w->r, kryl_scalar_at(w->rr, 0)));
    KRYL_TRY(kryl_reduce_begin(s->ctx, kryl_scalar_at(w->rr, 0), 1));
    return kryl_reduce_end(s->ctx);
}

/* The rounding of one step of the recurrences, at most u (N ||A|| ||d_n||
 * + ||r_n||) (van der Vorst & Ye 2000, for the CG's correction d on
 * A d = r; u: single precision's unit roundoff, N: entries per row).
 * Bounded with ||A|| ||d_n|| it fires at every step where A is badly
 * scaled (lund_a with Jacobi then made no progress); estimated instead by
 * ||A d_n|| ~ ||r - r_n|| <= ||r|| + ||r_n||, with N = 20. */
enum { RELIABLE_ROW_TERMS = 20 };
static const double single_u = 0x1p-24, single_sqrt_u = 0x1p-12;

/* After a refresh to r of norm sqrt(rr) (d = 0): d_n = d_init = u ||r||. */
static kryl_status reset_bound(kryl_solver s, reliable_work *w)
{
    double rr;
    KRYL_TRY(s->ops->download(s->ctx, &rr, w->rr, sizeof rr));
    w->rnorm = w->rnorm_prev = sqrt(rr);
    w->bound = w->bound_init = single_u * w->rnorm;
    return KRYL_SUCCESS;
}

/* After a CG step with residual norm rnorm: d_n += the step's rounding;
 * whether to refresh now (van der Vorst & Ye's criterion): the gap has
 * just crossed sqrt(u) ||r_n||, d_{n-1} <= sqrt(u) ||r_{n-1}|| and
 * d_n > sqrt(u) ||r_n||, and has grown since the refresh, d_n > 1.1 d_init,
 * so r is replaced before rounding spoils the direction it is matched with. */
static bool gap_crossed(reliable_work *w, double rnorm)
{
    const double before = w->bound;
    w->bound += single_u * (RELIABLE_ROW_TERMS * (w->rnorm + rnorm) + rnorm);
    const bool crossed = before <= single_sqrt_u * w->rnorm_prev &&
                         w->bound > single_sqrt_u * rnorm && w->bound > 1.1 * w->bound_init;
    w->rnorm_prev = rnorm;
    return crossed;
}

/* The inner CG's monitor stops it once its residual has fallen by
 * inner_rtol below the refreshed r, or at half the outer tolerance (or at
 * once with the outer iteration stopped). */
static kryl_status aim_inner(kryl_solver s, reliable_work *w)
{
    const double drop = s->options.inner_rtol;
    return s->ops->monitor_restart(s->ctx, s->inner->monitor, s->monitor, kryl_scalar_at(w->rr, 0),
                                   drop * drop);
}

static kryl_status reliable_start(kryl_solver s, kryl_vector r0)
{
    reliable_work *w = s->work;
    kryl_solver in = s->inner;
    /* r = r0;  rr = r'r */
    KRYL_TRY(s->ops->permute_copy(s->ctx, w->r, r0, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(residual_norm(s, w));
    KRYL_TRY(reset_bound(s, w));
    /* the CG from d = 0 on A d = r */
    KRYL_TRY(aim_inner(s, w));
    KRYL_TRY(s->ops->fill(s->ctx, in->x_work, 0.0));
    KRYL_TRY(in->method->start(in, w->r));
    return s->ops->monitor_update(s->ctx, s->monitor, kryl_scalar_at(w->rr, 0), 0);
}

static kryl_status reliable_step(kryl_solver s)
{
    reliable_work *w = s->work;
    kryl_solver in = s->inner;
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;

    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
    /* the CG a step at a time until the gap bound asks for a refresh, or
     * its residual has fallen by inner_rtol since the last one (its
     * monitor stops it after exactly that step) */
    KRYL_TRY(aim_inner(s, w));
    kryl_monitor m;
    KRYL_TRY(ops->download(ctx, &m, in->monitor, sizeof m));
    const int64_t first = m.iteration, limit = first + s->options.inner_iterations;
    for (bool refresh = false; !refresh && m.iteration < limit && m.stop == KRYL_STOP_RUNNING;) {
        KRYL_TRY(kryl_solver_iterate_to(in, &m, m.iteration + 1));
        refresh = m.stop == KRYL_STOP_RUNNING && gap_crossed(w, sqrt(m.rr));
    }
    /* a CG that broke down (a NaN, p'Ap <= 0 or r'M^-1 r <= 0, its last
     * step undone) is started afresh from the refreshed residual; one that
     * could not take a single step stops the outer iteration for the same
     * reason */
    const bool broke = m.stop == KRYL_STOP_NAN || m.stop == KRYL_STOP_BREAKDOWN ||
                       m.stop == KRYL_STOP_INDEFINITE_PC;
    if (broke && m.iteration == first) return kryl_inner_pass_stop(s, m.stop);
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* x += d in double;  d = 0 */
    KRYL_TRY(ops->permute_copy(ctx, w->d, in->x_work, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(ops->axpby(ctx, 1.0, w->d, 1.0, s->x_work));
    KRYL_TRY(ops->fill(ctx, in->x_work, 0.0));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* r = b - A x, in double with the double matrix */
    KRYL_TRY(ops->spmv(ctx, s->Aw, -1.0, s->x_work, 1.0, s->b_work, w->r, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    KRYL_TRY(residual_norm(s, w));
    KRYL_TRY(reset_bound(s, w));
    /* the CG's residual = r, its search direction kept (or a new start) */
    KRYL_TRY(broke ? in->method->start(in, w->r) : in->method->replace_residual(in, w->r));
    /* record ||r||; stop when it meets the tolerance */
    return ops->monitor_update(ctx, s->monitor, kryl_scalar_at(w->rr, 0), 1);
}

static void reliable_destroy(kryl_solver s)
{
    reliable_work *w = s->work;
    kryl_solver_destroy(&s->inner);
    kryl_vector_destroy(&w->r);
    kryl_vector_destroy(&w->d);
    if (w->rr) s->ops->release(s->ctx, w->rr);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_mixed_reliable = {
    .name = "reliable",
    .period = 1,
    .inner_solver = true,
    .needs_symmetric = false, /* the inner solver checks what its method needs */
    .setup = reliable_setup,
    .start = reliable_start,
    .step = reliable_step,
    .destroy = reliable_destroy,
};
