/* Writing then reading Matrix Market files gives back the same bits:
 * CSR rows (whole and a range of rows) with awkward values, dense
 * vectors, the public matrix and vector calls; and the write errors
 * (non-finite values, unwritable paths; a full disk: test_file_out.c). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>

#include "test_mtx_util.h"

#include "io/mtx.h"

static const double awkward[] = {0.1,
                                 -0.0,
                                 0.0,
                                 1e-300,
                                 4.9406564584124654e-324, /* smallest subnormal */
                                 2.2250738585072009e-308, /* largest subnormal */
                                 2.2250738585072014e-308, /* smallest normal */
                                 1.7976931348623157e308,
                                 -1.7976931348623157e308,
                                 1.0 / 3.0,
                                 3.141592653589793,
                                 9007199254740993.0,
                                 123456789.0,
                                 -1e22,
                                 1e23,
                                 0.30000000000000004};
#define AWKWARD_COUNT (int)(sizeof awkward / sizeof awkward[0])

static uint64_t state = 777;

static uint64_t next_random(void)
{
    /* splitmix64 */
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A finite double with random bits (any exponent, subnormals included). */
static double random_bits_double(void)
{
    double x;
    do {
        uint64_t bits = next_random();
        memcpy(&x, &bits, sizeof x);
    } while (!isfinite(x));
    return x;
}

/* The awkward values first, then random bit patterns. */
static void fill_values(double *v, int64_t n)
{
    for (int64_t k = 0; k < n; k++) v[k] = k < AWKWARD_COUNT ? awkward[k] : random_bits_double();
}

/* A's entries (global rows) equal the COO entries read back, in order. */
static void check_same_entries(const char *label, const kryl_csr *A, const kryl_coo *coo)
{
    int64_t nnz = kryl_csr_nnz(A);
    CHECK(coo->count == nnz, "%s: %lld entries read, %lld written", label, (long long)coo->count,
          (long long)nnz);
    CHECK(coo->nrows == A->nrows_global && coo->ncols == A->ncols, "%s: %lld x %lld", label,
          (long long)coo->nrows, (long long)coo->ncols);
    int64_t bad = 0, k = 0;
    /* count the entries whose position or bits differ */
    for (int64_t i = 0; i < A->nrows; i++)
        for (int64_t p = A->row_ptr[i]; p < A->row_ptr[i + 1] && k < coo->count; p++, k++)
            bad += coo->rows[k] != A->row_begin + i || coo->cols[k] != A->col_idx[p] ||
                   !same_double(coo->values[k], A->values[p]);
    CHECK(bad == 0, "%s: %lld entries differ", label, (long long)bad);
}

static void test_csr_roundtrip(void)
{
    char path[512];
    scratch_path(path, sizeof path, "csr.mtx");
    for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++) {
        kryl_csr A;
        test_random_csr(&A, (test_shape)shape, 257, 100, (uint64_t)shape + 1);
        fill_values(A.values, kryl_csr_nnz(&A));
        kryl_coo coo;
        CHECK_OK(kryl_mtx_write_csr(path, &A));
        kryl_mtx_header h;
        kryl_status st = kryl_mtx_read(path, &h, &coo);
        CHECK(st == KRYL_SUCCESS, "%s: %s", test_shape_name((test_shape)shape), kryl_last_error());
        if (st == KRYL_SUCCESS) {
            CHECK(h.format == KRYL_MTX_COORDINATE && h.field == KRYL_MTX_REAL &&
                      h.symmetry == KRYL_MTX_GENERAL,
                  "written as %d %d %d", (int)h.format, (int)h.field, (int)h.symmetry);
            check_same_entries(test_shape_name((test_shape)shape), &A, &coo);
        }
        kryl_coo_free(&coo);
        kryl_csr_free(&A);
    }
}

/* Rows [40, 90) of a 120-row matrix: the file keeps global row numbers. */
static void test_row_range(void)
{
    char path[512];
    scratch_path(path, sizeof path, "rows.mtx");
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 50, 120, 9);
    A.nrows_global = 120;
    A.row_begin = 40;
    kryl_coo coo;
    CHECK_OK(kryl_mtx_write_csr(path, &A));
    CHECK_OK(kryl_mtx_read(path, NULL, &coo));
    check_same_entries("rows 40..89", &A, &coo);
    kryl_coo_free(&coo);
    A.row_begin = 80; /* rows 80..129 of 120 */
    CHECK_STATUS(kryl_mtx_write_csr(path, &A), KRYL_ERR_INVALID_ARGUMENT);
    kryl_csr_free(&A);
}

