/* Triangular-solve test support (trsv_support.h). */
#include <math.h>

#include "trsv_support.h"

/* A vector of n entries of `precision` in ctx's memory (data NULL on failure). */
struct kryl_vector_s test_trsv_vector(kryl_context ctx, int64_t n, kryl_precision precision)
{
    struct kryl_vector_s v = {ctx, NULL, n, precision, NULL, false};
    CHECK_OK(
        ctx->ops->alloc(ctx, &v.data, (size_t)(n > 0 ? n : 1) * kryl_precision_size(precision)));
    return v;
}

/* v = scale * b in v's precision (buf: host scratch of n entries). */
void test_trsv_upload(kryl_context ctx, struct kryl_vector_s *v, const double *b, double scale,
                      void *buf)
{
    for (int64_t i = 0; i < v->n; i++) {
        if (v->precision == KRYL_DOUBLE)
            ((double *)buf)[i] = scale * b[i];
        else
            ((float *)buf)[i] = (float)(scale * b[i]);
    }
    CHECK_OK(ctx->ops->upload(ctx, v->data, buf, (size_t)v->n * kryl_precision_size(v->precision)));
}

/* x = v in double. */
void test_trsv_download(kryl_context ctx, const struct kryl_vector_s *v, void *buf, double *x)
{
    CHECK_OK(
        ctx->ops->download(ctx, buf, v->data, (size_t)v->n * kryl_precision_size(v->precision)));
    for (int64_t i = 0; i < v->n; i++)
        x[i] = v->precision == KRYL_DOUBLE ? ((double *)buf)[i] : (double)((float *)buf)[i];
}

/* The `lower` (or upper) triangle of a random n x n matrix, with a diagonal
 * dominating each row unless unit (then no diagonal is stored). */
void test_random_triangle(kryl_csr *T, int64_t n, bool lower, bool unit, uint64_t seed)
{
    kryl_csr A = {0};
    test_random_csr(&A, TEST_SHAPE_RANDOM, n, n, seed);
    CHECK_OK(kryl_csr_alloc(T, n, n, kryl_csr_nnz(&A) + n));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        /* the diagonal comes first in an upper row, last in a lower one */
        int64_t diag = lower ? -1 : nnz;
        if (!unit && !lower) nnz++;
        double sum = 0.0;
        for (int64_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) {
            int64_t j = A.col_idx[k];
            if (j == i || (lower ? j > i : j < i)) continue;
            T->col_idx[nnz] = (int32_t)j;
            T->values[nnz++] = A.values[k];
            sum += fabs(A.values[k]);
        }
        if (!unit && lower) diag = nnz++;
        /* t_ii = 1 + sum_{j != i} |t_ij| */
        if (!unit) {
            T->col_idx[diag] = (int32_t)i;
            T->values[diag] = 1.0 + sum;
        }
        T->row_ptr[i + 1] = nnz;
    }
    kryl_csr_free(&A);
}

/* A triangle of order n (diagonal 4 unless unit) whose only off-diagonal
 * entries are `dense` (row n-1 of a lower, row 0 of an upper triangle
 * coupled to every other row) or a chain (t_{i,i-1}, or t_{i,i+1}: a
 * level per row). */
void test_shaped_triangle(kryl_csr *T, int64_t n, bool lower, bool unit, bool dense)
{
    CHECK_OK(kryl_csr_alloc(T, n, n, 3 * n));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        /* the strict entries of row i: columns [first, last) */
        int64_t first = lower ? (i > 0 ? i - 1 : 0) : i + 1;
        int64_t last = lower ? i : (i + 1 < n ? i + 2 : n);
        if (dense) {
            bool special = i == (lower ? n - 1 : 0);
            first = special ? (lower ? 0 : 1) : 0;
            last = special ? (lower ? n - 1 : n) : 0;
        }
        if (!unit && !lower) {
            T->col_idx[nnz] = (int32_t)i;
            T->values[nnz++] = 4.0;
        }
        for (int64_t j = first; j < last; j++) {
            T->col_idx[nnz] = (int32_t)j;
            T->values[nnz++] = -1.0 / (double)(1 + (i + j) % 3);
        }
        if (!unit && lower) {
            T->col_idx[nnz] = (int32_t)i;
            T->values[nnz++] = 4.0;
        }
        T->row_ptr[i + 1] = nnz;
    }
}
