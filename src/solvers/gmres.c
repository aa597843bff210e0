/*
 * Restarted GMRES(m) (Saad & Schultz, SIAM J. Sci. Stat. Comput. 7, 1986),
 * right-preconditioned as in Li & Saad's GPU solvers: A M^-1 y = b,
 * x = x0 + M^-1 V y, so the residual it minimises and monitors is the
 * true, unpreconditioned one.  With options.mixed = inner-outer the same
 * code is flexible GMRES (Saad, SIAM J. Sci. Comput. 14, 1993): M^-1 is a
 * single-precision inner solve that changes every step, so z_k = B(v_k)
 * is kept in a second basis Z and x = x0 + Z y.
 *
 * Arnoldi by classical Gram-Schmidt with reorthogonalisation, two ways
 * (options.gmres_orthog):
 *   CGS2 (Giraud et al. 2005): two passes a step, each two block
 *   operations: h = V_j'w (multi_dot: one sweep over w and the basis) and
 *   w -= V_j h (multi_axpy, which also returns ||w||^2 on the second pass);
 *   three reductions a step.
 *   DCGS2, the default (Bielich, Langou, Thomas, Swirydowicz, Yamazaki,
 *   Boman, Parallel Comput. 2022; Swirydowicz et al., NLAA 2020): the
 *   second pass of v_k is delayed to step k+1 and fused with the first
 *   pass of w = A M^-1 v_k: one block dot [V_k v_k]'[v_k w] with w'w (one
 *   reduction), the least-squares update (gmres_dcgs2_column: completes
 *   column k-1 of H, builds column k provisionally so the residual
 *   estimate is current), one block update of v_k and w.  A cycle's last
 *   column is completed by one more block dot when x is formed.  With
 *   FGMRES, z_k = B(v_k) of the not yet reorthogonalised v_k is kept and
 *   x = x0 + Z T^{-1} y (T upper triangular, from the delayed passes).
 * The Hessenberg matrix
 * is reduced by Givens rotations on the backend (gmres_givens, a serial
 * operation on O(m) numbers), so |g_{k+1}| = ||b - A x_k|| reaches the
 * monitor with no host round trip.  x is formed only when a cycle ends or
 * the loop stops (finish).  A restart recomputes r = b - A x.
 *
 * Happy breakdown (h_{k+1,k} = 0, the Krylov space is invariant): the
 * rotation then makes g_{k+1} = 0, the monitor reports convergence, and
 * the driver confirms it with the true residual (replacing the residual
 * and restarting if rounding left it above the tolerance); the zero vector
 * is not normalised.  A singular least-squares problem (R_kk = 0) stops
 * with BREAKDOWN, a NaN or Inf with NAN; either way x is formed from the
 * columns completed before it.
 *
 * Memory: the basis V is one allocation of (m+1) n entries in the working
 * precision (FGMRES adds Z, m n doubles).  Traffic of Arnoldi step k (k+1
 * basis vectors), besides SpMV and M^-1 (3n with Jacobi):
 *   CGS2: two passes of multi_dot ((k+2) n) and multi_axpy ((k+3) n) +
 *   normalise 2n: (4k+12) n, in 6 kernels with 3 grid-wide reductions;
 *   DCGS2: dcgs2_dot (k+2) n + dcgs2_update (k+4) n: (2k+6) n, in 3
 *   kernels (dot, one-warp column, update) with 1 grid-wide reduction,
 *   plus (m+1) n a cycle to complete the last column.
 */
#include <stdlib.h>

#include "solvers/mixed.h"
#include "solvers/require_op.h"

typedef struct gmres_work {
    int m; /* restart length */
    int k; /* the next Arnoldi column of this cycle (host count, 0..m-1) */
    bool flexible;
    bool dcgs2;              /* orthogonalisation: DCGS2, else CGS2 */
    void *basis;             /* backend: V, (m+1) n entries */
    struct kryl_vector_s *V; /* host views of V's columns */
    void *zbasis;            /* backend, flexible: Z, m n doubles */
    struct kryl_vector_s *Z;
    kryl_vector z, t; /* fixed preconditioner: z = M^-1 v;  t: M^-1 V y */
    double *block;    /* backend: the least-squares problem */
    kryl_gmres_ls ls;
} gmres_work;

