/* Checks of the multigrid hierarchy shared by test_amg (ref, omp and,
 * where present, cuda) and test_cuda_amg: levels against ref's up to
 * rounding, the backend's products against the host's, and a resetup
 * against a fresh setup. */
#ifndef KRYL_TEST_AMG_SUPPORT_H
#define KRYL_TEST_AMG_SUPPORT_H

#include "amg/amg.h"
#include "solvers/solver_impl.h"
#include "test_krylov_support.h"

/* The hierarchy of an AMG-preconditioned solver (a mixed scheme's in its inner solver). */
static const amg_hierarchy *hierarchy_of(kryl_solver s)
{
    return s->inner != NULL ? s->inner->pc->data : s->pc->data;
}

/* The same pattern, and values equal up to rounding: lambda_max comes from
 * the backend's reductions and the products from its own summation order. */
static bool csr_close(const kryl_csr *a, const kryl_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || kryl_csr_nnz(a) != kryl_csr_nnz(b))
        return false;
    int64_t nnz = kryl_csr_nnz(a);
    return memcmp(a->row_ptr, b->row_ptr, (size_t)(a->nrows + 1) * sizeof *a->row_ptr) == 0 &&
           memcmp(a->col_idx, b->col_idx, (size_t)nnz * sizeof *a->col_idx) == 0 &&
           test_rel_diff(a->values, b->values, nnz) <= 1e-11;
}

/* The options of a test hierarchy: small coarse levels, so several levels;
 * one coarsening on every backend (auto's depends on the backend), so the
 * backends' hierarchies compare with ref's. */
static void amg_options(kryl_solver_options *o, kryl_method method)
{
    kt_options(o, method, KRYL_PRECOND_AMG, 1e-8, 500);
    o->amg.coarse_size = 40;
    o->amg.coarsening = KRYL_AMG_GREEDY;
}

/* The host copy of a backend matrix (downloaded where it has none yet). */
static const kryl_csr *host_of(kryl_matrix M)
{
    CHECK_OK(kryl_matrix_need_host(M, "test_amg"));
    return &M->host->csr;
}

/* Level l's aggregates on the host (malloc'ed). */
static int32_t *aggregates_of(const amg_hierarchy *h, int l)
{
    const amg_level *L = &h->levels[l];
    int64_t n = host_of(amg_level_matrix(L))->nrows;
    int32_t *a = malloc(((size_t)n + 1) * sizeof *a);
    CHECK_OK(h->ctx->ops->download(h->ctx, a, L->aggregate, (size_t)n * sizeof *a));
    return a;
}

/* Two hierarchies' levels: A, aggregates, P and R equal up to rounding. */
static void compare_levels(const amg_hierarchy *hr, const amg_hierarchy *hc, const char *label)
{
    for (int l = 0; l < hr->nlevels && l < hc->nlevels; l++) {
        const amg_level *a = &hr->levels[l], *b = &hc->levels[l];
        const kryl_csr *Aa = host_of(amg_level_matrix(a)), *Ab = host_of(amg_level_matrix(b));
        CHECK(csr_close(Aa, Ab), "%s: A of level %d differs", label, l);
        if (l + 1 == hr->nlevels || l + 1 == hc->nlevels) continue;
        int32_t *ga = aggregates_of(hr, l), *gb = aggregates_of(hc, l);
        CHECK(a->naggregates == b->naggregates &&
                  memcmp(ga, gb, (size_t)Aa->nrows * sizeof *ga) == 0,
              "%s: aggregates of level %d differ", label, l);
        free(ga);
        free(gb);
        /* single-precision transfers: check_setup_as_host */
        if (a->P->precision == KRYL_DOUBLE && b->P->precision == KRYL_DOUBLE)
            CHECK(csr_close(host_of(a->P), host_of(b->P)) &&
                      csr_close(host_of(a->R), host_of(b->R)),
                  "%s: P or R of level %d differs", label, l);
    }
}

/* Whether the single-precision matrix F holds the float nearest each value
 * of the double CSR D, in D's pattern: F e_j (float) is column j of D
 * rounded, for every column j, to the bit (tol 0) or within tol of
 * max(1, max |d_ij|) (D another backend's, rounded otherwise). */
