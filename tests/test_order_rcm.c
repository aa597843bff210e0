/* Reverse Cuthill-McKee and AMD orderings: permutations, bandwidth
 * recovered on randomly permuted grids, awkward graphs, and errors. */
#include <unistd.h>

#include "test_order_util.h"

/* perm of ordering kind on A is a permutation; returns its quality. */
static kryl_order_quality ordered_quality(const kryl_csr *A, kryl_order_kind kind, const char *what)
{
    kryl_order_quality q = {0};
    int32_t *perm = malloc((size_t)(A->nrows + 1) * sizeof *perm);
    CHECK_OK(kryl_order_compute(A, kind, perm));
    CHECK(kryl_order_check_perm(perm, A->nrows) == KRYL_SUCCESS, "%s %s: %s", what,
          kryl_order_name(kind), kryl_last_error());
    CHECK_OK(kryl_order_quality_of(A, perm, &q));
    free(perm);
    return q;
}

/* RCM undoes a random symmetric permutation of a grid: bandwidth and
 * profile come back within a factor of the natural ones (the grid's plane
 * or line).  The 27-point box's breadth-first levels are corner shells of
 * ~3 planes, so its RCM bandwidth is ~2.5 times the natural one. */
static void check_grid(kryl_generator_kind kind, int64_t n, double band_slack, double profile_slack)
{
    kryl_csr A, B;
    if (!order_gen(&A, kind, n)) return;
    int32_t *shuffle = malloc((size_t)A.nrows * sizeof *shuffle);
    order_random_perm(shuffle, A.nrows, 7);
    order_permute(&B, &A, shuffle);
    kryl_order_quality natural, shuffled, rcm;
    CHECK_OK(kryl_order_quality_of(&A, NULL, &natural));
    CHECK_OK(kryl_order_quality_of(&B, NULL, &shuffled));
    rcm = ordered_quality(&B, KRYL_ORDER_RCM, kryl_generator_name(kind));
    printf("%-12s n=%-6lld bandwidth natural %lld shuffled %lld rcm %lld; profile %lld %lld "
           "%lld\n",
           kryl_generator_name(kind), (long long)A.nrows, (long long)natural.bandwidth,
           (long long)shuffled.bandwidth, (long long)rcm.bandwidth, (long long)natural.profile,
           (long long)shuffled.profile, (long long)rcm.profile);
    CHECK(rcm.bandwidth <= band_slack * (double)natural.bandwidth,
          "%s: rcm bandwidth %lld, natural %lld", kryl_generator_name(kind),
          (long long)rcm.bandwidth, (long long)natural.bandwidth);
    CHECK(rcm.profile <= profile_slack * (double)natural.profile,
          "%s: rcm profile %lld, natural %lld", kryl_generator_name(kind), (long long)rcm.profile,
          (long long)natural.profile);
    free(shuffle);
    kryl_csr_free(&B);
    gen_csr_free(&A);
}

/* Two paths and isolated vertices: each component ordered, each path kept
 * tridiagonal (bandwidth 1). */
static void check_disconnected(void)
{
    kryl_csr A;
    order_two_paths(&A);
    int32_t perm[9];
    CHECK_OK(kryl_order_rcm(&A, perm));
    CHECK_OK(kryl_order_check_perm(perm, 9));
    kryl_order_quality q;
    CHECK_OK(kryl_order_quality_of(&A, perm, &q));
    CHECK(q.bandwidth == 1, "two paths: rcm bandwidth %lld, expected 1", (long long)q.bandwidth);
    kryl_csr_free(&A);
}