/* count views of consecutive columns of n entries starting at data */
static kryl_status make_views(kryl_solver s, void *data, int count, struct kryl_vector_s **views)
{
    *views = calloc((size_t)count, sizeof **views);
    if (*views == NULL)
        return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "gmres: cannot allocate %d vector views", count);
    size_t bytes = (size_t)s->Aw->layout->n * kryl_precision_size(s->precision);
    for (int j = 0; j < count; j++) {
        (*views)[j].ctx = s->ctx;
        (*views)[j].layout = s->Aw->layout; /* borrowed: views are never destroyed */
        (*views)[j].n = s->Aw->layout->n;
        (*views)[j].precision = s->precision;
        (*views)[j].data = (char *)data + (size_t)j * bytes;
    }
    return KRYL_SUCCESS;
}

/* One backend block for R, the rotations, g, y, h2, ww, rr and count;
 * with DCGS2 also H, d, f, eta, gk and (flexible) T. */
static kryl_status alloc_least_squares(kryl_solver s, gmres_work *w)
{
    size_t m = (size_t)w->m;
    size_t doubles = (m + 1) * m + 2 * m + (m + 1) + m + (m + 1) + 3;
    size_t dcgs2 = (m + 1) * m + 2 * (m + 1) + 1 + 3 + 2 + (w->flexible ? m * m : 0);
    if (w->dcgs2) doubles += dcgs2;
    KRYL_TRY(s->ops->alloc(s->ctx, (void **)&w->block, doubles * sizeof(double)));
    double *p = w->block;
    w->ls.m = w->m;
    w->ls.R = p;
    p += (m + 1) * m;
    w->ls.cs = p;
    p += m;
    w->ls.sn = p;
    p += m;
    w->ls.g = p;
    p += m + 1;
    w->ls.y = p;
    p += m;
    w->ls.h2 = p;
    p += m + 1;
    w->ls.ww = p++;
    w->ls.rr = p++;
    w->ls.count = (int64_t *)p++;
    if (!w->dcgs2) return KRYL_SUCCESS;
    w->ls.H = p;
    p += (m + 1) * m;
    w->ls.d = p;
    p += 2 * (m + 1) + 1;
    w->ls.f = p;
    p += 3;
    w->ls.eta = p++;
    w->ls.gk = p++;
    if (w->flexible) w->ls.T = p;
    return KRYL_SUCCESS;
}

static kryl_status gmres_setup_kind(kryl_solver s, bool flexible)
{
    const char *name = flexible ? "inner-outer (FGMRES)" : "gmres";
    KRYL_REQUIRE_OP(s, name, multi_dot);
    KRYL_REQUIRE_OP(s, name, multi_axpy);
    KRYL_REQUIRE_OP(s, name, normalize);
    KRYL_REQUIRE_OP(s, name, gmres_cycle_start);
    KRYL_REQUIRE_OP(s, name, gmres_givens);
    KRYL_REQUIRE_OP(s, name, gmres_solve);
    if (flexible) KRYL_REQUIRE_OP(s, name, monitor_restart);
    kryl_orthog orthog = s->options.gmres_orthog;
    if (orthog != KRYL_ORTHOG_AUTO && orthog != KRYL_ORTHOG_CGS2 && orthog != KRYL_ORTHOG_DCGS2)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "%s: orthogonalisation %d, expected KRYL_ORTHOG_AUTO, _CGS2 or _DCGS2",
                          name, (int)orthog);
    bool dcgs2 = orthog != KRYL_ORTHOG_CGS2;
    if (dcgs2) {
        KRYL_REQUIRE_OP(s, name, gmres_dcgs2_dot);
        KRYL_REQUIRE_OP(s, name, gmres_dcgs2_update);
        KRYL_REQUIRE_OP(s, name, gmres_dcgs2_column);
    }
    gmres_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "gmres: cannot allocate workspace");
    s->work = w;
    w->m = s->options.restart;
    w->flexible = flexible;
    w->dcgs2 = dcgs2;
    s->period = w->m; /* a cycle of m steps brings the host-side state back */
    size_t column = (size_t)s->Aw->layout->n * kryl_precision_size(s->precision);
    KRYL_TRY(s->ops->alloc(s->ctx, &w->basis, (size_t)(w->m + 1) * column));
    KRYL_TRY(make_views(s, w->basis, w->m + 1, &w->V));
    if (flexible) {
        KRYL_TRY(s->ops->alloc(s->ctx, &w->zbasis, (size_t)w->m * column));
        KRYL_TRY(make_views(s, w->zbasis, w->m, &w->Z));
    } else if (s->pc) {
        KRYL_TRY(kryl_solver_work_vector(s, &w->z));
        KRYL_TRY(kryl_solver_work_vector(s, &w->t));
    }
    KRYL_TRY(alloc_least_squares(s, w));
    return flexible ? kryl_inner_create(s) : KRYL_SUCCESS;
}

