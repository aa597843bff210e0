/* Graph partitioning through METIS 5 (Karypis & Kumar, METIS: a software
 * package for partitioning unstructured graphs, Univ. of Minnesota; the
 * partitioner Li & Saad sec. 6.7 use for block Jacobi): multilevel k-way
 * partitioning of the symmetrised pattern of A, vertices weighted by their
 * row lengths so the parts hold about the same number of nonzeros.
 * Optional: without METIS the call reports KRYL_ERR_UNSUPPORTED. */
#include <stdlib.h>

#include "core/error.h"
#include "order/graph.h"

#ifdef KRYL_HAVE_METIS
#include <metis.h>
#endif

bool kryl_order_have_metis(void)
{
#ifdef KRYL_HAVE_METIS
    return true;
#else
    return false;
#endif
}

#ifdef KRYL_HAVE_METIS
/* The largest value of METIS's idx_t (32 or 64 bits, per its metis.h). */
#define PARTITION_IDX_MAX (IDXTYPEWIDTH == 32 ? (int64_t)INT32_MAX : INT64_MAX)

/* Rows per part below which METIS is not asked for more parts: with fewer,
 * its recursive bisection runs out of vertices (it then prints "Cannot
 * bisect a graph with 0 vertices" on stdout and leaves parts empty). */
enum { PARTITION_MIN_ROWS = 4 };

/* Parts [0, nparts) all non-empty (nparts <= n): each empty part takes the
 * last row of the part with the most rows at that moment (a bucket queue of
 * the parts by size, O(n + nparts)). */
static kryl_status fill_empty_parts(int64_t n, int32_t nparts, int32_t *part)
{
    int64_t *count = calloc((size_t)nparts + 1, sizeof *count);
    int64_t *first = calloc((size_t)nparts + 1, sizeof *first);
    int32_t *rows = malloc((size_t)n * sizeof *rows);
    int32_t *head = malloc(((size_t)n + 1) * sizeof *head);
    int32_t *next = malloc((size_t)nparts * sizeof *next);
    kryl_status st = KRYL_SUCCESS;
    if (count == NULL || first == NULL || rows == NULL || head == NULL || next == NULL) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_partition_metis: cannot allocate the sizes of %d parts of %lld "
                        "rows",
                        (int)nparts, (long long)n);
        goto done;
    }
    /* count[p] = rows of part p; first[p] = rows of parts 0..p, then, as
     * part p's rows are placed from its end, where they begin in rows */
    for (int64_t i = 0; i < n; i++) count[part[i]]++;
    int64_t acc = 0;
    for (int32_t p = 0; p < nparts; p++) first[p] = acc += count[p];
    for (int64_t i = n - 1; i >= 0; i--) rows[--first[part[i]]] = (int32_t)i;
    /* head[s] = a part of s rows, next[p] = another one of the same size */
    for (int64_t s = 0; s <= n; s++) head[s] = -1;
    for (int32_t p = 0; p < nparts; p++) {
        next[p] = head[count[p]];
        head[count[p]] = p;
    }
    int64_t top = n;
    for (int32_t p = 0; p < nparts; p++) {
        if (count[p] > 0) continue;
        while (head[top] < 0) top--; /* top > 1: n >= nparts rows leave a part of >= 2 */
        const int32_t big = head[top];
        head[top] = next[big];
        /* the last row of the largest part moves to part p */
        part[rows[first[big] + --count[big]]] = p;
        next[big] = head[count[big]];
        head[count[big]] = big;
    }
done:
    free(count);
    free(first);
    free(rows);
    free(head);
    free(next);
    return st;
}

/* The weight of row i: its stored entries, at least 1. */
static int64_t row_weight(const kryl_csr *A, int64_t i)
{
    const int64_t len = A->row_ptr[i + 1] - A->row_ptr[i];
    return len > 0 ? len : 1;
}

