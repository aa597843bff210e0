/* The scalar rules of a guarded step that every backend applies, host and
 * device alike (C, and CUDA where __CUDACC__ makes them device functions
 * too): when a coefficient num/den cannot be taken, what recording an r'r
 * in the convergence monitor does, and the one-reduction CG step's
 * expansion of the next r'r and r'z (D'Azevedo, Eijkhout & Romine 1993).
 * One definition keeps the backends' decisions and numbers alike. */
#ifndef KRYL_BACKENDS_STEP_RULES_H
#define KRYL_BACKENDS_STEP_RULES_H

#include <math.h>
#include <stdbool.h>

#include "backends/backend.h"

#ifdef __CUDACC__
#define KRYL_STEP_RULE static inline __host__ __device__
#else
#define KRYL_STEP_RULE static inline
#endif

/* Why num/den cannot be a guarded step's coefficient: KRYL_STOP_NAN for a
 * non-finite operand or ratio, KRYL_STOP_BREAKDOWN for den <= 0, else
 * KRYL_STOP_RUNNING (it can). */
KRYL_STEP_RULE int kryl_ratio_stop(double num, double den)
{
    if (!isfinite(num) || !isfinite(den)) return KRYL_STOP_NAN;
    if (!(den > 0.0)) return KRYL_STOP_BREAKDOWN;
    if (!isfinite(num / den)) return KRYL_STOP_NAN;
    return KRYL_STOP_RUNNING;
}

/* Why alpha = rz/pq of a CG step cannot be taken, where rz = r'M^-1 r
 * (r'r without M) and pq = p'Ap: what kryl_ratio_stop says, then
 * KRYL_STOP_INDEFINITE_PC for rz <= 0, which a symmetric positive definite
 * M never gives for r != 0 (PETSc's KSP_DIVERGED_INDEFINITE_PC). */
KRYL_STEP_RULE int kryl_cg_alpha_stop(double rz, double pq)
{
    const int why = kryl_ratio_stop(rz, pq);
    return why == KRYL_STOP_RUNNING && !(rz > 0.0) ? KRYL_STOP_INDEFINITE_PC : why;
}

/* Why a recorded r'r ends the iteration under `monitor`: KRYL_STOP_NAN
 * where it is not finite, KRYL_STOP_CONVERGED where it is at most tol2,
 * KRYL_STOP_DIVERGED where a bound div2 > 0 is set and rr exceeds it, else
 * KRYL_STOP_RUNNING. */
KRYL_STEP_RULE int kryl_record_stop(double rr, const kryl_monitor *monitor)
{
    if (!isfinite(rr)) return KRYL_STOP_NAN;
    if (rr <= monitor->tol2) return KRYL_STOP_CONVERGED;
    if (monitor->div2 > 0.0 && rr > monitor->div2) return KRYL_STOP_DIVERGED;
    return KRYL_STOP_RUNNING;
}

/* backend.h's monitor_update, by one thread: unless stopped, iteration +=
 * advance; rr recorded; history[iteration] = sqrt(|rr|); the stop that
 * kryl_record_stop gives. */
KRYL_STEP_RULE void kryl_monitor_record(kryl_monitor *monitor, double rr, int advance)
{
    if (monitor->stop != KRYL_STOP_RUNNING) return;
    const int64_t k = monitor->iteration + advance;
    monitor->iteration = k;
    monitor->rr = rr;
    if (monitor->history != NULL && k >= 0 && k < monitor->history_capacity)
        monitor->history[k] = sqrt(fabs(rr));
    monitor->stop = kryl_record_stop(rr, monitor);
}

/* From the terms t of a one-reduction CG step (KRYL_CG1_*) and its alpha:
 * *rr_next = ||r - alpha q||^2 and *rz_next = (r - alpha q)'D(r - alpha q)
 * (= *rr_next without Jacobi), each expanded, not clamped. */
KRYL_STEP_RULE void kryl_cg1_expand(const double *t, bool jacobi, double alpha, double *rr_next,
                                    double *rz_next)
{
    *rr_next = t[KRYL_CG1_RR] - 2.0 * alpha * t[KRYL_CG1_RQ] + alpha * alpha * t[KRYL_CG1_QQ];
    *rz_next =
        jacobi ? t[KRYL_CG1_RDR] - 2.0 * alpha * t[KRYL_CG1_RDQ] + alpha * alpha * t[KRYL_CG1_QDQ]
               : *rr_next;
}

/* The unit roundoff of a working precision: 2^-24 single, 2^-53 double. */
KRYL_STEP_RULE double kryl_unit_roundoff(kryl_precision precision)
{
    return precision == KRYL_SINGLE ? 0x1p-24 : 0x1p-53;
}

/* Why BiCGSTAB's next p cannot be formed from its scalars c (KRYL_BICG_*)
 * in a working precision of unit roundoff eps: KRYL_STOP_NAN for a
 * non-finite one, KRYL_STOP_BREAKDOWN for omega = 0, rho = 0 or a new rho
 * that is rounding noise, |(r^, r)| <= eps ||r^|| ||r|| (the shadow
 * residual has become orthogonal to r: the driver restarts with r^ = r),
 * else KRYL_STOP_RUNNING. */
KRYL_STEP_RULE int kryl_bicg_p_stop(const double *c, double eps)
{
    const double rho = c[KRYL_BICG_RHO], rho_new = c[KRYL_BICG_RHO_NEW];
    const double alpha = c[KRYL_BICG_ALPHA], omega = c[KRYL_BICG_OMEGA];
    if (!isfinite(rho) || !isfinite(rho_new) || !isfinite(alpha) || !isfinite(omega))
        return KRYL_STOP_NAN;
    if (rho == 0.0 || omega == 0.0 ||
        fabs(rho_new) <= eps * sqrt(fabs(c[KRYL_BICG_RHAT2])) * sqrt(fabs(c[KRYL_BICG_RR])))
        return KRYL_STOP_BREAKDOWN;
    if (!isfinite((rho_new / rho) * (alpha / omega))) return KRYL_STOP_NAN;
    return KRYL_STOP_RUNNING;
}

#endif
