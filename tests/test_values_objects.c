/* Values that cannot be represented are refused where they enter: duplicates
 * whose sum overflows (in a file, with its file and line; through
 * kryl_matrix_create_csr and assembly, with the entry), values that
 * underflow to 0 in a file, non-finite arrays.  Misuse of objects is refused
 * instead of touching freed memory (this test runs under AddressSanitizer in
 * CI): an aliased spmv, destroying a matrix a solver uses, destroying a
 * context with live objects. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>

#include "test_mtx_util.h"

static kryl_context ctx;

static void expect_read_error(const char *name, const char *text, kryl_status status,
                              const char *expect)
{
    char path[512];
    scratch_path(path, sizeof path, name);
    CHECK(write_text(path, text), "write %s", path);
    kryl_matrix A = NULL;
    CHECK_STATUS(kryl_matrix_read_mtx(&A, ctx, path), status);
    CHECK(strstr(kryl_last_error(), expect) != NULL, "%s: %s", name, kryl_last_error());
    CHECK(A == NULL, "%s: a matrix on failure", name);
    kryl_matrix_destroy(&A);
}

static void test_file_values(void)
{
    expect_read_error("dup.mtx",
                      "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1e308\n"
                      "% a comment\n2 2 1\n1 1 1e308\n2 1 3\n",
                      KRYL_ERR_INVALID_VALUE,
                      "dup.mtx:6 (the last of them): the duplicates of entry (1, 1) (1-based) "
                      "sum to inf");
    expect_read_error("dupneg.mtx",
                      "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n3 1 -1e308\n"
                      "2 2 1\n1 3 -1e308\n",
                      KRYL_ERR_INVALID_VALUE,
                      "dupneg.mtx:5 (the last of them): the duplicates of entry (1, 3)");
    expect_read_error("tiny.mtx",
                      "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -1e-400\n",
                      KRYL_ERR_INVALID_VALUE,
                      "tiny.mtx:4: expected a value a double can hold, found '-1e-400', which "
                      "would read as 0");
    /* duplicates that cancel, subnormals and an explicit zero are fine */
    char path[512];
    scratch_path(path, sizeof path, "fine.mtx");
    CHECK(write_text(path, "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1e308\n"
                           "1 1 -1e308\n2 2 4.9e-324\n2 1 0e-999\n"),
          "write");
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
    kryl_matrix_destroy(&A);
    /* a vector's duplicates too */
    double *x = NULL;
    int64_t n = 0;
    scratch_path(path, sizeof path, "v.mtx");
    CHECK(write_text(path, "%%MatrixMarket matrix coordinate real general\n2 1 3\n1 1 1e308\n"
                           "2 1 1\n1 1 1e308\n"),
          "write");
    CHECK_STATUS(kryl_read_mtx_vector(path, &n, &x), KRYL_ERR_INVALID_VALUE);
    CHECK(strstr(kryl_last_error(), "v.mtx:5 (the last of them)") != NULL, "%s", kryl_last_error());
    CHECK(x == NULL, "no vector on failure");
}

static void test_api_values(void)
{
    const int64_t row_ptr[3] = {0, 2, 3}, cols[3] = {0, 0, 1};
    double values[3] = {1e308, 1e308, 1.0};
    kryl_matrix A = NULL;
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 2, 2, 0, 2, row_ptr, cols, values),
                 KRYL_ERR_INVALID_VALUE);
    CHECK(strstr(kryl_last_error(), "the duplicates of entry (1, 1) (1-based) sum to inf") != NULL,
          "%s", kryl_last_error());
    values[1] = NAN;
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 2, 2, 0, 2, row_ptr, cols, values),
                 KRYL_ERR_INVALID_VALUE);
    values[1] = INFINITY;
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 2, 2, 0, 2, row_ptr, cols, values),
                 KRYL_ERR_INVALID_VALUE);
    CHECK(A == NULL, "a matrix on failure");
    kryl_assembly as = NULL;
    CHECK_OK(kryl_assembly_create(&as, ctx, 2, 2, 0, 2));
    CHECK_OK(kryl_assembly_add_value(as, 1, 0, -1e308));
    CHECK_OK(kryl_assembly_add_value(as, 1, 0, -1e308));
    CHECK_STATUS(kryl_assembly_finish(as, &A), KRYL_ERR_INVALID_VALUE);
    CHECK(strstr(kryl_last_error(), "entry (2, 1) (1-based) sum to -inf") != NULL, "%s",
          kryl_last_error());
    kryl_assembly_destroy(&as);
}

static void test_objects(void)
{
    const int64_t row_ptr[3] = {0, 1, 2}, cols[2] = {0, 1};
    const double values[2] = {2.0, 4.0};
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, 2, 2, 0, 2, row_ptr, cols, values));
    kryl_vector x = NULL, y = NULL;
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&y, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_fill(x, 1.0));
    CHECK_STATUS(kryl_matrix_spmv(A, 1.0, x, 0.0, x), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(strstr(kryl_last_error(), "x and y are the same vector") != NULL, "%s",
          kryl_last_error());
    CHECK_OK(kryl_matrix_spmv(A, 1.0, x, 0.0, y));

    kryl_solver_options opt;
    kryl_solver_options_init(&opt);
    opt.method = KRYL_METHOD_CG;
    kryl_solver s = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &opt));
    kryl_matrix kept = A;
    CHECK_STATUS(kryl_matrix_destroy(&A), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(A == kept, "the handle was cleared");
    CHECK(strstr(kryl_last_error(), "1 solver still uses the matrix") != NULL, "%s",
          kryl_last_error());
    /* the context refuses too, and stays usable */
    kryl_context c = ctx;
    CHECK_STATUS(kryl_context_destroy(&c), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(c == ctx, "the context handle was cleared");
    CHECK(strstr(kryl_last_error(),
                 "objects (matrices, vectors, solvers) made on the context are still alive") !=
              NULL,
          "%s", kryl_last_error());
    /* the solve after the refusals uses a live matrix */
    kryl_result r;
    CHECK_OK(kryl_vector_fill(x, 0.0));
    CHECK_OK(kryl_solver_solve(s, y, x, &r));
    CHECK(r.converged, "the solve after the refusals did not converge");
    CHECK_OK(kryl_solver_destroy(&s));
    CHECK_OK(kryl_matrix_destroy(&A));
    CHECK(A == NULL, "destroyed");
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
}

int main(void)
{
    scratch_init();
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = KRYL_BACKEND_REF;
    if (kryl_context_create(&ctx, &o) != KRYL_SUCCESS) return 1;
    test_file_values();
    test_api_values();
    test_objects();
    CHECK_OK(kryl_context_destroy(&ctx));
    scratch_cleanup();
    return test_summary("test_values_objects");
}
