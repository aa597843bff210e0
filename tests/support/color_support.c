/* Checks of a backend's Jones-Plassmann coloring against the serial oracle. */
#include "color_support.h"

#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/objects.h"
#include "order/order.h"
#include "test_krylov_support.h"

/* *dst = count entries of src copied to ctx's memory. */
static void *to_backend(kryl_context ctx, const void *src, size_t bytes)
{
    void *dst = NULL;
    CHECK_OK(ctx->ops->alloc(ctx, &dst, bytes));
    if (dst && bytes > 0) CHECK_OK(ctx->ops->upload(ctx, dst, src, bytes));
    return dst;
}

/* ctx's csr_permute and mcsweep against the host's: B = P A P^T by the
 * oracle's color order, then z = M^{-1} r for a random r (omega 1.3). */
static void check_sweep(kryl_context ctx, const kryl_csr *A, const char *label)
{
    const kryl_backend_ops *ops = ctx->ops, *ref = kryl_backend_ref();
    CHECK(ops->csr_permute && ops->mcsweep_setup && ops->mcsweep && ops->mcsweep_release,
          "%s: %s has no multicolor sweep", label, ops->name);
    if (!ops->csr_permute || !ops->mcsweep_setup || !ops->mcsweep || !ops->mcsweep_release) return;
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    kryl_coloring c = {0};
    CHECK_OK(kryl_order_color_jp(A, &c));
    if (c.perm == NULL) return;
    /* the host's B and z */
    kryl_csr B = {0};
    CHECK_OK(kryl_csr_alloc(&B, n, n, nnz));
    CHECK_OK(ref->csr_permute(NULL, n, A->row_ptr, A->col_idx, A->values, c.perm, B.row_ptr,
                              B.col_idx, B.values));
    double *r = malloc((size_t)(n + 1) * sizeof *r), *zref = calloc((size_t)n + 1, sizeof *zref);
    double *z = calloc((size_t)n + 1, sizeof *z);
    test_random_values(r, n, 11);
    struct kryl_vector_s rh = {.n = n, .precision = KRYL_DOUBLE, .data = r};
    struct kryl_vector_s zh = {.n = n, .precision = KRYL_DOUBLE, .data = zref};
    void *hh = NULL;
    CHECK_OK(ref->mcsweep_setup(NULL, n, B.row_ptr, B.col_idx, B.values, c.color_ptr, c.ncolors,
                                1.3, &hh));
    if (hh) CHECK_OK(ref->mcsweep(NULL, hh, &rh, &zh));
    ref->mcsweep_release(NULL, hh);
    /* ctx's */
    const size_t ptr_bytes = ((size_t)n + 1) * sizeof(int64_t);
    int64_t *ptr = to_backend(ctx, A->row_ptr, ptr_bytes), *bptr = NULL;
    int32_t *col = to_backend(ctx, A->col_idx, (size_t)nnz * sizeof *col), *bcol = NULL;
    double *val = to_backend(ctx, A->values, (size_t)nnz * sizeof *val), *bval = NULL;
    int32_t *perm = to_backend(ctx, c.perm, (size_t)n * sizeof *perm);
    CHECK_OK(ops->alloc(ctx, (void **)&bptr, ptr_bytes));
    CHECK_OK(ops->alloc(ctx, (void **)&bcol, (size_t)nnz * sizeof *bcol));
    CHECK_OK(ops->alloc(ctx, (void **)&bval, (size_t)nnz * sizeof *bval));
    CHECK_OK(ops->csr_permute(ctx, n, ptr, col, val, perm, bptr, bcol, bval));
    kryl_csr got = {0};
    CHECK_OK(kryl_csr_alloc(&got, n, n, nnz));
    CHECK_OK(ops->download(ctx, got.row_ptr, bptr, ptr_bytes));
    if (nnz > 0) CHECK_OK(ops->download(ctx, got.col_idx, bcol, (size_t)nnz * sizeof *bcol));
    if (nnz > 0) CHECK_OK(ops->download(ctx, got.values, bval, (size_t)nnz * sizeof *bval));
    bool same = memcmp(got.row_ptr, B.row_ptr, ptr_bytes) == 0 &&
                (nnz == 0 || (memcmp(got.col_idx, B.col_idx, (size_t)nnz * sizeof *bcol) == 0 &&
                              memcmp(got.values, B.values, (size_t)nnz * sizeof *bval) == 0));
    CHECK(same, "%s on %s: csr_permute differs from the host's", label, ops->name);
    struct kryl_vector_s rv = {.ctx = ctx, .n = n, .precision = KRYL_DOUBLE};
    struct kryl_vector_s zv = {.ctx = ctx, .n = n, .precision = KRYL_DOUBLE};
    rv.data = to_backend(ctx, r, (size_t)n * sizeof *r);
    zv.data = to_backend(ctx, z, (size_t)n * sizeof *z);
    void *h = NULL;
    CHECK_OK(ops->mcsweep_setup(ctx, n, bptr, bcol, bval, c.color_ptr, c.ncolors, 1.3, &h));
    if (h) CHECK_OK(ops->mcsweep(ctx, h, &rv, &zv));
    if (n > 0) CHECK_OK(ops->download(ctx, z, zv.data, (size_t)n * sizeof *z));
    ops->mcsweep_release(ctx, h);
    double diff = test_rel_diff(z, zref, n);
    CHECK(diff <= 1e-13, "%s on %s: mcsweep differs from the host's by %.3e", label, ops->name,
          diff);
    void *blocks[] = {ptr, col, val, perm, bptr, bcol, bval, rv.data, zv.data};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) ops->release(ctx, blocks[k]);
    kryl_csr_free(&got);
    kryl_csr_free(&B);
    kryl_coloring_free(&c);
    free(r);
    free(z);
    free(zref);
}

