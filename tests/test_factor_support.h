/* Checks of a backend's numeric IC(0)/ILU(0) on a kept pattern (the ops
 * factor_setup, factor_numeric, factor_trsv) against the host
 * factorizations of src/factor: on generated, random and real matrices,
 * in natural and in a random symmetric order, the solve U^{-1} L^{-1} b
 * through the backend's triangles equals the host factors' within 1e-12
 * (on the host backends the factor itself is the host's bit for bit);
 * a refactorization for new values on the same pattern equals a fresh
 * host factorization of them; failures name the row and kind the host
 * factorization names.  Used by test_factor_backend (ref, omp) and
 * test_cuda_factor (cuda). */
#ifndef KRYL_TEST_FACTOR_SUPPORT_H
#define KRYL_TEST_FACTOR_SUPPORT_H

#include <math.h>
#include <string.h>

#include "backends/ref/ref_factor.h"
#include "factor/factor_internal.h"
#include "factor/factor_pattern.h"
#include "test_krylov_support.h"
#include "trsv_support.h"

/* B = P A P^T with row i of B = row perm[i] of A (perm NULL: a copy). */
static void tf_permuted(const kryl_csr *A, const int32_t *perm, kryl_csr *B)
{
    const int64_t n = A->nrows;
    int32_t *inv = malloc((size_t)(n > 0 ? n : 1) * sizeof *inv);
    for (int64_t i = 0; i < n; i++) inv[perm ? perm[i] : i] = (int32_t)i;
    CHECK_OK(kryl_csr_alloc(B, n, n, kryl_csr_nnz(A)));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = perm ? perm[i] : i;
        for (int64_t e = A->row_ptr[r]; e < A->row_ptr[r + 1]; e++, k++) {
            B->col_idx[k] = inv[A->col_idx[e]];
            B->values[k] = A->values[e];
        }
        B->row_ptr[i + 1] = k;
    }
    CHECK_OK(kryl_csr_sort_and_sum(B));
    free(inv);
}

