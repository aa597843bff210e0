/* The omp backend's fused steps of pipelined CG, BiCGSTAB and flexible CG
 * and the two-dot product (semantics in backend.h; the ref backend's
 * ref_krylov.c is the specification).  Here: argument checks, the scalar
 * logic with its breakdown and NaN rules (nothing is written when a step
 * is refused), and dispatch to the loops of omp_krylov_template.h, one
 * parallel pass over the vectors per operation. */
#include <omp.h>

#include "backends/omp/omp_krylov.h"
#include "backends/omp/omp_real.h"

#define KRYL_OMP_TEMPLATE "backends/omp/omp_krylov_template.h"
#include "backends/omp/omp_instantiate.h"

#define DATA(vec) ((vec) != NULL ? (vec)->data : NULL)

/* Every non-NULL vector of list has first's length and precision. */
static kryl_status check_like(const char *op, kryl_vector first, const kryl_vector *list, int count)
{
    for (int i = 0; i < count; i++)
        if (list[i] != NULL) KRYL_TRY(kryl_omp_check_pair(op, list[i], first));
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_check_distinct(const char *op, const kryl_vector *list, int count,
                                    unsigned written)
{
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            if (((written >> i) & 1u || (written >> j) & 1u) && kryl_omp_overlap(list[i], list[j]))
                return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                                  "omp %s: vector arguments %d and %d share storage and one of "
                                  "them is written, expected distinct vectors",
                                  op, i + 1, j + 1);
    return KRYL_SUCCESS;
}

/* Pipelined CG's vectors: x r w n p s z given, u m q all given or all NULL,
 * dinv only with them; one length and precision; all distinct. */
static kryl_status check_pipecg(const kryl_pipecg_vectors *v, kryl_vector dinv)
{
    const char *op = "pipecg_update";
    kryl_vector need[] = {v->x, v->r, v->w, v->n, v->p, v->s, v->z};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (need[i] == NULL)
            return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                              "omp %s: x, r, w, n, p, s and z must all be given", op);
    bool pc = v->u != NULL;
    if ((v->m != NULL) != pc || (v->q != NULL) != pc)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp %s: u, m and q must be all given (preconditioned) or all NULL", op);
    if (dinv != NULL && !pc)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "omp %s: dinv given without the preconditioned vectors u, m, q", op);
    kryl_vector all[] = {v->x, v->r, v->u, v->w, v->m, v->n, v->p, v->s, v->q, v->z, dinv};
    int count = (int)(sizeof all / sizeof all[0]);
    KRYL_TRY(check_like(op, v->r, all, count));
    return kryl_omp_check_distinct(op, all, count, ~0u);
}

kryl_status kryl_omp_pipecg_update(kryl_context ctx, kryl_scalar sc, int restart,
                                   const kryl_pipecg_vectors *v, kryl_vector dinv, double *coef,
                                   kryl_monitor *monitor, bool record)
{
    KRYL_REQUIRE_ARG(sc.ptr);
    KRYL_REQUIRE_ARG(v);
    KRYL_TRY(check_pipecg(v, dinv));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr, alpha = 0.0, beta = 0.0;
    int fresh = 0;
    int stop = kryl_host_pipecg_begin(c, restart, coef, monitor, &alpha, &beta, &fresh);
    if (stop != KRYL_STOP_RUNNING) return kryl_host_halt(monitor, stop);
    /* pc: 0 without a preconditioner, 1 applied by the caller, 2 Jacobi (fused) */
    int pc = v->u == NULL ? 0 : dinv == NULL ? 1 : 2;
    kryl_omp_state *st = kryl_omp_state_of(ctx);
    double out[3];
    /* z q s p x r u w updates;  m = dinv .* w;  gamma = r'u;  delta = w'u;  rr = r'r */
    if (v->r->precision == KRYL_SINGLE) {
        pipecg_ptrs_single p = {DATA(v->x), DATA(v->r), DATA(v->u), DATA(v->w),
                                DATA(v->m), DATA(v->p), DATA(v->s), DATA(v->q),
                                DATA(v->z), DATA(v->n), DATA(dinv)};
        pipecg_update_single(st, v->r->n, fresh, pc, alpha, beta, &p, out);
    } else {
        pipecg_ptrs_double p = {DATA(v->x), DATA(v->r), DATA(v->u), DATA(v->w),
                                DATA(v->m), DATA(v->p), DATA(v->s), DATA(v->q),
                                DATA(v->z), DATA(v->n), DATA(dinv)};
        pipecg_update_double(st, v->r->n, fresh, pc, alpha, beta, &p, out);
    }
    return kryl_host_pipecg_finish(ctx, c, alpha, out, monitor, record);
}

