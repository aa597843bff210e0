/* Small guarded operations of the Krylov methods on the cuda backend: the
 * flexible-CG direction update, normalisation by a device norm, and the
 * reset of an inner solve's monitor from the outer one (one thread, so an
 * inner solve needs no host round trip).  Arithmetic in double, rounded
 * once when stored. */
#include <math.h>

#include "backends/cuda/cuda_krylov.cuh"

/* Flexible CG (Notay 2000; Golub & Ye 1999): p = z - (num/den) p;  den <= 0
 * stops with BREAKDOWN, a non-finite operand with NAN. */
template <typename T>
__global__ void fcg_p_kernel(int64_t len, const double *num, const double *den,
                             const T *__restrict__ z, T *__restrict__ p, kryl_monitor *monitor)
{
    if (kryl_cuda_halted(monitor)) return;
    const double a = *num, b = *den;
    if (!isfinite(a) || !isfinite(b) || !(b > 0.0)) {
        kryl_cuda_halt(monitor, isfinite(a) && isfinite(b) ? KRYL_STOP_BREAKDOWN : KRYL_STOP_NAN);
        return;
    }
    const double c = a / b;
    KRYL_CUDA_GRID_LOOP(i, len) p[i] = (T)((double)z[i] - c * (double)p[i]);
}

/* v = v / sqrt(vv); vv = 0 or not finite leaves v unchanged */
template <typename T>
__global__ void normalize_kernel(int64_t len, T *v, const double *vv, const kryl_monitor *monitor)
{
    if (kryl_cuda_halted(monitor)) return;
    const double norm = sqrt(*vv);
    if (!(norm > 0.0) || !isfinite(norm)) return;
    KRYL_CUDA_GRID_LOOP(i, len) v[i] = (T)((double)v[i] / norm);
}

/* inner->stop = CONVERGED when the outer monitor has stopped; else RUNNING
 * with inner->tol2 = max(factor * rr, outer->tol2 / 4) (rr NULL: factor). */
__global__ void monitor_restart_kernel(kryl_monitor *inner, const kryl_monitor *outer,
                                       const double *rr, double factor)
{
    if (outer && outer->stop != KRYL_STOP_RUNNING) {
        inner->stop = KRYL_STOP_CONVERGED;
        return;
    }
    inner->stop = KRYL_STOP_RUNNING;
    /* tol2 = max(factor ||r||^2, (tol_outer / 2)^2), or factor */
    inner->tol2 = rr ? fmax(factor * *rr, outer ? 0.25 * outer->tol2 : 0.0) : factor;
}

kryl_status kryl_cuda_fcg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den,
                                   kryl_vector z, kryl_vector p, kryl_monitor *monitor)
{
    KRYL_TRY(kryl_cuda_check_vectors("fcg_update_p", p, z));
    KRYL_TRY(kryl_cuda_check_scalar("fcg_update_p", "num", num));
    KRYL_TRY(kryl_cuda_check_scalar("fcg_update_p", "den", den));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(p->precision, [&](auto t) {
        using T = decltype(t);
        fcg_p_kernel<T><<<kryl_cuda_stream_grid(s, p->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            p->n, num.ptr, den.ptr, kryl_cuda_data<const T>(z), kryl_cuda_data<T>(p), monitor);
    });
    KRYL_CUDA_CHECK_LAUNCH("fcg_p_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_normalize(kryl_context ctx, kryl_vector v, kryl_scalar vv,
                                kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(v);
    KRYL_TRY(kryl_cuda_check_scalar("normalize", "vv", vv));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    if (v->n == 0) return KRYL_SUCCESS;
    kryl_cuda_with_type(v->precision, [&](auto t) {
        using T = decltype(t);
        normalize_kernel<T><<<kryl_cuda_stream_grid(s, v->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            v->n, kryl_cuda_data<T>(v), vv.ptr, monitor);
    });
    KRYL_CUDA_CHECK_LAUNCH("normalize_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_monitor_restart(kryl_context ctx, kryl_monitor *inner,
                                      const kryl_monitor *outer, kryl_scalar rr, double factor)
{
    KRYL_REQUIRE_ARG(inner);
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    monitor_restart_kernel<<<1, 1, 0, s->stream>>>(inner, outer, rr.ptr, factor);
    KRYL_CUDA_CHECK_LAUNCH("monitor_restart_kernel");
    return KRYL_SUCCESS;
}
