/* GMRES's Arnoldi process by classical Gram-Schmidt with delayed
 * reorthogonalisation (DCGS2: Bielich, Langou, Thomas, Swirydowicz,
 * Yamazaki, Boman, "Low-synch Gram-Schmidt with delayed reorthogonalization
 * for Krylov solvers", Parallel Comput. 2022; Swirydowicz et al., Numer.
 * Linear Algebra Appl. 2020) on the ref backend: the specification.
 *
 * Step k holds Q = V_0..V_{k-1} orthonormal and u = V_k projected once.
 * One reduction gives [Q u]'[u w] and w'w for w = A M^-1 u; then
 * u = Q s + rho q_k (the delayed second pass: s = Q'u, rho^2 = u'u - s's),
 * and since w = rho A M^-1 q_k + Q_{k+1} H s (the Arnoldi relation of the
 * earlier columns), A M^-1 q_k has coefficients h = (c - H s)/rho on
 * Q_{k+1}, c = Q_{k+1}'w = (Q'w, (u'w - s'Q'w)/rho); its remainder
 * (w - Q_{k+1} c)/rho, scaled to about unit length (Pythagoras), is the
 * next u.  Column k-1 of H, provisional since step k-1, is completed with
 * s and rho; column k is provisional (its subdiagonal by Pythagoras) until
 * step k+1, so the residual estimate still reaches the monitor every step. */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "backends/host_step.h"
#include "backends/ref/ref_krylov.h"
#include "backends/ref/ref_ops.h"

#define KRYL_REF_TEMPLATE "backends/ref/ref_dcgs2_template.h"
#include "backends/ref/ref_instantiate.h"

/* Below this share of ||w||^2 the Pythagorean ||w - Q c||^2 holds no digits. */
#define DCGS2_NOISE (64.0 * DBL_EPSILON)

/* A basis of k+1 vectors like w (w may be NULL) and somewhere for d. */
static kryl_status check_basis(const char *op, kryl_vector V, int k, kryl_vector w, kryl_scalar d)
{
    KRYL_REQUIRE_ARG(V);
    if (k < 0) return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "ref %s: k = %d, expected >= 0", op, k);
    if (d.ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "ref %s: the coefficients d are NULL", op);
    if (w && (w->n != V->n || w->precision != V->precision))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "ref %s: w has %lld %s entries, expected %lld like the basis", op,
                          (long long)w->n, kryl_precision_name(w->precision), (long long)V->n);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_gmres_dcgs2_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                     kryl_scalar d, kryl_monitor *monitor)
{
    (void)ctx;
    KRYL_TRY(check_basis("gmres_dcgs2_dot", V, k, w, d));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    /* d = [V_0 .. V_k]'[V_k w];  d[2k+2] = w'w */
    if (V->precision == KRYL_DOUBLE)
        dcgs2_dot_loop_d(V->n, V->data, k, w ? w->data : NULL, d.ptr);
    else
        dcgs2_dot_loop_s(V->n, V->data, k, w ? w->data : NULL, d.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_gmres_dcgs2_update(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                        kryl_scalar d, kryl_scalar f, kryl_monitor *monitor)
{
    (void)ctx;
    KRYL_REQUIRE_ARG(w);
    KRYL_TRY(check_basis("gmres_dcgs2_update", V, k, w, d));
    if (f.ptr == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "ref gmres_dcgs2_update: the factors f are NULL, expected 3 doubles");
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    /* V_k = (V_k - Q s) f0;  w = (w - Q t - f1 V_k) f2 */
    if (V->precision == KRYL_DOUBLE)
        dcgs2_update_loop_d(V->n, V->data, k, w->data, d.ptr, f.ptr);
    else
        dcgs2_update_loop_s(V->n, V->data, k, w->data, d.ptr, f.ptr);
    return KRYL_SUCCESS;
}

/* R's column j = H's column j, then rotated (kryl_ref_givens_column). */
static int rotate_column(const kryl_gmres_ls *ls, int j, double gj)
{
    const int64_t ld = ls->m + 1;
    const double *h = ls->H + j * ld;
    double *col = ls->R + j * ld;
    for (int i = 0; i <= j + 1; i++) col[i] = h[i];
    return kryl_ref_givens_column(ls, j, gj);
}

static kryl_status check_ls(const kryl_gmres_ls *ls, int k)
{
    if (ls == NULL || ls->m < 1 || !ls->R || !ls->cs || !ls->sn || !ls->g || !ls->rr ||
        !ls->count || !ls->H || !ls->d || !ls->f || !ls->eta || !ls->gk)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "ref gmres_dcgs2_column: the least-squares problem is NULL, lacks "
                          "the DCGS2 arrays or has m < 1");
    if (k < 0 || k > ls->m)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "ref gmres_dcgs2_column: column %d, expected 0 <= k <= m = %d", k, ls->m);
    return KRYL_SUCCESS;
}

