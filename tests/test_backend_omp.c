/* What is particular to the omp backend: its device name, the storage it
 * chooses (compressed values and column offsets only where lossless),
 * row blocks balanced by nonzeros on power-law matrices, results that do
 * not depend on the thread count (SpMV) or timing (dots), and clear errors
 * instead of crashes on bad arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/omp/omp_backend.h"
#include "test_support.h"

static kryl_context omp_context(int threads)
{
    kryl_context ctx = NULL;
    kryl_context_options opt;
    kryl_context_options_init(&opt);
    opt.backend = KRYL_BACKEND_OMP;
    opt.threads = threads;
    CHECK_OK(kryl_context_create(&ctx, &opt));
    return ctx;
}

/* A random n x n matrix of the shape; float_values rounds its values to floats. */
static kryl_matrix random_matrix(kryl_context ctx, test_shape shape, int64_t n,
                                 kryl_precision precision, bool float_values)
{
    return test_random_matrix(ctx, shape, n, (uint64_t)n + 3, precision, float_values);
}

static void check_device_name(void)
{
    kryl_context ctx = omp_context(3);
    if (ctx == NULL) return;
    CHECK(strcmp(kryl_context_device_name(ctx), "OpenMP, 3 threads") == 0, "device name '%s'",
          kryl_context_device_name(ctx));
    kryl_context_destroy(&ctx);
    ctx = omp_context(1);
    CHECK(strcmp(kryl_context_device_name(ctx), "OpenMP, 1 thread") == 0, "device name '%s'",
          kryl_context_device_name(ctx));
    kryl_context_destroy(&ctx);
}