/* n = 1, n = 0, a matrix without entries, a non-symmetric pattern. */
static void check_small(void)
{
    const int64_t r1[] = {0}, c1[] = {0};
    const double v1[] = {4.0};
    kryl_csr A;
    int32_t perm[6] = {-1, -1, -1, -1, -1, -1};
    order_from_triplets(&A, 1, 1, r1, c1, v1);
    for (int k = 0; k < KRYL_ORDER_COUNT; k++) {
        if (k == KRYL_ORDER_AMD && !kryl_order_have_amd()) continue;
        perm[0] = -1;
        CHECK_OK(kryl_order_compute(&A, (kryl_order_kind)k, perm));
        CHECK(perm[0] == 0, "n = 1, %s: perm[0] = %d", kryl_order_name((kryl_order_kind)k),
              perm[0]);
    }
    kryl_csr_free(&A);
    order_from_triplets(&A, 0, 0, NULL, NULL, NULL);
    CHECK_OK(kryl_order_rcm(&A, perm));
    kryl_csr_free(&A);
    order_from_triplets(&A, 5, 0, NULL, NULL, NULL);
    CHECK_OK(kryl_order_rcm(&A, perm));
    CHECK_OK(kryl_order_check_perm(perm, 5));
    kryl_csr_free(&A);
    /* arrow pointing one way only: a_0j for all j (rows 1..5 otherwise empty) */
    const int64_t r2[] = {0, 0, 0, 0, 0, 0}, c2[] = {0, 1, 2, 3, 4, 5};
    const double v2[] = {1, 1, 1, 1, 1, 1};
    order_from_triplets(&A, 6, 6, r2, c2, v2);
    CHECK_OK(kryl_order_rcm(&A, perm));
    CHECK_OK(kryl_order_check_perm(perm, 6));
    kryl_order_quality q;
    CHECK_OK(kryl_order_quality_of(&A, perm, &q));
    CHECK(q.bandwidth <= 4, "star of 5 leaves: rcm bandwidth %lld", (long long)q.bandwidth);
    kryl_csr_free(&A);
}

/* Errors: non-square, partial row range, unknown kind, bad permutation. */
static void check_errors(void)
{
    kryl_csr A;
    const int64_t r[] = {0, 1}, c[] = {0, 2};
    const double v[] = {1, 1};
    int32_t perm[3];
    kryl_coo coo = {0};
    coo.nrows = 2;
    coo.ncols = 3;
    CHECK_OK(kryl_coo_reserve(&coo, 2));
    for (int k = 0; k < 2; k++) CHECK_OK(kryl_coo_push(&coo, r[k], c[k], v[k]));
    CHECK_OK(kryl_csr_from_coo(&A, &coo, 2, 0, 2));
    CHECK_STATUS(kryl_order_rcm(&A, perm), KRYL_ERR_NOT_SQUARE);
    kryl_coloring col;
    CHECK_STATUS(kryl_order_color(&A, 0.0, &col), KRYL_ERR_NOT_SQUARE);
    kryl_csr_free(&A);
    coo.ncols = 2;
    coo.cols[1] = 1;
    CHECK_OK(kryl_csr_from_coo(&A, &coo, 2, 0, 2));
    A.nrows = 1; /* rows [0, 1) of 2 */
    CHECK_STATUS(kryl_order_rcm(&A, perm), KRYL_ERR_UNSUPPORTED);
    CHECK_STATUS(kryl_order_amd(&A, perm), KRYL_ERR_UNSUPPORTED);
    kryl_levels lv;
    CHECK_STATUS(kryl_order_levels(&A, NULL, KRYL_LOWER, &lv), KRYL_ERR_UNSUPPORTED);
    A.nrows = 2;
    CHECK_STATUS(kryl_order_compute(&A, (kryl_order_kind)42, perm), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_order_rcm(&A, NULL), KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_order_color(&A, -1.0, &col), KRYL_ERR_INVALID_ARGUMENT);
    const int32_t twice[2] = {1, 1};
    CHECK_STATUS(kryl_order_quality_of(&A, twice, &(kryl_order_quality){0}),
                 KRYL_ERR_INVALID_ARGUMENT);
    kryl_csr_free(&A);
    kryl_coo_free(&coo);
    kryl_order_kind kind;
    CHECK_OK(kryl_order_from_name("rcm", &kind));
    CHECK(kind == KRYL_ORDER_RCM, "rcm parsed as %d", (int)kind);
    CHECK_STATUS(kryl_order_from_name("nd", &kind), KRYL_ERR_INVALID_ARGUMENT);
}

