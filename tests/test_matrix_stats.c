/* kryl_matrix_get_stats on hand-made matrices with known statistics, on
 * random matrices against a dense brute-force count, and on real and
 * generated matrices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static kryl_context ctx;

/* A matrix from CSR arrays. */
static kryl_matrix make(int64_t nrows, int64_t ncols, const int64_t *row_ptr, const int64_t *cols,
                        const double *values)
{
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, nrows, ncols, 0, nrows, row_ptr, cols, values));
    return A;
}

static kryl_matrix_stats stats_of(kryl_matrix A)
{
    kryl_matrix_stats s;
    memset(&s, 0xff, sizeof s);
    CHECK_OK(kryl_matrix_get_stats(A, &s));
    return s;
}

/* A symmetric, strictly diagonally dominant tridiagonal 4 x 4. */
static void test_tridiagonal(void)
{
    const int64_t rp[] = {0, 2, 5, 8, 10};
    const int64_t ci[] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    const double v[] = {4, -1, -1, 4, -1, -1, 4, -1, -1, 3};
    kryl_matrix A = make(4, 4, rp, ci, v);
    if (A == NULL) return;
    kryl_matrix_stats s = stats_of(A);
    CHECK(s.nrows == 4 && s.ncols == 4 && s.nnz == 10, "size %lld %lld %lld", (long long)s.nrows,
          (long long)s.ncols, (long long)s.nnz);
    CHECK(s.row_min == 2 && s.row_max == 3 && s.empty_rows == 0, "row lengths");
    CHECK_CLOSE(s.row_mean, 2.5, 1e-15);
    CHECK_CLOSE(s.row_stddev, 0.5, 1e-15);
    CHECK(s.bandwidth == 1, "bandwidth %lld", (long long)s.bandwidth);
    CHECK(s.profile_sum == 3, "profile %lld", (long long)s.profile_sum);
    CHECK(s.symmetric && s.symmetric_pattern, "symmetric");
    CHECK(s.zero_diagonals == 0 && s.positive_diagonal, "diagonal");
    CHECK(s.dominant_rows == 4 && s.strictly_dominant_rows == 4, "dominance %lld %lld",
          (long long)s.dominant_rows, (long long)s.strictly_dominant_rows);
    CHECK_CLOSE(s.frobenius_norm, sqrt(63.0), 1e-15);
    CHECK_CLOSE(s.max_abs, 4.0, 0);
    /* 8*10 + 4*10 + 4*5 + 8*4 + 8*4 and 4*10 + 4*10 + 4*5 + 4*4 + 4*4 */
    CHECK(s.spmv_bytes_double == 204, "bytes %lld", (long long)s.spmv_bytes_double);
    CHECK(s.spmv_bytes_single == 132, "bytes %lld", (long long)s.spmv_bytes_single);
    CHECK_STATUS(kryl_matrix_get_stats(A, NULL), KRYL_ERR_INVALID_ARGUMENT);
    kryl_matrix_destroy(&A);
}

/* A 3 x 4 rectangle with an empty row and missing diagonals. */
static void test_rectangular(void)
{
    const int64_t rp[] = {0, 2, 2, 4};
    const int64_t ci[] = {0, 3, 0, 1};
    const double v[] = {2, -5, 1, 0.5};
    kryl_matrix A = make(3, 4, rp, ci, v);
    if (A == NULL) return;
    kryl_matrix_stats s = stats_of(A);
    CHECK(s.nrows == 3 && s.ncols == 4 && s.nnz == 4, "size");
    CHECK(s.row_min == 0 && s.row_max == 2 && s.empty_rows == 1, "row lengths");
    CHECK_CLOSE(s.row_mean, 4.0 / 3.0, 1e-15);
    CHECK_CLOSE(s.row_stddev, sqrt(8.0) / 3.0, 1e-15);
    CHECK(s.bandwidth == 3, "bandwidth %lld", (long long)s.bandwidth);
    CHECK(s.profile_sum == 2, "profile %lld", (long long)s.profile_sum);
    CHECK(!s.symmetric && !s.symmetric_pattern, "a rectangle is not symmetric");
    CHECK(s.zero_diagonals == 2 && !s.positive_diagonal, "zero diagonals %lld",
          (long long)s.zero_diagonals);
    /* row 0: 2 < 5; the empty row: 0 >= 0 but not >; row 2: 0 < 1.5 */
    CHECK(s.dominant_rows == 1 && s.strictly_dominant_rows == 0, "dominance %lld %lld",
          (long long)s.dominant_rows, (long long)s.strictly_dominant_rows);
    CHECK_CLOSE(s.frobenius_norm, 5.5, 1e-15);
    CHECK_CLOSE(s.max_abs, 5.0, 0);
    CHECK(s.spmv_bytes_double == 120, "bytes %lld", (long long)s.spmv_bytes_double);
    CHECK(s.spmv_bytes_single == 76, "bytes %lld", (long long)s.spmv_bytes_single);
    kryl_matrix_destroy(&A);
}

