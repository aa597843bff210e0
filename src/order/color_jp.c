/* The Jones-Plassmann coloring's definition, run serially: the oracle the
 * backends' parallel rounds are checked against (M. T. Jones and
 * P. E. Plassmann, "A parallel graph coloring heuristic", SIAM J. Sci.
 * Comput. 14 (1993) 654-669).  Each row takes the smallest color that no
 * coupled row of higher priority has (src/order/color_priority.h), which
 * is first fit in the order of decreasing priority: rows are visited in
 * that order here, while the parallel version colors in each round every
 * row whose uncolored neighbours all yield to it.  And the grouping of the
 * rows by color that the multicolor preconditioners order by. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "order/color_priority.h"
#include "order/graph.h"

/* Rows sorted by decreasing priority. */
static int by_priority(const void *a, const void *b)
{
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    return kryl_color_yields(i, j) ? 1 : kryl_color_yields(j, i) ? -1 : 0;
}

/* adj[ptr[i] .. ptr[i + 1]) = the columns of row i and the rows storing
 * column i, the diagonal left out (repeats kept: first fit ignores them). */
static kryl_status both_directions(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                   int64_t **ptr, int32_t **adj)
{
    *ptr = calloc((size_t)n + 2, sizeof **ptr);
    *adj = malloc(2 * ((size_t)row_ptr[n] + 1) * sizeof **adj);
    if (*ptr == NULL || *adj == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "coloring: cannot allocate the graph of %lld rows, %lld entries",
                          (long long)n, (long long)row_ptr[n]);
    int64_t *p = *ptr;
    /* p[i + 2] = entries of row i and of column i */
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
            if (col_idx[e] != i) {
                p[i + 2]++;
                p[col_idx[e] + 2]++;
            }
    for (int64_t i = 0; i < n; i++) p[i + 2] += p[i + 1];
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
            if (col_idx[e] != i) {
                (*adj)[p[i + 1]++] = col_idx[e];
                (*adj)[p[col_idx[e] + 1]++] = (int32_t)i;
            }
    return KRYL_SUCCESS;
}

kryl_status kryl_color_jp_serial(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                 int32_t *color, int32_t *ncolors)
{
    *ncolors = 0;
    int64_t *ptr = NULL;
    int32_t *adj = NULL, *order = malloc(((size_t)n + 1) * sizeof *order);
    int64_t *seen = malloc(((size_t)n + 2) * sizeof *seen);
    kryl_status st = both_directions(n, row_ptr, col_idx, &ptr, &adj);
    if (st == KRYL_SUCCESS && (order == NULL || seen == NULL))
        st =
            KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "coloring: cannot allocate %lld rows", (long long)n);
    for (int64_t i = 0; st == KRYL_SUCCESS && i < n; i++) {
        order[i] = (int32_t)i;
        color[i] = -1;
        seen[i] = -1;
    }
    if (st == KRYL_SUCCESS) qsort(order, (size_t)n, sizeof *order, by_priority);
    for (int64_t k = 0; st == KRYL_SUCCESS && k < n; k++) {
        /* first fit: seen[c] == v when a colored neighbour of v has color c */
        int32_t v = order[k];
        for (int64_t e = ptr[v]; e < ptr[v + 1]; e++)
            if (color[adj[e]] >= 0) seen[color[adj[e]]] = v;
        int32_t c = 0;
        while (seen[c] == v) c++;
        color[v] = c;
        if (c + 1 > *ncolors) *ncolors = c + 1;
    }
    free(ptr);
    free(adj);
    free(order);
    free(seen);
    return st;
}

void kryl_color_group_serial(int64_t n, const int32_t *color, int32_t ncolors, int32_t *perm,
                             int64_t *color_ptr)
{
    /* color_ptr = prefix sums of the color counts; perm stable by color */
    for (int32_t k = 0; k <= ncolors; k++) color_ptr[k] = 0;
    for (int64_t i = 0; i < n; i++) color_ptr[color[i] + 1]++;
    for (int32_t k = 0; k < ncolors; k++) color_ptr[k + 1] += color_ptr[k];
    for (int64_t i = 0; i < n; i++) perm[color_ptr[color[i]]++] = (int32_t)i;
    /* the placement advanced each start to the next color's: shift back */
    for (int32_t k = ncolors; k > 0; k--) color_ptr[k] = color_ptr[k - 1];
    color_ptr[0] = 0;
}

kryl_status kryl_order_color_jp(const kryl_csr *A, kryl_coloring *c)
{
    KRYL_REQUIRE_ARG(c);
    memset(c, 0, sizeof *c);
    KRYL_TRY(order_check_matrix(A, "kryl_order_color_jp"));
    const int64_t n = A->nrows;
    c->color = malloc(((size_t)n + 1) * sizeof *c->color);
    c->perm = malloc(((size_t)n + 1) * sizeof *c->perm);
    kryl_status st = c->color && c->perm ? KRYL_SUCCESS
                                         : KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                                                      "kryl_order_color_jp: cannot allocate %lld "
                                                      "rows",
                                                      (long long)n);
    if (st == KRYL_SUCCESS)
        st = kryl_color_jp_serial(n, A->row_ptr, A->col_idx, c->color, &c->ncolors);
    if (st == KRYL_SUCCESS) {
        c->color_ptr = malloc(((size_t)c->ncolors + 1) * sizeof *c->color_ptr);
        if (c->color_ptr == NULL)
            st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                            "kryl_order_color_jp: cannot allocate %d colors", c->ncolors);
    }
    if (st == KRYL_SUCCESS) kryl_color_group_serial(n, c->color, c->ncolors, c->perm, c->color_ptr);
    if (st != KRYL_SUCCESS) kryl_coloring_free(c);
    return st;
}
