/* Pipelined (P)CG's step on the cuda backend as ONE kernel (section V-B of
 * Tiwari & Vadhiyar, "Efficient executions of pipelined conjugate gradient
 * method on heterogeneous architectures": the vector updates, the Jacobi
 * preconditioner and the three dot products fused, each vector loaded once),
 * with alpha and beta computed inside it from device scalars and the dots
 * completed by the single-launch deterministic reduction; and dot2, two dot
 * products sharing one pass over z.  Arithmetic in double, rounded once
 * when stored, as the ref backend does. */
#include <math.h>

#include "backends/cuda/cuda_krylov.cuh"
#include "backends/cuda/cuda_monitor.cuh"

/* The vectors of one step, typed. */
template <typename T> struct pipecg_args {
    T *x, *r, *u, *w, *m, *p, *s, *q, *z;
    const T *n, *dinv;
};

/* alpha and beta of a step from sc (Ghysels & Vanroose 2014, Alg. 2 of Tiwari
 * & Vadhiyar), or false after stopping the monitor.  *fresh: the recurrences
 * restart (beta = 0, old p, s, q, z not read). */
__device__ inline bool pipecg_coefficients(const double *c, int restart, kryl_monitor *monitor,
                                           double *alpha, double *beta, bool *fresh)
{
    const int checked = KRYL_PIPECG_SCALARS - (restart ? 2 : 0);
    for (int i = 0; i < checked; i++)
        if (!isfinite(c[i])) {
            kryl_cuda_halt(monitor, KRYL_STOP_NAN);
            return false;
        }
    const double gamma = c[KRYL_PIPECG_GAMMA], delta = c[KRYL_PIPECG_DELTA];
    const double gamma_old = c[KRYL_PIPECG_GAMMA_OLD], alpha_old = c[KRYL_PIPECG_ALPHA_OLD];
    double b = 0.0, den = delta;
    bool f = restart || !(gamma_old > 0.0) || !(alpha_old > 0.0);
    if (!f) {
        /* beta = gamma/gamma_old;  alpha = gamma/(delta - beta gamma/alpha_old) */
        b = gamma / gamma_old;
        den = delta - b * gamma / alpha_old;
        if (!isfinite(b) || !isfinite(den)) {
            kryl_cuda_halt(monitor, KRYL_STOP_NAN);
            return false;
        }
        /* a denominator spoilt by rounding (Cools et al. 2018): restart the recurrence */
        if (!(den > 0.0)) f = true;
    }
    if (f) {
        b = 0.0;
        den = delta;
    }
    if (!(den > 0.0)) {
        kryl_cuda_halt(monitor, KRYL_STOP_BREAKDOWN);
        return false;
    }
    const double a = gamma / den;
    if (!isfinite(a)) {
        kryl_cuda_halt(monitor, KRYL_STOP_NAN);
        return false;
    }
    *alpha = a;
    *beta = b;
    *fresh = f;
    return true;
}

/* z = n + beta z;  q = m + beta q;  s = w + beta s;  p = u + beta p;
 * x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z;  m = dinv .* w;
 * (gamma, delta, rr) = (r'u, w'u, r'r);  record: the monitor takes rr.
 * PC: u, m, q exist (else they are r, w, s);  JACOBI: m = dinv .* w here. */
template <typename T, bool PC, bool JACOBI>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void pipecg_kernel(
    int64_t len, double *sc, int restart, pipecg_args<T> v, double *coef, kryl_monitor *monitor,
    bool record, double *partials, unsigned int stride, unsigned int *counter)
{
    double alpha, beta;
    bool fresh;
    /* sc is read by every block before its ticket and written by the last
     * block after all tickets are taken */
    if (kryl_cuda_halted(monitor) ||
        !pipecg_coefficients(sc, restart, monitor, &alpha, &beta, &fresh))
        return;
    if (coef && monitor && blockIdx.x == 0 && threadIdx.x == 0) {
        coef[2 * monitor->iteration] = alpha;
        coef[2 * monitor->iteration + 1] = beta;
    }
    double sums[3] = {0.0, 0.0, 0.0}; /* r'u, w'u, r'r */
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const double ni = (double)v.n[i], wi = (double)v.w[i];
        const double ri = (double)v.r[i];
        const double ui = PC ? (double)v.u[i] : ri;
        const double mi = PC ? (double)v.m[i] : wi;
        const T zt = (T)(fresh ? ni : ni + beta * (double)v.z[i]);
        const T st = (T)(fresh ? wi : wi + beta * (double)v.s[i]);
        const T pt = (T)(fresh ? ui : ui + beta * (double)v.p[i]);
        T qt = st;
        if (PC) qt = (T)(fresh ? mi : mi + beta * (double)v.q[i]);
        const T xt = (T)((double)v.x[i] + alpha * (double)pt);
        const T rt = (T)(ri - alpha * (double)st);
        const T wt = (T)(wi - alpha * (double)zt);
        T ut = rt;
        if (PC) ut = (T)(ui - alpha * (double)qt);
        v.z[i] = zt;
        v.s[i] = st;
        v.p[i] = pt;
        v.x[i] = xt;
        v.r[i] = rt;
        v.w[i] = wt;
        if (PC) {
            v.q[i] = qt;
            v.u[i] = ut;
        }
        if (JACOBI) v.m[i] = (T)((double)v.dinv[i] * (double)wt);
        sums[0] += (double)rt * (double)ut;
        sums[1] += (double)wt * (double)ut;
        sums[2] += (double)rt * (double)rt;
    }
    if (kryl_grid_sum<3>(sums, partials, stride, counter)) {
        sc[KRYL_PIPECG_GAMMA_OLD] = sc[KRYL_PIPECG_GAMMA];
        sc[KRYL_PIPECG_ALPHA_OLD] = alpha;
        sc[KRYL_PIPECG_GAMMA] = sums[0];
        sc[KRYL_PIPECG_DELTA] = sums[1];
        sc[KRYL_PIPECG_RR] = sums[2];
        if (record) kryl_cuda_monitor_record(monitor, sums[2], 1);
    }
}

