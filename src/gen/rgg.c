/* Random geometric graphs (M. Penrose, "Random geometric graphs", Oxford
 * University Press, 2003): N = nx points in the unit cube, two points
 * coupled when they are closer than a radius r.  Built without global data:
 * the cube is cut into c^3 cells of side h = 1/c >= r; cell k (x fastest)
 * holds the points [start(k), start(k + 1)), start(k) = floor(k N / c^3),
 * so there are exactly N rows and every cell holds floor or ceil of
 * N / c^3 >= 1 points; point s lies at (cell corner + u(seed, s)) h, u a
 * hash uniform in [0, 1)^3.  A point's neighbours lie in the 27 cells around
 * its own, so a row costs O(27 N / c^3) = O(row_length) position hashes.
 *
 * Values: a_ij = -w_ij with w_ij = 1 - |x_i - x_j|^2 / r^2 in (0, 1] (the
 * weight fades to 0 at the radius, so a point moved across it barely changes
 * A), and a_ii = sigma_i + sum_j w_ij with sigma_i in [1/2, 1) a hash of the
 * point: the weighted graph Laplacian plus a positive diagonal (a reaction
 * term).  Strictly diagonally dominant with a positive diagonal, hence SPD,
 * and by Gershgorin its eigenvalues lie in [1/2, 1 + 2 max_i sum_j w_ij], so
 * the condition number is bounded independently of N: CG and PCG converge in
 * about as many iterations at any size, and a large case measures the SpMV
 * and its halo rather than the convergence (a small shift would lose that
 * bound).  The shift varies so that the constant vector is no eigenvector:
 * with one shift sigma, A 1 = sigma 1 and CG on b = A 1 would end in one
 * step.  w_ij depends only on the squared distance, computed in the same
 * order from both ends, so a_ij = a_ji exactly.
 *
 * Size: for points independent and uniform in their cells, with m = N / c^3
 * points per cell on average and v = f (1 - f) the variance of a cell's
 * count (f = (N mod c^3) / c^3 of the cells hold one more), a point expects
 *   N P(r) - (1 - v / m) P(r c)
 * neighbours: all N^2 ordered pairs of the cube, less each point paired with
 * itself, plus the pairs within a cell that uneven counts add (the pairs of
 * two cells are counted as if every cell held m points), where
 *   P(x) = 4 pi x^3 / 3 - 3 pi x^4 / 2 + 8 x^5 / 5 - x^6 / 6,  0 <= x <= 1,
 * is the chance that two uniform points of the unit cube are closer than x
 * (the integral over the ball of radius x of the cube's set covariogram
 * prod_d (1 - |u_d|)), and P(r c) that of two points of one cell.  c is the
 * largest with c^3 <= N for which r = 1/c still reaches row_length - 1
 * neighbours (the fewest candidates per row), and r makes the expectation
 * row_length - 1 (bisection), so the shorter rows at the cube's faces are
 * counted and the mean row length is row_length.  When even r = 1 does not
 * reach it (fewer points than about row_length), r = 1 and the rows are
 * shorter.  N <= 2^31 keeps k N and (s + 1) c^3 exact in 64 bits.
 *
 * Numbering: rgg-spatial makes point s row s (cell by cell, z slowest), so
 * a block of contiguous rows is a slab of the cube and its halo lies on the
 * slab's two faces; rgg makes point s row pi(s), pi the keyed bijection of
 * scramble.h: the same graph, P A P^T, with no locality in its numbering. */
#include "gen/families.h"

#include <math.h>
#include <stdbool.h>

#include "core/error.h"
#include "gen/hash.h"

#define PI 3.14159265358979323846

/* P(x): two uniform points of the unit cube are closer than x (0 <= x <= 1). */
static double close_pair_probability(double x)
{
    return x * x * x * (4.0 * PI / 3.0 + x * (-1.5 * PI + x * (1.6 - x / 6.0)));
}

