/*
 * Aggregation, three ways.
 *
 * Greedy (Vanek, Mandel & Brezina 1996, "standard aggregation"): in row
 * order, a row whose strong neighbours are all free forms an aggregate
 * with them; then every other row joins the neighbouring aggregate that
 * holds most of its neighbours.  Its
 * roots are a distance-2 independent set packed as densely as row order
 * allows, so the aggregates are about a stencil's size: on 5-point 500^2
 * it gives 41750 / 4704 / 532 rows on levels 1-3 (pyamg's numbers) and 8
 * PCG iterations with 2 Jacobi sweeps, where the hashed set below gives
 * 34995 / 2088 / 89 and 18 iterations.  It is serial, and the default.
 *
 * Distance-2 maximal independent set (Bell, Dalton & Olson, "Exposing
 * fine-grained parallelism in algebraic multigrid methods", SIAM J. Sci.
 * Comput. 34, 2012, section 4.2), the parallel one for a device setup:
 *
 * Each row carries a key (state, hash(i), i) with the states ordered
 * in > undecided > out.  A round takes the largest key within distance 1,
 * then within distance 2 of every row (two synchronous passes); an
 * undecided row whose distance-2 maximum is its own key joins the set, one
 * that sees a member within distance 2 leaves it.  The global maximum
 * among the undecided rows joins in every round, so the rounds end.  Every
 * pass reads the previous pass's array only: the set does not depend on
 * the thread count or the order of the rows.
 *
 * The set's rows are the roots of the aggregates, numbered in row order;
 * every other row joins a strongly coupled root, else the aggregate of a
 * strongly coupled row that joined one (every row is within distance 2 of
 * a root).  Rows without strong couplings stay out of every aggregate.
 *
 * Parallel (Kelley & Rajamanickam, "Parallel, portable algorithms for
 * distance-2 maximal independent set and graph coarsening", IPDPS 2022;
 * Kokkos Kernels' MIS-2 aggregation), three phases over the same keys:
 *   1. the set above; each root with its neighbours is an aggregate;
 *   2. the distance-2 maximal independent set of the rows still without an
 *      aggregate (the others count as out, paths still run through them);
 *      each of its rows with at least three such neighbours forms an
 *      aggregate with them, numbered after phase 1's, in row order (Kokkos
 *      asks two: three gives the same iterations with fewer rows, operator
 *      complexity 1.36 against 1.46 on 5-point 500^2, 1.59 against 1.74
 *      on 7-point 80^3); on the finest level at least two thirds of
 *      phase 1's mean aggregate (amg_secondary_min: 7-point 160^3 1.52
 *      against 1.60, the same iterations);
 *   3. every row still left joins the neighbouring aggregate it has the
 *      most neighbours in, then the smallest, then the lowest numbered
 *      (counts and sizes as phase 2 left them, so the rows decide apart).
 * Phase 2 fills the gaps between phase 1's aggregates: on 5-point 500^2
 * 36522 / 3622 / 229 rows on levels 1-3 and 12 PCG iterations, against
 * mis2's 16 and greedy's 8, whose row order packs a grid's aggregates
 * densely (17 on the same grid with its rows shuffled; docs/BENCHMARKS.md).
 * Every pass reads the previous pass's arrays only, so the cuda backend's
 * kernels (cuda_aggregate.cu) find the same aggregates.
 */
#include <stdlib.h>

#include "amg/amg.h"
#include "amg/amg_aggregate_rules.h"
#include "core/host_threads.h"
#include "core/huge_pages.h"

/* out_i = max of in over row i and its neighbours */
static void neighbour_max(const amg_graph *G, const uint64_t *in, uint64_t *out, int threads)
{
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < G->n; i++) {
        uint64_t m = in[i];
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1]; k++)
            if (in[G->col_idx[k]] > m) m = in[G->col_idx[k]];
        out[i] = m;
    }
}

/* The distance-2 maximal independent set of the rows with neighbours and
 * without an aggregate (aggregate NULL: no row has one yet): key states. */
