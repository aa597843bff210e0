/* Fused conjugate-gradient steps (two reductions a step, or one:
 * cg1_terms and cg1_update) and the convergence monitor of the cuda
 * backend.  The whole iteration stays on the device: coefficients are
 * ratios of device scalars that each kernel divides itself, the two dot
 * products of the x/r update come out of the same pass and the same launch,
 * and the host reads one small monitor every check_interval iterations
 * (Buatois et al., "Concurrent number cruncher", 2009: the CPU fetches one
 * scalar per iteration; here one per check). */
#include <math.h>

#include "backends/cuda/cuda_cg.cuh"
#include "backends/cuda/cuda_reduce.cuh"
#include "backends/step_rules.h"

/* alpha = num/den;  x += alpha p;  r -= alpha q;  z = dinv .* r (JACOBI);
 * rz = r'z (r'r without JACOBI);  rr = r'r */
template <typename T, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void cg_update_xr_kernel(
    int64_t n, const double *num, const double *den, const T *__restrict__ p,
    const T *__restrict__ q, T *__restrict__ x, T *__restrict__ r, const T *__restrict__ dinv,
    T *__restrict__ z, double *rz, double *rr, kryl_monitor *monitor, double *partials,
    unsigned int stride, unsigned int *counter)
{
    double alpha;
    /* the step has not run until the last block says so (cg_update_p's guard);
     * the last block writes only after every block has taken its ticket */
    if (monitor && blockIdx.x == 0 && threadIdx.x == 0) monitor->step_ran = 0;
    /* num may be the rz this kernel writes: every block reads it before taking
     * its ticket, and the last block writes only after all tickets are taken */
    if (kryl_cuda_halted(monitor) ||
        !ratio_or_stop(kryl_cg_alpha_stop(*num, *den), num, den, monitor, &alpha))
        return;
    double sums[2] = {0.0, 0.0}; /* r'z, r'r */
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        x[i] = (T)((double)x[i] + alpha * (double)p[i]);
        const T ri = (T)((double)r[i] - alpha * (double)q[i]);
        r[i] = ri;
        double zi = (double)ri;
        if (JACOBI) {
            const T zt = (T)((double)dinv[i] * (double)ri);
            z[i] = zt;
            zi = (double)zt;
        }
        sums[0] += (double)ri * zi;
        sums[1] += (double)ri * (double)ri;
    }
    if (kryl_grid_sum<2>(sums, partials, stride, counter)) {
        *rz = sums[0];
        *rr = sums[1];
        if (monitor) monitor->step_ran = 1;
    }
}

/* beta = num/den;  p = z + beta p;  then, with rr, block 0 records rr.
 * Guarded by the step's x, r update having run, not by the monitor's stop:
 * the record may stop the monitor before other blocks start, and with no
 * ticket to wait for, the blocks leave as soon as their rows are done
 * (H100, 7-point 160^3 in single precision: 21 us with a ticket, 19 without) */
template <typename T>
__global__ void cg_update_p_kernel(int64_t n, const double *num, const double *den,
                                   const T *__restrict__ z, T *__restrict__ p, const double *rr,
                                   kryl_monitor *monitor)
{
    double beta;
    if ((monitor && !monitor->step_ran) ||
        !ratio_or_stop(kryl_ratio_stop(*num, *den), num, den, monitor, &beta))
        return;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        p[i] = (T)((double)z[i] + beta * (double)p[i]);
    if (rr && blockIdx.x == 0 && threadIdx.x == 0) kryl_monitor_record(monitor, *rr, 1);
}

/* t = {p'q, r'r, r'q, q'q} and with JACOBI also {r'Dr, r'Dq, q'Dq} */
template <typename T, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void cg1_terms_kernel(
    int64_t n, const T *__restrict__ p, const T *__restrict__ q, const T *__restrict__ r,
    const T *__restrict__ dinv, double *t, const kryl_monitor *monitor, double *partials,
    unsigned int stride, unsigned int *counter)
{
    constexpr int N = JACOBI ? KRYL_CG1_TERMS : KRYL_CG1_RDR;
    if (kryl_cuda_halted(monitor)) return;
    double sums[N] = {};
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        cg1_add_terms<JACOBI>(sums, (double)p[i], (double)q[i], (double)r[i],
                              JACOBI ? (double)dinv[i] : 1.0);
    if (kryl_grid_sum<N>(sums, partials, stride, counter))
        for (int k = 0; k < N; k++) t[k] = sums[k];
}

/* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p (JACOBI) or r + beta p;
 * then the last block records rr' (once every block has passed its guard) */
template <typename T, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void cg1_update_kernel(
    int64_t n, const double *t, T *__restrict__ p, const T *__restrict__ q, T *__restrict__ x,
    T *__restrict__ r, const T *__restrict__ dinv, kryl_monitor *monitor, unsigned int *counter)
{
    double alpha, beta, rr_new;
    if (kryl_cuda_halted(monitor) || !cg1_coefficients<JACOBI>(t, monitor, &alpha, &beta, &rr_new))
        return;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        cg1_update_row<T, JACOBI>(i, alpha, beta, p, q, x, r, dinv);
    if (monitor && kryl_last_block(counter) && threadIdx.x == 0)
        kryl_monitor_record(monitor, rr_new, 1);
}

