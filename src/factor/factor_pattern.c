/* The kept symbolic part of IC(0) and ILU(0) (factor_pattern.h): rows of
 * P A P^T counted and filled on the host's threads (each row writes only
 * its own entries), the transpose of IC's pattern, and the level schedules
 * of both triangles (kryl_order_levels). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "factor/factor_internal.h"
#include "factor/factor_pattern.h"

void kryl_factor_pattern_free(kryl_factor_pattern *P)
{
    if (P == NULL) return;
    free(P->ptr);
    free(P->col);
    free(P->diag);
    free(P->source);
    kryl_csr_free(&P->upper);
    kryl_levels_free(&P->levels_L);
    kryl_levels_free(&P->levels_U);
    memset(P, 0, sizeof *P);
}

kryl_factor_shape kryl_factor_pattern_shape(const kryl_factor_pattern *P)
{
    kryl_factor_shape shape = {
        P->kind, P->n, P->a_nnz, 0, 0, P->levels_L.nlevels, P->levels_U.nlevels};
    const int64_t nnz = P->n > 0 ? P->ptr[P->n] : 0;
    if (P->kind == KRYL_FACTOR_IC0) {
        shape.nnz_L = shape.nnz_U = nnz;
        return shape;
    }
    for (int64_t i = 0; i < P->n; i++) shape.nnz_L += P->diag[i] - P->ptr[i];
    shape.nnz_U = nnz - shape.nnz_L;
    return shape;
}

/* Whether column c (of P A P^T) belongs to row i of C. */
static bool kept(const kryl_factor_pattern *P, int64_t i, int64_t c)
{
    return P->kind != KRYL_FACTOR_IC0 || c <= i;
}

/* Row i of C: the kept entries of row perm[i] of A with their columns
 * renumbered by inv, sorted by column (rows are short: insertion sort). */
static void fill_row(const kryl_csr *A, const int32_t *perm, const int32_t *inv,
                     kryl_factor_pattern *P, int64_t i)
{
    const int64_t src = perm ? perm[i] : i;
    int64_t at = P->ptr[i];
    for (int64_t e = A->row_ptr[src]; e < A->row_ptr[src + 1]; e++) {
        const int32_t c = inv ? inv[A->col_idx[e]] : A->col_idx[e];
        if (!kept(P, i, c)) continue;
        /* insert (c, e) among the row's entries so far */
        int64_t k = at++;
        while (k > P->ptr[i] && P->col[k - 1] > c) {
            P->col[k] = P->col[k - 1];
            P->source[k] = P->source[k - 1];
            k--;
        }
        P->col[k] = c;
        P->source[k] = e;
    }
    P->diag[i] = -1;
    for (int64_t k = P->ptr[i]; k < at; k++)
        if (P->col[k] == i) P->diag[i] = k;
}

/* C's rows; *missing = the first row without a diagonal entry (-1: none). */
static kryl_status fill_rows(const kryl_csr *A, const int32_t *perm, int threads,
                             kryl_factor_pattern *P, int64_t *missing)
{
    const int64_t n = A->nrows;
    int32_t *inv = NULL;
    if (perm) {
        inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
        if (inv == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a permutation of %lld",
                              (long long)n);
        for (int64_t i = 0; i < n; i++) inv[perm[i]] = (int32_t)i;
    }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        /* ptr[i + 1] = the kept entries of row i */
        const int64_t src = perm ? perm[i] : i;
        int64_t count = 0;
        for (int64_t e = A->row_ptr[src]; e < A->row_ptr[src + 1]; e++)
            count += kept(P, i, inv ? inv[A->col_idx[e]] : A->col_idx[e]);
        P->ptr[i + 1] = count;
    }
    for (int64_t i = 0; i < n; i++) P->ptr[i + 1] += P->ptr[i];
    const size_t nnz = (size_t)(P->ptr[n] > 0 ? P->ptr[n] : 1);
    P->col = malloc(nnz * sizeof *P->col);
    P->source = malloc(nnz * sizeof *P->source);
    kryl_status st = P->col && P->source ? KRYL_SUCCESS
                                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                      "cannot allocate a factor pattern of %lld "
                                                      "entries",
                                                      (long long)P->ptr[n]);
    int64_t first = n;
    if (st == KRYL_SUCCESS) {
        KRYL_HOST_PARALLEL_REDUCE(threads, min, first)
        for (int64_t i = 0; i < n; i++) {
            fill_row(A, perm, inv, P, i);
            if (P->diag[i] < 0 && i < first) first = i;
        }
    }
    *missing = first < n ? first : -1;
    free(inv);
    return st;
}

