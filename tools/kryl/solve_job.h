/* One solve as the kryl command runs it: context, matrix, solver, vectors,
 * and the time each step took. */
#ifndef KRYL_TOOL_SOLVE_JOB_H
#define KRYL_TOOL_SOLVE_JOB_H

#include <pthread.h>

#include "kryl.h"
#include "monitor.h"
#include "progress.h"

typedef struct solve_job {
    kryl_context ctx;
    kryl_matrix A; /* set by the caller after solve_job_context */
    kryl_solver solver;
    kryl_vector b, x;
    kryl_solver_options options; /* as the solver was created */
    progress progress;
    monitor monitor; /* off unless the caller starts one (monitor_init) before setup */
    kryl_result result;
    double context_s;      /* backend start-up */
    double context_wait_s; /* of it, the wait after the matrix was read (solve_job_context_wait) */
    double setup_s;        /* solver creation */
} solve_job;

/* A context created on a thread of its own while the caller reads the
 * matrix file, so that a GPU starts (the driver, the device's context)
 * during the read. */
typedef struct solve_job_start {
    solve_job *job;
    kryl_backend_kind backend;
    int device, threads;
    bool deterministic;
    bool running; /* the thread was started */
    kryl_status status;
    char message[1024]; /* the failure's message */
    pthread_t thread;
} solve_job_start;

/* Zero the job and create its context (deterministic or not); an
 * unavailable backend is reported as such before the library is asked to
 * start it. */
kryl_status solve_job_context(solve_job *job, kryl_backend_kind backend, int device, int threads,
                              bool deterministic);

/* Zero the job and begin creating its context as solve_job_context does,
 * on a thread of its own (or at solve_job_context_wait where no thread
 * starts); nothing of the job may be used before the wait. */
void solve_job_context_start(solve_job *job, solve_job_start *start, kryl_backend_kind backend,
                             int device, int threads, bool deterministic);

/* Wait for the context of solve_job_context_start; a failure is printed. */
kryl_status solve_job_context_wait(solve_job_start *start);

/* Create the solver for job->A (square and, for CG, symmetric).  With a
 * monitor the terminal's progress line is not drawn. */
kryl_status solve_job_setup(solve_job *job, const kryl_solver_options *options, bool show_progress);

/* Solve with b (NULL: b = A*1) and the initial guess x0 (NULL: 0), each of
 * the matrix's global row count (read on rank 0 in a distributed run). */
kryl_status solve_job_solve(solve_job *job, const double *b, const double *x0);

/* The options as run: for --method auto, with the method and preconditioner
 * it chose (*why says why and what fell back; "requested" otherwise). */
kryl_solver_options solve_job_options_run(const solve_job *job, const char **why);

/* Destroy what the job holds, in dependency order, and return the exit
 * status: CLI_EXIT_ERROR if st failed, else whether the solve converged. */
int solve_job_finish(solve_job *job, kryl_status st);

#endif
