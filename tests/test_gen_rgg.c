/* The random geometric graph generator (rgg, rgg-spatial): symmetric,
 * strictly diagonally dominant with a positive diagonal (so SPD), the mean
 * row length asked for, any row range built alone equal to the whole, the
 * two numberings the same graph under the scrambled numbering's bijection,
 * contiguous spatial rows with a small halo, and bad options refused. */
#include "gen/scramble.h"
#include "test_gen_support.h"

static void options(kryl_generator_options *o, kryl_generator_kind kind, int64_t n,
                    int64_t row_length, uint64_t seed)
{
    kryl_generator_options_init(o, kind, n);
    o->row_length = row_length;
    o->seed = seed;
}

/* pi and pi^-1 of [0, n): every value hit once, each undoes the other, and
 * few points stay in place. */
static void check_scramble(int64_t n, uint64_t seed)
{
    kryl_gen_scramble p;
    kryl_gen_scramble_init(&p, n, seed);
    char *seen = calloc((size_t)n, 1);
    int64_t bad = 0, fixed = 0;
    for (int64_t x = 0; x < n; x++) {
        const int64_t y = kryl_gen_scramble_forward(&p, x);
        if (y < 0 || y >= n || seen[y] || kryl_gen_scramble_inverse(&p, y) != x) {
            bad++;
            continue;
        }
        seen[y] = 1;
        fixed += y == x;
    }
    CHECK(bad == 0,
          "scramble n=%lld seed=%llu: %lld values out of range, repeated or not "
          "inverted",
          (long long)n, (unsigned long long)seed, (long long)bad);
    CHECK(n < 100 || fixed < n / 20, "scramble n=%lld: %lld fixed points", (long long)n,
          (long long)fixed);
    free(seen);
}

/* Rows of A: off-diagonals in [-1, 0); a_ii - sum |a_ij| = sigma_i in [1/2, 1). */
static void check_values(const kryl_csr *A, const char *what)
{
    int bad = 0;
    for (int64_t i = 0; i < A->nrows && bad < 5; i++) {
        double diag = 0.0, off = 0.0;
        bool in_range = true;
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            if (A->col_idx[e] == i) {
                diag = A->values[e];
                continue;
            }
            off += fabs(A->values[e]);
            in_range = in_range && A->values[e] < 0.0 && A->values[e] >= -1.0;
        }
        const double sigma = diag - off;
        const bool ok = in_range && sigma >= 0.5 - 1e-12 && sigma < 1.0 + 1e-12;
        CHECK(ok, "%s: row %lld: a_ii %g, sum |a_ij| %g, off-diagonals in [-1, 0): %d", what,
              (long long)i, diag, off, in_range);
        bad += !ok;
    }
}

/* The same seed gives the same matrix, another seed another one. */
static void check_seed(const kryl_generator_options *o, const kryl_csr *A, const char *what)
{
    kryl_generator g;
    kryl_csr B;
    if (!gen_whole(&B, &g, o)) return;
    const int64_t nnz = kryl_csr_nnz(A);
    CHECK(kryl_csr_nnz(&B) == nnz &&
              memcmp(A->col_idx, B.col_idx, (size_t)nnz * sizeof(int32_t)) == 0 &&
              memcmp(A->values, B.values, (size_t)nnz * sizeof(double)) == 0,
          "%s: two builds with one seed differ", what);
    gen_csr_free(&B);
    kryl_generator_options other = *o;
    other.seed = o->seed + 1;
    if (!gen_whole(&B, &g, &other)) return;
    CHECK(A->nrows < 100 || kryl_csr_nnz(&B) != nnz ||
              memcmp(A->values, B.values, (size_t)nnz * sizeof(double)) != 0,
          "%s: seeds %llu and %llu give one matrix", what, (unsigned long long)o->seed,
          (unsigned long long)other.seed);
    gen_csr_free(&B);
}

