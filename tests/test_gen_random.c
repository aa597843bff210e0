/* Random generators: random-spd (symmetric, strictly diagonally dominant,
 * positive definite, expected size) and powerlaw (heavy-tailed row lengths,
 * distinct uniform columns, dominant diagonal); both deterministic in the
 * seed and buildable one row range at a time. */
#include "test_gen_support.h"

static void options(kryl_generator_options *o, kryl_generator_kind kind, int64_t n,
                    int64_t row_length, uint64_t seed)
{
    kryl_generator_options_init(o, kind, n);
    o->row_length = row_length;
    o->seed = seed;
}

static bool same_matrix(const kryl_csr *A, const kryl_csr *B)
{
    const int64_t nnz = kryl_csr_nnz(A);
    return A->nrows == B->nrows && nnz == kryl_csr_nnz(B) &&
           memcmp(A->row_ptr, B->row_ptr, ((size_t)A->nrows + 1) * sizeof(int64_t)) == 0 &&
           memcmp(A->col_idx, B->col_idx, (size_t)nnz * sizeof(int32_t)) == 0 &&
           memcmp(A->values, B->values, (size_t)nnz * sizeof(double)) == 0;
}

/* The same seed gives the same matrix, another seed another one. */
static void check_seed(const kryl_generator_options *o, const kryl_csr *A, const char *what)
{
    kryl_generator g;
    kryl_csr B;
    if (!gen_whole(&B, &g, o)) return;
    CHECK(same_matrix(A, &B), "%s: two builds with one seed differ", what);
    gen_csr_free(&B);
    kryl_generator_options other = *o;
    other.seed = o->seed + 1;
    if (!gen_whole(&B, &g, &other)) return;
    /* (diagonal-only matrices do not depend on the seed) */
    CHECK(A->nrows < 100 || kryl_csr_nnz(A) == A->nrows || !same_matrix(A, &B),
          "%s: seeds %llu and %llu give one matrix", what, (unsigned long long)o->seed,
          (unsigned long long)other.seed);
    gen_csr_free(&B);
}

static void check_random_spd(int64_t n, int64_t row_length, uint64_t seed)
{
    char what[96];
    snprintf(what, sizeof what, "random-spd n=%lld row_length=%lld seed=%llu", (long long)n,
             (long long)row_length, (unsigned long long)seed);
    kryl_generator_options o;
    options(&o, KRYL_GEN_RANDOM_SPD, n, row_length, seed);
    kryl_generator g;
    kryl_csr A;
    if (!gen_whole(&A, &g, &o)) return;
    gen_check_rows(&A, what);
    CHECK(gen_is_symmetric(&A), "%s: not symmetric", what);
    /* a_ii = 1 + sum |a_ij| with off-diagonals in [-1, 0) */
    const double margin = gen_dominance_margin(&A);
    CHECK(fabs(margin - 1.0) <= 1e-12, "%s: a_ii - sum |a_ij| = %.17g, expected 1", what, margin);
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t len = A.row_ptr[i + 1] - A.row_ptr[i];
        longest = len > longest ? len : longest;
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; e++)
            if (A.col_idx[e] != i)
                CHECK(A.values[e] < 0.0 && A.values[e] >= -1.0, "%s: a(%lld, %d) = %g", what,
                      (long long)i, A.col_idx[e], A.values[e]);
    }
    CHECK(longest <= g.max_row_length, "%s: a row of %lld > max_row_length %lld", what,
          (long long)longest, (long long)g.max_row_length);
    /* the mean size is the estimate within 4 standard deviations */
    const double expected = (double)g.nnz_estimate, got = (double)kryl_csr_nnz(&A);
    CHECK(fabs(got - expected) <= 4.0 * sqrt(expected) + 1.0, "%s: nnz %g, expected about %g", what,
          got, expected);
    if (n <= 300) CHECK(gen_cholesky_ok(&A), "%s: Cholesky fails", what);
    gen_check_range(&A, &g, n / 3, n - n / 5, what);
    check_seed(&o, &A, what);
    gen_csr_free(&A);
}

