/* Building matrices: the assembly API (entries in any order, duplicates
 * summed, bad entries rejected with a message naming them) and
 * kryl_matrix_create_csr, both checked against a dense reference through
 * the matrix's CSR view. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

/* xorshift64 (Marsaglia 2003): indices for the scrambled entry streams. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int64_t rng_below(uint64_t *s, int64_t n) { return (int64_t)(rng_next(s) % (uint64_t)n); }

/* Whether kryl_last_error() mentions the text of the integer v. */
static bool message_names(int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return strstr(kryl_last_error(), text) != NULL;
}

/* Check A's owned rows [row_begin, row_begin + nrows) against the dense
 * row-major reference dense[nrows][ncols], where `stored` marks the
 * positions that must be stored: rows sorted, columns unique. */
static void check_against_dense(kryl_matrix A, int64_t nrows, int64_t ncols, const double *dense,
                                const bool *stored, const char *label)
{
    const int64_t *rp = NULL;
    const int32_t *ci = NULL;
    const double *v = NULL;
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &v));
    if (rp == NULL) return;
    CHECK(rp[0] == 0, "%s: row_ptr[0] = %lld", label, (long long)rp[0]);
    int64_t expected_nnz = 0;
    for (int64_t i = 0; i < nrows; i++) {
        CHECK(rp[i + 1] >= rp[i], "%s: row_ptr decreases at row %lld", label, (long long)i);
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            CHECK(ci[k] >= 0 && ci[k] < ncols, "%s: column %d in row %lld", label, ci[k],
                  (long long)i);
            if (k > rp[i])
                CHECK(ci[k] > ci[k - 1], "%s: row %lld not sorted/unique at %lld", label,
                      (long long)i, (long long)k);
        }
        /* every dense entry appears with its value; absent ones are zero */
        int64_t k = rp[i];
        for (int64_t j = 0; j < ncols; j++) {
            bool here = k < rp[i + 1] && ci[k] == j;
            double got = here ? v[k++] : 0.0;
            CHECK(here == stored[i * ncols + j], "%s: (%lld, %lld) stored=%d, expected %d", label,
                  (long long)i, (long long)j, here, stored[i * ncols + j]);
            CHECK_CLOSE(got, dense[i * ncols + j], 1e-13);
            expected_nnz += stored[i * ncols + j];
        }
    }
    CHECK(rp[nrows] == expected_nnz, "%s: nnz %lld, expected %lld", label, (long long)rp[nrows],
          (long long)expected_nnz);
}

/* Many entries in random order over calls of random length, with
 * duplicates, single-entry adds and empty adds; the result must equal the
 * dense sum of everything added. */
static void test_random_order(kryl_context ctx)
{
    const int64_t nr = 37, nc = 23, total = 3000;
    double *dense = calloc((size_t)(nr * nc), sizeof *dense);
    bool *stored = calloc((size_t)(nr * nc), sizeof *stored);
    int64_t *rows = malloc((size_t)total * sizeof *rows);
    int64_t *cols = malloc((size_t)total * sizeof *cols);
    double *vals = malloc((size_t)total * sizeof *vals);
    uint64_t s = 12345;
    test_random_values(vals, total, 7);
    for (int64_t k = 0; k < total; k++) {
        rows[k] = rng_below(&s, nr);
        cols[k] = rng_below(&s, nc / 2) * 2; /* even columns only: odd ones stay empty */
        dense[rows[k] * nc + cols[k]] += vals[k];
        stored[rows[k] * nc + cols[k]] = true;
    }
    kryl_assembly a;
    CHECK_OK(kryl_assembly_create(&a, ctx, nr, nc, 0, nr));
    CHECK_OK(kryl_assembly_add(a, 0, NULL, NULL, NULL));
    for (int64_t k = 0; k < total;) {
        int64_t len = 1 + rng_below(&s, 64);
        if (len > total - k) len = total - k;
        if (len == 1)
            CHECK_OK(kryl_assembly_add_value(a, rows[k], cols[k], vals[k]));
        else
            CHECK_OK(kryl_assembly_add(a, len, rows + k, cols + k, vals + k));
        CHECK_OK(kryl_assembly_add(a, 0, rows, cols, vals));
        k += len;
    }
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_finish(a, &A));
    int64_t m = 0, n = 0, nnz = 0;
    CHECK_OK(kryl_matrix_size(A, &m, &n, &nnz));
    CHECK(m == nr && n == nc, "size %lld x %lld, expected %lld x %lld", (long long)m, (long long)n,
          (long long)nr, (long long)nc);
    check_against_dense(A, nr, nc, dense, stored, "random order");
    kryl_matrix_destroy(&A);
    kryl_assembly_destroy(&a);
    free(dense);
    free(stored);
    free(rows);
    free(cols);
    free(vals);
}