void test_check_color_rows(kryl_context ctx, const kryl_csr *A, const char *label)
{
    const kryl_backend_ops *ops = ctx->ops;
    CHECK(ops->color_rows != NULL && ops->color_group != NULL, "%s: %s has no coloring", label,
          ops->name);
    if (ops->color_rows == NULL || ops->color_group == NULL) return;
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    const size_t rows = (size_t)(n > 0 ? n : 1) * sizeof(int32_t);
    kryl_coloring want = {0}, got = {0};
    CHECK_OK(kryl_order_color_jp(A, &want));
    int64_t *ptr = to_backend(ctx, A->row_ptr, ((size_t)n + 1) * sizeof *ptr);
    int32_t *col = to_backend(ctx, A->col_idx, (size_t)nnz * sizeof *col);
    int32_t *color = NULL, *perm = NULL;
    CHECK_OK(ops->alloc(ctx, (void **)&color, rows));
    CHECK_OK(ops->alloc(ctx, (void **)&perm, rows));
    got.color = malloc(rows);
    got.perm = malloc(rows);
    got.ncolors = -1;
    /* a symmetric pattern also as the caller who knows it says */
    const bool symmetric = kryl_csr_first_unmirrored(A, 1) < 0;
    CHECK_OK(ops->color_rows(ctx, n, ptr, col, false, color, &got.ncolors));
    if (symmetric) {
        int32_t told = -1;
        CHECK_OK(ops->color_rows(ctx, n, ptr, col, true, color, &told));
        CHECK(told == got.ncolors, "%s on %s: %d colors told symmetric, %d not", label, ops->name,
              (int)told, (int)got.ncolors);
    }
    CHECK(got.ncolors == want.ncolors, "%s on %s: %d colors, the oracle %d", label, ops->name,
          (int)got.ncolors, (int)want.ncolors);
    if (got.ncolors == want.ncolors) {
        got.color_ptr = malloc(((size_t)got.ncolors + 1) * sizeof *got.color_ptr);
        CHECK_OK(ops->color_group(ctx, n, color, got.ncolors, perm, got.color_ptr));
        if (n > 0) CHECK_OK(ops->download(ctx, got.color, color, (size_t)n * sizeof *color));
        if (n > 0) CHECK_OK(ops->download(ctx, got.perm, perm, (size_t)n * sizeof *perm));
        int64_t differ = 0, first = -1;
        for (int64_t i = 0; i < n; i++)
            if (got.color[i] != want.color[i] || got.perm[i] != want.perm[i]) {
                differ++;
                first = first < 0 ? i : first;
            }
        CHECK(differ == 0, "%s on %s: %lld rows differ from the oracle (first %lld)", label,
              ops->name, (long long)differ, (long long)first);
        for (int32_t k = 0; k <= got.ncolors; k++)
            CHECK(got.color_ptr[k] == want.color_ptr[k],
                  "%s on %s: color %d starts at %lld, not %lld", label, ops->name, k,
                  (long long)got.color_ptr[k], (long long)want.color_ptr[k]);
        CHECK_OK(kryl_order_color_check(A, 0.0, &got));
    }
    check_sweep(ctx, A, label);
    ops->release(ctx, ptr);
    ops->release(ctx, col);
    ops->release(ctx, color);
    ops->release(ctx, perm);
    kryl_coloring_free(&got);
    kryl_coloring_free(&want);
}