/* A random permutation of n (Fisher-Yates, deterministic in seed). */
static int32_t *tf_random_perm(int64_t n, uint64_t seed)
{
    int32_t *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    for (int64_t i = 0; i < n; i++) p[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const int64_t j = (int64_t)((seed >> 33) % (uint64_t)(i + 1));
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

/* The host factorization of kind of B (status returned, F filled on success). */
static kryl_status tf_host_factor(kryl_factor_kind kind, const kryl_csr *B, kryl_factor *F)
{
    return kind == KRYL_FACTOR_IC0 ? kryl_factor_ic0(B, F) : kryl_factor_ilu0(B, F);
}

/* The backend's status for pivots as the preconditioners turn it into one. */
static kryl_status tf_pivot_status(kryl_factor_kind kind, const kryl_factor_pivots *pv)
{
    if (pv->row < 0) return KRYL_SUCCESS;
    return kryl_factor_pivot_error(kind, kind == KRYL_FACTOR_IC0 ? "ic0" : "ilu0", pv->what,
                                   pv->row, pv->value);
}

/* x = U^{-1} L^{-1} b through the backend's triangles of the handle. */
static void tf_backend_solve(kryl_context ctx, void *L, void *U, int64_t n, const double *b,
                             double *x)
{
    void *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    struct kryl_vector_s bv = test_trsv_vector(ctx, n, KRYL_DOUBLE),
                         wv = test_trsv_vector(ctx, n, KRYL_DOUBLE);
    test_trsv_upload(ctx, &bv, b, 1.0, buf);
    CHECK_OK(ctx->ops->trsv(ctx, L, &bv, &wv));
    CHECK_OK(ctx->ops->trsv(ctx, U, &wv, &bv));
    test_trsv_download(ctx, &bv, buf, x);
    ctx->ops->release(ctx, bv.data);
    ctx->ops->release(ctx, wv.data);
    free(buf);
}

/* A host copy of the pattern a backend's handle holds (the cuda backend's
 * kryl_cuda_factor_download; NULL: the backend's own analysis is checked
 * by its factors alone), and the checks of that analysis made so far. */
typedef kryl_status (*tf_download_fn)(kryl_context ctx, const void *handle, kryl_factor_pattern *P);
static tf_download_fn tf_download = NULL;
static int tf_analysed = 0;

/* Whether the levels of a backend's schedule are the host's. */
static bool tf_same_levels(const kryl_levels *a, const kryl_levels *b, int64_t n)
{
    if (a->nlevels != b->nlevels) return false;
    for (int32_t l = 0; l <= a->nlevels; l++)
        if (a->level_ptr[l] != b->level_ptr[l]) return false;
    for (int64_t i = 0; i < n; i++)
        if (a->order[i] != b->order[i]) return false;
    return true;
}

/* The backend's pattern D (downloaded) against the host's H, part by part. */
static void tf_check_pattern(const kryl_factor_pattern *H, const kryl_factor_pattern *D,
                             const char *what)
{
    const int64_t n = H->n, nnz = n > 0 ? H->ptr[n] : 0;
    CHECK(D->n == n && D->a_nnz == H->a_nnz && D->kind == H->kind,
          "%s: the backend's pattern has %lld rows of %lld entries, the host's %lld of %lld", what,
          (long long)D->n, (long long)D->a_nnz, (long long)n, (long long)H->a_nnz);
    if (D->n != n) return;
    bool rows = true, entries = true, upper = true;
    for (int64_t i = 0; i <= n; i++) rows = rows && D->ptr[i] == H->ptr[i];
    for (int64_t i = 0; i < n && rows; i++) rows = D->diag[i] == H->diag[i];
    for (int64_t e = 0; e < nnz && rows; e++)
        entries = entries && D->col[e] == H->col[e] && D->source[e] == H->source[e];
    for (int64_t i = 0; i <= n && H->kind == KRYL_FACTOR_IC0; i++)
        upper = upper && D->upper.row_ptr[i] == H->upper.row_ptr[i];
    for (int64_t e = 0; e < nnz && H->kind == KRYL_FACTOR_IC0 && upper; e++)
        upper = D->upper.col_idx[e] == H->upper.col_idx[e];
    CHECK(rows && entries && upper, "%s: the backend's pattern differs from the host's in its %s",
          what,
          !rows      ? "row offsets or diagonal positions"
          : !entries ? "columns or value sources"
                     : "transposed pattern");
    CHECK(tf_same_levels(&D->levels_L, &H->levels_L, n),
          "%s: L's levels (%d) differ from the host's (%d)", what, (int)D->levels_L.nlevels,
          (int)H->levels_L.nlevels);
    CHECK(tf_same_levels(&D->levels_U, &H->levels_U, n),
          "%s: U's levels (%d) differ from the host's (%d)", what, (int)D->levels_U.nlevels,
          (int)H->levels_U.nlevels);
}

/* Whether the backend analyses A's pattern itself (factor_analyse). */
static bool tf_backend_analyses(kryl_context ctx, kryl_matrix A)
{
    const kryl_backend_ops *ops = ctx->ops;
    return ops->factor_analyse && ops->factor_schedule && ops->matrix_csr_arrays &&
           kryl_matrix_natural_csr(A);
}

/* *handle = the backend's symbolic analysis of A's stored CSR (the
 * pattern compared with the host's P where that exists). */
static kryl_status tf_analyse(kryl_context ctx, kryl_matrix A, kryl_factor_kind kind,
                              const kryl_factor_pattern *P, const char *what, void **handle)
{
    const kryl_backend_ops *ops = ctx->ops;
    int64_t *row_ptr = NULL;
    int32_t *col_idx = NULL;
    double *values = NULL;
    bool own = false;
    CHECK_OK(ops->matrix_csr_arrays(ctx, A, &row_ptr, &own, &col_idx, &values));
    kryl_factor_shape shape;
    kryl_status st =
        ops->factor_analyse(ctx, A->host->csr.nrows, row_ptr, col_idx, kind == KRYL_FACTOR_IC0,
                            kind == KRYL_FACTOR_IC0 ? "ic0" : "ilu0", &shape, handle);
    if (own) ops->release(ctx, row_ptr);
    if (st != KRYL_SUCCESS) return st;
    CHECK_OK(ops->factor_schedule(ctx, *handle, &shape));
    tf_analysed++;
    if (P->ptr == NULL) return st;
    const kryl_factor_shape host = kryl_factor_pattern_shape(P);
    CHECK(shape.kind == host.kind && shape.n == host.n && shape.a_nnz == host.a_nnz &&
              shape.nnz_L == host.nnz_L && shape.nnz_U == host.nnz_U &&
              shape.nlevels_L == host.nlevels_L && shape.nlevels_U == host.nlevels_U,
          "%s: the backend's shape (L %lld entries %d levels, U %lld %d) is not the host's "
          "(L %lld %d, U %lld %d)",
          what, (long long)shape.nnz_L, (int)shape.nlevels_L, (long long)shape.nnz_U,
          (int)shape.nlevels_U, (long long)host.nnz_L, (int)host.nlevels_L, (long long)host.nnz_U,
          (int)host.nlevels_U);
    if (tf_download == NULL) return st;
    kryl_factor_pattern D;
    const kryl_status got = tf_download(ctx, *handle, &D);
    CHECK(got == KRYL_SUCCESS, "%s: the backend's pattern cannot be downloaded: %s", what,
          kryl_last_error());
    if (got == KRYL_SUCCESS) tf_check_pattern(P, &D, what);
    kryl_factor_pattern_free(&D);
    return st;
}

/* The backend's factor of A (on ctx) in perm's order against the host's,
 * then again for A's values scaled row-wise (same pattern), its symbolic
 * part from the host's pattern or (analysed) the backend's own analysis.
 * Returns whether the factorization existed. */
static bool tf_check_built(kryl_context ctx, kryl_matrix A, kryl_factor_kind kind,
                           const int32_t *perm, bool analysed, const char *what)
{
    const kryl_csr *csr = &A->host->csr;
    const int64_t n = csr->nrows;
    const bool host_backend =
        ctx->ops->factor_numeric != NULL && strcmp(ctx->ops->name, "cuda") != 0;
    kryl_csr B = {0};
    tf_permuted(csr, perm, &B);
    kryl_factor F = {0};
    kryl_status host = tf_host_factor(kind, &B, &F);
    char host_msg[512];
    snprintf(host_msg, sizeof host_msg, "%s", kryl_last_error());
    kryl_factor_pattern P;
    kryl_status st =
        kryl_factor_pattern_build(csr, perm, kind, 2, kind == KRYL_FACTOR_IC0 ? "ic0" : "ilu0", &P);
    void *handle = NULL, *L = NULL, *U = NULL;
    char pattern_msg[512];
    snprintf(pattern_msg, sizeof pattern_msg, "%s", kryl_last_error());
    if (analysed) {
        const kryl_status host_pattern = st;
        st = tf_analyse(ctx, A, kind, &P, what, &handle);
        CHECK(st == host_pattern, "%s: the backend's analysis says %s, the host's %s", what,
              kryl_strerror(st), kryl_strerror(host_pattern));
        if (st != KRYL_SUCCESS && st == host_pattern)
            CHECK(strcmp(kryl_last_error(), pattern_msg) == 0, "%s: '%s', the host '%s'", what,
                  kryl_last_error(), pattern_msg);
    } else if (st == KRYL_SUCCESS) {
        CHECK_OK(ctx->ops->factor_setup(ctx, &P, &handle));
    }
    kryl_factor_pivots pv = {-1, -1, 0.0, -1, 0.0, 0.0};
    if (st == KRYL_SUCCESS && handle) {
        CHECK_OK(ctx->ops->factor_numeric(ctx, handle, A, 0.0, &pv));
        st = tf_pivot_status(kind, &pv);
    }
    CHECK(st == host, "%s on %s: the backend says %s, the host %s (%s)", what, ctx->ops->name,
          kryl_strerror(st), kryl_strerror(host), host_msg);
    if (st != KRYL_SUCCESS && st == host && host_backend)
        CHECK(strcmp(kryl_last_error(), host_msg) == 0, "%s on %s: '%s', the host '%s'", what,
              ctx->ops->name, kryl_last_error(), host_msg);
    const bool exists = st == KRYL_SUCCESS && host == KRYL_SUCCESS;
    if (exists) {
        CHECK_OK(ctx->ops->factor_trsv(ctx, handle, true, KRYL_DOUBLE, &L));
        CHECK_OK(ctx->ops->factor_trsv(ctx, handle, false, KRYL_DOUBLE, &U));
    }
    for (int round = 0; round < 2 && exists && L && U; round++) {
        /* round 1: new values on the same pattern, factored on the kept one */
        if (round == 1) {
            double *w = malloc((size_t)(kryl_csr_nnz(csr) > 0 ? kryl_csr_nnz(csr) : 1) * sizeof *w);
            for (int64_t i = 0; i < n; i++)
                for (int64_t e = csr->row_ptr[i]; e < csr->row_ptr[i + 1]; e++)
                    w[e] = csr->values[e] * (csr->col_idx[e] == i ? 1.5 : 0.75);
            CHECK_OK(kryl_matrix_update_values(A, w));
            free(w);
            kryl_factor_free(&F);
            kryl_csr_free(&B);
            tf_permuted(csr, perm, &B);
            CHECK_OK(tf_host_factor(kind, &B, &F));
            CHECK_OK(ctx->ops->factor_numeric(ctx, handle, A, 0.0, &pv));
            CHECK(pv.row < 0, "%s on %s: the refactorization fails at row %lld", what,
                  ctx->ops->name, (long long)pv.row);
            CHECK_OK(ctx->ops->factor_trsv(ctx, handle, true, KRYL_DOUBLE, &L));
            CHECK_OK(ctx->ops->factor_trsv(ctx, handle, false, KRYL_DOUBLE, &U));
        }
        if (host_backend) {
            /* the host factor bit for bit */
            const kryl_host_factor *H = handle;
            kryl_csr T = {0};
            CHECK_OK(kryl_factor_pattern_triangle(&P, H->c, true, &T));
            int64_t same = 0, nnz = kryl_csr_nnz(&F.L);
            for (int64_t k = 0; k < nnz && kryl_csr_nnz(&T) == nnz; k++)
                same += T.values[k] == F.L.values[k] && T.col_idx[k] == F.L.col_idx[k];
            CHECK(same == nnz && kryl_csr_nnz(&T) == nnz,
                  "%s on %s (round %d): %lld of %lld entries of L equal the host's", what,
                  ctx->ops->name, round, (long long)same, (long long)nnz);
            kryl_csr_free(&T);
        }
        double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
        double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
        double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
        test_random_values(b, n, 11 + (uint64_t)n);
        CHECK_OK(kryl_factor_solve_host(&F, b, y));
        tf_backend_solve(ctx, L, U, n, b, x);
        const double diff = test_rel_diff(x, y, n);
        CHECK(diff <= 1e-12,
              "%s on %s (round %d, n = %lld): U^-1 L^-1 b differs from the host's by %.3e", what,
              ctx->ops->name, round, (long long)n, diff);
        free(b);
        free(x);
        free(y);
    }
    if (L) ctx->ops->trsv_release(ctx, L);
    if (U) ctx->ops->trsv_release(ctx, U);
    if (handle) ctx->ops->factor_release(ctx, handle);
    kryl_factor_pattern_free(&P);
    kryl_factor_free(&F);
    kryl_csr_free(&B);
    return exists;
}

/* tf_check_built from the host's pattern, then, where the backend
 * analyses A's stored CSR itself (natural order), from its analysis. */
static bool tf_check(kryl_context ctx, kryl_matrix A, kryl_factor_kind kind, const int32_t *perm,
                     const char *what)
{
    const bool exists = tf_check_built(ctx, A, kind, perm, false, what);
    if (perm != NULL || !tf_backend_analyses(ctx, A)) return exists;
    char analysed[200];
    snprintf(analysed, sizeof analysed, "%s (analysed by the backend)", what);
    CHECK(tf_check_built(ctx, A, kind, NULL, true, analysed) == exists,
          "%s: the factor exists from one analysis only", analysed);
    return exists;
}

/* A symmetric positive definite matrix on ctx with the pattern of R + R^T
 * (R random of the shape) and a dominant diagonal; `spoil` >= 0 makes that
 * row's diagonal negative. */
static kryl_matrix tf_spd(kryl_context ctx, test_shape shape, int64_t n, uint64_t seed,
                          int64_t spoil)
{
    kryl_csr R = {0};
    test_random_csr(&R, shape, n, n, seed);
    double *dense_row = calloc((size_t)n, sizeof *dense_row);
    kryl_assembly asm_ = NULL;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_create(&asm_, ctx, n, n, 0, n));
    for (int64_t i = 0; i < n; i++) {
        double off = 0.0;
        for (int64_t e = R.row_ptr[i]; e < R.row_ptr[i + 1]; e++) {
            const int64_t j = R.col_idx[e];
            if (j == i) continue;
            /* a_ij = a_ji = r_ij (summed with r_ji where both exist) */
            CHECK_OK(kryl_assembly_add_value(asm_, i, j, R.values[e]));
            CHECK_OK(kryl_assembly_add_value(asm_, j, i, R.values[e]));
            off += fabs(R.values[e]);
            dense_row[j] += fabs(R.values[e]);
        }
        dense_row[i] += off;
    }
    for (int64_t i = 0; i < n; i++)
        CHECK_OK(
            kryl_assembly_add_value(asm_, i, i, (i == spoil ? -1.0 : 1.0) * (dense_row[i] + 1.0)));
    CHECK_OK(kryl_assembly_finish(asm_, &A));
    kryl_assembly_destroy(&asm_);
    kryl_csr_free(&R);
    free(dense_row);
    return A;
}

/* A diagonally dominant matrix on ctx with a dense pattern (nonsymmetric
 * values: a_ij = 1 / (1 + |i - j|) + (j > i) / 2), or, general, R's
 * nonsymmetric random pattern of the shape with a dominant diagonal. */
static kryl_matrix tf_unsymmetric(kryl_context ctx, bool dense, test_shape shape, int64_t n,
                                  uint64_t seed)
{
    kryl_csr R = {0};
    if (!dense) test_random_csr(&R, shape, n, n, seed);
    kryl_assembly asm_ = NULL;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_create(&asm_, ctx, n, n, 0, n));
    for (int64_t i = 0; i < n; i++) {
        double off = 0.0;
        const int64_t count = dense ? n : R.row_ptr[i + 1] - R.row_ptr[i];
        for (int64_t t = 0; t < count; t++) {
            const int64_t j = dense ? t : R.col_idx[R.row_ptr[i] + t];
            const double v = dense ? 1.0 / (1.0 + (double)llabs(i - j)) + 0.5 * (j > i)
                                   : R.values[R.row_ptr[i] + t];
            if (j == i) continue;
            CHECK_OK(kryl_assembly_add_value(asm_, i, j, v));
            off += fabs(v);
        }
        CHECK_OK(kryl_assembly_add_value(asm_, i, i, off + 1.0));
    }
    CHECK_OK(kryl_assembly_finish(asm_, &A));
    kryl_assembly_destroy(&asm_);
    kryl_csr_free(&R);
    return A;
}