static void check_rgg(kryl_generator_kind kind, int64_t n, int64_t row_length, uint64_t seed)
{
    char what[96];
    snprintf(what, sizeof what, "%s n=%lld row_length=%lld seed=%llu", kryl_generator_name(kind),
             (long long)n, (long long)row_length, (unsigned long long)seed);
    kryl_generator_options o;
    options(&o, kind, n, row_length, seed);
    kryl_generator g;
    kryl_csr A;
    if (!gen_whole(&A, &g, &o)) return;
    CHECK(A.nrows == n, "%s: %lld rows", what, (long long)A.nrows);
    gen_check_rows(&A, what);
    CHECK(gen_is_symmetric(&A), "%s: not symmetric", what);
    check_values(&A, what);
    int64_t longest = 0;
    for (int64_t i = 0; i < n; i++)
        if (A.row_ptr[i + 1] - A.row_ptr[i] > longest) longest = A.row_ptr[i + 1] - A.row_ptr[i];
    CHECK(longest <= g.max_row_length, "%s: a row of %lld > max_row_length %lld", what,
          (long long)longest, (long long)g.max_row_length);
    CHECK(g.radius <= 1.0 / (double)g.cells, "%s: radius %g above the cell size 1/%lld", what,
          g.radius, (long long)g.cells);
    if (n <= 300) CHECK(gen_cholesky_ok(&A), "%s: Cholesky fails", what);
    gen_check_range(&A, &g, n / 3, n - n / 5, what);
    gen_check_range(&A, &g, n / 2, n / 2 + 1, what);
    check_seed(&o, &A, what);
    gen_csr_free(&A);
}

/* The mean row length is row_length, and the estimate agrees with the count. */
static void check_mean(kryl_generator_kind kind, int64_t n, int64_t row_length)
{
    kryl_generator_options o;
    options(&o, kind, n, row_length, 5);
    kryl_generator g;
    CHECK_OK(kryl_generator_init(&g, &o));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) nnz += kryl_generator_row(&g, i, NULL, NULL);
    const double mean = (double)nnz / (double)n, estimate = (double)g.nnz_estimate / (double)n;
    printf("%s n=%lld row_length=%lld: %lld cells per direction, radius %.4f, mean row %.3f\n",
           kryl_generator_name(kind), (long long)n, (long long)row_length, (long long)g.cells,
           g.radius, mean);
    CHECK(fabs(mean - (double)row_length) <= 0.03 * (double)row_length,
          "%s n=%lld: mean row length %g, asked for %lld", kryl_generator_name(kind), (long long)n,
          mean, (long long)row_length);
    CHECK(fabs(estimate - (double)row_length) <= 1e-4 * (double)row_length,
          "%s n=%lld: estimated mean %g, asked for %lld", kryl_generator_name(kind), (long long)n,
          estimate, (long long)row_length);
}

/* Scrambled row pi(s) is spatial row s renumbered: A_scr[pi(s), pi(t)] = A_sp[s, t]. */
static void check_same_graph(int64_t n, int64_t row_length, uint64_t seed)
{
    char what[96];
    snprintf(what, sizeof what, "rgg vs rgg-spatial n=%lld row_length=%lld", (long long)n,
             (long long)row_length);
    kryl_generator_options o;
    kryl_generator g, gs;
    kryl_csr A, S;
    options(&o, KRYL_GEN_RGG, n, row_length, seed);
    if (!gen_whole(&A, &g, &o)) return;
    options(&o, KRYL_GEN_RGG_SPATIAL, n, row_length, seed);
    if (!gen_whole(&S, &gs, &o)) return;
    CHECK(kryl_csr_nnz(&A) == kryl_csr_nnz(&S), "%s: %lld and %lld entries", what,
          (long long)kryl_csr_nnz(&A), (long long)kryl_csr_nnz(&S));
    int64_t bad = 0, moved = 0;
    for (int64_t s = 0; s < n; s++) {
        const int64_t ps = kryl_gen_scramble_forward(&g.scramble, s);
        moved += ps != s;
        for (int64_t e = S.row_ptr[s]; e < S.row_ptr[s + 1]; e++) {
            const int64_t pt = kryl_gen_scramble_forward(&g.scramble, S.col_idx[e]);
            bad += gen_entry(&A, ps, pt) != S.values[e];
        }
    }
    CHECK(bad == 0, "%s: %lld entries differ from the permuted spatial ones", what, (long long)bad);
    CHECK(n < 100 || moved > n / 2, "%s: the scrambled numbering moves only %lld rows", what,
          (long long)moved);
    gen_csr_free(&A);
    gen_csr_free(&S);
}

/* Distinct columns outside [begin, end) used by those rows (a rank's ghosts). */
static int64_t ghosts(const kryl_csr *A, int64_t begin, int64_t end, char *mark)
{
    int64_t count = 0;
    memset(mark, 0, (size_t)A->ncols);
    for (int64_t e = A->row_ptr[begin]; e < A->row_ptr[end]; e++) {
        const int32_t j = A->col_idx[e];
        if ((j < begin || j >= end) && !mark[j]) {
            mark[j] = 1;
            count++;
        }
    }
    return count;
}