/* Pattern symmetric with unequal values; then a one-sided pattern. */
static void test_symmetry_kinds(void)
{
    const int64_t rp[] = {0, 2, 4};
    const int64_t ci[] = {0, 1, 0, 1};
    const double v[] = {1, 2, 3, 1};
    kryl_matrix A = make(2, 2, rp, ci, v);
    if (A != NULL) {
        kryl_matrix_stats s = stats_of(A);
        CHECK(s.symmetric_pattern && !s.symmetric, "pattern-only symmetry");
        kryl_matrix_destroy(&A);
    }
    const int64_t rp2[] = {0, 2, 3};
    const int64_t ci2[] = {0, 1, 1};
    const double v2[] = {1, 2, -1};
    A = make(2, 2, rp2, ci2, v2);
    if (A != NULL) {
        kryl_matrix_stats s = stats_of(A);
        CHECK(!s.symmetric_pattern && !s.symmetric, "upper triangle only");
        CHECK(s.positive_diagonal == false && s.zero_diagonals == 0, "a_11 = -1");
        kryl_matrix_destroy(&A);
    }
}

/* The statistics counted from a dense copy, entry by entry. */
static kryl_matrix_stats dense_stats(const kryl_csr *c)
{
    int64_t n = c->nrows, m = c->ncols;
    double *a = calloc((size_t)(n * m), sizeof *a);
    char *stored = calloc((size_t)(n * m), 1);
    kryl_matrix_stats s;
    memset(&s, 0, sizeof s);
    s.nrows = n;
    s.ncols = m;
    s.nnz = c->row_ptr[n];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++) {
            a[i * m + c->col_idx[k]] = c->values[k];
            stored[i * m + c->col_idx[k]] = 1;
        }
    s.row_min = INT64_MAX;
    s.positive_diagonal = true;
    s.symmetric = s.symmetric_pattern = n == m;
    double sumsq = 0.0, var = 0.0;
    s.row_mean = (double)s.nnz / (double)n;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = 0, first = -1;
        double off = 0.0, d = i < m ? a[i * m + i] : 0.0;
        for (int64_t j = 0; j < m; j++) {
            if (!stored[i * m + j]) continue;
            len++;
            if (first < 0) first = j;
            double x = fabs(a[i * m + j]);
            sumsq += x * x;
            if (x > s.max_abs) s.max_abs = x;
            if (llabs(i - j) > s.bandwidth) s.bandwidth = llabs(i - j);
            if (j != i) off += x;
            if (n == m && stored[i * m + j] != stored[j * m + i]) s.symmetric_pattern = false;
            if (n == m && a[i * m + j] != a[j * m + i]) s.symmetric = false;
        }
        if (first >= 0 && first < i) s.profile_sum += i - first;
        if (len < s.row_min) s.row_min = len;
        if (len > s.row_max) s.row_max = len;
        s.empty_rows += len == 0;
        var += ((double)len - s.row_mean) * ((double)len - s.row_mean);
        s.zero_diagonals += d == 0.0;
        if (!(d > 0.0)) s.positive_diagonal = false;
        s.dominant_rows += fabs(d) >= off;
        s.strictly_dominant_rows += fabs(d) > off;
    }
    s.row_stddev = sqrt(var / (double)n);
    s.frobenius_norm = sqrt(sumsq);
    free(a);
    free(stored);
    return s;
}

/* Every field of the library's statistics against the dense count. */
static void compare(const kryl_matrix_stats *s, const kryl_matrix_stats *e, const char *what)
{
    CHECK(s->nrows == e->nrows && s->ncols == e->ncols && s->nnz == e->nnz, "%s: size", what);
    CHECK(s->row_min == e->row_min && s->row_max == e->row_max, "%s: row min/max", what);
    CHECK(s->empty_rows == e->empty_rows, "%s: empty rows", what);
    CHECK_CLOSE(s->row_mean, e->row_mean, 1e-12);
    CHECK_CLOSE(s->row_stddev, e->row_stddev, 1e-12);
    CHECK(s->bandwidth == e->bandwidth, "%s: bandwidth %lld vs %lld", what, (long long)s->bandwidth,
          (long long)e->bandwidth);
    CHECK(s->profile_sum == e->profile_sum, "%s: profile", what);
    CHECK(s->symmetric == e->symmetric, "%s: symmetric %d", what, e->symmetric);
    CHECK(s->symmetric_pattern == e->symmetric_pattern, "%s: pattern symmetric", what);
    CHECK(s->zero_diagonals == e->zero_diagonals, "%s: zero diagonals", what);
    CHECK(s->positive_diagonal == e->positive_diagonal, "%s: positive diagonal", what);
    CHECK(s->dominant_rows == e->dominant_rows, "%s: dominant", what);
    CHECK(s->strictly_dominant_rows == e->strictly_dominant_rows, "%s: strictly dominant", what);
    CHECK_CLOSE(s->frobenius_norm, e->frobenius_norm, 1e-12);
    CHECK_CLOSE(s->max_abs, e->max_abs, 0);
}

