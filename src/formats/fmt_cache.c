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
 * simulated accesses near FMT_SIM_ACCESSES and the tag store small. */
#include <stdlib.h>

#include "core/error.h"
#include "core/host_threads.h"
#include "formats/fmt_internal.h"

#define FMT_SIM_WAYS     16
#define FMT_SIM_ACCESSES 4000000
#define FMT_SIM_TAGS     (1 << 22)
#define FMT_STREAM_TAG   (1ULL << 63)

typedef struct cache_sim {
    uint64_t *tags;      /* nsim sets x ways, most recent first; 0 = empty way */
    int64_t nsets;       /* sets of the whole cache */
    int64_t first, last; /* the sets this replay simulates, a range of the sampled ones */
    int64_t ways;
    int64_t misses; /* misses of x lines in the simulated sets */
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
    if (way[k] != tag && !(tag & FMT_STREAM_TAG)) c->misses++;
    for (; k > 0; k--) way[k] = way[k - 1];
    way[0] = tag;
}

/* One SpMV's accesses in the view's row order, replayed into c's sets. */
static void replay(const fmt_view *v, int64_t line, double stream_per_access, cache_sim *c)
{
    uint64_t stream_tag = FMT_STREAM_TAG;
    double stream_due = 0.0;
    for (int64_t i = 0; i < v->n; i++) {
        int64_t b, e;
        fmt_view_row(v, i, &b, &e);
        for (int64_t q = b; q < e; q++) {
            touch(c, (uint64_t)(fmt_view_col(v, q) * 8 / line) + 1); /* x[col] */
            /* the matrix and y lines that stream past meanwhile */
            for (stream_due += stream_per_access; stream_due >= (double)line;
                 stream_due -= (double)line)
                touch(c, stream_tag++);
        }
    }
}

kryl_status fmt_simulate_alpha(const fmt_view *v, const kryl_device_model *dev,
                               double stream_per_access, int threads, double *alpha)
{
    const int64_t nnz = kryl_csr_nnz(v->A), line = dev->line_bytes;
    const int64_t lines = dev->cache_bytes / line;
    *alpha = 1.0;
    if (nnz == 0 || lines == 0) return KRYL_SUCCESS; /* nothing to load, or no cache */
    const int64_t ways = lines < FMT_SIM_WAYS ? lines : FMT_SIM_WAYS, nsets = lines / ways;
    int64_t nsim = nsets;
    if (nnz > FMT_SIM_ACCESSES) nsim = (int64_t)((double)nsets * FMT_SIM_ACCESSES / nnz);
    if (nsim > FMT_SIM_TAGS / ways) nsim = FMT_SIM_TAGS / ways;
    if (nsim < 1) nsim = 1;
    uint64_t *tags = NULL;
    KRYL_TRY(FMT_ALLOC(tags, nsim * ways, "the cache simulation"));
    /* every set evolves on its own: each part replays all accesses into its
     * own range of the sampled sets, and the misses add up to the serial count */
    const int parts = nsim < threads ? (int)nsim : threads;
    int64_t misses = 0;
    KRYL_HOST_PARALLEL_REDUCE(parts, +, misses)
    for (int t = 0; t < parts; t++) {
        cache_sim c = {tags, nsets, nsim * t / parts, nsim * (t + 1) / parts, ways, 0};
        replay(v, line, stream_per_access, &c);
        misses += c.misses;
    }
    free(tags);
    /* alpha = (x lines missed * line bytes) / (8 nnz), missed scaled from the sampled sets */
    const double missed = (double)misses * (double)nsets / (double)nsim;
    const double a = missed * (double)line / (8.0 * (double)nnz);
    *alpha = a < 1.0 ? a : 1.0;
    return KRYL_SUCCESS;
}
