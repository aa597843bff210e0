/* The ref backend's operations of single-reduction CG, pipelined CG,
 * BiCGSTAB, GMRES and flexible CG (semantics in backend.h).  Scalar logic, breakdown checks
 * and the small GMRES least-squares problem live here; the vector loops in
 * ref_krylov_template.h, instantiated for double and float. */
#include <math.h>
#include <stdbool.h>

#include "backends/host_step.h"
#include "backends/ref/ref_krylov.h"

#define KRYL_REF_TEMPLATE "backends/ref/ref_krylov_template.h"
#include "backends/ref/ref_instantiate.h"

static bool is_double(kryl_vector v) { return v->precision == KRYL_DOUBLE; }

kryl_status kryl_ref_cg1_terms(kryl_context ctx, kryl_vector p, kryl_vector q, kryl_vector r,
                               kryl_vector dinv, kryl_scalar t, const kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double out[KRYL_CG1_TERMS];
    /* t = {p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq]} */
    if (is_double(r))
        cg1_terms_loop_d(r->n, p->data, q->data, r->data, dinv ? dinv->data : NULL, out);
    else
        cg1_terms_loop_s(r->n, p->data, q->data, r->data, dinv ? dinv->data : NULL, out);
    for (int k = 0; k < (dinv ? KRYL_CG1_TERMS : KRYL_CG1_RDR); k++) t.ptr[k] = out[k];
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_cg1_update(kryl_context ctx, kryl_scalar t, kryl_vector p, kryl_vector q,
                                kryl_vector x, kryl_vector r, kryl_vector dinv,
                                kryl_monitor *monitor)
{
    (void)ctx;
    double alpha, beta, rr;
    if (!kryl_host_cg1_begin(t.ptr, dinv != NULL, monitor, &alpha, &beta, &rr)) return KRYL_SUCCESS;
    /* x += alpha p;  r -= alpha q;  p = dinv .* r + beta p */
    if (is_double(r))
        cg1_update_loop_d(r->n, alpha, beta, p->data, q->data, x->data, r->data,
                          dinv ? dinv->data : NULL);
    else
        cg1_update_loop_s(r->n, alpha, beta, p->data, q->data, x->data, r->data,
                          dinv ? dinv->data : NULL);
    if (monitor) kryl_monitor_record(monitor, rr, 1);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                   const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                   kryl_monitor *monitor, bool record)
{
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr, alpha = 0.0, beta = 0.0;
    int fresh = 0;
    int stop = kryl_host_pipecg_begin(c, restart, coef, monitor, &alpha, &beta, &fresh);
    if (stop != KRYL_STOP_RUNNING) return kryl_host_halt(monitor, stop);
    double out[3];
    if (is_double(v->x))
        pipecg_loop_d(v->x->n, fresh, alpha, beta, v, dinv, out);
    else
        pipecg_loop_s(v->x->n, fresh, alpha, beta, v, dinv, out);
    return kryl_host_pipecg_finish(ctx, c, alpha, out, monitor, record);
}

kryl_status kryl_ref_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                          kryl_scalar out)
{
    (void)ctx;
    /* out = (x'z, y'z) */
    if (is_double(z))
        dot2_loop_d(z->n, x->data, y->data, z->data, out.ptr);
    else
        dot2_loop_s(z->n, x->data, y->data, z->data, out.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_bicgstab_update_s(kryl_context ctx, kryl_scalar sc, kryl_vector r,
                                       kryl_vector v, kryl_vector dinv, kryl_vector s_hat,
                                       kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr;
    double rho = c[KRYL_BICG_RHO], rv = c[KRYL_BICG_RV];
    if (!isfinite(rho) || !isfinite(rv)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    if (rv == 0.0) return kryl_host_halt(monitor, KRYL_STOP_BREAKDOWN);
    /* alpha = rho / (r^, v) */
    double alpha = rho / rv;
    if (!isfinite(alpha)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    c[KRYL_BICG_ALPHA] = alpha;
    void *sh = dinv ? s_hat->data : NULL;
    if (is_double(r))
        bicgstab_s_loop_d(r->n, alpha, r->data, v->data, dinv ? dinv->data : NULL, sh);
    else
        bicgstab_s_loop_s(r->n, alpha, r->data, v->data, dinv ? dinv->data : NULL, sh);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_bicgstab_update_xr(kryl_context ctx, kryl_scalar sc, kryl_vector x,
                                        kryl_vector r, kryl_vector p_hat, kryl_vector s_hat,
                                        kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr;
    double ts = c[KRYL_BICG_TS], tt = c[KRYL_BICG_TT], alpha = c[KRYL_BICG_ALPHA];
    if (!isfinite(ts) || !isfinite(tt) || !isfinite(alpha))
        return kryl_host_halt(monitor, KRYL_STOP_NAN);
    /* omega = (t, s)/(t, t); t = 0 (s = 0, or A singular) gives omega = 0 */
    double omega = tt > 0.0 ? ts / tt : 0.0;
    if (!isfinite(omega)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    c[KRYL_BICG_OMEGA] = omega;
    double *out = c + KRYL_BICG_RR;
    if (is_double(x))
        bicgstab_xr_loop_d(x->n, alpha, omega, x->data, r->data, p_hat->data, s_hat->data, t->data,
                           r_hat->data, out);
    else
        bicgstab_xr_loop_s(x->n, alpha, omega, x->data, r->data, p_hat->data, s_hat->data, t->data,
                           r_hat->data, out);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_bicgstab_update_p(kryl_context ctx, kryl_scalar sc, kryl_vector p,
                                       kryl_vector r, kryl_vector v, kryl_vector dinv,
                                       kryl_vector p_hat, kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr;
    double rho = c[KRYL_BICG_RHO], rho_new = c[KRYL_BICG_RHO_NEW];
    double alpha = c[KRYL_BICG_ALPHA], omega = c[KRYL_BICG_OMEGA];
    /* (r^, r) at rounding level or omega = 0: the next alpha or beta is undefined */
    int stop = kryl_bicg_p_stop(c, kryl_unit_roundoff(p->precision));
    if (stop != KRYL_STOP_RUNNING) return kryl_host_halt(monitor, stop);
    /* beta = (rho_new/rho)(alpha/omega) */
    double beta = (rho_new / rho) * (alpha / omega);
    void *ph = dinv ? p_hat->data : NULL;
    if (is_double(p))
        bicgstab_p_loop_d(p->n, beta, omega, p->data, r->data, v->data, dinv ? dinv->data : NULL,
                          ph);
    else
        bicgstab_p_loop_s(p->n, beta, omega, p->data, r->data, v->data, dinv ? dinv->data : NULL,
                          ph);
    c[KRYL_BICG_RHO] = rho_new;
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_multi_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w, kryl_scalar h,
                               kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    /* h = [V_0 ... V_{k-1}]' w */
    if (is_double(w))
        multi_dot_loop_d(w->n, V->data, k, w->data, h.ptr);
    else
        multi_dot_loop_s(w->n, V->data, k, w->data, h.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_multi_axpy(kryl_context ctx, kryl_vector V, int k, double alpha, kryl_scalar h,
                                kryl_vector w, kryl_scalar ww, kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    /* w += alpha [V_0 ... V_{k-1}] h;  ww = w'w */
    double sum = is_double(w) ? multi_axpy_loop_d(w->n, V->data, k, alpha, h.ptr, w->data)
                              : multi_axpy_loop_s(w->n, V->data, k, alpha, h.ptr, w->data);
    if (ww.ptr) *ww.ptr = sum;
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_normalize(kryl_context ctx, kryl_vector v, kryl_scalar vv,
                               kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double norm = sqrt(*vv.ptr);
    if (!(norm > 0.0) || !isfinite(norm)) return KRYL_SUCCESS;
    /* v = v / ||v|| */
    if (is_double(v))
        scale_loop_d(v->n, norm, v->data);
    else
        scale_loop_s(v->n, norm, v->data);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_gmres_cycle_start(kryl_context ctx, const kryl_gmres_ls *ls, kryl_scalar rr,
                                       kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    /* g = beta e1 with beta = ||r|| */
    ls->g[0] = sqrt(fabs(*rr.ptr));
    for (int i = 1; i <= ls->m; i++) ls->g[i] = 0.0;
    *ls->count = 0;
    return KRYL_SUCCESS;
}

int kryl_ref_givens_column(const kryl_gmres_ls *ls, int k, double gk)
{
    double *col = ls->R + (int64_t)k * (ls->m + 1);
    /* apply the previous rotations: (col_i, col_i+1) = (cs_i a + sn_i b, -sn_i a + cs_i b) */
    for (int i = 0; i < k; i++) {
        double a = col[i], b = col[i + 1];
        col[i] = ls->cs[i] * a + ls->sn[i] * b;
        col[i + 1] = -ls->sn[i] * a + ls->cs[i] * b;
    }
    if (!kryl_host_all_finite(col, k + 2) || !isfinite(gk)) return KRYL_STOP_NAN;
    /* the rotation that zeroes h_{k+1,k} */
    double rho = hypot(col[k], col[k + 1]);
    if (rho == 0.0) return KRYL_STOP_BREAKDOWN;
    double cs = col[k] / rho, sn = col[k + 1] / rho;
    ls->cs[k] = cs;
    ls->sn[k] = sn;
    col[k] = rho;
    col[k + 1] = 0.0;
    /* g_{k+1} = -sn g_k;  g_k = cs g_k:  |g_{k+1}| = ||b - A x_k|| */
    ls->g[k + 1] = -sn * gk;
    ls->g[k] = cs * gk;
    *ls->rr = ls->g[k + 1] * ls->g[k + 1];
    *ls->count = k + 1;
    return KRYL_STOP_RUNNING;
}

kryl_status kryl_ref_gmres_givens(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                  kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *col = ls->R + (int64_t)k * (ls->m + 1);
    /* h = first pass + second pass of classical Gram-Schmidt;  h_{k+1,k} = ||w|| */
    for (int i = 0; i <= k; i++) col[i] += ls->h2[i];
    col[k + 1] = sqrt(*ls->ww);
    const int why = kryl_ref_givens_column(ls, k, ls->g[k]);
    return why == KRYL_STOP_RUNNING ? KRYL_SUCCESS : kryl_host_halt(monitor, why);
}

kryl_status kryl_ref_gmres_solve(kryl_context ctx, const kryl_gmres_ls *ls)
{
    (void)ctx;
    int k = (int)*ls->count, ld = ls->m + 1;
    /* y = R^{-1} g by back substitution over the k columns built */
    for (int i = ls->m - 1; i >= 0; i--) {
        if (i >= k) {
            ls->y[i] = 0.0;
            continue;
        }
        double sum = ls->g[i];
        for (int j = i + 1; j < k; j++) sum -= ls->R[(int64_t)j * ld + i] * ls->y[j];
        ls->y[i] = sum / ls->R[(int64_t)i * ld + i];
    }
    /* FGMRES by DCGS2 keeps z_j unorthogonalised: y = T^{-1} y */
    for (int i = k - 1; ls->T != NULL && i >= 0; i--) {
        double sum = ls->y[i];
        for (int j = i + 1; j < k; j++) sum -= ls->T[(int64_t)j * ls->m + i] * ls->y[j];
        ls->y[i] = sum / ls->T[(int64_t)i * ls->m + i];
    }
    *ls->count = 0;
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_fcg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                  kryl_vector p, kryl_monitor *monitor)
{
    (void)ctx;
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double n = *num.ptr, d = *den.ptr;
    if (!isfinite(n) || !isfinite(d)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    if (!(d > 0.0)) return kryl_host_halt(monitor, KRYL_STOP_BREAKDOWN);
    /* p = z - (num/den) p */
    if (is_double(p))
        fcg_p_loop_d(p->n, n / d, z->data, p->data);
    else
        fcg_p_loop_s(p->n, n / d, z->data, p->data);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_monitor_restart(kryl_context ctx, kryl_monitor *inner,
                                     const kryl_monitor *outer, kryl_scalar rr, double factor)
{
    (void)ctx;
    if (kryl_host_halted(outer)) {
        inner->stop = KRYL_STOP_CONVERGED;
        return KRYL_SUCCESS;
    }
    inner->stop = KRYL_STOP_RUNNING;
    /* tol2 = max(factor ||r||^2, (tol_outer / 2)^2), or factor */
    const double floor = outer ? 0.25 * outer->tol2 : 0.0;
    inner->tol2 = rr.ptr ? (factor * *rr.ptr > floor ? factor * *rr.ptr : floor) : factor;
    return KRYL_SUCCESS;
}
