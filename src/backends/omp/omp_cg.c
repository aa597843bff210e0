/* The omp backend's fused conjugate-gradient updates and convergence
 * monitor, in both precisions from one template.  The steps follow the
 * preconditioned CG of Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 9.1, with the updates of x and r, the
 * preconditioner and both inner products fused into one pass. */
#include <math.h>
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_krylov.h"
#include "backends/omp/omp_real.h"

#define KRYL_OMP_TEMPLATE "backends/omp/omp_cg_template.h"
#include "backends/omp/omp_instantiate.h"

/* The coefficient num/den of a guarded step.  Returns false, with the
 * reason in monitor->stop, when the step must not run: already stopped,
 * a NaN or Inf (KRYL_STOP_NAN) or den <= 0 (KRYL_STOP_BREAKDOWN). */
static bool step_ratio(kryl_scalar num, kryl_scalar den, kryl_monitor *monitor, double *ratio)
{
    if (monitor != NULL && monitor->stop != KRYL_STOP_RUNNING) return false;
    double a = *num.ptr, b = *den.ptr;
    int stop = KRYL_STOP_RUNNING;
    if (!isfinite(a) || !isfinite(b))
        stop = KRYL_STOP_NAN;
    else if (b <= 0.0)
        stop = KRYL_STOP_BREAKDOWN;
    else if (!isfinite(a / b))
        stop = KRYL_STOP_NAN;
    if (stop != KRYL_STOP_RUNNING) {
        if (monitor != NULL) monitor->stop = stop;
        return false;
    }
    *ratio = a / b;
    return true;
}

kryl_status kryl_omp_cg_update_xr(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector p,
                                  kryl_vector q, kryl_vector x, kryl_vector r, kryl_vector dinv,
                                  kryl_vector z, kryl_scalar rz, kryl_scalar rr,
                                  kryl_monitor *monitor, bool record)
{
    KRYL_REQUIRE_ARG(num.ptr);
    KRYL_REQUIRE_ARG(den.ptr);
    KRYL_REQUIRE_ARG(rz.ptr);
    KRYL_REQUIRE_ARG(rr.ptr);
    KRYL_TRY(kryl_omp_check_pair("cg_update_xr", p, r));
    KRYL_TRY(kryl_omp_check_pair("cg_update_xr", q, r));
    KRYL_TRY(kryl_omp_check_pair("cg_update_xr", x, r));
    if (dinv != NULL) {
        KRYL_TRY(kryl_omp_check_pair("cg_update_xr", dinv, r));
        KRYL_TRY(kryl_omp_check_pair("cg_update_xr", z, r));
    }
    /* the written vectors x, r, z (positions 2, 3, 5) must not share storage
     * with any other argument */
    const kryl_vector all[] = {p, q, x, r, dinv, dinv != NULL ? z : NULL};
    KRYL_TRY(kryl_omp_check_distinct("cg_update_xr", all, 6, (1u << 2) | (1u << 3) | (1u << 5)));
    double alpha;
    if (!step_ratio(num, den, monitor, &alpha)) return KRYL_SUCCESS;
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    if (r->precision == KRYL_SINGLE)
        cg_update_xr_single(s, r->n, alpha, p->data, q->data, x->data, r->data,
                            dinv != NULL ? dinv->data : NULL, dinv != NULL ? z->data : NULL, rz.ptr,
                            rr.ptr);
    else
        cg_update_xr_double(s, r->n, alpha, p->data, q->data, x->data, r->data,
                            dinv != NULL ? dinv->data : NULL, dinv != NULL ? z->data : NULL, rz.ptr,
                            rr.ptr);
    return record && monitor ? ctx->ops->monitor_update(ctx, monitor, rr, 1) : KRYL_SUCCESS;
}

kryl_status kryl_omp_cg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                 kryl_vector p, kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(num.ptr);
    KRYL_REQUIRE_ARG(den.ptr);
    KRYL_TRY(kryl_omp_check_pair("cg_update_p", z, p));
    const kryl_vector zp[] = {z, p};
    KRYL_TRY(kryl_omp_check_distinct("cg_update_p", zp, 2, 2u));
    double beta;
    if (!step_ratio(num, den, monitor, &beta)) return KRYL_SUCCESS;
    int nt = kryl_omp_state_of(ctx)->threads;
    if (p->precision == KRYL_SINGLE)
        cg_update_p_single(nt, p->n, beta, z->data, p->data);
    else
        cg_update_p_double(nt, p->n, beta, z->data, p->data);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_monitor_update(kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr,
                                    int advance)
{
    KRYL_REQUIRE_ARG(monitor);
    KRYL_REQUIRE_ARG(rr.ptr);
    if (monitor->stop != KRYL_STOP_RUNNING) return KRYL_SUCCESS;
    double value = *rr.ptr;
    monitor->iteration += advance;
    monitor->rr = value;
    /* history_k = ||r_k|| = sqrt(|r'r|) */
    if (monitor->history != NULL && monitor->iteration >= 0 &&
        monitor->iteration < monitor->history_capacity)
        monitor->history[monitor->iteration] = sqrt(fabs(value));
    if (!isfinite(value))
        monitor->stop = KRYL_STOP_NAN;
    else if (value <= monitor->tol2)
        monitor->stop = KRYL_STOP_CONVERGED;
    return KRYL_SUCCESS;
}
