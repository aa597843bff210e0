/* The synchronisation-free path of the device triangular solves: the
 * sweep of cuda_syncfree.cuh (Liu, Li, Hou & Vinter, Euro-Par 2016, on
 * rows rather than columns) with x as the published words: one launch for
 * the whole triangle, a group of lanes per row (as the level path), each
 * row solved as soon as the x_j it needs are.  x is filled with an
 * all-ones NaN pattern before the launch (a memset, a memset node in a
 * captured graph, so nothing is reset through the host), and a solved x_i
 * never holds that pattern.  Rows are taken in level order (the rows of a
 * level read none of each other), so no row reads its block's rows from
 * shared memory. */
#include "backends/cuda/cuda_syncfree.cuh"
#include "backends/cuda/cuda_trsv.cuh"

/* The unsigned word of T and the pattern of an unsolved x_i. */
template <typename T> struct word_of;
template <> struct word_of<double> {
    using type = unsigned long long;
    static constexpr type unsolved = ~0ull;
    static constexpr type quiet_nan = 0x7ff8000000000000ull;
    static __device__ double value(type w) { return __longlong_as_double((long long)w); }
    static __device__ type of(double v) { return (type)__double_as_longlong(v); }
};
template <> struct word_of<float> {
    using type = unsigned int;
    static constexpr type unsolved = ~0u;
    static constexpr type quiet_nan = 0x7fc00000u;
    static __device__ float value(type w) { return __uint_as_float(w); }
    static __device__ type of(float v) { return __float_as_uint(v); }
};

/* The solve as a sweep: row i = rows[slot] adds t_ij x_j (in double) */
template <typename T> struct trsv_op {
    using word = typename word_of<T>::type;
    using acc = double;
    static constexpr word unsolved = word_of<T>::unsolved;
    static constexpr bool local = false;
    static constexpr int threads = KRYL_CUDA_THREADS;
    const int32_t *rows;
    const T *val, *diag, *b; /* diag NULL: a unit diagonal */
    word *words;             /* x */
    __device__ int64_t row(int64_t slot) const { return __ldg(&rows[slot]); }
    __device__ bool reads(int64_t, int32_t) const { return true; }
    __device__ double start() const { return 0.0; }
    __device__ void add(double &sum, int64_t k, word w) const
    {
        sum += (double)__ldg(&val[k]) * (double)word_of<T>::value(w);
    }
    /* x_i = (b_i - the row's sum) / t_ii, never the unsolved pattern */
    template <typename Read>
    __device__ word finish(int64_t i, int64_t, int64_t, int lanes, bool solve, double sum,
                           const Read &) const
    {
        const double total =
            kryl_group_reduce(sum, lanes, [](double a, double c) { return a + c; });
        if (!solve) return unsolved;
        const double r = (double)__ldg(&b[i]) - total;
        const word w = word_of<T>::of((T)(diag ? r / (double)__ldg(&diag[i]) : r));
        return w == unsolved ? word_of<T>::quiet_nan : w;
    }
};

/* x_i = (b_i - sum_{j != i} t_ij x_j) / t_ii for every row, each term
 * added once x_j is solved; x starts all unsolved, *ticket at 0 */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void trsv_syncfree_kernel(
    trsv_op<T> op, int64_t n, const int64_t *__restrict__ ptr, const int32_t *__restrict__ col,
    unsigned int *ticket, int lanes)
{
    kryl_syncfree_sweep(op, n, ptr, col, ticket, lanes);
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
        const trsv_op<T> op{D->rows, static_cast<const T *>(D->val),
                            static_cast<const T *>(D->diag), static_cast<const T *>(b),
                            reinterpret_cast<typename trsv_op<T>::word *>(x)};
        trsv_syncfree_kernel<T><<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(op, D->n, D->ptr, D->col,
                                                                           D->ticket, D->lanes);
    });
    KRYL_CUDA_CHECK_LAUNCH("trsv_syncfree_kernel");
    return KRYL_SUCCESS;
}
