/* Estimate of alpha, the reuse of x in SpMV (Kreutzer et al. 2012, eq. 1:
 * x costs 8*alpha bytes per nonzero, alpha = 1/Nnzr when each x value is
 * loaded once, 1 when never reused), from the distances of the entries to
 * the diagonal in the format's row order; no cache is simulated.
 *
 * While the rows are swept in order, every row brings its share of the
 * matrix and y stream (stream_per_access bytes per entry) and 8 bytes of x
 * that no earlier row loaded into the last-level cache of C bytes, so
 * about T0 = C / (those bytes) rows fit.  An entry a_ij with 2 |j - i| <=
 * T0 is reached by a band of rows that load and reuse x_j within T0 rows
 * (a banded or stencil matrix in a good order): its line is still cached.
 * The farther entries are taken as references to random lines of x, and
 * the cache as LRU under them: by Che's approximation (Che, Tung and Wang,
 * IEEE JSAC 20(7), 2002) a line stays while it is referenced again within
 * the characteristic time T rows, where the stream, x's new bytes and the
 * distinct lines the far entries touch in T rows,
 *
 *   T (stream + 8) + L line (1 - exp(-T f / L)) = C,
 *
 * fill the cache (f far entries per row, L lines of x); a far entry hits
 * with probability h = 1 - exp(-T f / L) (1 when the whole product fits,
 * T >= n).  Every column is loaded once:
 *
 *   alpha = (8 ncols + line * far * (1 - h)) / (8 nnz), at most 1.
 *
 * One pass over the entries, summed over rows on p->threads host threads
 * (an integer count: the estimate does not depend on them). */
#include <math.h>

#include "core/host_threads.h"
#include "formats/fmt_internal.h"

/* Bisection steps for T: enough for 1e-6 of the bracket's width. */
#define FMT_CHE_STEPS 64

/* The characteristic time T (rows) of an LRU cache of `cache` bytes under a
 * stream of `per_row` bytes a row and f random references a row to L lines. */
static double characteristic_rows(double cache, double per_row, double f, double lines, double line)
{
    /* filled(T) grows with T from 0: bracket its root, then halve */
    double lo = 0.0, hi = cache / per_row;
#define FILLED(T) ((T)*per_row + lines * line * (1.0 - exp(-(T)*f / lines)))
    if (FILLED(hi) <= cache) return hi; /* every x line fits besides the stream */
    for (int k = 0; k < FMT_CHE_STEPS; k++) {
        const double mid = 0.5 * (lo + hi);
        if (FILLED(mid) <= cache)
            lo = mid;
        else
            hi = mid;
    }
#undef FILLED
    return lo;
}

int64_t fmt_reach(int64_t n, int64_t nnz, const kryl_device_model *dev, double stream_per_access)
{
    if (nnz == 0 || n == 0) return INT64_MAX;
    /* the bytes a row brings besides the lines of far entries; T0 / 2 */
    const double per_row = stream_per_access * (double)nnz / (double)n + 8.0;
    const double reach = 0.5 * (double)dev->cache_bytes / per_row;
    return reach < (double)INT64_MAX ? (int64_t)reach : INT64_MAX;
}

int64_t fmt_count_far(const fmt_view *v, int64_t near, int threads)
{
    int64_t far = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, +, far)
    for (int64_t i = 0; i < v->n; i++) {
        int64_t b, e;
        fmt_view_row(v, i, &b, &e);
        for (int64_t q = b; q < e; q++) {
            const int64_t d = fmt_view_col(v, q) - i;
            far += d > near || -d > near;
        }
    }
    return far;
}

double fmt_alpha_of_far(int64_t n, int64_t nnz, int64_t ncols, int64_t far,
                        const kryl_device_model *dev, double stream_per_access)
{
    const double line = (double)dev->line_bytes, cache = (double)dev->cache_bytes;
    if (nnz == 0 || n == 0 || dev->cache_bytes < dev->line_bytes) return 1.0;
    const double per_row = stream_per_access * (double)nnz / (double)n + 8.0;
    const double x_once = 8.0 * (double)ncols;
    double missed = 0.0; /* far entries whose line was evicted */
    if (far > 0) {
        const double lines = ceil(x_once / line), f = (double)far / (double)n;
        const double T = characteristic_rows(cache, per_row, f, lines, line);
        /* T beyond the product: nothing is evicted before the sweep ends */
        missed = T >= (double)n ? 0.0 : (double)far * exp(-T * f / lines);
    }
    const double a = (x_once + line * missed) / (8.0 * (double)nnz);
    return a < 1.0 ? a : 1.0;
}

kryl_status fmt_estimate_alpha(const fmt_view *v, const kryl_device_model *dev,
                               double stream_per_access, const kryl_fmt_params *p, double *alpha)
{
    const int64_t nnz = kryl_csr_nnz(v->A), n = v->n, ncols = v->A->ncols;
    *alpha = 1.0;
    if (nnz == 0 || n == 0 || dev->cache_bytes < dev->line_bytes) return KRYL_SUCCESS;
    const int64_t far = fmt_count_far(v, fmt_reach(n, nnz, dev, stream_per_access), p->threads);
    *alpha = fmt_alpha_of_far(n, nnz, ncols, far, dev, stream_per_access);
    return KRYL_SUCCESS;
}
