/* The prolongator's smoothing and the Galerkin coarse matrix of smoothed
 * aggregation (Vanek, Mandel & Brezina 1996, section 3): on the backend
 * where it has the products (amg_products: the device for cuda), else by
 * host sparse products on the context's threads (kryl_csr_multiply). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/host_threads.h"

/* P = (I - omega D^-1 A) T on the host. */
static kryl_status smooth_prolongator(const kryl_csr *A, const kryl_csr *T, double omega,
                                      int threads, kryl_csr *P)
{
    kryl_csr S;
    KRYL_TRY(kryl_csr_alloc(&S, A->nrows, A->ncols, kryl_csr_nnz(A)));
    memcpy(S.row_ptr, A->row_ptr, ((size_t)A->nrows + 1) * sizeof *S.row_ptr);
    int64_t zero_row = A->nrows;
    KRYL_HOST_PARALLEL_REDUCE(threads, min, zero_row)
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t d = kryl_csr_find(A, i, i);
        if (d < 0 || A->values[d] == 0.0) {
            zero_row = i < zero_row ? i : zero_row;
            continue;
        }
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            /* s_ij = delta_ij - omega a_ij / a_ii */
            S.col_idx[k] = A->col_idx[k];
            S.values[k] = (k == d ? 1.0 : 0.0) - omega * A->values[k] / A->values[d];
        }
    }
    if (zero_row < A->nrows) {
        kryl_csr_free(&S);
        return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                          "amg: a_ii of row %lld of a level is zero; smoothed aggregation "
                          "divides by the diagonal (try --amg-aggregation plain)",
                          (long long)zero_row);
    }
    /* P = S T */
    kryl_status st = kryl_csr_multiply(&S, T, P, threads);
    kryl_csr_free(&S);
    return st;
}

/* A copy of T. */
static kryl_status csr_copy(const kryl_csr *T, kryl_csr *P)
{
    KRYL_TRY(kryl_csr_alloc(P, T->nrows, T->ncols, kryl_csr_nnz(T)));
    memcpy(P->row_ptr, T->row_ptr, ((size_t)T->nrows + 1) * sizeof *P->row_ptr);
    memcpy(P->col_idx, T->col_idx, (size_t)kryl_csr_nnz(T) * sizeof *P->col_idx);
    memcpy(P->values, T->values, (size_t)kryl_csr_nnz(T) * sizeof *P->values);
    return KRYL_SUCCESS;
}

/* Ac = (Ac + Ac') / 2 where Ac' has Ac's pattern (else Ac is left as it is). */
static kryl_status symmetrize_values(kryl_csr *Ac)
{
    kryl_csr T;
    KRYL_TRY(kryl_csr_transpose(Ac, &T));
    int64_t nnz = kryl_csr_nnz(Ac);
    bool same = memcmp(T.row_ptr, Ac->row_ptr, ((size_t)Ac->nrows + 1) * sizeof *T.row_ptr) == 0 &&
                memcmp(T.col_idx, Ac->col_idx, (size_t)nnz * sizeof *T.col_idx) == 0;
    /* a + b == b + a exactly: the result is symmetric to the last bit */
    if (same)
        for (int64_t k = 0; k < nnz; k++) Ac->values[k] = 0.5 * (Ac->values[k] + T.values[k]);
    kryl_csr_free(&T);
    return KRYL_SUCCESS;
}

/* P, R = P' and Ac = R A P on the host's threads. */
static kryl_status host_products(amg_hierarchy *h, const kryl_csr *A, const kryl_csr *T,
                                 double omega, kryl_csr *P, kryl_csr *R, kryl_csr *Ac)
{
    int threads = kryl_host_threads(h->ctx);
    double t0 = kryl_wtime();
    kryl_status st = omega != 0.0 ? smooth_prolongator(A, T, omega, threads, P) : csr_copy(T, P);
    if (st == KRYL_SUCCESS) st = kryl_csr_transpose(P, R);
    double t1 = kryl_wtime();
    h->info.prolong_s += t1 - t0;
    kryl_csr AP = {0};
    /* AP = A P;  Ac = R AP */
    if (st == KRYL_SUCCESS) st = kryl_csr_multiply(A, P, &AP, threads);
    if (st == KRYL_SUCCESS) st = kryl_csr_multiply(R, &AP, Ac, threads);
    kryl_csr_free(&AP);
    h->info.galerkin_s += kryl_wtime() - t1;
    return st;
}

