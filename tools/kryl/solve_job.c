/* The steps of one solve, shared by `kryl solve` and `kryl demo`. */
#include "solve_job.h"

#include <string.h>

#include "cli.h"

kryl_status solve_job_context(solve_job *job, kryl_backend_kind backend, int device, int threads,
                              bool deterministic)
{
    memset(job, 0, sizeof *job);
    double t0 = cli_wtime();
    kryl_status st = cli_context_create(&job->ctx, backend, device, threads, deterministic);
    job->context_s = cli_wtime() - t0;
    return st;
}

static void *create_context(void *arg)
{
    solve_job_start *start = arg;
    double t0 = cli_wtime();
    start->status =
        cli_context_open(&start->job->ctx, start->backend, start->device, start->threads,
                         start->deterministic, start->message, sizeof start->message);
    start->job->context_s = cli_wtime() - t0;
    return NULL;
}

void solve_job_context_start(solve_job *job, solve_job_start *start, kryl_backend_kind backend,
                             int device, int threads, bool deterministic)
{
    memset(job, 0, sizeof *job);
    *start = (solve_job_start){.job = job,
                               .backend = backend,
                               .device = device,
                               .threads = threads,
                               .deterministic = deterministic};
    start->running = pthread_create(&start->thread, NULL, create_context, start) == 0;
}

kryl_status solve_job_context_wait(solve_job_start *start)
{
    double t0 = cli_wtime();
    if (start->running)
        pthread_join(start->thread, NULL);
    else
        create_context(start);
    start->job->context_wait_s = cli_wtime() - t0;
    if (start->status != KRYL_SUCCESS) cli_report(start->status, start->message);
    return start->status;
}

kryl_status solve_job_setup(solve_job *job, const kryl_solver_options *options, bool show_progress)
{
    job->options = *options;
    int rank = 0;
    kryl_context_rank(job->ctx, &rank, NULL);
    if (rank != 0) job->monitor.every = 0; /* rank 0 speaks for all */
    progress_init(&job->progress, show_progress && job->monitor.every == 0);
    if (job->monitor.every > 0) {
        job->options.residual = monitor_residual;
        job->options.residual_user = &job->monitor;
    }
    if (job->progress.enabled) {
        job->options.progress = progress_update;
        job->options.progress_user = &job->progress;
    }
    double t0 = cli_wtime();
    kryl_status st = kryl_solver_create(&job->solver, job->A, &job->options);
    job->setup_s = cli_wtime() - t0;
    if (st != KRYL_SUCCESS) cli_error(st);
    return st;
}

/* Fill b with `values`, or with A*1 (using x as the vector of ones). */
static kryl_status set_rhs(solve_job *job, const double *values)
{
    if (values != NULL) return kryl_vector_set_global(job->b, job->A, values);
    kryl_status st = kryl_vector_fill(job->x, 1.0);
    /* b = A * 1 */
    if (st == KRYL_SUCCESS) st = kryl_matrix_spmv(job->A, 1.0, job->x, 0.0, job->b);
    return st;
}

kryl_status solve_job_solve(solve_job *job, const double *b, const double *x0)
{
    kryl_status st = kryl_vector_create(&job->b, job->A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = kryl_vector_create(&job->x, job->A, KRYL_DOUBLE);
    if (st == KRYL_SUCCESS) st = set_rhs(job, b);
    if (st == KRYL_SUCCESS)
        st =
            x0 != NULL ? kryl_vector_set_global(job->x, job->A, x0) : kryl_vector_fill(job->x, 0.0);
    if (st == KRYL_SUCCESS) {
        progress_start(&job->progress);
        monitor_start(&job->monitor);
        st = kryl_solver_solve(job->solver, job->b, job->x, &job->result);
        progress_finish(&job->progress);
        if (st == KRYL_SUCCESS) monitor_finish(&job->monitor, &job->result);
    }
    if (st != KRYL_SUCCESS) cli_error(st);
    return st;
}

int solve_job_finish(solve_job *job, kryl_status st)
{
    bool converged = job->result.converged;
    kryl_solver_destroy(&job->solver);
    kryl_vector_destroy(&job->x);
    kryl_vector_destroy(&job->b);
    kryl_matrix_destroy(&job->A);
    kryl_context_destroy(&job->ctx);
    if (st != KRYL_SUCCESS) return CLI_EXIT_ERROR;
    return converged ? CLI_EXIT_OK : CLI_EXIT_NOT_CONVERGED;
}

kryl_solver_options solve_job_options_run(const solve_job *job, const char **why)
{
    kryl_solver_options o = job->options;
    const char *said = "requested";
    kryl_solver_choice(job->solver, &o.method, &o.precond, &said);
    if (why) *why = said;
    return o;
}