/* Compression is chosen only where it loses nothing. */
static void check_storage_choice(kryl_context ctx)
{
    const struct {
        test_shape shape;
        int64_t n;
        kryl_precision precision;
        bool float_values, expect_float, expect_offsets;
        const char *what;
    } cases[] = {
        {TEST_SHAPE_RANDOM, 1000, KRYL_DOUBLE, false, false, false, "double values"},
        {TEST_SHAPE_RANDOM, 1000, KRYL_DOUBLE, true, true, true, "float-exact values"},
        {TEST_SHAPE_RANDOM, 40000, KRYL_DOUBLE, true, true, false, "float-exact, wide"},
        {TEST_SHAPE_RANDOM, 1000, KRYL_SINGLE, false, true, true, "single"},
        {TEST_SHAPE_DENSE_ROW, 40000, KRYL_SINGLE, false, true, false, "single, dense row"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_matrix A = random_matrix(ctx, cases[c].shape, cases[c].n, cases[c].precision,
                                      cases[c].float_values);
        if (A == NULL) continue;
        const kryl_omp_matrix *M = A->storage;
        CHECK((M->values_single != NULL) == cases[c].expect_float, "%s: float values %s",
              cases[c].what, M->values_single ? "kept" : "dropped");
        CHECK((M->col_offset != NULL) == cases[c].expect_offsets, "%s: column offsets %s",
              cases[c].what, M->col_offset ? "kept" : "dropped");
        kryl_matrix_destroy(&A);
    }
}

/* Row blocks: contiguous, covering every row, none costing more than its
 * share plus one row (a row is never split). */
static void check_balance(const kryl_matrix A, const char *what)
{
    const kryl_omp_matrix *M = A->storage;
    const int64_t *rp = M->row_ptr;
    double total = (double)(rp[M->nrows] + M->nrows);
    int64_t longest = 0;
    for (int64_t i = 0; i < M->nrows; i++)
        if (rp[i + 1] - rp[i] > longest) longest = rp[i + 1] - rp[i];
    CHECK(M->part[0] == 0 && M->part[M->nparts] == M->nrows, "%s: blocks do not cover the rows",
          what);
    for (int b = 0; b < M->nparts; b++) {
        int64_t r0 = M->part[b], r1 = M->part[b + 1];
        CHECK(r0 <= r1, "%s: block %d runs backwards", what, b);
        double cost = (double)(rp[r1] - rp[r0] + (r1 - r0));
        CHECK(cost <= total / M->nparts + (double)longest + 1.0,
              "%s: block %d costs %.0f of %.0f (%d blocks, longest row %lld)", what, b, cost, total,
              M->nparts, (long long)longest);
    }
}

static void check_partitions(void)
{
    kryl_context ctx = omp_context(4);
    if (ctx == NULL) return;
    kryl_generator_options gen;
    kryl_generator_options_init(&gen, KRYL_GEN_POWERLAW, 20000);
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_generate(&A, ctx, &gen, 0, 20000));
    if (A) check_balance(A, "powerlaw 20000");
    kryl_matrix_destroy(&A);
    A = random_matrix(ctx, TEST_SHAPE_DENSE_ROW, 4099, KRYL_DOUBLE, false);
    if (A) check_balance(A, "dense row 4099");
    kryl_matrix_destroy(&A);
    A = random_matrix(ctx, TEST_SHAPE_SINGLE, 1, KRYL_DOUBLE, false);
    if (A) check_balance(A, "1 x 1");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* y = A x on ctx, as doubles. */
static void spmv_on(kryl_context ctx, test_shape shape, int64_t n, bool float_values, double *y)
{
    kryl_matrix A = random_matrix(ctx, shape, n, KRYL_DOUBLE, float_values);
    kryl_vector xv = NULL, yv = NULL;
    CHECK_OK(kryl_vector_create(&xv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&yv, A, KRYL_DOUBLE));
    double *x = malloc((size_t)n * sizeof *x);
    test_random_values(x, n, 11);
    CHECK_OK(kryl_vector_set(xv, x, n));
    CHECK_OK(ctx->ops->spmv(ctx, A, 1.0, xv, 0.0, NULL, yv, NULL));
    CHECK_OK(kryl_vector_get(yv, y, n));
    free(x);
    kryl_vector_destroy(&xv);
    kryl_vector_destroy(&yv);
    kryl_matrix_destroy(&A);
}

/* y = A x on a context of `threads` threads, as doubles. */
static void spmv_with(int threads, test_shape shape, int64_t n, bool float_values, double *y)
{
    kryl_context ctx = omp_context(threads);
    spmv_on(ctx, shape, n, float_values, y);
    kryl_context_destroy(&ctx);
}

/* SpMV rows are summed in storage order whatever the thread count, and
 * compressed values give the very products of the doubles: results are
 * the same bits on 1, 2 and 7 threads and the same as ref's. */
static void check_spmv_bits(void)
{
    const int64_t n = 4099;
    double *y1 = malloc((size_t)n * sizeof *y1), *y = malloc((size_t)n * sizeof *y);
    for (int exact = 0; exact < 2; exact++) {
        spmv_with(1, TEST_SHAPE_LONG_ROWS, n, exact, y1);
        for (int threads = 2; threads <= 7; threads += 5) {
            spmv_with(threads, TEST_SHAPE_LONG_ROWS, n, exact, y);
            CHECK(memcmp(y, y1, (size_t)n * sizeof *y) == 0,
                  "spmv on %d threads differs from 1 thread (float values: %d)", threads, exact);
        }
        kryl_context ref = test_context(KRYL_BACKEND_REF);
        spmv_on(ref, TEST_SHAPE_LONG_ROWS, n, exact, y);
        CHECK(memcmp(y, y1, (size_t)n * sizeof *y) == 0,
              "omp spmv differs from ref's bits (float values: %d)", exact);
        kryl_context_destroy(&ref);
    }
    free(y1);
    free(y);
}

/* Dots and the fused update's sums give the same bits on every call. */
static void check_reduction_bits(kryl_context ctx)
{
    const int64_t n = 100003;
    kryl_matrix A = random_matrix(ctx, TEST_SHAPE_DIAGONAL, n, KRYL_DOUBLE, false);
    kryl_vector x = NULL, y = NULL;
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
    double *v = malloc((size_t)n * sizeof *v);
    test_random_values(v, n, 5);
    CHECK_OK(kryl_vector_set(x, v, n));
    test_random_values(v, n, 6);
    CHECK_OK(kryl_vector_set(y, v, n));
    double *s = NULL;
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&s, 2 * sizeof(double)));
    CHECK_OK(ctx->ops->dot(ctx, x, y, (kryl_scalar){s}));
    for (int k = 0; k < 20; k++) {
        CHECK_OK(ctx->ops->dot(ctx, x, y, (kryl_scalar){s + 1}));
        CHECK(s[0] == s[1], "dot %d: %.17g, first %.17g", k, s[1], s[0]);
    }
    ctx->ops->release(ctx, s);
    free(v);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_matrix_destroy(&A);
}

