/* ILU(0) and ILU(k): a symbolic phase computing the levels of fill (Saad
 * 2003, section 10.3.3, algorithm 10.6), then the IKJ elimination restricted
 * to that pattern (algorithm 10.4).  ILU(0) is the pattern of A itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "factor/factor_internal.h"

/* Growing arrays of the symbolic phase: columns and their levels. */
typedef struct pattern_buf {
    int64_t count, capacity;
    int32_t *cols;
    int64_t *levels;
} pattern_buf;

static kryl_status pattern_push(pattern_buf *b, int32_t col, int64_t level)
{
    if (b->count == b->capacity) {
        const int64_t cap = b->capacity > 0 ? 2 * b->capacity : 64;
        int32_t *c = realloc(b->cols, (size_t)cap * sizeof *c);
        if (c != NULL) b->cols = c;
        int64_t *l = c != NULL ? realloc(b->levels, (size_t)cap * sizeof *l) : NULL;
        if (l == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                              "iluk: cannot grow the pattern to %lld entries", (long long)cap);
        b->levels = l;
        b->capacity = cap;
    }
    b->cols[b->count] = col;
    b->levels[b->count++] = level;
    return KRYL_SUCCESS;
}

/* Row i's level-of-fill list: lev[j] = min over k of lev(i,k) + lev(k,j) + 1
 * kept when <= maxlev; columns in a sorted linked list next[] ending at n. */
static kryl_status symbolic_row(const kryl_csr *A, int64_t i, int64_t maxlev,
                                const int64_t *row_ptr, const int64_t *upper, pattern_buf *b,
                                int64_t *lev, int64_t *next)
{
    const int64_t n = A->nrows;
    int64_t head = n, tail = -1;
    for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
        /* the entries of a_i* have level 0 */
        const int64_t j = A->col_idx[e];
        lev[j] = 0;
        next[j] = n;
        if (tail < 0)
            head = j;
        else
            next[tail] = j;
        tail = j;
    }
    for (int64_t k = head; k < i; k = next[k]) {
        for (int64_t f = upper[k]; f < row_ptr[k + 1]; f++) {
            /* level(i,j) = min(level(i,j), level(i,k) + level(k,j) + 1) */
            const int64_t j = b->cols[f], l = lev[k] + b->levels[f] + 1;
            if (l > maxlev) continue;
            if (lev[j] >= 0) {
                if (l < lev[j]) lev[j] = l;
                continue;
            }
            int64_t prev = k;
            while (next[prev] < j) prev = next[prev];
            next[j] = next[prev];
            next[prev] = j;
            lev[j] = l;
        }
    }
    for (int64_t j = head; j < n; j = next[j]) {
        KRYL_TRY(pattern_push(b, (int32_t)j, lev[j]));
        lev[j] = -1;
    }
    return KRYL_SUCCESS;
}

/* The pattern of ILU(maxlev) into C (values unset). */
static kryl_status symbolic(const kryl_csr *A, int64_t maxlev, kryl_csr *C)
{
    const int64_t n = A->nrows;
    size_t sz = (size_t)(n > 0 ? n : 1);
    pattern_buf b = {0, 0, NULL, NULL};
    int64_t *row_ptr = calloc(sz + 1, sizeof *row_ptr), *upper = malloc(sz * sizeof *upper);
    int64_t *lev = malloc(sz * sizeof *lev), *next = malloc(sz * sizeof *next);
    kryl_status st = KRYL_SUCCESS;
    if (row_ptr == NULL || upper == NULL || lev == NULL || next == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "iluk: cannot allocate work arrays of %lld",
                        (long long)n);
    for (int64_t j = 0; st == KRYL_SUCCESS && j < n; j++) lev[j] = -1;
    for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++) {
        st = symbolic_row(A, i, maxlev, row_ptr, upper, &b, lev, next);
        row_ptr[i + 1] = b.count;
        /* upper[i] = first position of row i with a column > i */
        upper[i] = row_ptr[i];
        while (upper[i] < b.count && b.cols[upper[i]] <= i) upper[i]++;
    }
    if (st == KRYL_SUCCESS) st = kryl_csr_alloc(C, n, n, b.count);
    if (st == KRYL_SUCCESS) {
        memcpy(C->row_ptr, row_ptr, ((size_t)n + 1) * sizeof *row_ptr);
        if (b.count > 0) memcpy(C->col_idx, b.cols, (size_t)b.count * sizeof *b.cols);
    }
    free(b.cols);
    free(b.levels);
    free(row_ptr);
    free(upper);
    free(lev);
    free(next);
    return st;
}

