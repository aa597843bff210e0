/* Jones-Plassmann coloring on the host's threads, in rounds (M. T. Jones
 * and P. E. Plassmann, SIAM J. Sci. Comput. 14 (1993) 654-669), the same
 * rounds as the cuda backend's kernels (cuda_color.cu):
 *   1. every uncolored row is a candidate and forbids no color;
 *   2. over every stored a_ij, i != j: of two uncolored rows the one that
 *      yields (kryl_color_yields) is no candidate; an uncolored row is
 *      forbidden the color of a colored one, in both directions, so the
 *      pattern need not be symmetric;
 *   3. a candidate takes the smallest color it is not forbidden.
 * A candidate's colored neighbours are exactly those of higher priority,
 * so the result is first fit in the order of decreasing priority, whatever
 * the thread count.  Forbidden colors are kept as 64 bits from a row's
 * base; a candidate that finds all 64 taken moves its base up by 64 and
 * tries again in the next round. */
#include <stdlib.h>

#include "backends/omp/omp_backend.h"
#include "order/color_priority.h"

/* Round step 2 for row i: candidates and forbidden colors. */
static void compete(int64_t i, const int64_t *row_ptr, const int32_t *col_idx, const int32_t *color,
                    const int32_t *base, uint64_t *forbid, unsigned char *cand)
{
    const int32_t ci = color[i];
    uint64_t mine = 0;
    bool lose = false;
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const int32_t j = col_idx[e], cj = color[j];
        if (j == i) continue;
        if (ci < 0 && cj < 0) {
            /* of two uncolored rows, the one that yields waits */
            if (kryl_color_yields(i, j))
                lose = true;
            else {
#pragma omp atomic write
                cand[j] = 0;
            }
        } else if (ci < 0) {
            /* i is forbidden j's color */
            if (cj >= base[i] && cj - base[i] < 64) mine |= 1ull << (cj - base[i]);
        } else if (cj < 0 && ci >= base[j] && ci - base[j] < 64) {
            /* j is forbidden i's color */
            const uint64_t bit = 1ull << (ci - base[j]);
#pragma omp atomic update
            forbid[j] |= bit;
        }
    }
    if (ci >= 0) return;
#pragma omp atomic update
    forbid[i] |= mine;
    if (lose) {
#pragma omp atomic write
        cand[i] = 0;
    }
}

kryl_status kryl_omp_color_rows(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                const int32_t *col_idx, int32_t *color, int32_t *ncolors)
{
    *ncolors = 0;
    const int nt = kryl_omp_state_of(ctx)->threads;
    uint64_t *forbid = malloc(((size_t)n + 1) * sizeof *forbid);
    int32_t *base = malloc(((size_t)n + 1) * sizeof *base);
    unsigned char *cand = malloc((size_t)n + 1);
    kryl_status st = KRYL_SUCCESS;
    if (forbid == NULL || base == NULL || cand == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp coloring: cannot allocate %lld rows",
                        (long long)n);
    const int64_t rows = st == KRYL_SUCCESS ? n : 0;
    int64_t left = rows;
#pragma omp parallel for schedule(static) num_threads(nt) if (n > KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < rows; i++) {
        color[i] = -1;
        base[i] = 0;
    }
    int32_t most = 0;
    while (left > 0) {
        /* 1. candidates, nothing forbidden */
#pragma omp parallel for schedule(static) num_threads(nt) if (n > KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++)
            if (color[i] < 0) {
                forbid[i] = 0;
                cand[i] = 1;
            }
            /* 2. over every coupling */
#pragma omp parallel for schedule(guided) num_threads(nt) if (n > KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++) compete(i, row_ptr, col_idx, color, base, forbid, cand);
        /* 3. candidates take their first free color */
        left = 0;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : left)                    \
    reduction(max : most) if (n > KRYL_OMP_MIN_PARALLEL)
        for (int64_t i = 0; i < n; i++) {
            if (color[i] >= 0) continue;
            if (!cand[i] || forbid[i] == ~0ull) {
                /* waits; with all 64 taken it looks at the next 64 */
                if (cand[i]) base[i] += 64;
                left++;
                continue;
            }
            color[i] = base[i] + __builtin_ctzll(~forbid[i]);
            most = color[i] + 1 > most ? color[i] + 1 : most;
        }
    }
    *ncolors = most;
    free(forbid);
    free(base);
    free(cand);
    return st;
}