/* P->upper = the pattern of C^T (IC: U = L^T by rows, diagonal first), on
 * `threads` threads: each column's entries counted, placed at a cursor
 * taken atomically, then each row sorted (rows are short), so the result
 * is the serial transpose's whatever the threads. */
static kryl_status transpose_pattern(kryl_factor_pattern *P, int threads)
{
    const int64_t n = P->n, nnz = P->ptr[n];
    kryl_csr *U = &P->upper;
    memset(U, 0, sizeof *U);
    U->nrows = U->ncols = U->nrows_global = n;
    U->row_ptr = calloc((size_t)n + 1, sizeof *U->row_ptr);
    U->col_idx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *U->col_idx);
    int64_t *cursor = malloc((size_t)(n > 0 ? n : 1) * sizeof *cursor);
    if (U->row_ptr == NULL || U->col_idx == NULL || cursor == NULL) {
        free(cursor);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate the transposed pattern of %lld",
                          (long long)nnz);
    }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t e = 0; e < nnz; e++) {
        /* count column col[e] */
#ifdef KRYL_HAVE_OPENMP
#pragma omp atomic update
#endif
        U->row_ptr[P->col[e] + 1]++;
    }
    for (int64_t j = 0; j < n; j++) U->row_ptr[j + 1] += U->row_ptr[j];
    memcpy(cursor, U->row_ptr, (size_t)n * sizeof *cursor);
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = P->ptr[i]; e < P->ptr[i + 1]; e++) {
            /* c_ij goes to row j of the transpose */
            int64_t at;
#ifdef KRYL_HAVE_OPENMP
#pragma omp atomic capture
#endif
            at = cursor[P->col[e]]++;
            U->col_idx[at] = (int32_t)i;
        }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t j = 0; j < n; j++)
        for (int64_t e = U->row_ptr[j] + 1; e < U->row_ptr[j + 1]; e++) {
            /* insertion sort of row j */
            const int32_t c = U->col_idx[e];
            int64_t k = e;
            for (; k > U->row_ptr[j] && U->col_idx[k - 1] > c; k--)
                U->col_idx[k] = U->col_idx[k - 1];
            U->col_idx[k] = c;
        }
    free(cursor);
    return KRYL_SUCCESS;
}

/* C's pattern as a kryl_csr without values (for kryl_order_levels). */
static kryl_csr pattern_csr(const kryl_factor_pattern *P)
{
    kryl_csr C = {0};
    C.nrows = C.ncols = C.nrows_global = P->n;
    C.row_ptr = P->ptr;
    C.col_idx = P->col;
    return C;
}

