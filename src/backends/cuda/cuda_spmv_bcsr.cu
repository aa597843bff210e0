/* SpMV of blocked CSR with dense B x B blocks, B = 2 or 4 (Buatois et al.
 * 2009, "Concurrent number cruncher", 2.2.3: register blocking, the B
 * values of x a block needs are loaded once and reused for its B rows).
 * LANES threads share a block row, each taking every LANES-th block: its
 * B*B values (row-major) and its B x values arrive in 16-byte loads, the
 * B row sums are added over the lanes with warp shuffles. */
#include "backends/cuda/cuda_fmt.cuh"

/* v summed over the LANES consecutive lanes of a group (LANES a power of two
 * <= 32, the whole warp present); every lane gets the sum */
template <int LANES> __device__ inline double lanes_sum(double v)
{
#pragma unroll
    for (int offset = LANES / 2; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset, LANES);
    return v;
}

/* y_{B I + r} = alpha sum_k sum_c bval[k][r][c] x[B bcol[k] + c] + beta z for
 * block row I, r < B; block columns past n are padding */
template <typename T, int B, int LANES, typename M>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void bcsr_kernel(
    int64_t nbrows, int64_t n, const int64_t *__restrict__ brow_ptr,
    const int32_t *__restrict__ bcol, const T *__restrict__ bval, const T *x, double alpha,
    double beta, const T *z, T *y, const int32_t *stop)
{
    if (stop && *stop) return;
    const int64_t I = ((int64_t)blockIdx.x * KRYL_CUDA_THREADS + threadIdx.x) / LANES;
    const int lane = (int)(threadIdx.x % LANES);
    /* threads past the last block row stay for the shuffles */
    const int64_t begin = I < nbrows ? __ldg(brow_ptr + I) : 0;
    const int64_t end = I < nbrows ? __ldg(brow_ptr + I + 1) : 0;
    double sum[B] = {};
    for (int64_t k = begin + lane; k < end; k += LANES) {
        T v[B * B], xv[B];
        fmt_load<M::A>(bval + k * (B * B), v);
        const int64_t c0 = (int64_t)fmt_load1<M::A>(bcol + k) * B;
        if (c0 + B <= n) {
            fmt_load<M::X>(x + c0, xv);
        } else {
#pragma unroll
            for (int c = 0; c < B; c++) xv[c] = c0 + c < n ? fmt_load1<M::X>(x + c0 + c) : T(0);
        }
        /* sum_r += sum_c v[r][c] x[c0 + c] */
#pragma unroll
        for (int r = 0; r < B; r++)
#pragma unroll
            for (int c = 0; c < B; c++) sum[r] += (double)v[r * B + c] * (double)xv[c];
    }
#pragma unroll
    for (int r = 0; r < B; r++) sum[r] = lanes_sum<LANES>(sum[r]);
    if (lane != 0 || I >= nbrows) return;
#pragma unroll
    for (int r = 0; r < B; r++)
        if (I * B + r < n) fmt_store(y, z, I * B + r, alpha, beta, sum[r]);
}

template <typename T, int B, typename M>
static void launch_block(const cuda_fmt *m, const cuda_fmt_args *a)
{
    const T *x = static_cast<const T *>(a->x), *z = static_cast<const T *>(a->z);
    const T *val = static_cast<const T *>(m->val);
    T *y = static_cast<T *>(a->y);
    const unsigned int blocks = kryl_cuda_blocks(m->nbrows * m->variant, UINT32_MAX);
#define KRYL_BCSR_LAUNCH(L)                                                                        \
    bcsr_kernel<T, B, L, M><<<blocks, KRYL_CUDA_THREADS, 0, a->stream>>>(                          \
        m->nbrows, m->nrows, m->ptr, m->col, val, x, a->alpha, a->beta, z, y, a->stop)
    switch (m->variant) {
    case 1: KRYL_BCSR_LAUNCH(1); break;
    case 2: KRYL_BCSR_LAUNCH(2); break;
    case 4: KRYL_BCSR_LAUNCH(4); break;
    case 8: KRYL_BCSR_LAUNCH(8); break;
    case 16: KRYL_BCSR_LAUNCH(16); break;
    default: KRYL_BCSR_LAUNCH(32); break;
    }
#undef KRYL_BCSR_LAUNCH
}

kryl_status kryl_cuda_spmv_bcsr(const cuda_fmt *m, kryl_precision p, const cuda_fmt_args *a)
{
    kryl_cuda_with_type(p, [&](auto t) {
        using T = decltype(t);
        fmt_with_loads(m, [&](auto loads) {
            using M = decltype(loads);
            if (m->b == 2)
                launch_block<T, 2, M>(m, a);
            else
                launch_block<T, 4, M>(m, a);
        });
    });
    KRYL_CUDA_CHECK_LAUNCH("the bcsr kernel");
    return KRYL_SUCCESS;
}
