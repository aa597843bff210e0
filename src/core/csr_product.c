/* Matrix-producing operations on host CSR: the transpose and the sparse
 * product, as algebraic multigrid builds its transfer and coarse matrices. */
#include <stdlib.h>
#include <string.h>

#include "core/csr.h"
#include "core/error.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"

kryl_status kryl_csr_transpose_on(const kryl_csr *A, kryl_csr *T, int threads)
{
    const int64_t nnz = kryl_csr_nnz(A), m = A->ncols;
    /* A's rows in `parts` runs, each counted and placed by one thread; the
     * counters (a part a column) are bounded by A's entries */
    int64_t bound = m > 0 ? nnz / m : 1;
    int parts = threads < KRYL_HOST_MAX_TEAM ? threads : KRYL_HOST_MAX_TEAM;
    if (parts > bound) parts = (int)bound;
    if (parts < 1) parts = 1;
    KRYL_TRY(kryl_csr_alloc(T, m, A->nrows, nnz));
    int32_t *at = kryl_huge_calloc((size_t)parts * (size_t)m + 1, sizeof *at);
    if (at == NULL) {
        kryl_csr_free(T);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "transpose: cannot allocate %d x %lld counters",
                          parts, (long long)m);
    }
    /* at[p][j] = part p's entries in column j */
    KRYL_HOST_PARALLEL_STATIC(parts)
    for (int p = 0; p < parts; p++) {
        int32_t *count = at + (size_t)p * m;
        for (int64_t k = A->row_ptr[A->nrows * p / parts];
             k < A->row_ptr[A->nrows * (p + 1) / parts]; k++)
            count[A->col_idx[k]]++;
    }
    /* T's row j: part 0's entries of column j, then part 1's, ...: at[p][j] = where part p's
     * begin in it, T's row lengths summed into its offsets */
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t j = 0; j < m; j++) {
        int32_t before = 0;
        for (int p = 0; p < parts; p++) {
            const int32_t count = at[(size_t)p * m + j];
            at[(size_t)p * m + j] = before;
            before += count;
        }
        T->row_ptr[j + 1] = before;
    }
    kryl_prefix_sum(T->row_ptr + 1, m, threads);
    /* t_ji = a_ij, each part's rows in order: T's rows come out sorted, the same on any threads */
    KRYL_HOST_PARALLEL_STATIC(parts)
    for (int p = 0; p < parts; p++) {
        int32_t *next = at + (size_t)p * m;
        for (int64_t i = A->nrows * p / parts; i < A->nrows * (p + 1) / parts; i++)
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                const int32_t j = A->col_idx[k];
                const int64_t slot = T->row_ptr[j] + next[j]++;
                T->col_idx[slot] = (int32_t)i;
                T->values[slot] = A->values[k];
            }
    }
    free(at);
    return KRYL_SUCCESS;
}

kryl_status kryl_csr_transpose(const kryl_csr *A, kryl_csr *T)
{
    return kryl_csr_transpose_on(A, T, 1);
}

kryl_status kryl_csr_split_columns(const kryl_csr *A, int64_t lo, int64_t hi, int threads,
                                   kryl_csr *in, kryl_csr *out)
{
    const int64_t n = A->nrows;
    KRYL_TRY(kryl_csr_alloc(in, n, hi - lo, 0));
    /* row i's entries in the block, then (a prefix sum) in's offsets */
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            in->row_ptr[i + 1] += A->col_idx[k] >= lo && A->col_idx[k] < hi;
    kryl_prefix_sum(in->row_ptr + 1, n, threads);
    const int64_t nnz = in->row_ptr[n];
    int32_t *col = realloc(in->col_idx, (size_t)(nnz > 0 ? nnz : 1) * sizeof *col);
    double *val = col ? realloc(in->values, (size_t)(nnz > 0 ? nnz : 1) * sizeof *val) : NULL;
    if (col) in->col_idx = col;
    if (val) in->values = val;
    /* grown from one entry: fresh memory, advised before its first write */
    if (col && val) {
        kryl_advise_huge_pages(in->col_idx, (size_t)nnz * sizeof *col);
        kryl_advise_huge_pages(in->values, (size_t)nnz * sizeof *val);
    }
    kryl_status st = col && val
                         ? KRYL_SUCCESS
                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                      "cannot allocate a block of %lld entries", (long long)nnz);
    if (st == KRYL_SUCCESS && out != NULL)
        st = kryl_csr_alloc(out, n, A->ncols, kryl_csr_nnz(A) - nnz);
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(in);
        return st;
    }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        /* the entries outside the block before row i */
        int64_t a = in->row_ptr[i], b = A->row_ptr[i] - a;
        if (out != NULL) out->row_ptr[i + 1] = A->row_ptr[i + 1] - in->row_ptr[i + 1];
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if (A->col_idx[k] >= lo && A->col_idx[k] < hi) {
                in->col_idx[a] = (int32_t)(A->col_idx[k] - lo);
                in->values[a++] = A->values[k];
            } else if (out != NULL) {
                out->col_idx[b] = A->col_idx[k];
                out->values[b++] = A->values[k];
            }
    }
    return KRYL_SUCCESS;
}