static bool float_matrix_rounds(kryl_matrix F, const kryl_csr *D, double tol)
{
    kryl_context ctx = F->ctx;
    const kryl_backend_ops *ops = ctx->ops;
    kryl_csr T;
    CHECK_OK(kryl_csr_transpose(D, &T));
    kryl_layout rows = {1, D->nrows, D->nrows, 0, NULL, NULL};
    kryl_layout cols = {1, D->ncols, D->ncols, 0, NULL, NULL};
    kryl_vector x = NULL, y = NULL;
    CHECK_OK(kryl_vector_create_like(&x, ctx, &cols, KRYL_SINGLE));
    CHECK_OK(kryl_vector_create_like(&y, ctx, &rows, KRYL_SINGLE));
    float *column = calloc((size_t)D->nrows + 1, sizeof *column);
    float *expect = calloc((size_t)D->nrows + 1, sizeof *expect);
    const float one = 1.0f, zero = 0.0f;
    bool same = x != NULL && y != NULL && F->precision == KRYL_SINGLE;
    for (int64_t j = 0; same && j < D->ncols; j++) {
        /* y = F e_j */
        CHECK_OK(ops->upload(ctx, (float *)x->data + j, &one, sizeof one));
        CHECK_OK(ops->spmv(ctx, F, 1.0, x, 0.0, NULL, y, NULL));
        CHECK_OK(ops->upload(ctx, (float *)x->data + j, &zero, sizeof zero));
        CHECK_OK(ops->download(ctx, column, y->data, (size_t)D->nrows * sizeof *column));
        for (int64_t k = T.row_ptr[j]; k < T.row_ptr[j + 1]; k++)
            expect[T.col_idx[k]] = (float)T.values[k];
        for (int64_t i = 0; i < D->nrows && same; i++)
            same = tol == 0.0 ? memcmp(&column[i], &expect[i], sizeof *column) == 0
                              : fabs((double)column[i] - (double)expect[i]) <=
                                    tol * fmax(1.0, fabs((double)expect[i]));
        for (int64_t k = T.row_ptr[j]; k < T.row_ptr[j + 1]; k++) expect[T.col_idx[k]] = 0.0f;
    }
    free(column);
    free(expect);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_csr_free(&T);
    return same;
}

/* What the host computed before the backends did (the same bits are
 * expected): level l's l1-Jacobi diagonal 1 / sum_j |a_ij| in the level's
 * precision, and, where Lanczos does not apply, Gershgorin's bound
 * max_i sum_j |a_ij| / |a_ii| over the rows with a_ii != 0; and each level's
 * single-precision matrices are its double ones rounded.  Transfers made
 * in single precision on the device keep no double copy: with `ref`, they
 * are compared with ref's, rounded, up to a float's rounding. */
static void check_setup_as_host(const amg_hierarchy *h, const amg_hierarchy *ref, const char *label)
{
    for (int l = 0; l < h->nlevels; l++) {
        const amg_level *L = &h->levels[l];
        kryl_matrix M = amg_level_matrix(L);
        const kryl_csr *A = host_of(M);
        const int64_t n = A->nrows;
        double *sum = malloc((size_t)(n + 1) * sizeof *sum);
        double bound = 0.0;
        for (int64_t i = 0; i < n; i++) {
            sum[i] = 0.0;
            for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                sum[i] += fabs(A->values[k]);
            int64_t d = kryl_csr_find(A, i, i);
            double aii = d < 0 ? 0.0 : fabs(A->values[d]);
            if (aii != 0.0 && sum[i] / aii > bound) bound = sum[i] / aii;
        }
        const bool smoothed = l + 1 < h->nlevels || n > KRYL_AMG_DENSE_MAX;
        if (h->opts.smoother == KRYL_AMG_L1JACOBI && smoothed && L->dinv != NULL) {
            double *got = malloc((size_t)(n + 1) * sizeof *got);
            CHECK_OK(kryl_vector_get(L->dinv, got, n));
            int64_t differ = 0;
            for (int64_t i = 0; i < n; i++) {
                double expect = 1.0 / sum[i];
                if (L->Ab->precision == KRYL_SINGLE) expect = (float)expect;
                differ += memcmp(&got[i], &expect, sizeof expect) != 0;
            }
            CHECK(differ == 0, "%s: %lld entries of level %d's l1 diagonal differ from the host's",
                  label, (long long)differ, l);
            free(got);
        }
        if (!L->symmetric && l + 1 < h->nlevels)
            CHECK(L->lambda_max == bound, "%s: level %d's Gershgorin bound %.17g, the host's %.17g",
                  label, l, L->lambda_max, bound);
        free(sum);
        if (L->Ab->precision != KRYL_SINGLE) continue;
        if (l > 0)
            CHECK(float_matrix_rounds(L->Ab, A, 0.0),
                  "%s: level %d's float A is not its double one rounded", label, l);
        if (l + 1 >= h->nlevels || (ref != NULL && l + 1 >= ref->nlevels)) continue;
        const amg_level *from = ref ? &ref->levels[l] : L;
        const double tol = ref ? 2.0 * FLT_EPSILON : 0.0;
        CHECK(float_matrix_rounds(L->P, host_of(from->P), tol) &&
                  float_matrix_rounds(L->R, host_of(from->R), tol),
              "%s: level %d's float P or R is not the double one rounded", label, l);
    }
}

