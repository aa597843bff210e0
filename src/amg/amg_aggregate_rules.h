/* The rules of the parallel aggregations (amg_aggregate.c) that the host's
 * code and the cuda backend's kernels (cuda_aggregate.cu) both apply, so
 * that every backend finds the same aggregates. */
#ifndef KRYL_AMG_AMG_AGGREGATE_RULES_H
#define KRYL_AMG_AMG_AGGREGATE_RULES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "gen/hash.h"

/* The fewest rows of a secondary aggregate (its root included), after a
 * first phase whose `roots` aggregates hold `covered` rows: four, and on the
 * finest level two thirds of the first phase's mean.  There a 7-point root
 * takes its six neighbours, and secondary aggregates of four made level 1
 * of 160^3 a tenth larger (operator complexity 1.60 against 1.52, the
 * iterations alike); on Galerkin levels, whose wide stencils make the first
 * aggregates large, a larger minimum cost 2-D grids iterations
 * (docs/BENCHMARKS.md). */
static inline int64_t amg_secondary_min(int64_t covered, int64_t roots, bool finest)
{
    int64_t least = 4;
    if (finest && roots > 0) {
        const int64_t two_thirds = (2 * covered + 3 * roots - 1) / (3 * roots);
        if (two_thirds > least) least = two_thirds;
    }
    return least;
}

/* A row's state in a distance-2 independent set's rounds. */
enum { AMG_STATE_OUT = 0, AMG_STATE_UNDECIDED = 1, AMG_STATE_IN = 2 };

/* (state, 31 bits of hash(i), i) as one ordered 64-bit key */
KRYL_GEN_MIX_FN uint64_t amg_key_of(int state, int64_t i)
{
    uint64_t h = kryl_gen_mix64((uint64_t)i + 0x9e3779b97f4a7c15ULL) >> 33;
    return ((uint64_t)state << 62) | (h << 31) | (uint64_t)i;
}

KRYL_GEN_MIX_FN int amg_key_state(uint64_t key) { return (int)(key >> 62); }

/* Row i's key after a round, from its key and m2, the largest key within
 * distance 2: an undecided row joins the set when m2 is its own key and
 * leaves when a member is within distance 2; else it stays undecided. */
KRYL_GEN_MIX_FN uint64_t amg_key_decided(uint64_t key, uint64_t m2, int64_t i)
{
    if (amg_key_state(key) != AMG_STATE_UNDECIDED) return key;
    if (m2 == key) return amg_key_of(AMG_STATE_IN, i);
    return amg_key_state(m2) == AMG_STATE_IN ? amg_key_of(AMG_STATE_OUT, i) : key;
}

/* Whether a_ij = a (i != j) is a strong coupling: |a_ij| >= theta sqrt(|a_ii a_jj|),
 * a != 0; theta = 0: every stored nonzero, the diagonal unread. */
KRYL_GEN_MIX_FN bool amg_strong(double a, double aii, double ajj, double theta)
{
    a = fabs(a);
    return a != 0.0 && (theta == 0.0 || a >= theta * sqrt(fabs(aii * ajj)));
}

/* The neighbouring aggregate row i joins in the last phase (old: each
 * row's aggregate or -1, size: each aggregate's rows): the one it has the
 * most neighbours in, then the smallest, then the lowest numbered; -1
 * where no neighbour has one. */
KRYL_GEN_MIX_FN int32_t amg_best_neighbour_aggregate(const int64_t *row_ptr, const int32_t *col_idx,
                                                     const int32_t *old, const int32_t *size,
                                                     int64_t i)
{
    int32_t best = -1;
    int64_t best_links = 0;
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
        int32_t a = old[col_idx[k]];
        if (a < 0 || a == best) continue;
        int64_t links = 0;
        for (int64_t q = row_ptr[i]; q < row_ptr[i + 1]; q++) links += old[col_idx[q]] == a;
        if (best < 0 || links > best_links ||
            (links == best_links &&
             (size[a] < size[best] || (size[a] == size[best] && a < best)))) {
            best = a;
            best_links = links;
        }
    }
    return best;
}

#endif
