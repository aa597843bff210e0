/* The host matrix-producing operations (src/core/csr_product.c): the
 * transpose, the sum, the split by columns and the sparse product against
 * dense references on awkward shapes, and their independence of the
 * thread count. */
#include <math.h>
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

/* C = op(A, B) on `threads` host threads (kryl_csr_multiply, kryl_csr_add_on). */
typedef kryl_status (*csr_binary)(const kryl_csr *A, const kryl_csr *B, kryl_csr *C, int threads);

/* c (m x n) = the dense result of a (m x k) and b (k x n, or m x n for a sum). */
typedef void (*dense_binary)(const double *a, const double *b, int64_t m, int64_t k, int64_t n,
                             double *c);

static void dense_product(const double *a, const double *b, int64_t m, int64_t k, int64_t n,
                          double *c)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0.0;
            for (int64_t l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
            c[i * n + j] = s;
        }
}

static void dense_sum(const double *a, const double *b, int64_t m, int64_t k, int64_t n, double *c)
{
    (void)k;
    for (int64_t e = 0; e < m * n; e++) c[e] = a[e] + b[e];
}

/* C = op(A, B), A m x k of `shape`, B random with n columns and A's columns
 * as rows (a product) or A's rows (a sum): on 1 thread within tol of the
 * dense reference, rows sorted; on 3 the same to the bit. */