static void test_dense_roundtrip(void)
{
    char path[512];
    scratch_path(path, sizeof path, "dense.mtx");
    enum { N = 5000 };
    static double x[N];
    fill_values(x, N);
    CHECK_OK(kryl_write_mtx_vector(path, N, x));
    int64_t n = 0;
    double *y = NULL;
    CHECK_OK(kryl_read_mtx_vector(path, &n, &y));
    CHECK(n == N, "length %lld", (long long)n);
    int bad = 0;
    for (int k = 0; k < N && k < n; k++) bad += !same_double(x[k], y[k]);
    CHECK(bad == 0, "%d values differ", bad);
    free(y);
    /* an empty vector */
    CHECK_OK(kryl_write_mtx_vector(path, 0, NULL));
    CHECK_OK(kryl_read_mtx_vector(path, &n, &y));
    CHECK(n == 0 && y != NULL, "empty vector: length %lld", (long long)n);
    free(y);
}

static void check_vector(const char *file, int64_t n, const double *expect)
{
    char path[1024];
    int64_t length = -1;
    double *x = NULL;
    kryl_status st = kryl_read_mtx_vector(data_path(path, sizeof path, file), &length, &x);
    CHECK(st == KRYL_SUCCESS, "%s: %s", file, kryl_last_error());
    CHECK(length == n, "%s: length %lld, expected %lld", file, (long long)length, (long long)n);
    for (int64_t k = 0; st == KRYL_SUCCESS && k < n && k < length; k++)
        CHECK(same_double(x[k], expect[k]), "%s: x[%lld] = %g, expected %g", file, (long long)k,
              x[k], expect[k]);
    free(x);
}

static void test_vector_files(void)
{
    check_vector("good_vector_column.mtx", 4, (const double[]){1.5, -2, 0, 1000});
    check_vector("good_vector_row.mtx", 3, (const double[]){7, 8, 9});
    /* missing entries are zero, the two at row 2 add up */
    check_vector("good_vector_coordinate.mtx", 5, (const double[]){0, 1.75, 0, 0, -4});
    char path[1024];
    int64_t n = 7;
    double *x = (double *)&n;
    CHECK_STATUS(kryl_read_mtx_vector(data_path(path, sizeof path, "good_array.mtx"), &n, &x),
                 KRYL_ERR_DIMENSION_MISMATCH);
    CHECK(strstr(kryl_last_error(), "expected a vector (an n x 1 or 1 x n matrix), found a 3 x 2 "
                                    "matrix") != NULL,
          "%s", kryl_last_error());
    CHECK(n == 0 && x == NULL, "outputs not cleared on failure");
    CHECK_STATUS(kryl_read_mtx_vector(data_path(path, sizeof path, "bad_nan.mtx"), &n, &x),
                 KRYL_ERR_INVALID_VALUE);
}

static void test_write_errors(void)
{
    char path[512];
    scratch_path(path, sizeof path, "nonfinite.mtx");
    double v[3] = {1.0, NAN, 2.0};
    CHECK_STATUS(kryl_mtx_write_dense(path, 3, v), KRYL_ERR_INVALID_VALUE);
    CHECK(strstr(kryl_last_error(), "at entry 1") != NULL, "%s", kryl_last_error());
    FILE *f = fopen(path, "r");
    CHECK(f == NULL, "a file was left at %s", path);
    if (f != NULL) fclose(f);
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_DIAGONAL, 5, 5, 3);
    A.values[2] = INFINITY;
    CHECK_STATUS(kryl_mtx_write_csr(path, &A), KRYL_ERR_INVALID_VALUE);
    A.values[2] = 1.0;
    scratch_path(path, sizeof path, "no_such_dir/a.mtx");
    CHECK_STATUS(kryl_mtx_write_csr(path, &A), KRYL_ERR_IO);
    CHECK(strstr(kryl_last_error(), "no_such_dir/a.mtx: cannot create a file in its directory: "
                                    "No such file or directory") != NULL,
          "%s", kryl_last_error());
    CHECK_STATUS(kryl_mtx_write_csr(NULL, &A), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_mtx_write_csr(path, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_mtx_write_dense(path, -1, v), KRYL_ERR_INVALID_ARGUMENT);
    kryl_csr_free(&A);
}

