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
    kryl_matrix A;            /* the caller's matrix: double, original values (true residual) */
    kryl_matrix Aw;           /* the matrix the iteration uses, in the working precision */
    kryl_precision precision; /* working precision */
    kryl_precond *pc;         /* NULL: none */
    void *work;               /* the method's workspace */

    /* The driver's workspace (src/solvers/solver.c). */
    kryl_vector b_work, x_work;         /* b and x in the working precision and order */
    kryl_vector b_true, x_true, r_true; /* double, natural order: b - A x with A's own values */
    kryl_vector x_best;  /* double, natural order: the x of the smallest true residual */
    kryl_vector r_start; /* r_true in Aw's order (NULL when Aw keeps the natural order) */
    kryl_format format;  /* Aw's storage format */
    /* vectors of n entries one iteration reads or writes besides its
     * SpMV's x and y, as the method's setup counts them (0: not counted) */
    int iteration_vectors;
    /* batching (iterate.c): the replayable graph of graph_steps steps
     * (sized by the step time, or one period captured at setup), the time
     * of a step (0: not measured yet), and the host's cost of one
     * convergence check */
    void *graph;
    int64_t graph_steps;
    bool graph_sized;
    double step_seconds;
    int period; /* method->period, or what the method's setup sets (GMRES: m) */
    double check_cost;
    kryl_monitor *check_copy; /* host, pinned: where a check read ahead of the queue lands */
    int64_t batch_interval;   /* the batch size reached so far (0: not started) */
    int64_t x_iteration;      /* set by finish where x_work is an earlier iterate: its iteration */
    double bnorm;             /* ||b|| of the solve under way, of the system the iteration
                                 solves: b scaled by 2^scale_exp (solver.c) */
    int scale_exp;
    char format_reason[320];
    double *scalars;       /* backend: [0] = ||b||^2, [1] = ||b - Ax||^2 */
    kryl_monitor *monitor; /* backend */
    double *history;       /* backend, max_iterations + 1 entries */
    double *history_host;
    int64_t history_length;

    double setup_s;
    uint64_t values_seen; /* A->host->values_seen the solver was built or updated for */
    double setup_phases[KRYL_SETUP_PHASES]; /* setup_s by kryl_setup_phase */
    /* profiling: time of the last mark and the bucket it opened */
    bool profiling;
    double mark_time;
    kryl_phase mark_phase;
    double phase_time[KRYL_PHASE_COUNT];

    /* Mixed-precision schemes: the single-precision inner solver. */
    kryl_solver inner;
    /* backend: (alpha_k, beta_k) of each iteration of a CG-type method that
     * records them (kryl_solver_spectrum), or NULL */
    double *cg_coefficients;
    /* KRYL_METHOD_AUTO: the candidates and the solver chosen, which does the
     * work (auto_choice.c); NULL otherwise */
    struct kryl_auto *automatic;
    /* options.hybrid: what runs and how the rows are split (hybrid_pipecg.c) */
    kryl_hybrid_info hybrid;
};

