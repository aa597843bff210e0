/* The symbolic part of IC(0) and ILU(0) on the device (the ops
 * factor_analyse and factor_schedule), from A's CSR where it is stored,
 * with no host copy of an index array; the host's kryl_factor_pattern_build
 * and kryl_order_levels are the specification, and the result is theirs
 * entry for entry.
 *
 * The pattern: each row's kept entries counted, the counts summed
 * (cub's scan), each row's entries copied with their sources; IC's
 * transposed pattern from a stable radix sort of (column, row) pairs, so
 * rows come out ascending.  The level schedules as in the analysis of a
 * synchronisation-free triangular solve (Liu, Li, Hou & Vinter, Euro-Par
 * 2016; cuSPARSE's csrsv2 analysis), and by the same sweep as the
 * sync-free solve (cuda_syncfree.cuh): a level is that solve in the
 * (max, +) semiring, level_i = max_j (level_j + 1) over the rows j that
 * row i reads, rows taken in the triangle's solve order; then the rows
 * grouped by level with the color grouping's stable sort (cuda_color.cu),
 * ascending within a level. */
#include <cub/device/device_radix_sort.cuh>
#include <stdlib.h>

#include "backends/cuda/cuda_factor.cuh"
#include "backends/cuda/cuda_scan.cuh"
#include "backends/cuda/cuda_syncfree.cuh"

extern "C" {
#include "factor/factor_internal.h"
#include "factor/factor_pattern.h"
}

constexpr unsigned long long NONE = ~0ull;

#define ANALYSE_FOR_EACH(i, n)                                                                     \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                      \
         i += (int64_t)gridDim.x * blockDim.x)

/* count[i] = the kept entries of row i (IC: columns <= i; ILU: all);
 * first[0] = min over the rows without a diagonal entry */
__global__ void pattern_count_kernel(int64_t n, bool ic, const int64_t *__restrict__ row_ptr,
                                     const int32_t *__restrict__ col_idx, int64_t *count,
                                     unsigned long long *first)
{
    ANALYSE_FOR_EACH(i, n)
    {
        int64_t kept = 0;
        bool diagonal = false;
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
            const int64_t c = col_idx[e];
            kept += !ic || c <= i;
            diagonal = diagonal || c == i;
        }
        count[i] = kept;
        if (!diagonal) atomicMin(first, (unsigned long long)i);
    }
}

/* row i of C = the kept entries of row i of A, each with its position in
 * A (source) and c_ii's position (diag); lower[0] += entries left of it */
__global__ void pattern_fill_kernel(int64_t n, bool ic, const int64_t *__restrict__ row_ptr,
                                    const int32_t *__restrict__ col_idx,
                                    const int64_t *__restrict__ ptr, int32_t *__restrict__ col,
                                    int64_t *__restrict__ source, int64_t *__restrict__ diag,
                                    unsigned long long *lower)
{
    unsigned long long left = 0;
    ANALYSE_FOR_EACH(i, n)
    {
        int64_t at = ptr[i];
        for (int64_t e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
            const int32_t c = col_idx[e];
            if (ic && c > i) continue;
            if (c == i) {
                diag[i] = at;
                left += (unsigned long long)(at - ptr[i]);
            }
            col[at] = c;
            source[at++] = e;
        }
    }
    if (left > 0) atomicAdd(lower, left);
}

/* row[e] = the row of entry e of C; count[col[e]] += 1 (count zeroed) */
__global__ void entry_rows_kernel(int64_t n, const int64_t *__restrict__ ptr,
                                  const int32_t *__restrict__ col, int32_t *__restrict__ row,
                                  int64_t *count)
{
    ANALYSE_FOR_EACH(i, n)
    for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) {
        row[e] = (int32_t)i;
        atomicAdd(reinterpret_cast<unsigned long long *>(&count[col[e]]), 1ull);
    }
}

/* A row's level as a sweep in the (max, +) semiring: level_i = max over
 * the rows j that row i reads of level_j + 1 (0 where it reads none),
 * rows in the triangle's solve order (lower: i = slot; upper: i = n - 1 -
 * slot), their words the levels */
