/* Public reading and writing of matrices as Matrix Market files. */
#include "core/memory.h"
#include "core/objects.h"
#include "io/mtx.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

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
    kryl_csr csr;
    bool pattern = false;
    KRYL_TRY(kryl_mtx_read_csr(path, &csr, &pattern));
    if (solve != NULL) {
        kryl_status st = kryl_solver_check_memory_read(ctx, csr.nrows, csr.row_ptr[csr.nrows],
                                                       solve, path, true, NULL);
        if (st != KRYL_SUCCESS) {
            kryl_csr_free(&csr);
            return st;
        }
    }
    kryl_status st = kryl_matrix_from_caller_csr(A, ctx, &csr);
    if (st != KRYL_SUCCESS) return kryl_error_prefix(st, path);
    (*A)->pattern = pattern;
    if (pattern)
        kryl_log(ctx, KRYL_LOG_WARNING,
                 "%s is a Matrix Market pattern file (no values): every stored entry is read "
                 "as 1",
                 path);
    return KRYL_SUCCESS;
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

kryl_status kryl_mtx_read_csr(const char *path, kryl_csr *A, bool *pattern)
{
    kryl_coo coo;
    kryl_mtx_header header;
    KRYL_TRY(kryl_mtx_read(path, &header, &coo));
    if (pattern != NULL) *pattern = header.field == KRYL_MTX_PATTERN;
    kryl_status st = kryl_csr_from_coo(A, &coo, coo.nrows, 0, coo.nrows);
    kryl_coo_free(&coo);
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