/* The complete graph on n rows (a dense matrix). */
static void complete_graph(kryl_csr *A, int64_t n)
{
    CHECK_OK(kryl_csr_alloc(A, n, n, n * n));
    for (int64_t i = 0; i < n; i++) {
        A->row_ptr[i + 1] = (i + 1) * n;
        for (int64_t j = 0; j < n; j++) {
            A->col_idx[i * n + j] = (int32_t)j;
            A->values[i * n + j] = i == j ? (double)n : -1.0;
        }
    }
}

/* A generated or read matrix's host CSR, checked. */
static void check_matrix(kryl_context ctx, kryl_matrix A, const char *label)
{
    if (A == NULL) {
        printf("%s: absent, skipped\n", label);
        return;
    }
    const kryl_csr *csr = &A->host->csr;
    if (csr->nrows == csr->ncols) test_check_color_rows(ctx, csr, label);
    kryl_matrix_destroy(&A);
}

/* check(ctx, A, label) on generated 2-D and 3-D grids and the real
 * matrices (A NULL for one absent), each label led by `prefix`. */
static void each_matrix(kryl_context ctx, const char *prefix,
                        void (*check)(kryl_context ctx, kryl_matrix A, const char *label))
{
    char label[96];
    const struct {
        kryl_generator_kind kind;
        int64_t n;
    } grids[] = {{KRYL_GEN_POISSON2D5, 1},
                 {KRYL_GEN_POISSON2D5, 97},
                 {KRYL_GEN_POISSON3D7, 33},
                 {KRYL_GEN_POISSON3D27, 20}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        kryl_matrix A = kt_generate(ctx, grids[g].kind, grids[g].n);
        snprintf(label, sizeof label, "%sgenerated grid %d, n=%lld", prefix, (int)grids[g].kind,
                 (long long)grids[g].n);
        check(ctx, A, label);
    }
    const char *files[] = {"bcsstk06.mtx", "494_bus.mtx", "west0479.mtx",
                           "sherman3.mtx", "ca-GrQc.mtx", "rajat11.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        kryl_matrix A = kt_read(ctx, files[f]);
        snprintf(label, sizeof label, "%s%s", prefix, files[f]);
        check(ctx, A, label);
    }
}

void test_color_rows_cases(kryl_context ctx)
{
    char label[96];
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (int k = 0; k < test_awkward_size_count; k++) {
            int64_t n = s == TEST_SHAPE_SINGLE ? 1 : test_awkward_sizes[k];
            kryl_csr A = {0};
            /* random shapes are not symmetric: the coloring couples both ways */
            test_random_csr(&A, (test_shape)s, n, n, 31 + (uint64_t)k);
            snprintf(label, sizeof label, "%s n=%lld", test_shape_name((test_shape)s),
                     (long long)n);
            test_check_color_rows(ctx, &A, label);
            kryl_csr_free(&A);
        }
    kryl_csr empty = {0}, dense = {0};
    CHECK_OK(kryl_csr_alloc(&empty, 0, 0, 0));
    test_check_color_rows(ctx, &empty, "n=0");
    kryl_csr_free(&empty);
    complete_graph(&dense, 150);
    test_check_color_rows(ctx, &dense, "complete graph of 150 rows");
    kryl_csr_free(&dense);
    each_matrix(ctx, "", check_matrix);
}