/* IKJ elimination of A on the pattern of C (which contains A's), in place. */
static kryl_status numeric(const kryl_csr *A, kryl_csr *C, int64_t *pos, int64_t *diag,
                           const char *who)
{
    for (int64_t i = 0; i < C->nrows; i++) {
        /* c_i* = a_i* scattered on the pattern of row i */
        for (int64_t e = C->row_ptr[i]; e < C->row_ptr[i + 1]; e++) {
            pos[C->col_idx[e]] = e;
            C->values[e] = 0.0;
        }
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
            C->values[pos[A->col_idx[e]]] = A->values[e];
        for (int64_t e = C->row_ptr[i]; e < C->row_ptr[i + 1] && C->col_idx[e] < i; e++) {
            /* l_ik = c_ik / u_kk; c_ij -= l_ik u_kj for j > k on the pattern */
            const int64_t k = C->col_idx[e];
            const double lik = C->values[e] / C->values[diag[k]];
            C->values[e] = lik;
            for (int64_t f = diag[k] + 1; f < C->row_ptr[k + 1]; f++)
                if (pos[C->col_idx[f]] >= 0) C->values[pos[C->col_idx[f]]] -= lik * C->values[f];
        }
        diag[i] = pos[i];
        for (int64_t e = C->row_ptr[i]; e < C->row_ptr[i + 1]; e++) pos[C->col_idx[e]] = -1;
        if (diag[i] < 0) return kryl_factor_no_diagonal_error(KRYL_FACTOR_ILU0, who, i);
        if (C->values[diag[i]] == 0.0 || !isfinite(C->values[diag[i]]))
            return kryl_factor_pivot_error(KRYL_FACTOR_ILU0, who, KRYL_PIVOT_BREAKDOWN, i,
                                           C->values[diag[i]]);
    }
    return KRYL_SUCCESS;
}

kryl_status kryl_factor_iluk(const kryl_csr *A, int k, kryl_factor *F)
{
    KRYL_REQUIRE_ARG(F);
    memset(F, 0, sizeof *F);
    const char *who = k == 0 ? "ilu0" : "iluk";
    KRYL_TRY(kryl_factor_check_input(A, who));
    if (k < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "iluk: the level of fill k is %d, expected >= 0", k);
    F->kind = k == 0 ? KRYL_FACTOR_ILU0 : KRYL_FACTOR_ILUK;
    kryl_csr C;
    KRYL_TRY(symbolic(A, k, &C));
    const size_t sz = (size_t)(A->nrows > 0 ? A->nrows : 1);
    int64_t *pos = malloc(sz * sizeof *pos), *diag = malloc(sz * sizeof *diag);
    kryl_status st = KRYL_SUCCESS;
    if (pos == NULL || diag == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate work arrays of %lld", who,
                        (long long)A->nrows);
    for (int64_t j = 0; st == KRYL_SUCCESS && j < A->nrows; j++) pos[j] = -1;
    if (st == KRYL_SUCCESS) st = numeric(A, &C, pos, diag, who);
    free(pos);
    free(diag);
    if (st == KRYL_SUCCESS) st = kryl_factor_split_lu(&C, A, F);
    kryl_csr_free(&C);
    return st;
}

kryl_status kryl_factor_ilu0(const kryl_csr *A, kryl_factor *F)
{
    return kryl_factor_iluk(A, 0, F);
}
