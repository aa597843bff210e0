/* A single-reduction CG step after q = A p in ONE cooperative launch: the
 * terms of cg1_terms, their sum over the grid and over the ranks of one
 * host (kryl_peer_block_sum, by the block that finishes the grid's sum,
 * inside the grid barrier), then cg1_update.  Two kernels on one GPU, three
 * over ranks, each with its ramp and tail, become one: 7-point 256^3 on an
 * H200, 0.816 -> 0.803 ms an iteration (docs/BENCHMARKS.md). */
#include "backends/cuda/cuda_cg.cuh"
#include "backends/cuda/cuda_peer.cuh"
#include "backends/cuda/cuda_reduce.cuh"
#include "backends/cuda/cuda_resident.cuh"

/* The terms summed over the ranks: by the last block of the grid's sum. */
struct peer_totals {
    kryl_peer_group peers;
    int count;
    __device__ void operator()(double *totals) const
    {
        if (peers.size > 1) kryl_peer_block_sum(totals, count, peers.rank, peers.size, peers.boxes);
    }
};

/* t = {p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq]} summed over the grid and the
 * ranks;  then, as cg1_update: x += alpha p;  r -= alpha q;  p = dinv .* r +
 * beta p (JACOBI) or r + beta p;  the last block records rr'.  The update
 * takes the rows from the last: the terms' pass has just read the last
 * ones, which may still be in L2. */
template <typename T, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void cg1_step_kernel(
    int64_t n, T *__restrict__ p, const T *__restrict__ q, T *__restrict__ x, T *__restrict__ r,
    const T *__restrict__ dinv, double *t, kryl_monitor *monitor, double *partials,
    unsigned int stride, unsigned int *counter, unsigned int *generation, kryl_peer_group peers)
{
    constexpr int N = JACOBI ? KRYL_CG1_TERMS : KRYL_CG1_RDR;
    /* a stop is seen alike by every block and every rank (it follows from the summed terms) */
    if (kryl_cuda_halted(monitor)) return;
    const unsigned int target = *(volatile unsigned int *)generation + 1;
    const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    double terms[N] = {};
    for (int64_t i = first; i < n; i += step)
        cg1_add_terms<JACOBI>(terms, (double)p[i], (double)q[i], (double)r[i],
                              JACOBI ? (double)dinv[i] : 1.0);
    /* t = the sum of terms over the grid, then over the ranks */
    kryl_resident_sum<N>(terms, partials, stride, counter, generation, target, t,
                         peer_totals{peers, N});
    double alpha, beta, rr_new;
    if (!cg1_coefficients<JACOBI>(terms, monitor, &alpha, &beta, &rr_new)) return;
    for (int64_t j = first; j < n; j += step)
        cg1_update_row<T, JACOBI>(n - 1 - j, alpha, beta, p, q, x, r, dinv);
    if (monitor && kryl_last_block(counter) && threadIdx.x == 0)
        kryl_monitor_record(monitor, rr_new, 1);
}

extern "C" kryl_status kryl_cuda_cg1_step_ranks(kryl_context ctx, kryl_vector p, kryl_vector q,
                                                kryl_vector x, kryl_vector r, kryl_vector dinv,
                                                kryl_scalar t, kryl_monitor *monitor,
                                                const kryl_peer_group *peers)
{
    KRYL_TRY(kryl_cuda_check_vectors("cg1_step", r, p));
    KRYL_TRY(kryl_cuda_check_vectors("cg1_step", r, q));
    KRYL_TRY(kryl_cuda_check_vectors("cg1_step", r, x));
    if (dinv) KRYL_TRY(kryl_cuda_check_vectors("cg1_step", r, dinv));
    if (!t.ptr) return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg1_step: t is NULL");
    const kryl_peer_group one = {0, 1, nullptr};
    const kryl_peer_group group = peers ? *peers : one;
    if (group.size < 1 || group.size > KRYL_PEER_MAX_RANKS || group.rank < 0 ||
        group.rank >= group.size || (group.size > 1 && group.boxes == nullptr))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg1_step: rank %d of %d ranks",
                          group.rank, group.size);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    cudaError_t launched = cudaSuccess;
    bool cooperative = false;
    kryl_cuda_with_type(r->precision, [&](auto tag) {
        using T = decltype(tag);
        auto kernel = dinv ? cg1_step_kernel<T, true> : cg1_step_kernel<T, false>;
        /* a block at least: the sum over ranks and the monitor's record */
        const int64_t wanted = r->n > 0 ? (r->n + KRYL_CUDA_THREADS - 1) / KRYL_CUDA_THREADS : 1;
        const unsigned int grid = kryl_resident_blocks(s, kernel, wanted);
        cooperative = grid > 0;
        if (!cooperative) return;
        /* t = the terms over the ranks;  x += alpha p;  r -= alpha q;  p = dinv .* r + beta p */
        launched = kryl_resident_launch(
            s, kernel, grid, r->n, kryl_cuda_data<T>(p), kryl_cuda_data<const T>(q),
            kryl_cuda_data<T>(x), kryl_cuda_data<T>(r), kryl_cuda_data<const T>(dinv), t.ptr,
            monitor, s->partials, s->reduce_blocks, s->counter, s->generation, group);
    });
    KRYL_CUDA_CHECK(launched);
    if (cooperative) return KRYL_SUCCESS;
    /* a device without cooperative launches: the same in three launches */
    KRYL_TRY(kryl_cuda_cg1_terms(ctx, p, q, r, dinv, t, monitor));
    if (group.size > 1) /* t = sum over the ranks of t */
        KRYL_TRY(kryl_cuda_peer_sum(s->stream, t.ptr, dinv ? KRYL_CG1_TERMS : KRYL_CG1_RDR,
                                    group.rank, group.size, group.boxes));
    return kryl_cuda_cg1_update(ctx, t, p, q, x, r, dinv, monitor);
}

kryl_status kryl_cuda_cg1_step(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector x,
                               kryl_vector r, kryl_vector dinv, kryl_scalar t,
                               kryl_monitor *monitor)
{
    /* t = p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq];  the update */
    return kryl_cuda_cg1_step_ranks(ctx, p, q, x, r, dinv, t, monitor, nullptr);
}