/* The csr plus its transpose (a symmetric matrix) when `symmetrize`. */
static kryl_matrix from_csr(const kryl_csr *c, bool symmetrize)
{
    kryl_assembly as = NULL;
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_create(&as, ctx, c->nrows, c->ncols, 0, c->nrows));
    for (int64_t i = 0; i < c->nrows; i++)
        for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++) {
            /* a_ij += v (and a_ji += v) */
            CHECK_OK(kryl_assembly_add_value(as, i, c->col_idx[k], c->values[k]));
            if (symmetrize) CHECK_OK(kryl_assembly_add_value(as, c->col_idx[k], i, c->values[k]));
        }
    CHECK_OK(kryl_assembly_finish(as, &A));
    kryl_assembly_destroy(&as);
    return A;
}

static void test_random_against_dense(void)
{
    const int64_t sizes[] = {1, 2, 31, 100};
    for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++)
        for (int si = 0; si < 4; si++)
            for (int sym = 0; sym < 2; sym++) {
                int64_t n = sizes[si], m = sym ? n : n + 3;
                kryl_csr c;
                test_random_csr(&c, (test_shape)shape, n, m, (uint64_t)(shape * 10 + si));
                kryl_matrix A = from_csr(&c, sym);
                if (A != NULL) {
                    const int64_t *rp;
                    const int32_t *ci;
                    const double *v;
                    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &v));
                    kryl_csr view = {.nrows = c.nrows,
                                     .ncols = c.ncols,
                                     .nrows_global = c.nrows,
                                     .row_ptr = (int64_t *)rp,
                                     .col_idx = (int32_t *)ci,
                                     .values = (double *)v};
                    kryl_matrix_stats e = dense_stats(&view);
                    kryl_matrix_stats s = stats_of(A);
                    char what[64];
                    snprintf(what, sizeof what, "%s n=%lld %s", test_shape_name(shape),
                             (long long)n, sym ? "symmetric" : "rectangular");
                    compare(&s, &e, what);
                    if (sym) CHECK(s.symmetric && s.symmetric_pattern, "%s: A + A^T", what);
                    kryl_matrix_destroy(&A);
                }
                kryl_csr_free(&c);
            }
}

/* nos4 (SuiteSparse HB/nos4): 100 x 100, 594 entries, SPD, rows of at most 7. */
static void test_real_matrix(void)
{
    const char *path = test_matrix_path("nos4.mtx");
    if (path == NULL) {
        printf("nos4.mtx not found: skipping the real matrix\n");
        return;
    }
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
    if (A == NULL) return;
    kryl_matrix_stats s = stats_of(A);
    CHECK(s.nrows == 100 && s.nnz == 594, "nos4 size");
    CHECK(s.symmetric && s.symmetric_pattern, "nos4 is symmetric");
    CHECK(s.row_max == 7 && s.positive_diagonal && s.zero_diagonals == 0, "nos4 rows/diagonal");
    CHECK_CLOSE(s.row_mean, 5.94, 1e-12);
    kryl_matrix_destroy(&A);
}

/* The 7-point Laplacian on 5 x 5 x 5: 6 on the diagonal, -1 to each
 * neighbour; the 27 interior rows are dominant but not strictly. */
static void test_poisson(void)
{
    kryl_generator_options g;
    kryl_generator_options_init(&g, KRYL_GEN_POISSON3D7, 5);
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_generate(&A, ctx, &g, 0, 125));
    if (A == NULL) return;
    kryl_matrix_stats s = stats_of(A);
    CHECK(s.nrows == 125 && s.nnz == 725, "poisson size %lld", (long long)s.nnz);
    CHECK(s.symmetric && s.symmetric_pattern, "poisson is symmetric");
    CHECK(s.row_min == 4 && s.row_max == 7 && s.empty_rows == 0, "poisson rows");
    CHECK(s.bandwidth == 25, "poisson bandwidth %lld", (long long)s.bandwidth);
    CHECK(s.dominant_rows == 125 && s.strictly_dominant_rows == 98, "poisson dominance");
    CHECK(s.positive_diagonal && s.zero_diagonals == 0, "poisson diagonal");
    kryl_matrix_destroy(&A);
}

int main(void)
{
    kryl_context_options opt;
    kryl_context_options_init(&opt);
    opt.backend = KRYL_BACKEND_REF;
    CHECK_OK(kryl_context_create(&ctx, &opt));
    if (ctx == NULL) return test_summary("test_matrix_stats");
    kryl_matrix_stats s;
    CHECK_STATUS(kryl_matrix_get_stats(NULL, &s), KRYL_ERR_INVALID_ARGUMENT);
    test_tridiagonal();
    test_rectangular();
    test_symmetry_kinds();
    test_random_against_dense();
    test_real_matrix();
    test_poisson();
    kryl_context_destroy(&ctx);
    return test_summary("test_matrix_stats");
}
