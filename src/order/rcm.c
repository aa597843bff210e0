/* Reverse Cuthill-McKee ordering (Cuthill & McKee 1969; George & Liu,
 * Computer Solution of Large Sparse Positive Definite Systems, 1981,
 * sec. 4.3-4.4), as used to shrink the bandwidth before the GPU kernels of
 * Buatois et al. 2009 (Concurrent Number Cruncher, sec. 3.3). */
#include <stdlib.h>

#include "core/error.h"
#include "order/graph.h"

/* Work arrays of one ordering. */
typedef struct rcm_work {
    const order_graph *g;
    int64_t *seen; /* BFS stamp of each vertex */
    int64_t stamp;
    int32_t *queue; /* BFS queue of the pseudo-peripheral search */
    uint64_t *keys; /* (degree, vertex) of the neighbours being sorted */
    char *numbered; /* vertex already placed in perm */
} rcm_work;

static int64_t degree(const order_graph *g, int64_t v) { return g->ptr[v + 1] - g->ptr[v]; }

/* Rooted level structure of `root` in w->queue: returns its depth (levels
 * - 1); the deepest level is queue[*last, *size). */
static int64_t bfs_depth(rcm_work *w, int32_t root, int64_t *last, int64_t *size)
{
    const order_graph *g = w->g;
    int64_t head = 0, tail = 0, depth = 0, level_end = 1;
    w->stamp++;
    w->queue[tail++] = root;
    w->seen[root] = w->stamp;
    *last = 0;
    /* breadth-first search, level by level */
    while (head < tail) {
        if (head == level_end) { /* the next level starts */
            depth++;
            *last = head;
            level_end = tail;
        }
        const int32_t v = w->queue[head++];
        for (int64_t e = g->ptr[v]; e < g->ptr[v + 1]; e++)
            if (w->seen[g->adj[e]] != w->stamp) {
                w->seen[g->adj[e]] = w->stamp;
                w->queue[tail++] = g->adj[e];
            }
    }
    *size = tail;
    return depth;
}

/* George-Liu pseudo-peripheral node of the component of `seed`: move to a
 * minimum-degree vertex of the deepest level while the depth grows. */
static int32_t pseudo_peripheral(rcm_work *w, int32_t seed)
{
    int32_t root = seed;
    int64_t last, size, depth = bfs_depth(w, root, &last, &size);
    for (;;) {
        int32_t best = w->queue[last];
        /* best = argmin degree over the deepest level */
        for (int64_t k = last + 1; k < size; k++)
            if (degree(w->g, w->queue[k]) < degree(w->g, best)) best = w->queue[k];
        const int64_t d = bfs_depth(w, best, &last, &size);
        if (d <= depth) return root;
        root = best;
        depth = d;
    }
}

static int compare_keys(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Cuthill-McKee from root: append its component to perm[*count...], each
 * vertex's unnumbered neighbours by increasing degree (ties: index). */
static void cuthill_mckee(rcm_work *w, int32_t root, int32_t *perm, int64_t *count)
{
    const order_graph *g = w->g;
    int64_t head = *count, tail = *count;
    perm[tail++] = root;
    w->numbered[root] = 1;
    while (head < tail) {
        const int32_t v = perm[head++];
        int64_t nkeys = 0;
        for (int64_t e = g->ptr[v]; e < g->ptr[v + 1]; e++) {
            const int32_t u = g->adj[e];
            if (w->numbered[u]) continue;
            w->numbered[u] = 1;
            w->keys[nkeys++] = (uint64_t)degree(g, u) << 32 | (uint32_t)u;
        }
        qsort(w->keys, (size_t)nkeys, sizeof *w->keys, compare_keys);
        for (int64_t k = 0; k < nkeys; k++) perm[tail++] = (int32_t)(w->keys[k] & 0xffffffffu);
    }
    *count = tail;
}

kryl_status kryl_order_rcm(const kryl_csr *A, int32_t *perm)
{
    KRYL_TRY(order_check_matrix(A, "kryl_order_rcm"));
    KRYL_REQUIRE_ARG(perm);
    order_graph g;
    KRYL_TRY(order_graph_build(A, 0.0, &g));
    const int64_t n = g.n;
    int64_t max_degree = 0;
    for (int64_t v = 0; v < n; v++)
        if (degree(&g, v) > max_degree) max_degree = degree(&g, v);
    rcm_work w = {&g,
                  calloc((size_t)n + 1, sizeof(int64_t)),
                  0,
                  malloc(((size_t)n + 1) * sizeof(int32_t)),
                  malloc(((size_t)max_degree + 1) * sizeof(uint64_t)),
                  calloc((size_t)n + 1, 1)};
    kryl_status st = KRYL_SUCCESS;
    if (w.seen == NULL || w.queue == NULL || w.keys == NULL || w.numbered == NULL) {
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                        "kryl_order_rcm: cannot allocate work arrays "
                        "for %lld rows",
                        (long long)n);
    } else {
        int64_t count = 0;
        /* one component at a time, from its lowest-numbered vertex's search */
        for (int64_t v = 0; v < n; v++)
            if (!w.numbered[v]) cuthill_mckee(&w, pseudo_peripheral(&w, (int32_t)v), perm, &count);
        /* reverse: perm[i] <-> perm[n-1-i] */
        for (int64_t i = 0; i < n / 2; i++) {
            const int32_t t = perm[i];
            perm[i] = perm[n - 1 - i];
            perm[n - 1 - i] = t;
        }
    }
    free(w.seen);
    free(w.queue);
    free(w.keys);
    free(w.numbered);
    order_graph_free(&g);
    return st;
}
