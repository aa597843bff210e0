/* Jones-Plassmann coloring on the device (M. T. Jones and P. E. Plassmann,
 * "A parallel graph coloring heuristic", SIAM J. Sci. Comput. 14 (1993)
 * 654-669) in rounds of three kernels, the omp backend's rounds
 * (omp_color.c) with a thread per row:
 *   reset:    every uncolored row is a candidate and forbids no color;
 *   compete:  over every stored a_ij, i != j: of two uncolored rows the one
 *             that yields (kryl_color_yields) is no candidate; an uncolored
 *             row is forbidden the color of a colored one, both ways;
 *   choose:   a candidate takes its smallest color not forbidden (64 bits
 *             from its base; all 64 taken: base += 64, next round).
 * The rows left are counted each round (one 8-byte fetch).  The result is
 * first fit in the order of decreasing priority: the oracle's
 * (src/order/color_jp.c), the same on every backend.  The grouping by
 * color is a stable radix sort of (color, row) on the color's bits. */
#include <cstring>

#include <cub/cub.cuh>

#include "backends/cuda/cuda_internal.cuh"
#include "order/color_priority.h"

/* Grid-stride loop over i in [0, n). */
#define COLOR_FOR_EACH(i, n)                                                                       \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* color = -1, base = 0 */
__global__ void color_start_kernel(int64_t n, int32_t *color, int32_t *base)
{
    COLOR_FOR_EACH(i, n)
    {
        color[i] = -1;
        base[i] = 0;
    }
}

/* uncolored rows: candidates, nothing forbidden */
__global__ void color_reset_kernel(int64_t n, const int32_t *color, uint64_t *forbid,
                                   unsigned char *cand)
{
    COLOR_FOR_EACH(i, n)
    if (color[i] < 0) {
        forbid[i] = 0;
        cand[i] = 1;
    }
}

/* over row i's couplings: candidates lost, colors forbidden (both ways) */
__global__ void color_compete_kernel(int64_t n, const int64_t *__restrict__ row_ptr,
                                     const int32_t *__restrict__ col_idx,
                                     const int32_t *__restrict__ color,
                                     const int32_t *__restrict__ base, uint64_t *forbid,
                                     unsigned char *cand)
{
    COLOR_FOR_EACH(i, n)
    {
        const int32_t ci = color[i];
        uint64_t mine = 0;
        bool lose = false;
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
            const int32_t j = col_idx[e];
            if (j == i) continue;
            const int32_t cj = color[j];
            if (ci < 0 && cj < 0) {
                /* of two uncolored rows, the one that yields waits (every store is a 0) */
                if (kryl_color_yields(i, j))
                    lose = true;
                else
                    cand[j] = 0;
            } else if (ci < 0) {
                /* i is forbidden j's color */
                if (cj >= base[i] && cj - base[i] < 64) mine |= 1ull << (cj - base[i]);
            } else if (cj < 0 && ci >= base[j] && ci - base[j] < 64) {
                /* j is forbidden i's color */
                atomicOr(reinterpret_cast<unsigned long long *>(&forbid[j]),
                         1ull << (ci - base[j]));
            }
        }
        if (ci >= 0) continue;
        if (mine) atomicOr(reinterpret_cast<unsigned long long *>(&forbid[i]), mine);
        if (lose) cand[i] = 0;
    }
}

/* candidates take their first free color; counts[0] += rows left,
 * counts[1] = max(counts[1], colors used) */
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void color_choose_kernel(int64_t n, int32_t *color,
                                                                         int32_t *base,
                                                                         const uint64_t *forbid,
                                                                         const unsigned char *cand,
                                                                         unsigned long long *counts)
{
    unsigned int left = 0, most = 0;
    COLOR_FOR_EACH(i, n)
    {
        if (color[i] >= 0) continue;
        if (!cand[i] || forbid[i] == ~0ull) {
            /* waits; with all 64 taken it looks at the next 64 */
            if (cand[i]) base[i] += 64;
            left++;
            continue;
        }
        const int32_t c = base[i] + __ffsll((long long)~forbid[i]) - 1;
        color[i] = c;
        most = (unsigned int)c + 1 > most ? (unsigned int)c + 1 : most;
    }
    /* one atomic per warp (blocks are whole warps; every lane gets here) */
    for (int offset = 16; offset > 0; offset >>= 1) {
        left += __shfl_down_sync(0xffffffffu, left, offset);
        const unsigned int other = __shfl_down_sync(0xffffffffu, most, offset);
        most = other > most ? other : most;
    }
    if ((threadIdx.x & 31u) == 0 && left) atomicAdd(&counts[0], (unsigned long long)left);
    if ((threadIdx.x & 31u) == 0 && most) atomicMax(&counts[1], (unsigned long long)most);
}

/* The device blocks of one coloring, freed together. */
struct color_work {
    kryl_cuda_state *s;
    uint64_t *forbid = nullptr;
    int32_t *base = nullptr;
    unsigned char *cand = nullptr;
    unsigned long long *counts = nullptr;
    explicit color_work(kryl_cuda_state *state) : s(state) {}
    ~color_work()
    {
        kryl_cuda_free(s, forbid);
        kryl_cuda_free(s, base);
        kryl_cuda_free(s, cand);
        kryl_cuda_free(s, counts);
    }
};