struct level_op {
    using word = unsigned int;
    using acc = unsigned int;
    static constexpr word unsolved = ~0u;
    static constexpr bool local = true;
    static constexpr int threads = KRYL_SYNCFREE_LOCAL_THREADS;
    int64_t n;
    bool lower;
    word *words;
    __device__ int64_t row(int64_t slot) const { return lower ? slot : n - 1 - slot; }
    __device__ int64_t slot_of(int32_t j) const { return lower ? j : n - 1 - j; }
    __device__ bool reads(int64_t i, int32_t j) const { return lower ? j < i : j > i; }
    __device__ unsigned int start() const { return 0; }
    __device__ void add(unsigned int &top, int64_t, word level) const
    {
        top = level + 1 > top ? level + 1 : top;
    }
    template <typename Read>
    __device__ word finish(int64_t, int64_t, int64_t, int lanes, bool, unsigned int top,
                           const Read &) const
    {
        return kryl_group_reduce(top, lanes,
                                 [](unsigned int a, unsigned int b) { return a > b ? a : b; });
    }
};

/* level[i] of every row of the triangle (level all unsolved, *ticket 0) */
__global__ __launch_bounds__(level_op::threads) void level_kernel(level_op op,
                                                                  const int64_t *__restrict__ ptr,
                                                                  const int32_t *__restrict__ col,
                                                                  unsigned int *ticket, int lanes)
{
    kryl_syncfree_sweep(op, op.n, ptr, col, ticket, lanes);
}

/* *dst = count items of device memory for `what`. */
template <typename V>
static kryl_status device_array(kryl_cuda_state *s, V **dst, int64_t count, const char *what)
{
    return kryl_cuda_malloc(s, reinterpret_cast<void **>(dst),
                            (size_t)(count > 0 ? count : 1) * sizeof(V), what);
}

/* IC's U = L^T by rows: uptr from the column counts, ucol the rows of
 * each column ascending (a stable sort of the entries by column). */
static kryl_status transpose(kryl_cuda_state *s, cuda_factor *F)
{
    const int64_t n = F->n, nnz = F->nnz;
    KRYL_TRY(device_array(s, &F->uptr, n + 1, "the transposed pattern's offsets"));
    KRYL_TRY(device_array(s, &F->ucol, nnz, "the transposed pattern's columns"));
    int32_t *row = nullptr, *keys = nullptr;
    int64_t *count = nullptr;
    void *temp = nullptr;
    int bits = 1;
    while (bits < 31 && ((int64_t)1 << bits) < n) bits++;
    size_t bytes = 0;
    const uint32_t *keys_in = reinterpret_cast<const uint32_t *>(F->col);
    cudaError_t err =
        cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, reinterpret_cast<uint32_t *>(keys),
                                        row, F->ucol, (int)nnz, 0, bits, s->stream);
    kryl_status st =
        err == cudaSuccess ? KRYL_SUCCESS : kryl_cuda_failed(err, "cub::SortPairs", KRYL_WHERE);
    if (st == KRYL_SUCCESS) st = device_array(s, &row, nnz, "the factor's entry rows");
    if (st == KRYL_SUCCESS) st = device_array(s, &keys, nnz, "the factor's sorted columns");
    if (st == KRYL_SUCCESS) st = device_array(s, &count, n, "the factor's column counts");
    if (st == KRYL_SUCCESS) st = kryl_cuda_malloc(s, &temp, bytes, "the transposition's sort");
    if (st == KRYL_SUCCESS) {
        err = cudaMemsetAsync(count, 0, (size_t)n * sizeof *count, s->stream);
        /* row[e] = the row of entry e;  count[j] = the entries of column j */
        entry_rows_kernel<<<kryl_cuda_stream_grid(s, n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            n, F->ptr, F->col, row, count);
        if (err == cudaSuccess) err = cudaGetLastError();
        /* ucol = the rows sorted by column, stable: ascending within a column */
        if (err == cudaSuccess)
            err = cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in,
                                                  reinterpret_cast<uint32_t *>(keys), row, F->ucol,
                                                  (int)nnz, 0, bits, s->stream);
        if (err != cudaSuccess) st = kryl_cuda_failed(err, "the pattern's transpose", KRYL_WHERE);
    }
    if (st == KRYL_SUCCESS) st = kryl_cuda_running_sums(s, count, F->uptr, n);
    kryl_cuda_free(s, row);
    kryl_cuda_free(s, keys);
    kryl_cuda_free(s, count);
    kryl_cuda_free(s, temp);
    return st;
}

