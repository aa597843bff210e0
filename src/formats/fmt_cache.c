/* Estimate of alpha, the reuse of x in SpMV (Kreutzer et al. 2012, eq. 1:
 * x costs 8*alpha bytes per nonzero, alpha = 1/Nnzr when each x value is
 * loaded once, 1 when never reused), by simulating the last-level cache
 * over the x accesses of one SpMV in the format's row order.
 *
 * The cache: dev->cache_bytes in lines of dev->line_bytes, 16-way set
 * associative with LRU replacement and hashed set indices (GPU L2 caches
 * hash addresses over slices).  The matrix and y stream through the same
 * cache: after each x access, stream_per_access bytes of lines that are
 * never reused are inserted, so x competes with them as under default
 * caching.  Large runs are set-sampled: only a subset of the sets is
 * simulated (each set of an LRU set-associative cache evolves on its own,
 * so the sampled sets' miss rate estimates the whole cache's), keeping the
 * simulated accesses near FMT_SIM_ACCESSES and the tag store small.
 * Beyond p->windowed_nnz nonzeros, a matrix whose bandwidth (in the
 * view's order) is under n / (4 FMT_SIM_WINDOWS) rows has its rows sampled
 * too, so that the work splits over threads: FMT_SIM_WINDOWS evenly spaced
 * windows of that many rows, each replayed into an empty cache after as
 * many rows of warm-up (a quarter of the matrix counted, half replayed).
 * Every x line a window's rows reuse was touched in its warm-up, so the
 * cache is in its steady state when counting starts (a 3-D stencil's
 * warm-up spans several planes at any size); wider matrices, whose reuse
 * may span the whole x, are replayed whole.  The estimate depends on
 * neither the thread count nor the order the parts run. */
#include <stdbool.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

#define FMT_SIM_WAYS     16
#define FMT_SIM_ACCESSES 4000000
#define FMT_SIM_TAGS     (1 << 22)
#define FMT_SIM_WINDOWS  16 /* row windows of a row-sampled run */
#define FMT_STREAM_TAG   (1ULL << 63)

typedef struct cache_sim {
    uint64_t *tags;      /* nsim sets x ways, most recent first; 0 = empty way */
    int64_t nsets;       /* sets of the whole cache */
    int64_t first, last; /* the sets this replay simulates, a range of the sampled ones */
    int64_t ways;
    int64_t misses;   /* misses of x lines in the simulated sets, while counting */
    int64_t accesses; /* x accesses while counting */
    bool counting;
} cache_sim;

/* The set of a line: Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4) spreads
 * consecutive lines over the sets; its high 32 bits scaled to [0, nsets). */
static uint64_t set_of(uint64_t tag, uint64_t nsets)
{
    return ((tag * 0x9e3779b97f4a7c15ULL) >> 32) * nsets >> 32;
}

/* Access line `tag`: move it to the front of its set, evicting the least
 * recently used way on a miss. */
static void touch(cache_sim *c, uint64_t tag)
{
    const uint64_t set = set_of(tag, (uint64_t)c->nsets);
    if (set < (uint64_t)c->first || set >= (uint64_t)c->last) return;
    uint64_t *way = c->tags + set * (uint64_t)c->ways;
    int64_t k = 0;
    while (k < c->ways - 1 && way[k] != tag) k++;
    if (way[k] != tag && !(tag & FMT_STREAM_TAG) && c->counting) c->misses++;
    for (; k > 0; k--) way[k] = way[k - 1];
    way[0] = tag;
}

/* The accesses of rows [begin, end) of one SpMV in the view's row order,
 * replayed into c's sets; misses and accesses count from row `counted` on. */
static void replay(const fmt_view *v, int64_t line, double stream_per_access, cache_sim *c,
                   int64_t begin, int64_t counted, int64_t end)
{
    uint64_t stream_tag = FMT_STREAM_TAG;
    double stream_due = 0.0;
    for (int64_t i = begin; i < end; i++) {
        int64_t b, e;
        fmt_view_row(v, i, &b, &e);
        c->counting = i >= counted;
        if (c->counting) c->accesses += e - b;
        for (int64_t q = b; q < e; q++) {
            touch(c, (uint64_t)(fmt_view_col(v, q) * 8 / line) + 1); /* x[col] */
            /* the matrix and y lines that stream past meanwhile */
            for (stream_due += stream_per_access; stream_due >= (double)line;
                 stream_due -= (double)line)
                touch(c, stream_tag++);
        }
    }
}

/* Rows of each window, and of its warm-up. */
static int64_t window_rows(int64_t n)
{
    return n / (4 * FMT_SIM_WINDOWS) > 0 ? n / (4 * FMT_SIM_WINDOWS) : 1;
}