/* A symmetric positive definite matrix on ctx: a chain (tridiagonal: a
 * level per row in both triangles) or an arrow (row and column 0 dense). */
static kryl_matrix tf_chain_or_arrow(kryl_context ctx, bool arrow, int64_t n)
{
    kryl_assembly asm_ = NULL;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_create(&asm_, ctx, n, n, 0, n));
    for (int64_t i = 1; i < n; i++) {
        const int64_t j = arrow ? 0 : i - 1;
        CHECK_OK(kryl_assembly_add_value(asm_, i, j, -1.0));
        CHECK_OK(kryl_assembly_add_value(asm_, j, i, -1.0));
    }
    for (int64_t i = 0; i < n; i++)
        CHECK_OK(kryl_assembly_add_value(asm_, i, i, arrow && i == 0 ? (double)n + 1.0 : 3.0));
    CHECK_OK(kryl_assembly_finish(asm_, &A));
    kryl_assembly_destroy(&asm_);
    return A;
}

/* IC(0) and ILU(0) of the awkward triangles of the level schedules: an
 * empty matrix, a chain (a level per row), an arrow (a dense row and
 * column), a random SPD pattern and a 3-D grid of many blocks of rows. */
static void tf_check_schedules(kryl_context ctx)
{
    char what[160];
    kryl_matrix M[5] = {tf_chain_or_arrow(ctx, false, 0), tf_chain_or_arrow(ctx, false, 5000),
                        tf_chain_or_arrow(ctx, true, 3000),
                        tf_spd(ctx, TEST_SHAPE_RANDOM, 30000, 91, -1),
                        kt_generate(ctx, KRYL_GEN_POISSON3D7, 40)};
    const char *name[5] = {"an empty matrix", "a chain of 5000 rows", "an arrow of 3000 rows",
                           "a random SPD matrix of 30000 rows", "the 7-point grid of 40^3"};
    for (int m = 0; m < 5; m++) {
        if (M[m] == NULL) continue;
        for (int k = 0; k < 2; k++) {
            snprintf(what, sizeof what, "%s of %s", k == 0 ? "ic0" : "ilu0", name[m]);
            CHECK(tf_check(ctx, M[m], k == 0 ? KRYL_FACTOR_IC0 : KRYL_FACTOR_ILU0, NULL, what),
                  "%s: expected to exist", what);
        }
        kryl_matrix_destroy(&M[m]);
    }
}