/* Hierarchies whose setup sums |a_ij| (the l1 diagonal, Gershgorin's bound
 * on nonsymmetric levels) and rounds levels to float, with the iterations
 * to 1e-8 (1e-5 in single precision; inner ones of a mixed scheme) that
 * the host's setup of these gave on ref and omp (greedy coarsening). */
static const struct amg_sums_case {
    kryl_method method;
    kryl_precision precision;
    kryl_mixed_scheme mixed;
    kryl_generator_kind kind;
    int64_t n;
    kryl_amg_aggregation aggregation;
    kryl_amg_smoother smoother;
    int64_t iterations;
} amg_sums_cases[] = {
    {KRYL_METHOD_PCG, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON3D7, 14, KRYL_AMG_SMOOTHED,
     KRYL_AMG_L1JACOBI, 14},
    {KRYL_METHOD_GMRES, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_CONVDIFF2D, 40, KRYL_AMG_PLAIN,
     KRYL_AMG_L1JACOBI, 38},
    {KRYL_METHOD_GMRES, KRYL_DOUBLE, KRYL_MIXED_NONE, KRYL_GEN_CONVDIFF2D, 40, KRYL_AMG_SMOOTHED,
     KRYL_AMG_JACOBI, 31},
    {KRYL_METHOD_PCG, KRYL_SINGLE, KRYL_MIXED_NONE, KRYL_GEN_POISSON3D7, 14, KRYL_AMG_SMOOTHED,
     KRYL_AMG_L1JACOBI, 9},
    {KRYL_METHOD_GMRES, KRYL_SINGLE, KRYL_MIXED_NONE, KRYL_GEN_CONVDIFF2D, 40, KRYL_AMG_PLAIN,
     KRYL_AMG_CHEBYSHEV, 16},
    {KRYL_METHOD_GMRES, KRYL_MIXED, KRYL_MIXED_INNER_OUTER, KRYL_GEN_CONVDIFF2D, 40, KRYL_AMG_PLAIN,
     KRYL_AMG_L1JACOBI, 57},
    {KRYL_METHOD_PCG, KRYL_MIXED, KRYL_MIXED_IR, KRYL_GEN_POISSON2D5, 40, KRYL_AMG_SMOOTHED,
     KRYL_AMG_L1JACOBI, 16},
};

static void amg_sums_options(const struct amg_sums_case *c, kryl_solver_options *o, char *label,
                             size_t size, const char *backend)
{
    amg_options(o, c->method);
    o->precision = c->precision;
    o->mixed = c->mixed;
    o->amg.aggregation = c->aggregation;
    o->amg.smoother = c->smoother;
    o->rtol = c->precision == KRYL_SINGLE ? 1e-5 : 1e-8;
    o->max_iterations = 200;
    snprintf(label, size, "%s %s%s%s %s %s %s %lld on %s", kryl_method_name(c->method),
             kryl_precision_name(c->precision), c->mixed ? " " : "",
             c->mixed ? kryl_mixed_scheme_name(c->mixed) : "",
             kryl_amg_aggregation_name(c->aggregation), kryl_amg_smoother_name(c->smoother),
             kryl_generator_name(c->kind), (long long)c->n, backend);
}

/* T of n rows: row i in aggregate i / 3 with a random value, every seventh row in none. */
static void tentative_of(int64_t n, kryl_csr *T)
{
    CHECK_OK(kryl_csr_alloc(T, n, (n + 2) / 3, n));
    test_random_values(T->values, n, 7);
    for (int64_t i = 0; i < n; i++) {
        bool member = i % 7 != 3;
        T->row_ptr[i + 1] = T->row_ptr[i] + member;
        if (member) T->col_idx[T->row_ptr[i]] = (int32_t)(i / 3);
        if (member) T->values[T->row_ptr[i]] = T->values[i];
    }
}

/* M (backend memory) = a copy of A. */
static void backend_copy(kryl_context ctx, const kryl_csr *A, kryl_backend_csr *M)
{
    int64_t nnz = kryl_csr_nnz(A);
    kryl_csr C;
    CHECK_OK(kryl_csr_alloc(&C, A->nrows, A->ncols, nnz));
    memcpy(C.row_ptr, A->row_ptr, ((size_t)A->nrows + 1) * sizeof *C.row_ptr);
    memcpy(C.col_idx, A->col_idx, (size_t)nnz * sizeof *C.col_idx);
    memcpy(C.values, A->values, (size_t)nnz * sizeof *C.values);
    CHECK_OK(amg_backend_csr_upload(ctx, &C, M));
}