/* Whether the view's bandwidth, max |j - i|, is at most `rows`. */
static bool banded_within(const fmt_view *v, int64_t rows, int threads)
{
    int64_t width = 0;
    KRYL_HOST_PARALLEL_REDUCE(threads, max, width)
    for (int64_t i = 0; i < v->n; i++) {
        int64_t b, e;
        fmt_view_row(v, i, &b, &e);
        for (int64_t q = b; q < e; q++) {
            const int64_t d = fmt_view_col(v, q) - i;
            if ((d < 0 ? -d : d) > width) width = d < 0 ? -d : d;
        }
    }
    return width <= rows;
}

/* Misses (in the first nsim sets) and accesses of FMT_SIM_WINDOWS windows
 * of rows, each counted after as many rows of warm-up. */
static kryl_status replay_windows(const fmt_view *v, int64_t line, double stream_per_access,
                                  int64_t nsets, int64_t nsim, int64_t ways, int threads,
                                  int64_t *misses, int64_t *accesses)
{
    const int64_t n = v->n, rows = window_rows(n);
    const int parts = FMT_SIM_WINDOWS < threads ? FMT_SIM_WINDOWS : threads;
    uint64_t *tags = NULL;
    KRYL_TRY(FMT_ALLOC(tags, (int64_t)parts * nsim * ways, "the cache simulation"));
    int64_t missed = 0, seen = 0;
    KRYL_HOST_PARALLEL(parts)
    {
        uint64_t *mine = tags + (int64_t)kryl_host_thread() * nsim * ways;
        KRYL_HOST_FOR_REDUCE(+, missed, seen)
        for (int w = 0; w < FMT_SIM_WINDOWS; w++) {
            /* window w counts rows [start, start + rows), centred on (2w+1)/(2W) of the rows */
            const int64_t start = (n - rows) * (2 * w + 1) / (2 * FMT_SIM_WINDOWS);
            cache_sim c = {mine, nsets, 0, nsim, ways, 0, 0, false};
            for (int64_t k = 0; k < nsim * ways; k++) mine[k] = 0;
            replay(v, line, stream_per_access, &c, start > rows ? start - rows : 0, start,
                   start + rows);
            missed += c.misses;
            seen += c.accesses;
        }
    }
    free(tags);
    *misses = missed;
    *accesses = seen;
    return KRYL_SUCCESS;
}

kryl_status fmt_simulate_alpha(const fmt_view *v, const kryl_device_model *dev,
                               double stream_per_access, const kryl_fmt_params *p, double *alpha)
{
    const int threads = p->threads;
    const int64_t nnz = kryl_csr_nnz(v->A), line = dev->line_bytes;
    const int64_t lines = dev->cache_bytes / line;
    *alpha = 1.0;
    if (nnz == 0 || lines == 0) return KRYL_SUCCESS; /* nothing to load, or no cache */
    const int64_t ways = lines < FMT_SIM_WAYS ? lines : FMT_SIM_WAYS, nsets = lines / ways;
    const bool windows = nnz > p->windowed_nnz && banded_within(v, window_rows(v->n), threads);
    /* the accesses replayed: all, or about half of them (the windows) */
    const int64_t replayed = windows ? nnz / 2 : nnz;
    int64_t misses = 0, accesses = nnz, nsim = nsets;
    if (replayed > FMT_SIM_ACCESSES) nsim = (int64_t)((double)nsets * FMT_SIM_ACCESSES / replayed);
    if (nsim > FMT_SIM_TAGS / ways) nsim = FMT_SIM_TAGS / ways;
    if (nsim < 1) nsim = 1;
    if (windows) {
        KRYL_TRY(replay_windows(v, line, stream_per_access, nsets, nsim, ways, threads, &misses,
                                &accesses));
    } else {
        uint64_t *tags = NULL;
        KRYL_TRY(FMT_ALLOC(tags, nsim * ways, "the cache simulation"));
        /* every set evolves on its own: each part replays all accesses into its
         * own range of the sampled sets, and the misses add up to the serial count */
        const int parts = nsim < threads ? (int)nsim : threads;
        KRYL_HOST_PARALLEL_REDUCE(parts, +, misses)
        for (int t = 0; t < parts; t++) {
            cache_sim c = {tags, nsets, nsim * t / parts, nsim * (t + 1) / parts, ways, 0, 0, true};
            replay(v, line, stream_per_access, &c, 0, 0, v->n);
            misses += c.misses;
        }
        free(tags);
    }
    /* alpha = (x lines missed * line bytes) / (8 accesses), missed scaled from the sampled sets */
    const double missed = (double)misses * (double)nsets / (double)nsim;
    const double a = accesses > 0 ? missed * (double)line / (8.0 * (double)accesses) : 1.0;
    *alpha = a < 1.0 ? a : 1.0;
    return KRYL_SUCCESS;
}