void test_check_first_fit(kryl_context ctx, const kryl_csr *A, const char *label)
{
    const kryl_backend_ops *ops = ctx->ops;
    CHECK(ops->color_first_fit != NULL, "%s: %s has no first-fit coloring", label, ops->name);
    if (ops->color_first_fit == NULL) return;
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    const size_t rows = (size_t)(n > 0 ? n : 1) * sizeof(int32_t);
    int32_t *want = malloc(rows), *got = malloc(rows), nwant = -1, ngot = -1;
    CHECK_OK(kryl_color_first_fit_serial(n, A->row_ptr, A->col_idx, want, &nwant));
    int64_t *ptr = to_backend(ctx, A->row_ptr, ((size_t)n + 1) * sizeof *ptr);
    int32_t *col = to_backend(ctx, A->col_idx, (size_t)nnz * sizeof *col), *color = NULL;
    CHECK_OK(ops->alloc(ctx, (void **)&color, rows));
    CHECK_OK(ops->color_first_fit(ctx, n, ptr, col, color, &ngot));
    if (n > 0) CHECK_OK(ops->download(ctx, got, color, (size_t)n * sizeof *color));
    CHECK(ngot == nwant, "%s on %s: %d first-fit colors, the oracle %d", label, ops->name,
          (int)ngot, (int)nwant);
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            differ++;
            first = first < 0 ? i : first;
        }
    CHECK(differ == 0, "%s on %s: %lld first-fit colors differ from the oracle's (first row %lld)",
          label, ops->name, (long long)differ, (long long)first);
    kryl_csr T = {0};
    CHECK_OK(kryl_csr_transpose(A, &T));
    const bool symmetric = memcmp(T.row_ptr, A->row_ptr, ((size_t)n + 1) * sizeof *ptr) == 0 &&
                           (nnz == 0 || memcmp(T.col_idx, A->col_idx, (size_t)nnz * 4) == 0);
    if (symmetric && differ == 0) {
        /* the host's first fit on the graph of A + A^T, and a valid coloring */
        kryl_coloring c = {0};
        CHECK_OK(kryl_order_color(A, 0.0, &c));
        CHECK(c.ncolors == ngot && (n == 0 || memcmp(c.color, got, (size_t)n * 4) == 0),
              "%s on %s: the first-fit colors are not kryl_order_color's", label, ops->name);
        CHECK_OK(kryl_order_color_check(A, 0.0, &c));
        kryl_coloring_free(&c);
    }
    kryl_csr_free(&T);
    ops->release(ctx, ptr);
    ops->release(ctx, col);
    ops->release(ctx, color);
    free(want);
    free(got);
}

/* The pattern of A + A^T (values 1, the diagonal kept where A has it). */
static void symmetrised(const kryl_csr *A, kryl_csr *S)
{
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    CHECK_OK(kryl_csr_alloc(S, n, n, 2 * nnz));
    int64_t *count = calloc((size_t)n + 1, sizeof *count);
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            count[i]++;
            count[A->col_idx[e]]++;
        }
    for (int64_t i = 0; i < n; i++) S->row_ptr[i + 1] = S->row_ptr[i] + count[i];
    for (int64_t i = 0; i < n; i++) count[i] = S->row_ptr[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            const int32_t j = A->col_idx[e];
            S->col_idx[count[i]] = j;
            S->values[count[i]++] = 1.0;
            S->col_idx[count[j]] = (int32_t)i;
            S->values[count[j]++] = 1.0;
        }
    CHECK_OK(kryl_csr_sort_and_sum(S));
    free(count);
}

