/* Shared pieces of the ordering tests: generated and hand-made matrices,
 * symmetric permutation P A P^T, random permutations, real matrices. */
#ifndef KRYL_TEST_ORDER_UTIL_H
#define KRYL_TEST_ORDER_UTIL_H

#include "io/mtx.h"
#include "order/order.h"
#include "test_gen_support.h"

/* The whole generated matrix of kind with n points per direction. */
static inline bool order_gen(kryl_csr *A, kryl_generator_kind kind, int64_t n)
{
    kryl_generator_options o;
    kryl_generator g;
    kryl_generator_options_init(&o, kind, n);
    return gen_whole(A, &g, &o);
}

/* n x n matrix of the given (row, col, value) triplets, duplicates summed. */
static inline void order_from_triplets(kryl_csr *A, int64_t n, int count, const int64_t *rows,
                                       const int64_t *cols, const double *vals)
{
    kryl_coo coo = {0};
    coo.nrows = coo.ncols = n;
    CHECK_OK(kryl_coo_reserve(&coo, count > 0 ? count : 1));
    for (int k = 0; k < count; k++) CHECK_OK(kryl_coo_push(&coo, rows[k], cols[k], vals[k]));
    CHECK_OK(kryl_csr_from_coo(A, &coo, n, 0, n));
    kryl_coo_free(&coo);
}

/* A 9 x 9 graph of two paths and isolated vertices: path 0-2-4-6 (even
 * rows), path 1-3-5 (odd rows), rows 7 and 8 empty; 2 on the diagonal of
 * rows 0..6, -1 on each edge. */
static inline void order_two_paths(kryl_csr *A)
{
    const int64_t r[] = {0, 2, 2, 4, 4, 6, 1, 3, 3, 5, 0, 1, 2, 3, 4, 5, 6};
    const int64_t c[] = {2, 0, 4, 2, 6, 4, 3, 1, 5, 3, 0, 1, 2, 3, 4, 5, 6};
    double v[17];
    for (int k = 0; k < 17; k++) v[k] = r[k] == c[k] ? 2.0 : -1.0;
    order_from_triplets(A, 9, 17, r, c, v);
}

/* A deterministic random permutation of 0..n-1 (Fisher-Yates, LCG). */
static inline void order_random_perm(int32_t *perm, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)i;
    uint64_t s = seed * 6364136223846793005u + 1442695040888963407u;
    for (int64_t i = n - 1; i > 0; i--) { /* swap perm[i] with a random perm[j], j <= i */
        s = s * 6364136223846793005u + 1442695040888963407u;
        const int64_t j = (int64_t)((s >> 33) % (uint64_t)(i + 1));
        const int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* B = P A P^T: row r of B is row perm[r] of A, columns renumbered by perm^-1. */
static inline void order_permute(kryl_csr *B, const kryl_csr *A, const int32_t *perm)
{
    const int64_t n = A->nrows;
    int32_t *inv = malloc((size_t)(n + 1) * sizeof *inv);
    for (int64_t i = 0; i < n; i++) inv[perm[i]] = (int32_t)i;
    CHECK_OK(kryl_csr_alloc(B, n, n, kryl_csr_nnz(A)));
    for (int64_t r = 0; r < n; r++) {
        const int64_t i = perm[r], len = A->row_ptr[i + 1] - A->row_ptr[i];
        B->row_ptr[r + 1] = B->row_ptr[r] + len;
        for (int64_t e = 0; e < len; e++) {
            B->col_idx[B->row_ptr[r] + e] = inv[A->col_idx[A->row_ptr[i] + e]];
            B->values[B->row_ptr[r] + e] = A->values[A->row_ptr[i] + e];
        }
    }
    CHECK_OK(kryl_csr_sort_and_sum(B));
    free(inv);
}

/* A real matrix from the test directory; false (not a failure) when absent. */
static inline bool order_read_real(kryl_csr *A, const char *file)
{
    const char *path = test_matrix_path(file);
    if (path == NULL) return false;
    kryl_coo coo;
    kryl_mtx_header h;
    const kryl_status st = kryl_mtx_read(path, &h, &coo);
    if (st != KRYL_SUCCESS) return false;
    CHECK_OK(kryl_csr_from_coo(A, &coo, h.nrows, 0, h.nrows));
    kryl_coo_free(&coo);
    return true;
}

#endif
