/* kryl solve: read A (and b, x0), solve A x = b, report and write results. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "amg_nullspace.h"
#include "args.h"
#include "cli.h"
#include "cli_mpi.h"
#include "solve_job.h"
#include "solve_report.h"
#include "view.h"

typedef struct solve_args {
    const char *matrix, *rhs, *x0, *out, *history;
    const char *backend;
    const char *nullspace, *coordinates; /* AMG's near-nullspace */
    const char *gen, *overlap; /* a generated matrix (--gen KIND --n N); SpMV overlap over ranks */
    int64_t gen_n;
    int64_t threads, device;
    int64_t monitor;    /* --monitor k: a residual line every k iterations; 0 = none */
    int64_t gpu_memory; /* --gpu-memory: the context's device memory cap; 0 = none */
    bool gpu_memory_given;
    bool view, json, quiet, deterministic;
    args_solver solver; /* the solver's options, by the library's table */
} solve_args;

/* Resolve --precision and --mixed: a scheme implies --precision mixed, and
 * --precision mixed alone runs inner-outer. */
static args_result resolve_mixed(const args_solver *s, kryl_solver_options *opt)
{
    static const char *cmd = "solve";
    if (opt->precision == KRYL_MIXED && opt->mixed == KRYL_MIXED_NONE) {
        if (args_solver_given(s, "mixed"))
            return args_usage_error(cmd, "--precision mixed needs a scheme: --mixed ir, "
                                         "--mixed reliable or --mixed inner-outer (the default)");
        opt->mixed = KRYL_MIXED_INNER_OUTER;
    }
    if (opt->precision != KRYL_MIXED && opt->mixed != KRYL_MIXED_NONE) {
        if (args_solver_given(s, "precision"))
            return args_usage_error(cmd,
                                    "--mixed %s runs single-precision inner solves inside a "
                                    "double-precision iteration: use --precision mixed, not %s",
                                    kryl_mixed_scheme_name(opt->mixed),
                                    kryl_precision_name(opt->precision));
        opt->precision = KRYL_MIXED;
    }
    return ARGS_OK;
}

/* The solve's defaults where they differ from kryl_solver_options_init:
 * auto's choice of method, and the library's "0 = default" values made
 * explicit so the report shows the values used. */
static void solve_defaults(kryl_solver_options *opt)
{
    kryl_solver_options_init(opt);
    opt->method = KRYL_METHOD_AUTO;
    opt->restart = 40;
    opt->degree = 8;
    opt->gmres_orthog = KRYL_ORTHOG_DCGS2;
}

/* Check the solver options given, and fill in those that depend on others. */
static args_result resolve_solver(solve_args *a, kryl_solver_options *opt)
{
    static const char *cmd = "solve";
    const args_solver *s = &a->solver;
    if (args_solver_given(s, "inner-rtol") && !(opt->inner_rtol > 0.0 && opt->inner_rtol < 1.0))
        return args_usage_error(cmd, "--inner-rtol %g: expected a reduction factor in (0, 1)",
                                opt->inner_rtol);
    if (!(opt->symmetry_tol < 1.0))
        return args_usage_error(cmd, "--symmetry-tol %g: expected a relative tolerance in [0, 1)",
                                opt->symmetry_tol);
    /* the preconditioned CG methods, pcg and pipecg, precondition with Jacobi
     * unless told otherwise; cg, gmres and bicgstab run unpreconditioned */
    if (!args_solver_given(s, "precond") &&
        (opt->method == KRYL_METHOD_PCG || opt->method == KRYL_METHOD_PIPECG))
        opt->precond = KRYL_PRECOND_JACOBI;
    if (opt->method == KRYL_METHOD_PCG && opt->precond == KRYL_PRECOND_NONE) {
        if (!a->quiet)
            fprintf(stderr, "kryl solve: note: --method pcg with --precond none is CG: running "
                            "--method cg\n");
        opt->method = KRYL_METHOD_CG;
    }
    /* --tune alone: auto's candidates */
    if (opt->tune && !args_solver_given(s, "format")) opt->format = KRYL_FORMAT_AUTO;
    if (opt->tune && opt->format != KRYL_FORMAT_AUTO)
        return args_usage_error(cmd,
                                "--tune times the candidates of --format auto; "
                                "--format %s names one",
                                kryl_format_name(opt->format));
    if ((a->nullspace != NULL || a->coordinates != NULL) && opt->precond != KRYL_PRECOND_AMG)
        return args_usage_error(cmd, "--nullspace and --coordinates are for --precond amg");
    args_result r = resolve_mixed(s, opt);
    if (r != ARGS_OK) return r;
    /* the scheme's own default: how far an inner solve goes, or (reliable)
     * the drop between refreshes of the one inner CG */
    if (!args_solver_given(s, "inner-rtol"))
        opt->inner_rtol = kryl_mixed_default_inner_rtol(opt->mixed);
    /* the monitor's lines fall every k iterations when the checks do */
    if (a->monitor > 0 && !args_solver_given(s, "check-interval"))
        opt->check_interval = (int)a->monitor;
    opt->record_history = a->history != NULL;
    return ARGS_OK;
}