/* Expected neighbours of a point with c^3 cells and radius r <= 1/c. */
static double mean_degree(int64_t n, int64_t c, double r)
{
    const int64_t cells = c * c * c;
    const double m = (double)n / (double)cells, f = (double)(n % cells) / (double)cells;
    /* N P(r) - (1 - v / m) P(r c), v = f (1 - f) */
    return (double)n * close_pair_probability(r) -
           (1.0 - f * (1.0 - f) / m) * close_pair_probability(r * (double)c);
}

/* The cells per direction for `target` neighbours: see the file comment. */
static int64_t cells_per_direction(int64_t n, double target)
{
    /* the largest c with c^3 <= n: every cell holds a point */
    int64_t c = (int64_t)cbrt((double)n);
    while (c > 1 && c * c * c > n) c--;
    while ((c + 1) * (c + 1) * (c + 1) <= n) c++;
    if (target <= 0.0) return c;
    /* P(x) <= 4 pi x^3 / 3, so no c above this reaches target at r = 1/c */
    const double above = cbrt(4.0 * PI * (double)n / (3.0 * (target + close_pair_probability(1))));
    if (above + 1.0 < (double)c) c = (int64_t)above + 1;
    while (c > 1 && mean_degree(n, c, 1.0 / (double)c) < target) c--;
    return c;
}

kryl_status kryl_gen_rgg_init(kryl_generator *g)
{
    const int64_t n = g->nrows;
    if (n > (INT64_C(1) << 31))
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "kryl_generator_init: %s: options->nx = %lld, must be <= 2^31 (points "
                          "and cells are numbered by exact 64-bit products)",
                          kryl_generator_name(g->options.kind), (long long)n);
    const double target = (double)(g->options.row_length - 1); /* off-diagonals per row */
    const int64_t c = cells_per_direction(n, target);
    double r = 0.0;
    if (target > 0.0) {
        /* bisection on r in [0, 1/c] for mean_degree(r) = target (it grows with r) */
        double lo = 0.0, hi = 1.0 / (double)c;
        if (mean_degree(n, c, hi) > target)
            for (int it = 0; it < 64; it++) {
                const double mid = 0.5 * (lo + hi);
                if (mean_degree(n, c, mid) < target)
                    lo = mid;
                else
                    hi = mid;
            }
        r = hi;
    }
    const int64_t cells = c * c * c, fullest = (n + cells - 1) / cells;
    g->cells = c;
    g->radius = r;
    g->nnz_estimate = (int64_t)llround((double)n * (1.0 + mean_degree(n, c, r)));
    g->max_row_length = 27 * fullest < n ? 27 * fullest : n;
    kryl_gen_scramble_init(&g->scramble, n, g->options.seed);
    return KRYL_SUCCESS;
}

/* The first point of cell k: floor(k N / c^3). */
static int64_t cell_start(const kryl_generator *g, int64_t k)
{
    return k * g->nrows / (g->cells * g->cells * g->cells);
}

/* The cell of point s: the largest k with floor(k N / c^3) <= s. */
static int64_t cell_of(const kryl_generator *g, int64_t s)
{
    return ((s + 1) * (g->cells * g->cells * g->cells) - 1) / g->nrows;
}

/* Point s of the cell with corner `cell` (in cells): x_d = (cell_d + u_d) / c. */
static void position(const kryl_generator *g, int64_t s, const int64_t cell[3], double x[3])
{
    const uint64_t golden = 0x9e3779b97f4a7c15ULL;
    const uint64_t h = kryl_gen_hash(g->options.seed, KRYL_GEN_STREAM_POSITION, (uint64_t)s, 0);
    for (int d = 0; d < 3; d++)
        x[d] = ((double)cell[d] + kryl_gen_uniform(kryl_gen_mix64(h + (uint64_t)d * golden))) /
               (double)g->cells;
}

