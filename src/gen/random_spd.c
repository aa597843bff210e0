/* Random symmetric positive definite matrices, built row by row: the
 * candidates of row i are the columns j in [i - w, i + w]; (i, j) is an entry
 * when a hash of (min(i,j), max(i,j), seed) falls below p, and its value
 * -u, u in (0, 1], comes from the same symmetric key, so a_ij = a_ji without
 * either row seeing the other.  a_ii = sum_j |a_ij| + 1 makes the matrix
 * strictly diagonally dominant with a positive diagonal, hence SPD. */
#include "gen/families.h"

#include <math.h>

#include "core/error.h"
#include "gen/hash.h"

kryl_status kryl_gen_random_spd_init(kryl_generator *g)
{
    const int64_t n = g->nrows, extra = g->options.row_length - 1; /* off-diagonals wanted */
    /* w = 2*extra, p = 1/4: an interior row expects 1 + 2*w*p = row_length entries;
     * when the window is cut to n - 1, p grows (up to 1) to make up for it */
    const int64_t w = extra > (n - 1) / 2 ? n - 1 : 2 * extra;
    const double p = w > 0 ? fmin(1.0, (double)extra / (2.0 * (double)w)) : 0.0;
    /* candidate pairs: #{(i, j) : i != j, |i - j| <= w} = 2 sum_{d=1}^{w} (n - d) */
    const double pairs = 2.0 * (double)w * ((double)n - 0.5 * (double)(w + 1));
    const double nnz = (double)n + p * pairs;
    if (!(nnz < 0x1.0p63))
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_generator_init: random-spd with %lld rows and row_length %lld: "
                          "the expected entry count %.3g overflows 64-bit counts",
                          (long long)n, (long long)g->options.row_length, nnz);
    g->window = w;
    g->keep_probability = p;
    g->nnz_estimate = (int64_t)llround(nnz);
    g->max_row_length = w < (n - 1) / 2 + 1 ? 2 * w + 1 : n;
    return KRYL_SUCCESS;
}

int64_t kryl_gen_random_spd_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values)
{
    const int64_t n = g->nrows, w = g->window;
    const uint64_t seed = g->options.seed;
    const int64_t lo = i > w ? i - w : 0, hi = w < n - 1 - i ? i + w : n - 1;
    int64_t count = 0, diag_at = 0;
    double diag = 1.0;
    for (int64_t j = lo; j <= hi; j++) {
        if (j == i) {
            diag_at = count++;
            continue;
        }
        const uint64_t a = (uint64_t)(j < i ? j : i), b = (uint64_t)(j < i ? i : j);
        if (kryl_gen_uniform(kryl_gen_hash(seed, KRYL_GEN_STREAM_KEEP, a, b)) >=
            g->keep_probability)
            continue;
        /* a_ij = a_ji = -u(min, max) */
        const double v = -kryl_gen_uniform_open(kryl_gen_hash(seed, KRYL_GEN_STREAM_VALUE, a, b));
        if (cols) {
            cols[count] = j;
            values[count] = v;
        }
        diag -= v; /* a_ii = 1 + sum |a_ij| */
        count++;
    }
    if (cols) {
        cols[diag_at] = i;
        values[diag_at] = diag;
    }
    return count;
}