/* The host's P = S T (S = I - omega D^-1 A; omega = 0: S = I), R = P' and
 * Ac = R (A P); perm (or NULL): P's row i is row perm[i], R = that P'. */
static void host_products_of(const kryl_csr *A, const kryl_csr *T, double omega,
                             const int32_t *perm, kryl_csr *P, kryl_csr *R, kryl_csr *Ac)
{
    int64_t n = A->nrows;
    bool smoothed = omega != 0.0;
    kryl_csr S, AP;
    CHECK_OK(kryl_csr_alloc(&S, n, A->ncols, smoothed ? kryl_csr_nnz(A) : n));
    for (int64_t i = 0; i < n; i++) {
        int64_t d = kryl_csr_find(A, i, i);
        S.row_ptr[i + 1] = S.row_ptr[i];
        if (!smoothed) {
            S.col_idx[S.row_ptr[i + 1]] = (int32_t)i;
            S.values[S.row_ptr[i + 1]++] = 1.0;
            continue;
        }
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            S.col_idx[S.row_ptr[i + 1]] = A->col_idx[k];
            S.values[S.row_ptr[i + 1]++] = (k == d) - omega * A->values[k] / A->values[d];
        }
    }
    /* P = S T;  R = P';  Ac = R (A P) */
    CHECK_OK(kryl_csr_multiply(&S, T, P, 1));
    CHECK_OK(kryl_csr_transpose(P, R));
    CHECK_OK(kryl_csr_multiply(A, P, &AP, 1));
    CHECK_OK(kryl_csr_multiply(R, &AP, Ac, 1));
    kryl_csr_free(&S);
    kryl_csr_free(&AP);
    if (perm == NULL) return;
    /* P's row i is row perm[i]; R = that P' */
    kryl_csr Q;
    CHECK_OK(kryl_csr_alloc(&Q, n, P->ncols, kryl_csr_nnz(P)));
    for (int64_t i = 0; i < n; i++) {
        int64_t from = P->row_ptr[perm[i]], len = P->row_ptr[perm[i] + 1] - from;
        Q.row_ptr[i + 1] = Q.row_ptr[i] + len;
        memcpy(Q.col_idx + Q.row_ptr[i], P->col_idx + from, (size_t)len * sizeof(int32_t));
        memcpy(Q.values + Q.row_ptr[i], P->values + from, (size_t)len * sizeof(double));
    }
    kryl_csr_free(P);
    kryl_csr_free(R);
    *P = Q;
    CHECK_OK(kryl_csr_transpose(P, R));
}

/* The backend's amg_products of host A and T (copied to backend memory),
 * its P, R and Ac downloaded; whether it took them. */
static bool backend_products_of(kryl_context ctx, const kryl_csr *A, const kryl_csr *T,
                                double omega, bool symmetric, const int32_t *perm_b, kryl_csr *P,
                                kryl_csr *R, kryl_csr *Ac)
{
    bool done = false;
    kryl_backend_csr bA, bT, bP = {0}, bR = {0}, bAc = {0};
    backend_copy(ctx, A, &bA);
    backend_copy(ctx, T, &bT);
    CHECK_OK(
        ctx->ops->amg_products(ctx, &bA, &bT, omega, symmetric, perm_b, &bP, &bR, &bAc, &done));
    if (done) {
        CHECK_OK(amg_backend_csr_download(ctx, &bP, P));
        CHECK_OK(amg_backend_csr_download(ctx, &bR, R));
        CHECK_OK(amg_backend_csr_download(ctx, &bAc, Ac));
    }
    kryl_backend_csr *all_b[] = {&bA, &bT, &bP, &bR, &bAc};
    for (size_t m = 0; m < sizeof all_b / sizeof all_b[0]; m++)
        kryl_backend_csr_release(ctx, all_b[m]);
    return done;
}

/* The backend's amg_products of A and T against the host's: equal up to rounding. */
static void compare_products(kryl_context ctx, const kryl_csr *A, const kryl_csr *T, double omega,
                             bool symmetric, const int32_t *perm, const int32_t *perm_b,
                             const char *label)
{
    kryl_csr P, R, Ac, hP, hR, hAc;
    bool done = backend_products_of(ctx, A, T, omega, symmetric, perm_b, &P, &R, &Ac);
    CHECK(done, "%s: amg_products declined a %lld-row level", label, (long long)A->nrows);
    if (!done) return;
    host_products_of(A, T, omega, perm, &hP, &hR, &hAc);
    CHECK(csr_close(&P, &hP) && csr_close(&R, &hR) && csr_close(&Ac, &hAc),
          "%s: amg_products (omega %g%s) differs from the host's products", label, omega,
          perm ? ", rows permuted" : "");
    kryl_csr *all[] = {&P, &R, &Ac, &hP, &hR, &hAc};
    for (size_t m = 0; m < sizeof all / sizeof all[0]; m++) kryl_csr_free(all[m]);
}

