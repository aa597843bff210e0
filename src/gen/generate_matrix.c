/* kryl_matrix_generate: rows [row_begin, row_end) of a generated matrix in
 * two passes over the rows (count, then fill), both in parallel under
 * OpenMP, into a host CSR that becomes the matrix; the finite-element kinds
 * are assembled (fem_assemble.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "core/objects.h"
#include "gen/fem.h"
#include "gen/generator.h"
#ifdef KRYL_HAVE_MPI
#include "dist/dist.h"
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

/* Rows with the same cost are cheap; power-law rows vary: hand them out in chunks. */
#define ROW_CHUNK 256

/* Pass 1: row_ptr[k + 1] = entries of row row_begin + k; returns the longest row. */
static int64_t count_rows(const kryl_generator *g, int64_t row_begin, int64_t nrows,
                          int64_t *row_ptr, int threads)
{
    int64_t longest = 0;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, ROW_CHUNK) reduction(max : longest)
#endif
    for (int64_t k = 0; k < nrows; k++) {
        const int64_t len = kryl_generator_row(g, row_begin + k, NULL, NULL);
        row_ptr[k + 1] = len;
        if (len > longest) longest = len;
    }
    return longest;
}

/* Pass 2: each row into its slot of csr (int64 columns narrowed to int32, checked
 * by the caller); returns the first failure. */
static kryl_status fill_rows(const kryl_generator *g, kryl_csr *csr, int64_t longest, int threads)
{
    int out_of_memory = 0, mismatch = 0;
    (void)threads;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
    {
        int64_t *cols = malloc((size_t)(longest > 0 ? longest : 1) * sizeof *cols);
        double *values = malloc((size_t)(longest > 0 ? longest : 1) * sizeof *values);
        if (!cols || !values) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            out_of_memory = 1;
        }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, ROW_CHUNK)
#endif
        for (int64_t k = 0; k < csr->nrows; k++) {
            if (!cols || !values) continue;
            const int64_t begin = csr->row_ptr[k], len = csr->row_ptr[k + 1] - begin;
            if (kryl_generator_row(g, csr->row_begin + k, cols, values) != len) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
                mismatch = 1;
                continue;
            }
            /* (col_idx, values)[begin + e] = row entry e */
            for (int64_t e = 0; e < len; e++) {
                csr->col_idx[begin + e] = (int32_t)cols[e];
                csr->values[begin + e] = values[e];
            }
        }
        free(cols);
        free(values);
    }
    if (out_of_memory)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "kryl_matrix_generate: cannot allocate room for a row of %lld entries",
                          (long long)longest);
    if (mismatch)
        return KRYL_ERROR(KRYL_ERR_INTERNAL,
                          "kryl_matrix_generate: %s: a row's entry count changed between the "
                          "count and the fill",
                          kryl_generator_name(g->options.kind));
    return KRYL_SUCCESS;
}

/* The context's thread count, or OpenMP's default when it asks for none. */
static int thread_count(kryl_context ctx)
{
#ifdef _OPENMP
    if (ctx->host_team) return ctx->host_team(ctx);
    return ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
#else
    (void)ctx;
    return 1;
#endif
}

/* Refuse rows whose CSR would not fit in memory: two row offset arrays
 * (the count and the matrix) and 12 bytes an entry, by the generator's
 * estimate of its entries. */
static kryl_status check_memory(const kryl_generator *g, int64_t nrows)
{
    int64_t total_rows = 0, estimate = 0;
    KRYL_TRY(kryl_generator_size(&g->options, &total_rows, &estimate));
    double entries = total_rows > 0 ? (double)estimate * ((double)nrows / (double)total_rows) : 0;
    int64_t bytes = kryl_bytes_mul_add((int64_t)entries, 12, kryl_bytes_mul_add(nrows, 16, 8));
    char what[160];
    snprintf(what, sizeof what, "kryl_matrix_generate: %s with %lld rows (about %.3g entries)",
             kryl_generator_name(g->options.kind), (long long)nrows, entries);
    return kryl_memory_check(bytes, what);
}

kryl_status kryl_matrix_generate(kryl_matrix *A, kryl_context ctx,
                                 const kryl_generator_options *options, int64_t row_begin,
                                 int64_t row_end)
{
    KRYL_REQUIRE_ARG(A);
    *A = NULL;
    KRYL_REQUIRE_ARG(ctx);
    KRYL_REQUIRE_ARG(options);
    kryl_generator g;
    KRYL_TRY(kryl_generator_init(&g, options));
    if (g.nrows > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_matrix_generate: %s has %lld columns, more than the 32-bit "
                          "column indices hold (%d)",
                          kryl_generator_name(g.options.kind), (long long)g.nrows, INT32_MAX);
    if (row_begin < 0 || row_begin > row_end || row_end > g.nrows)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_matrix_generate: rows [%lld, %lld) are not a range of the %lld "
                          "rows: need 0 <= row_begin <= row_end <= %lld",
                          (long long)row_begin, (long long)row_end, (long long)g.nrows,
                          (long long)g.nrows);
#ifdef KRYL_HAVE_MPI
    /* the whole matrix over several ranks: each generates its block of rows */
    if (kryl_dist_active(ctx) && row_begin == 0 && row_end == g.nrows)
        kryl_dist_block_rows(ctx, g.nrows, &row_begin, &row_end);
#endif
    KRYL_TRY(check_memory(&g, row_end - row_begin));
    if (kryl_gen_fem_kind(g.options.kind)) {
        /* assembled whole, element by element: every rank assembles all and keeps its rows */
        kryl_csr fem;
        KRYL_TRY(kryl_gen_fem_assemble(&g, row_begin, row_end, &fem));
        return kryl_matrix_from_caller_csr(A, ctx, &fem);
    }
    const int64_t nrows = row_end - row_begin;
    const int threads = thread_count(ctx);
    int64_t *row_ptr = calloc((size_t)nrows + 1, sizeof *row_ptr);
    if (!row_ptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "kryl_matrix_generate: cannot allocate %lld row offsets (%lld bytes)",
                          (long long)nrows + 1, 8 * ((long long)nrows + 1));
    const int64_t longest = count_rows(&g, row_begin, nrows, row_ptr, threads);
    /* row_ptr = prefix sums of the row lengths */
    for (int64_t k = 0; k < nrows; k++) row_ptr[k + 1] += row_ptr[k];
    kryl_csr csr;
    kryl_status st = kryl_csr_alloc(&csr, nrows, g.nrows, row_ptr[nrows]);
    if (st == KRYL_SUCCESS) {
        memcpy(csr.row_ptr, row_ptr, ((size_t)nrows + 1) * sizeof *row_ptr);
        csr.nrows_global = g.nrows;
        csr.row_begin = row_begin;
        st = fill_rows(&g, &csr, longest, threads);
        if (st != KRYL_SUCCESS) kryl_csr_free(&csr);
    }
    free(row_ptr);
    if (st != KRYL_SUCCESS) return st;
    return kryl_matrix_from_caller_csr(A, ctx, &csr);
}
