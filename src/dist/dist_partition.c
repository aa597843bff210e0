/* Partitions of a matrix's rows over the ranks: contiguous ranges balanced
 * by nonzeros (Cevahir et al. 2009, section 4.2: the SpMV's work is its
 * nonzeros), or a graph partition (METIS, src/order/partition.c) turned
 * into a global renumbering in which every rank owns a contiguous range. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"
#include "order/order.h"

void kryl_partition_contiguous(const int64_t *row_ptr, int64_t n, int size, int64_t *begin)
{
    int64_t nnz = row_ptr[n], i = 0;
    begin[0] = 0;
    for (int p = 1; p < size; p++) {
        /* first row i whose preceding entries reach p nnz / size */
        int64_t target = (int64_t)((double)nnz * (double)p / (double)size);
        while (i < n && row_ptr[i] < target) i++;
        begin[p] = i < begin[p - 1] ? begin[p - 1] : i;
    }
    begin[size] = n;
}

kryl_status kryl_partition_graph(const kryl_csr *A, int size, int64_t *orig, int64_t *begin)
{
    int64_t n = A->nrows;
    int32_t *part = malloc((size_t)(n > 0 ? n : 1) * sizeof *part);
    if (part == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a partition of %lld rows",
                          (long long)n);
    kryl_status st = n > 0 ? kryl_partition_metis(A, size, part) : KRYL_SUCCESS;
    if (st == KRYL_SUCCESS) {
        /* counting sort by part, stable: orig lists part 0's rows, then part 1's, ... */
        memset(begin, 0, ((size_t)size + 1) * sizeof *begin);
        for (int64_t i = 0; i < n; i++) begin[part[i] + 1]++;
        for (int p = 0; p < size; p++) begin[p + 1] += begin[p];
        int64_t *next = malloc(((size_t)size + 1) * sizeof *next);
        if (next == NULL) {
            free(part);
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate %d part offsets", size);
        }
        memcpy(next, begin, ((size_t)size + 1) * sizeof *next);
        for (int64_t i = 0; i < n; i++) orig[next[part[i]]++] = i;
        free(next);
    }
    free(part);
    return st;
}

kryl_status kryl_csr_renumber(const kryl_csr *A, const int64_t *orig, kryl_csr *B)
{
    int64_t n = A->nrows;
    int32_t *inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
    if (inv == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a renumbering of %lld rows",
                          (long long)n);
    /* inv[orig[k]] = k: an original index's new one */
    for (int64_t k = 0; k < n; k++) inv[orig[k]] = (int32_t)k;
    kryl_status st = kryl_csr_alloc(B, n, A->ncols, kryl_csr_nnz(A));
    if (st == KRYL_SUCCESS) {
        for (int64_t k = 0; k < n; k++) {
            int64_t i = orig[k], len = A->row_ptr[i + 1] - A->row_ptr[i];
            B->row_ptr[k + 1] = B->row_ptr[k] + len;
            /* row k of P A P^T: row orig[k] of A, columns j -> inv[j] */
            for (int64_t e = 0; e < len; e++) {
                B->col_idx[B->row_ptr[k] + e] = inv[A->col_idx[A->row_ptr[i] + e]];
                B->values[B->row_ptr[k] + e] = A->values[A->row_ptr[i] + e];
            }
        }
        st = kryl_csr_sort_and_sum(B);
        if (st != KRYL_SUCCESS) kryl_csr_free(B);
    }
    free(inv);
    return st;
}