static void mis2(const amg_graph *G, const int32_t *aggregate, int threads, uint64_t *key,
                 uint64_t *m1, uint64_t *m2)
{
    int64_t undecided = 0;
    for (int64_t i = 0; i < G->n; i++) {
        bool out = G->row_ptr[i + 1] == G->row_ptr[i] || (aggregate && aggregate[i] >= 0);
        key[i] = amg_key_of(out ? AMG_STATE_OUT : AMG_STATE_UNDECIDED, i);
        undecided += !out;
    }
    while (undecided > 0) {
        neighbour_max(G, key, m1, threads);
        neighbour_max(G, m1, m2, threads);
        undecided = 0;
        for (int64_t i = 0; i < G->n; i++) {
            key[i] = amg_key_decided(key[i], m2[i], i);
            undecided += amg_key_state(key[i]) == AMG_STATE_UNDECIDED;
        }
    }
}

/* The aggregate of pass 1 (first[]) that holds most of row i's neighbours,
 * the first such in column order on a tie; -1 where none does.  held[a]
 * (0 on entry and on return) counts row i's neighbours in aggregate a:
 * three passes over the row, whatever its length. */
static int32_t joined_aggregate(const amg_graph *G, const int32_t *first, int64_t i, int64_t *held)
{
    const int64_t begin = G->row_ptr[i], end = G->row_ptr[i + 1];
    int64_t most = 0;
    for (int64_t k = begin; k < end; k++) {
        const int32_t a = first[G->col_idx[k]];
        if (a >= 0 && ++held[a] > most) most = held[a];
    }
    int32_t best = -1;
    for (int64_t k = begin; k < end && best < 0; k++) {
        const int32_t a = first[G->col_idx[k]];
        if (a >= 0 && held[a] == most) best = a;
    }
    for (int64_t k = begin; k < end; k++)
        if (first[G->col_idx[k]] >= 0) held[first[G->col_idx[k]]] = 0;
    return best;
}

kryl_status amg_aggregate_greedy(const amg_graph *G, int32_t *aggregate, int64_t *count)
{
    int64_t n = G->n, next = 0;
    for (int64_t i = 0; i < n; i++) aggregate[i] = -1;
    /* pass 1: a row whose neighbours are all free roots an aggregate of them */
    for (int64_t i = 0; i < n; i++) {
        if (G->row_ptr[i + 1] == G->row_ptr[i]) continue;
        bool free_ = aggregate[i] < 0;
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && free_; k++)
            free_ = aggregate[G->col_idx[k]] < 0;
        if (!free_) continue;
        aggregate[i] = (int32_t)next;
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1]; k++)
            aggregate[G->col_idx[k]] = (int32_t)next;
        next++;
    }
    /* pass 2: the others join the neighbouring aggregate of pass 1 that holds
     * most of their neighbours (rather than the first met: 7-point 100^3 8
     * PCG iterations against 9, 256^3 over 4 ranks 9 against 10;
     * docs/BENCHMARKS.md) */
    int32_t *first = kryl_huge_malloc(((size_t)n + 1) * sizeof *first);
    int64_t *held = kryl_huge_calloc((size_t)next + 1, sizeof *held);
    if (first == NULL || held == NULL) {
        free(first);
        free(held);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: out of memory");
    }
    for (int64_t i = 0; i < n; i++) first[i] = aggregate[i];
    for (int64_t i = 0; i < n; i++)
        if (aggregate[i] < 0) aggregate[i] = joined_aggregate(G, first, i, held);
    free(first);
    free(held);
    /* pass 3 (none on a connected graph after pass 2): left-over rows with their free neighbours */
    for (int64_t i = 0; i < n; i++) {
        if (aggregate[i] >= 0 || G->row_ptr[i + 1] == G->row_ptr[i]) continue;
        aggregate[i] = (int32_t)next;
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1]; k++)
            if (aggregate[G->col_idx[k]] < 0) aggregate[G->col_idx[k]] = (int32_t)next;
        next++;
    }
    *count = next;
    return KRYL_SUCCESS;
}

