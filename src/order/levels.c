/* Level scheduling of a sparse triangular solve (Saad, Iterative Methods,
 * sec. 11.6.1; Li & Saad sec. 4.1, Algorithm 1): the topological levels of
 * the dependency graph of the rows of one triangle. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "order/graph.h"

void kryl_levels_free(kryl_levels *lv)
{
    if (lv == NULL) return;
    free(lv->level);
    free(lv->level_ptr);
    free(lv->order);
    memset(lv, 0, sizeof *lv);
}

/* level_ptr and order from level: rows grouped by level, ascending. */
static kryl_status group_by_level(int64_t n, kryl_levels *lv)
{
    lv->level_ptr = calloc((size_t)lv->nlevels + 2, sizeof *lv->level_ptr);
    lv->order = malloc(((size_t)n + 1) * sizeof *lv->order);
    if (lv->level_ptr == NULL || lv->order == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "kryl_order_levels: cannot allocate %d levels",
                          lv->nlevels);
    /* level_ptr = prefix sums of the rows per level */
    for (int64_t i = 0; i < n; i++) lv->level_ptr[lv->level[i] + 2]++;
    for (int32_t l = 0; l < lv->nlevels; l++) lv->level_ptr[l + 2] += lv->level_ptr[l + 1];
    for (int64_t i = 0; i < n; i++) lv->order[lv->level_ptr[lv->level[i] + 1]++] = (int32_t)i;
    return KRYL_SUCCESS;
}

kryl_status kryl_order_levels(const kryl_csr *A, const int32_t *perm, kryl_triangle tri,
                              kryl_levels *lv)
{
    KRYL_REQUIRE_ARG(lv);
    memset(lv, 0, sizeof *lv);
    KRYL_TRY(order_check_matrix(A, "kryl_order_levels"));
    if (tri != KRYL_LOWER && tri != KRYL_UPPER)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_order_levels: triangle must be KRYL_LOWER or KRYL_UPPER, got %d",
                          (int)tri);
    const int64_t n = A->nrows;
    int32_t *inv = NULL;
    KRYL_TRY(order_inverse(perm, n, &inv));
    lv->level = malloc(((size_t)n + 1) * sizeof *lv->level);
    if (lv->level == NULL) {
        free(inv);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "kryl_order_levels: cannot allocate %lld rows",
                          (long long)n);
    }
    int32_t top = -1;
    for (int64_t k = 0; k < n; k++) {
        /* level[r] = 1 + max level[q] over the rows q row r waits for (0 if none) */
        const int64_t r = tri == KRYL_LOWER ? k : n - 1 - k;
        const int64_t i = perm != NULL ? perm[r] : r;
        int32_t lev = 0;
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
            const int64_t q = inv != NULL ? inv[A->col_idx[e]] : A->col_idx[e];
            if ((tri == KRYL_LOWER ? q < r : q > r) && lv->level[q] + 1 > lev)
                lev = lv->level[q] + 1;
        }
        lv->level[r] = lev;
        if (lev > top) top = lev;
    }
    free(inv);
    lv->nlevels = top + 1;
    const kryl_status st = group_by_level(n, lv);
    if (st != KRYL_SUCCESS) kryl_levels_free(lv);
    return st;
}
