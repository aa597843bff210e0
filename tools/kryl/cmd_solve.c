/* kryl solve: read A (and b, x0), solve A x = b, report and write results. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "amg_nullspace.h"
#include "args.h"
#include "cli.h"
#include "solve_job.h"
#include "solve_report.h"
#include "view.h"

typedef struct solve_args {
    const char *matrix, *rhs, *x0, *out, *history;
    const char *method, *precond, *backend, *precision, *mixed, *format, *order, *partition,
        *block_factor;
    const char *orthog;
    const char *amg_smoother, *amg_cycle, *amg_aggregation, *amg_coarsening;
    const char *nullspace, *coordinates; /* AMG's near-nullspace */
    double amg_theta;
    int64_t amg_sweeps, amg_coarse_size, amg_max_levels;
    const char *gen, *overlap; /* a generated matrix (--gen KIND --n N); SpMV overlap over ranks */
    int64_t gen_n;
    bool partition_given;
    double rtol, atol, dtol, inner_rtol, droptol, omega, symmetry_tol;
    int64_t maxit, threads, device, check_interval, restart, inner_its, degree, fill, maxfill,
        blocks, sweeps;
    int64_t monitor; /* --monitor k: a residual line every k iterations; 0 = none */
    bool check_interval_given, format_given, view;
    bool precond_given, precision_given, mixed_given, inner_rtol_given, json, profile, quiet, tune,
        match;
} solve_args;

/* Resolve --precision and --mixed: a scheme implies --precision mixed, and
 * --precision mixed alone runs inner-outer. */