/* sigma_s = (1 + u) / 2 in [1/2, 1): point s's diagonal shift. */
static double shift(const kryl_generator *g, int64_t s)
{
    const uint64_t h = kryl_gen_hash(g->options.seed, KRYL_GEN_STREAM_SHIFT, (uint64_t)s, 0);
    return 0.5 * (1.0 + kryl_gen_uniform(h));
}

/* Swap entries a and b of the row. */
static void swap_entries(int64_t *cols, double *values, int64_t a, int64_t b)
{
    const int64_t c = cols[a];
    const double v = values[a];
    cols[a] = cols[b];
    values[a] = values[b];
    cols[b] = c;
    values[b] = v;
}

/* Move entry `from` down the max-heap cols[0..count) (values along). */
static void sift_down(int64_t *cols, double *values, int64_t from, int64_t count)
{
    for (int64_t root = from, child; (child = 2 * root + 1) < count; root = child) {
        if (child + 1 < count && cols[child + 1] > cols[child]) child++;
        if (cols[root] >= cols[child]) return;
        swap_entries(cols, values, root, child);
    }
}

/* The row's entries by ascending column, values along: heapsort (J. W. J.
 * Williams, "Algorithm 232: Heapsort", Comm. ACM 7(6), 1964), O(len log len)
 * for any row_length. */
static void sort_entries(int64_t *cols, double *values, int64_t count)
{
    for (int64_t k = count / 2 - 1; k >= 0; k--) sift_down(cols, values, k, count);
    for (int64_t end = count - 1; end > 0; end--) {
        swap_entries(cols, values, 0, end);
        sift_down(cols, values, 0, end);
    }
}

int64_t kryl_gen_rgg_row(const kryl_generator *g, int64_t i, int64_t *cols, double *values)
{
    const bool scrambled = g->options.kind == KRYL_GEN_RGG;
    const int64_t s = scrambled ? kryl_gen_scramble_inverse(&g->scramble, i) : i;
    const int64_t c = g->cells, own = cell_of(g, s);
    const int64_t at[3] = {own % c, own / c % c, own / (c * c)};
    const double r2 = g->radius * g->radius;
    double xs[3];
    position(g, s, at, xs);
    int64_t count = 0, diag_at = 0, b[3];
    double diag = shift(g, s);
    /* the cells around s's own (27 inside the cube), in increasing cell order, so the
     * spatial numbering meets its columns in ascending order */
    for (b[2] = at[2] > 0 ? at[2] - 1 : 0; b[2] <= at[2] + 1 && b[2] < c; b[2]++)
        for (b[1] = at[1] > 0 ? at[1] - 1 : 0; b[1] <= at[1] + 1 && b[1] < c; b[1]++)
            for (b[0] = at[0] > 0 ? at[0] - 1 : 0; b[0] <= at[0] + 1 && b[0] < c; b[0]++) {
                const int64_t k = b[0] + c * (b[1] + c * b[2]);
                for (int64_t t = cell_start(g, k), end = cell_start(g, k + 1); t < end; t++) {
                    if (t == s) {
                        diag_at = count++;
                        continue;
                    }
                    double xt[3];
                    position(g, t, b, xt);
                    /* d2 = |x_s - x_t|^2 */
                    const double d2 = (xs[0] - xt[0]) * (xs[0] - xt[0]) +
                                      (xs[1] - xt[1]) * (xs[1] - xt[1]) +
                                      (xs[2] - xt[2]) * (xs[2] - xt[2]);
                    if (!(d2 < r2)) continue;
                    /* a_st = -w, w = 1 - d2 / r^2 in (0, 1] since d2 < r^2 */
                    const double w = 1.0 - d2 / r2;
                    if (cols) {
                        cols[count] = scrambled ? kryl_gen_scramble_forward(&g->scramble, t) : t;
                        values[count] = -w;
                    }
                    diag += w; /* a_ss = sigma_s + sum w */
                    count++;
                }
            }
    if (cols) {
        cols[diag_at] = i;
        values[diag_at] = diag;
        if (scrambled) sort_entries(cols, values, count);
    }
    return count;
}