kryl_status kryl_factor_pattern_build(const kryl_csr *A, const int32_t *perm, kryl_factor_kind kind,
                                      int threads, const char *who, kryl_factor_pattern *P)
{
    KRYL_REQUIRE_ARG(P);
    memset(P, 0, sizeof *P);
    KRYL_TRY(kryl_factor_check_input(A, who));
    if (kind != KRYL_FACTOR_IC0 && kind != KRYL_FACTOR_ILU0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%s: a kept factor pattern is of IC(0) or ILU(0), got kind %d", who,
                          (int)kind);
    const int64_t n = A->nrows;
    P->kind = kind;
    P->n = n;
    P->a_nnz = kryl_csr_nnz(A);
    P->ptr = calloc((size_t)n + 1, sizeof *P->ptr);
    P->diag = malloc((size_t)(n > 0 ? n : 1) * sizeof *P->diag);
    kryl_status st = P->ptr && P->diag ? KRYL_SUCCESS
                                       : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                    "%s: cannot allocate a pattern of %lld rows",
                                                    who, (long long)n);
    int64_t missing = -1;
    if (st == KRYL_SUCCESS) st = fill_rows(A, perm, threads, P, &missing);
    if (st == KRYL_SUCCESS && missing >= 0) st = kryl_factor_no_diagonal_error(kind, who, missing);
    const kryl_csr C = pattern_csr(P);
    if (st == KRYL_SUCCESS && kind == KRYL_FACTOR_IC0) st = transpose_pattern(P, threads);
    /* the two schedules (each a serial pass) side by side */
    kryl_status lower = st, upper = st;
    if (st == KRYL_SUCCESS) {
#ifdef KRYL_HAVE_OPENMP
#pragma omp parallel sections num_threads(threads > 1 ? 2 : 1)
#endif
        {
#ifdef KRYL_HAVE_OPENMP
#pragma omp section
#endif
            lower = kryl_order_levels(&C, NULL, KRYL_LOWER, &P->levels_L);
#ifdef KRYL_HAVE_OPENMP
#pragma omp section
#endif
            upper = kryl_order_levels(kind == KRYL_FACTOR_IC0 ? &P->upper : &C, NULL, KRYL_UPPER,
                                      &P->levels_U);
        }
        /* a failure's message was set on its section's thread: said again here */
        if (lower != KRYL_SUCCESS || upper != KRYL_SUCCESS)
            st = KRYL_ERROR(lower != KRYL_SUCCESS ? lower : upper,
                            "%s: cannot compute the level schedules of %lld rows", who,
                            (long long)n);
    }
    if (st != KRYL_SUCCESS) kryl_factor_pattern_free(P);
    return st;
}

int64_t kryl_factor_pattern_find(const kryl_factor_pattern *P, int64_t j, int32_t i)
{
    /* binary search of the sorted columns of row j */
    int64_t lo = P->ptr[j], hi = P->ptr[j + 1];
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (P->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < P->ptr[j + 1] && P->col[lo] == i ? lo : -1;
}

/* Row i of T: its first and last position in C (ranges of C's row i). */
static void row_range(const kryl_factor_pattern *P, bool lower, int64_t i, int64_t *first,
                      int64_t *end)
{
    const bool ic = P->kind == KRYL_FACTOR_IC0;
    *first = lower ? P->ptr[i] : P->diag[i];
    *end = lower ? (ic ? P->ptr[i + 1] : P->diag[i]) : P->ptr[i + 1];
}

kryl_status kryl_factor_pattern_triangle(const kryl_factor_pattern *P, const double *c, bool lower,
                                         kryl_csr *T)
{
    const int64_t n = P->n;
    const bool transposed = !lower && P->kind == KRYL_FACTOR_IC0;
    int64_t nnz = 0;
    if (transposed) nnz = P->upper.row_ptr[n];
    for (int64_t i = 0; i < n && !transposed; i++) {
        int64_t first, end;
        row_range(P, lower, i, &first, &end);
        nnz += end - first;
    }
    KRYL_TRY(kryl_csr_alloc(T, n, n, nnz));
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        if (transposed) {
            /* u_ij = l_ji */
            for (int64_t e = P->upper.row_ptr[i]; e < P->upper.row_ptr[i + 1]; e++, at++) {
                T->col_idx[at] = P->upper.col_idx[e];
                T->values[at] =
                    c ? c[kryl_factor_pattern_find(P, T->col_idx[at], (int32_t)i)] : 1.0;
            }
        } else {
            int64_t first, end;
            row_range(P, lower, i, &first, &end);
            for (int64_t e = first; e < end; e++, at++) {
                T->col_idx[at] = P->col[e];
                T->values[at] = c ? c[e] : 1.0;
            }
        }
        T->row_ptr[i + 1] = at;
    }
    return KRYL_SUCCESS;
}