static args_result resolve_mixed(const solve_args *a, kryl_solver_options *opt)
{
    static const char *cmd = "solve";
    if (kryl_precision_from_name(a->precision, &opt->precision) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--precision: %s", kryl_last_error());
    if (kryl_mixed_scheme_from_name(a->mixed, &opt->mixed) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--mixed: %s", kryl_last_error());
    if (opt->precision == KRYL_MIXED && opt->mixed == KRYL_MIXED_NONE) {
        if (a->mixed_given)
            return args_usage_error(cmd, "--precision mixed needs a scheme: --mixed ir, "
                                         "--mixed reliable or --mixed inner-outer (the default)");
        opt->mixed = KRYL_MIXED_INNER_OUTER;
    }
    if (opt->precision != KRYL_MIXED && opt->mixed != KRYL_MIXED_NONE) {
        if (a->precision_given)
            return args_usage_error(cmd,
                                    "--mixed %s runs single-precision inner solves inside a "
                                    "double-precision iteration: use --precision mixed, not %s",
                                    a->mixed, a->precision);
        opt->precision = KRYL_MIXED;
    }
    return ARGS_OK;
}

/* Parse the command line into a and the solver options; ARGS_OK or the
 * parse result to exit with. */
static args_result parse(int argc, char **argv, solve_args *a, kryl_solver_options *opt,
                         kryl_backend_kind *backend)
{
    static const char *cmd = "solve";
    kryl_solver_options_init(opt);
    *a = (solve_args){.method = "auto",
                      .precond = "none",
                      .backend = "auto",
                      .precision = "double",
                      .mixed = "none",
                      .format = "csr",
                      .order = "none",
                      .partition = "auto",
                      .block_factor = "none",
                      .overlap = "naive",
                      .orthog = "dcgs2",
                      .rtol = opt->rtol,
                      .atol = opt->atol,
                      .dtol = opt->dtol,
                      .maxit = opt->max_iterations,
                      /* the library's documented defaults, passed explicitly so the
                       * report shows the values used */
                      .restart = 40,
                      .degree = 8,
                      .fill = 1,
                      .droptol = 1e-3,
                      .maxfill = 20,
                      .sweeps = 1,
                      .omega = 1.0,
                      .symmetry_tol = opt->symmetry_tol,
                      .amg_smoother = "chebyshev",
                      .amg_cycle = "v",
                      .amg_aggregation = "auto",
                      .amg_coarsening = "greedy",
                      .amg_theta = opt->amg.theta,
                      .amg_coarse_size = opt->amg.coarse_size,
                      .amg_max_levels = opt->amg.max_levels};
    const arg_spec specs[] = {
        {"--rhs", NULL, ARG_STRING, &a->rhs, NULL},
        {"--x0", NULL, ARG_STRING, &a->x0, NULL},
        {"--method", NULL, ARG_STRING, &a->method, NULL},
        {"--precond", NULL, ARG_STRING, &a->precond, &a->precond_given},
        {"--restart", NULL, ARG_POSITIVE, &a->restart, NULL},
        {"--orthog", NULL, ARG_STRING, &a->orthog, NULL},
        {"--degree", NULL, ARG_POSITIVE, &a->degree, NULL},
        {"--fill", NULL, ARG_COUNT, &a->fill, NULL},
        {"--droptol", NULL, ARG_DOUBLE, &a->droptol, NULL},
        {"--maxfill", NULL, ARG_COUNT, &a->maxfill, NULL},
        {"--blocks", NULL, ARG_COUNT, &a->blocks, NULL},
        {"--partition", NULL, ARG_STRING, &a->partition, &a->partition_given},
        {"--block-factor", NULL, ARG_STRING, &a->block_factor, NULL},
        {"--gen", NULL, ARG_STRING, &a->gen, NULL},
        {"--n", NULL, ARG_POSITIVE, &a->gen_n, NULL},
        {"--overlap", NULL, ARG_STRING, &a->overlap, NULL},
        {"--sweeps", NULL, ARG_POSITIVE, &a->sweeps, NULL},
        {"--omega", NULL, ARG_DOUBLE, &a->omega, NULL},
        {"--amg-theta", NULL, ARG_DOUBLE, &a->amg_theta, NULL},
        {"--amg-smoother", NULL, ARG_STRING, &a->amg_smoother, NULL},
        {"--amg-sweeps", NULL, ARG_POSITIVE, &a->amg_sweeps, NULL},
        {"--amg-cycle", NULL, ARG_STRING, &a->amg_cycle, NULL},
        {"--amg-aggregation", NULL, ARG_STRING, &a->amg_aggregation, NULL},
        {"--amg-coarsening", NULL, ARG_STRING, &a->amg_coarsening, NULL},
        {"--nullspace", NULL, ARG_STRING, &a->nullspace, NULL},
        {"--coordinates", NULL, ARG_STRING, &a->coordinates, NULL},
        {"--amg-coarse-size", NULL, ARG_POSITIVE, &a->amg_coarse_size, NULL},
        {"--amg-max-levels", NULL, ARG_POSITIVE, &a->amg_max_levels, NULL},
        {"--backend", NULL, ARG_STRING, &a->backend, NULL},
        {"--format", NULL, ARG_STRING, &a->format, &a->format_given},
        {"--order", NULL, ARG_STRING, &a->order, NULL},
        {"--tune", NULL, ARG_FLAG, &a->tune, NULL},
        {"--match", NULL, ARG_FLAG, &a->match, NULL},
        {"--precision", NULL, ARG_STRING, &a->precision, &a->precision_given},
        {"--mixed", NULL, ARG_STRING, &a->mixed, &a->mixed_given},
        {"--inner-its", NULL, ARG_POSITIVE, &a->inner_its, NULL},
        {"--inner-rtol", NULL, ARG_DOUBLE, &a->inner_rtol, &a->inner_rtol_given},
        {"--rtol", NULL, ARG_DOUBLE, &a->rtol, NULL},
        {"--symmetry-tol", NULL, ARG_DOUBLE, &a->symmetry_tol, NULL},
        {"--atol", NULL, ARG_DOUBLE, &a->atol, NULL},
        {"--dtol", NULL, ARG_DOUBLE, &a->dtol, NULL},
        {"--maxit", NULL, ARG_COUNT, &a->maxit, NULL},
        {"--threads", NULL, ARG_COUNT, &a->threads, NULL},
        {"--device", NULL, ARG_COUNT, &a->device, NULL},
        {"--check-interval", NULL, ARG_COUNT, &a->check_interval, &a->check_interval_given},
        {"--monitor", NULL, ARG_EVERY, &a->monitor, NULL},
        {"--view", NULL, ARG_FLAG, &a->view, NULL},
        {"--out", "-o", ARG_STRING, &a->out, NULL},
        {"--history", NULL, ARG_STRING, &a->history, NULL},
        {"--json", NULL, ARG_FLAG, &a->json, NULL},
        {"--max-memory", NULL, ARG_MEMORY, NULL, NULL},
        {"--profile", NULL, ARG_FLAG, &a->profile, NULL},
        {"--quiet", "-q", ARG_FLAG, &a->quiet, NULL},
    };
    /* KRYL_OPTIONS first: the command line overrides it */
    args_result r =
        args_parse_environment(cmd, "KRYL_OPTIONS", specs, (int)(sizeof specs / sizeof specs[0]));
    if (r != ARGS_OK) return r;
    int npos;
    r = args_parse(cmd, argc, argv, specs, (int)(sizeof specs / sizeof specs[0]), &a->matrix, 1,
                   &npos);
    if (r != ARGS_OK) return r;
    if (a->json) cli_json_errors(true); /* --json from KRYL_OPTIONS or an options file */
    if (npos == 0 && a->gen == NULL)
        return args_usage_error(cmd, "missing the matrix file A.mtx (or --gen KIND --n N)");
    if (npos > 0 && a->gen != NULL)
        return args_usage_error(cmd, "give a matrix file or --gen KIND, not both");
    kryl_generator_kind gen_kind;
    if (a->gen != NULL && kryl_generator_from_name(a->gen, &gen_kind) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--gen: %s", kryl_last_error());
    if (a->gen != NULL && a->gen_n == 0)
        return args_usage_error(cmd, "--gen %s needs the size --n N", a->gen);
    kryl_overlap overlap;
    if (kryl_overlap_from_name(a->overlap, &overlap) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--overlap: %s", kryl_last_error());
    if (a->threads > INT_MAX || a->device > INT_MAX || a->check_interval > INT_MAX ||
        a->monitor > INT_MAX)
        return args_usage_error(cmd,
                                "--threads, --device, --check-interval or --monitor is too large");
    if (a->restart > INT_MAX || a->inner_its > INT_MAX || a->degree > INT_MAX)
        return args_usage_error(cmd, "--restart, --inner-its or --degree is too large");
    if (a->fill > INT_MAX || a->maxfill > INT_MAX || a->blocks > INT_MAX || a->sweeps > INT_MAX)
        return args_usage_error(cmd, "--fill, --maxfill, --blocks or --sweeps is too large");
    if (a->inner_rtol_given && !(a->inner_rtol > 0.0 && a->inner_rtol < 1.0))
        return args_usage_error(cmd, "--inner-rtol %g: expected a reduction factor in (0, 1)",
                                a->inner_rtol);
    if (!(a->symmetry_tol < 1.0))
        return args_usage_error(cmd, "--symmetry-tol %g: expected a relative tolerance in [0, 1)",
                                a->symmetry_tol);
    if (kryl_method_from_name(a->method, &opt->method) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--method: %s", kryl_last_error());
    if (!a->precond_given && opt->method == KRYL_METHOD_PCG) a->precond = "jacobi";
    if (kryl_precond_from_name(a->precond, &opt->precond) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--precond: %s", kryl_last_error());
    if (opt->method == KRYL_METHOD_PCG && opt->precond == KRYL_PRECOND_NONE)
        return args_usage_error(cmd, "--method pcg is preconditioned CG: name a preconditioner "
                                     "other than none, or use --method cg");
    if (kryl_format_from_name(a->format, &opt->format) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--format: %s", kryl_last_error());
    if (kryl_order_from_name(a->order, &opt->order) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--order: %s", kryl_last_error());
    if (kryl_partition_from_name(a->partition, &opt->partition) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--partition: %s", kryl_last_error());
    if (kryl_precond_from_name(a->block_factor, &opt->block_factor) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--block-factor: %s", kryl_last_error());
    if (strcmp(a->orthog, "cgs2") == 0)
        opt->gmres_orthog = KRYL_ORTHOG_CGS2;
    else if (strcmp(a->orthog, "dcgs2") == 0)
        opt->gmres_orthog = KRYL_ORTHOG_DCGS2;
    else
        return args_usage_error(cmd, "--orthog: '%s', expected cgs2 or dcgs2", a->orthog);
    if (a->tune && !a->format_given) opt->format = KRYL_FORMAT_AUTO; /* --tune alone: auto's */
    if (a->tune && opt->format != KRYL_FORMAT_AUTO)
        return args_usage_error(cmd,
                                "--tune times the candidates of --format auto; "
                                "--format %s names one",
                                a->format);
    const cli_path inputs[] = {{"the matrix", a->matrix}, {"--rhs", a->rhs}, {"--x0", a->x0}};
    const cli_path outputs[] = {{"--out", a->out}, {"--history", a->history}};
    if (!cli_outputs_distinct(inputs, 3, outputs, 2)) return ARGS_ERROR;
    if (kryl_amg_smoother_from_name(a->amg_smoother, &opt->amg.smoother) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--amg-smoother: %s", kryl_last_error());
    if (kryl_amg_cycle_from_name(a->amg_cycle, &opt->amg.cycle) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--amg-cycle: %s", kryl_last_error());
    if (kryl_amg_aggregation_from_name(a->amg_aggregation, &opt->amg.aggregation) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--amg-aggregation: %s", kryl_last_error());
    if (kryl_amg_coarsening_from_name(a->amg_coarsening, &opt->amg.coarsening) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--amg-coarsening: %s", kryl_last_error());
    if (a->nullspace != NULL && a->coordinates != NULL)
        return args_usage_error(cmd, "give --nullspace FILE or --coordinates FILE, not both");
    if ((a->nullspace != NULL || a->coordinates != NULL) && opt->precond != KRYL_PRECOND_AMG)
        return args_usage_error(cmd, "--nullspace and --coordinates are for --precond amg");
    if (a->amg_theta > 1.0)
        return args_usage_error(cmd, "--amg-theta %g: expected 0 <= theta <= 1", a->amg_theta);
    if (a->amg_sweeps > 64 || a->amg_coarse_size > 4000 || a->amg_max_levels > 32)
        return args_usage_error(cmd,
                                "--amg-sweeps %" PRId64 ", --amg-coarse-size %" PRId64
                                ", --amg-max-levels %" PRId64 ": expected at most 64, 4000 and 32",
                                a->amg_sweeps, a->amg_coarse_size, a->amg_max_levels);
    opt->amg.theta = a->amg_theta;
    opt->amg.sweeps = (int)a->amg_sweeps;
    opt->amg.coarse_size = (int)a->amg_coarse_size;
    opt->amg.max_levels = (int)a->amg_max_levels;
    if (kryl_backend_from_name(a->backend, backend) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--backend: %s", kryl_last_error());
    r = resolve_mixed(a, opt);
    if (r != ARGS_OK) return r;
    opt->tune = a->tune;
    opt->match = a->match;
    opt->restart = (int)a->restart;
    opt->degree = (int)a->degree;
    opt->fill = (int)a->fill;
    opt->droptol = a->droptol;
    opt->maxfill = (int)a->maxfill;
    opt->blocks = (int)a->blocks;
    opt->sweeps = (int)a->sweeps;
    opt->omega = a->omega;
    opt->inner_iterations = (int)a->inner_its;
    /* the scheme's own default: how far an inner solve goes, or (reliable)
     * the drop between refreshes of the one inner CG */
    opt->inner_rtol =
        a->inner_rtol_given ? a->inner_rtol : kryl_mixed_default_inner_rtol(opt->mixed);
    opt->rtol = a->rtol;
    opt->atol = a->atol;
    opt->symmetry_tol = a->symmetry_tol;
    opt->dtol = a->dtol;
    opt->max_iterations = a->maxit;
    opt->check_interval = (int)a->check_interval;
    /* the monitor's lines fall every k iterations when the checks do */
    if (a->monitor > 0 && !a->check_interval_given) opt->check_interval = (int)a->monitor;
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
    int rank = 0;
    kryl_status st = kryl_solver_history(job->solver, &h, &length);
    kryl_context_rank(job->ctx, &rank, NULL);
    /* every rank holds the same history: rank 0 writes it */
    if (st == KRYL_SUCCESS && rank == 0)
        st = kryl_write_history_csv(path, h, length, job->result.bnorm);
    if (st != KRYL_SUCCESS) cli_error(st);
    return st;
}

/* Fetch x (gathered on rank 0) and write it as an n x 1 Matrix Market file. */
static kryl_status write_solution(const solve_job *job, const char *path)
{
    int64_t n = 0;
    int rank = 0;
    kryl_matrix_size(job->A, &n, NULL, NULL);
    kryl_context_rank(job->ctx, &rank, NULL);
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    if (x == NULL) {
        cli_error_message("out of memory for the %" PRId64 " entries of x", n);
        return KRYL_ERR_OUT_OF_MEMORY;
    }
    kryl_status st = kryl_vector_get_global(job->x, job->A, x);
    if (st == KRYL_SUCCESS && rank == 0) st = kryl_write_mtx_vector(path, n, x);
    if (st != KRYL_SUCCESS) cli_error(st);
    free(x);
    return st;
}

/* The matrix of --gen KIND --n N (over all ranks in a distributed run). */
static kryl_status generate(solve_job *job, const solve_args *a)
{
    kryl_generator_kind kind = KRYL_GEN_POISSON2D5;
    kryl_generator_options g;
    int64_t nrows = 0, estimate;
    kryl_status st = kryl_generator_from_name(a->gen, &kind);
    if (st == KRYL_SUCCESS) kryl_generator_options_init(&g, kind, a->gen_n);
    if (st == KRYL_SUCCESS) st = kryl_generator_size(&g, &nrows, &estimate);
    if (st == KRYL_SUCCESS) st = kryl_matrix_generate(&job->A, job->ctx, &g, 0, nrows);
    return st;
}

/* Read A, b and x0 (timed as *read_s), set up and solve. */
static kryl_status run(solve_job *job, const solve_args *a, const kryl_solver_options *opt,
                       double *read_s)
{
    double *b = NULL, *x0 = NULL;
    double t0 = cli_wtime();
    kryl_status st =
        a->gen != NULL ? generate(job, a) : kryl_matrix_read_mtx(&job->A, job->ctx, a->matrix);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    int64_t nrows = 0, ncols, nnz;
    st = kryl_matrix_size(job->A, &nrows, &ncols, &nnz);
    kryl_solver_options o = *opt;
    double *nullspace = NULL;
    if (st == KRYL_SUCCESS)
        st = cli_amg_nullspace(a->nullspace, a->coordinates, nrows, &nullspace,
                               &o.amg.nullspace_vectors);
    o.amg.nullspace = nullspace;
    *read_s = cli_wtime() - t0;
    if (st == KRYL_SUCCESS) st = solve_job_setup(job, &o, !a->quiet);
    job->options.amg.nullspace = NULL; /* read by the setup only */
    free(nullspace);
    int rank = 0;
    kryl_context_rank(job->ctx, &rank, NULL);
    /* the stack before the solve, so it shows however long that takes */
    if (st == KRYL_SUCCESS && a->view && !a->json && rank == 0) {
        view_print(job, stdout);
        fflush(stdout);
    }
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
    if (a.monitor > 0) monitor_init(&job.monitor, a.monitor);
    kryl_overlap overlap = KRYL_OVERLAP_NAIVE;
    kryl_overlap_from_name(a.overlap, &overlap);
    if (st == KRYL_SUCCESS) st = kryl_context_set_overlap(job.ctx, overlap);
    /* --partition also splits the rows a distributed run reads */
    if (st == KRYL_SUCCESS && a.partition_given)
        st = kryl_context_set_partition(job.ctx, opt.partition);
    char generated[96];
    const char *name = a.matrix;
    if (a.gen != NULL) {
        snprintf(generated, sizeof generated, "%s (--n %" PRId64 ")", a.gen, a.gen_n);
        name = generated;
    }
    if (st == KRYL_SUCCESS) st = run(&job, &a, &opt, &read_s);
    if (st == KRYL_SUCCESS && a.out != NULL) st = write_solution(&job, a.out);
    if (st == KRYL_SUCCESS && a.history != NULL) st = write_history(&job, a.history);
    if (st == KRYL_SUCCESS) {
        if (a.json)
            solve_report_json(&job, name, read_s);
        else if (!a.quiet)
            solve_report_summary(&job, name, read_s);
    }
    return solve_job_finish(&job, st);
}
