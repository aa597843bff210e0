/* Checks of a backend's Jones-Plassmann coloring against the serial oracle. */
#include "color_support.h"

#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "core/objects.h"
#include "order/order.h"
#include "test_support.h"

/* *dst = count entries of src copied to ctx's memory. */
static void *to_backend(kryl_context ctx, const void *src, size_t bytes)
{
    void *dst = NULL;
    CHECK_OK(ctx->ops->alloc(ctx, &dst, bytes));
    if (dst && bytes > 0) CHECK_OK(ctx->ops->upload(ctx, dst, src, bytes));
    return dst;
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
    CHECK_OK(ops->color_rows(ctx, n, ptr, col, color, &got.ncolors));
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
    const struct {
        kryl_generator_kind kind;
        int64_t n;
    } grids[] = {{KRYL_GEN_POISSON2D5, 1}, {KRYL_GEN_POISSON2D5, 97}, {KRYL_GEN_POISSON3D7, 33}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        kryl_generator_options o;
        kryl_generator_options_init(&o, grids[g].kind, grids[g].n);
        int64_t rows = 0, nnz = 0;
        kryl_matrix A = NULL;
        CHECK_OK(kryl_generator_size(&o, &rows, &nnz));
        CHECK_OK(kryl_matrix_generate(&A, ctx, &o, 0, rows));
        snprintf(label, sizeof label, "generated grid %d, n=%lld", (int)grids[g].kind,
                 (long long)grids[g].n);
        check_matrix(ctx, A, label);
    }
    const char *files[] = {"bcsstk06.mtx", "494_bus.mtx", "west0479.mtx",
                           "sherman3.mtx", "ca-GrQc.mtx", "rajat11.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        const char *path = test_matrix_path(files[f]);
        FILE *fp = path ? fopen(path, "r") : NULL;
        kryl_matrix A = NULL;
        if (fp) {
            fclose(fp);
            CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
        }
        check_matrix(ctx, A, files[f]);
    }
}