static kryl_status gmres_setup(kryl_solver s) { return gmres_setup_kind(s, false); }

static kryl_status fgmres_setup(kryl_solver s) { return gmres_setup_kind(s, true); }

/* Begin a cycle from x: v_0 = r/||r|| with r = b - A x, g = ||r|| e1, and
 * record ||r|| (no iteration). */
static kryl_status begin_cycle(kryl_solver s, gmres_work *w)
{
    kryl_scalar rr = {w->ls.rr};
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* v_0 = b - A x */
    KRYL_TRY(s->ops->spmv(s->ctx, s->Aw, -1.0, s->x_work, 1.0, s->b_work, &w->V[0], s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* rr = r'r */
    KRYL_TRY(s->ops->dot(s->ctx, &w->V[0], &w->V[0], rr));
    KRYL_TRY(kryl_reduce_begin(s->ctx, rr, 1));
    KRYL_TRY(kryl_reduce_end(s->ctx));
    /* g = ||r|| e1;  v_0 = r/||r|| */
    KRYL_TRY(s->ops->gmres_cycle_start(s->ctx, &w->ls, rr, s->monitor));
    KRYL_TRY(s->ops->normalize(s->ctx, &w->V[0], rr, s->monitor));
    return s->ops->monitor_update(s->ctx, s->monitor, rr, 0);
}

/* DCGS2: complete a full cycle's provisional last column m-1 with the
 * delayed second pass of v_m (guarded; the column op does nothing unless
 * all m columns were built). */
static kryl_status complete_cycle(kryl_solver s, gmres_work *w)
{
    kryl_scalar d = {w->ls.d};
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* d = [V_0 .. V_m]'v_m */
    KRYL_TRY(s->ops->gmres_dcgs2_dot(s->ctx, w->V, w->m, NULL, d, s->monitor));
    KRYL_TRY(kryl_reduce_begin(s->ctx, d, w->m + 1));
    KRYL_TRY(kryl_reduce_end(s->ctx));
    /* H[0..m-1][m-1] += eta s;  H[m][m-1] = eta rho;  its rotation again */
    return s->ops->gmres_dcgs2_column(s->ctx, &w->ls, w->m, s->monitor);
}

/* x += M^-1 V y (Z y when flexible), y = R^-1 g over the columns built
 * (y is zero past them, and multi_axpy skips zero terms); unguarded, and a
 * no-op once the cycle is consumed. */
static kryl_status form_x(kryl_solver s, gmres_work *w)
{
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    kryl_scalar y = {w->ls.y};
    if (w->dcgs2) KRYL_TRY(complete_cycle(s, w));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* y = R^-1 g */
    KRYL_TRY(ops->gmres_solve(ctx, &w->ls));
    if (w->flexible || s->pc == NULL) {
        /* x += Z y, or x += V y */
        struct kryl_vector_s *basis = w->flexible ? w->Z : w->V;
        return ops->multi_axpy(ctx, basis, w->m, 1.0, y, s->x_work, (kryl_scalar){NULL}, NULL);
    }
    /* t = M^-1 (V y);  x += t */
    KRYL_TRY(ops->fill(ctx, w->z, 0.0));
    KRYL_TRY(ops->multi_axpy(ctx, w->V, w->m, 1.0, y, w->z, (kryl_scalar){NULL}, NULL));
    KRYL_TRY(s->pc->apply(s->pc, w->z, w->t));
    return ops->axpby(ctx, 1.0, w->t, 1.0, s->x_work);
}

/* Record ||r0||; the first step begins the cycle (recomputing r0 = b - A x
 * in the working precision), as every m-th step does, so the steps repeat
 * with period m. */
static kryl_status gmres_start(kryl_solver s, kryl_vector r0)
{
    gmres_work *w = s->work;
    kryl_scalar rr = {w->ls.rr};
    w->k = 0;
    /* rr = r0'r0;  no columns built yet */
    KRYL_TRY(s->ops->dot(s->ctx, r0, r0, rr));
    KRYL_TRY(kryl_reduce_begin(s->ctx, rr, 1));
    KRYL_TRY(kryl_reduce_end(s->ctx));
    KRYL_TRY(s->ops->gmres_cycle_start(s->ctx, &w->ls, rr, s->monitor));
    return s->ops->monitor_update(s->ctx, s->monitor, rr, 0);
}

/* z_k = M^-1 v_k: v_k itself, the fixed preconditioner, or an inner solve. */
static kryl_status right_precondition(kryl_solver s, gmres_work *w, kryl_vector *zk)
{
    kryl_vector v = &w->V[w->k];
    if (w->flexible) {
        *zk = &w->Z[w->k];
        /* z_k = B(v_k), ||v_k|| = 1 */
        return kryl_inner_solve(s, v, (kryl_scalar){NULL},
                                s->options.inner_rtol * s->options.inner_rtol, *zk);
    }
    if (s->pc == NULL) {
        *zk = v;
        return KRYL_SUCCESS;
    }
    *zk = w->z;
    /* z = M^-1 v_k */
    return s->pc->apply(s->pc, v, w->z);
}

/* DCGS2 step k, after w = A z_k in v_{k+1}: one block dot, the
 * least-squares update, one block update. */
static kryl_status dcgs2_orthogonalise(kryl_solver s, gmres_work *w, int k, kryl_vector next)
{
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    kryl_scalar d = {w->ls.d}, f = {w->ls.f};
    /* d = [V_0 .. V_k]'[v_k w];  d[2k+2] = w'w:  the step's one reduction */
    KRYL_TRY(ops->gmres_dcgs2_dot(ctx, w->V, k, next, d, s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, d, 2 * k + 3));
    KRYL_TRY(kryl_reduce_end(ctx));
    /* complete column k-1, provisional column k, its Givens rotation;  rr = g_{k+1}^2 */
    KRYL_TRY(ops->gmres_dcgs2_column(ctx, &w->ls, k, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* v_k = (v_k - V_k s)/rho;  v_{k+1} = (w - V_k t - c_k v_k)/sigma */
    return ops->gmres_dcgs2_update(ctx, w->V, k, next, d, f, s->monitor);
}

/* CGS2 step k, after w = A z_k in v_{k+1}: two passes of block dot and
 * block update, the Givens rotation, the normalisation. */
static kryl_status cgs2_orthogonalise(kryl_solver s, gmres_work *w, int k, kryl_vector next)
{
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    kryl_scalar h = {w->ls.R + (size_t)k * (size_t)(w->m + 1)}, h2 = {w->ls.h2}, ww = {w->ls.ww};
    /* CGS pass 1: h = V'w;  w -= V h */
    KRYL_TRY(ops->multi_dot(ctx, w->V, k + 1, next, h, s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, h, k + 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(ops->multi_axpy(ctx, w->V, k + 1, -1.0, h, next, (kryl_scalar){NULL}, s->monitor));
    /* CGS pass 2: h2 = V'w;  w -= V h2;  ww = w'w */
    KRYL_TRY(ops->multi_dot(ctx, w->V, k + 1, next, h2, s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, h2, k + 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    KRYL_TRY(ops->multi_axpy(ctx, w->V, k + 1, -1.0, h2, next, ww, s->monitor));
    KRYL_TRY(kryl_reduce_begin(ctx, ww, 1));
    KRYL_TRY(kryl_reduce_end(ctx));
    /* h += h2;  h_{k+1,k} = ||w||;  Givens rotations;  rr = g_{k+1}^2 */
    KRYL_TRY(ops->gmres_givens(ctx, &w->ls, k, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* v_{k+1} = w/||w|| */
    return ops->normalize(ctx, next, ww, s->monitor);
}

static kryl_status gmres_step(kryl_solver s)
{
    gmres_work *w = s->work;
    const kryl_backend_ops *ops = s->ops;
    kryl_context ctx = s->ctx;
    if (w->k == 0) {
        /* x = x0 + M^-1 V y of the last cycle (none after start), then a new
         * cycle from r = b - A x */
        KRYL_TRY(form_x(s, w));
        KRYL_TRY(begin_cycle(s, w));
    }
    int k = w->k;
    kryl_vector next = &w->V[k + 1], zk;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
    KRYL_TRY(right_precondition(s, w, &zk));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* w = A z_k, built in place as v_{k+1} */
    KRYL_TRY(ops->spmv(ctx, s->Aw, 1.0, zk, 0.0, NULL, next, s->monitor));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    KRYL_TRY(w->dcgs2 ? dcgs2_orthogonalise(s, w, k, next) : cgs2_orthogonalise(s, w, k, next));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* record the residual estimate |g_{k+1}|; stop when it meets the tolerance */
    KRYL_TRY(ops->monitor_update(ctx, s->monitor, (kryl_scalar){w->ls.rr}, 1));
    w->k = (k + 1) % w->m;
    return KRYL_SUCCESS;
}

static kryl_status gmres_finish(kryl_solver s) { return form_x(s, s->work); }

/* DCGS2 lost orthogonality (its residual estimate says converged, the true
 * residual does not): the rest of the solve orthogonalises by CGS2, whose
 * arrays are always allocated.  The recorded steps are DCGS2's, so a graph
 * of them is dropped. */
static kryl_status gmres_fall_back(kryl_solver s, bool *switched)
{
    gmres_work *w = s->work;
    *switched = w->dcgs2;
    if (!w->dcgs2) return KRYL_SUCCESS;
    w->dcgs2 = false;
    kryl_solver_batching_release(s);
    kryl_log(s->ctx, KRYL_LOG_WARNING,
             "kryl: gmres: DCGS2 lost orthogonality (its residual estimate met the tolerance, "
             "the true residual is %.0f times or more above it); continuing with CGS2",
             KRYL_FALLBACK_GAP);
    return KRYL_SUCCESS;
}

static void gmres_destroy(kryl_solver s)
{
    gmres_work *w = s->work;
    kryl_solver_destroy(&s->inner);
    if (w->basis) s->ops->release(s->ctx, w->basis);
    if (w->zbasis) s->ops->release(s->ctx, w->zbasis);
    if (w->block) s->ops->release(s->ctx, w->block);
    free(w->V);
    free(w->Z);
    kryl_vector_destroy(&w->z);
    kryl_vector_destroy(&w->t);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_gmres = {
    .name = "gmres",
    .needs_symmetric = false,
    .setup = gmres_setup,
    .start = gmres_start,
    .step = gmres_step,
    .finish = gmres_finish,
    .fall_back = gmres_fall_back,
    .destroy = gmres_destroy,
};

const kryl_method_ops kryl_method_fgmres = {
    .name = "inner-outer gmres",
    .needs_symmetric = false,
    .inner_solver = true,
    .setup = fgmres_setup,
    .start = gmres_start,
    .step = gmres_step,
    .finish = gmres_finish,
    .fall_back = gmres_fall_back,
    .destroy = gmres_destroy,
};