/* Parse the command line into a and the solver options; ARGS_OK or the
 * parse result to exit with.  The solver's options are the library's
 * (kryl_solver_options_set, src/solvers/options_set.c); those below choose
 * the run: files, the generated matrix, the backend, the report. */
static args_result parse(int argc, char **argv, solve_args *a, kryl_solver_options *opt,
                         kryl_backend_kind *backend)
{
    static const char *cmd = "solve";
    solve_defaults(opt);
    *a = (solve_args){.backend = "auto", .overlap = "naive", .solver = {.options = opt}};
    const arg_spec specs[] = {
        {"--rhs", NULL, ARG_STRING, &a->rhs, NULL},
        {"--x0", NULL, ARG_STRING, &a->x0, NULL},
        {"--gen", NULL, ARG_STRING, &a->gen, NULL},
        {"--n", NULL, ARG_POSITIVE, &a->gen_n, NULL},
        {"--overlap", NULL, ARG_STRING, &a->overlap, NULL},
        {"--nullspace", NULL, ARG_STRING, &a->nullspace, NULL},
        {"--coordinates", NULL, ARG_STRING, &a->coordinates, NULL},
        {"--backend", NULL, ARG_STRING, &a->backend, NULL},
        {"--threads", NULL, ARG_COUNT, &a->threads, NULL},
        {"--device", NULL, ARG_COUNT, &a->device, NULL},
        {"--deterministic", NULL, ARG_FLAG, &a->deterministic, NULL},
        {"--monitor", NULL, ARG_EVERY, &a->monitor, NULL},
        {"--view", NULL, ARG_FLAG, &a->view, NULL},
        {"--out", "-o", ARG_STRING, &a->out, NULL},
        {"--history", NULL, ARG_STRING, &a->history, NULL},
        {"--json", NULL, ARG_FLAG, &a->json, NULL},
        {"--max-memory", NULL, ARG_MEMORY, NULL, NULL},
        {"--gpu-memory", NULL, ARG_BYTES, &a->gpu_memory, &a->gpu_memory_given},
        {"--quiet", "-q", ARG_FLAG, &a->quiet, NULL},
        {NULL, NULL, ARG_SOLVER, &a->solver, NULL},
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
    if (a->threads > INT_MAX || a->device > INT_MAX || a->monitor > INT_MAX)
        return args_usage_error(cmd, "--threads, --device or --monitor is too large");
    const cli_path inputs[] = {{"the matrix", a->matrix}, {"--rhs", a->rhs}, {"--x0", a->x0}};
    const cli_path outputs[] = {{"--out", a->out}, {"--history", a->history}};
    if (!cli_outputs_distinct(inputs, 3, outputs, 2)) return ARGS_ERROR;
    if (a->nullspace != NULL && a->coordinates != NULL)
        return args_usage_error(cmd, "give --nullspace FILE or --coordinates FILE, not both");
    if (kryl_backend_from_name(a->backend, backend) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--backend: %s", kryl_last_error());
    return resolve_solver(a, opt);
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

/* The matrix of --gen KIND --n N (over all ranks in a distributed run),
 * once the whole solve's estimate is seen to fit the host and the device. */
static kryl_status generate(solve_job *job, const solve_args *a, const kryl_solver_options *opt)
{
    kryl_generator_kind kind = KRYL_GEN_POISSON2D5;
    kryl_generator_options g;
    int64_t nrows = 0, estimate;
    kryl_status st = kryl_generator_from_name(a->gen, &kind);
    if (st == KRYL_SUCCESS) kryl_generator_options_init(&g, kind, a->gen_n);
    if (st == KRYL_SUCCESS) st = kryl_generator_size(&g, &nrows, &estimate);
    char what[96];
    snprintf(what, sizeof what, "--gen %s --n %" PRId64, a->gen, a->gen_n);
    if (st == KRYL_SUCCESS)
        st = kryl_solver_check_memory(job->ctx, nrows, estimate, opt, what, NULL);
    /* --hybrid auto on a matrix whose whole solve the device holds: stored
     * there as it is built, as on one backend, not uploaded during the setup
     * (which cost 0.5 s of a 0.4 s solve on poisson3d125 100^3) */
    kryl_solver_options whole = *opt;
    whole.hybrid = KRYL_HYBRID_NONE;
    if (st == KRYL_SUCCESS && opt->hybrid == KRYL_HYBRID_AUTO && !cli_mpi_active() &&
        kryl_solver_check_memory(job->ctx, nrows, estimate, &whole, what, NULL) == KRYL_SUCCESS)
        st = kryl_context_defer_matrix_storage(job->ctx, false);
    if (st == KRYL_SUCCESS) st = kryl_matrix_generate(&job->A, job->ctx, &g, 0, nrows);
    return st;
}

/* Read A (from *data where the file was read already), b and x0 (timed,
 * added to *read_s), set up and solve. */
static kryl_status run(solve_job *job, const solve_args *a, const kryl_solver_options *opt,
                       kryl_mtx_data *data, double *read_s)
{
    double *b = NULL, *x0 = NULL;
    double t0 = cli_wtime();
    kryl_status st = a->gen != NULL ? generate(job, a, opt)
                     : *data != NULL
                         ? kryl_matrix_from_mtx_data(&job->A, job->ctx, data, opt)
                         : kryl_matrix_read_mtx_for_solve(&job->A, job->ctx, a->matrix, opt);
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
    *read_s += cli_wtime() - t0;
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

/* The command's settings of the job's new context (the host's fallback
 * after the GPU could not hold the problem: no device cap, so --hybrid
 * auto runs there on one backend). */
static kryl_status configure_context(solve_job *job, const solve_args *a,
                                     const kryl_solver_options *opt, bool fallback)
{
    kryl_status st = KRYL_SUCCESS;
    if (a->monitor > 0) monitor_init(&job->monitor, a->monitor);
    kryl_overlap overlap = KRYL_OVERLAP_NAIVE;
    kryl_overlap_from_name(a->overlap, &overlap);
    if (st == KRYL_SUCCESS) st = kryl_context_set_overlap(job->ctx, overlap);
    if (st == KRYL_SUCCESS && a->gpu_memory_given && !fallback)
        st = kryl_context_set_gpu_memory(job->ctx, a->gpu_memory);
    /* the hybrid split needs only the device's rows there: A's whole storage
     * waits until a step needs it (or never comes, where it does not fit) */
    if (st == KRYL_SUCCESS && !cli_mpi_active() &&
        (opt->hybrid == KRYL_HYBRID_SPLIT || opt->hybrid == KRYL_HYBRID_AUTO))
        st = kryl_context_defer_matrix_storage(job->ctx, true);
    /* --partition also splits the rows a distributed run reads */
    if (st == KRYL_SUCCESS && args_solver_given(&a->solver, "partition"))
        st = kryl_context_set_partition(job->ctx, opt->partition);
    return st;
}

/* The job's context on `backend`, with the command's settings of it. */
static kryl_status start_context(solve_job *job, const solve_args *a,
                                 const kryl_solver_options *opt, kryl_backend_kind backend,
                                 bool fallback)
{
    kryl_status st =
        solve_job_context(job, backend, (int)a->device, (int)a->threads, a->deterministic);
    return st == KRYL_SUCCESS ? configure_context(job, a, opt, fallback) : st;
}

/* start_context while the matrix file is read into *data (timed as
 * *read_s): a GPU's start-up, the driver and the device's context, runs
 * during the parse instead of before it.  A context that fails is
 * reported before a file that does, as when the context comes first. */
static kryl_status start_context_reading(solve_job *job, const solve_args *a,
                                         const kryl_solver_options *opt, kryl_backend_kind backend,
                                         kryl_mtx_data *data, double *read_s)
{
    solve_job_start start;
    solve_job_context_start(job, &start, backend, (int)a->device, (int)a->threads,
                            a->deterministic);
    double t0 = cli_wtime();
    kryl_status read = kryl_mtx_data_read(data, a->matrix);
    *read_s = cli_wtime() - t0;
    char message[1024] = "";
    if (read != KRYL_SUCCESS) snprintf(message, sizeof message, "%s", kryl_last_error());
    kryl_status st = solve_job_context_wait(&start);
    if (st == KRYL_SUCCESS) st = configure_context(job, a, opt, false);
    if (st == KRYL_SUCCESS && read != KRYL_SUCCESS) {
        cli_report(read, message[0] != '\0' ? message : NULL);
        st = read;
    }
    if (st != KRYL_SUCCESS) kryl_mtx_data_destroy(data);
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
    kryl_mtx_data data = NULL;
    /* a GPU starts while the file is read */
    const bool overlap = a.gen == NULL && !cli_mpi_active() &&
                         (backend == KRYL_BACKEND_CUDA || backend == KRYL_BACKEND_AUTO);
    kryl_status st = overlap ? start_context_reading(&job, &a, &opt, backend, &data, &read_s)
                             : start_context(&job, &a, &opt, backend, false);
    char generated[96];
    const char *name = a.matrix;
    if (a.gen != NULL) {
        snprintf(generated, sizeof generated, "%s (--n %" PRId64 ")", a.gen, a.gen_n);
        name = generated;
    }
    /* --backend auto: a problem the GPU cannot hold is solved on the host's cores */
    const bool may_fall_back = st == KRYL_SUCCESS && backend == KRYL_BACKEND_AUTO &&
                               kryl_context_backend(job.ctx) == KRYL_BACKEND_CUDA &&
                               !cli_mpi_active();
    cli_hold_device_errors(may_fall_back);
    if (st == KRYL_SUCCESS) st = run(&job, &a, &opt, &data, &read_s);
    cli_hold_device_errors(false);
    if (may_fall_back && st == KRYL_ERR_DEVICE_OUT_OF_MEMORY) {
        fprintf(stderr,
                "kryl: warning: the GPU cannot hold this problem (%s); solving on the "
                "host's cores (omp) instead\n",
                cli_held_error());
        solve_job_finish(&job, st);
        read_s = 0.0;
        st = start_context(&job, &a, &opt, KRYL_BACKEND_OMP, true);
        if (st == KRYL_SUCCESS) st = run(&job, &a, &opt, &data, &read_s);
    }
    if (st == KRYL_SUCCESS && a.out != NULL) st = write_solution(&job, a.out);
    if (st == KRYL_SUCCESS && a.history != NULL) st = write_history(&job, a.history);
    if (st == KRYL_SUCCESS) {
        if (a.json)
            solve_report_json(&job, name, read_s);
        else if (!a.quiet)
            solve_report_summary(&job, name, read_s);
    }
    kryl_mtx_data_destroy(&data);
    return solve_job_finish(&job, st);
}
