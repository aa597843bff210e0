/* The AMG aggregation on the device (backend.h, amg_aggregate): the
 * strength graph and the parallel aggregation of src/amg/amg_aggregate.c
 * (Kelley & Rajamanickam, IPDPS 2022), pass for pass as the host's code
 * does them, with a thread per row (the strength pass: 8 lanes a row):
 *   strength: a_ii, the strong couplings counted, offsets by a scan, then
 *             written; for a matrix not known symmetric the pairs (i, j)
 *             and (j, i) of S are sorted as 64-bit keys and made unique
 *             (the host's S + S', rows sorted);
 *   each distance-2 independent set: keys (state, hash, row), then rounds
 *             of two neighbour maxima, the first over the rows with an
 *             undecided row among them and their neighbours, the second
 *             over the undecided rows alone and deciding them, the
 *             undecided rows counted each round and fetched after a batch
 *             of rounds (those past the last return at once);
 *   roots numbered in row order by a scan, their neighbours joining them;
 *   the rows left joining their best neighbouring aggregate
 *             (amg_aggregate_rules.h), sizes counted by atomic adds.
 * Every pass reads the previous pass's arrays only, so the aggregates are
 * the host's exactly; only the aggregate count reaches the host. */
#include <cstring>

#include <cub/cub.cuh>

#include "amg/amg_aggregate_rules.h"
#include "backends/cuda/cuda_internal.cuh"

/* d[i] = a_ii (0 where absent), KRYL_CUDA_ROW_LANES lanes a row */
__global__ void aggregate_diagonal_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                          const int32_t *__restrict__ col_idx,
                                          const double *__restrict__ values, double *d)
{
    KRYL_CUDA_FOR_EACH_ROW(i, n)
    {
        const double v = kryl_cuda_row_diagonal(i, row_ptr[i], row_ptr[i + 1], col_idx, values);
        if (kryl_cuda_row_lane() == 0) d[i] = v;
    }
}

/* count[i] = the strong couplings of row i (fill: their columns at out[ptr[i]..],
 * in A's order); KRYL_CUDA_ROW_LANES lanes a row, each chunk's strong
 * entries placed by a ballot of the row's lanes */
__global__ void aggregate_strength_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                          const int32_t *__restrict__ col_idx,
                                          const double *__restrict__ values,
                                          const double *__restrict__ d, double theta,
                                          int64_t *count, const int64_t *__restrict__ ptr,
                                          int32_t *out)
{
    const unsigned int lane = (unsigned int)kryl_cuda_row_lane();
    const unsigned int row_mask = kryl_cuda_row_mask();
    /* the lanes before this one in the warp */
    const unsigned int below = (1u << (threadIdx.x & 31u)) - 1u;
    KRYL_CUDA_FOR_EACH_ROW(i, n)
    {
        int64_t at = out ? ptr[i] : 0;
        for (int64_t k0 = row_ptr[i]; k0 < row_ptr[i + 1]; k0 += KRYL_CUDA_ROW_LANES) {
            const int64_t k = k0 + lane;
            const int32_t j = k < row_ptr[i + 1] ? col_idx[k] : (int32_t)i;
            /* theta = 0 reads no a_jj (amg_strong's rule without the gather) */
            const bool strong = j != i && (theta == 0.0 ? values[k] != 0.0
                                                        : amg_strong(values[k], d[i], d[j], theta));
            /* the row's lanes agree on the chunk: its strong entries in order */
            const unsigned int mask = __ballot_sync(row_mask, strong) & row_mask;
            if (out && strong) out[at + __popc(mask & below)] = j;
            at += __popc(mask);
        }
        if (!out && lane == 0) count[i] = at;
    }
}

/* keys[2k], keys[2k+1] = (i, j) and (j, i) of S's entry k in row i */
__global__ void aggregate_pair_keys_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                           const int32_t *__restrict__ col, uint64_t *keys)
{
    KRYL_CUDA_FOR_EACH(i, n)
    for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
        keys[2 * k] = ((uint64_t)i << 32) | (uint32_t)col[k];
        keys[2 * k + 1] = ((uint64_t)(uint32_t)col[k] << 32) | (uint64_t)i;
    }
}

