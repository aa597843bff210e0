/* Jones-Plassmann coloring on the host's threads (M. T. Jones and P. E.
 * Plassmann, SIAM J. Sci. Comput. 14 (1993) 654-669): each row takes the
 * smallest color of no coupled row of higher priority, once all of those
 * have theirs, so the result is first fit in the order of decreasing
 * priority, whatever the thread count.
 *
 * Where the pattern is structurally symmetric (each row stores all its
 * couplings) the rows are colored wave by wave from counts, as in Jones &
 * Plassmann's own algorithm: a row waits for its neighbours of higher
 * priority, and each colored row releases its neighbours of lower
 * priority; every row's entries are read three times in all (27-point
 * 60^3, 57 waves: the setup's coloring 1.2-1.4 s in rounds over every row,
 * 0.17-0.27 s so, on two threads; docs/BENCHMARKS.md); a row's first
 * free color is looked for 64 colors at a time.  Otherwise in rounds, as
 * the cuda backend's kernels do (cuda_color.cu):
 *   1. every uncolored row is a candidate and forbids no color;
 *   2. over every stored a_ij, i != j: of two uncolored rows the one that
 *      yields (kryl_color_yields) is no candidate; an uncolored row is
 *      forbidden the color of a colored one, in both directions, so the
 *      pattern need not be symmetric;
 *   3. a candidate takes the smallest color it is not forbidden.
 * Forbidden colors are kept as 64 bits from a row's base; a candidate that
 * finds all 64 taken moves its base up by 64 and tries again in the next
 * round. */
#include <stdlib.h>

#include "backends/omp/omp_backend.h"
#include "core/csr.h"
#include "order/color_priority.h"

/* Round step 2 for row i: candidates and forbidden colors (priority:
 * kryl_color_priority of each row, computed once). */
static void compete(int64_t i, const int64_t *row_ptr, const int32_t *col_idx, const int32_t *color,
                    const uint64_t *priority, const int32_t *base, uint64_t *forbid,
                    unsigned char *cand)
{
    const int32_t ci = color[i];
    uint64_t mine = 0;
    bool lose = false;
    for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
        const int32_t j = col_idx[e], cj = color[j];
        if (j == i) continue;
        if (ci < 0 && cj < 0) {
            /* of two uncolored rows, the one that yields waits */
            if (priority[i] < priority[j])
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

/* The smallest color of none of row i's neighbours of higher priority
 * (all colored by then), looked for 64 colors at a time. */
static int32_t first_free_color(int64_t i, const int64_t *row_ptr, const int32_t *col_idx,
                                const uint64_t *priority, const int32_t *color)
{
    for (int32_t base = 0;; base += 64) {
        uint64_t taken = 0;
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
            const int32_t j = col_idx[e], cj = color[j];
            if (j != i && priority[j] > priority[i] && cj >= base && cj - base < 64)
                taken |= 1ull << (cj - base);
        }
        if (taken != ~0ull) return base + __builtin_ctzll(~taken);
    }
}

/* The rows of a structurally symmetric pattern colored wave by wave:
 * wait_i = coupled rows of higher priority not yet colored; a wave colors
 * the rows with none left, then releases their neighbours of lower
 * priority. */
static kryl_status color_by_waves(int nt, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                  const uint64_t *priority, int32_t *color, int32_t *ncolors)
{
    int32_t *wait = malloc(((size_t)n + 1) * sizeof *wait);
    int32_t *wave = malloc(((size_t)n + 1) * sizeof *wave);
    int32_t *next = malloc(((size_t)n + 1) * sizeof *next);
    int64_t count = 0;
    kryl_status st = KRYL_SUCCESS;
    if (wait == NULL || wave == NULL || next == NULL)
        st = KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp coloring: cannot allocate %lld rows",
                        (long long)n);
    const int64_t rows = st == KRYL_SUCCESS ? n : 0;
#pragma omp parallel for schedule(static) num_threads(nt) if (n > KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < rows; i++) {
        int32_t higher = 0;
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++)
            higher += col_idx[e] != i && priority[col_idx[e]] > priority[i];
        wait[i] = higher;
        color[i] = -1;
    }
    /* the first wave: rows of no higher neighbour */
#pragma omp parallel for schedule(static) num_threads(nt) if (n > KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < rows; i++)
        if (wait[i] == 0) {
            int64_t at;
#pragma omp atomic capture
            at = count++;
            wave[at] = (int32_t)i;
        }
    int32_t most = 0;
    while (count > 0) {
        const bool many = count > KRYL_OMP_MIN_PARALLEL;
        /* each row of the wave takes its first free color */
#pragma omp parallel for schedule(guided) num_threads(nt) reduction(max : most) if (many)
        for (int64_t k = 0; k < count; k++) {
            const int32_t i = wave[k];
            color[i] = first_free_color(i, row_ptr, col_idx, priority, color);
            most = color[i] + 1 > most ? color[i] + 1 : most;
        }
        /* the next wave: lower neighbours whose last higher one was just colored */
        int64_t released = 0;
#pragma omp parallel for schedule(guided) num_threads(nt) if (many)
        for (int64_t k = 0; k < count; k++) {
            const int32_t i = wave[k];
            for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
                const int32_t j = col_idx[e];
                if (j == i || priority[j] > priority[i]) continue;
                int32_t left;
#pragma omp atomic capture
                left = --wait[j];
                if (left == 0) {
                    int64_t at;
#pragma omp atomic capture
                    at = released++;
                    next[at] = j;
                }
            }
        }
        int32_t *t = wave;
        wave = next;
        next = t;
        count = released;
    }
    *ncolors = most;
    free(wait);
    free(wave);
    free(next);
    return st;
}

/* The rows of any pattern colored in rounds over every row (the header's
 * steps 1-3). */
static kryl_status color_by_rounds(int nt, int64_t n, const int64_t *row_ptr,
                                   const int32_t *col_idx, const uint64_t *priority, int32_t *color,
                                   int32_t *ncolors)
{
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
        for (int64_t i = 0; i < n; i++)
            compete(i, row_ptr, col_idx, color, priority, base, forbid, cand);
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

kryl_status kryl_omp_color_rows(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                const int32_t *col_idx, bool symmetric, int32_t *color,
                                int32_t *ncolors)
{
    *ncolors = 0;
    if (n == 0) return KRYL_SUCCESS;
    const int nt = kryl_omp_state_of(ctx)->threads;
    uint64_t *priority = malloc((size_t)n * sizeof *priority);
    if (priority == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "omp coloring: cannot allocate %lld rows",
                          (long long)n);
#pragma omp parallel for schedule(static) num_threads(nt) if (n > KRYL_OMP_MIN_PARALLEL)
    for (int64_t i = 0; i < n; i++) priority[i] = kryl_color_priority(i);
    /* the pattern as a CSR view (its values unread): is every a_ji of an a_ij stored?
     * (binary searches: a fifth of 27-point 60^3's coloring, so skipped where known) */
    const kryl_csr pattern = {.nrows = n,
                              .ncols = n,
                              .nrows_global = n,
                              .row_ptr = (int64_t *)row_ptr,
                              .col_idx = (int32_t *)col_idx};
    kryl_status st = symmetric || kryl_csr_first_unmirrored(&pattern, nt) < 0
                         ? color_by_waves(nt, n, row_ptr, col_idx, priority, color, ncolors)
                         : color_by_rounds(nt, n, row_ptr, col_idx, priority, color, ncolors);
    free(priority);
    return st;
}
