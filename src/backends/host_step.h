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

/* The link copies of a backend whose memory is host memory (backend.h):
 * plain copies, nothing to wait for, nothing to pin. */
kryl_status kryl_host_copy_async(kryl_context ctx, void *dst, const void *src, size_t bytes);
kryl_status kryl_host_copy_wait(kryl_context ctx);
kryl_status kryl_host_pin(kryl_context ctx, void *ptr, size_t bytes);
void kryl_host_unpin(kryl_context ctx, void *ptr);

/* The matrix checks of the host backends (host_checks.c). */
kryl_status kryl_host_csr_asymmetry(kryl_context ctx, kryl_matrix A, double *worst,
                                    double *largest);
kryl_status kryl_host_csr_diagonal(kryl_context ctx, kryl_matrix A, kryl_vector d, bool invert,
                                   kryl_diagonal_check *found);
kryl_status kryl_host_csr_unmirrored(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                     const int32_t *col_idx, int64_t *row);

/* amg_aggregate of the host backends (host_aggregate.c): the host's code
 * on A's host copy, on the context's threads. */
kryl_status kryl_host_amg_aggregate(kryl_context ctx, kryl_matrix A, double theta, bool symmetric,
                                    int32_t *aggregate, int64_t *count);

/* color_group of the host backends (host_color.c): kryl_color_group_serial. */
kryl_status kryl_host_color_group(kryl_context ctx, int64_t n, const int32_t *color,
                                  int32_t ncolors, int32_t *perm, int64_t *color_ptr);
/* color_first_fit of the host backends (host_color.c): kryl_color_first_fit_serial. */
kryl_status kryl_host_color_first_fit(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                      const int32_t *col_idx, int32_t *color, int32_t *ncolors);

/* amg_tentative of the host backends (host_amg.c). */
kryl_status kryl_host_amg_tentative(kryl_context ctx, int64_t n, const int32_t *aggregate,
                                    int64_t naggregates, const double *w, double *wc,
                                    kryl_backend_csr *T);

#endif
