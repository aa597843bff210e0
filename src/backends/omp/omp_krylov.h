/* The omp backend's operations of the Krylov methods beyond CG (pipelined
 * CG, BiCGSTAB, GMRES, flexible CG), semantics in backend.h, and the guard
 * helpers their files share.  The serial operations on a handful of host
 * scalars (GMRES's least-squares problem, inner-solve monitors) are the ref
 * backend's: omp memory is host memory, and one implementation of them
 * serves both. */
#ifndef KRYL_BACKENDS_OMP_OMP_KRYLOV_H
#define KRYL_BACKENDS_OMP_OMP_KRYLOV_H

#include <math.h>
#include <stdbool.h>

#include "backends/host_step.h"
#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_krylov.h"

/* Rows of one cache-resident chunk of the basis operations: a part is
 * swept chunk by chunk, each chunk of w (4 KiB of doubles) read
 * from memory once and reused from L1 for every basis vector. */
#define KRYL_OMP_BASIS_CHUNK 512

/* A loop body inlined at every call, so that calls passing constant flags
 * become loops specialised for them. */
#if defined(__GNUC__)
#define KRYL_OMP_INLINE inline __attribute__((always_inline))
#else
#define KRYL_OMP_INLINE inline
#endif

/* omp_krylov.c */
kryl_status kryl_omp_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                   const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                   kryl_monitor *monitor, bool record);
kryl_status kryl_omp_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                          kryl_scalar out);
kryl_status kryl_omp_bicgstab_update_s(kryl_context ctx, kryl_scalar sc, kryl_vector r,
                                       kryl_vector v, kryl_vector dinv, kryl_vector s_hat,
                                       kryl_monitor *monitor);
kryl_status kryl_omp_bicgstab_update_xr(kryl_context ctx, kryl_scalar sc, kryl_vector x,
                                        kryl_vector r, kryl_vector p_hat, kryl_vector s_hat,
                                        kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor);
kryl_status kryl_omp_bicgstab_update_p(kryl_context ctx, kryl_scalar sc, kryl_vector p,
                                       kryl_vector r, kryl_vector v, kryl_vector dinv,
                                       kryl_vector p_hat, kryl_monitor *monitor);
kryl_status kryl_omp_fcg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                  kryl_vector p, kryl_monitor *monitor);

/* omp_basis.c */
kryl_status kryl_omp_multi_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar h,
                               kryl_monitor *monitor);
kryl_status kryl_omp_multi_axpy(kryl_context ctx, kryl_vector V, int k, double alpha, kryl_scalar h,
                                kryl_vector w, kryl_scalar ww, kryl_monitor *monitor);
kryl_status kryl_omp_normalize(kryl_context ctx, kryl_vector v, kryl_scalar vv,
                               kryl_monitor *monitor);

/* No vector the operation writes (bit i of `written` for list[i]) shares
 * storage with another of the non-NULL vectors in list (omp_krylov.c). */
kryl_status kryl_omp_check_distinct(const char *op, const kryl_vector *list, int count,
                                    unsigned written);

/* Optional vectors share storage (both non-NULL and non-empty). */
static inline bool kryl_omp_overlap(kryl_vector a, kryl_vector b)
{
    return a != NULL && b != NULL && a->n > 0 && a->data == b->data;
}

#endif