/* Bad arguments fail with a status and a message; nothing crashes. */
static void check_errors(kryl_context ctx)
{
    kryl_matrix A = random_matrix(ctx, TEST_SHAPE_RANDOM, 100, KRYL_DOUBLE, false);
    kryl_matrix B = random_matrix(ctx, TEST_SHAPE_RANDOM, 33, KRYL_DOUBLE, false);
    kryl_vector x = NULL, y = NULL, r = NULL, small = NULL, single = NULL;
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&r, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&small, B, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&single, A, KRYL_SINGLE));
    const kryl_backend_ops *ops = ctx->ops;
    double *s = NULL;
    const double init[4] = {1.0, 2.0, 0.0, 0.0};
    CHECK_OK(ops->alloc(ctx, (void **)&s, sizeof init));
    CHECK_OK(ops->upload(ctx, s, init, sizeof init));
    kryl_scalar num = {s}, den = {s + 1}, rz = {s + 2}, rr = {s + 3};

    CHECK_STATUS(ops->spmv(ctx, A, 1.0, small, 0.0, NULL, y, NULL), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->spmv(ctx, A, 1.0, x, 0.0, NULL, small, NULL), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->spmv(ctx, A, 1.0, x, 1.0, small, y, NULL), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->spmv(ctx, A, 1.0, single, 0.0, NULL, y, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->spmv(ctx, A, 1.0, x, 0.0, NULL, x, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "share storage") != NULL, "message: %s", kryl_last_error());
    CHECK_STATUS(ops->axpby(ctx, 1.0, small, 1.0, y), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->axpby(ctx, 1.0, single, 1.0, y), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->pointwise_mult(ctx, y, small, x), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->dot(ctx, x, small, rz), KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->fill(ctx, NULL, 1.0), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->cg_update_xr(ctx, num, den, x, y, x, r, NULL, NULL, rz, rr, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->cg_update_xr(ctx, num, den, x, y, r, r, NULL, NULL, rz, rr, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->cg_update_xr(ctx, num, den, x, y, r, single, NULL, NULL, rz, rr, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->cg_update_xr(ctx, num, den, x, y, r, small, NULL, NULL, rz, rr, NULL),
                 KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(ops->cg_update_p(ctx, num, den, x, x, rr, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->permute_copy(ctx, y, small, NULL, KRYL_GATHER, NULL),
                 KRYL_ERR_DIMENSION_MISMATCH);
    int32_t *perm = NULL;
    CHECK_OK(ops->alloc(ctx, (void **)&perm, 100 * sizeof *perm));
    CHECK_STATUS(ops->permute_copy(ctx, y, y, perm, KRYL_GATHER, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->permute_copy(ctx, y, y, NULL, KRYL_SCATTER_ADD, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ops->permute_copy(ctx, y, x, perm, (kryl_permute_dir)7, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    ops->release(ctx, perm);

    /* a finite num/den whose ratio overflows stops with NAN, changing nothing */
    kryl_monitor *m = NULL;
    CHECK_OK(ops->alloc(ctx, (void **)&m, sizeof *m));
    m->step_ran = 1; /* as cg_update_xr leaves it */
    const double huge[2] = {1e300, 1e-300};
    CHECK_OK(ops->upload(ctx, s, huge, sizeof huge));
    CHECK_OK(ops->cg_update_p(ctx, num, den, x, y, rr, m));
    CHECK(m->stop == KRYL_STOP_NAN, "overflowing ratio: stop = %d, expected NAN", (int)m->stop);
    ops->release(ctx, m);
    ops->release(ctx, s);

    /* a value beyond the float range cannot be stored in single precision */
    kryl_csr csr;
    test_random_csr(&csr, TEST_SHAPE_DIAGONAL, 10, 10, 1);
    csr.values[3] = 1e39;
    kryl_matrix C = NULL, D = NULL;
    CHECK_OK(kryl_matrix_from_csr(&C, ctx, &csr));
    if (C)
        CHECK_STATUS(
            kryl_matrix_convert(&D, C, KRYL_SINGLE, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE),
            KRYL_ERR_INVALID_VALUE);
    kryl_matrix_destroy(&D);
    kryl_matrix_destroy(&C);

    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_vector_destroy(&r);
    kryl_vector_destroy(&small);
    kryl_vector_destroy(&single);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&B);
}

int main(void)
{
    if (!kryl_backend_available(KRYL_BACKEND_OMP)) {
        printf("test_backend_omp: this build has no omp backend\n");
        return TEST_SKIP_CODE;
    }
    check_device_name();
    kryl_context ctx = omp_context(3);
    if (ctx != NULL) {
        check_storage_choice(ctx);
        check_reduction_bits(ctx);
        check_errors(ctx);
        kryl_context_destroy(&ctx);
    }
    check_partitions();
    check_spmv_bits();
    return test_summary("test_backend_omp");
}
