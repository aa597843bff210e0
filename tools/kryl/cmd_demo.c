/* kryl demo: generate the 3-D Poisson equation and solve it with
 * Jacobi-preconditioned CG on the best backend, in a few seconds. */
#include <inttypes.h>
#include <limits.h>

#include "args.h"
#include "cli.h"
#include "solve_job.h"

/* Generate the 7-point Laplacian on an n x n x n grid into job->A. */
static kryl_status generate(solve_job *job, int64_t n, double *gen_s)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, n);
    int64_t nrows = 0, estimate;
    double t0 = cli_wtime();
    kryl_status st = kryl_generator_size(&g, &nrows, &estimate);
    if (st == KRYL_SUCCESS) st = kryl_matrix_generate(&job->A, job->ctx, &g, 0, nrows);
    *gen_s = cli_wtime() - t0;
    if (st != KRYL_SUCCESS) cli_error(st);
    return st;
}

static void print_summary(const solve_job *job, int64_t n, double gen_s)
{
    const kryl_result *r = &job->result;
    int64_t nrows, ncols, nnz;
    kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    char t[4][32];
    printf("kryl demo: 3-D Poisson equation, 7-point stencil on a %" PRId64 " x %" PRId64
           " x %" PRId64 " grid\n",
           n, n, n);
    printf("  matrix      %" PRId64 " rows, %" PRId64 " nonzeros (generated in %s)\n", nrows, nnz,
           cli_format_seconds(t[0], sizeof t[0], gen_s));
    printf("  solver      CG with Jacobi preconditioner, %s precision, rtol %g, b = A*1\n",
           kryl_precision_name(job->options.precision), job->options.rtol);
    printf("  backend     %s: %s\n", kryl_backend_name(kryl_context_backend(job->ctx)),
           kryl_context_device_name(job->ctx));
    printf("  iterations  %" PRId64 "\n", r->iterations);
    printf("  relres      %.2e (true ||b - Ax|| / ||b||)\n", r->relres);
    printf("  time        setup %s, solve %s (%s per iteration)\n",
           cli_format_seconds(t[1], sizeof t[1], job->setup_s),
           cli_format_seconds(t[2], sizeof t[2], r->solve_s),
           cli_format_seconds(t[3], sizeof t[3],
                              r->iterations > 0 ? r->solve_s / (double)r->iterations : 0.0));
    printf("  converged   %s (%s)\n", r->converged ? "yes" : "NO", kryl_reason_name(r->reason));
    printf("\nNext: %s gen poisson3d --n %" PRId64 " -o A.mtx && %s solve A.mtx\n", cli_program, n,
           cli_program);
}

int cmd_demo(int argc, char **argv)
{
    int64_t n = 64;
    const char *backend_name = "auto";
    const arg_spec specs[] = {
        {"--n", NULL, ARG_POSITIVE, &n, NULL},
        {"--backend", NULL, ARG_STRING, &backend_name, NULL},
    };
    int npos;
    args_result r = args_parse("demo", argc, argv, specs, 2, NULL, 0, &npos);
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    kryl_backend_kind backend;
    if (kryl_backend_from_name(backend_name, &backend) != KRYL_SUCCESS) {
        args_usage_error("demo", "--backend: %s", kryl_last_error());
        return CLI_EXIT_ERROR;
    }
    if (n > INT_MAX / n / n) {
        args_usage_error("demo", "--n %" PRId64 ": n^3 rows do not fit 32-bit indices", n);
        return CLI_EXIT_ERROR;
    }

    kryl_solver_options opt;
    kryl_solver_options_init(&opt);
    opt.method = KRYL_METHOD_PCG;
    opt.precond = KRYL_PRECOND_JACOBI;
    opt.record_history = false;
    solve_job job;
    double gen_s = 0.0;
    kryl_status st = solve_job_context(&job, backend, 0, 0, false);
    if (st == KRYL_SUCCESS) st = generate(&job, n, &gen_s);
    if (st == KRYL_SUCCESS) st = solve_job_setup(&job, &opt, true);
    if (st == KRYL_SUCCESS) st = solve_job_solve(&job, NULL, NULL);
    if (st == KRYL_SUCCESS) print_summary(&job, n, gen_s);
    return solve_job_finish(&job, st);
}
