/* The device functions of the cuda backend's CG steps: a guarded ratio,
 * and the terms, coefficients and row updates of a step with one
 * reduction.  Shared by the one-step kernels (cuda_cg.cu) and the kernel
 * that runs many steps in one launch (cuda_cg_resident.cu). */
#ifndef KRYL_BACKENDS_CUDA_CG_CUH
#define KRYL_BACKENDS_CUDA_CG_CUH

#include <math.h>

#include "backends/cuda/cuda_krylov.cuh"
#include "backends/step_rules.h"

/* ratio = num/den, or mark the monitor (thread 0 of block 0) and return false:
 * the monitor stops for `why`, a step rule's verdict on them (as
 * kryl_host_ratio and kryl_host_cg_alpha). */
__device__ inline bool ratio_or_stop(int why, const double *num, const double *den,
                                     kryl_monitor *monitor, double *ratio)
{
    if (why == KRYL_STOP_RUNNING) {
        *ratio = *num / *den;
        return true;
    }
    kryl_cuda_halt(monitor, why);
    return false;
}

/* t += a row's terms of a single-reduction step (KRYL_CG1_*): p q, r r,
 * r q, q q and with JACOBI also r d r, r d q, q d q (d = dinv) */
template <bool JACOBI>
__device__ inline void cg1_add_terms(double *t, double p, double q, double r, double d)
{
    t[KRYL_CG1_PQ] += p * q;
    t[KRYL_CG1_RR] += r * r;
    t[KRYL_CG1_RQ] += r * q;
    t[KRYL_CG1_QQ] += q * q;
    if constexpr (JACOBI) {
        t[KRYL_CG1_RDR] += r * d * r;
        t[KRYL_CG1_RDQ] += r * d * q;
        t[KRYL_CG1_QDQ] += q * d * q;
    }
}

/* A row's residual and direction after a step are rounded as written here,
 * with no contraction left to the compiler: the resident kernel rebuilds its
 * neighbours' p inside another expression, and must get the owner's bits. */

/* r - alpha q: a row's residual after a step */
__device__ inline double cg1_next_r(double r, double q, double alpha)
{
    return __fma_rn(-alpha, q, r);
}

/* dinv r + beta p (JACOBI) or r + beta p: a row's direction after a step,
 * from its new residual r */
template <bool JACOBI>
__device__ inline double cg1_next_p(double r, double p, double dinv, double beta)
{
    return __fma_rn(beta, p, JACOBI ? __dmul_rn(dinv, r) : r);
}

/* Row i of a single-reduction step's update: x += alpha p;  r -= alpha q;
 * p = dinv .* r + beta p (JACOBI) or r + beta p */
template <typename T, bool JACOBI>
__device__ inline void cg1_update_row(int64_t i, double alpha, double beta, T *__restrict__ p,
                                      const T *__restrict__ q, T *__restrict__ x, T *__restrict__ r,
                                      const T *__restrict__ dinv)
{
    x[i] = (T)((double)x[i] + alpha * (double)p[i]);
    const T ri = (T)cg1_next_r((double)r[i], (double)q[i], alpha);
    r[i] = ri;
    const double di = JACOBI ? (double)dinv[i] : 1.0;
    p[i] = (T)cg1_next_p<JACOBI>((double)ri, (double)p[i], di, beta);
}

/* The scalar part of a single-reduction CG step from the summed terms t
 * (kryl_host_cg1_begin is the specification): the exact ||r|| recorded
 * (advance 0), then alpha, beta and the expanded rr'.  False where the step
 * changes nothing.  Every block decides alike from t; only block 0 writes
 * the monitor. */
template <bool JACOBI>
__device__ inline bool cg1_coefficients(const double *t, kryl_monitor *monitor, double *alpha,
                                        double *beta, double *rr_new)
{
    const double rr = t[KRYL_CG1_RR];
    if (monitor) {
        if (blockIdx.x == 0 && threadIdx.x == 0) kryl_monitor_record(monitor, rr, 0);
        if (kryl_record_stop(rr, monitor) != KRYL_STOP_RUNNING) return false;
    }
    const double rz = JACOBI ? t[KRYL_CG1_RDR] : rr;
    /* alpha = rz/p'q */
    if (!ratio_or_stop(kryl_cg_alpha_stop(rz, t[KRYL_CG1_PQ]), &rz, &t[KRYL_CG1_PQ], monitor,
                       alpha))
        return false;
    /* rr' = ||r - alpha q||^2;  rz' = (r - alpha q)'D(r - alpha q) */
    double rr_next, rz_next;
    kryl_cg1_expand(t, JACOBI, *alpha, &rr_next, &rz_next);
    *rr_new = fmax(rr_next, 0.0);
    /* beta = rz'/rz */
    const double rz_clamped = fmax(rz_next, 0.0);
    return ratio_or_stop(kryl_ratio_stop(rz_clamped, rz), &rz_clamped, &rz, monitor, beta);
}

#endif