struct kryl_method_ops {
    const char *name;
    bool needs_symmetric; /* and a positive diagonal */
    /* Preconditioned by an inner solver (the mixed schemes): the options'
     * preconditioner belongs to that solver, so the outer builds none, and
     * a step waits for its inner solve, so steps are never recorded as graphs. */
    bool inner_solver;
    /* Steps after which the method's host-side state repeats (CG: 2, its
     * scalar pairs alternate), so a graph of a multiple of them replays
     * correctly; 0: never capture the method's steps in a graph. */
    int period;
    /* Allocate the method's workspace (s->work). */
    kryl_status (*setup)(kryl_solver s);
    /* (Re)start from the residual r0 = b - A x (double, computed by the
     * driver): set up the method's vectors and record ||r0|| through
     * monitor_update with advance 0. */
    kryl_status (*start)(kryl_solver s, kryl_vector r0);
    /* Queue one iteration on x = s->x_work; no synchronisation, no host
     * reads: the monitor decides when to stop. */
    kryl_status (*step)(kryl_solver s);
    /* Optional: queue `count` steps in fewer launches than step() would,
     * or return with *queued = false having queued nothing (the driver then
     * queues them with step()). */
    kryl_status (*steps)(kryl_solver s, int64_t count, bool *queued);
    /* Optional: replace the method's residual by r0 = b - A x for the
     * current x (double, computed by the caller), keeping its search
     * directions (residual replacement, van der Vorst & Ye 2000): what the
     * reliable mixed scheme asks of its inner solver. */
    kryl_status (*replace_residual)(kryl_solver s, kryl_vector r0);
    /* Optional: bring s->x_work up to date when the loop stops (methods
     * such as GMRES form x only at the end of a cycle).  NULL: x_work is
     * always current. */
    kryl_status (*finish)(kryl_solver s);
    /* Optional: the recursive residual met the test while the true one
     * missed it by far (KRYL_FALLBACK_GAP times or more): switch to a more
     * stable variant for the rest of the solve (GMRES: DCGS2 -> CGS2), saying
     * so in the log; *switched tells whether it did. */
    kryl_status (*fall_back)(kryl_solver s, bool *switched);
    /* Optional: r = b - A x (double, natural order) over the method's own
     * split of A, for the driver's true residual and r0, where the whole A
     * need not be in the backend's memory (hybrid pipecg); NULL: one SpMV
     * with s->A. */
    kryl_status (*residual)(kryl_solver s, kryl_vector x, kryl_vector b, kryl_vector r);
    /* After a breakdown, start again from x (BiCGSTAB: with a new shadow
     * residual r^ = b - A x) at most this many times a solve, as long as
     * each start makes progress; 0: a breakdown ends the solve. */
    int breakdown_restarts;
    void (*destroy)(kryl_solver s);
};

/* The gap between the true and the recursive residual at which a method
 * falls back to its more stable variant. */
#define KRYL_FALLBACK_GAP 100.0

extern const kryl_method_ops kryl_method_cg;
extern const kryl_method_ops kryl_method_pipecg;         /* pipecg.c */
extern const kryl_method_ops kryl_method_gmres;          /* gmres.c */
extern const kryl_method_ops kryl_method_fgmres;         /* gmres.c: inner-outer, nonsymmetric */
extern const kryl_method_ops kryl_method_bicgstab;       /* bicgstab.c */
extern const kryl_method_ops kryl_method_mixed_ir;       /* mixed_ir.c */
extern const kryl_method_ops kryl_method_mixed_reliable; /* mixed_reliable.c */
extern const kryl_method_ops kryl_method_fcg;            /* fcg.c: inner-outer, symmetric */
extern const kryl_method_ops kryl_method_hybrid_pipecg;  /* hybrid_pipecg.c: host + device */

/* A scalar at index k of a backend block of doubles. */
static inline kryl_scalar kryl_scalar_at(double *block, int k)
{
    kryl_scalar s = {block + k};
    return s;
}

/* Profiling: close the running phase and open `phase` (KRYL_PHASE_NONE to
 * just close).  Synchronises only when profiling is on. */
kryl_status kryl_solver_mark(kryl_solver s, kryl_phase phase);

/* Run the method from the current x until its monitor stops it or the
 * iteration limit, queueing batches of steps between checks; m mirrors the
 * monitor on return (iterate.c). */
kryl_status kryl_solver_iterate(kryl_solver s, kryl_monitor *m);

/* The same up to the absolute iteration count `limit` (an inner solver's
 * monitor keeps counting over its solves). */
kryl_status kryl_solver_iterate_to(kryl_solver s, kryl_monitor *m, int64_t limit);

/* At setup: measure the check cost and capture the first graph where one
 * pays; after an update and at destruction: free the graph. */
kryl_status kryl_solver_batching_setup(kryl_solver s);
void kryl_solver_batching_release(kryl_solver s);
/* Free the pinned page checks read ahead land in (iterate.c makes it at
 * the first solve that reads ahead), with the solver. */
void kryl_solver_batching_free(kryl_solver s);

/* Resolve KRYL_FORMAT_AUTO (by the model, or by timing with options.tune)
 * into s->format and s->format_reason (format_choice.c). */
kryl_status kryl_solver_choose_format(kryl_solver s);

/* A solver whose start and steps another solver queues (the mixed schemes'
 * inner solver): as kryl_solver_create, without the driver's double
 * vectors for the caller's b, x and the true residual, which it never uses. */
kryl_status kryl_solver_create_inner(kryl_solver *solver, kryl_matrix A,
                                     const kryl_solver_options *options);

/* A work vector in the working precision and A's layout. */
kryl_status kryl_solver_work_vector(kryl_solver s, kryl_vector *v);

#endif