/* A backend's amg_products against the host's products of the same CSR: a
 * nonsymmetric A, smoothed and plain, rows permuted, and a zero a_ii
 * refused. */
static void check_products_against_host(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                                        const char *name)
{
    (void)ref;
    (void)kind;
    if (ctx->ops->amg_products == NULL) return;
    kryl_matrix M = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 37);
    kryl_csr *A = &M->host->csr, T;
    int64_t n = A->nrows;
    tentative_of(n, &T);
    /* the reversed rows as a sorted format's order */
    int32_t *perm = malloc((size_t)n * sizeof *perm), *perm_b = NULL;
    for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)(n - 1 - i);
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&perm_b, (size_t)n * sizeof *perm));
    CHECK_OK(ctx->ops->upload(ctx, perm_b, perm, (size_t)n * sizeof *perm));
    for (int v = 0; v < 3; v++) {
        bool smoothed = v > 0, permuted = v == 2;
        compare_products(ctx, A, &T, smoothed ? 0.6 : 0.0, false, permuted ? perm : NULL,
                         permuted ? perm_b : NULL, name);
    }
    /* a zero a_ii: refused by name, nothing left held */
    kryl_device_memory before;
    CHECK_OK(kryl_context_device_memory(ctx, &before));
    int64_t d = kryl_csr_find(A, 11, 11);
    double keep = A->values[d];
    A->values[d] = 0.0;
    bool done = false;
    kryl_backend_csr bA, bT, bP = {0}, bR = {0}, bAc = {0};
    backend_copy(ctx, A, &bA);
    backend_copy(ctx, &T, &bT);
    kryl_device_memory uploaded;
    CHECK_OK(kryl_context_device_memory(ctx, &uploaded));
    CHECK_STATUS(ctx->ops->amg_products(ctx, &bA, &bT, 0.6, false, NULL, &bP, &bR, &bAc, &done),
                 KRYL_ERR_ZERO_DIAGONAL);
    CHECK(strstr(kryl_last_error(), "row 11 ") != NULL, "%s: zero diagonal: %s", name,
          kryl_last_error());
    kryl_device_memory after;
    CHECK_OK(kryl_context_device_memory(ctx, &after));
    CHECK(after.in_use == uploaded.in_use, "%s: a refused amg_products left %lld bytes held", name,
          (long long)(after.in_use - uploaded.in_use));
    kryl_backend_csr_release(ctx, &bA);
    kryl_backend_csr_release(ctx, &bT);
    CHECK_OK(kryl_context_device_memory(ctx, &after));
    CHECK(after.in_use == before.in_use, "%s: %lld bytes left held", name,
          (long long)(after.in_use - before.in_use));
    A->values[d] = keep;
    ctx->ops->release(ctx, perm_b);
    free(perm);
    kryl_csr_free(&T);
    kryl_matrix_destroy(&M);
}

/* T of n rows, `width` columns per aggregate of `size` rows (an
 * aggregate's near-nullspace of `width` vectors): row i has aggregate
 * i / size's columns, random values; every eleventh row in none where
 * `gaps`. */
static void block_tentative_of(int64_t n, int64_t size, int width, bool gaps, kryl_csr *T)
{
    int64_t aggregates = (n + size - 1) / size;
    CHECK_OK(kryl_csr_alloc(T, n, aggregates * width, n * width));
    test_random_values(T->values, n * width, 13);
    for (int64_t i = 0; i < n; i++) {
        bool member = !gaps || i % 11 != 5;
        T->row_ptr[i + 1] = T->row_ptr[i] + (member ? width : 0);
        for (int c = 0; member && c < width; c++)
            T->col_idx[T->row_ptr[i] + c] = (int32_t)(i / size * width + c);
    }
}

/* The symmetric n x n arrowhead with a tridiagonal band: a_00 = n + 2, a_ii
 * = 4, a_0j = a_j0 = -1, a_i,i+1 = a_i+1,i = -1 (row 0 full, so are the
 * products' rows). */
static void arrowhead_of(int64_t n, kryl_csr *A)
{
    /* row 0: n entries; every other row: column 0 and the band, at most 4 */
    CHECK_OK(kryl_csr_alloc(A, n, n, 5 * n));
    for (int64_t i = 0; i < n; i++) {
        int64_t at = A->row_ptr[i];
        for (int64_t j = 0; j < n; j++) {
            bool band = j == i || j == i - 1 || j == i + 1;
            if (i != 0 && !band && j != 0) continue;
            A->col_idx[at] = (int32_t)j;
            A->values[at++] = j == i ? (i == 0 ? (double)n + 2.0 : 4.0) : -1.0;
        }
        A->row_ptr[i + 1] = at;
    }
}

