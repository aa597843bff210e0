/* ILUT(tau, p), the dual threshold incomplete LU of Saad, ILUT: a dual
 * threshold incomplete LU factorization, Numer. Linear Algebra Appl. 1
 * (1994) 387-402 (algorithm 10.7 of Saad 2003), with a sparse working row:
 * dense values, a position marker, and a min-heap of its lower columns.
 * ILUTP (Saad 2003, section 10.4.4) adds column pivoting: row i takes as
 * its pivot the largest entry of its upper part when the diagonal entry
 * is smaller than PIVOT_TOL times it, swapping the two columns for the rows
 * that follow; the factor is kept in A's column numbering while it is
 * built and renumbered at the end.  A pivot that is still zero is replaced
 * by (1e-4 + tau) ||a_i*|| (as Saad's ITSOL ilut does), so ILUTP never
 * refuses a matrix with finite entries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "factor/factor_internal.h"

typedef struct entry {
    double value;
    int32_t col;
} entry;

/* The combined factor built row by row: lower part, diagonal, upper part. */
typedef struct rows_buf {
    int64_t count, capacity;
    entry *e;
} rows_buf;

/* ILUTP: pivot when |a_ii| < PIVOT_TOL max_{j > i} |a_ij| (Saad's permtol). */
#define PIVOT_TOL 0.5

typedef struct work_row {
    int32_t *perm;  /* position -> column of A (identity without pivoting) */
    int32_t *iperm; /* column of A -> position */
    double *w;      /* w_j of the working row, by column of A */
    int64_t *pos;   /* pos[j] >= 0 when j is a column of the working row */
    int32_t *cols;  /* its columns, unordered */
    int64_t len;
    int32_t *heap; /* its columns < i not yet eliminated, min-heap */
    int64_t heap_len;
    entry *cand; /* candidates of the dropping rule */
} work_row;