/* Every check on ctx. */
static inline void tf_check_all(kryl_context ctx)
{
    char what[160];
    /* generated: IC(0) and ILU(0) of Poisson, ILU(0) of convection-diffusion */
    kryl_matrix G[3] = {kt_generate(ctx, KRYL_GEN_POISSON2D5, 23),
                        kt_generate(ctx, KRYL_GEN_POISSON3D7, 9),
                        kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 21)};
    for (int g = 0; g < 3; g++) {
        if (G[g] == NULL) continue;
        int32_t *perm = tf_random_perm(G[g]->host->csr.nrows, 5 + (uint64_t)g);
        for (int order = 0; order < 2; order++) {
            for (int k = g == 2 ? 1 : 0; k < 2; k++) {
                snprintf(what, sizeof what, "%s of generated matrix %d%s", k == 0 ? "ic0" : "ilu0",
                         g, order ? " (random order)" : "");
                CHECK(tf_check(ctx, G[g], k == 0 ? KRYL_FACTOR_IC0 : KRYL_FACTOR_ILU0,
                               order ? perm : NULL, what),
                      "%s: expected to exist", what);
            }
        }
        free(perm);
        kryl_matrix_destroy(&G[g]);
    }
    /* random SPD matrices of awkward shapes and sizes, then one with a negative diagonal */
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (int z = 0; z < test_awkward_size_count; z++) {
            const int64_t n = s == TEST_SHAPE_SINGLE ? 1 : test_awkward_sizes[z];
            if (n > 3000) continue;
            kryl_matrix A = tf_spd(ctx, (test_shape)s, n, 40 + (uint64_t)(s * 16 + z), -1);
            int32_t *perm = tf_random_perm(n, 9 + (uint64_t)z);
            for (int k = 0; k < 2; k++) {
                snprintf(what, sizeof what, "%s of a random SPD %s matrix, n = %lld",
                         k == 0 ? "ic0" : "ilu0", test_shape_name((test_shape)s), (long long)n);
                CHECK(tf_check(ctx, A, k == 0 ? KRYL_FACTOR_IC0 : KRYL_FACTOR_ILU0,
                               k == 0 ? NULL : perm, what),
                      "%s: expected to exist", what);
            }
            free(perm);
            kryl_matrix_destroy(&A);
        }
    /* ILU(0) of nonsymmetric patterns of awkward shapes, and of a dense
     * matrix (full triangles: a level per row) */
    for (int s = 0; s <= TEST_SHAPE_COUNT; s++) {
        const bool dense = s == TEST_SHAPE_COUNT;
        const int64_t n = dense ? 70 : s == TEST_SHAPE_SINGLE ? 1 : 517;
        kryl_matrix A = tf_unsymmetric(ctx, dense, dense ? TEST_SHAPE_RANDOM : (test_shape)s, n,
                                       300 + (uint64_t)s);
        snprintf(what, sizeof what, "ilu0 of a nonsymmetric %s matrix, n = %lld",
                 dense ? "dense" : test_shape_name((test_shape)s), (long long)n);
        CHECK(tf_check(ctx, A, KRYL_FACTOR_ILU0, NULL, what), "%s: expected to exist", what);
        kryl_matrix_destroy(&A);
    }
    tf_check_schedules(ctx);
    kryl_matrix bad = tf_spd(ctx, TEST_SHAPE_RANDOM, 300, 77, 150);
    CHECK(!tf_check(ctx, bad, KRYL_FACTOR_IC0, NULL, "ic0 with a negative diagonal at row 150"),
          "ic0 with a negative diagonal: expected a failure");
    kryl_matrix_destroy(&bad);
    /* real matrices: SPD ones by both, the others by ILU(0) where it exists */
    const char *spd[] = {"bcsstk06.mtx", "nos4.mtx", "494_bus.mtx", "bcsstk15.mtx"};
    const char *general[] = {"sherman1.mtx", "pores_1.mtx", "cage4.mtx",
                             "west0479.mtx", "saylr3.mtx",  "sherman4.mtx"};
    for (int f = 0; f < 4 + 6; f++) {
        const char *file = f < 4 ? spd[f] : general[f - 4];
        kryl_matrix A = kt_read(ctx, file);
        if (A == NULL) continue;
        for (int k = f < 4 ? 0 : 1; k < 2; k++) {
            snprintf(what, sizeof what, "%s of %s", k == 0 ? "ic0" : "ilu0", file);
            tf_check(ctx, A, k == 0 ? KRYL_FACTOR_IC0 : KRYL_FACTOR_ILU0, NULL, what);
        }
        kryl_matrix_destroy(&A);
    }
}

#endif