/* compare_products on a generated grid (symmetric: A_c made so on the
 * backend), T of aggregates of `size` rows and `width` columns. */
static void compare_symmetric_products(kryl_context ctx, kryl_generator_kind kind, int64_t n,
                                       int64_t size, int width, bool gaps, const char *label)
{
    kryl_matrix M = kt_generate(ctx, kind, n);
    kryl_csr T;
    block_tentative_of(M->host->csr.nrows, size, width, gaps, &T);
    compare_products(ctx, &M->host->csr, &T, 0.6, true, NULL, NULL, label);
    kryl_csr_free(&T);
    kryl_matrix_destroy(&M);
}

/* A backend's amg_products against the host's on awkward shapes: one
 * aggregate; rows of A and T without entries; six columns per aggregate
 * (the rigid-body modes' width); few coarse columns under rows of many
 * products; rows of more entries than the backend's tables in fast memory
 * hold (a full row, a full coarse matrix). */
static void check_product_shapes(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                                 const char *name)
{
    (void)ref;
    (void)kind;
    if (ctx->ops->amg_products == NULL) return;
    char label[160];
    kryl_matrix M = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 37);
    const kryl_csr *A = &M->host->csr;
    int64_t n = A->nrows;
    kryl_csr T, E;
    /* one aggregate */
    block_tentative_of(n, n, 1, true, &T);
    snprintf(label, sizeof label, "%s, one aggregate", name);
    compare_products(ctx, A, &T, 0.6, false, NULL, NULL, label);
    kryl_csr_free(&T);
    /* every fifth row of A empty (plain: no diagonal to divide by) */
    CHECK_OK(kryl_csr_alloc(&E, n, n, kryl_csr_nnz(A)));
    for (int64_t i = 0; i < n; i++) {
        int64_t len = i % 5 == 2 ? 0 : A->row_ptr[i + 1] - A->row_ptr[i];
        E.row_ptr[i + 1] = E.row_ptr[i] + len;
        memcpy(E.col_idx + E.row_ptr[i], A->col_idx + A->row_ptr[i], (size_t)len * sizeof(int32_t));
        memcpy(E.values + E.row_ptr[i], A->values + A->row_ptr[i], (size_t)len * sizeof(double));
    }
    tentative_of(n, &T);
    snprintf(label, sizeof label, "%s, empty rows", name);
    compare_products(ctx, &E, &T, 0.0, false, NULL, NULL, label);
    kryl_csr_free(&T);
    kryl_csr_free(&E);
    /* six columns per aggregate of nine rows */
    block_tentative_of(n, 9, 6, true, &T);
    snprintf(label, sizeof label, "%s, six columns per aggregate", name);
    compare_products(ctx, A, &T, 0.6, false, NULL, NULL, label);
    kryl_csr_free(&T);
    kryl_matrix_destroy(&M);
    /* 216 coarse columns, R (A P)'s rows thousands of products (a coarse level's, by dense rows) */
    snprintf(label, sizeof label, "%s, 27-point 12^3, aggregates of eight rows", name);
    compare_symmetric_products(ctx, KRYL_GEN_POISSON3D27, 12, 8, 1, false, label);
    /* R (A P)'s rows in several of the product's bins; aggregates of two
     * vectors, every eleventh row in none */
    snprintf(label, sizeof label, "%s, 7-point 14^3, two vectors", name);
    compare_symmetric_products(ctx, KRYL_GEN_POISSON3D7, 14, 4, 2, true, label);
    /* full rows: aggregates of three rows (rows of 834 entries), two (1250), one (2500) */
    kryl_csr W;
    arrowhead_of(2500, &W);
    for (int64_t size = 3; size >= 1; size--) {
        block_tentative_of(W.nrows, size, 1, false, &T);
        snprintf(label, sizeof label, "%s, arrowhead %lld, aggregates of %lld", name,
                 (long long)W.nrows, (long long)size);
        compare_products(ctx, &W, &T, 0.5, true, NULL, NULL, label);
        kryl_csr_free(&T);
    }
    kryl_csr_free(&W);
}

/* A backend's amg_tentative against the host's QR of the same
 * near-nullspace, B = 1 (w NULL) and B = sqrt(w) for whole w: aggregates
 * scattered over the rows, every eleventh row in none. */
