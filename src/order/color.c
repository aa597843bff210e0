/* Greedy multicoloring for multicolor SSOR/ILU(0) (Li & Saad sec. 5.3;
 * Saad, Iterative Methods, sec. 12.4): sequential first-fit coloring in
 * natural order, at most (max degree + 1) colors, on the graph of the
 * couplings that survive sparsification.  First-fit is not monotone (a
 * subgraph can take more colors), so with tau > 0 the full graph is colored
 * too and the coloring with fewer colors kept: it is valid for both. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "order/graph.h"

static kryl_status check_tau(double tau, const char *caller)
{
    if (!(tau >= 0.0) || isinf(tau))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%s: tau must be finite and >= 0 (0 = no sparsification), got %g", caller,
                          tau);
    return KRYL_SUCCESS;
}

/* color[v] = the smallest color of no neighbour u < v in adj[ptr[v] ..
 * ptr[v + 1]) (later ones and v itself are uncolored when v is reached);
 * returns the count.  forbidden has n entries. */
static int32_t first_fit(int64_t n, const int64_t *ptr, const int32_t *adj, int32_t *color,
                         int64_t *forbidden)
{
    int32_t ncolors = 0;
    for (int64_t v = 0; v < n; v++) color[v] = -1;
    for (int64_t v = 0; v < n; v++) forbidden[v] = -1;
    for (int64_t v = 0; v < n; v++) {
        /* forbidden[c] == v: a neighbour of v has color c */
        for (int64_t e = ptr[v]; e < ptr[v + 1]; e++)
            if (color[adj[e]] >= 0) forbidden[color[adj[e]]] = v;
        int32_t c = 0;
        while (forbidden[c] == v) c++;
        color[v] = c;
        if (c + 1 > ncolors) ncolors = c + 1;
    }
    return ncolors;
}

kryl_status kryl_color_first_fit_serial(int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                        int32_t *color, int32_t *ncolors)
{
    KRYL_REQUIRE_ARG(ncolors);
    *ncolors = 0;
    if (n <= 0) return KRYL_SUCCESS;
    int64_t *forbidden = malloc((size_t)n * sizeof *forbidden);
    if (forbidden == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "first-fit coloring: cannot allocate %lld rows",
                          (long long)n);
    *ncolors = first_fit(n, row_ptr, col_idx, color, forbidden);
    free(forbidden);
    return KRYL_SUCCESS;
}

/* color_ptr and perm from color: rows grouped by color, stable. */
static kryl_status group_by_color(int64_t n, kryl_coloring *c)
{
    c->color_ptr = calloc((size_t)c->ncolors + 2, sizeof *c->color_ptr);
    if (c->color_ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "kryl_order_color: cannot allocate %d colors",
                          c->ncolors);
    kryl_color_group_serial(n, c->color, c->ncolors, c->perm, c->color_ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_order_color_on(const kryl_csr *A, double tau, int threads, kryl_coloring *c)
{
    KRYL_REQUIRE_ARG(c);
    memset(c, 0, sizeof *c);
    KRYL_TRY(order_check_matrix(A, "kryl_order_color"));
    KRYL_TRY(check_tau(tau, "kryl_order_color"));
    const int64_t n = A->nrows;
    kryl_status st = KRYL_SUCCESS;
    int64_t *forbidden = malloc(((size_t)n + 1) * sizeof *forbidden);
    c->color = malloc(((size_t)n + 1) * sizeof *c->color);
    c->perm = malloc(((size_t)n + 1) * sizeof *c->perm);
    if (forbidden == NULL || c->color == NULL || c->perm == NULL) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "kryl_order_color: cannot allocate %lld rows",
                        (long long)n);
    }
    /* first fit on the sparsified graph, then (tau > 0) on the full one,
     * keeping the fewer colors; c->perm holds the other attempt's colors */
    for (int pass = 0; pass < (tau > 0.0 ? 2 : 1) && st == KRYL_SUCCESS; pass++) {
        order_graph g;
        st = order_graph_build_on(A, pass == 0 ? tau : 0.0, threads, &g);
        if (st != KRYL_SUCCESS) break;
        int32_t *target = pass == 0 ? c->color : c->perm;
        const int32_t ncolors = first_fit(g.n, g.ptr, g.adj, target, forbidden);
        if (pass == 0 || ncolors < c->ncolors) {
            if (pass > 0) memcpy(c->color, target, (size_t)n * sizeof *target);
            c->ncolors = ncolors;
        }
        order_graph_free(&g);
    }
    if (st == KRYL_SUCCESS) st = group_by_color(n, c);
    free(forbidden);
    if (st != KRYL_SUCCESS) kryl_coloring_free(c);
    return st;
}

kryl_status kryl_order_color(const kryl_csr *A, double tau, kryl_coloring *c)
{
    return kryl_order_color_on(A, tau, 1, c);
}

void kryl_coloring_free(kryl_coloring *c)
{
    if (c == NULL) return;
    free(c->color);
    free(c->color_ptr);
    free(c->perm);
    memset(c, 0, sizeof *c);
}

kryl_status kryl_order_color_check(const kryl_csr *A, double tau, const kryl_coloring *c)
{
    KRYL_REQUIRE_ARG(c);
    KRYL_TRY(order_check_matrix(A, "kryl_order_color_check"));
    KRYL_TRY(check_tau(tau, "kryl_order_color_check"));
    const int64_t n = A->nrows;
    if (n > 0 && (c->color == NULL || c->color_ptr == NULL || c->perm == NULL))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "kryl_order_color_check: empty coloring");
    KRYL_TRY(kryl_order_check_perm(c->perm, n));
    if (n > 0 && (c->color_ptr[0] != 0 || c->color_ptr[c->ncolors] != n))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_order_color_check: color_ptr spans [%lld, %lld), expected [0, "
                          "%lld)",
                          (long long)c->color_ptr[0], (long long)c->color_ptr[c->ncolors],
                          (long long)n);
    /* every position of color k holds a row of color k */
    for (int32_t k = 0; k < c->ncolors; k++)
        for (int64_t p = c->color_ptr[k]; p < c->color_ptr[k + 1]; p++)
            if (p < 0 || p >= n || c->color[c->perm[p]] != k)
                return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                  "kryl_order_color_check: position %lld lies in color %d's "
                                  "group but its row has another color",
                                  (long long)p, k);
    order_graph g;
    KRYL_TRY(order_graph_build(A, tau, &g));
    kryl_status st = KRYL_SUCCESS;
    /* no edge joins two rows of one color */
    for (int64_t i = 0; i < n && st == KRYL_SUCCESS; i++)
        for (int64_t e = g.ptr[i]; e < g.ptr[i + 1]; e++)
            if (c->color[g.adj[e]] == c->color[i]) {
                st = KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                "kryl_order_color_check: rows %lld and %d both have color %d "
                                "but are coupled (tau = %g)",
                                (long long)i, g.adj[e], c->color[i], tau);
                break;
            }
    order_graph_free(&g);
    return st;
}
