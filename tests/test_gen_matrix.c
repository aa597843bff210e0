/* kryl_matrix_generate through the public API: the whole matrix and row
 * ranges equal the rows of kryl_generator_row, on every backend here; bad
 * arguments are rejected with a message. */
#include <string.h>

#include "test_gen_support.h"

/* The generated matrix's host CSR holds rows [begin, end) of the reference. */
static void check_generated(kryl_context ctx, const kryl_generator_options *o,
                            const kryl_csr *whole, int64_t begin, int64_t end)
{
    char what[128];
    snprintf(what, sizeof what, "%s on %s, rows [%lld, %lld)", kryl_generator_name(o->kind),
             kryl_backend_name(kryl_context_backend(ctx)), (long long)begin, (long long)end);
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_generate(&A, ctx, o, begin, end));
    if (!A) return;
    int64_t nrows = 0, ncols = 0, nnz = 0;
    CHECK_OK(kryl_matrix_size(A, &nrows, &ncols, &nnz));
    const int64_t first = whole->row_ptr[begin], want = whole->row_ptr[end] - first;
    CHECK(nrows == whole->nrows && ncols == whole->ncols && nnz == want,
          "%s: size %lld x %lld, %lld entries; expected %lld x %lld, %lld", what, (long long)nrows,
          (long long)ncols, (long long)nnz, (long long)whole->nrows, (long long)whole->ncols,
          (long long)want);
    const int64_t *row_ptr;
    const int32_t *col_idx;
    const double *values;
    CHECK_OK(kryl_matrix_csr_view(A, &row_ptr, &col_idx, &values));
    bool same = nnz == want;
    for (int64_t k = 0; k <= end - begin && same; k++)
        same = row_ptr[k] == whole->row_ptr[begin + k] - first;
    same = same && memcmp(col_idx, whole->col_idx + first, (size_t)want * sizeof *col_idx) == 0 &&
           memcmp(values, whole->values + first, (size_t)want * sizeof *values) == 0;
    CHECK(same, "%s: differs from kryl_generator_row", what);
    if (begin == 0 && end == whole->nrows) {
        bool symmetric = false;
        CHECK_OK(kryl_matrix_is_symmetric(A, 0.0, &symmetric));
        CHECK(symmetric == gen_is_symmetric(whole), "%s: kryl_matrix_is_symmetric says %d", what,
              (int)symmetric);
    }
    CHECK_OK(kryl_matrix_destroy(&A));
}

static void check_backend(kryl_backend_kind backend)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = backend;
    co.threads = 2;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &co));
    if (!ctx) return;
    static const struct {
        kryl_generator_kind kind;
        int64_t n;
    } cases[] = {{KRYL_GEN_POISSON2D5, 33},   {KRYL_GEN_POISSON3D7, 7},
                 {KRYL_GEN_POISSON3D27, 1},   {KRYL_GEN_POISSON3D125, 9},
                 {KRYL_GEN_ANISOTROPIC2D, 2}, {KRYL_GEN_ANISOTROPIC3D, 3},
                 {KRYL_GEN_CONVDIFF2D, 17},   {KRYL_GEN_CONVDIFF3D, 5},
                 {KRYL_GEN_RANDOM_SPD, 5000}, {KRYL_GEN_POWERLAW, 20000}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kryl_generator_options o;
        kryl_generator_options_init(&o, cases[c].kind, cases[c].n);
        kryl_generator g;
        kryl_csr whole;
        if (!gen_whole(&whole, &g, &o)) continue;
        const int64_t n = whole.nrows;
        check_generated(ctx, &o, &whole, 0, n);
        check_generated(ctx, &o, &whole, n / 3, n - n / 4);
        check_generated(ctx, &o, &whole, n - 1, n);
        check_generated(ctx, &o, &whole, n / 2, n / 2); /* no rows */
        gen_csr_free(&whole);
    }

    /* bad arguments */
    kryl_generator_options o;
    kryl_generator_options_init(&o, KRYL_GEN_POISSON2D5, 4);
    kryl_matrix A = (kryl_matrix)&o; /* must be reset to NULL */
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, &o, 3, 2), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(A == NULL && strstr(kryl_last_error(), "row_begin"), "range [3, 2): %s",
          kryl_last_error());
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, &o, -1, 4), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, &o, 0, 17), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_generate(&A, NULL, &o, 0, 16), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, NULL, 0, 16), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_generate(NULL, ctx, &o, 0, 16), KRYL_ERR_INVALID_ARGUMENT);
    o.nx = 0;
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, &o, 0, 0), KRYL_ERR_INVALID_ARGUMENT);
    /* 2000^3 = 8e9 columns do not fit 32-bit column indices (rejected before building) */
    kryl_generator_options_init(&o, KRYL_GEN_POISSON3D7, 2000);
    CHECK_STATUS(kryl_matrix_generate(&A, ctx, &o, 0, 10), KRYL_ERR_INDEX_OVERFLOW);
    CHECK(strstr(kryl_last_error(), "32-bit") != NULL, "message: %s", kryl_last_error());
    CHECK(A == NULL, "A set on failure");
    CHECK_OK(kryl_context_destroy(&ctx));
}

int main(void)
{
    kryl_backend_kind backends[4];
    const int count = test_backends(backends, 4);
    for (int b = 0; b < count; b++) check_backend(backends[b]);
    return test_summary("test_gen_matrix");
}
