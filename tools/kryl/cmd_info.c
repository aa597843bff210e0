/* kryl info: the structure and numbers of a Matrix Market matrix, what
 * each storage format would cost, and (--spectrum) Lanczos estimates of
 * its extreme eigenvalues. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>

#include "args.h"
#include "cli.h"
#include "info_formats.h"
#include "json.h"
#include "report_amg.h"

typedef struct info_args {
    const char *path, *backend_name, *precond_name;
    bool json, spectrum, amg;
    int64_t steps;
    kryl_backend_kind backend;
    kryl_precond_kind precond;
} info_args;

/* Lanczos estimates of the extreme eigenvalues (kryl_matrix_spectrum). */
typedef struct info_spectrum {
    int steps; /* Lanczos steps run: --steps, at most the order of A */
    double lambda_min, lambda_max;
    double seconds;
} info_spectrum;

/* lambda_max / lambda_min, or NaN when lambda_min <= 0 (not positive definite). */
static double condition(const info_spectrum *sp)
{
    return sp->lambda_min > 0.0 ? sp->lambda_max / sp->lambda_min : NAN;
}

/* 100 * part / whole, 0 for an empty whole. */
static double percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

static void print_json(const info_args *a, const kryl_matrix_stats *s, double read_s,
                       const info_formats *f, const info_spectrum *sp, kryl_solver amg)
{
    const char *path = a->path;
    json_writer w;
    json_init(&w, stdout);
    json_begin(&w, NULL);
    json_string(&w, "matrix", path);
    json_int(&w, "n", s->nrows);
    json_int(&w, "nrows", s->nrows);
    json_int(&w, "ncols", s->ncols);
    json_int(&w, "nnz", s->nnz);
    json_bool(&w, "square", s->nrows == s->ncols);
    json_bool(&w, "symmetric", s->symmetric);
    json_bool(&w, "symmetric_pattern", s->symmetric_pattern);
    json_double(&w, "asymmetry", s->asymmetry);
    json_bool(&w, "symmetric_within_tol", s->asymmetry <= KRYL_SYMMETRY_TOL);
    json_int(&w, "row_min", s->row_min);
    json_double(&w, "row_mean", s->row_mean);
    json_int(&w, "row_max", s->row_max);
    json_double(&w, "row_stddev", s->row_stddev);
    json_int(&w, "empty_rows", s->empty_rows);
    json_int(&w, "zero_diagonals", s->zero_diagonals);
    json_bool(&w, "positive_diagonal", s->positive_diagonal);
    json_int(&w, "dominant_rows", s->dominant_rows);
    json_int(&w, "strictly_dominant_rows", s->strictly_dominant_rows);
    json_int(&w, "bandwidth", s->bandwidth);
    json_int(&w, "envelope", s->profile_sum);
    json_double(&w, "frobenius_norm", s->frobenius_norm);
    json_double(&w, "max_abs", s->max_abs);
    json_int(&w, "spmv_bytes_double", s->spmv_bytes_double);
    json_int(&w, "spmv_bytes_single", s->spmv_bytes_single);
    json_double(&w, "read_s", read_s);
    info_formats_json(&w, f, a->backend_name);
    if (a->spectrum) {
        json_begin(&w, "spectrum");
        json_int(&w, "steps", sp->steps);
        json_string(&w, "precond", a->precond_name);
        json_double(&w, "lambda_min", sp->lambda_min);
        json_double(&w, "lambda_max", sp->lambda_max);
        json_double(&w, "condition", condition(sp)); /* null when lambda_min <= 0 */
        json_double(&w, "seconds", sp->seconds);
        json_end(&w);
    }
    if (amg != NULL) report_amg_json(&w, amg);
    json_end(&w);
}