/* Out-of-range indices and non-finite values are rejected with messages
 * naming the entry; a rejected call adds nothing and the assembly goes on. */
static void test_bad_entries(kryl_context ctx)
{
    kryl_assembly a;
    CHECK_OK(kryl_assembly_create(&a, ctx, 8, 6, 2, 5)); /* owns rows 2, 3, 4 */
    const int64_t bad[][2] = {{-1, 0}, {1, 0}, {5, 0}, {12345, 0}, {3, -1}, {3, 6}, {2, 9876}};
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        CHECK_STATUS(kryl_assembly_add_value(a, bad[t][0], bad[t][1], 1.0),
                     KRYL_ERR_INDEX_OUT_OF_RANGE);
        CHECK(message_names(bad[t][0]) && message_names(bad[t][1]),
              "message '%s' does not name entry (%lld, %lld)", kryl_last_error(),
              (long long)bad[t][0], (long long)bad[t][1]);
    }
    CHECK_STATUS(kryl_assembly_add_value(a, 3, 1, NAN), KRYL_ERR_INVALID_VALUE);
    CHECK(message_names(3) && message_names(1), "NaN message '%s' does not name (3, 1)",
          kryl_last_error());
    CHECK_STATUS(kryl_assembly_add_value(a, 3, 1, INFINITY), KRYL_ERR_INVALID_VALUE);
    CHECK_STATUS(kryl_assembly_add_value(a, 3, 1, -INFINITY), KRYL_ERR_INVALID_VALUE);

    /* a batch with one bad entry in the middle is refused whole */
    int64_t rows[] = {2, 3, 4, 4}, cols[] = {0, 1, 6000, 2};
    double vals[] = {1.0, 2.0, 3.0, 4.0};
    CHECK_STATUS(kryl_assembly_add(a, 4, rows, cols, vals), KRYL_ERR_INDEX_OUT_OF_RANGE);
    CHECK(message_names(6000), "message '%s' does not name column 6000", kryl_last_error());
    vals[2] = NAN;
    cols[2] = 5;
    CHECK_STATUS(kryl_assembly_add(a, 4, rows, cols, vals), KRYL_ERR_INVALID_VALUE);

    /* bad arguments */
    CHECK_STATUS(kryl_assembly_add(a, -1, rows, cols, vals), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_add(a, 2, NULL, cols, vals), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_add(a, 2, rows, NULL, vals), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_add(a, 2, rows, cols, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_add(NULL, 1, rows, cols, vals), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_add_value(NULL, 0, 0, 1.0), KRYL_ERR_INVALID_ARGUMENT);

    /* the assembly still works: only the good entry below is in the matrix */
    CHECK_OK(kryl_assembly_add_value(a, 4, 5, -2.5));
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_finish(a, &A));
    double dense[3 * 6] = {0};
    bool stored[3 * 6] = {false};
    dense[2 * 6 + 5] = -2.5;
    stored[2 * 6 + 5] = true;
    int64_t m = 0, n = 0;
    CHECK_OK(kryl_matrix_size(A, &m, &n, NULL));
    CHECK(m == 8 && n == 6, "size %lld x %lld, expected 8 x 6", (long long)m, (long long)n);
    check_against_dense(A, 3, 6, dense, stored, "owned rows 2..4");
    kryl_matrix_destroy(&A);
    kryl_assembly_destroy(&a);
}

/* finish, add more, finish again: the second matrix has everything, the
 * first is unchanged. */
