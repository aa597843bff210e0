/* Strength of connection for smoothed aggregation (Vanek, Mandel & Brezina
 * 1996, eq. 3.1): j is strongly coupled to i when
 * |a_ij| >= theta sqrt(|a_ii a_jj|). */
#include <math.h>
#include <stdlib.h>

#include "amg/amg.h"
#include "amg/amg_aggregate_rules.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"

void amg_graph_free(amg_graph *G)
{
    free(G->row_ptr);
    free(G->col_idx);
    G->row_ptr = NULL;
    G->col_idx = NULL;
}

static kryl_status graph_alloc(amg_graph *G, int64_t n, int64_t nnz)
{
    G->n = n;
    G->row_ptr = kryl_huge_calloc((size_t)n + 1, sizeof *G->row_ptr);
    G->col_idx = kryl_huge_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *G->col_idx);
    if (G->row_ptr == NULL || G->col_idx == NULL) {
        amg_graph_free(G);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "amg: cannot allocate a strength graph of %lld rows", (long long)n);
    }
    return KRYL_SUCCESS;
}

/* Whether a_ij (stored at k of row i) is a strong coupling. */
static bool strong(const kryl_csr *A, const double *diag, double theta, int64_t i, int64_t k)
{
    int32_t j = A->col_idx[k];
    return j != i && amg_strong(A->values[k], diag[i], diag[j], theta);
}

/* G = S + S' (pattern union of two sorted graphs of the same size). */
static kryl_status symmetrize(amg_graph *S, int threads, amg_graph *G)
{
    kryl_csr pattern = {.nrows = S->n,
                        .ncols = S->n,
                        .nrows_global = S->n,
                        .row_ptr = S->row_ptr,
                        .col_idx = S->col_idx};
    int64_t nnz = S->row_ptr[S->n];
    pattern.values = kryl_huge_calloc((size_t)(nnz > 0 ? nnz : 1), sizeof(double));
    if (pattern.values == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld entries",
                          (long long)nnz);
    kryl_csr T;
    kryl_status st = kryl_csr_transpose_on(&pattern, &T, threads);
    free(pattern.values);
    KRYL_TRY(st);
    st = graph_alloc(G, S->n, nnz + kryl_csr_nnz(&T));
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(&T);
        return st;
    }
    /* merge rows i of S and S' (both sorted): count, then fill */
    for (int pass = 0; pass < 2; pass++) {
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < S->n; i++) {
            int64_t a = S->row_ptr[i], ae = S->row_ptr[i + 1];
            int64_t b = T.row_ptr[i], be = T.row_ptr[i + 1];
            int64_t out = pass ? G->row_ptr[i] : 0;
            while (a < ae || b < be) {
                int32_t ca = a < ae ? S->col_idx[a] : INT32_MAX;
                int32_t cb = b < be ? T.col_idx[b] : INT32_MAX;
                int32_t c = ca < cb ? ca : cb;
                if (pass) G->col_idx[out] = c;
                out++;
                a += ca == c;
                b += cb == c;
            }
            if (!pass) G->row_ptr[i + 1] = out;
        }
        if (!pass)
            for (int64_t i = 0; i < S->n; i++) G->row_ptr[i + 1] += G->row_ptr[i];
    }
    kryl_csr_free(&T);
    return KRYL_SUCCESS;
}

kryl_status amg_strength(const kryl_csr *A, double theta, bool symmetric, int threads, amg_graph *G)
{
    int64_t n = A->nrows;
    double *diag = kryl_huge_malloc(((size_t)n + 1) * sizeof *diag);
    if (diag == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld rows", (long long)n);
    kryl_csr_diagonal(A, diag);
    amg_graph S = {0};
    kryl_status st = graph_alloc(&S, n, kryl_csr_nnz(A));
    if (st == KRYL_SUCCESS) {
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++) {
            int64_t count = 0;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                count += strong(A, diag, theta, i, k);
            S.row_ptr[i + 1] = count;
        }
        for (int64_t i = 0; i < n; i++) S.row_ptr[i + 1] += S.row_ptr[i];
        KRYL_HOST_PARALLEL_FOR(threads)
        for (int64_t i = 0; i < n; i++) {
            int64_t out = S.row_ptr[i];
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                if (strong(A, diag, theta, i, k)) S.col_idx[out++] = A->col_idx[k];
        }
    }
    free(diag);
    KRYL_TRY(st);
    if (symmetric) {
        *G = S;
        return KRYL_SUCCESS;
    }
    st = symmetrize(&S, threads, G);
    amg_graph_free(&S);
    return st;
}