static void check_powerlaw(int64_t n, int64_t row_length, double exponent, uint64_t seed,
                           double mean_tolerance)
{
    char what[128];
    snprintf(what, sizeof what, "powerlaw n=%lld row_length=%lld exponent=%g seed=%llu",
             (long long)n, (long long)row_length, exponent, (unsigned long long)seed);
    kryl_generator_options o;
    options(&o, KRYL_GEN_POWERLAW, n, row_length, seed);
    o.exponent = exponent;
    kryl_generator g;
    kryl_csr A;
    if (!gen_whole(&A, &g, &o)) return;
    gen_check_rows(&A, what);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; i++) {
        /* a_ii present and = 1 + sum |a_ij|; off-diagonals in [-1, 0) */
        double diag = 0.0, sum = 1.0;
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; e++) {
            if (A.col_idx[e] == i)
                diag = A.values[e];
            else {
                sum += fabs(A.values[e]);
                if (!(A.values[e] < 0.0 && A.values[e] >= -1.0)) bad++;
            }
        }
        if (diag == 0.0 || fabs(diag - sum) > 1e-12 * sum) bad++;
        CHECK(bad == 0, "%s: row %lld: diagonal %g, 1 + sum |off| = %g", what, (long long)i, diag,
              sum);
    }
    if (mean_tolerance > 0.0) {
        const double mean = (double)kryl_csr_nnz(&A) / (double)n;
        const double estimate = (double)g.nnz_estimate / (double)n;
        CHECK(fabs(mean - estimate) <= mean_tolerance * estimate,
              "%s: mean row length %g, estimate %g", what, mean, estimate);
        CHECK(fabs(estimate - (double)row_length) <= 0.01 * (double)row_length,
              "%s: estimated mean %g, asked for %lld", what, estimate, (long long)row_length);
    }
    gen_check_range(&A, &g, n / 2, n - n / 7, what);
    check_seed(&o, &A, what);
    gen_csr_free(&A);
}

/* Heavy tail: the longest row is many times the mean, and the columns of
 * the rows spread uniformly (mean column near n/2). */
static void check_powerlaw_tail(void)
{
    const int64_t n = 50000;
    kryl_generator_options o;
    options(&o, KRYL_GEN_POWERLAW, n, 8, 7);
    kryl_generator g;
    kryl_csr A;
    if (!gen_whole(&A, &g, &o)) return;
    int64_t longest = 0, ones = 0;
    double column_sum = 0.0, off = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t len = A.row_ptr[i + 1] - A.row_ptr[i];
        longest = len > longest ? len : longest;
        ones += len == 1;
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; e++)
            if (A.col_idx[e] != i) {
                column_sum += A.col_idx[e];
                off += 1.0;
            }
    }
    const double mean = (double)kryl_csr_nnz(&A) / (double)n;
    printf("powerlaw n=%lld: mean row %.2f, longest %lld, rows of 1: %lld\n", (long long)n, mean,
           (long long)longest, (long long)ones);
    CHECK(longest >= 50.0 * mean, "longest row %lld, mean %g: no heavy tail", (long long)longest,
          mean);
    CHECK(ones > n / 10, "only %lld rows of length 1", (long long)ones);
    CHECK(fabs(column_sum / off - 0.5 * (double)n) <= 0.02 * (double)n,
          "mean column %g, expected about %g", column_sum / off, 0.5 * (double)n);
    CHECK(!gen_is_symmetric(&A), "powerlaw came out symmetric");
    gen_csr_free(&A);
}

/* Row i of g built alone into buffers of exactly its length: sorted, unique,
 * diagonal = 1 + sum |off|. */