kryl_status kryl_ref_gmres_dcgs2_column(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                        kryl_monitor *monitor)
{
    (void)ctx;
    KRYL_TRY(check_ls(ls, k));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    const int m = ls->m;
    const int64_t ld = m + 1;
    const double *d = ls->d, *s = d;
    if (k == m && *ls->count != m) return KRYL_SUCCESS;
    double rho = 1.0;
    if (k > 0) {
        if (!kryl_host_all_finite(d, k + 1)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
        /* rho^2 = u'u - s's: u's length outside span Q */
        double ss = 0.0;
        for (int j = 0; j < k; j++) ss += s[j] * s[j];
        double rho2 = d[k] - ss;
        rho = rho2 > 0.0 ? sqrt(rho2) : 0.0;
        /* complete column k-1:  H[0..k-1] += eta s;  H[k] = eta rho */
        double *h = ls->H + (k - 1) * ld, eta = *ls->eta;
        for (int j = 0; j < k; j++) h[j] += eta * s[j];
        h[k] = eta * rho;
        int why = rotate_column(ls, k - 1, *ls->gk);
        if (why != KRYL_STOP_RUNNING) {
            /* column k-1 cannot be completed: x is formed without it */
            *ls->count = k - 1;
            ls->g[k - 1] = *ls->gk;
            return kryl_host_halt(monitor, why);
        }
        if (k == m) return KRYL_SUCCESS;
        if (rho == 0.0) {
            /* u lies in span Q: the space is invariant, g[k] = 0 ends the solve */
            for (int i = 0; i < 3; i++) ls->f[i] = 0.0;
            return KRYL_SUCCESS;
        }
    }
    /* provisional column k */
    const double *t = d + k + 1;
    if (!kryl_host_all_finite(t, k + 2)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    double st = 0.0;
    for (int j = 0; j < k; j++) st += s[j] * t[j];
    /* c_k = q_k'w = (u'w - s'Q'w)/rho */
    double ck = (t[k] - st) / rho, cc = 0.0, ww = t[k + 1];
    double *h = ls->H + k * ld;
    /* h = (c - H s)/rho over rows 0..k (H Hessenberg: column j reaches row j+1) */
    for (int i = 0; i <= k; i++) {
        double ci = i < k ? t[i] : ck, hs = 0.0;
        for (int j = i > 0 ? i - 1 : 0; j < k; j++) hs += ls->H[j * ld + i] * s[j];
        h[i] = (ci - hs) / rho;
        cc += ci * ci;
    }
    /* ||w - Q_{k+1} c||^2 by Pythagoras */
    double sigma2 = ww - cc;
    h[k + 1] = sigma2 > DCGS2_NOISE * ww ? sqrt(sigma2) / rho : 0.0;
    double sigma = sqrt(fmax(sigma2, DBL_EPSILON * ww));
    double gk = ls->g[k];
    int why = rotate_column(ls, k, gk);
    if (why != KRYL_STOP_RUNNING) return kryl_host_halt(monitor, why);
    *ls->gk = gk;
    *ls->eta = sigma / rho;
    /* q_k = (u - Q s)/rho;  u_{k+1} = (w - Q t - c_k q_k)/sigma */
    ls->f[0] = 1.0 / rho;
    ls->f[1] = ck;
    ls->f[2] = sigma > 0.0 ? 1.0 / sigma : 0.0;
    if (ls->T) {
        /* z_k = (z - Z s)/rho: column k of T */
        double *tc = ls->T + (int64_t)k * m;
        for (int j = 0; j < k; j++) tc[j] = s[j];
        tc[k] = rho;
    }
    return KRYL_SUCCESS;
}