static void check_binary(const char *what, csr_binary op, dense_binary reference, double tol,
                         test_shape shape, int64_t m, int64_t k, int64_t n, uint64_t seed)
{
    const bool sum = reference == dense_sum;
    kryl_csr A, B, C1, C3;
    test_random_csr(&A, shape, m, k, seed + (uint64_t)m);
    m = A.nrows; /* the single shape is 1 x 1 */
    k = A.ncols;
    if (sum) n = k;
    test_random_csr(&B, TEST_SHAPE_RANDOM, sum ? m : k, n, seed + 2 + (uint64_t)n);
    CHECK_OK(op(&A, &B, &C1, 1));
    CHECK_OK(op(&A, &B, &C3, 3));
    double *a = to_dense(&A), *b = to_dense(&B), *c = to_dense(&C1);
    double *want = calloc((size_t)(m * n + 1), sizeof *want);
    reference(a, b, m, k, n, want);
    double worst = 0.0;
    for (int64_t e = 0; e < m * n; e++) worst = fmax(worst, fabs(want[e] - c[e]));
    CHECK(worst <= tol && rows_sorted(&C1), "%s %s %lld x %lld x %lld: off by %g or rows unsorted",
          what, test_shape_name(shape), (long long)m, (long long)k, (long long)n, worst);
    CHECK(csr_equal(&C1, &C3), "%s %s %lld x %lld x %lld: 3 threads differ from 1", what,
          test_shape_name(shape), (long long)m, (long long)k, (long long)n);
    free(a);
    free(b);
    free(c);
    free(want);
    kryl_csr *all[] = {&A, &B, &C1, &C3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kryl_csr_free(all[i]);
}

static void check_product(test_shape shape, int64_t m, int64_t k, int64_t n)
{
    check_binary("A B", kryl_csr_multiply, dense_product, 1e-12, shape, m, k, n, 11);
}

static void check_sum(test_shape shape, int64_t m, int64_t n)
{
    check_binary("A + B", kryl_csr_add_on, dense_sum, 0.0, shape, m, n, n, 17);
}

static void check_split_columns(test_shape shape, int64_t m, int64_t n)
{
    kryl_csr A, B1, B3, O1, O3, B;
    test_random_csr(&A, shape, m, n, 23 + (uint64_t)m);
    m = A.nrows; /* the single shape is 1 x 1 */
    n = A.ncols;
    const int64_t lo = n / 3, hi = n - n / 4;
    CHECK_OK(kryl_csr_split_columns(&A, lo, hi, 1, &B1, &O1));
    CHECK_OK(kryl_csr_split_columns(&A, lo, hi, 3, &B3, &O3));
    CHECK_OK(kryl_csr_split_columns(&A, lo, hi, 3, &B, NULL));
    double *a = to_dense(&A), *b = to_dense(&B1), *o = to_dense(&O1);
    bool same = B1.nrows == m && B1.ncols == hi - lo && rows_sorted(&B1) && O1.nrows == m &&
                O1.ncols == n && rows_sorted(&O1);
    for (int64_t i = 0; i < m && same; i++)
        for (int64_t j = 0; j < n; j++)
            same = same && (j >= lo && j < hi
                                ? b[i * (hi - lo) + j - lo] == a[i * n + j] && o[i * n + j] == 0.0
                                : o[i * n + j] == a[i * n + j]);
    CHECK(same, "%s %lld x %lld: the split at columns [%lld, %lld) wrong", test_shape_name(shape),
          (long long)m, (long long)n, (long long)lo, (long long)hi);
    CHECK(csr_equal(&B1, &B3) && csr_equal(&O1, &O3) && csr_equal(&B1, &B),
          "%s %lld x %lld: the split on 3 threads differs from 1", test_shape_name(shape),
          (long long)m, (long long)n);
    free(a);
    free(b);
    free(o);
    kryl_csr *all[] = {&A, &B1, &B3, &O1, &O3, &B};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kryl_csr_free(all[i]);
}

/* Rows [lo, hi) of M as a matrix of its rows (a view: M's arrays). */
static kryl_csr row_block(const kryl_csr *M, int64_t lo, int64_t hi)
{
    kryl_csr B = *M;
    B.row_ptr += lo;
    B.nrows = hi - lo;
    B.row_begin = lo;
    return B;
}

/* The entries of rows [lo, hi) of T outside the columns [lo, hi): for T =
 * S', the mirrors of those rows of S that other rows hold. */
static void far_mirrors(const kryl_csr *T, int64_t lo, int64_t hi, kryl_csr *F)
{
    int64_t count = 0;
    for (int64_t k = T->row_ptr[lo]; k < T->row_ptr[hi]; k++)
        count += T->col_idx[k] < lo || T->col_idx[k] >= hi;
    CHECK_OK(kryl_csr_alloc(F, hi - lo, T->ncols, count > 0 ? count : 1));
    int64_t at = 0;
    F->row_ptr[0] = 0;
    for (int64_t i = lo; i < hi; i++) {
        for (int64_t k = T->row_ptr[i]; k < T->row_ptr[i + 1]; k++)
            if (T->col_idx[k] < lo || T->col_idx[k] >= hi) {
                F->col_idx[at] = T->col_idx[k];
                F->values[at++] = T->values[k];
            }
        F->row_ptr[i - lo + 1] = at;
    }
}

/* A square matrix's symmetric part (A + A')/2 by kryl_csr_mirror_values and
 * kryl_csr_average is symmetric to the bit; its mirrors are the transpose's
 * values (of the same pattern), also with the rows split in two blocks
 * whose other mirrors come from outside (as over two ranks). */
static void check_average(test_shape shape, int64_t n)
{
    kryl_csr A, T, S, St, Sback;
    test_random_csr(&A, shape, n, n, 29 + (uint64_t)n);
    CHECK_OK(kryl_csr_transpose(&A, &T));
    /* S = A + A': a symmetric pattern, values not yet */
    CHECK_OK(kryl_csr_add_on(&A, &T, &S, 1));
    CHECK_OK(kryl_csr_transpose(&S, &St));
    CHECK(kryl_csr_same_pattern(&S, &St), "%s %lld: A + A' and its transpose differ in pattern",
          test_shape_name(shape), (long long)n);
    const int64_t nnz = kryl_csr_nnz(&S);
    double *mirror = calloc((size_t)nnz + 1, sizeof *mirror);
    CHECK(kryl_csr_mirror_values(&S, NULL, mirror, 3) == 0, "%s %lld: A + A' has mirrors absent",
          test_shape_name(shape), (long long)n);
    CHECK(memcmp(mirror, St.values, (size_t)nnz * sizeof *mirror) == 0,
          "%s %lld: the mirrors are not the transpose's values", test_shape_name(shape),
          (long long)n);
    /* two blocks of rows, each with its far mirrors */
    const int64_t half = n / 2, bounds[3] = {0, half, n};
    for (int b = 0; b < 2; b++) {
        kryl_csr block = row_block(&S, bounds[b], bounds[b + 1]), far;
        far_mirrors(&St, bounds[b], bounds[b + 1], &far);
        double *split = calloc((size_t)nnz + 1, sizeof *split);
        CHECK(kryl_csr_mirror_values(&block, &far, split, 2) == 0,
              "%s %lld: block %d has mirrors absent", test_shape_name(shape), (long long)n, b);
        const int64_t first = S.row_ptr[bounds[b]], last = S.row_ptr[bounds[b + 1]];
        CHECK(memcmp(split + first, St.values + first, (size_t)(last - first) * sizeof *split) == 0,
              "%s %lld: block %d's mirrors are not the transpose's values", test_shape_name(shape),
              (long long)n, b);
        free(split);
        kryl_csr_free(&far);
    }
    kryl_csr_average(&S, mirror, 3);
    CHECK_OK(kryl_csr_transpose(&S, &Sback));
    CHECK(csr_equal(&S, &Sback), "%s %lld: the average with the mirrors is not symmetric",
          test_shape_name(shape), (long long)n);
    free(mirror);
    kryl_csr *all[] = {&A, &T, &S, &St, &Sback};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) kryl_csr_free(all[k]);
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
        check_split_columns(shape, m, 45);
        check_average(shape, m);
        if (shape != TEST_SHAPE_SINGLE) check_split_columns(shape, 2500, 300);
        if (shape != TEST_SHAPE_SINGLE) check_sum(shape, 2500, 300);
    }
    kryl_csr A, B, C;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 5, 4, 1);
    test_random_csr(&B, TEST_SHAPE_RANDOM, 5, 4, 2);
    CHECK_STATUS(kryl_csr_multiply(&A, &B, &C, 1), KRYL_ERR_DIMENSION_MISMATCH);
    /* an upper triangle's pattern is not its transpose's: its entry above
     * the diagonal has no mirror */
    kryl_csr U;
    CHECK_OK(kryl_csr_alloc(&U, 2, 2, 3));
    const int64_t uptr[3] = {0, 2, 3};
    const int32_t ucol[3] = {0, 1, 1};
    memcpy(U.row_ptr, uptr, sizeof uptr);
    memcpy(U.col_idx, ucol, sizeof ucol);
    for (int k = 0; k < 3; k++) U.values[k] = 1.0 + k;
    kryl_csr Ut;
    CHECK_OK(kryl_csr_transpose(&U, &Ut));
    CHECK(!kryl_csr_same_pattern(&U, &Ut), "an upper triangle has its transpose's pattern");
    double umirror[3];
    CHECK(kryl_csr_mirror_values(&U, NULL, umirror, 1) == 1,
          "an upper triangle's mirrors: one absent expected");
    kryl_csr_free(&U);
    kryl_csr_free(&Ut);
    kryl_csr_free(&B);
    test_random_csr(&B, TEST_SHAPE_RANDOM, 4, 4, 3);
    CHECK_STATUS(kryl_csr_add_on(&A, &B, &C, 1), KRYL_ERR_DIMENSION_MISMATCH);
    kryl_csr_free(&A);
    kryl_csr_free(&B);
    return test_summary("test_csr_product");
}
