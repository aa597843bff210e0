/* The device functions of pipelined (P)CG's fused step (Ghysels & Vanroose
 * 2014; section V-B of Tiwari & Vadhiyar): the step's coefficients, a row's
 * old values and its update.  Shared by the one-step kernels
 * (cuda_pipecg.cu) and the kernel that runs many steps in one launch
 * (cuda_pipecg_resident.cu). */
#ifndef KRYL_BACKENDS_CUDA_PIPECG_CUH
#define KRYL_BACKENDS_CUDA_PIPECG_CUH

#include <math.h>

#include "backends/cuda/cuda_krylov.cuh"

/* The vectors of one step, typed.  next receives the updated vector that
 * the step's SpMV reads (m = dinv .* w with Jacobi, w without a
 * preconditioner): the vector itself for the plain update, a second buffer
 * for the fused one, whose other rows still read the old values. */
template <typename T> struct pipecg_args {
    T *x, *r, *u, *w, *m, *p, *s, *q, *z, *next;
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
    /* gamma = r'M^-1 r > 0 for r != 0 when M is positive definite */
    if (!(gamma > 0.0)) {
        kryl_cuda_halt(monitor, KRYL_STOP_INDEFINITE_PC);
        return false;
    }
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

/* The step's alpha and beta, recorded in coef; false: the kernel does nothing. */
__device__ inline bool pipecg_begin(const double *sc, int restart, double *coef,
                                    kryl_monitor *monitor, double *alpha, double *beta, bool *fresh)
{
    if (kryl_cuda_halted(monitor) || !pipecg_coefficients(sc, restart, monitor, alpha, beta, fresh))
        return false;
    if (coef && monitor && blockIdx.x == 0 && threadIdx.x == 0) {
        coef[2 * monitor->iteration] = *alpha;
        coef[2 * monitor->iteration + 1] = *beta;
    }
    return true;
}

/* Row i's values of a step's vectors, as doubles (each exactly a T). */
struct pipecg_state {
    double w, r, u, m, z, s, p, q, x, dinv;
};

/* Row i's values before a step (loaded before the row's product in a fused
 * step, so that they are in flight with it); z, s, p, q are read even
 * where a fresh step does not use them. */
template <typename T, bool PC, bool JACOBI>
__device__ inline pipecg_state pipecg_load(int64_t i, const pipecg_args<T> &v)
{
    pipecg_state o;
    o.w = (double)v.w[i];
    o.r = (double)v.r[i];
    o.u = PC ? (double)v.u[i] : o.r;
    o.m = PC ? (double)v.m[i] : o.w;
    o.z = (double)v.z[i];
    o.s = (double)v.s[i];
    o.p = (double)v.p[i];
    o.q = PC ? (double)v.q[i] : 0.0;
    o.x = (double)v.x[i];
    o.dinv = JACOBI ? (double)v.dinv[i] : 0.0;
    return o;
}

/* Row i's values after a step, from its old values o and n_i = (A m)_i:
 * z = n + beta z;  q = m + beta q;  s = w + beta s;  p = u + beta p;
 * x += alpha p;  r -= alpha s;  u -= alpha q;  w -= alpha z;  m = dinv .* w;
 * sums += (r_i u_i, w_i u_i, r_i r_i); each value rounded to T as stored.
 * PC: u, m, q exist (else they are r, w, s);  JACOBI: m = dinv .* w here
 * (else with a preconditioner m is left for the caller). */
template <typename T, bool PC, bool JACOBI>
__device__ inline pipecg_state pipecg_advance(const pipecg_state &o, double ni, double alpha,
                                              double beta, bool fresh, double (&sums)[3])
{
    pipecg_state n = o;
    n.z = (double)(T)(fresh ? ni : ni + beta * o.z);
    n.s = (double)(T)(fresh ? o.w : o.w + beta * o.s);
    n.p = (double)(T)(fresh ? o.u : o.u + beta * o.p);
    n.q = PC ? (double)(T)(fresh ? o.m : o.m + beta * o.q) : n.s;
    n.x = (double)(T)(o.x + alpha * n.p);
    n.r = (double)(T)(o.r - alpha * n.s);
    n.w = (double)(T)(o.w - alpha * n.z);
    n.u = PC ? (double)(T)(o.u - alpha * n.q) : n.r;
    n.m = JACOBI ? (double)(T)(o.dinv * n.w) : (PC ? o.m : n.w);
    sums[0] += n.r * n.u;
    sums[1] += n.w * n.u;
    sums[2] += n.r * n.r;
    return n;
}

/* Row i's values stored, the updated SpMV input (m with Jacobi, w without
 * a preconditioner) to v.next. */
template <typename T, bool PC, bool JACOBI>
__device__ inline void pipecg_store(int64_t i, const pipecg_state &n, const pipecg_args<T> &v)
{
    v.z[i] = (T)n.z;
    v.s[i] = (T)n.s;
    v.p[i] = (T)n.p;
    v.x[i] = (T)n.x;
    v.r[i] = (T)n.r;
    if (PC) {
        v.w[i] = (T)n.w;
        v.q[i] = (T)n.q;
        v.u[i] = (T)n.u;
    } else {
        v.next[i] = (T)n.w;
    }
    if (JACOBI) v.next[i] = (T)n.m;
}

/* Row i of a step: its values advanced and stored. */
template <typename T, bool PC, bool JACOBI>
__device__ inline void pipecg_row(int64_t i, double ni, const pipecg_state &o, double alpha,
                                  double beta, bool fresh, const pipecg_args<T> &v,
                                  double (&sums)[3])
{
    pipecg_store<T, PC, JACOBI>(i, pipecg_advance<T, PC, JACOBI>(o, ni, alpha, beta, fresh, sums),
                                v);
}

/* The step's vectors typed; next as pipecg_args says. */
template <typename T>
static inline pipecg_args<T> kryl_cuda_pipecg_args(const kryl_pipecg_vectors *v, kryl_vector dinv,
                                                   kryl_vector next)
{
    return {kryl_cuda_data<T>(v->x), kryl_cuda_data<T>(v->r),       kryl_cuda_data<T>(v->u),
            kryl_cuda_data<T>(v->w), kryl_cuda_data<T>(v->m),       kryl_cuda_data<T>(v->p),
            kryl_cuda_data<T>(v->s), kryl_cuda_data<T>(v->q),       kryl_cuda_data<T>(v->z),
            kryl_cuda_data<T>(next), kryl_cuda_data<const T>(v->n), kryl_cuda_data<const T>(dinv)};
}

/* The vectors, the scalars and the monitor of a step are usable (record
 * needs a monitor). */
kryl_status kryl_cuda_check_pipecg_step(const char *op, const kryl_pipecg_vectors *v,
                                        kryl_vector dinv, kryl_scalar sc, kryl_monitor *monitor,
                                        bool record);

#endif