/* METIS k-way on graph g with vertex weights = row lengths of A. */
static kryl_status metis_kway(const kryl_csr *A, const order_graph *g, int32_t nparts,
                              int32_t *part)
{
    const int64_t n = g->n, nadj = g->ptr[n];
    if (n > PARTITION_IDX_MAX || nadj > PARTITION_IDX_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_partition_metis: %lld rows and %lld graph edges (both directions) "
                          "do not fit this METIS's %d-bit idx_t",
                          (long long)n, (long long)nadj, (int)IDXTYPEWIDTH);
    idx_t *xadj = malloc(((size_t)n + 1) * sizeof *xadj);
    idx_t *adjncy = malloc(((size_t)nadj + 1) * sizeof *adjncy);
    idx_t *vwgt = malloc(((size_t)n + 1) * sizeof *vwgt);
    idx_t *where = malloc(((size_t)n + 1) * sizeof *where);
    kryl_status st = KRYL_SUCCESS;
    if (xadj == NULL || adjncy == NULL || vwgt == NULL || where == NULL) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_partition_metis: cannot allocate a graph of %lld rows and %lld "
                        "edges",
                        (long long)n, (long long)nadj);
        goto done;
    }
    /* the graph in METIS's index type */
    for (int64_t i = 0; i <= n; i++) xadj[i] = (idx_t)g->ptr[i];
    for (int64_t e = 0; e < nadj; e++) adjncy[e] = (idx_t)g->adj[e];
    /* vwgt[i] = max(1, stored entries of row i), capped at a part's share of
     * the total: a heavier row fills a part by itself either way, and METIS's
     * recursive bisection otherwise meets empty subgraphs */
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) total += row_weight(A, i);
    const int64_t share = total / nparts > 1 ? total / nparts : 1;
    for (int64_t i = 0; i < n; i++) {
        const int64_t w = row_weight(A, i);
        vwgt[i] = (idx_t)(w < share ? w : share);
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t nvtxs = (idx_t)n, ncon = 1, np = (idx_t)nparts, objval = 0;
    const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj, adjncy, vwgt, NULL, NULL, &np, NULL,
                                       NULL, options, &objval, where);
    if (rc == METIS_ERROR_MEMORY) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_partition_metis: METIS ran out of memory (%lld rows, %lld edges, "
                        "%d parts)",
                        (long long)n, (long long)nadj, (int)nparts);
        goto done;
    }
    if (rc != METIS_OK) {
        st =
            KRYL_ERROR(KRYL_ERR_INTERNAL,
                       "kryl_partition_metis: METIS_PartGraphKway failed (status %d) on %lld rows, "
                       "%lld edges, %d parts",
                       rc, (long long)n, (long long)nadj, (int)nparts);
        goto done;
    }
    for (int64_t i = 0; i < n; i++) part[i] = (int32_t)where[i];
done:
    free(xadj);
    free(adjncy);
    free(vwgt);
    free(where);
    return st;
}
#endif

kryl_status kryl_partition_metis(const kryl_csr *A, int32_t nparts, int32_t *part)
{
    KRYL_TRY(order_check_matrix(A, "kryl_partition_metis"));
    KRYL_REQUIRE_ARG(part);
    if (nparts < 1)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_partition_metis: %d parts, expected at least 1", (int)nparts);
#ifdef KRYL_HAVE_METIS
    const int64_t n = A->nrows;
    if (nparts == 1 || nparts >= n) {
        /* part[i] = 0, or one row per part: no graph needed */
        for (int64_t i = 0; i < n; i++) part[i] = nparts == 1 ? 0 : (int32_t)i;
        return KRYL_SUCCESS;
    }
    order_graph g;
    KRYL_TRY(order_graph_build(A, 0.0, &g));
    kryl_status st = KRYL_SUCCESS;
    /* METIS takes at most n / PARTITION_MIN_ROWS parts, the others a row each */
    const int32_t metis_parts =
        nparts <= n / PARTITION_MIN_ROWS ? nparts : (int32_t)(n / PARTITION_MIN_ROWS);
    if (g.ptr[n] == 0) {
        /* no edges, nothing to cut: rows dealt out in turn, balanced by count */
        for (int64_t i = 0; i < n; i++) part[i] = (int32_t)(i % nparts);
    } else if (metis_parts <= 1) {
        for (int64_t i = 0; i < n; i++) part[i] = 0;
    } else {
        st = metis_kway(A, &g, metis_parts, part);
    }
    order_graph_free(&g);
    return st == KRYL_SUCCESS ? fill_empty_parts(n, nparts, part) : st;
#else
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED,
                      "kryl_partition_metis: this build has no METIS (install libmetis-dev and "
                      "rebuild with -DKRYL_WITH_METIS=ON); without it there is no graph "
                      "partitioning, so block Jacobi takes contiguous row ranges, which cut "
                      "more couplings");
#endif
}
