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
#include "formats/fmt_internal.h"

#define FMT_SIM_WAYS     16
#define FMT_SIM_ACCESSES 4000000
#define FMT_SIM_TAGS     (1 << 22)
#define FMT_STREAM_TAG   (1ULL << 63)

typedef struct cache_sim {
    uint64_t *tags; /* nsim sets x ways, most recent first; 0 = empty way */
    int64_t nsets;  /* sets of the whole cache */
    int64_t nsim;   /* sets simulated: those whose index is below nsim */
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
    if (set >= (uint64_t)c->nsim) return;
    uint64_t *way = c->tags + set * (uint64_t)c->ways;
    int64_t k = 0;
    while (k < c->ways - 1 && way[k] != tag) k++;
    if (way[k] != tag && !(tag & FMT_STREAM_TAG)) c->misses++;
    for (; k > 0; k--) way[k] = way[k - 1];
    way[0] = tag;
}

kryl_status fmt_simulate_alpha(const fmt_view *v, const kryl_device_model *dev,
                               double stream_per_access, double *alpha)
{
    const int64_t nnz = kryl_csr_nnz(v->A), line = dev->line_bytes;
    const int64_t lines = dev->cache_bytes / line;
    *alpha = 1.0;
    if (nnz == 0 || lines == 0) return KRYL_SUCCESS; /* nothing to load, or no cache */
    cache_sim c = {NULL, 0, 0, lines < FMT_SIM_WAYS ? lines : FMT_SIM_WAYS, 0};
    c.nsets = lines / c.ways;
    c.nsim = c.nsets;
    if (nnz > FMT_SIM_ACCESSES) c.nsim = (int64_t)((double)c.nsets * FMT_SIM_ACCESSES / nnz);
    if (c.nsim > FMT_SIM_TAGS / c.ways) c.nsim = FMT_SIM_TAGS / c.ways;
    if (c.nsim < 1) c.nsim = 1;
    KRYL_TRY(FMT_ALLOC(c.tags, c.nsim * c.ways, "the cache simulation"));
    uint64_t stream_tag = FMT_STREAM_TAG;
    double stream_due = 0.0;
    for (int64_t i = 0; i < v->n; i++) {
        int64_t b, e;
        fmt_view_row(v, i, &b, &e);
        for (int64_t q = b; q < e; q++) {
            touch(&c, (uint64_t)(fmt_view_col(v, q) * 8 / line) + 1); /* x[col] */
            /* the matrix and y lines that stream past meanwhile */
            for (stream_due += stream_per_access; stream_due >= (double)line;
                 stream_due -= (double)line)
                touch(&c, stream_tag++);
        }
    }
    free(c.tags);
    /* alpha = (x lines missed * line bytes) / (8 nnz), missed scaled from the sampled sets */
    const double missed = (double)c.misses * (double)c.nsets / (double)c.nsim;
    const double a = missed * (double)line / (8.0 * (double)nnz);
    *alpha = a < 1.0 ? a : 1.0;
    return KRYL_SUCCESS;
}