/* A pattern from an edge list on n rows (both directions, no diagonal). */
static void graph_of_edges(kryl_csr *A, int64_t n, const int64_t (*edge)[2], int64_t edges)
{
    kryl_csr E = {0};
    CHECK_OK(kryl_csr_alloc(&E, n, n, edges));
    int64_t *count = calloc((size_t)n + 1, sizeof *count);
    for (int64_t e = 0; e < edges; e++) count[edge[e][0]]++;
    for (int64_t i = 0; i < n; i++) E.row_ptr[i + 1] = E.row_ptr[i] + count[i];
    for (int64_t i = 0; i < n; i++) count[i] = E.row_ptr[i];
    for (int64_t e = 0; e < edges; e++) {
        E.col_idx[count[edge[e][0]]] = (int32_t)edge[e][1];
        E.values[count[edge[e][0]]++] = 1.0;
    }
    CHECK_OK(kryl_csr_sort_and_sum(&E));
    symmetrised(&E, A);
    kryl_csr_free(&E);
    free(count);
}

/* The first-fit check on a generated or read matrix, symmetrised. */
static void check_first_fit_matrix(kryl_context ctx, kryl_matrix A, const char *label)
{
    if (A == NULL) {
        printf("%s: absent, skipped\n", label);
        return;
    }
    const kryl_csr *csr = &A->host->csr;
    if (csr->nrows == csr->ncols) {
        kryl_csr S = {0};
        symmetrised(csr, &S);
        test_check_first_fit(ctx, &S, label);
        kryl_csr_free(&S);
    }
    kryl_matrix_destroy(&A);
}

void test_first_fit_cases(kryl_context ctx)
{
    char label[96];
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (int k = 0; k < test_awkward_size_count; k++) {
            int64_t n = s == TEST_SHAPE_SINGLE ? 1 : test_awkward_sizes[k];
            kryl_csr R = {0}, A = {0};
            test_random_csr(&R, (test_shape)s, n, n, 57 + (uint64_t)k);
            symmetrised(&R, &A);
            snprintf(label, sizeof label, "first fit, symmetrised %s n=%lld",
                     test_shape_name((test_shape)s), (long long)n);
            test_check_first_fit(ctx, &A, label);
            if (s == TEST_SHAPE_RANDOM && k == test_awkward_size_count - 1) {
                /* not symmetric: only the entries left of the diagonal count */
                snprintf(label, sizeof label, "first fit, nonsymmetric n=%lld", (long long)n);
                test_check_first_fit(ctx, &R, label);
            }
            kryl_csr_free(&R);
            kryl_csr_free(&A);
        }
    kryl_csr empty = {0}, dense = {0};
    CHECK_OK(kryl_csr_alloc(&empty, 0, 0, 0));
    test_check_first_fit(ctx, &empty, "first fit, n=0");
    kryl_csr_free(&empty);
    for (int64_t n = 150; n <= 300; n += 150) {
        complete_graph(&dense, n);
        snprintf(label, sizeof label, "first fit, complete graph of %lld rows", (long long)n);
        test_check_first_fit(ctx, &dense, label);
        kryl_csr_free(&dense);
    }
    /* a path and a star of 5000 rows; a crown graph (rows a_k, b_k for k <
     * 200, a_k ~ b_l for k != l) interleaved a_0 b_0 a_1 b_1 ..., on which
     * first fit takes 200 colors at degree 199 */
    const int64_t n = 5000, half = 200;
    int64_t(*edge)[2] = malloc((size_t)(half * half) * sizeof *edge);
    for (int g = 0; g < 3; g++) {
        int64_t edges = 0;
        const int64_t rows = g < 2 ? n : 2 * half;
        if (g < 2)
            for (int64_t i = 1; i < n; i++, edges++) {
                edge[edges][0] = i;
                edge[edges][1] = g == 0 ? i - 1 : 0;
            }
        else
            for (int64_t k = 0; k < half; k++)
                for (int64_t l = 0; l < half; l++)
                    if (k != l) {
                        edge[edges][0] = 2 * k;
                        edge[edges++][1] = 2 * l + 1;
                    }
        kryl_csr A = {0};
        graph_of_edges(&A, rows, (const int64_t(*)[2])edge, edges);
        test_check_first_fit(ctx, &A,
                             g == 0   ? "first fit, a path of 5000 rows"
                             : g == 1 ? "first fit, a star of 5000 rows"
                                      : "first fit, a crown graph of 400 rows");
        kryl_csr_free(&A);
    }
    free(edge);
    each_matrix(ctx, "first fit, ", check_first_fit_matrix);
}
