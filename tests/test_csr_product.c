/* The host matrix-producing operations (src/core/csr_product.c): the
 * transpose, the sum, a block of columns and the sparse product against
 * dense references on awkward shapes, and their independence of the
 * thread count. */
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

/* dense[i * ncols + j] = a_ij */
static double *to_dense(const kryl_csr *A)
{
    double *d = calloc((size_t)(A->nrows * A->ncols + 1), sizeof *d);
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            d[i * A->ncols + A->col_idx[k]] += A->values[k];
    return d;
}

static bool rows_sorted(const kryl_csr *A)
{
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i] + 1; k < A->row_ptr[i + 1]; k++)
            if (A->col_idx[k - 1] >= A->col_idx[k]) return false;
    return true;
}

/* X and Y the same to the bit */
static bool csr_equal(const kryl_csr *X, const kryl_csr *Y)
{
    int64_t nnz = kryl_csr_nnz(X);
    return X->nrows == Y->nrows && nnz == kryl_csr_nnz(Y) &&
           memcmp(X->row_ptr, Y->row_ptr, (size_t)(X->nrows + 1) * sizeof *X->row_ptr) == 0 &&
           memcmp(X->col_idx, Y->col_idx, (size_t)nnz * sizeof *X->col_idx) == 0 &&
           memcmp(X->values, Y->values, (size_t)nnz * sizeof *X->values) == 0;
}

static void check_transpose(test_shape shape, int64_t m, int64_t n)
{
    kryl_csr A, T, T5;
    test_random_csr(&A, shape, m, n, 7 + (uint64_t)m);
    m = A.nrows; /* the single shape is 1 x 1 */
    n = A.ncols;
    CHECK_OK(kryl_csr_transpose(&A, &T));
    CHECK(T.nrows == n && T.ncols == m && kryl_csr_nnz(&T) == kryl_csr_nnz(&A),
          "%s %lld x %lld: transpose is %lld x %lld", test_shape_name(shape), (long long)m,
          (long long)n, (long long)T.nrows, (long long)T.ncols);
    double *a = to_dense(&A), *t = to_dense(&T);
    bool same = rows_sorted(&T);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) same = same && a[i * n + j] == t[j * m + i];
    CHECK(same, "%s %lld x %lld: T != A' or rows unsorted", test_shape_name(shape), (long long)m,
          (long long)n);
    CHECK_OK(kryl_csr_transpose_on(&A, &T5, 5));
    CHECK(csr_equal(&T, &T5), "%s %lld x %lld: the transpose on 5 threads differs from 1",
          test_shape_name(shape), (long long)m, (long long)n);
    free(a);
    free(t);
    kryl_csr_free(&A);
    kryl_csr_free(&T);
    kryl_csr_free(&T5);
}

static void check_product(test_shape shape, int64_t m, int64_t k, int64_t n)
{
    kryl_csr A, B, C1, C3;
    test_random_csr(&A, shape, m, k, 11 + (uint64_t)m);
    m = A.nrows; /* the single shape is 1 x 1 */
    k = A.ncols;
    test_random_csr(&B, TEST_SHAPE_RANDOM, k, n, 13 + (uint64_t)n);
    CHECK_OK(kryl_csr_multiply(&A, &B, &C1, 1));
    CHECK_OK(kryl_csr_multiply(&A, &B, &C3, 3));
    double *a = to_dense(&A), *b = to_dense(&B), *c = to_dense(&C1);
    double worst = 0.0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int64_t l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
            double d = s - c[i * n + j];
            if (d < 0) d = -d;
            if (d > worst) worst = d;
        }
    CHECK(worst <= 1e-12 && rows_sorted(&C1), "%s %lld x %lld x %lld: |C - AB| = %g",
          test_shape_name(shape), (long long)m, (long long)k, (long long)n, worst);
    CHECK(csr_equal(&C1, &C3), "%s %lld x %lld x %lld: 3 threads differ from 1",
          test_shape_name(shape), (long long)m, (long long)k, (long long)n);
    free(a);
    free(b);
    free(c);
    kryl_csr_free(&A);
    kryl_csr_free(&B);
    kryl_csr_free(&C1);
    kryl_csr_free(&C3);
}

