/* Public reading and writing of matrices as Matrix Market files. */
#include <stdlib.h>
#include <string.h>

#include "core/host_threads.h"
#include "core/memory.h"
#include "core/objects.h"
#include "io/mtx.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

struct kryl_mtx_data_s {
    kryl_csr csr;
    bool pattern;
    char *path;
    double seconds[KRYL_READ_PHASES];
};

kryl_status kryl_mtx_data_read(kryl_mtx_data *data, const char *path)
{
    KRYL_REQUIRE_ARG(data);
    *data = NULL;
    KRYL_REQUIRE_ARG(path);
    struct kryl_mtx_data_s *d = calloc(1, sizeof *d);
    char *copy = malloc(strlen(path) + 1);
    if (d == NULL || copy == NULL) {
        free(d);
        free(copy);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate its reading", path);
    }
    d->path = strcpy(copy, path);
    kryl_status st = kryl_mtx_read_csr(path, &d->csr, &d->pattern, d->seconds);
    if (st != KRYL_SUCCESS) {
        kryl_mtx_data_destroy(&d);
        return st;
    }
    *data = d;
    return KRYL_SUCCESS;
}

void kryl_mtx_data_destroy(kryl_mtx_data *data)
{
    if (data == NULL || *data == NULL) return;
    kryl_csr_free(&(*data)->csr);
    free((*data)->path);
    free(*data);
    *data = NULL;
}

/* The matrix of d on ctx: with `solve` (not NULL), the solve's memory is
 * checked before the matrix goes to the context's backend. */
static kryl_status matrix_from_data(kryl_matrix *A, kryl_context ctx, struct kryl_mtx_data_s *d,
                                    const kryl_solver_options *solve)
{
    double t0 = kryl_wtime();
    if (solve != NULL)
        KRYL_TRY(kryl_solver_check_memory_read(ctx, d->csr.nrows, d->csr.row_ptr[d->csr.nrows],
                                               solve, d->path, true, NULL));
    double t1 = kryl_wtime();
    kryl_status st = kryl_matrix_from_caller_csr(A, ctx, &d->csr);
    if (st != KRYL_SUCCESS) return kryl_error_prefix(st, d->path);
    d->seconds[KRYL_READ_CHECKS] += t1 - t0;
    d->seconds[KRYL_READ_STORAGE] += kryl_wtime() - t1;
    memcpy((*A)->read_phases, d->seconds, sizeof d->seconds);
    (*A)->pattern = d->pattern;
    if (d->pattern)
        kryl_log(ctx, KRYL_LOG_WARNING,
                 "%s is a Matrix Market pattern file (no values): every stored entry is read "
                 "as 1",
                 d->path);
    return KRYL_SUCCESS;
}

kryl_status kryl_matrix_from_mtx_data(kryl_matrix *A, kryl_context ctx, kryl_mtx_data *data,
                                      const kryl_solver_options *solve)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(data);
    kryl_status st = KRYL_SUCCESS;
    if (ctx == NULL || *data == NULL)
        st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_matrix_from_mtx_data: %s is NULL",
                        ctx == NULL ? "the context" : "the file's data");
#ifdef KRYL_HAVE_MPI
    else if (kryl_dist_active(ctx))
        st = KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                        "%s: a file read without a context cannot be distributed over ranks; "
                        "read it with kryl_matrix_read_mtx",
                        (*data)->path);
#endif
    else
        st = matrix_from_data(A, ctx, *data, solve);
    kryl_mtx_data_destroy(data);
    return st;
}

/* Read path into *A on ctx; with `solve` (not NULL), the solve's memory is
 * checked once the file is in host memory, before the matrix goes to the
 * context's backend. */
static kryl_status read_mtx(kryl_matrix *A, kryl_context ctx, const char *path,
                            const kryl_solver_options *solve)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(path);
#ifdef KRYL_HAVE_MPI
    /* over several ranks: rank 0 reads and distributes the rows (collective) */
    if (kryl_dist_active(ctx)) return kryl_dist_read_mtx(A, ctx, path);
#endif
    kryl_mtx_data data = NULL;
    KRYL_TRY(kryl_mtx_data_read(&data, path));
    return kryl_matrix_from_mtx_data(A, ctx, &data, solve);
}

kryl_status kryl_matrix_read_mtx(kryl_matrix *A, kryl_context ctx, const char *path)
{
    return read_mtx(A, ctx, path, NULL);
}

kryl_status kryl_matrix_read_mtx_for_solve(kryl_matrix *A, kryl_context ctx, const char *path,
                                           const kryl_solver_options *options)
{
    kryl_solver_options defaults;
    kryl_solver_options_init(&defaults);
    return read_mtx(A, ctx, path, options != NULL ? options : &defaults);
}

bool kryl_matrix_is_pattern(kryl_matrix A) { return A != NULL && A->pattern; }

kryl_status kryl_matrix_read_phases(kryl_matrix A, double *seconds)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(seconds);
    memcpy(seconds, A->read_phases, sizeof A->read_phases);
    return KRYL_SUCCESS;
}

kryl_status kryl_mtx_read_csr(const char *path, kryl_csr *A, bool *pattern, double *seconds)
{
    double t0 = kryl_wtime();
    kryl_coo coo;
    kryl_mtx_header header;
    KRYL_TRY(kryl_mtx_read(path, &header, &coo));
    if (pattern != NULL) *pattern = header.field == KRYL_MTX_PATTERN;
    const int threads = kryl_host_max_threads();
    double t1 = kryl_wtime();
    kryl_status st = kryl_csr_rows_from_coo(A, &coo, coo.nrows, 0, coo.nrows, threads);
    kryl_coo_free(&coo);
    double t2 = kryl_wtime();
    if (st == KRYL_SUCCESS) {
        st = kryl_csr_sort_and_sum_on(A, threads);
        if (st != KRYL_SUCCESS) kryl_csr_free(A);
    }
    if (seconds != NULL) {
        seconds[KRYL_READ_PARSE] += t1 - t0;
        seconds[KRYL_READ_ROWS] += t2 - t1;
        seconds[KRYL_READ_SORT] += kryl_wtime() - t2;
    }
    int64_t row, col;
    if (st == KRYL_ERR_INVALID_VALUE && kryl_csr_overflow(&row, &col))
        return kryl_mtx_name_line_of(path, row, col, st);
    return st == KRYL_SUCCESS ? st : kryl_error_prefix(st, path);
}

kryl_status kryl_matrix_write_mtx(kryl_matrix A, const char *path)
{
    KRYL_REQUIRE_ARG(A);
    KRYL_REQUIRE_ARG(path);
    if (A->dist != NULL)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "kryl_matrix_write_mtx: each rank holds only its own rows of a "
                          "distributed matrix; write it from a single-process context");
    KRYL_TRY(kryl_matrix_need_host(A, "kryl_matrix_write_mtx"));
    return kryl_mtx_write_csr(path, &A->host->csr);
}