/* ptr[r] = the first of the m sorted keys in row r or later; col = the keys' columns */
__global__ void aggregate_pair_rows_kernel(int64_t n, int64_t m, const uint64_t *__restrict__ keys,
                                           int64_t *ptr, int32_t *col)
{
    KRYL_CUDA_FOR_EACH(r, n + 1)
    {
        const uint64_t first = (uint64_t)r << 32;
        ptr[r] = kryl_cuda_partition_point(0, m, [&](int64_t p) { return keys[p] < first; });
    }
    KRYL_CUDA_FOR_EACH(p, m) col[p] = (int32_t)(uint32_t)keys[p];
}

/* key[i] = (out or undecided, hash, i): out without neighbours or with an aggregate */
__global__ void aggregate_keys_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                      const int32_t *__restrict__ aggregate, uint64_t *key)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        const bool out = ptr[i + 1] == ptr[i] || (aggregate && aggregate[i] >= 0);
        key[i] = amg_key_of(out ? AMG_STATE_OUT : AMG_STATE_UNDECIDED, i);
    }
}

/* out[i] = max of in over row i and its neighbours, for the rows not
 * settled; settled[i] = 1 once row i and its neighbours are all decided:
 * a decided row's key no longer changes, so neither does out[i] */
__global__ void aggregate_neighbour_max_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                               const int32_t *__restrict__ col,
                                               const uint64_t *__restrict__ in, uint64_t *out,
                                               uint8_t *settled, const unsigned long long *before)
{
    if (*before == 0) return; /* the set is complete: nothing changes */
    KRYL_CUDA_FOR_EACH(i, n)
    {
        if (settled[i]) continue;
        uint64_t m = in[i];
        bool decided = amg_key_state(m) != AMG_STATE_UNDECIDED;
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            const uint64_t v = in[col[k]];
            m = v > m ? v : m;
            decided = decided && amg_key_state(v) != AMG_STATE_UNDECIDED;
        }
        out[i] = m;
        if (decided) settled[i] = 1;
    }
}

/* *total += the lanes' `mine`, one atomic per warp (blocks are whole warps;
 * every lane must get here) */
__device__ inline void aggregate_warp_add(unsigned int mine, unsigned long long *total)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if ((threadIdx.x & 31u) == 0 && mine) atomicAdd(total, (unsigned long long)mine);
}

/* undecided rows, from m2 = the largest m1 over the row and its
 * neighbours (the distance-2 maximum of the keys): in when it is their
 * key, out when it is a member's; *left += the rows still undecided.  A
 * decided row's m2 is not needed: it reads no neighbour.  Both passes of a
 * round return at once where the round before left no row undecided. */
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void aggregate_decide_kernel(
    int64_t n, const int64_t *__restrict__ ptr, const int32_t *__restrict__ col,
    const uint64_t *__restrict__ m1, uint64_t *key, const unsigned long long *before,
    unsigned long long *left)
{
    if (*before == 0) return; /* the set is complete: nothing changes */
    unsigned int mine = 0;
    KRYL_CUDA_FOR_EACH(i, n)
    {
        if (amg_key_state(key[i]) != AMG_STATE_UNDECIDED) continue;
        uint64_t m2 = m1[i];
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) m2 = m1[col[k]] > m2 ? m1[col[k]] : m2;
        key[i] = amg_key_decided(key[i], m2, i);
        mine += amg_key_state(key[i]) == AMG_STATE_UNDECIDED;
    }
    aggregate_warp_add(mine, left);
}

/* *covered += the rows with an aggregate */
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void aggregate_count_kernel(
    int64_t n, const int32_t *__restrict__ aggregate, unsigned long long *covered)
{
    unsigned int mine = 0;
    KRYL_CUDA_FOR_EACH(i, n) mine += aggregate[i] >= 0;
    aggregate_warp_add(mine, covered);
}

/* flag[i] = whether i roots an aggregate: in the set and with at least
 * `least` - 1 neighbours without an aggregate */
__global__ void aggregate_root_flags_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                            const int32_t *__restrict__ col,
                                            const uint64_t *__restrict__ key,
                                            const int32_t *__restrict__ aggregate, int64_t least,
                                            int32_t *flag)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        int64_t size = 1;
        for (int64_t k = ptr[i]; k < ptr[i + 1] && size < least; k++) size += aggregate[col[k]] < 0;
        flag[i] = amg_key_state(key[i]) == AMG_STATE_IN && size >= least;
    }
}

