/* kryl info: the structure and numbers of a Matrix Market matrix. */
#include <inttypes.h>

#include "args.h"
#include "cli.h"
#include "json.h"

/* 100 * part / whole, 0 for an empty whole. */
static double percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *yes_no(bool b) { return b ? "yes" : "no"; }

static void print_json(const char *path, const kryl_matrix_stats *s, double read_s)
{
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
    json_end(&w);
}

static void print_summary(const char *path, const kryl_matrix_stats *s)
{
    double cells = (double)s->nrows * (double)s->ncols;
    printf("matrix      %s\n", cli_basename(path));
    printf("size        %" PRId64 " x %" PRId64 ", %" PRId64 " nonzeros (%.3g%% dense)\n", s->nrows,
           s->ncols, s->nnz, cells > 0.0 ? 100.0 * (double)s->nnz / cells : 0.0);
    printf("symmetry    values: %s, pattern: %s\n", s->symmetric ? "symmetric" : "nonsymmetric",
           s->symmetric_pattern ? "symmetric" : "nonsymmetric");
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

int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false;
    const arg_spec specs[] = {{"--json", NULL, ARG_FLAG, &json, NULL}};
    int npos;
    args_result r = args_parse("info", argc, argv, specs, 1, &path, 1, &npos);
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    if (npos == 0) {
        args_usage_error("info", "missing the matrix file A.mtx");
        return CLI_EXIT_ERROR;
    }

    /* the ref backend: statistics are host work, no device to start */
    kryl_context ctx = NULL;
    kryl_matrix A = NULL;
    kryl_matrix_stats stats;
    kryl_context_options copt;
    kryl_context_options_init(&copt);
    copt.backend = KRYL_BACKEND_REF;
    double t0 = cli_wtime();
    kryl_status st = kryl_context_create(&ctx, &copt);
    if (st == KRYL_SUCCESS) st = kryl_matrix_read_mtx(&A, ctx, path);
    double read_s = cli_wtime() - t0;
    if (st == KRYL_SUCCESS) st = kryl_matrix_get_stats(A, &stats);
    if (st == KRYL_SUCCESS) {
        if (json)
            print_json(path, &stats, read_s);
        else
            print_summary(path, &stats);
    } else {
        cli_error(st);
    }
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return st == KRYL_SUCCESS ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
