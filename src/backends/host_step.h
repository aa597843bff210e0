/* What the host backends (ref, omp) share around their iteration
 * operations: the monitor guard (whether an operation must do nothing, how
 * it stops the iteration, the check of its scalar inputs) and the scalar
 * part of a pipelined CG step (host_step.c); the vector loops stay each
 * backend's own. */
#ifndef KRYL_BACKENDS_HOST_STEP_H
#define KRYL_BACKENDS_HOST_STEP_H

#include <math.h>
#include <stdbool.h>

#include "backends/backend.h"
#include "backends/step_rules.h"

/* monitor->stop is set: the operation does nothing */
static inline bool kryl_host_halted(const kryl_monitor *monitor)
{
    return monitor != NULL && monitor->stop != KRYL_STOP_RUNNING;
}

/* cg_update_xr's mark for its step's cg_update_p (backend.h): cleared on
 * entry, set once x and r are updated */
static inline void kryl_host_mark_step(kryl_monitor *monitor, bool ran)
{
    if (monitor) monitor->step_ran = ran;
}

/* cg_update_p's guard: its step's cg_update_xr did not run */
static inline bool kryl_host_step_skipped(const kryl_monitor *monitor)
{
    return monitor != NULL && !monitor->step_ran;
}

/* Stop the iteration for `why`; the calling operation then changes nothing. */
static inline kryl_status kryl_host_halt(kryl_monitor *monitor, int why)
{
    if (monitor) monitor->stop = why;
    return KRYL_SUCCESS;
}

/* v[0..count) are all finite */
static inline bool kryl_host_all_finite(const double *v, int count)
{
    for (int i = 0; i < count; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* *ratio = num/den for a guarded step's coefficient, or false with the
 * monitor stopped: NAN for a non-finite num, den or ratio, BREAKDOWN for
 * den <= 0. */
bool kryl_host_ratio(double num, double den, kryl_monitor *monitor, double *ratio);

/* *alpha = rz/pq of a CG step, or false with the monitor stopped for what
 * kryl_cg_alpha_stop says (INDEFINITE_PC for rz <= 0). */
bool kryl_host_cg_alpha(double rz, double pq, kryl_monitor *monitor, double *alpha);

/* The scalar part of cg1_update (backend.h) from the summed terms t: the
 * exact ||r|| recorded (advance 0), then alpha, beta and the expanded rr'.
 * Returns false where the step must change nothing (the monitor says why). */
bool kryl_host_cg1_begin(const double *t, bool jacobi, kryl_monitor *monitor, double *alpha,
                         double *beta, double *rr_new);

/* alpha and beta of a pipelined CG step from the scalars c (backend.h's
 * pipecg_update), *fresh set when the step runs as a restart; (alpha, beta)
 * recorded in coef[2 i], coef[2 i + 1] with i = monitor->iteration when
 * both are given.  Returns KRYL_STOP_RUNNING, or the reason the step must
 * not run (the caller halts with it). */
int kryl_host_pipecg_begin(const double *c, int restart, double *coef, const kryl_monitor *monitor,
                           double *alpha, double *beta, int *fresh);

/* After the vector updates: gamma_old = gamma, alpha_old = alpha and
 * (gamma, delta, rr) = out; with record, the monitor takes rr. */
kryl_status kryl_host_pipecg_finish(kryl_context ctx, double *c, double alpha, const double out[3],
                                    kryl_monitor *monitor, bool record);

/* The operations the host backends (ref, omp) share, each declared with
 * its operation's type (backend.h); the kryl_host_ helpers above are not
 * operations and have their own signatures. */

/* The link copies of a backend whose memory is host memory: plain copies,
 * nothing to wait for, nothing to pin (host_copy.c); one function serves
 * both copy directions. */
kryl_backend_op_copy_to_host_async kryl_host_copy_async;
kryl_backend_op_copy_wait kryl_host_copy_wait;
kryl_backend_op_host_pin kryl_host_pin;
kryl_backend_op_host_unpin kryl_host_unpin;

/* The matrix checks (host_checks.c). */
kryl_backend_op_csr_asymmetry kryl_host_csr_asymmetry;
kryl_backend_op_csr_diagonal kryl_host_csr_diagonal;
kryl_backend_op_csr_row_sums kryl_host_csr_row_sums;
kryl_backend_op_csr_unmirrored kryl_host_csr_unmirrored;

/* amg_aggregate: the host's code on A's host copy, on the context's
 * threads (host_aggregate.c); amg_tentative (host_amg.c). */
kryl_backend_op_amg_aggregate kryl_host_amg_aggregate;
kryl_backend_op_amg_tentative kryl_host_amg_tentative;

/* color_group and color_first_fit: kryl_color_group_serial and
 * kryl_color_first_fit_serial (host_color.c). */
kryl_backend_op_color_group kryl_host_color_group;
kryl_backend_op_color_first_fit kryl_host_color_first_fit;

#endif
