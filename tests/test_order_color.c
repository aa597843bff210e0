/* Greedy multicoloring: valid colorings, red-black grids, 8 colors for
 * the 27-point box, fewer colors after sparsification, the same coloring
 * with its graph built on several threads, and the checker catching a bad
 * coloring. */
#include "test_order_util.h"

/* Color A with tau, check it (and that 3 threads color it alike), return
 * the number of colors. */
static int32_t colors_of(const kryl_csr *A, double tau, const char *what)
{
    kryl_coloring c, t;
    CHECK_OK(kryl_order_color(A, tau, &c));
    CHECK(kryl_order_color_check(A, tau, &c) == KRYL_SUCCESS, "%s tau %g: %s", what, tau,
          kryl_last_error());
    CHECK_OK(kryl_order_color_on(A, tau, 3, &t));
    bool same = t.ncolors == c.ncolors;
    for (int64_t i = 0; i < A->nrows && same; i++)
        same = t.color[i] == c.color[i] && t.perm[i] == c.perm[i];
    CHECK(same, "%s tau %g: 3 threads color otherwise than one", what, tau);
    kryl_coloring_free(&t);
    const int32_t ncolors = c.ncolors;
    kryl_coloring_free(&c);
    return ncolors;
}

static void check_grids(void)
{
    const struct {
        kryl_generator_kind kind;
        int64_t n;
        int32_t colors;
    } grids[] = {{KRYL_GEN_POISSON2D5, 37, 2},
                 {KRYL_GEN_POISSON3D7, 11, 2},
                 {KRYL_GEN_POISSON3D27, 9, 8},
                 {KRYL_GEN_CONVDIFF2D, 20, 2}};
    for (size_t k = 0; k < sizeof grids / sizeof grids[0]; k++) {
        kryl_csr A;
        if (!order_gen(&A, grids[k].kind, grids[k].n)) continue;
        const int32_t got = colors_of(&A, 0.0, kryl_generator_name(grids[k].kind));
        CHECK(got == grids[k].colors, "%s: %d colors, expected %d",
              kryl_generator_name(grids[k].kind), got, grids[k].colors);
        /* the lower triangle of the colored matrix solves in one level per color */
        kryl_coloring c;
        kryl_levels lv;
        CHECK_OK(kryl_order_color(&A, 0.0, &c));
        CHECK_OK(kryl_order_levels(&A, c.perm, KRYL_LOWER, &lv));
        CHECK(lv.nlevels <= c.ncolors, "%s: %d levels for %d colors",
              kryl_generator_name(grids[k].kind), lv.nlevels, c.ncolors);
        kryl_levels_free(&lv);
        kryl_coloring_free(&c);
        gen_csr_free(&A);
    }
}

/* The 27-point box with its edge and corner couplings scaled by 1e-3:
 * dropping them (tau = 1e-2) leaves the 7-point graph, 2 colors not 8. */
static void check_sparsification(void)
{
    const int64_t n = 8;
    kryl_csr A;
    if (!order_gen(&A, KRYL_GEN_POISSON3D27, n)) return;
    for (int64_t i = 0; i < A.nrows; i++)
        for (int64_t e = A.row_ptr[i]; e < A.row_ptr[i + 1]; e++) {
            /* axes along which rows i and j differ */
            const int64_t j = A.col_idx[e];
            const int axes =
                (i % n != j % n) + (i / n % n != j / n % n) + (i / (n * n) != j / (n * n));
            if (axes > 1) A.values[e] *= 1e-3;
        }
    const int32_t dense = colors_of(&A, 0.0, "weak 27-point"),
                  sparse = colors_of(&A, 1e-2, "weak 27-point");
    printf("weak 27-point: %d colors, %d after sparsification\n", dense, sparse);
    CHECK(dense == 8 && sparse == 2, "weak 27-point: %d colors, %d sparsified; expected 8, 2",
          dense, sparse);
    kryl_order_report r;
    CHECK_OK(kryl_order_report_compute(&A, 1e-2, &r));
    CHECK(r.ncolors == dense && r.ncolors_sparsified == sparse, "report: %d, %d colors", r.ncolors,
          r.ncolors_sparsified);
    gen_csr_free(&A);
}

/* Random shapes (empty rows, dense row, n = 1, diagonal): valid colorings;
 * a diagonal matrix has one color, the dense row needs its own. */
static void check_shapes(void)
{
    for (int s = 0; s < TEST_SHAPE_COUNT; s++) {
        kryl_csr A;
        const int64_t n = s == TEST_SHAPE_SINGLE ? 1 : 157;
        test_random_csr(&A, (test_shape)s, n, n, 11 + (uint64_t)s);
        const int32_t got = colors_of(&A, 0.0, test_shape_name((test_shape)s));
        const int32_t sparse = colors_of(&A, 0.5, test_shape_name((test_shape)s));
        CHECK(sparse <= got, "%s: %d colors sparsified, %d not", test_shape_name((test_shape)s),
              sparse, got);
        if (s == TEST_SHAPE_DIAGONAL || s == TEST_SHAPE_SINGLE)
            CHECK(got == 1, "%s: %d colors", test_shape_name((test_shape)s), got);
        kryl_csr_free(&A);
    }
}

/* The checker names a conflict and a broken grouping. */
static void check_checker(void)
{
    kryl_csr A;
    if (!order_gen(&A, KRYL_GEN_POISSON2D5, 6)) return;
    kryl_coloring c;
    CHECK_OK(kryl_order_color(&A, 0.0, &c));
    c.color[1] = c.color[0]; /* rows 0 and 1 are neighbours */
    CHECK_STATUS(kryl_order_color_check(&A, 0.0, &c), KRYL_ERR_INVALID_ARGUMENT);
    c.color[1] = 1 - c.color[0];
    CHECK_OK(kryl_order_color_check(&A, 0.0, &c));
    c.perm[0] = c.perm[1];
    CHECK_STATUS(kryl_order_color_check(&A, 0.0, &c), KRYL_ERR_INVALID_ARGUMENT);
    kryl_coloring_free(&c);
    gen_csr_free(&A);
}

int main(void)
{
    check_grids();
    check_sparsification();
    check_shapes();
    check_checker();
    return test_summary("test_order_color");
}