bool kryl_csr_same_pattern(const kryl_csr *A, const kryl_csr *B)
{
    const int64_t nnz = kryl_csr_nnz(A);
    return A->nrows == B->nrows && kryl_csr_nnz(B) == nnz &&
           memcmp(A->row_ptr, B->row_ptr, ((size_t)A->nrows + 1) * sizeof *A->row_ptr) == 0 &&
           (nnz == 0 || memcmp(A->col_idx, B->col_idx, (size_t)nnz * sizeof *A->col_idx) == 0);
}

void kryl_csr_average(kryl_csr *A, const double *b, int threads)
{
    KRYL_HOST_PARALLEL_STATIC(threads)
    for (int64_t k = 0; k < kryl_csr_nnz(A); k++) A->values[k] = 0.5 * (A->values[k] + b[k]);
}

int64_t kryl_csr_mirror_values(const kryl_csr *A, const kryl_csr *far, double *mirror, int threads)
{
    const int64_t lo = A->row_begin, hi = lo + A->nrows;
    int64_t absent = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, +, absent)
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            const int64_t j = A->col_idx[k];
            /* a_ji: in A's row j - lo where A holds row j, else in far's row i */
            const kryl_csr *M = j >= lo && j < hi ? A : far;
            const int64_t at = M == A      ? kryl_csr_find(A, j - lo, lo + i)
                               : M != NULL ? kryl_csr_find(far, i, j)
                                           : -1;
            mirror[k] = at >= 0 ? M->values[at] : 0.0;
            absent += at < 0;
        }
    return absent;
}

/* Row i of A + B (rows sorted) into C's slots from `out`, or only counted
 * where C is NULL: the entries it has. */
static int64_t sum_row(const kryl_csr *A, const kryl_csr *B, int64_t i, kryl_csr *C, int64_t out)
{
    int64_t a = A->row_ptr[i], b = B->row_ptr[i], count = 0;
    const int64_t a_end = A->row_ptr[i + 1], b_end = B->row_ptr[i + 1];
    while (a < a_end || b < b_end) {
        const bool take_a = b == b_end || (a < a_end && A->col_idx[a] <= B->col_idx[b]);
        const bool take_b = a == a_end || (b < b_end && B->col_idx[b] <= A->col_idx[a]);
        if (C != NULL) {
            /* c_ij = a_ij + b_ij, either absent */
            C->col_idx[out + count] = take_a ? A->col_idx[a] : B->col_idx[b];
            C->values[out + count] = take_a && take_b ? A->values[a] + B->values[b]
                                     : take_a         ? A->values[a]
                                                      : B->values[b];
        }
        a += take_a;
        b += take_b;
        count++;
    }
    return count;
}

