/* Building CSR from entries in any order: rows counted and filled, each row
 * sorted and its duplicates summed, on the host's threads.  Every row is
 * sorted by column and, among repeats of a column, by value, so the matrix
 * (and the order its duplicates are summed in) depends only on the set of
 * entries: not on their order, nor on the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csr.h"
#include "core/error.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"

/* The order of doubles as the order of these integers (-0 before +0). */
static inline int64_t value_key(double v)
{
    int64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits < 0 ? bits ^ INT64_MAX : bits;
}

/* Entry (c, v) goes after (col, val): by column, then by value. */
static inline bool after(int32_t col, double val, int32_t c, double v)
{
    return col > c || (col == c && value_key(val) > value_key(v));
}

/* Insertion sort for short rows, heap sort (in place, no allocation) beyond. */
static void sift_down(int32_t *col, double *val, int64_t root, int64_t n)
{
    for (int64_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && after(col[child + 1], val[child + 1], col[child], val[child])) child++;
        if (!after(col[child], val[child], col[root], val[root])) return;
        int32_t c = col[root];
        col[root] = col[child];
        col[child] = c;
        double v = val[root];
        val[root] = val[child];
        val[child] = v;
    }
}

void kryl_csr_sort_row(int32_t *col, double *val, int64_t n)
{
    if (n <= 32) {
        for (int64_t i = 1; i < n; i++) {
            int32_t c = col[i];
            double v = val[i];
            int64_t j = i;
            for (; j > 0 && after(col[j - 1], val[j - 1], c, v); j--) {
                col[j] = col[j - 1];
                val[j] = val[j - 1];
            }
            col[j] = c;
            val[j] = v;
        }
        return;
    }
    /* rows often come sorted: one pass says so before a heap sort */
    bool sorted = true;
    for (int64_t i = 1; i < n && sorted; i++)
        sorted = !after(col[i - 1], val[i - 1], col[i], val[i]);
    if (sorted) return;
    for (int64_t i = n / 2 - 1; i >= 0; i--) sift_down(col, val, i, n);
    for (int64_t end = n - 1; end > 0; end--) {
        int32_t c = col[0];
        col[0] = col[end];
        col[end] = c;
        double v = val[0];
        val[0] = val[end];
        val[end] = v;
        sift_down(col, val, 0, end);
    }
}

static _Thread_local int64_t overflow_row = -1, overflow_col = -1;

bool kryl_csr_overflow(int64_t *row, int64_t *col)
{
    *row = overflow_row;
    *col = overflow_col;
    return overflow_row >= 0;
}

/* Sort row i in place and sum its repeated columns at its start; returns
 * the entries kept, or -1 - (the column) where a sum is not finite (that
 * sum left first in the row). */
static int64_t sort_and_sum_row(kryl_csr *A, int64_t i)
{
    const int64_t begin = A->row_ptr[i], end = A->row_ptr[i + 1];
    int32_t *col = A->col_idx;
    double *val = A->values;
    kryl_csr_sort_row(col + begin, val + begin, end - begin);
    int64_t out = begin;
    for (int64_t k = begin; k < end; k++) {
        /* a_ij += v for a repeated column, else a new entry */
        if (out > begin && col[out - 1] == col[k]) {
            val[out - 1] += val[k];
            if (!isfinite(val[out - 1])) {
                /* the sum that failed, where the message reads it */
                val[begin] = val[out - 1];
                return -1 - col[k];
            }
        } else {
            col[out] = col[k];
            val[out++] = val[k];
        }
    }
    return out - begin;
}

/* Move the rows' kept entries (kept[i] at row_ptr[i]) together and make
 * row_ptr their offsets: each thread's rows close up at the start of its
 * range, then the ranges move left in order (each only over ground the
 * ones before it left). */
static void close_up(kryl_csr *A, int64_t *kept, int threads)
{
    const int64_t n = A->nrows;
    if (threads > KRYL_HOST_MAX_TEAM) threads = KRYL_HOST_MAX_TEAM;
    int64_t moved[KRYL_HOST_MAX_TEAM + 1]; /* moved[t + 1]: the entries range t keeps */
    int used = 1;
    KRYL_HOST_PARALLEL(threads)
    {
        const int t = kryl_host_thread(), nt = kryl_host_team();
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        int64_t at = A->row_ptr[lo];
        for (int64_t i = lo; i < hi; i++) {
            memmove(A->col_idx + at, A->col_idx + A->row_ptr[i], (size_t)kept[i] * sizeof(int32_t));
            memmove(A->values + at, A->values + A->row_ptr[i], (size_t)kept[i] * sizeof(double));
            at += kept[i];
        }
        moved[t + 1] = at - A->row_ptr[lo];
        if (t == 0) used = nt;
    }
    moved[0] = 0;
    for (int t = 0; t < used; t++) {
        const int64_t from = A->row_ptr[n * t / used], count = moved[t + 1];
        moved[t + 1] += moved[t];
        memmove(A->col_idx + moved[t], A->col_idx + from, (size_t)count * sizeof(int32_t));
        memmove(A->values + moved[t], A->values + from, (size_t)count * sizeof(double));
    }
    /* row_ptr[i + 1] = kept[0] + ... + kept[i] */
    kryl_prefix_sum(kept, n, threads);
    memcpy(A->row_ptr + 1, kept, (size_t)n * sizeof *kept);
}