static void check_tentative_against_host(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                                         const char *name)
{
    (void)ref;
    (void)kind;
    if (ctx->ops->amg_tentative == NULL) return;
    const kryl_backend_ops *ops = ctx->ops;
    const int64_t n = 1000, count = 150;
    int32_t *aggregate = malloc((size_t)n * sizeof *aggregate), *aggregate_b = NULL;
    double *w = malloc((size_t)n * sizeof *w), *B = malloc((size_t)n * sizeof *B);
    double *wc = malloc((size_t)count * sizeof *wc), *w_b = NULL, *wc_b = NULL;
    for (int64_t i = 0; i < n; i++) {
        aggregate[i] = i % 11 == 4 ? -1 : (int32_t)(i % count);
        w[i] = (double)(1 + i % 5);
    }
    CHECK_OK(ops->alloc(ctx, (void **)&aggregate_b, (size_t)n * sizeof *aggregate));
    CHECK_OK(ops->alloc(ctx, (void **)&w_b, (size_t)n * sizeof *w));
    CHECK_OK(ops->alloc(ctx, (void **)&wc_b, (size_t)count * sizeof *wc));
    CHECK_OK(ops->upload(ctx, aggregate_b, aggregate, (size_t)n * sizeof *aggregate));
    CHECK_OK(ops->upload(ctx, w_b, w, (size_t)n * sizeof *w));
    for (int weighted = 0; weighted < 2; weighted++) {
        for (int64_t i = 0; i < n; i++) B[i] = weighted ? sqrt(w[i]) : 1.0;
        kryl_backend_csr T = {0};
        kryl_csr Tc = {0}, H = {0};
        double *Bc = NULL;
        int64_t nc = 0;
        CHECK_OK(ops->amg_tentative(ctx, n, aggregate_b, count, weighted ? w_b : NULL, wc_b, &T));
        CHECK_OK(amg_backend_csr_download(ctx, &T, &Tc));
        CHECK_OK(ops->download(ctx, wc, wc_b, (size_t)count * sizeof *wc));
        CHECK_OK(amg_tentative(aggregate, count, B, n, 1, &H, &Bc, &nc));
        bool same = nc == count && csr_close(&Tc, &H);
        for (int64_t j = 0; same && j < count; j++)
            same = fabs(sqrt(wc[j]) - Bc[j]) <= 1e-14 * Bc[j];
        CHECK(same, "%s: amg_tentative (%s) differs from the host's QR", name,
              weighted ? "B = sqrt(w)" : "B = 1");
        kryl_backend_csr_release(ctx, &T);
        kryl_csr_free(&Tc);
        kryl_csr_free(&H);
        free(Bc);
    }
    ops->release(ctx, aggregate_b);
    ops->release(ctx, w_b);
    ops->release(ctx, wc_b);
    free(aggregate);
    free(w);
    free(B);
    free(wc);
}

/* Other values on A's pattern (kryl_matrix_csr_view's order): off-diagonal
 * entries scaled by a symmetric weight, the diagonal made dominant again;
 * *B is a new matrix of them. */
static double *reweighted(kryl_context ctx, kryl_matrix A, kryl_matrix *B)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t n = kt_rows(A);
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &v));
    int64_t *cols = malloc((size_t)rp[n] * sizeof *cols);
    double *w = malloc((size_t)rp[n] * sizeof *w);
    for (int64_t i = 0; i < n; i++) {
        double off = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = ci[k], lo = i < j ? i : j, hi = i < j ? j : i;
            cols[k] = j;
            w[k] = v[k] * (1.0 + 0.5 * (double)((lo * 7 + hi * 3) % 5));
            if (j != i) off += fabs(w[k]);
        }
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) w[k] = off + 0.25;
    }
    CHECK_OK(kryl_matrix_create_csr(B, ctx, n, n, 0, n, rp, cols, w));
    free(cols);
    return w;
}

/* New values on the same pattern (reweighted's) and the hierarchy set up
 * again (kryl_solver_update) with the multicolor smoothers on 3-D coarse
 * levels, whose colorings are sparsified (on cuda from host copies of
 * levels built on the device): the solve after it converges for the new
 * matrix by the true residual. */
