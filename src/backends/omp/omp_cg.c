/* The omp backend's fused conjugate-gradient updates and convergence
 * monitor, in both precisions from one template.  The steps follow the
 * preconditioned CG of Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 9.1, with the updates of x and r, the
 * preconditioner and both inner products fused into one pass; and the
 * two passes of a single-reduction CG step (cg1_terms, cg1_update). */
#include <math.h>
#include <omp.h>

#include "backends/omp/omp_backend.h"
#include "backends/omp/omp_krylov.h"
#include "backends/omp/omp_real.h"

#define KRYL_OMP_TEMPLATE "backends/omp/omp_cg_template.h"
#include "backends/omp/omp_instantiate.h"

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
    const kryl_vector all[] = {p, q, x, r, dinv, dinv != NULL ? z : NULL};
    KRYL_TRY(kryl_omp_check_distinct("cg_update_xr", all, 6, (1u << 2) | (1u << 3) | (1u << 5)));
    double alpha;
    kryl_host_mark_step(monitor, false);
    if (kryl_host_halted(monitor) || !kryl_host_cg_alpha(*num.ptr, *den.ptr, monitor, &alpha))
        return KRYL_SUCCESS;
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    if (r->precision == KRYL_SINGLE)
        cg_update_xr_single(s, r->n, alpha, p->data, q->data, x->data, r->data,
                            dinv != NULL ? dinv->data : NULL, dinv != NULL ? z->data : NULL, rz.ptr,
                            rr.ptr);
    else
        cg_update_xr_double(s, r->n, alpha, p->data, q->data, x->data, r->data,
                            dinv != NULL ? dinv->data : NULL, dinv != NULL ? z->data : NULL, rz.ptr,
                            rr.ptr);
    kryl_host_mark_step(monitor, true);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_cg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                 kryl_vector p, kryl_scalar rr, kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(num.ptr);
    KRYL_REQUIRE_ARG(den.ptr);
    KRYL_TRY(kryl_omp_check_pair("cg_update_p", z, p));
    const kryl_vector zp[] = {z, p};
    KRYL_TRY(kryl_omp_check_distinct("cg_update_p", zp, 2, 2u));
    double beta;
    if (kryl_host_step_skipped(monitor) || !kryl_host_ratio(*num.ptr, *den.ptr, monitor, &beta))
        return KRYL_SUCCESS;
    int nt = kryl_omp_state_of(ctx)->threads;
    if (p->precision == KRYL_SINGLE)
        cg_update_p_single(nt, p->n, beta, z->data, p->data);
    else
        cg_update_p_double(nt, p->n, beta, z->data, p->data);
    /* record ||r|| */
    if (rr.ptr && monitor) kryl_monitor_record(monitor, *rr.ptr, 1);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_cg1_terms(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector r,
                               kryl_vector dinv, kryl_scalar t, const kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(t.ptr);
    KRYL_TRY(kryl_omp_check_pair("cg1_terms", p, r));
    KRYL_TRY(kryl_omp_check_pair("cg1_terms", q, r));
    if (dinv != NULL) KRYL_TRY(kryl_omp_check_pair("cg1_terms", dinv, r));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    kryl_omp_state *s = kryl_omp_state_of(ctx);
    const void *d = dinv != NULL ? dinv->data : NULL;
    /* t = {p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq]} */
    if (r->precision == KRYL_SINGLE)
        cg1_terms_single(s, r->n, p->data, q->data, r->data, d, t.ptr);
    else
        cg1_terms_double(s, r->n, p->data, q->data, r->data, d, t.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_cg1_update(kryl_context ctx, kryl_scalar t, kryl_vector p, kryl_vector q,
                                kryl_vector x, kryl_vector r, kryl_vector dinv,
                                kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(t.ptr);
    KRYL_TRY(kryl_omp_check_pair("cg1_update", p, r));
    KRYL_TRY(kryl_omp_check_pair("cg1_update", q, r));
    KRYL_TRY(kryl_omp_check_pair("cg1_update", x, r));
    if (dinv != NULL) KRYL_TRY(kryl_omp_check_pair("cg1_update", dinv, r));
    /* the written vectors p, x, r (positions 0, 2, 3) must not share storage */
    const kryl_vector all[] = {p, q, x, r, dinv};
    KRYL_TRY(kryl_omp_check_distinct("cg1_update", all, 5, (1u << 0) | (1u << 2) | (1u << 3)));
    double alpha, beta, rr;
    if (!kryl_host_cg1_begin(t.ptr, dinv != NULL, monitor, &alpha, &beta, &rr)) return KRYL_SUCCESS;
    int nt = kryl_omp_state_of(ctx)->threads;
    const void *d = dinv != NULL ? dinv->data : NULL;
    /* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p */
    if (r->precision == KRYL_SINGLE)
        cg1_update_single(nt, r->n, alpha, beta, p->data, q->data, x->data, r->data, d);
    else
        cg1_update_double(nt, r->n, alpha, beta, p->data, q->data, x->data, r->data, d);
    if (monitor) kryl_monitor_record(monitor, rr, 1);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_monitor_update(kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr,
                                    int advance)
{
    KRYL_REQUIRE_ARG(monitor);
    KRYL_REQUIRE_ARG(rr.ptr);
    kryl_monitor_record(monitor, *rr.ptr, advance);
    return KRYL_SUCCESS;
}
