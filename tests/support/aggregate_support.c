/* Checks of a backend's AMG aggregation against the host's code. */
#include "aggregate_support.h"

#include <stdlib.h>
#include <string.h>

#include "amg/amg.h"
#include "backends/backend.h"
#include "core/objects.h"
#include "test_krylov_support.h"

/* The oracle: the host's strength graph and parallel aggregation, serial. */
static int64_t oracle(const kryl_csr *A, double theta, bool symmetric, bool finest,
                      int32_t *aggregate, bool *strong)
{
    amg_graph G = {0};
    int64_t count = -1;
    CHECK_OK(amg_strength(A, theta, symmetric, 1, &G));
    if (G.row_ptr == NULL) return -1;
    for (int64_t i = 0; i < A->nrows; i++) strong[i] = G.row_ptr[i + 1] > G.row_ptr[i];
    CHECK_OK(amg_aggregate_parallel(&G, finest, 1, aggregate, &count));
    amg_graph_free(&G);
    return count;
}

/* Every aggregate in 0..count-1 holds a row; -1 exactly where no strong coupling. */
static void check_valid(const int32_t *aggregate, const bool *strong, int64_t n, int64_t count,
                        const char *label)
{
    unsigned char *used = calloc((size_t)count + 1, 1);
    int64_t bad = -1, unused = 0;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        if ((aggregate[i] < 0) == strong[i] || aggregate[i] >= count) bad = i;
        if (aggregate[i] >= 0 && aggregate[i] < count) used[aggregate[i]] = 1;
    }
    for (int64_t a = 0; a < count; a++) unused += !used[a];
    CHECK(bad < 0, "%s: row %lld has aggregate %d (count %lld)", label, (long long)bad,
          bad >= 0 ? aggregate[bad] : 0, (long long)count);
    CHECK(unused == 0, "%s: %lld of %lld aggregates empty", label, (long long)unused,
          (long long)count);
    free(used);
}

/* test_check_aggregate for the first level of a hierarchy (finest) or a coarser one */
static void check_level(kryl_context ctx, const kryl_csr *A, double theta, bool symmetric,
                        bool finest, const char *label)
{
    const kryl_backend_ops *ops = ctx->ops;
    char where[160];
    snprintf(where, sizeof where, "%s (theta %g%s%s, %s)", label, theta,
             symmetric ? ", symmetric" : "", finest ? ", finest" : "", ops->name);
    CHECK(ops->amg_aggregate != NULL, "%s: no amg_aggregate", where);
    if (ops->amg_aggregate == NULL) return;
    const int64_t n = A->nrows, nnz = kryl_csr_nnz(A);
    const size_t bytes = (size_t)n * sizeof(int32_t);
    int32_t *want = malloc(bytes + sizeof(int32_t)), *got = malloc(bytes + sizeof(int32_t));
    bool *strong = malloc((size_t)n + 1);
    int64_t want_count = oracle(A, theta, symmetric, finest, want, strong);
    kryl_csr copy = {0};
    CHECK_OK(kryl_csr_alloc(&copy, n, n, nnz));
    memcpy(copy.row_ptr, A->row_ptr, ((size_t)n + 1) * sizeof *copy.row_ptr);
    memcpy(copy.col_idx, A->col_idx, (size_t)nnz * sizeof *copy.col_idx);
    memcpy(copy.values, A->values, (size_t)nnz * sizeof *copy.values);
    kryl_matrix M = NULL;
    CHECK_OK(kryl_matrix_from_csr(&M, ctx, &copy));
    CHECK(M == NULL || kryl_matrix_natural_csr(M), "%s: not double CSR in the natural order",
          where);
    int32_t *on = NULL;
    int64_t count = -2;
    CHECK_OK(ops->alloc(ctx, (void **)&on, bytes));
    if (M != NULL) CHECK_OK(ops->amg_aggregate(ctx, M, theta, symmetric, finest, on, &count));
    if (n > 0) CHECK_OK(ops->download(ctx, got, on, bytes));
    CHECK(count == want_count, "%s: %lld aggregates, the host's code %lld", where, (long long)count,
          (long long)want_count);
    int64_t first = -1;
    for (int64_t i = 0; i < n && first < 0 && count == want_count; i++)
        if (got[i] != want[i]) first = i;
    CHECK(first < 0, "%s: row %lld in aggregate %d, the host's code %d", where, (long long)first,
          first >= 0 ? got[first] : 0, first >= 0 ? want[first] : 0);
    if (want_count >= 0) check_valid(want, strong, n, want_count, where);
    ops->release(ctx, on);
    kryl_matrix_destroy(&M);
    free(want);
    free(got);
    free(strong);
}