/* Four contiguous blocks of rows: slabs of the cube in the spatial
 * numbering have far fewer ghosts than the scrambled blocks. */
static void check_locality(void)
{
    const int64_t n = 40000, blocks = 4;
    int64_t total[2] = {0, 0};
    const kryl_generator_kind kinds[2] = {KRYL_GEN_RGG, KRYL_GEN_RGG_SPATIAL};
    char *mark = malloc((size_t)n);
    for (int k = 0; k < 2; k++) {
        kryl_generator_options o;
        kryl_generator g;
        kryl_csr A;
        options(&o, kinds[k], n, 8, 1);
        if (!gen_whole(&A, &g, &o)) continue;
        for (int64_t b = 0; b < blocks; b++)
            total[k] += ghosts(&A, b * n / blocks, (b + 1) * n / blocks, mark);
        gen_csr_free(&A);
    }
    free(mark);
    printf("n=%lld in %lld row blocks: %lld ghosts scrambled, %lld spatial\n", (long long)n,
           (long long)blocks, (long long)total[0], (long long)total[1]);
    CHECK(total[1] > 0 && 5 * total[1] < total[0],
          "ghosts of 4 row blocks: %lld spatial, %lld scrambled: slabs should need far fewer",
          (long long)total[1], (long long)total[0]);
}

static void check_options(void)
{
    const char *names[2] = {"rgg", "rgg-spatial"};
    const kryl_generator_kind kinds[2] = {KRYL_GEN_RGG, KRYL_GEN_RGG_SPATIAL};
    for (int k = 0; k < 2; k++) {
        kryl_generator_kind kind = KRYL_GEN_POISSON2D5;
        CHECK_OK(kryl_generator_from_name(names[k], &kind));
        CHECK(kind == kinds[k] && strcmp(kryl_generator_name(kinds[k]), names[k]) == 0, "name %s",
              names[k]);
        kryl_generator_options o;
        kryl_generator_options_init(&o, kinds[k], 1000003);
        CHECK(o.nx == 1000003 && o.ny == 1 && o.nz == 1 && o.row_length == 8 && o.seed == 1,
              "%s defaults", names[k]);
        /* exactly nx rows, not a whole number of cells */
        int64_t nrows = 0, nnz = 0;
        CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
        CHECK(nrows == 1000003 && fabs((double)nnz - 8.0 * 1000003) < 1e-3 * 8e6,
              "%s: size %lld rows, %lld entries", names[k], (long long)nrows, (long long)nnz);
        o.ny = 0; /* unused */
        CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
        o.row_length = 0;
        check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "row_length");
        kryl_generator_options_init(&o, kinds[k], 0);
        check_rejected(&o, KRYL_ERR_INVALID_ARGUMENT, "nx");
        kryl_generator_options_init(&o, kinds[k], (INT64_C(1) << 31) + 1);
        check_rejected(&o, KRYL_ERR_INDEX_OVERFLOW, "2^31");
        kryl_generator_options_init(&o, kinds[k], INT64_C(1) << 31); /* the largest */
        CHECK_OK(kryl_generator_size(&o, &nrows, &nnz));
    }
}

int main(void)
{
    check_options();
    static const int64_t scramble_sizes[] = {1, 2, 3, 4, 5, 17, 1000, 4097, 65536, 100003};
    for (int s = 0; s < 10; s++) check_scramble(scramble_sizes[s], (uint64_t)s + 1);
    static const int64_t sizes[] = {1, 2, 3, 7, 64, 300, 2000, 20011};
    for (int s = 0; s < 8; s++)
        for (int k = 0; k < 2; k++) {
            const kryl_generator_kind kind = k ? KRYL_GEN_RGG_SPATIAL : KRYL_GEN_RGG;
            check_rgg(kind, sizes[s], 8, 1);
            check_rgg(kind, sizes[s], 1, 2); /* a diagonal matrix */
            check_rgg(kind, sizes[s], 3, 3);
            if (sizes[s] <= 2000) check_rgg(kind, sizes[s], 150, 4); /* long rows, few cells */
        }
    check_mean(KRYL_GEN_RGG, 30000, 8);
    check_mean(KRYL_GEN_RGG_SPATIAL, 30000, 8);
    check_mean(KRYL_GEN_RGG, 30000, 27);
    check_mean(KRYL_GEN_RGG_SPATIAL, 100000, 4);
    check_same_graph(300, 8, 1);
    check_same_graph(5000, 12, 7);
    check_locality();
    return test_summary("test_gen_rgg");
}
