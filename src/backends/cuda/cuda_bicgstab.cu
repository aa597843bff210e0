/* BiCGSTAB's three fused steps on the cuda backend (van der Vorst, SIAM J.
 * Sci. Stat. Comput. 13, 1992; right-preconditioned as in Saad, "Iterative
 * Methods for Sparse Linear Systems", Alg. 7.7): each one kernel that
 * computes its coefficient from device scalars, stops the monitor on a
 * breakdown or NaN before writing anything, applies the Jacobi
 * preconditioner in the same pass, and (update_xr) reduces (r, r) and
 * (r^, r) with the single-launch deterministic reduction.  Scalars at the
 * KRYL_BICG_* offsets of sc; arithmetic in double, rounded once when stored. */
#include <math.h>

#include "backends/cuda/cuda_krylov.cuh"
#include "backends/step_rules.h"

/* alpha = rho/rv, or false after stopping the monitor (rv = 0: BREAKDOWN). */
__device__ inline bool bicg_alpha(const double *c, kryl_monitor *monitor, double *alpha)
{
    const double rho = c[KRYL_BICG_RHO], rv = c[KRYL_BICG_RV];
    int32_t why = KRYL_STOP_RUNNING;
    if (!isfinite(rho) || !isfinite(rv))
        why = KRYL_STOP_NAN;
    else if (rv == 0.0)
        why = KRYL_STOP_BREAKDOWN;
    else if (!isfinite(rho / rv))
        why = KRYL_STOP_NAN;
    if (why != KRYL_STOP_RUNNING) {
        kryl_cuda_halt(monitor, why);
        return false;
    }
    *alpha = rho / rv;
    return true;
}

/* alpha = rho/(r^, v);  r -= alpha v (r becomes s);  s_hat = dinv .* s (JACOBI) */
template <typename T, bool JACOBI>
__global__ void bicg_s_kernel(int64_t len, double *sc, T *__restrict__ r, const T *__restrict__ v,
                              const T *__restrict__ dinv, T *__restrict__ s_hat,
                              kryl_monitor *monitor)
{
    double alpha;
    if (kryl_cuda_halted(monitor) || !bicg_alpha(sc, monitor, &alpha)) return;
    /* the kernel does not read alpha's slot: any one thread may store it */
    if (blockIdx.x == 0 && threadIdx.x == 0) sc[KRYL_BICG_ALPHA] = alpha;
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const T si = (T)((double)r[i] - alpha * (double)v[i]);
        r[i] = si;
        if (JACOBI) s_hat[i] = (T)((double)dinv[i] * (double)si);
    }
}

/* omega = ts/tt (0 when tt = 0);  x += alpha p_hat + omega s_hat;  r -= omega t;
 * (rr, rho_new) = (r'r, r^'r).  s_hat may be r and p_hat may be p: s_hat is
 * read before r is written, and neither is declared unaliased. */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void bicg_xr_kernel(
    int64_t len, double *sc, T *__restrict__ x, T *r, const T *p_hat, const T *s_hat,
    const T *__restrict__ t, const T *__restrict__ r_hat, kryl_monitor *monitor, double *partials,
    unsigned int stride, unsigned int *counter)
{
    if (kryl_cuda_halted(monitor)) return;
    const double ts = sc[KRYL_BICG_TS], tt = sc[KRYL_BICG_TT], alpha = sc[KRYL_BICG_ALPHA];
    /* omega = (t, s)/(t, t); t = 0 (s = 0, or A singular) gives omega = 0 */
    const double omega = tt > 0.0 ? ts / tt : 0.0;
    if (!isfinite(ts) || !isfinite(tt) || !isfinite(alpha) || !isfinite(omega)) {
        kryl_cuda_halt(monitor, KRYL_STOP_NAN);
        return;
    }
    double sums[2] = {0.0, 0.0}; /* r'r, r^'r */
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const double si = (double)s_hat[i];
        x[i] = (T)((double)x[i] + alpha * (double)p_hat[i] + omega * si);
        const T ri = (T)((double)r[i] - omega * (double)t[i]);
        r[i] = ri;
        sums[0] += (double)ri * (double)ri;
        sums[1] += (double)r_hat[i] * (double)ri;
    }
    if (kryl_grid_sum<2>(sums, partials, stride, counter)) {
        sc[KRYL_BICG_OMEGA] = omega;
        sc[KRYL_BICG_RR] = sums[0];
        sc[KRYL_BICG_RHO_NEW] = sums[1];
    }
}

/* beta = (rho_new/rho)(alpha/omega);  p = r + beta (p - omega v);  p_hat = dinv .* p
 * (JACOBI);  rho = rho_new, stored by the last block once every block has read rho. */
