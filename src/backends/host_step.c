/* The scalar logic of the host backends' iteration operations (beyond the
 * rules of step_rules.h): a guarded step's coefficient, and the scalar part
 * of a pipelined CG step (Ghysels & Vanroose 2014; Alg. 2 of Tiwari & Vadhiyar)
 * and of a single-reduction CG step, the specification of backend.h's
 * ratios, monitor_update, pipecg_update and cg1_update. */
#include "backends/host_step.h"

/* *ratio = num/den unless `stop`, a rule's verdict on them, halts the monitor. */
static bool take_ratio(int stop, double num, double den, kryl_monitor *monitor, double *ratio)
{
    if (stop != KRYL_STOP_RUNNING) {
        kryl_host_halt(monitor, stop);
        return false;
    }
    *ratio = num / den;
    return true;
}

bool kryl_host_ratio(double num, double den, kryl_monitor *monitor, double *ratio)
{
    return take_ratio(kryl_ratio_stop(num, den), num, den, monitor, ratio);
}

bool kryl_host_cg_alpha(double rz, double pq, kryl_monitor *monitor, double *alpha)
{
    return take_ratio(kryl_cg_alpha_stop(rz, pq), rz, pq, monitor, alpha);
}

bool kryl_host_cg1_begin(const double *t, bool jacobi, kryl_monitor *monitor, double *alpha,
                         double *beta, double *rr_new)
{
    if (kryl_host_halted(monitor)) return false;
    /* the exact ||r||, in place of the expansion recorded by the previous step */
    if (monitor != NULL) {
        kryl_monitor_record(monitor, t[KRYL_CG1_RR], 0);
        if (kryl_host_halted(monitor)) return false;
    }
    double rz = jacobi ? t[KRYL_CG1_RDR] : t[KRYL_CG1_RR];
    /* alpha = rz/p'q */
    if (!kryl_host_cg_alpha(rz, t[KRYL_CG1_PQ], monitor, alpha)) return false;
    /* rr' = ||r - alpha q||^2;  rz' = (r - alpha q)'D(r - alpha q) */
    double rr, rz_new;
    kryl_cg1_expand(t, jacobi, *alpha, &rr, &rz_new);
    *rr_new = fmax(rr, 0.0);
    /* beta = rz'/rz */
    return kryl_host_ratio(fmax(rz_new, 0.0), rz, monitor, beta);
}

int kryl_host_pipecg_begin(const double *c, int restart, double *coef, const kryl_monitor *monitor,
                           double *alpha, double *beta, int *fresh)
{
    /* a restart does not read gamma_old and alpha_old */
    if (!kryl_host_all_finite(c, KRYL_PIPECG_SCALARS - (restart ? 2 : 0))) return KRYL_STOP_NAN;
    double gamma = c[KRYL_PIPECG_GAMMA], delta = c[KRYL_PIPECG_DELTA];
    /* gamma = r'M^-1 r > 0 for r != 0 when M is positive definite */
    if (!(gamma > 0.0)) return KRYL_STOP_INDEFINITE_PC;
    double gamma_old = c[KRYL_PIPECG_GAMMA_OLD], alpha_old = c[KRYL_PIPECG_ALPHA_OLD];
    double den = delta;
    *beta = 0.0;
    *fresh = restart || !(gamma_old > 0.0) || !(alpha_old > 0.0);
    if (!*fresh) {
        /* beta = gamma/gamma_old;  alpha = gamma/(delta - beta gamma/alpha_old) */
        *beta = gamma / gamma_old;
        den = delta - *beta * gamma / alpha_old;
        if (!isfinite(*beta) || !isfinite(den)) return KRYL_STOP_NAN;
        /* a denominator spoilt by rounding (Cools et al. 2018): restart the recurrence */
        if (!(den > 0.0)) *fresh = 1;
    }
    if (*fresh) {
        /* beta = 0;  alpha = gamma/delta */
        *beta = 0.0;
        den = delta;
    }
    if (!(den > 0.0)) return KRYL_STOP_BREAKDOWN;
    *alpha = gamma / den;
    if (!isfinite(*alpha)) return KRYL_STOP_NAN;
    if (coef != NULL && monitor != NULL) {
        coef[2 * monitor->iteration] = *alpha;
        coef[2 * monitor->iteration + 1] = *beta;
    }
    return KRYL_STOP_RUNNING;
}

kryl_status kryl_host_pipecg_finish(kryl_context ctx, double *c, double alpha, const double out[3],
                                    kryl_monitor *monitor, bool record)
{
    c[KRYL_PIPECG_GAMMA_OLD] = c[KRYL_PIPECG_GAMMA];
    c[KRYL_PIPECG_ALPHA_OLD] = alpha;
    c[KRYL_PIPECG_GAMMA] = out[0];
    c[KRYL_PIPECG_DELTA] = out[1];
    c[KRYL_PIPECG_RR] = out[2];
    /* the monitor takes rr */
    return record && monitor != NULL
               ? ctx->ops->monitor_update(ctx, monitor, (kryl_scalar){c + KRYL_PIPECG_RR}, 1)
               : KRYL_SUCCESS;
}