kryl_status kryl_csr_sort_and_sum_on(kryl_csr *A, int threads)
{
    overflow_row = overflow_col = -1;
    const int64_t n = A->nrows, nnz = A->row_ptr[n];
    int64_t *kept = kryl_huge_malloc((size_t)(n > 0 ? n : 1) * sizeof *kept);
    if (kept == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld row counters",
                          (long long)n);
    /* the first (row, column) whose duplicates overflow, as row * 2^32 + column */
    int64_t first = INT64_MAX, total = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, first)
    for (int64_t i = 0; i < n; i++) {
        kept[i] = sort_and_sum_row(A, i);
        if (kept[i] < 0 && i * ((int64_t)1 << 32) + (-1 - kept[i]) < first)
            first = i * ((int64_t)1 << 32) + (-1 - kept[i]);
    }
    if (first != INT64_MAX) {
        free(kept);
        overflow_row = A->row_begin + first / ((int64_t)1 << 32);
        overflow_col = first % ((int64_t)1 << 32);
        return KRYL_ERROR(KRYL_ERR_INVALID_VALUE,
                          "the duplicates of entry (%lld, %lld) (1-based) sum to %g; expected a "
                          "finite value",
                          (long long)overflow_row + 1, (long long)overflow_col + 1,
                          A->values[A->row_ptr[first / ((int64_t)1 << 32)]]);
    }
    KRYL_HOST_PARALLEL_REDUCE(threads, +, total)
    for (int64_t i = 0; i < n; i++) total += kept[i];
    if (total < nnz) close_up(A, kept, threads);
    free(kept);
    return KRYL_SUCCESS;
}

kryl_status kryl_csr_sort_and_sum(kryl_csr *A) { return kryl_csr_sort_and_sum_on(A, 1); }

void kryl_prefix_sum(int64_t *a, int64_t n, int threads)
{
    if (threads > KRYL_HOST_MAX_TEAM) threads = KRYL_HOST_MAX_TEAM;
    int64_t carry[KRYL_HOST_MAX_TEAM + 1] = {0}; /* carry[t + 1]: the sum of range t */
    KRYL_HOST_PARALLEL(threads)
    {
        const int t = kryl_host_thread(), nt = kryl_host_team();
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        int64_t sum = 0;
        for (int64_t i = lo; i < hi; i++) sum += a[i];
        carry[t + 1] = sum;
        KRYL_HOST_BARRIER
        KRYL_HOST_SINGLE
        for (int s = 0; s < nt; s++) carry[s + 1] += carry[s];
        sum = carry[t];
        for (int64_t i = lo; i < hi; i++) {
            sum += a[i];
            a[i] = sum;
        }
    }
}

/* The first entry outside rows [row_begin, row_end) or the columns (count if none). */
static int64_t first_outside(const kryl_coo *coo, int64_t row_begin, int64_t row_end, int threads)
{
    int64_t first = coo->count;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, first)
    for (int64_t k = 0; k < coo->count; k++)
        if ((coo->rows[k] < row_begin || coo->rows[k] >= row_end || coo->cols[k] < 0 ||
             coo->cols[k] >= coo->ncols) &&
            k < first)
            first = k;
    return first;
}

/* Whether the entries come row by row (rows never decreasing). */
static bool rows_ascending(const kryl_coo *coo, int threads)
{
    int64_t descents = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, +, descents)
    for (int64_t k = 1; k < coo->count; k++) descents += coo->rows[k] < coo->rows[k - 1];
    return descents == 0;
}