kryl_status amg_products(amg_hierarchy *h, const amg_level *L, double omega, kryl_csr *P,
                         kryl_csr *R, kryl_csr *Ac)
{
    memset(P, 0, sizeof *P);
    memset(R, 0, sizeof *R);
    memset(Ac, 0, sizeof *Ac);
    kryl_context ctx = h->ctx;
    bool done = false;
    double t0 = kryl_wtime();
    kryl_status st = KRYL_SUCCESS;
    if (ctx->ops->amg_products) {
        st = ctx->ops->amg_products(ctx, L->A, &L->T, omega, P, R, Ac, &done);
        h->info.galerkin_s += kryl_wtime() - t0;
    }
    if (st == KRYL_SUCCESS && !done) st = host_products(h, L->A, &L->T, omega, P, R, Ac);
    double t1 = kryl_wtime();
    if (st == KRYL_SUCCESS && L->symmetric) st = symmetrize_values(Ac);
    h->info.galerkin_s += kryl_wtime() - t1;
    if (st != KRYL_SUCCESS) {
        kryl_csr_free(P);
        kryl_csr_free(R);
        kryl_csr_free(Ac);
    }
    return st;
}

kryl_status amg_dense_inverse(const kryl_csr *A, kryl_csr *Ainv)
{
    int64_t n = A->nrows;
    size_t nn = (size_t)n * (size_t)n;
    double *LU = calloc(nn > 0 ? nn : 1, sizeof *LU);
    int64_t *piv = malloc(((size_t)n + 1) * sizeof *piv);
    kryl_status st = LU && piv ? kryl_csr_alloc(Ainv, n, n, (int64_t)nn)
                               : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                            "amg: cannot allocate the %lld x %lld coarsest matrix",
                                            (long long)n, (long long)n);
    if (st != KRYL_SUCCESS) goto done;
    double scale = 0.0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            LU[(size_t)i * n + A->col_idx[k]] = A->values[k];
            scale = fmax(scale, fabs(A->values[k]));
        }
    /* LU = P A, partial pivoting, row-major */
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabs(LU[(size_t)i * n + k]) > fabs(LU[(size_t)p * n + k])) p = i;
        piv[k] = p;
        if (!(fabs(LU[(size_t)p * n + k]) > 1e-13 * scale)) {
            kryl_csr_free(Ainv);
            st = KRYL_ERROR(KRYL_ERR_NOT_POSITIVE_DEFINITE,
                            "amg: the coarsest matrix (%lld rows) is singular to working "
                            "precision (pivot %g at column %lld); is A singular?",
                            (long long)n, LU[(size_t)p * n + k], (long long)k);
            goto done;
        }
        if (p != k)
            for (int64_t j = 0; j < n; j++) {
                double t = LU[(size_t)k * n + j];
                LU[(size_t)k * n + j] = LU[(size_t)p * n + j];
                LU[(size_t)p * n + j] = t;
            }
        for (int64_t i = k + 1; i < n; i++) {
            double l = LU[(size_t)i * n + k] /= LU[(size_t)k * n + k];
            for (int64_t j = k + 1; j < n; j++) LU[(size_t)i * n + j] -= l * LU[(size_t)k * n + j];
        }
    }
    /* column c of A^-1: L U x = P e_c in a contiguous buffer (LU's rows are read in order) */
    double *x = piv ? malloc(((size_t)n + 1) * sizeof *x) : NULL;
    if (x == NULL) {
        kryl_csr_free(Ainv);
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: cannot allocate %lld rows", (long long)n);
        goto done;
    }
    for (int64_t c = 0; c < n; c++) {
        for (int64_t i = 0; i < n; i++) x[i] = i == c ? 1.0 : 0.0;
        for (int64_t k = 0; k < n; k++) {
            double t = x[k];
            x[k] = x[piv[k]];
            x[piv[k]] = t;
        }
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < i; j++) x[i] -= LU[(size_t)i * n + j] * x[j];
        for (int64_t i = n - 1; i >= 0; i--) {
            for (int64_t j = i + 1; j < n; j++) x[i] -= LU[(size_t)i * n + j] * x[j];
            x[i] /= LU[(size_t)i * n + i];
        }
        for (int64_t i = 0; i < n; i++) Ainv->values[(size_t)i * n + c] = x[i];
    }
    free(x);
    for (int64_t i = 0; i < n; i++) {
        Ainv->row_ptr[i + 1] = (i + 1) * n;
        for (int64_t j = 0; j < n; j++) Ainv->col_idx[(size_t)i * n + j] = (int32_t)j;
    }
done:
    free(LU);
    free(piv);
    return st;
}
