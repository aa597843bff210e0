/* Building CSR from entries (src/core/csr_build.c) on several threads:
 * the matrix is bit for bit the same whatever the thread count and the
 * order of the entries (row by row, shuffled, symmetric pairs), with empty
 * rows, rows longer than the insertion sort's, owned rows not starting at
 * 0 and many duplicates whose sum depends on the order it is taken in;
 * checked against a plain serial reference.  The first entry outside the
 * matrix and the first duplicates that overflow are named the same on any
 * thread count. */
#include <stdlib.h>
#include <string.h>

#include "core/csr.h"
#include "test_support.h"

static uint64_t next_random(uint64_t *state)
{
    /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Entries of rows [begin, begin + nrows) x ncols: row i (local) has i % 7
 * entries (rows i % 7 == 0 empty), every 50th row 80 (a long row), columns
 * from a small set so they repeat, values of mixed magnitude and sign. */
static void make_entries(kryl_coo *coo, int64_t begin, int64_t nrows, int64_t ncols, uint64_t seed)
{
    memset(coo, 0, sizeof *coo);
    coo->nrows = begin + nrows + 3;
    coo->ncols = ncols;
    static const double scale[5] = {1e-8, 1e-3, 1.0, 1e3, 1e8};
    for (int64_t i = 0; i < nrows; i++) {
        int64_t length = i % 50 == 49 ? 80 : i % 7;
        for (int64_t k = 0; k < length; k++) {
            int64_t col = (int64_t)(next_random(&seed) % (uint64_t)(ncols < 9 ? ncols : 9)) *
                          (ncols / 9 > 0 ? ncols / 9 : 1);
            double u = (double)(next_random(&seed) >> 11) * 0x1.0p-53 - 0.5;
            CHECK_OK(kryl_coo_push(coo, begin + i, col, u * scale[next_random(&seed) % 5]));
        }
    }
}

/* The same entries in another order (Fisher-Yates with the seed). */
static void shuffle(kryl_coo *coo, uint64_t seed)
{
    for (int64_t k = coo->count - 1; k > 0; k--) {
        int64_t m = (int64_t)(next_random(&seed) % (uint64_t)(k + 1));
        int64_t r = coo->rows[k], c = coo->cols[k];
        double v = coo->values[k];
        coo->rows[k] = coo->rows[m];
        coo->cols[k] = coo->cols[m];
        coo->values[k] = coo->values[m];
        coo->rows[m] = r;
        coo->cols[m] = c;
        coo->values[m] = v;
    }
}

typedef struct keyed {
    int64_t row, col;
    double value;
} keyed;

/* by row, column, then value (as the build sums duplicates: ascending) */
static int compare_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* The reference: all entries sorted, each run of one position summed in order. */
static void reference(const kryl_coo *coo, int64_t begin, int64_t nrows, kryl_csr *R)
{
    keyed *e = malloc((size_t)(coo->count + 1) * sizeof *e);
    for (int64_t k = 0; k < coo->count; k++)
        e[k] = (keyed){coo->rows[k], coo->cols[k], coo->values[k]};
    qsort(e, (size_t)coo->count, sizeof *e, compare_keyed);
    CHECK_OK(kryl_csr_alloc(R, nrows, coo->ncols, coo->count));
    int64_t out = 0;
    for (int64_t k = 0; k < coo->count; k++) {
        if (k > 0 && e[k].row == e[k - 1].row && e[k].col == e[k - 1].col) {
            R->values[out - 1] += e[k].value;
            continue;
        }
        R->row_ptr[e[k].row - begin + 1]++;
        R->col_idx[out] = (int32_t)e[k].col;
        R->values[out++] = e[k].value;
    }
    for (int64_t i = 0; i < nrows; i++) R->row_ptr[i + 1] += R->row_ptr[i];
    free(e);
}

static bool same_csr(const kryl_csr *A, const kryl_csr *B)
{
    if (A->nrows != B->nrows || A->row_ptr[A->nrows] != B->row_ptr[B->nrows]) return false;
    int64_t nnz = A->row_ptr[A->nrows];
    return memcmp(A->row_ptr, B->row_ptr, (size_t)(A->nrows + 1) * sizeof *A->row_ptr) == 0 &&
           memcmp(A->col_idx, B->col_idx, (size_t)nnz * sizeof *A->col_idx) == 0 &&
           memcmp(A->values, B->values, (size_t)nnz * sizeof *A->values) == 0;
}

/* CSR of coo on 1 to 4 threads, each the reference bit for bit. */
static void check_threads(const kryl_coo *coo, int64_t begin, int64_t nrows, const kryl_csr *R,
                          const char *what)
{
    for (int threads = 1; threads <= 4; threads++) {
        kryl_csr A;
        CHECK_OK(kryl_csr_from_coo_on(&A, coo, coo->nrows, begin, begin + nrows, threads));
        CHECK(A.row_begin == begin && A.nrows_global == coo->nrows, "%s: the rows' place", what);
        CHECK(same_csr(&A, R), "%s on %d threads: not the reference", what, threads);
        kryl_csr_free(&A);
    }
}

static void check_orders(int64_t begin, int64_t nrows, int64_t ncols)
{
    kryl_coo coo;
    make_entries(&coo, begin, nrows, ncols, 11 + (uint64_t)nrows);
    kryl_csr R;
    reference(&coo, begin, nrows, &R);
    check_threads(&coo, begin, nrows, &R, "row by row");
    shuffle(&coo, 5);
    check_threads(&coo, begin, nrows, &R, "shuffled");
    /* a symmetric file's order: each entry then its mirror (a square matrix) */
    if (begin == 0 && nrows == ncols) {
        int64_t count = coo.count;
        for (int64_t k = 0; k < count; k++)
            CHECK_OK(kryl_coo_push(&coo, coo.cols[k], coo.rows[k], coo.values[k]));
        shuffle(&coo, 9);
        kryl_csr S;
        reference(&coo, 0, nrows, &S);
        check_threads(&coo, 0, nrows, &S, "mirrored");
        kryl_csr_free(&S);
    }
    kryl_csr_free(&R);
    kryl_coo_free(&coo);
}

/* The first bad entry and the first overflowing duplicates, on any thread count. */
static void check_errors(void)
{
    kryl_coo coo = {.nrows = 600, .ncols = 600};
    for (int64_t i = 0; i < 600; i++) CHECK_OK(kryl_coo_push(&coo, i, i, 1.0));
    coo.cols[450] = 600;
    coo.rows[520] = -1;
    for (int threads = 1; threads <= 4; threads++) {
        kryl_csr A;
        CHECK_STATUS(kryl_csr_from_coo_on(&A, &coo, 600, 0, 600, threads),
                     KRYL_ERR_INDEX_OUT_OF_RANGE);
        CHECK(strstr(kryl_last_error(), "entry 450 at (450, 600)") != NULL, "%d threads: %s",
              threads, kryl_last_error());
    }
    coo.cols[450] = 450;
    coo.rows[520] = 520;
    /* rows 300 and 500 overflow; 300 is named */
    CHECK_OK(kryl_coo_push(&coo, 500, 500, 1.7e308));
    CHECK_OK(kryl_coo_push(&coo, 500, 500, 1.7e308));
    CHECK_OK(kryl_coo_push(&coo, 300, 300, -1.7e308));
    CHECK_OK(kryl_coo_push(&coo, 300, 300, -1.7e308));
    for (int threads = 1; threads <= 4; threads++) {
        kryl_csr A;
        CHECK_STATUS(kryl_csr_from_coo_on(&A, &coo, 600, 0, 600, threads), KRYL_ERR_INVALID_VALUE);
        CHECK(strstr(kryl_last_error(),
                     "the duplicates of entry (301, 301) (1-based) sum to -inf") != NULL,
              "%d threads: %s", threads, kryl_last_error());
        int64_t row, col;
        CHECK(kryl_csr_overflow(&row, &col) && row == 300 && col == 300, "overflow at (%lld, %lld)",
              (long long)row, (long long)col);
    }
    kryl_coo_free(&coo);
}

int main(void)
{
    check_orders(0, 0, 5);
    check_orders(0, 1, 1);
    check_orders(0, 7, 7);
    check_orders(0, 1000, 1000);
    check_orders(0, 20000, 20000);
    check_orders(300, 5000, 80);
    check_errors();
    return test_summary("test_csr_build");
}
