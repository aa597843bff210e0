/* kryl solve: read A (and b, x0), solve A x = b, report and write results. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>

#include "args.h"
#include "cli.h"
#include "json.h"
#include "solve_job.h"

typedef struct solve_args {
    const char *matrix, *rhs, *x0, *out, *history;
    const char *method, *precond, *backend, *precision;
    double rtol, atol;
    int64_t maxit, threads, device, check_interval;
    bool precond_given, json, profile, quiet;
} solve_args;

/* Parse the command line into a and the solver options; ARGS_OK or the
 * parse result to exit with. */
static args_result parse(int argc, char **argv, solve_args *a, kryl_solver_options *opt,
                         kryl_backend_kind *backend)
{
    static const char *cmd = "solve";
    kryl_solver_options_init(opt);
    *a = (solve_args){.method = "pcg",
                      .precond = "none",
                      .backend = "auto",
                      .precision = "double",
                      .rtol = opt->rtol,
                      .atol = opt->atol,
                      .maxit = opt->max_iterations};
    const arg_spec specs[] = {
        {"--rhs", NULL, ARG_STRING, &a->rhs, NULL},
        {"--x0", NULL, ARG_STRING, &a->x0, NULL},
        {"--method", NULL, ARG_STRING, &a->method, NULL},
        {"--precond", NULL, ARG_STRING, &a->precond, &a->precond_given},
        {"--backend", NULL, ARG_STRING, &a->backend, NULL},
        {"--precision", NULL, ARG_STRING, &a->precision, NULL},
        {"--rtol", NULL, ARG_DOUBLE, &a->rtol, NULL},
        {"--atol", NULL, ARG_DOUBLE, &a->atol, NULL},
        {"--maxit", NULL, ARG_COUNT, &a->maxit, NULL},
        {"--threads", NULL, ARG_COUNT, &a->threads, NULL},
        {"--device", NULL, ARG_COUNT, &a->device, NULL},
        {"--check-interval", NULL, ARG_COUNT, &a->check_interval, NULL},
        {"--out", "-o", ARG_STRING, &a->out, NULL},
        {"--history", NULL, ARG_STRING, &a->history, NULL},
        {"--json", NULL, ARG_FLAG, &a->json, NULL},
        {"--profile", NULL, ARG_FLAG, &a->profile, NULL},
        {"--quiet", "-q", ARG_FLAG, &a->quiet, NULL},
    };
    int npos;
    args_result r = args_parse(cmd, argc, argv, specs, (int)(sizeof specs / sizeof specs[0]),
                               &a->matrix, 1, &npos);
    if (r != ARGS_OK) return r;
    if (npos == 0) return args_usage_error(cmd, "missing the matrix file A.mtx");
    if (a->threads > INT_MAX || a->device > INT_MAX || a->check_interval > INT_MAX)
        return args_usage_error(cmd, "--threads, --device or --check-interval is too large");
    if (kryl_method_from_name(a->method, &opt->method) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--method: %s", kryl_last_error());
    if (!a->precond_given && opt->method == KRYL_METHOD_PCG) a->precond = "jacobi";
    if (kryl_precond_from_name(a->precond, &opt->precond) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--precond: %s", kryl_last_error());
    if (kryl_precision_from_name(a->precision, &opt->precision) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--precision: %s", kryl_last_error());
    if (kryl_backend_from_name(a->backend, backend) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--backend: %s", kryl_last_error());
    opt->rtol = a->rtol;
    opt->atol = a->atol;
    opt->max_iterations = a->maxit;
    opt->check_interval = (int)a->check_interval;
    opt->profile = a->profile;
    opt->record_history = a->history != NULL;
    return ARGS_OK;
}

/* Read an n x 1 Matrix Market vector given by `option`; it must have n entries. */
static kryl_status read_vector(const char *option, const char *path, int64_t n, double **values)
{
    int64_t length = 0;
    kryl_status st = kryl_read_mtx_vector(path, &length, values);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    if (length != n) {
        free(*values);
        *values = NULL;
        cli_error_message("dimension mismatch: %s %s has %" PRId64
                          " entries, the matrix has %" PRId64 " rows",
                          option, path, length, n);
        return KRYL_ERR_DIMENSION_MISMATCH;
    }
    return KRYL_SUCCESS;
}

/* Write the residual history as CSV: iteration, ||r_k||, ||r_k|| / ||b||. */
static kryl_status write_history(const solve_job *job, const char *path)
{
    const double *h;
    int64_t length;
    kryl_status st = kryl_solver_history(job->solver, &h, &length);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        cli_error_message("cannot open %s for writing", path);
        return KRYL_ERR_IO;
    }
    double bnorm = job->result.bnorm;
    fprintf(f, "iteration,residual_norm,relative_residual\n");
    for (int64_t k = 0; k < length; k++)
        fprintf(f, "%" PRId64 ",%.17g,%.17g\n", k, h[k], bnorm > 0.0 ? h[k] / bnorm : h[k]);
    if (fclose(f) != 0) {
        cli_error_message("cannot write %s", path);
        return KRYL_ERR_IO;
    }
    return KRYL_SUCCESS;
}

/* Fetch x and write it as an n x 1 Matrix Market file. */
static kryl_status write_solution(const solve_job *job, const char *path)
{
    int64_t n = kryl_vector_length(job->x);
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    if (x == NULL) {
        cli_error_message("out of memory for the %" PRId64 " entries of x", n);
        return KRYL_ERR_OUT_OF_MEMORY;
    }
    kryl_status st = kryl_vector_get(job->x, x, n);
    if (st == KRYL_SUCCESS) st = kryl_write_mtx_vector(path, n, x);
    if (st != KRYL_SUCCESS) cli_error(st);
    free(x);
    return st;
}

static double total_seconds(const solve_job *job, double read_s)
{
    return read_s + job->setup_s + job->result.solve_s;
}

static void print_json(const solve_job *job, const solve_args *a, double read_s)
{
    const kryl_result *r = &job->result;
    int64_t nrows, ncols, nnz;
    kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    json_writer w;
    json_init(&w, stdout);
    json_begin(&w, NULL);
    json_string(&w, "matrix", a->matrix);
    json_int(&w, "n", nrows);
    json_int(&w, "ncols", ncols);
    json_int(&w, "nnz", nnz);
    json_string(&w, "method", kryl_method_name(job->options.method));
    json_string(&w, "precond", kryl_precond_name(job->options.precond));
    json_string(&w, "backend", kryl_backend_name(kryl_context_backend(job->ctx)));
    json_string(&w, "device", kryl_context_device_name(job->ctx));
    json_string(&w, "precision", kryl_precision_name(job->options.precision));
    json_double(&w, "rtol", job->options.rtol);
    json_double(&w, "atol", job->options.atol);
    json_int(&w, "maxit", job->options.max_iterations);
    json_int(&w, "iterations", r->iterations);
    json_double(&w, "relres", r->relres);
    json_double(&w, "relres_recursive", r->relres_recursive);
    json_double(&w, "resnorm", r->resnorm);
    json_double(&w, "bnorm", r->bnorm);
    json_int(&w, "residual_replacements", r->residual_replacements);
    json_string(&w, "reason", kryl_reason_name(r->reason));
    json_bool(&w, "converged", r->converged);
    json_double(&w, "time_s", total_seconds(job, read_s));
    json_double(&w, "read_s", read_s);
    json_double(&w, "setup_s", job->setup_s);
    json_double(&w, "solve_s", r->solve_s);
    json_double(&w, "context_s", job->context_s);
    json_double(&w, "time_per_iteration_s",
                r->iterations > 0 ? r->solve_s / (double)r->iterations : 0.0);
    if (a->profile) {
        json_begin(&w, "profile");
        json_double(&w, "spmv_s", r->profile.spmv);
        json_double(&w, "precond_s", r->profile.precond);
        json_double(&w, "vector_s", r->profile.vector);
        json_double(&w, "reduction_s", r->profile.reduction);
        json_double(&w, "transfer_s", r->profile.transfer);
        json_double(&w, "iteration_s", r->profile.iteration);
        json_end(&w);
    }
    json_end(&w);
}

/* One row of the profile table: the phase, its time, its share of the loop. */
static void print_phase(const char *lead, const char *name, double seconds, double loop)
{
    char t[32];
    printf("%-12s%-16s%-10s%3.0f%%\n", lead, name, cli_format_seconds(t, sizeof t, seconds),
           loop > 0.0 ? 100.0 * seconds / loop : 0.0);
}

static void print_summary(const solve_job *job, const solve_args *a, double read_s)
{
    const kryl_result *r = &job->result;
    const kryl_solver_options *o = &job->options;
    int64_t nrows, ncols, nnz;
    kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    char t[5][32];
    printf("matrix      %s: %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros\n",
           cli_basename(a->matrix), nrows, ncols, nnz);
    printf("method      %s, precond %s, %s precision (rtol %g, atol %g, maxit %" PRId64 ")\n",
           kryl_method_name(o->method), kryl_precond_name(o->precond),
           kryl_precision_name(o->precision), o->rtol, o->atol, o->max_iterations);
    printf("backend     %s: %s\n", kryl_backend_name(kryl_context_backend(job->ctx)),
           kryl_context_device_name(job->ctx));
    printf("iterations  %" PRId64 "\n", r->iterations);
    printf("relres      %.3e true ||b - Ax||/||b||, %.3e recursive\n", r->relres,
           r->relres_recursive);
    printf("result      %s (%s)\n", r->converged ? "converged" : "NOT converged",
           kryl_reason_name(r->reason));
    printf("time        %s total: read %s, setup %s, solve %s",
           cli_format_seconds(t[0], sizeof t[0], total_seconds(job, read_s)),
           cli_format_seconds(t[1], sizeof t[1], read_s),
           cli_format_seconds(t[2], sizeof t[2], job->setup_s),
           cli_format_seconds(t[3], sizeof t[3], r->solve_s));
    if (r->iterations > 0)
        printf(" (%s per iteration)",
               cli_format_seconds(t[4], sizeof t[4], r->solve_s / (double)r->iterations));
    printf("\n");
    if (a->profile) {
        const kryl_profile *p = &r->profile;
        print_phase("profile", "spmv", p->spmv, p->iteration);
        print_phase("", "precond", p->precond, p->iteration);
        print_phase("", "vector", p->vector, p->iteration);
        print_phase("", "reduction", p->reduction, p->iteration);
        print_phase("", "transfer", p->transfer, p->iteration);
        print_phase("", "whole loop", p->iteration, p->iteration);
    }
}

/* Read A, b and x0 (timed as *read_s), set up and solve. */
static kryl_status run(solve_job *job, const solve_args *a, const kryl_solver_options *opt,
                       double *read_s)
{
    double *b = NULL, *x0 = NULL;
    double t0 = cli_wtime();
    kryl_status st = kryl_matrix_read_mtx(&job->A, job->ctx, a->matrix);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    *read_s = cli_wtime() - t0;
    st = solve_job_setup(job, opt, !a->quiet);
    int64_t nrows = 0, ncols, nnz;
    if (st == KRYL_SUCCESS) st = kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    t0 = cli_wtime();
    if (st == KRYL_SUCCESS && a->rhs != NULL) st = read_vector("--rhs", a->rhs, nrows, &b);
    if (st == KRYL_SUCCESS && a->x0 != NULL) st = read_vector("--x0", a->x0, nrows, &x0);
    *read_s += cli_wtime() - t0;
    if (st == KRYL_SUCCESS) st = solve_job_solve(job, b, x0);
    free(b);
    free(x0);
    return st;
}

int cmd_solve(int argc, char **argv)
{
    solve_args a;
    kryl_solver_options opt;
    kryl_backend_kind backend;
    args_result r = parse(argc, argv, &a, &opt, &backend);
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;

    solve_job job;
    double read_s = 0.0;
    kryl_status st = solve_job_context(&job, backend, (int)a.device, (int)a.threads);
    if (st == KRYL_SUCCESS) st = run(&job, &a, &opt, &read_s);
    if (st == KRYL_SUCCESS && a.out != NULL) st = write_solution(&job, a.out);
    if (st == KRYL_SUCCESS && a.history != NULL) st = write_history(&job, a.history);
    if (st == KRYL_SUCCESS) {
        if (a.json)
            print_json(&job, &a, read_s);
        else if (!a.quiet)
            print_summary(&job, &a, read_s);
    }
    return solve_job_finish(&job, st);
}