/* F's pattern from A's CSR, *lower the entries left of the diagonal; *missing = the first row
 * without a diagonal entry (-1: none), the pattern left unfinished when there is one. */
static kryl_status build_pattern(kryl_cuda_state *s, const int64_t *row_ptr, const int32_t *col_idx,
                                 cuda_factor *F, int64_t *missing, int64_t *lower)
{
    const int64_t n = F->n;
    KRYL_TRY(device_array(s, &F->ptr, n + 1, "the factor's row offsets"));
    KRYL_TRY(device_array(s, &F->diag, n, "the factor's diagonal positions"));
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&F->status),
                              4 * sizeof(unsigned long long), "the factor's pivot status"));
    /* status[0] = no row missing its diagonal;  status[1] = 0 entries left of it */
    KRYL_CUDA_CHECK(cudaMemsetAsync(F->status, 0xff, sizeof(unsigned long long), s->stream));
    KRYL_CUDA_CHECK(cudaMemsetAsync(F->status + 1, 0, sizeof(unsigned long long), s->stream));
    if (n == 0) {
        /* no rows: offsets {0}, and IC's transposed pattern the same */
        KRYL_CUDA_CHECK(cudaMemsetAsync(F->ptr, 0, sizeof *F->ptr, s->stream));
        if (F->ic) {
            KRYL_TRY(device_array(s, &F->uptr, 1, "the transposed pattern's offsets"));
            KRYL_TRY(device_array(s, &F->ucol, 0, "the transposed pattern's columns"));
            KRYL_CUDA_CHECK(cudaMemsetAsync(F->uptr, 0, sizeof *F->uptr, s->stream));
        }
        return KRYL_SUCCESS;
    }
    const unsigned int grid = kryl_cuda_stream_grid(s, n);
    /* diag = each row's kept entries, for now */
    pattern_count_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(n, F->ic, row_ptr, col_idx,
                                                                    F->diag, F->status);
    KRYL_CUDA_CHECK_LAUNCH("pattern_count_kernel");
    KRYL_TRY(kryl_cuda_running_sums(s, F->diag, F->ptr, n));
    unsigned long long first = NONE;
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(&first, F->status, sizeof first, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(&F->nnz, F->ptr + n, sizeof F->nnz, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaMemcpyAsync(&F->a_nnz, row_ptr + n, sizeof F->a_nnz, cudaMemcpyDeviceToHost,
                                    s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    *missing = first == NONE ? -1 : (int64_t)first;
    if (*missing >= 0) return KRYL_SUCCESS;
    KRYL_TRY(device_array(s, &F->col, F->nnz, "the factor's column indices"));
    KRYL_TRY(device_array(s, &F->source, F->nnz, "the factor's value sources"));
    /* C's rows, c_ii's positions and the count of L's entries */
    pattern_fill_kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
        n, F->ic, row_ptr, col_idx, F->ptr, F->col, F->source, F->diag, F->status + 1);
    KRYL_CUDA_CHECK_LAUNCH("pattern_fill_kernel");
    if (F->ic) KRYL_TRY(transpose(s, F));
    unsigned long long left = 0;
    KRYL_CUDA_CHECK(
        cudaMemcpyAsync(&left, F->status + 1, sizeof left, cudaMemcpyDeviceToHost, s->stream));
    KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    *lower = (int64_t)left;
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_factor_analyse(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                     const int32_t *col_idx, bool ic, const char *who,
                                     kryl_factor_shape *shape, void **handle)
{
    KRYL_REQUIRE_ARG(handle);
    *handle = nullptr;
    KRYL_REQUIRE_ARG(shape);
    const kryl_factor_kind kind = ic ? KRYL_FACTOR_IC0 : KRYL_FACTOR_ILU0;
    if (n < 0 || n > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW, "%s: %lld rows: expected 0 .. 2^31 - 1", who,
                          (long long)n);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    int64_t entries = 0;
    if (n > 0) {
        KRYL_CUDA_CHECK(cudaMemcpyAsync(&entries, row_ptr + n, sizeof entries,
                                        cudaMemcpyDeviceToHost, s->stream));
        KRYL_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    }
    /* cub's scans and sorts count items in an int */
    if (entries > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "%s: %lld entries: the device analysis takes at most 2^31 - 1", who,
                          (long long)entries);
    cuda_factor *F = static_cast<cuda_factor *>(calloc(1, sizeof *F));
    if (F == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cuda factor_analyse: out of memory");
    F->ic = ic;
    F->n = n;
    F->stored_sources = true;
    int64_t missing = -1, lower = 0;
    kryl_status st = build_pattern(s, row_ptr, col_idx, F, &missing, &lower);
    if (st == KRYL_SUCCESS && missing >= 0) st = kryl_factor_no_diagonal_error(kind, who, missing);
    if (st == KRYL_SUCCESS) st = kryl_cuda_factor_workspace(s, F);
    if (st != KRYL_SUCCESS) {
        kryl_cuda_factor_free(s, F);
        return st;
    }
    *shape = kryl_factor_shape{kind, n, F->a_nnz, ic ? F->nnz : lower, ic ? F->nnz : F->nnz - lower,
                               0,    0};
    *handle = F;
    return KRYL_SUCCESS;
}

/* lv = the level schedule of the lower or upper triangle of (ptr, col). */
static kryl_status schedule(kryl_context ctx, kryl_cuda_state *s, int64_t n, bool lower,
                            const int64_t *ptr, const int32_t *col, int64_t entries, int32_t *level,
                            unsigned long long *scratch, cuda_schedule *lv)
{
    lv->nlevels = 0;
    if (n > 0) {
        /* scratch[0] = the block ticket;  level = unsolved */
        KRYL_CUDA_CHECK(cudaMemsetAsync(level, 0xff, (size_t)n * sizeof *level, s->stream));
        KRYL_CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof *scratch, s->stream));
        const int lanes = kryl_syncfree_lanes(entries, n);
        const level_op op{n, lower, reinterpret_cast<unsigned int *>(level)};
        /* level_i = max_{j read by row i} level_j + 1, one sweep in solve order */
        level_kernel<<<kryl_syncfree_blocks<level_op>(n, lanes), level_op::threads, 0, s->stream>>>(
            op, ptr, col, reinterpret_cast<unsigned int *>(scratch), lanes);
        KRYL_CUDA_CHECK_LAUNCH("level_kernel");
        unsigned int top = 0;
        KRYL_TRY(kryl_cuda_largest_word(s, n, op.words, scratch + 1, &top));
        lv->nlevels = (int64_t)top + 1;
    }
    lv->level_ptr = static_cast<int64_t *>(malloc(((size_t)lv->nlevels + 1) * sizeof(int64_t)));
    if (lv->level_ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY,
                          "cuda factor_schedule: cannot allocate %lld levels",
                          (long long)lv->nlevels);
    KRYL_TRY(device_array(s, &lv->rows, n, "a triangle's level order"));
    /* rows grouped by level as rows are by color, ascending within one */
    return kryl_cuda_color_group(ctx, n, level, (int32_t)lv->nlevels, lv->rows, lv->level_ptr);
}

kryl_status kryl_cuda_factor_schedule(kryl_context ctx, void *handle, kryl_factor_shape *shape)
{
    KRYL_REQUIRE_ARG(handle);
    KRYL_REQUIRE_ARG(shape);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cuda_factor *F = static_cast<cuda_factor *>(handle);
    if (F->levels[0].level_ptr || F->levels[1].level_ptr)
        return KRYL_ERROR(KRYL_ERR_INTERNAL, "cuda factor_schedule: the schedules exist already");
    int32_t *level = nullptr;
    KRYL_TRY(device_array(s, &level, F->n, "the factor's row levels"));
    /* L: C's rows (ILU: the part left of the diagonal); U: the transposed
     * pattern (IC) or C's rows right of the diagonal (ILU) */
    kryl_status st =
        schedule(ctx, s, F->n, true, F->ptr, F->col, F->nnz, level, F->status, &F->levels[0]);
    if (st == KRYL_SUCCESS)
        st = schedule(ctx, s, F->n, false, F->ic ? F->uptr : F->ptr, F->ic ? F->ucol : F->col,
                      F->nnz, level, F->status, &F->levels[1]);
    kryl_cuda_free(s, level);
    shape->nlevels_L = (int32_t)F->levels[0].nlevels;
    shape->nlevels_U = (int32_t)F->levels[1].nlevels;
    return st;
}