static void check_long_row(const kryl_generator *g, int64_t i, int64_t len)
{
    int64_t *cols = malloc((size_t)len * sizeof *cols);
    double *vals = malloc((size_t)len * sizeof *vals);
    const int64_t written = kryl_generator_row(g, i, cols, vals);
    bool ok = written == len;
    double sum = 1.0, diag = 0.0; /* 1 + sum |a_ij|, a_ii */
    for (int64_t e = 0; e < len && ok; e++) {
        ok = e == 0 || cols[e] > cols[e - 1];
        if (cols[e] == i)
            diag = vals[e];
        else
            sum += fabs(vals[e]);
    }
    CHECK(ok && diag == sum,
          "row %lld of %lld entries (%lld written): not sorted/unique, or "
          "a_ii %g != %g",
          (long long)i, (long long)len, (long long)written, diag, sum);
    free(cols);
    free(vals);
}

/* Long rows of a large matrix: one sampled directly (under half the columns)
 * and one through its complement (over half), and rows that take almost
 * every column. */
static void check_powerlaw_long_rows(void)
{
    const int64_t n = INT64_C(1) << 22;
    kryl_generator_options o;
    options(&o, KRYL_GEN_POWERLAW, n, 32, 3);
    o.exponent = 1.5;
    kryl_generator g;
    CHECK_OK(kryl_generator_init(&g, &o));
    int64_t longest[2] = {0, 0}, row[2] = {0, 0}; /* [0]: <= n/2 entries, [1]: more */
    for (int64_t i = 0; i < 200000; i++) {
        const int64_t len = kryl_generator_row(&g, i, NULL, NULL);
        const int half = len > n / 2;
        if (len > longest[half]) longest[half] = len, row[half] = i;
    }
    printf("powerlaw n=2^22 exponent 1.5, 200000 rows: longest %lld and %lld\n",
           (long long)longest[0], (long long)longest[1]);
    CHECK(longest[0] > 100000 && longest[1] > 0, "no long rows: %lld, %lld", (long long)longest[0],
          (long long)longest[1]);
    for (int h = 0; h < 2; h++)
        if (longest[h] > 0) check_long_row(&g, row[h], longest[h]);

    /* row_length 2n/3: many rows take more than half the columns */
    options(&o, KRYL_GEN_POWERLAW, 300, 200, 5);
    kryl_csr A;
    if (!gen_whole(&A, &g, &o)) return;
    gen_check_rows(&A, "powerlaw n=300 row_length=200");
    int64_t full = 0, dense = 0;
    for (int64_t i = 0; i < A.nrows; i++) {
        full += A.row_ptr[i + 1] - A.row_ptr[i] == 300;
        dense += A.row_ptr[i + 1] - A.row_ptr[i] > 150;
    }
    CHECK(full > 0 && dense > 50 && dense < 300,
          "n=300 row_length=200: %lld full rows, %lld over half", (long long)full,
          (long long)dense);
    gen_csr_free(&A);
}

int main(void)
{
    static const int64_t sizes[] = {1, 2, 3, 7, 33, 2000};
    for (int s = 0; s < 6; s++) {
        check_random_spd(sizes[s], 8, 1);
        check_random_spd(sizes[s], 1, 2); /* the identity */
        check_random_spd(sizes[s], 3, 3);
        check_random_spd(sizes[s], 100, 4); /* window cut to the matrix */
        check_powerlaw(sizes[s], 8, 2.1, 1, 0.0);
        check_powerlaw(sizes[s], 1, 2.1, 2, 0.0);
        check_powerlaw(sizes[s], 5, 1.3, 3, 0.0);
        check_powerlaw(sizes[s], 1000, 3.0, 4, 0.0);
    }
    check_random_spd(20000, 8, 9);
    /* exponent 3.5: finite variance, so the mean settles near row_length */
    check_powerlaw(40000, 8, 3.5, 11, 0.05);
    check_powerlaw(40000, 20, 4.0, 12, 0.05);
    check_powerlaw_tail();
    check_powerlaw_long_rows();
    return test_summary("test_gen_random");
}