/* out = (x'z, y'z) */
template <typename T>
__global__ __launch_bounds__(KRYL_CUDA_THREADS) void dot2_kernel(
    int64_t len, const T *__restrict__ x, const T *__restrict__ y, const T *__restrict__ z,
    double *out, double *partials, unsigned int stride, unsigned int *counter)
{
    double sums[2] = {0.0, 0.0};
    KRYL_CUDA_GRID_LOOP(i, len)
    {
        const double zi = (double)z[i];
        sums[0] += (double)x[i] * zi;
        sums[1] += (double)y[i] * zi;
    }
    if (kryl_grid_sum<2>(sums, partials, stride, counter)) {
        out[0] = sums[0];
        out[1] = sums[1];
    }
}

kryl_status kryl_cuda_check_scalar(const char *op, const char *name, kryl_scalar scalar)
{
    if (scalar.ptr == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda %s: the scalar %s is NULL", op, name);
    return KRYL_SUCCESS;
}

/* The vectors of a step: all present as the preconditioner requires, alike. */
static kryl_status check_pipecg_vectors(const kryl_pipecg_vectors *v, kryl_vector dinv)
{
    if (v == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda pipecg_update: the vectors are NULL");
    const kryl_vector always[] = {v->r, v->w, v->n, v->p, v->s, v->z};
    for (kryl_vector other : always)
        KRYL_TRY(kryl_cuda_check_vectors("pipecg_update", v->x, other));
    const bool pc = v->u != nullptr;
    if (pc != (v->m != nullptr) || pc != (v->q != nullptr) || (dinv && !pc))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "cuda pipecg_update: u, m and q must all be given (a preconditioner) or "
                          "all be NULL, and dinv needs them");
    const kryl_vector preconditioned[] = {v->u, v->m, v->q};
    if (pc)
        for (kryl_vector other : preconditioned)
            KRYL_TRY(kryl_cuda_check_vectors("pipecg_update", v->x, other));
    if (dinv) KRYL_TRY(kryl_cuda_check_vectors("pipecg_update", v->x, dinv));
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                    const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                    kryl_monitor *monitor, bool record)
{
    KRYL_TRY(check_pipecg_vectors(v, dinv));
    KRYL_TRY(kryl_cuda_check_scalar("pipecg_update", "sc", sc));
    if (record && monitor == nullptr)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "cuda pipecg_update: record needs a monitor");
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    const unsigned int grid = kryl_cuda_reduce_grid(s, v->x->n);
    const bool pc = v->u != nullptr;
    kryl_cuda_with_type(v->x->precision, [&](auto t) {
        using T = decltype(t);
        pipecg_args<T> a = {
            kryl_cuda_data<T>(v->x),       kryl_cuda_data<T>(v->r),      kryl_cuda_data<T>(v->u),
            kryl_cuda_data<T>(v->w),       kryl_cuda_data<T>(v->m),      kryl_cuda_data<T>(v->p),
            kryl_cuda_data<T>(v->s),       kryl_cuda_data<T>(v->q),      kryl_cuda_data<T>(v->z),
            kryl_cuda_data<const T>(v->n), kryl_cuda_data<const T>(dinv)};
        auto kernel = dinv ? pipecg_kernel<T, true, true>
                           : (pc ? pipecg_kernel<T, true, false> : pipecg_kernel<T, false, false>);
        kernel<<<grid, KRYL_CUDA_THREADS, 0, s->stream>>>(v->x->n, sc.ptr, restart ? 1 : 0, a, coef,
                                                          monitor, record, s->partials,
                                                          s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("pipecg_kernel");
    return KRYL_SUCCESS;
}

kryl_status kryl_cuda_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                           kryl_scalar out)
{
    KRYL_TRY(kryl_cuda_check_vectors("dot2", z, x));
    KRYL_TRY(kryl_cuda_check_vectors("dot2", z, y));
    KRYL_TRY(kryl_cuda_check_scalar("dot2", "out", out));
    kryl_cuda_state *s = nullptr;
    KRYL_TRY(kryl_cuda_enter(ctx, &s));
    kryl_cuda_with_type(z->precision, [&](auto t) {
        using T = decltype(t);
        dot2_kernel<T><<<kryl_cuda_reduce_grid(s, z->n), KRYL_CUDA_THREADS, 0, s->stream>>>(
            z->n, kryl_cuda_data<const T>(x), kryl_cuda_data<const T>(y),
            kryl_cuda_data<const T>(z), out.ptr, s->partials, s->reduce_blocks, s->counter);
    });
    KRYL_CUDA_CHECK_LAUNCH("dot2_kernel");
    return KRYL_SUCCESS;
}
