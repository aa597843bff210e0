/* The prolongator's smoothing and the Galerkin coarse matrix of smoothed
 * aggregation (Vanek, Mandel & Brezina 1996, section 3), from and into
 * backend memory: on the backend where it has the products (amg_products:
 * the device for cuda), else by host sparse products on the context's
 * threads (kryl_csr_multiply) over the same arrays (ref, omp) or copies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "core/host_threads.h"

kryl_status amg_jacobi_operator(const kryl_csr *A, int64_t first_row, double omega, int threads,
                                kryl_csr *S)
{
    KRYL_TRY(kryl_csr_alloc(S, A->nrows, A->ncols, kryl_csr_nnz(A)));
    memcpy(S->row_ptr, A->row_ptr, ((size_t)A->nrows + 1) * sizeof *S->row_ptr);
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
            S->col_idx[k] = A->col_idx[k];
            S->values[k] = (k == d ? 1.0 : 0.0) - omega * A->values[k] / A->values[d];
        }
    }
    if (zero_row < A->nrows) {
        kryl_csr_free(S);
        return KRYL_ERROR(KRYL_ERR_ZERO_DIAGONAL,
                          "amg: a_ii of row %lld of a level is zero; smoothed aggregation "
                          "divides by the diagonal (try --amg-aggregation plain)",
                          (long long)(first_row + zero_row));
    }
    return KRYL_SUCCESS;
}

/* P = (I - omega D^-1 A) T on the host. */
static kryl_status smooth_prolongator(const kryl_csr *A, const kryl_csr *T, double omega,
                                      int threads, kryl_csr *P)
{
    kryl_csr S;
    KRYL_TRY(amg_jacobi_operator(A, 0, omega, threads, &S));
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

/* Ac = (Ac + Ac') / 2 where Ac' has Ac's pattern (else Ac is left as it is).
 * One transpose here: on one process it costs less than looking up each
 * entry's mirror (7-point 100^3 on 2 threads: the products 0.43 s against
 * 0.48 s); over ranks dist_amg.c looks them up. */
static kryl_status symmetrize_values(kryl_csr *Ac, int threads)
{
    kryl_csr T;
    KRYL_TRY(kryl_csr_transpose_on(Ac, &T, threads));
    if (kryl_csr_same_pattern(Ac, &T)) kryl_csr_average(Ac, T.values, threads);
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
    if (st == KRYL_SUCCESS) st = kryl_csr_transpose_on(P, R, threads);
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

kryl_status amg_permute_rows(const kryl_csr *P, const int32_t *perm, kryl_csr *Q)
{
    KRYL_TRY(kryl_csr_alloc(Q, P->nrows, P->ncols, kryl_csr_nnz(P)));
    Q->row_begin = P->row_begin;
    Q->nrows_global = P->nrows_global;
    for (int64_t i = 0; i < P->nrows; i++) {
        int64_t from = P->row_ptr[perm[i]], len = P->row_ptr[perm[i] + 1] - from;
        Q->row_ptr[i + 1] = Q->row_ptr[i] + len;
        memcpy(Q->col_idx + Q->row_ptr[i], P->col_idx + from, (size_t)len * sizeof *Q->col_idx);
        memcpy(Q->values + Q->row_ptr[i], P->values + from, (size_t)len * sizeof *Q->values);
    }
    return KRYL_SUCCESS;
}

/* Whether the context's backend memory is host memory (no device arrays). */
static bool host_memory(kryl_context ctx) { return !ctx->ops->device_memory; }

kryl_status amg_backend_csr_download(kryl_context ctx, const kryl_backend_csr *M, kryl_csr *C)
{
    KRYL_TRY(kryl_csr_alloc(C, M->nrows, M->ncols, M->nnz));
    const kryl_backend_ops *ops = ctx->ops;
    kryl_status st =
        ops->download(ctx, C->row_ptr, M->row_ptr, ((size_t)M->nrows + 1) * sizeof *C->row_ptr);
    if (st == KRYL_SUCCESS && M->nnz > 0)
        st = ops->download(ctx, C->col_idx, M->col_idx, (size_t)M->nnz * sizeof *C->col_idx);
    if (st == KRYL_SUCCESS && M->nnz > 0)
        st = ops->download(ctx, C->values, M->values, (size_t)M->nnz * sizeof *C->values);
    if (st != KRYL_SUCCESS) kryl_csr_free(C);
    return st;
}

/* The host CSR of M: a view of its arrays where backend memory is host
 * memory, else a download (*owned). */
static kryl_status host_csr(kryl_context ctx, const kryl_backend_csr *M, kryl_csr *C, bool *owned)
{
    *owned = !host_memory(ctx);
    if (*owned) return amg_backend_csr_download(ctx, M, C);
    *C = (kryl_csr){.nrows = M->nrows,
                    .ncols = M->ncols,
                    .nrows_global = M->nrows,
                    .row_ptr = M->row_ptr,
                    .col_idx = M->col_idx,
                    .values = M->values};
    return KRYL_SUCCESS;
}

kryl_status amg_backend_csr_upload(kryl_context ctx, kryl_csr *C, kryl_backend_csr *M)
{
    const kryl_backend_ops *ops = ctx->ops;
    int64_t nnz = kryl_csr_nnz(C);
    *M = (kryl_backend_csr){.nrows = C->nrows, .ncols = C->ncols, .nnz = nnz};
    size_t offsets = ((size_t)C->nrows + 1) * sizeof *C->row_ptr;
    kryl_status st = ops->alloc(ctx, (void **)&M->row_ptr, offsets);
    if (st == KRYL_SUCCESS)
        st = ops->alloc(ctx, (void **)&M->col_idx, (size_t)nnz * sizeof *M->col_idx);
    if (st == KRYL_SUCCESS)
        st = ops->alloc(ctx, (void **)&M->values, (size_t)nnz * sizeof *M->values);
    if (st == KRYL_SUCCESS) st = ops->upload(ctx, M->row_ptr, C->row_ptr, offsets);
    if (st == KRYL_SUCCESS && nnz > 0)
        st = ops->upload(ctx, M->col_idx, C->col_idx, (size_t)nnz * sizeof *M->col_idx);
    if (st == KRYL_SUCCESS && nnz > 0)
        st = ops->upload(ctx, M->values, C->values, (size_t)nnz * sizeof *M->values);
    kryl_csr_free(C);
    if (st != KRYL_SUCCESS) kryl_backend_csr_release(ctx, M);
    return st;
}

/* The host's products of backend arrays A and T (downloaded unless backend
 * memory is host memory), their results put in backend memory. */
static kryl_status products_on_host(amg_hierarchy *h, const kryl_backend_csr *A,
                                    const kryl_backend_csr *T, double omega, bool symmetric,
                                    const int32_t *perm, kryl_backend_csr *P, kryl_backend_csr *R,
                                    kryl_backend_csr *Ac)
{
    kryl_context ctx = h->ctx;
    kryl_csr hA = {0}, hT = {0}, hP = {0}, hR = {0}, hAc = {0};
    bool own_a = false, own_t = false;
    kryl_status st = host_csr(ctx, A, &hA, &own_a);
    if (st == KRYL_SUCCESS) st = host_csr(ctx, T, &hT, &own_t);
    if (st == KRYL_SUCCESS) st = host_products(h, &hA, &hT, omega, &hP, &hR, &hAc);
    if (own_a) kryl_csr_free(&hA);
    if (own_t) kryl_csr_free(&hT);
    double t0 = kryl_wtime();
    if (st == KRYL_SUCCESS && symmetric) st = symmetrize_values(&hAc, kryl_host_threads(ctx));
    if (st == KRYL_SUCCESS && perm != NULL) {
        /* level 0 in a sorted format's order: P's rows and R's columns follow it */
        kryl_csr Q = {0};
        st = amg_permute_rows(&hP, perm, &Q);
        kryl_csr_free(&hP);
        kryl_csr_free(&hR);
        hP = Q;
        if (st == KRYL_SUCCESS) st = kryl_csr_transpose_on(&hP, &hR, kryl_host_threads(ctx));
    }
    h->info.galerkin_s += kryl_wtime() - t0;
    if (st == KRYL_SUCCESS) st = amg_backend_csr_upload(ctx, &hP, P);
    if (st == KRYL_SUCCESS) st = amg_backend_csr_upload(ctx, &hR, R);
    if (st == KRYL_SUCCESS) st = amg_backend_csr_upload(ctx, &hAc, Ac);
    kryl_csr *all[] = {&hP, &hR, &hAc};
    for (size_t m = 0; m < sizeof all / sizeof all[0]; m++) kryl_csr_free(all[m]);
    return st;
}

/* The arrays of the level's double matrix M in backend memory: its
 * storage's where it is double CSR in the natural order, else (level 0 in
 * another format or precision) its host copy's, uploaded unless backend
 * memory is host memory; *copy holds what the caller releases. */
static kryl_status level_arrays(kryl_context ctx, kryl_matrix M, kryl_backend_csr *A,
                                kryl_backend_csr *copy)
{
    const kryl_backend_ops *ops = ctx->ops;
    *copy = (kryl_backend_csr){0};
    int64_t n = 0, nnz = 0;
    KRYL_TRY(kryl_matrix_size(M, &n, NULL, &nnz));
    *A = (kryl_backend_csr){.nrows = n, .ncols = n, .nnz = nnz};
    if (ops->matrix_csr_arrays != NULL && kryl_matrix_natural_csr(M)) {
        bool row_ptr_copy = false;
        KRYL_TRY(
            ops->matrix_csr_arrays(ctx, M, &A->row_ptr, &row_ptr_copy, &A->col_idx, &A->values));
        if (row_ptr_copy) copy->row_ptr = A->row_ptr;
        return KRYL_SUCCESS;
    }
    KRYL_TRY(kryl_matrix_need_host(M, "the multigrid products"));
    const kryl_csr *c = &M->host->csr;
    if (host_memory(ctx)) {
        A->row_ptr = c->row_ptr;
        A->col_idx = c->col_idx;
        A->values = c->values;
        return KRYL_SUCCESS;
    }
    kryl_csr up;
    KRYL_TRY(kryl_csr_alloc(&up, n, n, nnz));
    memcpy(up.row_ptr, c->row_ptr, ((size_t)n + 1) * sizeof *up.row_ptr);
    memcpy(up.col_idx, c->col_idx, (size_t)nnz * sizeof *up.col_idx);
    memcpy(up.values, c->values, (size_t)nnz * sizeof *up.values);
    KRYL_TRY(amg_backend_csr_upload(ctx, &up, copy));
    *A = *copy;
    return KRYL_SUCCESS;
}

kryl_status amg_products(amg_hierarchy *h, const amg_level *L, double omega, kryl_backend_csr *P,
                         kryl_backend_csr *R, kryl_backend_csr *Ac)
{
    *P = *R = *Ac = (kryl_backend_csr){0};
    kryl_context ctx = h->ctx;
    kryl_backend_csr A, copy;
    KRYL_TRY(level_arrays(ctx, amg_level_matrix(L), &A, &copy));
    const kryl_layout *layout = L->Ab->layout;
    bool done = false;
    double t0 = kryl_wtime();
    kryl_status st = KRYL_SUCCESS;
    if (ctx->ops->amg_products) {
        st = ctx->ops->amg_products(ctx, &A, &L->T, omega, L->symmetric, layout->perm_backend, P, R,
                                    Ac, &done);
        h->info.galerkin_s += kryl_wtime() - t0;
    }
    if (st == KRYL_SUCCESS && !done)
        st = products_on_host(h, &A, &L->T, omega, L->symmetric, layout->perm, P, R, Ac);
    kryl_backend_csr_release(ctx, &copy);
    if (st != KRYL_SUCCESS) {
        kryl_backend_csr_release(ctx, P);
        kryl_backend_csr_release(ctx, R);
        kryl_backend_csr_release(ctx, Ac);
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