static void print_summary(const char *path, const kryl_matrix_stats *s)
{
    double cells = (double)s->nrows * (double)s->ncols;
    printf("matrix      %s\n", cli_basename(path));
    printf("size        %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros (%.3g%% dense)\n", s->nrows,
           s->ncols, s->nnz, cells > 0.0 ? 100.0 * (double)s->nnz / cells : 0.0);
    printf("symmetry    values: %s, pattern: %s; max |a_ij - a_ji| = %.3g max |a_ij|%s\n",
           s->symmetric                        ? "symmetric"
           : s->asymmetry <= KRYL_SYMMETRY_TOL ? "symmetric up to rounding"
                                               : "nonsymmetric",
           s->symmetric_pattern ? "symmetric" : "nonsymmetric", s->asymmetry,
           !s->symmetric && s->asymmetry <= KRYL_SYMMETRY_TOL
               ? " (within the default tolerance 1e-12)"
               : "");
    printf("row length  min %" PRId64 ", mean %.2f, max %" PRId64 ", stddev %.2f; %" PRId64
           " empty rows\n",
           s->row_min, s->row_mean, s->row_max, s->row_stddev, s->empty_rows);
    printf("diagonal    %" PRId64 " zero or missing, all positive: %s\n", s->zero_diagonals,
           yes_no(s->positive_diagonal));
    printf("dominance   %" PRId64 " rows diagonally dominant (%.1f%%), %" PRId64
           " strictly (%.1f%%)\n",
           s->dominant_rows, percent(s->dominant_rows, s->nrows), s->strictly_dominant_rows,
           percent(s->strictly_dominant_rows, s->nrows));
    printf("bandwidth   %" PRId64 ", envelope %" PRId64 "\n", s->bandwidth, s->profile_sum);
    printf("norms       Frobenius %.6e, max |a_ij| %.6e\n", s->frobenius_norm, s->max_abs);
    printf("spmv bytes  %" PRId64 " double (%.3g MB), %" PRId64 " single (%.3g MB)\n",
           s->spmv_bytes_double, 1e-6 * (double)s->spmv_bytes_double, s->spmv_bytes_single,
           1e-6 * (double)s->spmv_bytes_single);
}

/* "spectrum    Lanczos, 50 steps, precond none: lambda ..." */
static void print_spectrum(const info_args *a, const info_spectrum *sp)
{
    char t[32];
    printf("spectrum    %d Lanczos steps%s: lambda_min %.6e, lambda_max %.6e (%s)\n", sp->steps,
           a->precond == KRYL_PRECOND_JACOBI ? " on D^-1 A" : "", sp->lambda_min, sp->lambda_max,
           cli_format_seconds(t, sizeof t, sp->seconds));
    if (sp->lambda_min > 0.0)
        printf("            condition estimate %.4e (Ritz values lie inside the spectrum: a "
               "lower bound)\n",
               condition(sp));
    else
        printf("            lambda_min <= 0: the matrix is not positive definite\n");
}