static void check_smoother_resetup(kryl_context ctx, kryl_amg_coarsening coarsening)
{
    const kryl_amg_smoother smoothers[] = {KRYL_AMG_MCGS, KRYL_AMG_ILU0};
    for (size_t m = 0; m < sizeof smoothers / sizeof smoothers[0]; m++) {
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF3D, 20), B = NULL;
        const int64_t n = kt_rows(A);
        double *values = reweighted(ctx, A, &B), *bh = kt_rhs(A, 1);
        double *xh = malloc((size_t)n * sizeof *xh);
        kryl_solver_options o;
        amg_options(&o, KRYL_METHOD_GMRES);
        o.amg.coarsening = coarsening;
        o.amg.smoother = smoothers[m];
        kryl_solver s = NULL;
        kryl_vector b = NULL, x = NULL;
        CHECK_OK(kryl_solver_create(&s, A, &o));
        CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
        CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
        if (s != NULL && b != NULL && x != NULL) {
            CHECK_OK(kryl_vector_set(b, bh, n));
            CHECK_OK(kryl_matrix_update_values(A, values));
            CHECK_OK(kryl_solver_update(s));
            kryl_result r;
            CHECK_OK(kryl_solver_solve(s, b, x, &r));
            CHECK_OK(kryl_vector_get(x, xh, n));
            double rounding = 0.0, relres = kt_host_relres(A, xh, bh, &rounding);
            CHECK(r.converged && relres <= 1e-8 + rounding,
                  "%s: %s smoother after new values: converged %d, true relres %.3g",
                  kryl_backend_name(kryl_context_backend(ctx)),
                  kryl_amg_smoother_name(smoothers[m]), (int)r.converged, relres);
        }
        kryl_vector_destroy(&b);
        kryl_vector_destroy(&x);
        kryl_solver_destroy(&s);
        free(values);
        free(bh);
        free(xh);
        kryl_matrix_destroy(&B);
        kryl_matrix_destroy(&A);
    }
}

/* kryl_solver_update after new values gives the hierarchy a fresh setup gives. */
static void check_resetup_on(kryl_backend_kind backend)
{
    kryl_context ctx = kt_context(backend);
    const kryl_amg_aggregation kinds[2] = {KRYL_AMG_SMOOTHED, KRYL_AMG_PLAIN};
    for (int a = 0; a < 2; a++) {
        kryl_matrix A1 = kt_generate(ctx, KRYL_GEN_POISSON3D7, 14), A2 = NULL;
        double *values = reweighted(ctx, A1, &A2);
        kryl_solver_options o;
        amg_options(&o, KRYL_METHOD_PCG);
        o.amg.aggregation = kinds[a];
        o.amg.smoother = a ? KRYL_AMG_MCGS : KRYL_AMG_CHEBYSHEV;
        /* aggregates of the pattern alone: a fresh setup of the new values finds them too */
        o.amg.coarse_theta = 0.0;
        kryl_solver s1 = NULL, s2 = NULL;
        CHECK_OK(kryl_solver_create(&s1, A1, &o));
        CHECK_OK(kryl_solver_create(&s2, A2, &o));
        if (s1 == NULL || s2 == NULL) continue;
        CHECK_OK(kryl_matrix_update_values(A1, values));
        CHECK_OK(kryl_solver_update(s1));
        free(values);
        const amg_hierarchy *h1 = hierarchy_of(s1), *h2 = hierarchy_of(s2);
        CHECK(h1->nlevels == h2->nlevels && h1->nlevels >= 3, "resetup: %d levels, fresh %d",
              h1->nlevels, h2->nlevels);
        compare_levels(h1, h2, "resetup");
        for (int l = 0; l < h1->nlevels && l < h2->nlevels; l++)
            CHECK(h1->levels[l].lambda_max == h2->levels[l].lambda_max,
                  "resetup: lambda_max of level %d", l);
        /* the same cycle: z = M r agrees */
        int64_t n = kt_rows(A2);
        double *rh = kt_rhs(A2, 3), *z1 = malloc((size_t)n * sizeof *z1),
               *z2 = malloc((size_t)n * sizeof *z2);
        kryl_vector r = NULL, z = NULL;
        CHECK_OK(kryl_vector_create(&r, A2, KRYL_DOUBLE));
        CHECK_OK(kryl_vector_create(&z, A2, KRYL_DOUBLE));
        CHECK_OK(kryl_vector_set(r, rh, n));
        CHECK_OK(s1->pc->apply(s1->pc, r, z));
        CHECK_OK(kryl_vector_get(z, z1, n));
        CHECK_OK(s2->pc->apply(s2->pc, r, z));
        CHECK_OK(kryl_vector_get(z, z2, n));
        CHECK(test_rel_diff(z1, z2, n) <= 1e-14, "resetup: the cycles differ by %g",
              test_rel_diff(z1, z2, n));
        free(rh);
        free(z1);
        free(z2);
        kryl_vector_destroy(&r);
        kryl_vector_destroy(&z);
        kryl_solver_destroy(&s1);
        kryl_solver_destroy(&s2);
        kryl_matrix_destroy(&A1);
        kryl_matrix_destroy(&A2);
    }
    kryl_context_destroy(&ctx);
}

#endif