static void test_finish_twice(kryl_context ctx)
{
    kryl_assembly a;
    CHECK_OK(kryl_assembly_create(&a, ctx, 3, 3, 0, 3));
    CHECK_OK(kryl_assembly_add_value(a, 2, 0, 1.5));
    CHECK_OK(kryl_assembly_add_value(a, 0, 1, -1.0));
    kryl_matrix A1 = NULL, A2 = NULL;
    CHECK_OK(kryl_assembly_finish(a, &A1));
    CHECK_OK(kryl_assembly_add_value(a, 2, 0, 0.25));
    CHECK_OK(kryl_assembly_add_value(a, 1, 1, 4.0));
    CHECK_OK(kryl_assembly_finish(a, &A2));
    kryl_assembly_destroy(&a);
    CHECK(a == NULL, "destroy leaves the handle non-NULL");

    double d1[9] = {0, -1.0, 0, 0, 0, 0, 1.5, 0, 0};
    bool s1[9] = {false, true, false, false, false, false, true, false, false};
    double d2[9] = {0, -1.0, 0, 0, 4.0, 0, 1.75, 0, 0};
    bool s2[9] = {false, true, false, false, true, false, true, false, false};
    check_against_dense(A1, 3, 3, d1, s1, "first finish");
    check_against_dense(A2, 3, 3, d2, s2, "second finish");
    kryl_matrix_destroy(&A1);
    kryl_matrix_destroy(&A2);
}

/* No entries at all: every row empty.  And a 1 x 1 matrix from duplicates. */
static void test_small_shapes(kryl_context ctx)
{
    kryl_assembly a;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_create(&a, ctx, 5, 7, 0, 5));
    CHECK_OK(kryl_assembly_finish(a, &A));
    int64_t nnz = -1;
    CHECK_OK(kryl_matrix_size(A, NULL, NULL, &nnz));
    CHECK(nnz == 0, "empty assembly gave %lld entries", (long long)nnz);
    double dense[35] = {0};
    bool stored[35] = {false};
    check_against_dense(A, 5, 7, dense, stored, "empty");
    kryl_matrix_destroy(&A);
    kryl_assembly_destroy(&a);

    CHECK_OK(kryl_assembly_create(&a, ctx, 1, 1, 0, 1));
    for (int k = 0; k < 3; k++) CHECK_OK(kryl_assembly_add_value(a, 0, 0, 2.5));
    CHECK_OK(kryl_assembly_finish(a, &A));
    double one = 7.5;
    bool one_stored = true;
    check_against_dense(A, 1, 1, &one, &one_stored, "1 x 1");
    kryl_matrix_destroy(&A);
    kryl_assembly_destroy(&a);
}

