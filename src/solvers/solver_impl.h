/* The solver object and the table each Krylov method fills. */
#ifndef KRYL_SOLVERS_SOLVER_IMPL_H
#define KRYL_SOLVERS_SOLVER_IMPL_H

#include "backends/backend.h"
#include "core/reduce.h"
#include "precond/precond.h"

/* Profile buckets (kryl_profile fields). */
typedef enum kryl_phase {
    KRYL_PHASE_NONE = -1,
    KRYL_PHASE_SPMV = 0,
    KRYL_PHASE_PRECOND,
    KRYL_PHASE_VECTOR,
    KRYL_PHASE_REDUCTION,
    KRYL_PHASE_TRANSFER,
    KRYL_PHASE_COUNT
} kryl_phase;

typedef struct kryl_method_ops kryl_method_ops;

struct kryl_solver_s {
    kryl_context ctx;
    const kryl_backend_ops *ops;
    kryl_solver_options options;
    const kryl_method_ops *method;
    kryl_matrix A; /* the caller's matrix: double, original values (true residual) */
    kryl_matrix Aw; /* the matrix the iteration uses, in the working precision */
    kryl_precision precision; /* working precision */
    kryl_precond *pc; /* NULL: none */
    void *work; /* the method's workspace */

    /* The driver's workspace (src/solvers/solver.c). */
    kryl_vector b_work, x_work; /* b and x in the working precision and order */
    kryl_vector b_true, x_true, r_true; /* double, for b - A x with A's own values */
    double *scalars; /* backend: [0] = ||b||^2, [1] = ||b - Ax||^2 */
    kryl_monitor *monitor; /* backend */
    double *history; /* backend, max_iterations + 1 entries */
    double *history_host;
    int64_t history_length;

    double setup_s;
    /* profiling: time of the last mark and the bucket it opened */
    bool profiling;
    double mark_time;
    kryl_phase mark_phase;
    double phase_time[KRYL_PHASE_COUNT];
};

struct kryl_method_ops {
    const char *name;
    bool needs_symmetric; /* and a positive diagonal */
    /* Allocate the method's workspace (s->work). */
    kryl_status (*setup)(kryl_solver s);
    /* (Re)start from the residual r0 = b - A x (double, computed by the
     * driver): set up the method's vectors and record ||r0|| through
     * monitor_update with advance 0. */
    kryl_status (*start)(kryl_solver s, kryl_vector r0);
    /* Queue one iteration on x = s->x_work; no synchronisation, no host
     * reads: the monitor decides when to stop. */
    kryl_status (*step)(kryl_solver s);
    void (*destroy)(kryl_solver s);
};

extern const kryl_method_ops kryl_method_cg;

/* A scalar at index k of a backend block of doubles. */
static inline kryl_scalar kryl_scalar_at(double *block, int k)
{
    kryl_scalar s = {block + k};
    return s;
}

/* Profiling: close the running phase and open `phase` (KRYL_PHASE_NONE to
 * just close).  Synchronises only when profiling is on. */
kryl_status kryl_solver_mark(kryl_solver s, kryl_phase phase);

/* A work vector in the working precision and A's layout. */
kryl_status kryl_solver_work_vector(kryl_solver s, kryl_vector *v);

#endif
