/* The omp backend's fused conjugate-gradient updates and convergence
 * monitor, in both precisions from one template.  The steps follow the
 * preconditioned CG of Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 9.1, with the updates of x and r, the
 * preconditioner and both inner products fused into one pass. */
#include <math.h>
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_real.h"

#define REAL   double
#define SUFFIX _double
#include "backends/omp/omp_cg_template.h"
#undef REAL
#undef SUFFIX

#define REAL   float
#define SUFFIX _single
#include "backends/omp/omp_cg_template.h"
#undef REAL
#undef SUFFIX

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

/* Whether two optional vectors share storage. */
static bool overlap(kryl_vector a, kryl_vector b)
{
    return a != NULL && b != NULL && a->n > 0 && a->data == b->data;
}

kryl_status kryl_omp_cg_update_xr(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector p,
                                  kryl_vector q, kryl_vector x, kryl_vector r, kryl_vector dinv,
                                  kryl_vector z, kryl_scalar rz, kryl_scalar rr,
                                  kryl_monitor *monitor)
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
    kryl_vector all[] = {p, q, x, r, dinv, dinv != NULL ? z : NULL};
    const int written[] = {2, 3, 5};
    for (int w = 0; w < 3; w++)
        for (int v = 0; v < 6; v++)
            if (v != written[w] && overlap(all[v], all[written[w]]))
                return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                  "omp cg_update_xr: a vector it writes is also another "
                                  "argument, expected distinct vectors");
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
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_cg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                 kryl_vector p, kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(num.ptr);
    KRYL_REQUIRE_ARG(den.ptr);
    KRYL_TRY(kryl_omp_check_pair("cg_update_p", z, p));
    if (overlap(z, p))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp cg_update_p: z and p share storage, expected distinct vectors");
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