/* Invalid shapes and NULL arguments; constructors leave *out NULL. */
static void test_assembly_arguments(kryl_context ctx)
{
    kryl_assembly junk_a = (kryl_assembly)&junk_a, a = junk_a;
    CHECK_STATUS(kryl_assembly_create(&a, ctx, -1, 3, 0, 0), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(a == NULL, "failed create left the assembly non-NULL");
    a = junk_a;
    CHECK_STATUS(kryl_assembly_create(&a, ctx, 3, -1, 0, 3), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(a == NULL, "failed create left the assembly non-NULL");
    CHECK_STATUS(kryl_assembly_create(&a, ctx, 3, 3, 0, 4), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_create(&a, ctx, 3, 3, 2, 1), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_assembly_create(&a, ctx, 3, 3, -1, 2), KRYL_ERR_INVALID_ARGUMENT);
    a = junk_a;
    CHECK_STATUS(kryl_assembly_create(&a, NULL, 3, 3, 0, 3), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(a == NULL, "failed create left the assembly non-NULL");
    CHECK_STATUS(kryl_assembly_create(NULL, ctx, 3, 3, 0, 3), KRYL_ERR_INVALID_ARGUMENT);

    kryl_matrix junk_m = (kryl_matrix)&junk_m, A = junk_m;
    CHECK_STATUS(kryl_assembly_finish(NULL, &A), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(A == NULL, "failed finish left the matrix non-NULL");
    CHECK_OK(kryl_assembly_create(&a, ctx, 2, 2, 0, 2));
    CHECK_STATUS(kryl_assembly_finish(a, NULL), KRYL_ERR_INVALID_ARGUMENT);
    kryl_assembly_destroy(&a);

    /* destroying nothing is fine */
    kryl_assembly no_a = NULL;
    kryl_matrix no_m = NULL;
    CHECK_OK(kryl_assembly_destroy(NULL));
    CHECK_OK(kryl_assembly_destroy(&no_a));
    CHECK_OK(kryl_matrix_destroy(NULL));
    CHECK_OK(kryl_matrix_destroy(&no_m));
}

/* kryl_matrix_create_csr: unsorted columns and duplicates are sorted and
 * summed; malformed arrays are rejected and leave *A NULL. */
static void test_create_csr(kryl_context ctx)
{
    /* 3 x 5: row 0 unsorted with a duplicate, row 1 empty, row 2 unsorted */
    const int64_t rp[] = {0, 4, 4, 7};
    const int64_t ci[] = {4, 1, 4, 0, 3, 2, 0};
    const double v[] = {1.0, 2.0, 0.5, -3.0, 6.0, 5.0, 7.0};
    const double dense[15] = {-3.0, 2.0, 0, 0, 1.5, 0, 0, 0, 0, 0, 7.0, 0, 5.0, 6.0, 0};
    const bool stored[15] = {true,  true,  false, false, true, false, false, false,
                             false, false, true,  false, true, true,  false};
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp, ci, v));
    check_against_dense(A, 3, 5, dense, stored, "create_csr");
    kryl_matrix_destroy(&A);
    CHECK(A == NULL, "destroy leaves the handle non-NULL");

    kryl_matrix junk = (kryl_matrix)&junk;
    const int64_t rp_decreasing[] = {0, 4, 3, 7};
    A = junk;
    CHECK(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp_decreasing, ci, v) != KRYL_SUCCESS,
          "a decreasing row_ptr was accepted");
    CHECK(A == NULL, "failed create left the matrix non-NULL");
    const int64_t rp_offset[] = {1, 4, 4, 7};
    CHECK(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp_offset, ci, v) != KRYL_SUCCESS,
          "row_ptr[0] = 1 was accepted");
    const int64_t ci_bad[] = {4, 1, 4, 0, 3, 5, 0};
    A = junk;
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp, ci_bad, v),
                 KRYL_ERR_INDEX_OUT_OF_RANGE);
    CHECK(A == NULL, "failed create left the matrix non-NULL");
    const int64_t ci_negative[] = {4, 1, -1, 0, 3, 2, 0};
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp, ci_negative, v),
                 KRYL_ERR_INDEX_OUT_OF_RANGE);
    const double v_nan[] = {1.0, 2.0, 0.5, NAN, 6.0, 5.0, 7.0};
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp, ci, v_nan),
                 KRYL_ERR_INVALID_VALUE);

    A = junk;
    CHECK_STATUS(kryl_matrix_create_csr(&A, NULL, 3, 5, 0, 3, rp, ci, v),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK(A == NULL, "failed create left the matrix non-NULL");
    CHECK_STATUS(kryl_matrix_create_csr(NULL, ctx, 3, 5, 0, 3, rp, ci, v),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, NULL, ci, v),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp, NULL, v),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 3, rp, ci, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, -3, 5, 0, 3, rp, ci, v),
                 KRYL_ERR_INVALID_ARGUMENT);
    const int64_t rp_four_rows[] = {0, 4, 4, 7, 7}; /* owned rows [0, 4) of a 3-row matrix */
    CHECK_STATUS(kryl_matrix_create_csr(&A, ctx, 3, 5, 0, 4, rp_four_rows, ci, v),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK(A == NULL, "failed create left the matrix non-NULL");
}

int main(void)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = KRYL_BACKEND_REF;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &o));
    if (ctx == NULL) return test_summary("test_assembly");
    test_random_order(ctx);
    test_bad_entries(ctx);
    test_finish_twice(ctx);
    test_small_shapes(ctx);
    test_assembly_arguments(ctx);
    test_create_csr(ctx);
    CHECK_OK(kryl_context_destroy(&ctx));
    return test_summary("test_assembly");
}