static void heap_push(work_row *r, int32_t c)
{
    /* sift the new column up to keep heap[parent] <= heap[child] */
    int64_t at = r->heap_len++;
    while (at > 0 && r->heap[(at - 1) / 2] > c) {
        r->heap[at] = r->heap[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    r->heap[at] = c;
}

static int32_t heap_pop(work_row *r)
{
    const int32_t top = r->heap[0], last = r->heap[--r->heap_len];
    int64_t at = 0;
    /* sift the last column down from the root */
    for (;;) {
        int64_t child = 2 * at + 1;
        if (child >= r->heap_len) break;
        if (child + 1 < r->heap_len && r->heap[child + 1] < r->heap[child]) child++;
        if (r->heap[child] >= last) break;
        r->heap[at] = r->heap[child];
        at = child;
    }
    r->heap[at] = last;
    return top;
}

/* Column j of A joins the working row; its position goes on the heap when it lies left of i. */
static void add_column(work_row *r, int32_t j, int64_t i)
{
    r->pos[j] = r->len;
    r->cols[r->len++] = j;
    r->w[j] = 0.0;
    if (r->iperm[j] < i) heap_push(r, r->iperm[j]);
}

static int by_magnitude(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    const double fx = fabs(x->value), fy = fabs(y->value);
    if (fx != fy) return fx < fy ? 1 : -1;
    return (x->col > y->col) - (x->col < y->col);
}

static int by_column(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return (x->col > y->col) - (x->col < y->col);
}

static kryl_status buf_append(rows_buf *b, const entry *e, int64_t count)
{
    if (count == 0) return KRYL_SUCCESS; /* nothing to copy (b->e may still be NULL) */
    if (b->count + count > b->capacity) {
        int64_t cap = b->capacity > 0 ? b->capacity : 64;
        while (cap < b->count + count) cap *= 2;
        entry *grown = realloc(b->e, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                              "ilut: cannot grow the factor to %lld entries", (long long)cap);
        b->e = grown;
        b->capacity = cap;
    }
    memcpy(b->e + b->count, e, (size_t)count * sizeof *e);
    b->count += count;
    return KRYL_SUCCESS;
}

/* Keep the p largest of the candidates with |w_j| >= tol at positions lo <= iperm[j] < hi,
 * in column order. */
static kryl_status keep_largest(work_row *r, int64_t lo, int64_t hi, double tol, int64_t p,
                                rows_buf *b)
{
    int64_t m = 0;
    for (int64_t t = 0; t < r->len; t++) {
        const int32_t j = r->cols[t];
        if (r->iperm[j] >= lo && r->iperm[j] < hi && fabs(r->w[j]) >= tol)
            r->cand[m++] = (entry){r->w[j], j};
    }
    if (m > p) {
        qsort(r->cand, (size_t)m, sizeof *r->cand, by_magnitude);
        m = p;
    }
    qsort(r->cand, (size_t)m, sizeof *r->cand, by_column);
    return buf_append(b, r->cand, m);
}

/* ILUTP: the column of largest |w_j| right of position i becomes position i
 * when the diagonal's |w| is below PIVOT_TOL times it. */
static void pivot(work_row *r, int64_t i)
{
    int32_t best = r->perm[i];
    const double diag = r->pos[best] >= 0 ? fabs(r->w[best]) : 0.0;
    double largest = diag;
    for (int64_t t = 0; t < r->len; t++) {
        const int32_t j = r->cols[t];
        if (r->iperm[j] > i && fabs(r->w[j]) > largest) {
            largest = fabs(r->w[j]);
            best = j;
        }
    }
    if (!(diag < PIVOT_TOL * largest)) return;
    /* swap the positions of columns perm[i] and best */
    const int32_t old = r->perm[i], at = r->iperm[best];
    r->perm[i] = best;
    r->perm[at] = old;
    r->iperm[best] = (int32_t)i;
    r->iperm[old] = at;
}

/* Row i of the factor appended to b; diag[k] = position of u_kk in b. */
static kryl_status ilut_row(const kryl_csr *A, int64_t i, double tau, int64_t p, bool pivoting,
                            work_row *r, rows_buf *b, int64_t *row_ptr, int64_t *diag)
{
    double norm = 0.0;
    r->len = r->heap_len = 0;
    for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
        /* w = a_i*, norm = ||a_i*||_2 */
        add_column(r, A->col_idx[e], i);
        r->w[A->col_idx[e]] = A->values[e];
        norm += A->values[e] * A->values[e];
    }
    const double tol = tau * sqrt(norm);
    while (r->heap_len > 0) {
        /* w_k = w_k / u_kk, dropped below tol; else w_j -= w_k u_kj for j right of k */
        const int32_t at = heap_pop(r), k = r->perm[at];
        const double wk = r->w[k] / b->e[diag[at]].value;
        r->w[k] = fabs(wk) < tol ? 0.0 : wk;
        if (r->w[k] == 0.0) continue;
        for (int64_t f = diag[at] + 1; f < row_ptr[at + 1]; f++) {
            const int32_t j = b->e[f].col;
            if (r->pos[j] < 0) add_column(r, j, i);
            r->w[j] -= wk * b->e[f].value;
        }
    }
    if (pivoting) pivot(r, i);
    const int32_t c = r->perm[i];
    double uii = r->pos[c] >= 0 ? r->w[c] : 0.0;
    /* a pivot still zero: Saad's ITSOL replacement */
    if (pivoting && uii == 0.0) uii = (1e-4 + tau) * (norm > 0.0 ? sqrt(norm) : 1.0);
    kryl_status st = keep_largest(r, 0, i, tol, p, b);
    diag[i] = b->count;
    if (st == KRYL_SUCCESS) st = buf_append(b, &(entry){uii, c}, 1);
    if (st == KRYL_SUCCESS) st = keep_largest(r, i + 1, A->ncols, tol, p, b);
    for (int64_t t = 0; t < r->len; t++) r->pos[r->cols[t]] = -1;
    row_ptr[i + 1] = b->count;
    if (st == KRYL_SUCCESS && (uii == 0.0 || !isfinite(uii)))
        return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                          "%s: the pivot u_ii at row %lld (0-based) is %g; permute the rows to "
                          "put nonzeros on the diagonal (--match), or use ilutp (column "
                          "pivoting)",
                          pivoting ? "ilutp" : "ilut", (long long)i, uii);
    return st;
}

