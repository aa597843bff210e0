/* Symmetrised (A + A^T) adjacency of a square CSR matrix, the input of
 * RCM, AMD and coloring; validation shared by the orderings. */
#include "order/graph.h"

#include <math.h>
#include <stdlib.h>

#include "core/csr.h"
#include "core/error.h"
#include "core/host_threads.h"

kryl_status order_check_matrix(const kryl_csr *A, const char *caller)
{
    if (A == NULL || A->row_ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "%s: the matrix is NULL", caller);
    if (A->nrows_global != A->ncols)
        return KRYL_ERROR(KRYL_ERR_NOT_SQUARE,
                          "%s: an ordering needs a square matrix, got %lld x %lld", caller,
                          (long long)A->nrows_global, (long long)A->ncols);
    if (A->row_begin != 0 || A->nrows != A->nrows_global)
        return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                          "%s: an ordering needs all rows of the matrix, got rows [%lld, %lld) "
                          "of %lld",
                          caller, (long long)A->row_begin, (long long)(A->row_begin + A->nrows),
                          (long long)A->nrows_global);
    if (A->nrows > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW, "%s: %lld rows do not fit the int32 permutation",
                          caller, (long long)A->nrows);
    return KRYL_SUCCESS;
}

/* Whether entry e of row i is an edge: off the diagonal and, with tau > 0,
 * |a_ij| > tau * sqrt(|a_ii a_jj|) (Li & Saad sec. 5.3 drop small couplings). */
static bool keep(const kryl_csr *A, const double *diag, double tau, int64_t i, int64_t e)
{
    const int64_t j = A->col_idx[e];
    if (j == i) return false;
    return tau == 0.0 || fabs(A->values[e]) > tau * sqrt(fabs(diag[i] * diag[j]));
}

/* Union of the kept entries of row i and of row i of the transpose tptr/tadj
 * (both ascending) into out (NULL: count only); returns its size. */
static int64_t row_union(const kryl_csr *A, const double *diag, double tau, int64_t i,
                         const int64_t *tptr, const int32_t *tadj, int32_t *out)
{
    int64_t e = A->row_ptr[i], t = tptr[i], count = 0;
    const int64_t e_end = A->row_ptr[i + 1], t_end = tptr[i + 1];
    int32_t last = -1;
    /* merge two ascending lists, dropping repeats */
    while (e < e_end || t < t_end) {
        if (e < e_end && !keep(A, diag, tau, i, e)) {
            e++;
            continue;
        }
        int32_t next;
        if (t >= t_end || (e < e_end && A->col_idx[e] <= tadj[t]))
            next = A->col_idx[e++];
        else
            next = tadj[t++];
        if (next == last) continue;
        if (out != NULL) out[count] = next;
        count++;
        last = next;
    }
    return count;
}

kryl_status order_graph_build_on(const kryl_csr *A, double tau, int threads, order_graph *g)
{
    const int64_t n = A->nrows;
    g->n = n;
    g->adj = NULL;
    g->ptr = calloc((size_t)n + 1, sizeof *g->ptr);
    int64_t *tptr = calloc((size_t)n + 2, sizeof *tptr);
    double *diag = malloc(((size_t)n + 1) * sizeof *diag);
    int32_t *tadj = NULL;
    kryl_status st = KRYL_SUCCESS;
    if (g->ptr == NULL || tptr == NULL || diag == NULL) goto oom;
    kryl_csr_diagonal(A, diag);
    /* tptr[j + 2] = kept entries in column j (shifted for the fill below) */
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            if (keep(A, diag, tau, i, e)) tptr[A->col_idx[e] + 2]++;
    for (int64_t j = 0; j < n; j++) tptr[j + 2] += tptr[j + 1];
    tadj = malloc(((size_t)tptr[n + 1] + 1) * sizeof *tadj);
    if (tadj == NULL) goto oom;
    /* transpose by counting sort: rows arrive ascending, so columns of A^T sort */
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            if (keep(A, diag, tau, i, e)) tadj[tptr[A->col_idx[e] + 1]++] = (int32_t)i;
    /* ptr = prefix sums of |row i of A  union  row i of A^T| */
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) g->ptr[i + 1] = row_union(A, diag, tau, i, tptr, tadj, NULL);
    kryl_prefix_sum(g->ptr + 1, n, threads);
    g->adj = malloc(((size_t)g->ptr[n] + 1) * sizeof *g->adj);
    if (g->adj == NULL) goto oom;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) row_union(A, diag, tau, i, tptr, tadj, g->adj + g->ptr[i]);
    goto done;
oom:
    st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                    "ordering: cannot allocate the graph of a %lld-row matrix with %lld entries",
                    (long long)n, (long long)kryl_csr_nnz(A));
    order_graph_free(g);
done:
    free(tptr);
    free(tadj);
    free(diag);
    return st;
}

kryl_status order_graph_build(const kryl_csr *A, double tau, order_graph *g)
{
    return order_graph_build_on(A, tau, 1, g);
}

void order_graph_free(order_graph *g)
{
    free(g->ptr);
    free(g->adj);
    g->ptr = NULL;
    g->adj = NULL;
}

kryl_status order_inverse(const int32_t *perm, int64_t n, int32_t **inv)
{
    *inv = NULL;
    if (perm == NULL) return KRYL_SUCCESS;
    KRYL_TRY(kryl_order_check_perm(perm, n));
    int32_t *v = malloc(((size_t)n + 1) * sizeof *v);
    if (v == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "ordering: cannot allocate %lld indices",
                          (long long)n);
    /* v = perm^{-1} */
    for (int64_t i = 0; i < n; i++) v[perm[i]] = (int32_t)i;
    *inv = v;
    return KRYL_SUCCESS;
}
