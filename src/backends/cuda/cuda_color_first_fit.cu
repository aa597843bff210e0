/* First-fit coloring in the natural order on the device (backend.h,
 * color_first_fit): color_i = the smallest color of none of the rows
 * j < i stored in row i, kryl_color_first_fit_serial's result
 * (src/order/color.c) entry for entry.  Each row depends on its earlier
 * neighbours only, so the coloring is one sweep of cuda_syncfree.cuh in
 * natural order: a lane gathers a 64-bit mask of the colors 0 .. 63 its
 * entries' rows have; the first clear bit of the group's mask is the
 * color; a row whose neighbours hold all 64 goes over its (by then
 * colored) neighbours again for colors 64 .. 127, and so on. */
#include "backends/cuda/cuda_syncfree.cuh"

/* The sweep's operation: the words are the colors, a lane's acc the
 * colors below 64 of its rows so far */
struct first_fit_op {
    using word = unsigned int;
    using acc = unsigned long long;
    static constexpr word unsolved = ~0u;
    static constexpr bool local = true;
    static constexpr int threads = KRYL_SYNCFREE_LOCAL_THREADS;
    const int32_t *col;
    word *words;
    __device__ int64_t row(int64_t slot) const { return slot; }
    __device__ int64_t slot_of(int32_t j) const { return j; }
    __device__ bool reads(int64_t i, int32_t j) const { return j < i; }
    __device__ unsigned long long start() const { return 0; }
    __device__ void add(unsigned long long &seen, int64_t, word color) const
    {
        if (color < 64) seen |= 1ull << color;
    }
    /* the first color no neighbour has, 64 colors at a time */
    template <typename Read>
    __device__ word finish(int64_t i, int64_t first, int64_t end, int lanes, bool solve,
                           unsigned long long seen, const Read &read) const
    {
        const auto either = [](unsigned long long a, unsigned long long b) { return a | b; };
        seen = kryl_group_reduce(seen, lanes, either);
        word base = 0;
        bool full = solve && seen == ~0ull;
        /* every lane of the warp takes part in each window's reduction */
        while (__any_sync(KRYL_FULL_WARP, full)) {
            unsigned long long window = 0;
            if (full) {
                base += 64;
                for (int64_t k = first; k < end; k += lanes) {
                    const int32_t j = col[k];
                    const word c = j < i ? read(j) : unsolved;
                    if (c >= base && c - base < 64) window |= 1ull << (c - base);
                }
            }
            window = kryl_group_reduce(window, lanes, either);
            if (full) seen = window;
            full = full && seen == ~0ull;
        }
        return base + (word)__ffsll((long long)~seen) - 1;
    }
};

/* color[i] of every row (color all unsolved, *ticket 0) */
__global__ __launch_bounds__(first_fit_op::threads) void first_fit_kernel(
    first_fit_op op, int64_t n, const int64_t *__restrict__ ptr, const int32_t *__restrict__ col,
    unsigned int *ticket, int lanes)
{
    kryl_syncfree_sweep(op, n, ptr, col, ticket, lanes);
}

kryl_status kryl_cuda_color_first_fit(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                      const int32_t *col_idx, int32_t *color, int32_t *ncolors)
{
    KRYL_REQUIRE_ARG(ncolors);
    *ncolors = 0;
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (n < 0 || n > INT32_MAX)
        return KRYL_ERROR(KRYL_ERR_INDEX_OVERFLOW,
                          "cuda color_first_fit: %lld rows, expected 0 .. 2^31 - 1", (long long)n);
    if (n == 0) return KRYL_SUCCESS;
    KRYL_REQUIRE_ARG(row_ptr);
    KRYL_REQUIRE_ARG(color);
    unsigned long long *scratch = nullptr;
    KRYL_TRY(kryl_cuda_malloc(s, reinterpret_cast<void **>(&scratch), 2 * sizeof *scratch,
                              "the first-fit coloring's ticket"));
    int64_t entries = 0;
    cudaError_t err =
        cudaMemcpyAsync(&entries, row_ptr + n, sizeof entries, cudaMemcpyDeviceToHost, s->stream);
    /* scratch[0] = the block ticket;  color = unsolved */
    if (err == cudaSuccess) err = cudaMemsetAsync(scratch, 0, sizeof *scratch, s->stream);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(color, 0xff, (size_t)n * sizeof *color, s->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
    const int lanes = kryl_syncfree_lanes(entries, n);
    const first_fit_op op{col_idx, reinterpret_cast<unsigned int *>(color)};
    /* color_i = min { c : no j < i of row i has color c }, one sweep in natural order */
    if (err == cudaSuccess) {
        first_fit_kernel<<<kryl_syncfree_blocks<first_fit_op>(n, lanes), first_fit_op::threads, 0,
                           s->stream>>>(op, n, row_ptr, col_idx,
                                        reinterpret_cast<unsigned int *>(scratch), lanes);
        err = cudaGetLastError();
    }
    kryl_status st = err == cudaSuccess
                         ? KRYL_SUCCESS
                         : kryl_cuda_failed(err, "the first-fit coloring", KRYL_WHERE);
    unsigned int last = 0;
    if (st == KRYL_SUCCESS) st = kryl_cuda_largest_word(s, n, op.words, scratch + 1, &last);
    kryl_cuda_free(s, scratch);
    if (st == KRYL_SUCCESS) *ncolors = (int32_t)last + 1;
    return st;
}
