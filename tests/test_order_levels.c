/* Level schedules of triangles: bidiagonal (n levels), diagonal (1),
 * grids (nx + ny - 1), consistency of level, level_ptr and order. */
#include "test_order_util.h"

/* Every dependency lies on an earlier level; order/level_ptr group rows. */
static void check_consistent(const kryl_csr *A, kryl_triangle tri, const kryl_levels *lv,
                             const char *what)
{
    int bad = 0;
    for (int64_t i = 0; i < A->nrows && bad < 3; i++)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            const int64_t j = A->col_idx[e];
            if ((tri == KRYL_LOWER ? j < i : j > i) && lv->level[j] >= lv->level[i]) {
                CHECK(false, "%s: row %lld (level %d) waits for row %lld (level %d)", what,
                      (long long)i, lv->level[i], (long long)j, lv->level[j]);
                bad++;
            }
        }
    CHECK_OK(kryl_order_check_perm(lv->order, A->nrows));
    for (int32_t l = 0; l < lv->nlevels; l++) {
        CHECK(lv->level_ptr[l + 1] > lv->level_ptr[l], "%s: level %d is empty", what, l);
        for (int64_t p = lv->level_ptr[l]; p < lv->level_ptr[l + 1]; p++)
            CHECK(lv->level[lv->order[p]] == l, "%s: position %lld in level %d holds level %d",
                  what, (long long)p, l, lv->level[lv->order[p]]);
    }
    CHECK(lv->level_ptr[lv->nlevels] == A->nrows, "%s: levels hold %lld rows of %lld", what,
          (long long)lv->level_ptr[lv->nlevels], (long long)A->nrows);
}

static int32_t levels_of(const kryl_csr *A, const int32_t *perm, kryl_triangle tri,
                         const char *what)
{
    kryl_levels lv;
    CHECK_OK(kryl_order_levels(A, perm, tri, &lv));
    if (perm == NULL) check_consistent(A, tri, &lv, what);
    const int32_t nlevels = lv.nlevels;
    kryl_levels_free(&lv);
    return nlevels;
}

static void check_bidiagonal(int64_t n)
{
    int64_t *r = malloc((size_t)(2 * n) * sizeof *r), *c = malloc((size_t)(2 * n) * sizeof *c);
    double *v = malloc((size_t)(2 * n) * sizeof *v);
    int count = 0;
    for (int64_t i = 0; i < n; i++) { /* a_ii = 2, a_{i,i-1} = -1 */
        r[count] = i, c[count] = i, v[count++] = 2.0;
        if (i > 0) r[count] = i, c[count] = i - 1, v[count++] = -1.0;
    }
    kryl_csr L, D;
    order_from_triplets(&L, n, count, r, c, v);
    order_from_triplets(&D, n, (int)n, r, r, v);
    CHECK(levels_of(&L, NULL, KRYL_LOWER, "lower bidiagonal") == n, "lower bidiagonal n=%lld",
          (long long)n);
    CHECK(levels_of(&L, NULL, KRYL_UPPER, "lower bidiagonal, upper") == (n > 0),
          "upper triangle of a lower bidiagonal");
    /* the transpose, by swapping row and column lists */
    kryl_csr U;
    order_from_triplets(&U, n, count, c, r, v);
    CHECK(levels_of(&U, NULL, KRYL_UPPER, "upper bidiagonal") == n, "upper bidiagonal");
    CHECK(levels_of(&D, NULL, KRYL_LOWER, "diagonal") == (n > 0), "diagonal n=%lld", (long long)n);
    kryl_csr_free(&L);
    kryl_csr_free(&U);
    kryl_csr_free(&D);
    free(r);
    free(c);
    free(v);
}

/* 2-D 5-point natural order: nx + ny - 1 levels (antidiagonal wavefronts);
 * 3-D 7-point: nx + ny + nz - 2; the same through an identity perm. */
static void check_grids(void)
{
    kryl_csr A;
    if (order_gen(&A, KRYL_GEN_POISSON2D5, 30)) {
        CHECK(levels_of(&A, NULL, KRYL_LOWER, "poisson2d5") == 59, "poisson2d5 30x30");
        CHECK(levels_of(&A, NULL, KRYL_UPPER, "poisson2d5 upper") == 59, "poisson2d5 upper");
        int32_t *id = malloc((size_t)A.nrows * sizeof *id);
        CHECK_OK(kryl_order_compute(&A, KRYL_ORDER_NONE, id));
        CHECK(levels_of(&A, id, KRYL_LOWER, "poisson2d5 identity") == 59, "identity perm");
        free(id);
        gen_csr_free(&A);
    }
    if (order_gen(&A, KRYL_GEN_POISSON3D7, 9)) {
        CHECK(levels_of(&A, NULL, KRYL_LOWER, "poisson3d7") == 25, "poisson3d7 9^3");
        gen_csr_free(&A);
    }
}

int main(void)
{
    check_bidiagonal(1);
    check_bidiagonal(2);
    check_bidiagonal(200);
    check_grids();
    kryl_csr A;
    order_from_triplets(&A, 3, 0, NULL, NULL, NULL);
    kryl_levels lv;
    CHECK_STATUS(kryl_order_levels(&A, NULL, (kryl_triangle)5, &lv), KRYL_ERR_INVALID_ARGUMENT);
    CHECK(levels_of(&A, NULL, KRYL_LOWER, "empty") == 1, "3 empty rows: one level");
    kryl_csr_free(&A);
    return test_summary("test_order_levels");
}