static args_result parse(int argc, char **argv, info_args *a)
{
    static const char *cmd = "info";
    *a = (info_args){.backend_name = "auto", .precond_name = "none", .steps = 50};
    bool steps_given = false, precond_given = false;
    const arg_spec specs[] = {
        {"--json", NULL, ARG_FLAG, &a->json, NULL},
        {"--max-memory", NULL, ARG_MEMORY, NULL, NULL},
        {"--backend", NULL, ARG_STRING, &a->backend_name, NULL},
        {"--spectrum", NULL, ARG_FLAG, &a->spectrum, NULL},
        {"--amg", NULL, ARG_FLAG, &a->amg, NULL},
        {"--steps", NULL, ARG_POSITIVE, &a->steps, &steps_given},
        {"--precond", NULL, ARG_STRING, &a->precond_name, &precond_given},
    };
    int npos;
    args_result r = args_parse(cmd, argc, argv, specs, (int)(sizeof specs / sizeof specs[0]),
                               &a->path, 1, &npos);
    if (r != ARGS_OK) return r;
    if (npos == 0) return args_usage_error(cmd, "missing the matrix file A.mtx");
    if (kryl_backend_from_name(a->backend_name, &a->backend) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--backend: %s", kryl_last_error());
    if (kryl_precond_from_name(a->precond_name, &a->precond) != KRYL_SUCCESS)
        return args_usage_error(cmd, "--precond: %s", kryl_last_error());
    if ((steps_given || precond_given) && !a->spectrum)
        return args_usage_error(cmd, "--steps and --precond shape the --spectrum estimate; "
                                     "add --spectrum");
    if (a->steps > INT_MAX) return args_usage_error(cmd, "--steps is too large");
    return ARGS_OK;
}

/* Lanczos on A (symmetric only: said before the library is asked). */
static kryl_status estimate_spectrum(kryl_matrix A, const info_args *a, const kryl_matrix_stats *s,
                                     info_spectrum *sp)
{
    if (s->nrows != s->ncols || !(s->asymmetry <= KRYL_SYMMETRY_TOL)) {
        cli_error_message("--spectrum: the matrix is %s; the Lanczos estimate needs a "
                          "symmetric matrix (max |a_ij - a_ji| <= 1e-12 max |a_ij|)",
                          s->nrows != s->ncols ? "not square" : "not symmetric");
        return KRYL_ERR_NOT_SYMMETRIC;
    }
    sp->steps = (int)(a->steps < s->nrows ? a->steps : s->nrows);
    double t0 = cli_wtime();
    kryl_status st =
        kryl_matrix_spectrum(A, a->precond, (int)a->steps, &sp->lambda_min, &sp->lambda_max);
    sp->seconds = cli_wtime() - t0;
    if (st != KRYL_SUCCESS) cli_error(st);
    return st;
}

/* The default AMG hierarchy of A (under GMRES for a nonsymmetric A), as
 * kryl solve --precond amg builds it. */
static kryl_status build_amg(kryl_matrix A, const kryl_matrix_stats *s, kryl_solver *solver)
{
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = s->symmetric ? KRYL_METHOD_PCG : KRYL_METHOD_GMRES;
    o.precond = KRYL_PRECOND_AMG;
    kryl_status st = kryl_solver_create(solver, A, &o);
    if (st != KRYL_SUCCESS) cli_error(st);
    return st;
}

int cmd_info(int argc, char **argv)
{
    info_args a;
    args_result r = parse(argc, argv, &a);
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;

    kryl_context ctx = NULL;
    kryl_matrix A = NULL;
    kryl_matrix_stats stats;
    info_formats formats;
    info_spectrum spectrum = {0};
    kryl_status st = cli_context_create(&ctx, a.backend, 0, 0, false);
    if (st != KRYL_SUCCESS) return CLI_EXIT_ERROR;
    a.backend_name = kryl_backend_name(kryl_context_backend(ctx));
    double t0 = cli_wtime();
    st = kryl_matrix_read_mtx(&A, ctx, a.path);
    double read_s = cli_wtime() - t0;
    if (st == KRYL_SUCCESS) st = kryl_matrix_get_stats(A, &stats);
    if (st == KRYL_SUCCESS) st = info_formats_gather(A, &stats, &formats);
    if (st != KRYL_SUCCESS) cli_error(st);
    if (st == KRYL_SUCCESS && a.spectrum) st = estimate_spectrum(A, &a, &stats, &spectrum);
    kryl_solver amg = NULL;
    if (st == KRYL_SUCCESS && a.amg) st = build_amg(A, &stats, &amg);
    if (st == KRYL_SUCCESS && a.json) {
        print_json(&a, &stats, read_s, &formats, &spectrum, amg);
    } else if (st == KRYL_SUCCESS) {
        print_summary(a.path, &stats);
        if (a.spectrum) print_spectrum(&a, &spectrum);
        info_formats_print(&formats, a.backend_name);
        if (amg != NULL) report_amg_summary(amg);
    }
    kryl_solver_destroy(&amg);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return st == KRYL_SUCCESS ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
