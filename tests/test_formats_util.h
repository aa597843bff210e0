/* Shared pieces of the format tests: the matrices they run on (random
 * shapes, generated stencils, dense blocks, real files), a plain CSR
 * multiply to compare with, and random orderings. */
#ifndef KRYL_TEST_FORMATS_UTIL_H
#define KRYL_TEST_FORMATS_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

#endif