kryl_status amg_aggregate_mis2(const amg_graph *G, int threads, int32_t *aggregate, int64_t *count)
{
    int64_t n = G->n;
    uint64_t *key = kryl_huge_malloc(((size_t)n + 1) * 3 * sizeof *key);
    if (key == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "amg: cannot allocate the aggregation of %lld rows", (long long)n);
    uint64_t *m1 = key + n + 1, *m2 = m1 + n + 1;
    mis2(G, NULL, threads, key, m1, m2);
    /* roots, numbered in row order; first[i]: the aggregate of a root next to i */
    int32_t *first = (int32_t *)m1;
    int64_t roots = 0;
    for (int64_t i = 0; i < n; i++)
        first[i] = amg_key_state(key[i]) == AMG_STATE_IN ? (int32_t)roots++ : -1;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        aggregate[i] = first[i];
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && aggregate[i] < 0; k++)
            if (amg_key_state(key[G->col_idx[k]]) == AMG_STATE_IN)
                aggregate[i] = first[G->col_idx[k]];
    }
    /* rows two steps from a root: the aggregate of a neighbour that has one */
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        int32_t a = aggregate[i];
        /* the first pass's aggregates are read, the second's written apart */
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && a < 0; k++)
            a = aggregate[G->col_idx[k]];
        ((int32_t *)m2)[i] = a;
    }
    for (int64_t i = 0; i < n; i++) aggregate[i] = ((int32_t *)m2)[i];
    free(key);
    *count = roots;
    return KRYL_SUCCESS;
}

/* Phases 1 and 2: the set's rows that root an aggregate (those with at
 * least `least` - 1 neighbours without one: every row of phase 1's set)
 * take numbers from *next on, in row order, and their neighbours without an
 * aggregate join them. */
static void root_aggregates(const amg_graph *G, const uint64_t *key, int64_t least, int threads,
                            int32_t *root, int32_t *aggregate, int64_t *next)
{
    int64_t n = G->n;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        int64_t size = 1;
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && size < least; k++)
            size += aggregate[G->col_idx[k]] < 0;
        root[i] = amg_key_state(key[i]) == AMG_STATE_IN && size >= least;
    }
    for (int64_t i = 0; i < n; i++) root[i] = root[i] ? (int32_t)(*next)++ : -1;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        if (aggregate[i] >= 0) continue;
        /* the set is distance-2 independent: at most one root is i or next to it */
        int32_t a = root[i];
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && a < 0; k++)
            a = root[G->col_idx[k]];
        aggregate[i] = a;
    }
}

kryl_status amg_aggregate_parallel(const amg_graph *G, bool finest, int threads, int32_t *aggregate,
                                   int64_t *count)
{
    int64_t n = G->n;
    uint64_t *key = kryl_huge_malloc(((size_t)n + 1) * 3 * sizeof *key);
    int32_t *work = kryl_huge_malloc(((size_t)n + 1) * 2 * sizeof *work);
    if (key == NULL || work == NULL) {
        free(key);
        free(work);
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "amg: cannot allocate the aggregation of %lld rows", (long long)n);
    }
    uint64_t *m1 = key + n + 1, *m2 = m1 + n + 1;
    int32_t *old = work, *size = work + n + 1;
    int64_t next = 0;
    for (int64_t i = 0; i < n; i++) aggregate[i] = -1;
    /* phase 1: every root of the set (its neighbours are all free) */
    mis2(G, NULL, threads, key, m1, m2);
    root_aggregates(G, key, 1, threads, old, aggregate, &next);
    int64_t covered = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, +, covered)
    for (int64_t i = 0; i < n; i++) covered += aggregate[i] >= 0;
    /* phase 2: roots of a set among the rows left, with enough of them free */
    mis2(G, aggregate, threads, key, m1, m2);
    root_aggregates(G, key, amg_secondary_min(covered, next, finest), threads, old, aggregate,
                    &next);
    /* phase 3 reads the aggregates and their sizes as phase 2 left them */
    for (int64_t a = 0; a < next; a++) size[a] = 0;
    for (int64_t i = 0; i < n; i++) {
        old[i] = aggregate[i];
        if (aggregate[i] >= 0) size[aggregate[i]]++;
    }
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++)
        if (old[i] < 0)
            aggregate[i] = amg_best_neighbour_aggregate(G->row_ptr, G->col_idx, old, size, i);
    free(key);
    free(work);
    *count = next;
    return KRYL_SUCCESS;
}