/* Entries row by row: row i starts at the first entry of a row >= i. */
static void offsets_of_ascending_rows(kryl_csr *A, const kryl_coo *coo, int threads)
{
    const int64_t count = coo->count, begin = A->row_begin;
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k <= count; k++) {
        /* entry k opens rows (row of k-1, row of k]: those between are empty */
        const int64_t from = k == 0 ? 0 : coo->rows[k - 1] - begin + 1;
        const int64_t to = k == count ? A->nrows : coo->rows[k] - begin;
        for (int64_t i = from; i <= to; i++) A->row_ptr[i] = k;
    }
}

/* Entries in any order: row_ptr counts the rows' entries, next[i] the next
 * place in row i; the entries of one row land in any order (threads race
 * for the places), which the sort by column and value then undoes. */
static kryl_status fill_any_order(kryl_csr *A, const kryl_coo *coo, int threads)
{
    const int64_t n = A->nrows, begin = A->row_begin;
    int64_t *next = kryl_huge_malloc((size_t)(n > 0 ? n : 1) * sizeof *next);
    if (next == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %lld row counters",
                          (long long)n);
    int64_t *count = A->row_ptr + 1;
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k < coo->count; k++) {
        const int64_t i = coo->rows[k] - begin;
        if (threads > 1) {
            KRYL_HOST_ATOMIC
            count[i]++;
        } else
            count[i]++;
    }
    kryl_prefix_sum(count, n, threads);
    memcpy(next, A->row_ptr, (size_t)n * sizeof *next);
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k < coo->count; k++) {
        const int64_t i = coo->rows[k] - begin;
        int64_t at;
        if (threads > 1) {
            KRYL_HOST_ATOMIC_CAPTURE
            at = next[i]++;
        } else
            at = next[i]++;
        A->col_idx[at] = (int32_t)coo->cols[k];
        A->values[at] = coo->values[k];
    }
    free(next);
    return KRYL_SUCCESS;
}

/* kryl_csr_rows_from_coo, taking coo's values over (take) or copying them. */
static kryl_status rows_from_coo(kryl_csr *A, kryl_coo *coo, int64_t nrows_global,
                                 int64_t row_begin, int64_t row_end, int threads, bool take)
{
    memset(A, 0, sizeof *A);
    KRYL_TRY(kryl_csr_check_shape(nrows_global, coo->ncols, row_begin, row_end));
    const int64_t bad = first_outside(coo, row_begin, row_end, threads);
    if (bad < coo->count)
        return KRYL_ERROR(KRYL_ERR_INDEX_OUT_OF_RANGE,
                          "entry %lld at (%lld, %lld) is outside rows [%lld, %lld) and "
                          "columns [0, %lld)",
                          (long long)bad, (long long)coo->rows[bad], (long long)coo->cols[bad],
                          (long long)row_begin, (long long)row_end, (long long)coo->ncols);
    KRYL_TRY(kryl_csr_alloc(A, row_end - row_begin, coo->ncols, coo->count));
    A->nrows_global = nrows_global;
    A->row_begin = row_begin;
    if (!rows_ascending(coo, threads)) {
        kryl_status st = fill_any_order(A, coo, threads);
        if (st != KRYL_SUCCESS) kryl_csr_free(A);
        return st;
    }
    /* entries row by row stay where they are: their values are A's */
    offsets_of_ascending_rows(A, coo, threads);
    double *values =
        take && coo->count > 0 ? realloc(coo->values, (size_t)coo->count * sizeof *values) : NULL;
    if (values != NULL) {
        free(A->values); /* never touched: no page of it was used */
        A->values = values;
        coo->values = NULL;
        coo->capacity = 0;
    }
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k < coo->count; k++) {
        A->col_idx[k] = (int32_t)coo->cols[k];
        if (values == NULL) A->values[k] = coo->values[k];
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_csr_rows_from_coo(kryl_csr *A, kryl_coo *coo, int64_t nrows_global,
                                   int64_t row_begin, int64_t row_end, int threads)
{
    return rows_from_coo(A, coo, nrows_global, row_begin, row_end, threads, true);
}

kryl_status kryl_csr_from_coo_on(kryl_csr *A, const kryl_coo *coo, int64_t nrows_global,
                                 int64_t row_begin, int64_t row_end, int threads)
{
    KRYL_TRY(rows_from_coo(A, (kryl_coo *)coo, nrows_global, row_begin, row_end, threads, false));
    kryl_status st = kryl_csr_sort_and_sum_on(A, threads);
    if (st != KRYL_SUCCESS) kryl_csr_free(A);
    return st;
}

kryl_status kryl_csr_from_coo(kryl_csr *A, const kryl_coo *coo, int64_t nrows_global,
                              int64_t row_begin, int64_t row_end)
{
    return kryl_csr_from_coo_on(A, coo, nrows_global, row_begin, row_end, 1);
}