/* the monitor takes rr */
__global__ void monitor_update_kernel(kryl_monitor *monitor, const double *rr, int advance)
{
    kryl_monitor_record(monitor, *rr, advance);
}

kryl_status kryl_cuda_cg_update_xr(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                   kryl_vector p, kryl_vector q, kryl_vector x, kryl_vector r,
                                   kryl_vector dinv, kryl_vector z, kryl_scalar rz, kryl_scalar rr,
                                   kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("cg_update_xr", x, p));
    KRYL_TRY(kryl_cuda_check_vectors("cg_update_xr", x, q));
    KRYL_TRY(kryl_cuda_check_vectors("cg_update_xr", x, r));
    if (dinv) {
        KRYL_TRY(kryl_cuda_check_vectors("cg_update_xr", x, dinv));
        KRYL_TRY(kryl_cuda_check_vectors("cg_update_xr", x, z));
    }
    if (!num.ptr || !den.ptr || !rz.ptr || !rr.ptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg_update_xr: a scalar is NULL");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const unsigned int grid = kryl_cuda_reduce_grid(s, x->n);
    kryl_cuda_with_type(x->precision, [&](auto t) {
        using T = decltype(t);
        auto kernel = dinv ? cg_update_xr_kernel<T, true> : cg_update_xr_kernel<T, false>;
        kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            x->n, num.ptr, den.ptr, kryl_cuda_data<const T>(p), kryl_cuda_data<const T>(q),
            kryl_cuda_data<T>(x), kryl_cuda_data<T>(r), kryl_cuda_data<const T>(dinv),
            dinv ? kryl_cuda_data<T>(z) : nullptr, rz.ptr, rr.ptr, monitor, s->partials,
            s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("cg_update_xr_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_cg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                  kryl_vector p, kryl_scalar rr, kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("cg_update_p", p, z));
    if (!num.ptr || !den.ptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg_update_p: a scalar is NULL");
    if (rr.ptr && monitor == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg_update_p: rr needs a monitor");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (p->n == 0 && rr.ptr == nullptr) return KRYL_SUCCESS;
    kryl_cuda_with_type(p->precision, [&](auto t) {
        using T = decltype(t);
        cg_update_p_kernel<T><<<kryl_cuda_stream_grid(s, p->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            p->n, num.ptr, den.ptr, kryl_cuda_data<const T>(z), kryl_cuda_data<T>(p), rr.ptr,
            monitor);
    });
    KRYL_CUDA_CHECK_LAUNCH("cg_update_p_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_cg1_terms(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector r,
                                kryl_vector dinv, kryl_scalar t, const kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("cg1_terms", r, p));
    KRYL_TRY(kryl_cuda_check_vectors("cg1_terms", r, q));
    if (dinv) KRYL_TRY(kryl_cuda_check_vectors("cg1_terms", r, dinv));
    if (!t.ptr) return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg1_terms: t is NULL");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const unsigned int grid = kryl_cuda_reduce_grid(s, r->n);
    kryl_cuda_with_type(r->precision, [&](auto tag) {
        using T = decltype(tag);
        auto kernel = dinv ? cg1_terms_kernel<T, true> : cg1_terms_kernel<T, false>;
        /* t = {p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq]} */
        kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            r->n, kryl_cuda_data<const T>(p), kryl_cuda_data<const T>(q),
            kryl_cuda_data<const T>(r), kryl_cuda_data<const T>(dinv), t.ptr, monitor, s->partials,
            s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("cg1_terms_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_cg1_update(kryl_context ctx, kryl_scalar t, kryl_vector p, kryl_vector q,
                                 kryl_vector x, kryl_vector r, kryl_vector dinv,
                                 kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("cg1_update", r, p));
    KRYL_TRY(kryl_cuda_check_vectors("cg1_update", r, q));
    KRYL_TRY(kryl_cuda_check_vectors("cg1_update", r, x));
    if (dinv) KRYL_TRY(kryl_cuda_check_vectors("cg1_update", r, dinv));
    if (!t.ptr) return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda cg1_update: t is NULL");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const unsigned int grid = kryl_cuda_stream_grid(s, r->n); /* a block at least: the monitor */
    kryl_cuda_with_type(r->precision, [&](auto tag) {
        using T = decltype(tag);
        auto kernel = dinv ? cg1_update_kernel<T, true> : cg1_update_kernel<T, false>;
        /* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p */
        kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(
            r->n, t.ptr, kryl_cuda_data<T>(p), kryl_cuda_data<const T>(q), kryl_cuda_data<T>(x),
            kryl_cuda_data<T>(r), kryl_cuda_data<const T>(dinv), monitor, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("cg1_update_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_monitor_update(kryl_context ctx, kryl_monitor *monitor, kryl_scalar rr,
                                     int advance)
{
    KRYL_REQUIRE_ARG(monitor);
    if (rr.ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda monitor_update: rr is NULL");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    monitor_update_kernel<<<1, 1, 0, s->stream>>>(monitor, rr.ptr, advance);
    KRYL_CUDA_CHECK_LAUNCH("monitor_update_kernel");
    return KRYL_SUCCESS;
}