/* kryl_matrix_read_mtx / kryl_matrix_write_mtx through a context. */
static void test_public_matrix(void)
{
    kryl_context_options options;
    kryl_context_options_init(&options);
    options.backend = KRYL_BACKEND_REF;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &options));
    if (ctx == NULL) return;
    char in[1024], out[512];
    kryl_matrix A = NULL, B = NULL;
    CHECK_OK(kryl_matrix_read_mtx(&A, ctx, data_path(in, sizeof in, "good_symmetric.mtx")));
    int64_t nrows = 0, ncols = 0, nnz = 0;
    if (A != NULL) CHECK_OK(kryl_matrix_size(A, &nrows, &ncols, &nnz));
    CHECK(nrows == 3 && ncols == 3 && nnz == 6, "%lld x %lld, %lld entries", (long long)nrows,
          (long long)ncols, (long long)nnz);
    scratch_path(out, sizeof out, "matrix.mtx");
    if (A != NULL) CHECK_OK(kryl_matrix_write_mtx(A, out));
    CHECK_OK(kryl_matrix_read_mtx(&B, ctx, out));
    const int64_t *pa = NULL, *pb = NULL;
    const int32_t *ca = NULL, *cb = NULL;
    const double *va = NULL, *vb = NULL;
    if (A != NULL && B != NULL) {
        CHECK_OK(kryl_matrix_csr_view(A, &pa, &ca, &va));
        CHECK_OK(kryl_matrix_csr_view(B, &pb, &cb, &vb));
        CHECK(memcmp(pa, pb, 4 * sizeof *pa) == 0 && memcmp(ca, cb, 6 * sizeof *ca) == 0 &&
                  memcmp(va, vb, 6 * sizeof *va) == 0,
              "the written matrix reads back different");
    }
    kryl_matrix_destroy(&B);
    /* both triangles of a(1,2) given: summed */
    CHECK_OK(kryl_matrix_read_mtx(&B, ctx, data_path(in, sizeof in, "good_both_triangles.mtx")));
    if (B != NULL) {
        CHECK_OK(kryl_matrix_csr_view(B, &pb, &cb, &vb));
        CHECK(pb[2] == 3 && vb[1] == 3.0 && vb[2] == 3.0, "a(1,2) = %g, a(2,1) = %g", vb[1], vb[2]);
    }
    kryl_matrix_destroy(&B);
    CHECK_STATUS(kryl_matrix_read_mtx(&B, ctx, data_path(in, sizeof in, "bad_row_range.mtx")),
                 KRYL_ERR_INDEX_OUT_OF_RANGE);
    CHECK(B == NULL, "matrix set on failure");
    CHECK_STATUS(kryl_matrix_read_mtx(&B, NULL, in), KRYL_ERR_INVALID_ARGUMENT);
    const char *big = test_matrix_path("bcsstk33.mtx.gz");
    if (big != NULL) {
#ifdef KRYL_HAVE_ZLIB
        CHECK_OK(kryl_matrix_read_mtx(&B, ctx, big));
        if (B != NULL) CHECK_OK(kryl_matrix_size(B, &nrows, &ncols, &nnz));
        CHECK(nrows == 8738 && ncols == 8738 && nnz == 591904, "bcsstk33: %lld x %lld, %lld",
              (long long)nrows, (long long)ncols, (long long)nnz);
        kryl_matrix_destroy(&B);
#else
        CHECK_STATUS(kryl_matrix_read_mtx(&B, ctx, big), KRYL_ERR_UNSUPPORTED);
#endif
    }
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    scratch_init();
    test_csr_roundtrip();
    test_row_range();
    test_dense_roundtrip();
    test_vector_files();
    test_write_errors();
    test_public_matrix();
    scratch_cleanup();
    return test_summary("test_mtx_roundtrip");
}