kryl_status kryl_csr_add_on(const kryl_csr *A, const kryl_csr *B, kryl_csr *C, int threads)
{
    if (A->nrows != B->nrows || A->ncols != B->ncols)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH, "sum: %lld x %lld + %lld x %lld",
                          (long long)A->nrows, (long long)A->ncols, (long long)B->nrows,
                          (long long)B->ncols);
    const int64_t n = A->nrows;
    KRYL_TRY(kryl_csr_alloc(C, n, A->ncols, kryl_csr_nnz(A) + kryl_csr_nnz(B)));
    C->row_begin = A->row_begin;
    C->nrows_global = A->nrows_global;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) C->row_ptr[i + 1] = sum_row(A, B, i, NULL, 0);
    kryl_prefix_sum(C->row_ptr + 1, n, threads);
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) sum_row(A, B, i, C, C->row_ptr[i]);
    return KRYL_SUCCESS;
}

/* Distinct columns of row i of A B; mark[] holds the last row that saw each column. */
static int64_t product_row_count(const kryl_csr *A, const kryl_csr *B, int64_t i, int64_t *mark)
{
    int64_t count = 0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int32_t j = A->col_idx[k];
        for (int64_t l = B->row_ptr[j]; l < B->row_ptr[j + 1]; l++)
            if (mark[B->col_idx[l]] != i) {
                mark[B->col_idx[l]] = i;
                count++;
            }
    }
    return count;
}

/* Row i of C = A B into C's slots from C->row_ptr[i]; pos[c] is the slot of
 * column c where that slot lies in this row so far and holds c. */
static void product_row_fill(const kryl_csr *A, const kryl_csr *B, kryl_csr *C, int64_t i,
                             int64_t *pos)
{
    int64_t begin = C->row_ptr[i], end = begin;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int32_t j = A->col_idx[k];
        double a = A->values[k];
        for (int64_t l = B->row_ptr[j]; l < B->row_ptr[j + 1]; l++) {
            /* c_ic += a_ij b_jc */
            int32_t c = B->col_idx[l];
            int64_t at = pos[c];
            if (at < begin || at >= end || C->col_idx[at] != c) {
                pos[c] = end;
                C->col_idx[end] = c;
                C->values[end++] = a * B->values[l];
            } else {
                C->values[at] += a * B->values[l];
            }
        }
    }
    kryl_csr_sort_row(C->col_idx + begin, C->values + begin, end - begin);
}

kryl_status kryl_csr_multiply(const kryl_csr *A, const kryl_csr *B, kryl_csr *C, int threads)
{
    memset(C, 0, sizeof *C);
    if (A->ncols != B->nrows)
        return KRYL_ERROR(KRYL_ERR_DIMENSION_MISMATCH, "product: A is %lld x %lld, B %lld x %lld",
                          (long long)A->nrows, (long long)A->ncols, (long long)B->nrows,
                          (long long)B->ncols);
    if (threads < 1) threads = 1;
    size_t width = (size_t)(B->ncols > 0 ? B->ncols : 1);
    int64_t *work = kryl_huge_malloc((size_t)threads * width * sizeof *work);
    int64_t *count = kryl_huge_malloc(((size_t)A->nrows + 1) * sizeof *count);
    if (work == NULL || count == NULL) {
        free(work);
        free(count);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "product: cannot allocate the workspace of %d thread(s) x %lld columns",
                          threads, (long long)B->ncols);
    }
    for (size_t k = 0; k < (size_t)threads * width; k++) work[k] = -1;
    /* pass 1: the entries of each row */
    KRYL_HOST_PARALLEL(threads)
    {
        int64_t *mark = work + (size_t)kryl_host_thread() * width;
        KRYL_HOST_FOR
        for (int64_t i = 0; i < A->nrows; i++) count[i] = product_row_count(A, B, i, mark);
    }
    int64_t nnz = 0;
    for (int64_t i = 0; i < A->nrows; i++) nnz += count[i];
    kryl_status st = kryl_csr_alloc(C, A->nrows, B->ncols, nnz);
    if (st == KRYL_SUCCESS) {
        for (int64_t i = 0; i < A->nrows; i++) C->row_ptr[i + 1] = C->row_ptr[i] + count[i];
        /* pass 2: the values, each row summed in A's then B's order */
        KRYL_HOST_PARALLEL(threads)
        {
            int64_t *pos = work + (size_t)kryl_host_thread() * width;
            KRYL_HOST_FOR
            for (int64_t i = 0; i < A->nrows; i++) product_row_fill(A, B, C, i, pos);
        }
    }
    free(work);
    free(count);
    return st;
}