kryl_status kryl_omp_dot2(kryl_context ctx, kryl_vector x, kryl_vector y, kryl_vector z,
                          kryl_scalar out)
{
    KRYL_REQUIRE_ARG(out.ptr);
    KRYL_TRY(kryl_omp_check_pair("dot2", x, z));
    KRYL_TRY(kryl_omp_check_pair("dot2", y, z));
    kryl_omp_state *st = kryl_omp_state_of(ctx);
    /* out = (x'z, y'z) */
    if (z->precision == KRYL_SINGLE)
        dot2_single(st, z->n, x->data, y->data, z->data, out.ptr);
    else
        dot2_double(st, z->n, x->data, y->data, z->data, out.ptr);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_bicgstab_update_s(kryl_context ctx, kryl_scalar sc, kryl_vector r,
                                       kryl_vector v, kryl_vector dinv, kryl_vector s_hat,
                                       kryl_monitor *monitor)
{
    const char *op = "bicgstab_update_s";
    KRYL_REQUIRE_ARG(sc.ptr);
    KRYL_TRY(kryl_omp_check_pair(op, v, r));
    if (dinv != NULL) {
        KRYL_TRY(kryl_omp_check_pair(op, dinv, r));
        KRYL_TRY(kryl_omp_check_pair(op, s_hat, r));
    }
    kryl_vector all[] = {r, v, dinv, dinv != NULL ? s_hat : NULL};
    KRYL_TRY(kryl_omp_check_distinct(op, all, 4, 1u | 8u));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr, rho = c[KRYL_BICG_RHO], rv = c[KRYL_BICG_RV];
    if (!isfinite(rho) || !isfinite(rv)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    if (rv == 0.0) return kryl_host_halt(monitor, KRYL_STOP_BREAKDOWN);
    /* alpha = rho / (r^, v) */
    double alpha = rho / rv;
    if (!isfinite(alpha)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    c[KRYL_BICG_ALPHA] = alpha;
    int threads = kryl_omp_state_of(ctx)->threads;
    void *sh = dinv != NULL ? s_hat->data : NULL;
    /* r -= alpha v;  s_hat = dinv .* r */
    if (r->precision == KRYL_SINGLE)
        bicgstab_s_single(threads, r->n, alpha, r->data, v->data, DATA(dinv), sh);
    else
        bicgstab_s_double(threads, r->n, alpha, r->data, v->data, DATA(dinv), sh);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_bicgstab_update_xr(kryl_context ctx, kryl_scalar sc, kryl_vector x,
                                        kryl_vector r, kryl_vector p_hat, kryl_vector s_hat,
                                        kryl_vector t, kryl_vector r_hat, kryl_monitor *monitor)
{
    const char *op = "bicgstab_update_xr";
    KRYL_REQUIRE_ARG(sc.ptr);
    KRYL_REQUIRE_ARG(r);
    kryl_vector need[] = {x, p_hat, s_hat, t, r_hat};
    for (int i = 0; i < 5; i++) KRYL_TRY(kryl_omp_check_pair(op, need[i], r));
    /* s_hat may be r (no preconditioner) */
    kryl_vector all[] = {x, r, p_hat, t, r_hat, kryl_omp_overlap(s_hat, r) ? NULL : s_hat};
    KRYL_TRY(kryl_omp_check_distinct(op, all, 6, 1u | 2u));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr;
    double ts = c[KRYL_BICG_TS], tt = c[KRYL_BICG_TT], alpha = c[KRYL_BICG_ALPHA];
    if (!isfinite(ts) || !isfinite(tt) || !isfinite(alpha))
        return kryl_host_halt(monitor, KRYL_STOP_NAN);
    /* omega = (t, s)/(t, t); t = 0 (s = 0, or A singular) gives omega = 0 */
    double omega = tt > 0.0 ? ts / tt : 0.0;
    if (!isfinite(omega)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    c[KRYL_BICG_OMEGA] = omega;
    kryl_omp_state *st = kryl_omp_state_of(ctx);
    /* x += alpha p_hat + omega s_hat;  r -= omega t;  rr = r'r;  rho_new = r_hat'r */
    if (r->precision == KRYL_SINGLE)
        bicgstab_xr_single(st, r->n, alpha, omega, x->data, r->data, p_hat->data, s_hat->data,
                           t->data, r_hat->data, c + KRYL_BICG_RR);
    else
        bicgstab_xr_double(st, r->n, alpha, omega, x->data, r->data, p_hat->data, s_hat->data,
                           t->data, r_hat->data, c + KRYL_BICG_RR);
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_bicgstab_update_p(kryl_context ctx, kryl_scalar sc, kryl_vector p,
                                       kryl_vector r, kryl_vector v, kryl_vector dinv,
                                       kryl_vector p_hat, kryl_monitor *monitor)
{
    const char *op = "bicgstab_update_p";
    KRYL_REQUIRE_ARG(sc.ptr);
    KRYL_TRY(kryl_omp_check_pair(op, r, p));
    KRYL_TRY(kryl_omp_check_pair(op, v, p));
    if (dinv != NULL) {
        KRYL_TRY(kryl_omp_check_pair(op, dinv, p));
        KRYL_TRY(kryl_omp_check_pair(op, p_hat, p));
    }
    kryl_vector all[] = {p, r, v, dinv, dinv != NULL ? p_hat : NULL};
    KRYL_TRY(kryl_omp_check_distinct(op, all, 5, 1u | 16u));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double *c = sc.ptr;
    double rho = c[KRYL_BICG_RHO], rho_new = c[KRYL_BICG_RHO_NEW];
    double alpha = c[KRYL_BICG_ALPHA], omega = c[KRYL_BICG_OMEGA];
    /* (r^, r) at rounding level or omega = 0: the next alpha or beta is undefined */
    int stop = kryl_bicg_p_stop(c, kryl_unit_roundoff(p->precision));
    if (stop != KRYL_STOP_RUNNING) return kryl_host_halt(monitor, stop);
    /* beta = (rho_new/rho)(alpha/omega) */
    double beta = (rho_new / rho) * (alpha / omega);
    int threads = kryl_omp_state_of(ctx)->threads;
    void *ph = dinv != NULL ? p_hat->data : NULL;
    /* p = r + beta (p - omega v);  p_hat = dinv .* p */
    if (p->precision == KRYL_SINGLE)
        bicgstab_p_single(threads, p->n, beta, omega, p->data, r->data, v->data, DATA(dinv), ph);
    else
        bicgstab_p_double(threads, p->n, beta, omega, p->data, r->data, v->data, DATA(dinv), ph);
    c[KRYL_BICG_RHO] = rho_new;
    return KRYL_SUCCESS;
}

kryl_status kryl_omp_fcg_update_p(kryl_context ctx, kryl_scalar num, kryl_scalar den, kryl_vector z,
                                  kryl_vector p, kryl_monitor *monitor)
{
    KRYL_REQUIRE_ARG(num.ptr);
    KRYL_REQUIRE_ARG(den.ptr);
    KRYL_TRY(kryl_omp_check_pair("fcg_update_p", z, p));
    const kryl_vector zp[] = {z, p};
    KRYL_TRY(kryl_omp_check_distinct("fcg_update_p", zp, 2, 2u));
    if (kryl_host_halted(monitor)) return KRYL_SUCCESS;
    double a = *num.ptr, b = *den.ptr;
    if (!isfinite(a) || !isfinite(b)) return kryl_host_halt(monitor, KRYL_STOP_NAN);
    if (!(b > 0.0)) return kryl_host_halt(monitor, KRYL_STOP_BREAKDOWN);
    int threads = kryl_omp_state_of(ctx)->threads;
    /* p = z - (num/den) p */
    if (p->precision == KRYL_SINGLE)
        fcg_p_single(threads, p->n, a / b, z->data, p->data);
    else
        fcg_p_double(threads, p->n, a / b, z->data, p->data);
    return KRYL_SUCCESS;
}