/* root[i] = next + (roots before i) where flag[i], else -1 */
__global__ void aggregate_root_numbers_kernel(int64_t n, const int32_t *__restrict__ flag,
                                              const int32_t *__restrict__ before, int64_t next,
                                              int32_t *root)
{
    KRYL_CUDA_FOR_EACH(i, n) root[i] = flag[i] ? (int32_t)(next + before[i]) : -1;
}

/* a row without an aggregate joins the root it is or is next to */
__global__ void aggregate_join_roots_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                            const int32_t *__restrict__ col,
                                            const int32_t *__restrict__ root, int32_t *aggregate)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        if (aggregate[i] >= 0) continue;
        int32_t a = root[i];
        for (int64_t k = ptr[i]; k < ptr[i + 1] && a < 0; k++) a = root[col[k]];
        aggregate[i] = a;
    }
}

/* old = aggregate;  size[a] += 1 for each row of aggregate a */
__global__ void aggregate_sizes_kernel(int64_t n, const int32_t *__restrict__ aggregate,
                                       int32_t *old, int32_t *size)
{
    KRYL_CUDA_FOR_EACH(i, n)
    {
        old[i] = aggregate[i];
        if (aggregate[i] >= 0) atomicAdd(&size[aggregate[i]], 1);
    }
}

/* a row left joins its best neighbouring aggregate (amg_best_neighbour_aggregate) */
__global__ void aggregate_leftovers_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                           const int32_t *__restrict__ col,
                                           const int32_t *__restrict__ old,
                                           const int32_t *__restrict__ size, int32_t *aggregate)
{
    KRYL_CUDA_FOR_EACH(i, n)
    if (old[i] < 0) aggregate[i] = amg_best_neighbour_aggregate(ptr, col, old, size, i);
}

/* The device blocks of one aggregation, freed together. */
struct aggregate_work {
    kryl_cuda_state *s;
    int64_t *row_ptr = nullptr; /* A's 64-bit offsets when a copy */
    double *diag = nullptr;
    int64_t *sptr = nullptr; /* S's offsets (n + 1) */
    int32_t *scol = nullptr;
    uint64_t *pairs = nullptr, *unique = nullptr; /* S + S' as sorted keys */
    int64_t *gptr = nullptr;                      /* G = S + S' when A is not symmetric */
    int32_t *gcol = nullptr;
    uint64_t *key = nullptr;    /* 2n: keys and the neighbours' maxima */
    uint8_t *settled = nullptr; /* n: rows whose maxima no longer change */
    int32_t *flag = nullptr;    /* 3n: root flags, their scan, root numbers; then old, sizes */
    unsigned long long *counts = nullptr; /* a count fetched by the host */
    unsigned long long *left = nullptr;   /* MIS2_BATCH + 1: a batch's undecided rows */
    void *temp = nullptr;
    size_t temp_bytes = 0;
    explicit aggregate_work(kryl_cuda_state *state) : s(state) {}
    ~aggregate_work()
    {
        void *blocks[] = {row_ptr, diag, sptr,    scol, pairs,  unique, gptr,
                          gcol,    key,  settled, flag, counts, left,   temp};
        for (void *b : blocks) kryl_cuda_free(s, b);
    }
    /* temp of at least bytes for a cub call */
    kryl_status need_temp(size_t bytes)
    {
        if (bytes <= temp_bytes) return KRYL_SUCCESS;
        kryl_cuda_free(s, temp);
        temp = nullptr;
        temp_bytes = 0;
        KRYL_TRY(kryl_cuda_malloc(s, &temp, bytes, "aggregation: scan workspace"));
        temp_bytes = bytes;
        return KRYL_SUCCESS;
    }
};