void test_check_aggregate(kryl_context ctx, const kryl_csr *A, double theta, bool symmetric,
                          const char *label)
{
    for (int finest = 0; finest < 2; finest++) check_level(ctx, A, theta, symmetric, finest, label);
}

/* Two 2-D grids side by side with no coupling between them, and a few
 * isolated rows (only a diagonal) between. */
static void disconnected(kryl_csr *A)
{
    kryl_generator_options o;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 9);
    kryl_matrix M = NULL;
    kryl_context ref = test_context(KRYL_BACKEND_REF);
    int64_t rows = 0, nnz = 0;
    CHECK_OK(kryl_generator_size(&o, &rows, &nnz));
    CHECK_OK(kryl_matrix_generate(&M, ref, &o, 0, rows));
    const kryl_csr *g = &M->host->csr;
    const int64_t isolated = 3, n = 2 * rows + isolated;
    CHECK_OK(kryl_csr_alloc(A, n, n, 2 * nnz + isolated));
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t part = i < rows ? 0 : i < rows + isolated ? -1 : 1;
        if (part < 0) {
            A->col_idx[at] = (int32_t)i;
            A->values[at++] = 2.0;
        } else {
            int64_t r = i - part * (rows + isolated), shift = part * (rows + isolated);
            for (int64_t k = g->row_ptr[r]; k < g->row_ptr[r + 1]; k++) {
                A->col_idx[at] = (int32_t)(g->col_idx[k] + shift);
                A->values[at++] = g->values[k];
            }
        }
        A->row_ptr[i + 1] = at;
    }
    kryl_matrix_destroy(&M);
    kryl_context_destroy(&ref);
}

static void check_generated(kryl_context ctx, kryl_generator_kind kind, int64_t size,
                            const char *label)
{
    kryl_matrix A = kt_generate(ctx, kind, size);
    if (A == NULL) return;
    bool symmetric = kind != KRYL_GEN_CONVDIFF2D;
    test_check_aggregate(ctx, &A->host->csr, 0.0, symmetric, label);
    test_check_aggregate(ctx, &A->host->csr, 0.08, symmetric, label);
    kryl_matrix_destroy(&A);
}

void test_aggregate_cases(kryl_context ctx)
{
    char label[96];
    const double thetas[] = {0.0, 0.25};
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (int k = 0; k < test_awkward_size_count; k++)
            for (int t = 0; t < 2; t++) {
                int64_t n = s == TEST_SHAPE_SINGLE ? 1 : test_awkward_sizes[k];
                kryl_csr A = {0};
                test_random_csr(&A, (test_shape)s, n, n, 41 + (uint64_t)k);
                snprintf(label, sizeof label, "%s n=%lld", test_shape_name((test_shape)s),
                         (long long)n);
                test_check_aggregate(ctx, &A, thetas[t], false, label);
                kryl_csr_free(&A);
            }
    kryl_csr empty = {0}, parts = {0};
    CHECK_OK(kryl_csr_alloc(&empty, 0, 0, 0));
    test_check_aggregate(ctx, &empty, 0.0, true, "n=0");
    kryl_csr_free(&empty);
    disconnected(&parts);
    test_check_aggregate(ctx, &parts, 0.0, true, "two grids and isolated rows");
    test_check_aggregate(ctx, &parts, 0.0, false, "two grids and isolated rows");
    kryl_csr_free(&parts);
    check_generated(ctx, KRYL_GEN_POISSON2D5, 1, "5-point 1^2");
    check_generated(ctx, KRYL_GEN_POISSON2D5, 97, "5-point 97^2");
    check_generated(ctx, KRYL_GEN_POISSON3D7, 23, "7-point 23^3");
    check_generated(ctx, KRYL_GEN_POISSON3D27, 15, "27-point 15^3");
    check_generated(ctx, KRYL_GEN_CONVDIFF2D, 41, "convection-diffusion 41^2");
    const char *files[] = {"bcsstk06.mtx", "494_bus.mtx", "west0479.mtx",
                           "sherman3.mtx", "ca-GrQc.mtx", "rajat11.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        kryl_matrix A = kt_read(ctx, files[f]);
        if (A == NULL) {
            printf("%s: absent, skipped\n", files[f]);
            continue;
        }
        bool symmetric = false;
        CHECK_OK(kryl_matrix_is_symmetric(A, 0.0, &symmetric));
        test_check_aggregate(ctx, &A->host->csr, 0.0, symmetric, files[f]);
        test_check_aggregate(ctx, &A->host->csr, 0.1, symmetric, files[f]);
        kryl_matrix_destroy(&A);
    }
}
