/*
 * The inner solver of the mixed-precision schemes (Buttari et al. 2008;
 * Cevahir et al. 2009, section 2.2): the caller's method in single
 * precision.  It is a whole solver created through kryl_solver_create, so
 * its matrix is converted once (kryl_matrix_convert) and its method and
 * preconditioner are the ordinary ones.  The outer scheme queues its start,
 * then runs its steps in checked batches (and graphs) like any solve, under
 * an inner monitor that monitor_restart resets on the backend: an inner
 * solve stops as soon as it has met its tolerance instead of running out
 * its iteration budget, at the cost of a few host checks per outer step.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solvers/mixed.h"

kryl_status kryl_inner_create(kryl_solver s)
{
    /* single precision must represent the matrix (this rank's rows; every
     * rank learns whether one failed, so none goes on to create alone) */
    const kryl_csr *csr = &s->A->host->csr;
    kryl_status range = KRYL_SUCCESS;
    for (int64_t k = 0; k < kryl_csr_nnz(csr) && range == KRYL_SUCCESS; k++)
        if (fabs(csr->values[k]) > FLT_MAX)
            range = KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                               "the mixed scheme %s: |a| = %g at entry %lld exceeds the single-"
                               "precision range (%g) of its inner solves; use precision double",
                               kryl_mixed_scheme_name(s->options.mixed), csr->values[k],
                               (long long)k, FLT_MAX);
    KRYL_TRY(kryl_context_agree(s->ctx, range));
    kryl_solver_options io = s->options;
    io.precision = KRYL_SINGLE;
    io.mixed = KRYL_MIXED_NONE;
    io.record_history = false;
    io.max_iterations = s->options.inner_iterations;
    io.profile = false;
    io.progress = NULL;
    io.progress_user = NULL;
    io.residual = NULL;
    io.residual_user = NULL;
    /* the outer iteration's storage format, so both iterate in one row order */
    io.format = s->format;
    io.tune = false;
    kryl_status st = kryl_solver_create_inner(&s->inner, s->A, &io);
    if (st != KRYL_SUCCESS) {
        char why[512];
        snprintf(why, sizeof why, "%s", kryl_last_error());
        return KRYL_ERROR(st, "the single-precision inner solver (%s) of the mixed scheme %s: %s",
                          kryl_method_name(io.method), kryl_mixed_scheme_name(s->options.mixed),
                          why);
    }
    const kryl_layout *outer = s->Aw->layout, *inner = s->inner->Aw->layout;
    bool same = outer == inner || (outer->perm == NULL && inner->perm == NULL) ||
                (outer->perm && inner->perm &&
                 memcmp(outer->perm, inner->perm, (size_t)outer->n * sizeof *outer->perm) == 0);
    if (!same)
        return KRYL_ERROR(KRYL_ERR_INTERNAL,
                          "the mixed scheme %s: the %s storage orders rows differently in single "
                          "and double precision",
                          kryl_mixed_scheme_name(s->options.mixed), kryl_format_name(s->format));
    return KRYL_SUCCESS;
}

kryl_status kryl_inner_solve(kryl_solver s, kryl_vector r, kryl_scalar rr, double factor,
                             kryl_vector z)
{
    kryl_solver in = s->inner;
    kryl_context ctx = s->ctx;
    /* inner tol2 = factor * rr, or stopped with the outer iteration */
    KRYL_TRY(s->ops->monitor_restart(ctx, in->monitor, s->monitor, rr, factor));
    /* b_in = r;  x_in = 0;  then the inner method on A x_in = b_in (its restarts
     * and residual replacements recompute b_in - A x_in) */
    KRYL_TRY(s->ops->permute_copy(ctx, in->b_work, r, NULL, KRYL_GATHER, NULL));
    KRYL_TRY(s->ops->fill(ctx, in->x_work, 0.0));
    KRYL_TRY(in->method->start(in, r));
    kryl_monitor m;
    KRYL_TRY(s->ops->download(ctx, &m, in->monitor, sizeof m));
    /* at most inner_iterations steps, fewer once the inner tolerance is met */
    const int64_t first = m.iteration;
    KRYL_TRY(kryl_solver_iterate_to(in, &m, first + s->options.inner_iterations));
    /* an inner solve that met r'M^-1 r <= 0 before its first step returns
     * z = 0: the outer iteration stops for that reason, not on the zero z */
    if (m.stop == KRYL_STOP_INDEFINITE_PC && m.iteration == first)
        KRYL_TRY(kryl_inner_pass_stop(s, m.stop));
    if (in->method->finish) KRYL_TRY(in->method->finish(in));
    /* z = x_in, in double */
    return s->ops->permute_copy(ctx, z, in->x_work, NULL, KRYL_GATHER, NULL);
}

kryl_status kryl_inner_pass_stop(kryl_solver s, int32_t why)
{
    kryl_monitor outer;
    KRYL_TRY(s->ops->download(s->ctx, &outer, s->monitor, sizeof outer));
    if (outer.stop != KRYL_STOP_RUNNING) return KRYL_SUCCESS;
    outer.stop = why;
    return s->ops->upload(s->ctx, s->monitor, &outer, sizeof outer);
}

kryl_status kryl_inner_count(kryl_solver s, int64_t *count)
{
    kryl_monitor m;
    KRYL_TRY(s->ops->download(s->ctx, &m, s->inner->monitor, sizeof m));
    *count = m.iteration;
    return KRYL_SUCCESS;
}