/* *value = one device integer, through the pinned staging buffer (waits). */
template <typename T> static kryl_status fetch(kryl_cuda_state *s, const T *on, T *value)
{
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(s->staging, on, sizeof *value, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(value, s->staging, sizeof *value);
    return KRYL_SUCCESS;
}

/* out[0] = 0, out[1..n] = the running sums of in[0..n-1] */
template <typename T> static kryl_status offsets(aggregate_work &w, const T *in, T *out, int64_t n)
{
    size_t bytes = 0;
    KRYL_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, w.s->stream));
    if (n == 0) return KRYL_SUCCESS;
    KRYL_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out + 1, n, w.s->stream));
    KRYL_TRY(w.need_temp(bytes));
    KRYL_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(w.temp, w.temp_bytes, in, out + 1, n, w.s->stream));
    return KRYL_SUCCESS;
}

/* The strength graph (ptr, col) of A: S, or S + S' unless symmetric. */
static kryl_status strength(aggregate_work &w, int64_t n, const int64_t *row_ptr,
                            const int32_t *col_idx, const double *values, double theta,
                            bool symmetric, const int64_t **ptr, const int32_t **col)
{
    kryl_cuda_state *s = w.s;
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&w.diag, (size_t)n * sizeof *w.diag, "aggregation: a_ii"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.sptr, ((size_t)n + 1) * sizeof *w.sptr,
                              "aggregation: strength graph offsets"));
    const unsigned int row_grid = kryl_cuda_stream_grid(s, n * KRYL_CUDA_ROW_LANES);
    /* d_i = a_ii */
    aggregate_diagonal_kernel<<<row_grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, row_ptr, col_idx,
                                                                             values, w.diag);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_diagonal_kernel");
    /* count_i = #{j != i : |a_ij| >= theta sqrt(|d_i d_j|)};  sptr = 0, their running sums */
    int64_t *counts = nullptr;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&counts, (size_t)n * sizeof *counts,
                              "aggregation: strong couplings per row"));
    aggregate_strength_kernel<<<row_grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, row_ptr, col_idx, values, w.diag, theta, counts, nullptr, nullptr);
    cudaError_t launched = cudaGetLastError();
    kryl_status st =
        launched == cudaSuccess
            ? offsets(w, counts, w.sptr, n)
            : kryl_cuda_failed(launched, "launch of aggregate_strength_kernel", KRYL_WHERE);
    kryl_cuda_free(s, counts);
    KRYL_TRY(st);
    int64_t nnz = 0;
    KRYL_TRY(fetch(s, w.sptr + n, &nnz));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.scol, (size_t)(nnz > 0 ? nnz : 1) * sizeof *w.scol,
                              "aggregation: strength graph"));
    /* S's columns */
    aggregate_strength_kernel<<<row_grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, row_ptr, col_idx, values, w.diag, theta, nullptr, w.sptr, w.scol);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_strength_kernel");
    *ptr = w.sptr;
    *col = w.scol;
    if (symmetric) return KRYL_SUCCESS;
    /* G = S + S': the pairs (i, j), (j, i) sorted and made unique */
    const int64_t pairs = 2 * nnz;
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.pairs, (size_t)(pairs > 0 ? pairs : 1) * 8,
                              "aggregation: coupling pairs"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.unique, (size_t)(pairs > 0 ? pairs : 1) * 8,
                              "aggregation: sorted coupling pairs"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.gptr, ((size_t)n + 1) * sizeof *w.gptr,
                              "aggregation: symmetric graph offsets"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.gcol, (size_t)(pairs > 0 ? pairs : 1) * sizeof *w.gcol,
                              "aggregation: symmetric graph"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.counts, sizeof *w.counts, "aggregation: counts"));
    /* keys (i << 32 | j) and (j << 32 | i) for each strong a_ij */
    aggregate_pair_keys_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, w.sptr, w.scol,
                                                                          w.pairs);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_pair_keys_kernel");
    int64_t m = 0;
    if (pairs > 0) {
        size_t sort_bytes = 0, unique_bytes = 0;
        KRYL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, w.pairs, w.unique,
                                                       pairs, 0, 64, s->stream));
        KRYL_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, unique_bytes, w.unique, w.pairs,
                                                  w.counts, pairs, s->stream));
        KRYL_TRY(w.need_temp(sort_bytes > unique_bytes ? sort_bytes : unique_bytes));
        KRYL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(w.temp, w.temp_bytes, w.pairs, w.unique,
                                                       pairs, 0, 64, s->stream));
        KRYL_CUDA_CHECK(cub::DeviceSelect::Unique(w.temp, w.temp_bytes, w.unique, w.pairs, w.counts,
                                                  pairs, s->stream));
        unsigned long long unique = 0;
        KRYL_TRY(fetch(s, w.counts, &unique));
        m = (int64_t)unique;
    }
    /* gptr[r] = lower_bound(r << 32);  gcol = the low halves */
    aggregate_pair_rows_kernel<<<kryl_cuda_stream_grid(s, (n + 1 > m ? n + 1 : m)),
                                 KRYL_CUDA_THREADS, 0, s->stream>>>(n, m, w.pairs, w.gptr, w.gcol);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_pair_rows_kernel");
    *ptr = w.gptr;
    *col = w.gcol;
    return KRYL_SUCCESS;
}