/* ILUT or, with pivoting, ILUTP of A. */
static kryl_status factor_ilut(const kryl_csr *A, double tau, int64_t p, bool pivoting,
                               kryl_factor *F)
{
    const char *name = pivoting ? "ilutp" : "ilut";
    KRYL_REQUIRE_ARG(F);
    memset(F, 0, sizeof *F);
    KRYL_TRY(kryl_factor_check_input(A, name));
    if (!(tau >= 0.0) || !isfinite(tau) || p < 0)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%s: got tau = %g and p = %lld, expected tau >= 0 finite and p >= 0",
                          name, tau, (long long)p);
    F->kind = KRYL_FACTOR_ILUT;
    const int64_t n = A->nrows;
    const size_t sz = (size_t)(n > 0 ? n : 1);
    work_row r = {malloc(sz * sizeof(int32_t)), malloc(sz * sizeof(int32_t)),
                  malloc(sz * sizeof(double)),  malloc(sz * sizeof(int64_t)),
                  malloc(sz * sizeof(int32_t)), 0,
                  malloc(sz * sizeof(int32_t)), 0,
                  malloc(sz * sizeof(entry))};
    rows_buf b = {0, 0, NULL};
    int64_t *diag = malloc(sz * sizeof *diag);
    kryl_csr C = {0};
    kryl_status st = kryl_csr_alloc(&C, n, n, 0);
    if (st == KRYL_SUCCESS && (r.perm == NULL || r.iperm == NULL || r.w == NULL || r.pos == NULL ||
                               r.cols == NULL || r.heap == NULL || r.cand == NULL || diag == NULL))
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate work arrays of %lld", name,
                        (long long)n);
    for (int64_t j = 0; st == KRYL_SUCCESS && j < n; j++) {
        r.pos[j] = -1;
        r.perm[j] = r.iperm[j] = (int32_t)j;
    }
    for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++)
        st = ilut_row(A, i, tau, p, pivoting, &r, &b, C.row_ptr, diag);
    if (st == KRYL_SUCCESS) {
        /* the combined factor as CSR, columns renumbered to positions: the factor of A Q */
        free(C.col_idx);
        free(C.values);
        C.col_idx = malloc((size_t)(b.count > 0 ? b.count : 1) * sizeof *C.col_idx);
        C.values = malloc((size_t)(b.count > 0 ? b.count : 1) * sizeof *C.values);
        if (C.col_idx == NULL || C.values == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld entries", name,
                            (long long)b.count);
        for (int64_t e = 0; st == KRYL_SUCCESS && e < b.count; e++) {
            C.col_idx[e] = r.iperm[b.e[e].col];
            C.values[e] = b.e[e].value;
        }
    }
    if (st == KRYL_SUCCESS && pivoting) st = kryl_csr_sort_and_sum(&C);
    if (st == KRYL_SUCCESS) st = kryl_factor_split_lu(&C, A, F);
    if (st == KRYL_SUCCESS && pivoting) {
        F->col_perm = r.perm;
        r.perm = NULL;
    }
    kryl_csr_free(&C);
    free(b.e);
    free(diag);
    free(r.perm);
    free(r.iperm);
    free(r.w);
    free(r.pos);
    free(r.cols);
    free(r.heap);
    free(r.cand);
    return st;
}

kryl_status kryl_factor_ilut(const kryl_csr *A, double tau, int64_t p, kryl_factor *F)
{
    return factor_ilut(A, tau, p, false, F);
}

kryl_status kryl_factor_ilutp(const kryl_csr *A, double tau, int64_t p, kryl_factor *F)
{
    return factor_ilut(A, tau, p, true, F);
}
