/* The synchronisation-free path of the device triangular solves (Liu, Li,
 * Hou & Vinter, "A synchronization-free algorithm for parallel sparse
 * triangular solves", Euro-Par 2016), on rows rather than columns: one
 * launch for the whole triangle, a group of lanes per row (as the level
 * path), each row solved as soon as the x_j it needs are.
 *
 * Readiness is carried by x itself: x is filled with an all-ones NaN
 * pattern before the launch (a memset, a memset node in a captured graph,
 * so nothing is reset through the host), and a solved x_i never holds that
 * pattern.  A lane reads x_j with relaxed loads, which see either the
 * pattern or the final value (an aligned word is written at once), so
 * there is no separate flag to order against the value, and no fence.
 *
 * Forward progress: rows are taken in level order, so a row waits only on
 * rows at earlier positions; blocks take their positions from a ticket
 * counter in the order they start, so those rows belong to blocks that are
 * already running (or done), never to one waiting for a free
 * multiprocessor.  A warp never blocks on one of its lanes: in each round
 * every lane adds the terms whose x_j are ready, groups whose terms are all
 * in are solved, and the warp polls again, so rows of one warp may depend
 * on each other. */
#include <cuda/atomic>

#include "backends/cuda/cuda_trsv.cuh"

/* The unsigned word of T, the unsolved pattern and its atomic view. */
template <typename T> struct word;
template <> struct word<double> {
    using type = unsigned long long;
    static constexpr type unsolved = ~0ull;
    static constexpr type quiet_nan = 0x7ff8000000000000ull;
    static __device__ double value(type w) { return __longlong_as_double((long long)w); }
    static __device__ type of(double v) { return (type)__double_as_longlong(v); }
};
template <> struct word<float> {
    using type = unsigned int;
    static constexpr type unsolved = ~0u;
    static constexpr type quiet_nan = 0x7fc00000u;
    static __device__ float value(type w) { return __uint_as_float(w); }
    static __device__ type of(float v) { return __float_as_uint(v); }
};
template <typename T>
using atomic_word = cuda::atomic_ref<typename word<T>::type, cuda::thread_scope_device>;

/* x_i = (b_i - sum_{j != i} t_ij x_j) / t_ii for every row, each term
 * added once x_j is solved; x starts all unsolved, *ticket at 0 */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void trsv_syncfree_kernel(
    int64_t n, const int32_t *__restrict__ rows, const int64_t *__restrict__ ptr,
    const int32_t *__restrict__ col, const T *__restrict__ val, const T *__restrict__ diag,
    const T *__restrict__ b, T *x, unsigned int *ticket, int lanes)
{
    using W = word<T>;
    __shared__ unsigned int block;
    if (threadIdx.x == 0) block = atomicAdd(ticket, 1u);
    __syncthreads();
    auto *xw = reinterpret_cast<typename W::type *>(x);
    const int64_t slot = ((int64_t)block * blockDim.x + threadIdx.x) / lanes;
    const int lane = (int)(threadIdx.x & (unsigned)(lanes - 1));
    const unsigned int group = lanes == 32 ? 0xffffffffu
                                           : ((1u << lanes) - 1u)
                                                 << ((threadIdx.x & 31u) & ~(unsigned)(lanes - 1));
    bool done = slot >= n;
    const int64_t i = done ? 0 : rows[slot];
    const int64_t end = done ? 0 : ptr[i + 1];
    int64_t k = done ? 0 : ptr[i] + lane;
    double sum = 0.0;
    while (!__all_sync(0xffffffffu, done)) {
        /* sum += t_ij x_j over this lane's next terms whose x_j is solved */
        for (; !done && k < end; k += lanes) {
            const typename W::type w = atomic_word<T>(xw[col[k]]).load(cuda::memory_order_relaxed);
            if (w == W::unsolved) break;
            sum += (double)val[k] * (double)W::value(w);
        }
        const unsigned int in = __ballot_sync(0xffffffffu, done || k >= end);
        const bool solve = !done && (in & group) == group;
        double total = sum;
        for (int offset = lanes / 2; offset > 0; offset /= 2)
            total += __shfl_down_sync(0xffffffffu, total, offset, lanes);
        if (solve && lane == 0) {
            const double r = (double)b[i] - total;
            typename W::type w = W::of((T)(diag ? r / (double)diag[i] : r));
            atomic_word<T>(xw[i]).store(w == W::unsolved ? W::quiet_nan : w,
                                        cuda::memory_order_relaxed);
        }
        done = done || solve;
    }
}

kryl_status kryl_cuda_trsv_syncfree_setup(kryl_cuda_state *s, cuda_trsv *D)
{
    return kryl_cuda_malloc(s, (void **)&D->ticket, sizeof *D->ticket,
                            "the sync-free solve's ticket");
}

kryl_status kryl_cuda_trsv_syncfree(kryl_cuda_state *s, const cuda_trsv *D, const void *b, void *x)
{
    if (D->n == 0) return KRYL_SUCCESS;
    /* ticket = 0;  x = unsolved (all bits set) */
    KRYL_CUDA_CHECK(cudaMemsetAsync(D->ticket, 0, sizeof *D->ticket, s->stream));
    KRYL_CUDA_CHECK(
        cudaMemsetAsync(x, 0xff, (size_t)D->n * kryl_precision_size(D->precision), s->stream));
    const unsigned int grid = kryl_cuda_blocks(D->n * D->lanes, 0x7fffffffu);
    /* x = T^{-1} b in one launch */
    kryl_cuda_with_type(D->precision, [&](auto t) {
        using T = decltype(t);
        trsv_syncfree_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            D->n, D->rows, D->ptr, D->col, static_cast<const T *>(D->val),
            static_cast<const T *>(D->diag), static_cast<const T *>(b), static_cast<T *>(x),
            D->ticket, D->lanes);
    });
    KRYL_CUDA_CHECK_LAUNCH("trsv_syncfree_kernel");
    return KRYL_SUCCESS;
}
