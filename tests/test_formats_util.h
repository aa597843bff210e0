/* Shared pieces of the format tests: the matrices they run on (random
 * shapes, generated stencils, dense blocks, real files), a plain CSR
 * multiply to compare with, and random orderings. */
#ifndef KRYL_TEST_FORMATS_UTIL_H
#define KRYL_TEST_FORMATS_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fmt_internal.h"
#include "formats/format.h"
#include "io/mtx.h"
#include "test_gen_support.h"

/* Every format kryl_fmt_build stores. */
static const kryl_format tf_formats[] = {KRYL_FORMAT_CSR,   KRYL_FORMAT_ELL,   KRYL_FORMAT_ELLR,
                                         KRYL_FORMAT_JDS,   KRYL_FORMAT_PJDS,  KRYL_FORMAT_SELL,
                                         KRYL_FORMAT_BCSR2, KRYL_FORMAT_BCSR4, KRYL_FORMAT_DIA};
#define TF_NFORMATS ((int)(sizeof tf_formats / sizeof tf_formats[0]))

/* Formats that sort rows by length (and so permute). */
static inline bool tf_sorts(kryl_format k)
{
    return k == KRYL_FORMAT_JDS || k == KRYL_FORMAT_PJDS || k == KRYL_FORMAT_SELL;
}

/* The generated matrix of `kind` on an n^dims grid (or n rows), as CSR. */
static inline bool tf_generate(kryl_csr *A, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options o;
    kryl_generator g;
    kryl_generator_options_init(&o, kind, n);
    return gen_whole(A, &g, &o);
}

/* Block tridiagonal matrix of nblocks x nblocks dense bs x bs blocks, random values. */
static inline void tf_dense_blocks(kryl_csr *A, int64_t nblocks, int64_t bs, uint64_t seed)
{
    const int64_t n = nblocks * bs;
    if (kryl_csr_alloc(A, n, n, n * 3 * bs) != KRYL_SUCCESS) abort();
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t I = i / bs;
        const int64_t lo = (I > 0 ? I - 1 : 0) * bs, hi = (I + 2 < nblocks ? I + 2 : nblocks) * bs;
        for (int64_t j = lo; j < hi; j++) A->col_idx[k++] = (int32_t)j;
        A->row_ptr[i + 1] = k;
    }
    test_random_values(A->values, k, seed);
}

/* Square CSR of a real matrix file, or false if absent or not square. */
static inline bool tf_read(kryl_csr *A, const char *file)
{
    const char *path = test_matrix_path(file);
    if (path == NULL) return false;
    kryl_coo coo;
    memset(&coo, 0, sizeof coo);
    kryl_mtx_header h;
    kryl_status st = kryl_mtx_read(path, &h, &coo);
    CHECK(st == KRYL_SUCCESS, "read %s: %s", file, kryl_last_error());
    bool ok = st == KRYL_SUCCESS && h.nrows == h.ncols;
    if (ok) {
        st = kryl_csr_from_coo(A, &coo, h.nrows, 0, h.nrows);
        CHECK(st == KRYL_SUCCESS, "csr of %s: %s", file, kryl_last_error());
        ok = st == KRYL_SUCCESS;
    }
    kryl_coo_free(&coo);
    return ok;
}

/* y = alpha*A*x + beta*z (z may be NULL), summed in double. */
static inline void tf_csr_spmv(const kryl_csr *A, double alpha, const double *x, double beta,
                               const double *z, double *y)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        double sum = 0.0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            sum += A->values[k] * x[A->col_idx[k]];
        y[i] = z ? alpha * sum + beta * z[i] : alpha * sum;
    }
}

/* A random permutation of 0..n-1 (Fisher-Yates on uniform draws). */
static inline int32_t *tf_random_order(int64_t n, uint64_t seed)
{
    int32_t *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    double *u = malloc((size_t)(n > 0 ? n : 1) * sizeof *u);
    test_random_values(u, n, seed);
    for (int64_t i = 0; i < n; i++) p[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        const int64_t j = (int64_t)((u[i] + 1.0) * 0.5 * (double)(i + 1)) % (i + 1);
        const int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    free(u);
    return p;
}

/* A device like one H100 SXM: ~3 TB/s copy bandwidth, 50 MB L2, 32-byte sectors. */
static inline kryl_device_model tf_device(int64_t cache_bytes)
{
    kryl_device_model d = {3.0e12, cache_bytes, 32};
    return d;
}

/* The format model's counts (kryl_fmt_counter's contract), plainly: the
 * entries with |inv_j - inv_i| > near for the order of sort window
 * `window` (fmt_sorted_order, inv its inverse), and the distinct j - i. */
static inline int64_t tf_far_entries(const kryl_csr *A, int64_t window, int64_t near)
{
    const int64_t n = A->nrows;
    int32_t *perm = calloc((size_t)n + 1, sizeof *perm), *inv = calloc((size_t)n + 1, sizeof *inv);
    if (!perm || !inv) abort();
    if (fmt_sorted_order(A, NULL, window, 1, perm) != KRYL_SUCCESS) abort();
    for (int64_t k = 0; k < n; k++) inv[perm[k]] = (int32_t)k;
    int64_t far = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; q++) {
            const int64_t d = (int64_t)inv[A->col_idx[q]] - inv[i];
            far += d > near || -d > near;
        }
    free(perm);
    free(inv);
    return far;
}

static inline int64_t tf_diagonals(const kryl_csr *A)
{
    const int64_t n = A->nrows;
    unsigned char *mark = calloc((size_t)(2 * n + 1), 1);
    if (!mark) abort();
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; q++) {
            unsigned char *m = &mark[A->col_idx[q] - i + n - 1];
            count += !*m;
            *m = 1;
        }
    free(mark);
    return count;
}

/* The distinct (i / b, j / b) of A's entries: a marker per block column,
 * reset for each block row. */
static inline int64_t tf_blocks(const kryl_csr *A, int64_t b)
{
    int64_t *seen = malloc((size_t)(A->ncols / b + 1) * sizeof *seen), count = 0;
    if (!seen) abort();
    for (int64_t J = 0; J <= A->ncols / b; J++) seen[J] = -1;
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t q = A->row_ptr[i]; q < A->row_ptr[i + 1]; q++) {
            const int64_t J = A->col_idx[q] / b;
            count += seen[J] != i / b;
            seen[J] = i / b;
        }
    free(seen);
    return count;
}

#endif
