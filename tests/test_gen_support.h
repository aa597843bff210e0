/* Shared checks of the generator tests: build rows of a generated matrix
 * with kryl_generator_row alone (no matrix object), and look at them. */
#ifndef KRYL_TEST_GEN_SUPPORT_H
#define KRYL_TEST_GEN_SUPPORT_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/generator.h"
#include "test_support.h"

/* Rows [begin, end) of g as a kryl_csr (malloc'ed; free with gen_csr_free). */
static inline void gen_build(kryl_csr *A, const kryl_generator *g, int64_t begin, int64_t end)
{
    int64_t *cols = malloc((size_t)g->max_row_length * sizeof *cols);
    double *vals = malloc((size_t)g->max_row_length * sizeof *vals);
    memset(A, 0, sizeof *A);
    A->nrows = end - begin;
    A->ncols = g->nrows;
    A->nrows_global = g->nrows;
    A->row_begin = begin;
    A->row_ptr = calloc((size_t)A->nrows + 1, sizeof *A->row_ptr);
    /* row_ptr = prefix sums of the counts */
    for (int64_t k = 0; k < A->nrows; k++)
        A->row_ptr[k + 1] = A->row_ptr[k] + kryl_generator_row(g, begin + k, NULL, NULL);
    const int64_t nnz = A->row_ptr[A->nrows];
    A->col_idx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *A->col_idx);
    A->values = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *A->values);
    for (int64_t k = 0; k < A->nrows; k++) {
        const int64_t len = kryl_generator_row(g, begin + k, cols, vals), at = A->row_ptr[k];
        CHECK(len == A->row_ptr[k + 1] - at, "%s row %lld: %lld entries, counted %lld",
              kryl_generator_name(g->options.kind), (long long)(begin + k), (long long)len,
              (long long)(A->row_ptr[k + 1] - at));
        if (len != A->row_ptr[k + 1] - at) continue;
        for (int64_t e = 0; e < len; e++) {
            A->col_idx[at + e] = (int32_t)cols[e];
            A->values[at + e] = vals[e];
        }
    }
    free(cols);
    free(vals);
}

static inline void gen_csr_free(kryl_csr *A)
{
    free(A->row_ptr);
    free(A->col_idx);
    free(A->values);
    memset(A, 0, sizeof *A);
}

/* Whole matrix of the given options (CHECKs the init). */
static inline bool gen_whole(kryl_csr *A, kryl_generator *g, const kryl_generator_options *o)
{
    kryl_status st = kryl_generator_init(g, o);
    CHECK(st == KRYL_SUCCESS, "init %s: %s", kryl_generator_name(o->kind), kryl_last_error());
    if (st != KRYL_SUCCESS) return false;
    gen_build(A, g, 0, g->nrows);
    return true;
}

/* a_ij of the owned row i (global numbering), 0 when absent. */
static inline double gen_entry(const kryl_csr *A, int64_t i, int64_t j)
{
    int64_t lo = A->row_ptr[i - A->row_begin], hi = A->row_ptr[i - A->row_begin + 1] - 1;
    while (lo <= hi) { /* binary search of the sorted row */
        const int64_t mid = lo + (hi - lo) / 2;
        if (A->col_idx[mid] == j) return A->values[mid];
        if (A->col_idx[mid] < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0.0;
}

/* Every row's columns lie in [0, ncols) and strictly increase; values finite. */
static inline void gen_check_rows(const kryl_csr *A, const char *what)
{
    int bad = 0;
    for (int64_t k = 0; k < A->nrows && bad < 5; k++)
        for (int64_t e = A->row_ptr[k]; e < A->row_ptr[k + 1]; e++) {
            const bool ok = A->col_idx[e] >= 0 && A->col_idx[e] < A->ncols &&
                            (e == A->row_ptr[k] || A->col_idx[e] > A->col_idx[e - 1]) &&
                            isfinite(A->values[e]);
            CHECK(ok, "%s: row %lld entry %lld: column %d (previous %d), value %g", what,
                  (long long)(A->row_begin + k), (long long)(e - A->row_ptr[k]), A->col_idx[e],
                  e > A->row_ptr[k] ? A->col_idx[e - 1] : -1, A->values[e]);
            if (!ok) bad++;
        }
}

/* a_ij == a_ji exactly for all stored entries (and their mirrors exist). */
static inline bool gen_is_symmetric(const kryl_csr *A)
{
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            if (gen_entry(A, A->col_idx[e], i) != A->values[e]) return false;
    return true;
}

/* min_i (a_ii - sum_{j != i} |a_ij|): >= 0 means diagonally dominant. */
static inline double gen_dominance_margin(const kryl_csr *A)
{
    double margin = INFINITY;
    for (int64_t k = 0; k < A->nrows; k++) {
        double m = 0.0; /* a_ii - sum |a_ij| */
        for (int64_t e = A->row_ptr[k]; e < A->row_ptr[k + 1]; e++)
            m += A->col_idx[e] == A->row_begin + k ? A->values[e] : -fabs(A->values[e]);
        if (m < margin) margin = m;
    }
    return margin;
}

/* Dense Cholesky A = L L^T of the whole (small) matrix; true when every
 * pivot is positive, i.e. A is positive definite. */
static inline bool gen_cholesky_ok(const kryl_csr *A)
{
    const int64_t n = A->nrows;
    double *a = calloc((size_t)(n * n), sizeof *a);
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            a[i * n + A->col_idx[e]] = A->values[e];
    bool ok = true;
    for (int64_t j = 0; j < n && ok; j++) {
        /* l_jj = sqrt(a_jj - sum_k l_jk^2), l_ij = (a_ij - sum_k l_ik l_jk) / l_jj */
        double d = a[j * n + j];
        for (int64_t k = 0; k < j; k++) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0.0)) ok = false;
        d = sqrt(d);
        for (int64_t i = j + 1; i < n && ok; i++) {
            double s = a[i * n + j];
            for (int64_t k = 0; k < j; k++) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
        a[j * n + j] = d;
    }
    free(a);
    return ok;
}

/* Rows [begin, end) built alone equal the same rows of the whole matrix. */
static inline void gen_check_range(const kryl_csr *whole, const kryl_generator *g, int64_t begin,
                                   int64_t end, const char *what)
{
    kryl_csr part;
    gen_build(&part, g, begin, end);
    bool same = true;
    for (int64_t k = 0; k < end - begin && same; k++) {
        const int64_t w = whole->row_ptr[begin + k], p = part.row_ptr[k];
        const int64_t len = part.row_ptr[k + 1] - p;
        same = whole->row_ptr[begin + k + 1] - w == len &&
               memcmp(whole->col_idx + w, part.col_idx + p, (size_t)len * sizeof(int32_t)) == 0 &&
               memcmp(whole->values + w, part.values + p, (size_t)len * sizeof(double)) == 0;
    }
    CHECK(same, "%s: rows [%lld, %lld) built alone differ from the whole matrix", what,
          (long long)begin, (long long)end);
    gen_csr_free(&part);
}

/* init and kryl_generator_size fail with `expected` and a message naming `word`. */
static inline void check_rejected(const kryl_generator_options *o, kryl_status expected,
                                  const char *word)
{
    kryl_generator g;
    int64_t nrows = 0, nnz = 0;
    CHECK_STATUS(kryl_generator_init(&g, o), expected);
    CHECK(strstr(kryl_last_error(), word) != NULL, "message '%s' does not name '%s'",
          kryl_last_error(), word);
    CHECK_STATUS(kryl_generator_size(o, &nrows, &nnz), expected);
}

#endif