/* counts (2 values) fetched through the pinned staging buffer. */
static kryl_status fetch_counts(kryl_cuda_state *s, const unsigned long long *counts,
                                unsigned long long *out)
{
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(s->staging, counts, 2 * sizeof *counts, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(out, s->staging, 2 * sizeof *out);
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_color_rows(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, bool symmetric, int32_t *color,
                                 int32_t *ncolors)
{
    (void)symmetric; /* the rounds read each row's own columns and its mirror's alike */
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    *ncolors = 0;
    if (n == 0) return KRYL_SUCCESS;
    KRYL_REQUIRE_ARG(row_ptr);
    KRYL_REQUIRE_ARG(color);
    color_work w(s);
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.forbid, (size_t)n * sizeof *w.forbid,
                              "coloring: forbidden colors"));
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&w.base, (size_t)n * sizeof *w.base, "coloring: color bases"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.cand, (size_t)n, "coloring: candidates"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.counts, 2 * sizeof *w.counts, "coloring: counts"));
    KRYL_CUDA_CHECK(cudaMemsetAsync(w.counts, 0, 2 * sizeof *w.counts, s->stream));
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    color_start_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, color, w.base);
    KRYL_CUDA_CHECK_LAUNCH("color_start_kernel");
    /* each round colors the highest-priority row left or moves its base:
     * n rounds plus a base move per 64 entries bound them */
    int64_t nnz = 0;
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(s->staging, row_ptr + n, sizeof nnz, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    memcpy(&nnz, s->staging, sizeof nnz);
    const int64_t max_rounds = n + nnz / 64 + 2;
    unsigned long long counts[2] = {1, 0};
    int64_t rounds = 0;
    while (counts[0] > 0) {
        if (++rounds > max_rounds)
            return KRYL_ERROR(KRYL_ERR_DEVICE,
                              "cuda coloring: %llu of %lld rows still uncolored after %lld "
                              "rounds",
                              counts[0], (long long)n, (long long)max_rounds);
        KRYL_CUDA_CHECK(cudaMemsetAsync(w.counts, 0, sizeof *w.counts, s->stream));
        color_reset_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, color, w.forbid, w.cand);
        KRYL_CUDA_CHECK_LAUNCH("color_reset_kernel");
        color_compete_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, row_ptr, col_idx, color,
                                                                        w.base, w.forbid, w.cand);
        KRYL_CUDA_CHECK_LAUNCH("color_compete_kernel");
        color_choose_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, color, w.base, w.forbid,
                                                                       w.cand, w.counts);
        KRYL_CUDA_CHECK_LAUNCH("color_choose_kernel");
        KRYL_TRY(fetch_counts(s, w.counts, counts));
    }
    *ncolors = (int32_t)counts[1];
    return KRYL_SUCCESS;
}

/* values[i] = i */
__global__ void color_iota_kernel(int64_t n, int32_t *values)
{
    COLOR_FOR_EACH(i, n) values[i] = (int32_t)i;
}

/* start[c] = the first position of color c in the sorted keys; start[ncolors] = n */
__global__ void color_starts_kernel(int64_t n, const uint32_t *keys, int64_t *start,
                                    int32_t ncolors)
{
    COLOR_FOR_EACH(p, n)
    {
        if (p == 0 || keys[p] != keys[p - 1]) start[keys[p]] = p;
        if (p == 0) start[ncolors] = n;
    }
}

/* The device blocks of one grouping, freed together. */
struct group_work {
    kryl_cuda_state *s;
    uint32_t *keys = nullptr;
    int32_t *rows = nullptr;
    int64_t *start = nullptr;
    void *temp = nullptr;
    explicit group_work(kryl_cuda_state *state) : s(state) {}
    ~group_work()
    {
        kryl_cuda_free(s, keys);
        kryl_cuda_free(s, rows);
        kryl_cuda_free(s, start);
        kryl_cuda_free(s, temp);
    }
};

kryl_status kryl_cuda_color_group(kryl_context ctx, int64_t n, const int32_t *color,
                                  int32_t ncolors, int32_t *perm, int64_t *color_ptr)
{
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    color_ptr[0] = 0;
    if (n == 0) return KRYL_SUCCESS;
    if (ncolors < 1 || n > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda color_group: %lld rows in %d colors, expected 1..2^31-1 rows in "
                          "at least one color",
                          (long long)n, (int)ncolors);
    group_work w(s);
    int bits = 1;
    while (bits < 31 && (1u << bits) < (uint32_t)ncolors) bits++;
    const uint32_t *keys_in = reinterpret_cast<const uint32_t *>(color);
    size_t temp_bytes = 0;
    KRYL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, w.keys, w.rows,
                                                    perm, (int)n, 0, bits, s->stream));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.keys, (size_t)n * sizeof *w.keys,
                              "color grouping: sorted colors"));
    KRYL_TRY(
        kryl_cuda_malloc(s, (void **)&w.rows, (size_t)n * sizeof *w.rows, "color grouping: rows"));
    KRYL_TRY(kryl_cuda_malloc(s, (void **)&w.start, ((size_t)ncolors + 1) * sizeof *w.start,
                              "color grouping: color starts"));
    KRYL_TRY(kryl_cuda_malloc(s, &w.temp, temp_bytes, "color grouping: sort workspace"));
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    color_iota_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, w.rows);
    KRYL_CUDA_CHECK_LAUNCH("color_iota_kernel");
    /* (color, row) sorted by color, stable: rows ascending within a color */
    KRYL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(w.temp, temp_bytes, keys_in, w.keys, w.rows,
                                                    perm, (int)n, 0, bits, s->stream));
    /* every color below ncolors is used (first fit), so each start is set */
    color_starts_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, w.keys, w.start, ncolors);
    KRYL_CUDA_CHECK_LAUNCH("color_starts_kernel");
    KRYL_CUDA_CHECK(cudaMemcpyAsync(color_ptr, w.start, ((size_t)ncolors + 1) * sizeof *color_ptr,
                                    cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    return KRYL_SUCCESS;
}
