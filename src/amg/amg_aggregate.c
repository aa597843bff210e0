/*
 * Aggregation, two ways.
 *
 * Greedy (Vanek, Mandel & Brezina 1996, "standard aggregation"): in row
 * order, a row whose strong neighbours are all free forms an aggregate
 * with them; then every other row joins a neighbour's aggregate.  Its
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
 */
#include <stdlib.h>

#include "amg/amg.h"
#include "core/host_threads.h"
#include "gen/hash.h"

enum { STATE_OUT = 0, STATE_UNDECIDED = 1, STATE_IN = 2 };

/* (state, 31 bits of hash(i), i) as one ordered 64-bit key */
static uint64_t key_of(int state, int64_t i)
{
    uint64_t h = kryl_gen_mix64((uint64_t)i + 0x9e3779b97f4a7c15ULL) >> 33;
    return ((uint64_t)state << 62) | (h << 31) | (uint64_t)i;
}

static int key_state(uint64_t key) { return (int)(key >> 62); }

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

/* The distance-2 maximal independent set of the rows with neighbours: key states. */
static void mis2(const amg_graph *G, int threads, uint64_t *key, uint64_t *m1, uint64_t *m2)
{
    int64_t undecided = 0;
    for (int64_t i = 0; i < G->n; i++) {
        bool isolated = G->row_ptr[i + 1] == G->row_ptr[i];
        key[i] = key_of(isolated ? STATE_OUT : STATE_UNDECIDED, i);
        undecided += !isolated;
    }
    while (undecided > 0) {
        neighbour_max(G, key, m1, threads);
        neighbour_max(G, m1, m2, threads);
        undecided = 0;
        for (int64_t i = 0; i < G->n; i++) {
            if (key_state(key[i]) != STATE_UNDECIDED) continue;
            if (m2[i] == key[i])
                key[i] = key_of(STATE_IN, i);
            else if (key_state(m2[i]) == STATE_IN)
                key[i] = key_of(STATE_OUT, i);
            else
                undecided++;
        }
    }
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
    /* pass 2: the others join a neighbour's aggregate of pass 1 */
    int32_t *first = malloc(((size_t)n + 1) * sizeof *first);
    if (first == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "amg: out of memory");
    for (int64_t i = 0; i < n; i++) first[i] = aggregate[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && aggregate[i] < 0; k++)
            aggregate[i] = first[G->col_idx[k]];
    free(first);
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
    uint64_t *key = malloc(((size_t)n + 1) * 3 * sizeof *key);
    if (key == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "amg: cannot allocate the aggregation of %lld rows", (long long)n);
    uint64_t *m1 = key + n + 1, *m2 = m1 + n + 1;
    mis2(G, threads, key, m1, m2);
    /* roots, numbered in row order; first[i]: the aggregate of a root next to i */
    int32_t *first = (int32_t *)m1;
    int64_t roots = 0;
    for (int64_t i = 0; i < n; i++)
        first[i] = key_state(key[i]) == STATE_IN ? (int32_t)roots++ : -1;
    KRYL_HOST_PARALLEL_FOR(threads)
    for (int64_t i = 0; i < n; i++) {
        aggregate[i] = first[i];
        for (int64_t k = G->row_ptr[i]; k < G->row_ptr[i + 1] && aggregate[i] < 0; k++)
            if (key_state(key[G->col_idx[k]]) == STATE_IN) aggregate[i] = first[G->col_idx[k]];
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