/* AMD: a valid permutation, and on a 2-D Poisson matrix fewer levels of
 * the lower triangle than the natural order; without SuiteSparse the
 * request is refused with a message naming rcm. */
static void check_amd(void)
{
    kryl_csr A;
    if (!order_gen(&A, KRYL_GEN_POISSON2D5, 40)) return;
    int32_t *perm = malloc((size_t)A.nrows * sizeof *perm);
    if (!kryl_order_have_amd()) {
        CHECK_STATUS(kryl_order_amd(&A, perm), KRYL_ERR_UNSUPPORTED);
        CHECK(strstr(kryl_last_error(), "rcm") != NULL, "message: %s", kryl_last_error());
    } else {
        kryl_order_quality natural, amd;
        CHECK_OK(kryl_order_quality_of(&A, NULL, &natural));
        amd = ordered_quality(&A, KRYL_ORDER_AMD, "poisson2d5");
        printf("poisson2d5 40x40 levels: natural %d amd %d\n", natural.nlevels_lower,
               amd.nlevels_lower);
        CHECK(amd.nlevels_lower < natural.nlevels_lower, "amd levels %d, natural %d",
              amd.nlevels_lower, natural.nlevels_lower);
    }
    free(perm);
    gen_csr_free(&A);
}

/* The public API: kryl_matrix_order gives a permutation with its bandwidth
 * and profile (the identity for none), and a matrix read from a Matrix
 * Market pattern file says so (kryl_matrix_is_pattern). */
static void check_public(void)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_REF;
    kryl_context ctx;
    CHECK_OK(kryl_context_create(&ctx, &co));
    char path[] = "/tmp/kryl-order-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL, "a temporary file");
    if (f == NULL) return;
    /* the path 0 - 2 - 1 - 3 numbered out of order: bandwidth 2, 1 after RCM */
    fputs("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 7\n"
          "1 1\n2 2\n3 3\n4 4\n3 1\n3 2\n4 2\n",
          f);
    fclose(f);
    kryl_matrix A = NULL;
    CHECK_OK(kryl_matrix_read_mtx(&A, ctx, path));
    unlink(path);
    CHECK(kryl_matrix_is_pattern(A) && !kryl_matrix_is_pattern(NULL), "a pattern file, told");
    int32_t perm[4];
    int64_t bandwidth = -1, profile = -1;
    CHECK_OK(kryl_matrix_order(A, KRYL_ORDER_NONE, perm, &bandwidth, &profile));
    CHECK(perm[0] == 0 && perm[3] == 3 && bandwidth == 2 && profile == 4,
          "none: the identity, bandwidth %lld, profile %lld", (long long)bandwidth,
          (long long)profile);
    CHECK_OK(kryl_matrix_order(A, KRYL_ORDER_RCM, perm, &bandwidth, NULL));
    CHECK(kryl_order_check_perm(perm, 4) == KRYL_SUCCESS && bandwidth == 1,
          "rcm: a permutation, bandwidth %lld", (long long)bandwidth);
    CHECK_STATUS(kryl_matrix_order(A, (kryl_order_kind)42, perm, NULL, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_order(A, KRYL_ORDER_RCM, NULL, NULL, NULL), KRYL_ERR_INVALID_ARGUMENT);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    check_grid(KRYL_GEN_POISSON2D5, 60, 1.0, 1.0);
    check_grid(KRYL_GEN_POISSON3D7, 14, 1.0, 1.0);
    check_grid(KRYL_GEN_POISSON3D27, 10, 2.5, 1.5);
    check_disconnected();
    check_small();
    check_errors();
    check_amd();
    check_public();
    return test_summary("test_order_rcm");
}