/* Rounds of a set queued between two looks at its undecided rows: a
 * round after the set is complete returns at once (a launch), while each
 * look leaves the device idle for the host's turn (the last rounds of a
 * set, 10-20 us of work each, waited on the host a round at a time). */
constexpr int MIS2_BATCH = 8;

/* The distance-2 maximal independent set of the rows with neighbours and
 * without an aggregate (aggregate NULL: all), as key states in key. */
static kryl_status mis2(aggregate_work &w, int64_t n, const int64_t *ptr, const int32_t *col,
                        const int32_t *aggregate)
{
    kryl_cuda_state *s = w.s;
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    uint64_t *key = w.key, *m1 = key + n;
    /* key_i = (out or undecided, hash(i), i) */
    aggregate_keys_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, ptr, aggregate, key);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_keys_kernel");
    KRYL_CUDA_CHECK(cudaMemsetAsync(w.settled, 0, (size_t)n, s->stream));
    /* left[r] = the rows undecided before round r of a batch (left[0] nonzero) */
    unsigned long long *left = w.left;
    KRYL_CUDA_CHECK(cudaMemsetAsync(left, 0xff, sizeof *left, s->stream));
    /* the global maximum of the undecided keys joins each round: n rounds at most */
    for (int64_t round = 0;; round += MIS2_BATCH) {
        KRYL_CUDA_CHECK(cudaMemsetAsync(left + 1, 0, MIS2_BATCH * sizeof *left, s->stream));
        for (int r = 0; r < MIS2_BATCH; r++) {
            /* m1_i = max_{j in {i} + N(i)} key_j, where it may still change */
            aggregate_neighbour_max_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                n, ptr, col, key, m1, w.settled, left + r);
            KRYL_CUDA_CHECK_LAUNCH("aggregate_neighbour_max_kernel");
            /* undecided i: m2_i = max_{j in {i} + N(i)} m1_j; in if m2_i = key_i, out if
             * m2_i is in; left[r + 1] = the rest */
            aggregate_decide_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
                n, ptr, col, m1, key, left + r, left + r + 1);
            KRYL_CUDA_CHECK_LAUNCH("aggregate_decide_kernel");
        }
        unsigned long long remaining = 0;
        KRYL_TRY(fetch(s, left + MIS2_BATCH, &remaining));
        if (remaining == 0) return KRYL_SUCCESS;
        if (round > n)
            return KRYL_ERROR(KRYL_ERR_DEVICE,
                              "cuda aggregation: %llu of %lld rows undecided after %lld rounds",
                              remaining, (long long)n, (long long)round + MIS2_BATCH);
        KRYL_CUDA_CHECK(cudaMemcpyAsync(left, left + MIS2_BATCH, sizeof *left,
                                        cudaMemcpyDeviceToDevice, s->stream));
    }
}

/* Phases 1 and 2 after their set: roots (with at least least - 1 free
 * neighbours) numbered from *next in row order, rows without an aggregate
 * joining the root they are or are next to. */