static void check_sum(test_shape shape, int64_t m, int64_t n)
{
    kryl_csr A, B, C1, C3;
    test_random_csr(&A, shape, m, n, 17 + (uint64_t)m);
    m = A.nrows; /* the single shape is 1 x 1 */
    n = A.ncols;
    test_random_csr(&B, TEST_SHAPE_RANDOM, m, n, 19 + (uint64_t)n);
    CHECK_OK(kryl_csr_add_on(&A, &B, &C1, 1));
    CHECK_OK(kryl_csr_add_on(&A, &B, &C3, 3));
    double *a = to_dense(&A), *b = to_dense(&B), *c = to_dense(&C1);
    bool same = rows_sorted(&C1);
    for (int64_t k = 0; k < m * n; k++) same = same && c[k] == a[k] + b[k];
    CHECK(same, "%s %lld x %lld: A + B wrong or rows unsorted", test_shape_name(shape),
          (long long)m, (long long)n);
    CHECK(csr_equal(&C1, &C3), "%s %lld x %lld: the sum on 3 threads differs from 1",
          test_shape_name(shape), (long long)m, (long long)n);
    free(a);
    free(b);
    free(c);
    kryl_csr *all[] = {&A, &B, &C1, &C3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kryl_csr_free(all[i]);
}

static void check_column_block(test_shape shape, int64_t m, int64_t n)
{
    kryl_csr A, B1, B3;
    test_random_csr(&A, shape, m, n, 23 + (uint64_t)m);
    m = A.nrows; /* the single shape is 1 x 1 */
    n = A.ncols;
    const int64_t lo = n / 3, hi = n - n / 4;
    CHECK_OK(kryl_csr_column_block(&A, lo, hi, 1, &B1));
    CHECK_OK(kryl_csr_column_block(&A, lo, hi, 3, &B3));
    double *a = to_dense(&A), *b = to_dense(&B1);
    bool same = B1.nrows == m && B1.ncols == hi - lo && rows_sorted(&B1);
    for (int64_t i = 0; i < m && same; i++)
        for (int64_t j = lo; j < hi; j++) same = same && b[i * (hi - lo) + j - lo] == a[i * n + j];
    CHECK(same, "%s %lld x %lld: the block of columns [%lld, %lld) wrong", test_shape_name(shape),
          (long long)m, (long long)n, (long long)lo, (long long)hi);
    CHECK(csr_equal(&B1, &B3), "%s %lld x %lld: the block on 3 threads differs from 1",
          test_shape_name(shape), (long long)m, (long long)n);
    free(a);
    free(b);
    kryl_csr *all[] = {&A, &B1, &B3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kryl_csr_free(all[i]);
}

int main(void)
{
    for (int s = 0; s < TEST_SHAPE_COUNT; s++) {
        test_shape shape = (test_shape)s;
        int64_t m = shape == TEST_SHAPE_SINGLE ? 1 : 67;
        check_transpose(shape, m, 45);
        check_transpose(shape, m, m);
        /* rows enough for several threads' shares, filling T's rows out of order */
        if (shape != TEST_SHAPE_SINGLE) check_transpose(shape, 2500, 300);
        check_product(shape, m, 45, 39);
        check_product(shape, m, m, m);
        check_sum(shape, m, 45);
        check_column_block(shape, m, 45);
        if (shape != TEST_SHAPE_SINGLE) check_column_block(shape, 2500, 300);
        if (shape != TEST_SHAPE_SINGLE) check_sum(shape, 2500, 300);
    }
    kryl_csr A, B, C;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 5, 4, 1);
    test_random_csr(&B, TEST_SHAPE_RANDOM, 5, 4, 2);
    CHECK_STATUS(kryl_csr_multiply(&A, &B, &C, 1), KRYL_ERR_DIMENSION_MISMATCH);
    kryl_csr_free(&B);
    test_random_csr(&B, TEST_SHAPE_RANDOM, 4, 4, 3);
    CHECK_STATUS(kryl_csr_add_on(&A, &B, &C, 1), KRYL_ERR_DIMENSION_MISMATCH);
    kryl_csr_free(&A);
    kryl_csr_free(&B);
    return test_summary("test_csr_product");
}