template <typename T, bool JACOBI>
__global__ void bicg_p_kernel(int64_t len, double *sc, T *__restrict__ p, const T *__restrict__ r,
                              const T *__restrict__ v, const T *__restrict__ dinv,
                              T *__restrict__ p_hat, kryl_monitor *monitor, unsigned int *counter)
{
    if (kryl_cuda_halted(monitor)) return;
    const double rho = sc[KRYL_BICG_RHO], rho_new = sc[KRYL_BICG_RHO_NEW];
    const double alpha = sc[KRYL_BICG_ALPHA], omega = sc[KRYL_BICG_OMEGA];
    double beta = 0.0;
    /* (r^, r) at rounding level or omega = 0: the next alpha or beta is undefined */
    const int32_t why =
        kryl_bicg_p_stop(sc, kryl_unit_roundoff(sizeof(T) == 4 ? KRYL_SINGLE : KRYL_DOUBLE));
    if (why == KRYL_STOP_RUNNING) beta = (rho_new / rho) * (alpha / omega);
    if (why != KRYL_STOP_RUNNING) {
        kryl_cuda_halt(monitor, why);
        return;
    }
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const T pi = (T)((double)r[i] + beta * ((double)p[i] - omega * (double)v[i]));
        p[i] = pi;
        if (JACOBI) p_hat[i] = (T)((double)dinv[i] * (double)pi);
    }
    if (kryl_cuda_last_block(counter)) sc[KRYL_BICG_RHO] = rho_new;
}

kryl_status kryl_cuda_bicgstab_update_s(kryl_context ctx, kryl_scalar sc, kryl_vector r,
                                        kryl_vector v, kryl_vector dinv, kryl_vector s_hat,
                                        kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_s", r, v));
    if (dinv) {
        KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_s", r, dinv));
        KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_s", r, s_hat));
    }
    KRYL_TRY(kryl_cuda_check_scalar("bicgstab_update_s", "sc", sc));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(r->precision, [&](auto t) {
        using T = decltype(t);
        auto kernel = dinv ? bicg_s_kernel<T, true> : bicg_s_kernel<T, false>;
        kernel<<<kryl_cuda_stream_grid(s, r->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            r->n, sc.ptr, kryl_cuda_data<T>(r), kryl_cuda_data<const T>(v),
            kryl_cuda_data<const T>(dinv), dinv ? kryl_cuda_data<T>(s_hat) : nullptr, monitor);
    });
    KRYL_CUDA_CHECK_LAUNCH("bicg_s_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_bicgstab_update_xr(kryl_context ctx, kryl_scalar sc, kryl_vector x,
                                         kryl_vector r, kryl_vector p_hat, kryl_vector s_hat,
                                         kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor)
{
    const kryl_vector others[] = {r, p_hat, s_hat, t, r_hat};
    for (kryl_vector other : others)
        KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_xr", x, other));
    KRYL_TRY(kryl_cuda_check_scalar("bicgstab_update_xr", "sc", sc));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(x->precision, [&](auto tag) {
        using T = decltype(tag);
        bicg_xr_kernel<T><<<kryl_cuda_reduce_grid(s, x->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            x->n, sc.ptr, kryl_cuda_data<T>(x), kryl_cuda_data<T>(r),
            kryl_cuda_data<const T>(p_hat), kryl_cuda_data<const T>(s_hat),
            kryl_cuda_data<const T>(t), kryl_cuda_data<const T>(r_hat), monitor, s->partials,
            s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("bicg_xr_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_bicgstab_update_p(kryl_context ctx, kryl_scalar sc, kryl_vector p,
                                        kryl_vector r, kryl_vector v, kryl_vector dinv,
                                        kryl_vector p_hat, kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_p", p, r));
    KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_p", p, v));
    if (dinv) {
        KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_p", p, dinv));
        KRYL_TRY(kryl_cuda_check_vectors("bicgstab_update_p", p, p_hat));
    }
    KRYL_TRY(kryl_cuda_check_scalar("bicgstab_update_p", "sc", sc));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(p->precision, [&](auto t) {
        using T = decltype(t);
        auto kernel = dinv ? bicg_p_kernel<T, true> : bicg_p_kernel<T, false>;
        kernel<<<kryl_cuda_stream_grid(s, p->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            p->n, sc.ptr, kryl_cuda_data<T>(p), kryl_cuda_data<const T>(r),
            kryl_cuda_data<const T>(v), kryl_cuda_data<const T>(dinv),
            dinv ? kryl_cuda_data<T>(p_hat) : nullptr, monitor, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("bicg_p_kernel");
    return KRYL_SUCCESS;
}