static kryl_status root_aggregates(aggregate_work &w, int64_t n, const int64_t *ptr,
                                   const int32_t *col, int64_t least, int32_t *aggregate,
                                   int64_t *next)
{
    kryl_cuda_state *s = w.s;
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    int32_t *flag = w.flag, *before = flag + n, *root = before + n;
    /* flag_i = i in the set with >= least - 1 neighbours free */
    aggregate_root_flags_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, ptr, col, w.key,
                                                                           aggregate, least, flag);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_root_flags_kernel");
    /* before_i = sum_{k < i} flag_k */
    size_t bytes = 0;
    KRYL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, flag, before, n, s->stream));
    KRYL_TRY(w.need_temp(bytes));
    KRYL_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(w.temp, w.temp_bytes, flag, before, n, s->stream));
    int32_t last[2] = {0, 0};
    KRYL_TRY(fetch(s, before + n - 1, &last[0]));
    KRYL_TRY(fetch(s, flag + n - 1, &last[1]));
    /* root_i = next + before_i where flag_i, else -1 */
    aggregate_root_numbers_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, flag, before, *next,
                                                                             root);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_root_numbers_kernel");
    /* aggregate_i = root_i, or root_j of a neighbour j, where it had none */
    aggregate_join_roots_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, ptr, col, root,
                                                                           aggregate);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_join_roots_kernel");
    *next += (int64_t)last[0] + last[1];
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_amg_aggregate(kryl_context ctx, kryl_matrix A, double theta, bool symmetric,
                                    bool finest, int32_t *aggregate, int64_t *count)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    *count = 0;
    const int64_t n = A->host->csr.nrows;
    if (n == 0) return KRYL_SUCCESS;
    if (n >= INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda aggregation: %lld rows; at most 2^31 - 2", (long long)n);
    aggregate_work w(s);
    bool row_ptr_copy = false;
    int64_t *row_ptr = nullptr;
    int32_t *col_idx = nullptr;
    double *values = nullptr;
    KRYL_TRY(kryl_cuda_matrix_csr_arrays(ctx, A, &row_ptr, &row_ptr_copy, &col_idx, &values));
    if (row_ptr_copy) w.row_ptr = row_ptr;
    const int64_t *ptr = nullptr;
    const int32_t *col = nullptr;
    KRYL_TRY(strength(w, n, row_ptr, col_idx, values, theta, symmetric, &ptr, &col));
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&w.key, 2 * (size_t)n * sizeof *w.key, "aggregation: keys"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.settled, (size_t)n, "aggregation: settled rows"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.left, (MIS2_BATCH + 1) * sizeof *w.left,
                              "aggregation: undecided rows"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.flag, 3 * (size_t)n * sizeof *w.flag,
                              "aggregation: roots"));
    if (w.counts == nullptr)
        KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.counts, sizeof *w.counts, "aggregation: counts"));
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    KRYL_CUDA_CHECK(cudaMemsetAsync(aggregate, 0xff, (size_t)n * sizeof *aggregate, s->stream));
    int64_t next = 0;
    /* phase 1: every root of the set (its neighbours are all free) */
    KRYL_TRY(mis2(w, n, ptr, col, nullptr));
    KRYL_TRY(root_aggregates(w, n, ptr, col, 1, aggregate, &next));
    /* covered = #{i : aggregate_i >= 0} */
    unsigned long long covered = 0;
    KRYL_CUDA_CHECK(cudaMemsetAsync(w.counts, 0, sizeof *w.counts, s->stream));
    aggregate_count_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, aggregate, w.counts);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_count_kernel");
    KRYL_TRY(fetch(s, w.counts, &covered));
    /* phase 2: roots of a set among the rows left, with enough of them free */
    KRYL_TRY(mis2(w, n, ptr, col, aggregate));
    KRYL_TRY(root_aggregates(w, n, ptr, col, amg_secondary_min((int64_t)covered, next, finest),
                             aggregate, &next));
    /* phase 3 reads the aggregates and their sizes as phase 2 left them */
    int32_t *old = w.flag, *size = old + n;
    KRYL_CUDA_CHECK(cudaMemsetAsync(size, 0, (size_t)n * sizeof *size, s->stream));
    /* old = aggregate;  size_a = #{i : aggregate_i = a} */
    aggregate_sizes_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, aggregate, old, size);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_sizes_kernel");
    /* old_i < 0: aggregate_i = the neighbouring aggregate of most links, then smallest, lowest */
    aggregate_leftovers_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, ptr, col, old, size,
                                                                          aggregate);
    KRYL_CUDA_CHECK_LAUNCH("aggregate_leftovers_kernel");
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    *count = next;
    return KRYL_SUCCESS;
}
