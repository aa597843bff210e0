/* The ref backend's operations of the Krylov methods beyond CG's fused
 * updates (single-reduction CG, pipelined CG, BiCGSTAB, GMRES, flexible CG, inner-solve monitors):
 * the specification the other backends follow (see backend.h). */
#ifndef KRYL_REF_KRYLOV_H
#define KRYL_REF_KRYLOV_H

#include "backends/backend.h"

kryl_status kryl_ref_cg1_terms(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector r,
                               kryl_vector dinv, kryl_scalar t, const kryl_monitor *monitor);
kryl_status kryl_ref_cg1_update(kryl_context ctx, kryl_scalar t, kryl_vector p, kryl_vector q,
                                kryl_vector x, kryl_vector r, kryl_vector dinv,
                                kryl_monitor *monitor);
kryl_status kryl_ref_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                   const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                   kryl_monitor *monitor, bool record);
kryl_status kryl_ref_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                          kryl_scalar out);
kryl_status kryl_ref_bicgstab_update_s(kryl_context ctx, kryl_scalar sc, kryl_vector r,
                                       kryl_vector v, kryl_vector dinv, kryl_vector s_hat,
                                       kryl_monitor *monitor);
kryl_status kryl_ref_bicgstab_update_xr(kryl_context ctx, kryl_scalar sc, kryl_vector x,
                                        kryl_vector r, kryl_vector p_hat, kryl_vector s_hat,
                                        kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor);
kryl_status kryl_ref_bicgstab_update_p(kryl_context ctx, kryl_scalar sc, kryl_vector p,
                                       kryl_vector r, kryl_vector v, kryl_vector dinv,
                                       kryl_vector p_hat, kryl_monitor *monitor);
kryl_status kryl_ref_multi_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar h,
                               kryl_monitor *monitor);
kryl_status kryl_ref_multi_axpy(kryl_context ctx, kryl_vector V, int k, double alpha, kryl_scalar h,
                                kryl_vector w, kryl_scalar ww, kryl_monitor *monitor);
kryl_status kryl_ref_normalize(kryl_context ctx, kryl_vector v, kryl_scalar vv,
                               kryl_monitor *monitor);
kryl_status kryl_ref_gmres_cycle_start(kryl_context ctx, const kryl_gmres_ls *ls, kryl_scalar rr,
                                       kryl_monitor *monitor);
kryl_status kryl_ref_gmres_givens(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                  kryl_monitor *monitor);
kryl_status kryl_ref_gmres_solve(kryl_context ctx, const kryl_gmres_ls *ls);
/* R's column k (already holding H's column k): the rotations 0..k-1, then
 * rotation k that zeroes its subdiagonal, applied to gk = g[k] before it:
 * g[k] = cs gk, g[k+1] = -sn gk, rr = g[k+1]^2, count = k+1.  Returns
 * KRYL_STOP_NAN or _BREAKDOWN (zero pivot) having changed no rotation, g,
 * rr or count, else KRYL_STOP_RUNNING.  Shared by gmres_givens and the
 * DCGS2 column (ref_dcgs2.c). */
int kryl_ref_givens_column(const kryl_gmres_ls *ls, int k, double gk);
kryl_status kryl_ref_fcg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                  kryl_vector p, kryl_monitor *monitor);
kryl_status kryl_ref_monitor_restart(kryl_context ctx, kryl_monitor *inner,
                                     const kryl_monitor *outer, kryl_scalar rr, double factor);

#endif
