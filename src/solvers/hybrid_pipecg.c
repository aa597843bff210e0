/*
 * Pipelined CG on the host's cores and the device together (Tiwari &
 * Vadhiyar, "Efficient executions of pipelined conjugate gradient method
 * on heterogeneous architectures"; docs/HYBRID.md).  The iteration is
 * pipecg.c's (Ghysels & Vanroose 2014), written once over two sides, each
 * a context with its backend's operation table: the device (the solver's
 * context) and the host (omp, else ref).  Copies between them are the
 * device's link operations, on its second stream.
 *
 *   DOTS   (Hybrid-PIPECG-1, IV-A): the device updates the vectors, applies
 *          M and forms n = A m; r, u and w are copied to the host while it
 *          does, and the host forms gamma, delta and rr.
 *   MIRROR (Hybrid-PIPECG-2, IV-B): only n crosses the link; the host
 *          repeats the vector updates on its own copies for the same sums.
 *   SPLIT  (Hybrid-PIPECG-3, IV-C/D): the first rows on the host, the rest
 *          on the device, each side's SpMV split into the entries needing
 *          only its own m and those needing the other's; m's parts cross
 *          the link while the own parts are multiplied.  Each side's step
 *          is one fused update (the merged loops and kernel of V-B).
 *
 * The three sums of a step are combined on the host, which reads the
 * device's part once a step (the one synchronisation of the iteration) and
 * writes the result to both sides, so both compute the same alpha and
 * beta.  Each side has a monitor: the driver's on the device, a host one
 * kept equal to it (both record the same ||r||), which guards the host's
 * operations and tells the host when the iteration has stopped.  The
 * vectors are recomputed every PIPECG_REPLACE_INTERVAL steps as in
 * pipecg.c, over both sides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/hybrid.h"
#include "solvers/pipecg.h"
#include "solvers/require_op.h"

enum { DEVICE = 0, HOST = 1, SIDES = 2 };

/* One side: its context, its rows and its vectors. */
typedef struct hybrid_side {
    kryl_context ctx;
    const kryl_backend_ops *ops;
    int64_t begin, rows;   /* SPLIT: its rows [begin, begin + rows) of A */
    kryl_matrix own;       /* SPLIT: its rows over its own columns */
    kryl_matrix coupling;  /* SPLIT: over the other side's columns (NULL: none) */
    kryl_vector halo;      /* SPLIT: the other side's part of the SpMV's input */
    kryl_vector b, dinv;   /* SPLIT: its rows of b and of Jacobi's 1/a_ii */
    kryl_vector n_next;    /* MIRROR, host: the next n, arriving over the link */
    kryl_pipecg_vectors v; /* its rows (SPLIT), every row (device; MIRROR host); DOTS
                              host: r, u, w */
    double *scalars;       /* backend: KRYL_PIPECG_SCALARS */
    kryl_monitor *monitor; /* the driver's on the device; the host's own */
    /* SPLIT, device: its rows of the driver's x and b, of Jacobi's 1/a_ii */
    struct kryl_vector_s x_rows, b_rows, dinv_rows;
} hybrid_side;

typedef struct hybrid_work {
    kryl_hybrid method;
    hybrid_side side[SIDES];
    int since_replacement;
    double sc[KRYL_PIPECG_SCALARS]; /* the combined scalars */
    double *coef;                   /* SPLIT: host (alpha, beta) record, or NULL */
    void *pinned[8];                /* host buffers page-locked for the link */
    int npinned;
} hybrid_work;

/* A view of rows [begin, begin + rows) of a double backend vector. */
static void rows_of(struct kryl_vector_s *view, kryl_vector v, int64_t begin, int64_t rows)
{
    memset(view, 0, sizeof *view);
    view->ctx = v->ctx;
    view->n = rows;
    view->precision = KRYL_DOUBLE;
    view->data = (double *)v->data + begin;
}

/* A double vector of n entries on side d. */
static kryl_status side_vector(hybrid_side *d, int64_t n, kryl_vector *v)
{
    kryl_layout *l = calloc(1, sizeof *l);
    if (l == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "cannot allocate a layout");
    l->refs = 1;
    l->n = l->n_global = n;
    kryl_status st = kryl_vector_create_like(v, d->ctx, l, KRYL_DOUBLE);
    kryl_layout_release(d->ctx, l);
    return st;
}

/* Page-lock a host vector that crosses the link. */
static kryl_status pin(kryl_solver s, hybrid_work *w, kryl_vector v)
{
    if (v == NULL || v->n == 0) return KRYL_SUCCESS;
    KRYL_TRY(s->ops->host_pin(s->ctx, v->data, (size_t)v->n * sizeof(double)));
    w->pinned[w->npinned++] = v->data;
    return KRYL_SUCCESS;
}

/* The host's pipelined CG vectors of n rows (DOTS: r, u, w only). */
static kryl_status host_vectors(kryl_solver s, hybrid_side *h, int64_t n, bool all)
{
    kryl_pipecg_vectors *v = &h->v;
    kryl_vector *every[] = {&v->r, &v->w, &v->x, &v->n, &v->p, &v->s, &v->z};
    for (size_t i = 0; i < (all ? 7u : 2u); i++) KRYL_TRY(side_vector(h, n, every[i]));
    if (s->pc) KRYL_TRY(side_vector(h, n, &v->u));
    if (s->pc && all) {
        KRYL_TRY(side_vector(h, n, &v->m));
        KRYL_TRY(side_vector(h, n, &v->q));
    }
    return KRYL_SUCCESS;
}

/* The device's vectors of every row (DOTS, MIRROR), as pipecg.c has them. */
static kryl_status device_vectors(kryl_solver s, hybrid_side *d)
{
    kryl_pipecg_vectors *v = &d->v;
    v->x = s->x_work;
    kryl_vector *own[] = {&v->r, &v->w, &v->n, &v->p, &v->s, &v->z};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        KRYL_TRY(kryl_solver_work_vector(s, own[i]));
    if (s->pc) {
        KRYL_TRY(kryl_solver_work_vector(s, &v->u));
        KRYL_TRY(kryl_solver_work_vector(s, &v->m));
        KRYL_TRY(kryl_solver_work_vector(s, &v->q));
    }
    return KRYL_SUCCESS;
}

/* The host side's context: the host's cores, logging like the solver's. */
static kryl_status host_context(kryl_solver s, kryl_context *host)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = kryl_backend_available(KRYL_BACKEND_OMP) ? KRYL_BACKEND_OMP : KRYL_BACKEND_REF;
    o.threads = s->ctx->threads;
    o.log = s->ctx->log;
    o.log_user = s->ctx->log_user;
    o.log_level = s->ctx->log_level;
    o.deterministic = kryl_context_deterministic(s->ctx);
    return kryl_context_create(host, &o);
}

/* ---- the split (SPLIT) ---- */

/* Each side's rows as its own and coupling matrices, its vectors and the
 * views of the driver's x and b and of the Jacobi diagonal. */
static kryl_status split_setup(kryl_solver s, hybrid_work *w)
{
    const kryl_csr *A = &s->A->host->csr;
    kryl_hybrid_info *info = &s->hybrid;
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    h->begin = 0;
    h->rows = info->host_rows;
    d->begin = h->rows;
    d->rows = A->nrows - h->rows;
    /* the device's part first, its host copy freed once on the device: A
     * and one side's copy of its rows in host memory at a time */
    KRYL_TRY(kryl_hybrid_part(d->ctx, A, d->begin, d->rows, &d->own, &d->coupling,
                              &info->device_nnz, &info->device_coupling_nnz));
    kryl_matrix_drop_host_copy(d->own);
    if (d->coupling) kryl_matrix_drop_host_copy(d->coupling);
    KRYL_TRY(kryl_hybrid_part(h->ctx, A, h->begin, h->rows, &h->own, &h->coupling, &info->host_nnz,
                              &info->host_coupling_nnz));
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        kryl_pipecg_vectors *v = &e->v;
        kryl_vector *own[] = {&v->r, &v->w, &v->n, &v->p, &v->s, &v->z};
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            KRYL_TRY(side_vector(e, e->rows, own[i]));
        if (s->pc) {
            KRYL_TRY(side_vector(e, e->rows, &v->u));
            KRYL_TRY(side_vector(e, e->rows, &v->m));
            KRYL_TRY(side_vector(e, e->rows, &v->q));
        }
        KRYL_TRY(side_vector(e, w->side[1 - k].rows, &e->halo));
    }
    rows_of(&d->x_rows, s->x_work, d->begin, d->rows);
    rows_of(&d->b_rows, s->b_work, d->begin, d->rows);
    d->v.x = &d->x_rows;
    d->b = &d->b_rows;
    KRYL_TRY(side_vector(h, h->rows, &h->v.x));
    KRYL_TRY(side_vector(h, h->rows, &h->b));
    if (s->pc) {
        rows_of(&d->dinv_rows, s->pc->dinv, d->begin, d->rows);
        d->dinv = &d->dinv_rows;
        KRYL_TRY(side_vector(h, h->rows, &h->dinv));
        KRYL_TRY(s->ops->download(s->ctx, h->dinv->data, s->pc->dinv->data,
                                  (size_t)h->rows * sizeof(double)));
    }
    /* the host's buffers that cross the link: its m (w without M) and its halo */
    KRYL_TRY(pin(s, w, s->pc ? h->v.m : h->v.w));
    KRYL_TRY(pin(s, w, h->halo));
    if (s->options.record_history) {
        size_t entries = 2 * (size_t)(s->options.max_iterations + 1);
        w->coef = calloc(entries, sizeof(double));
        if (w->coef == NULL)
            return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "hybrid: cannot allocate the coefficients");
    }
    return KRYL_SUCCESS;
}

/* The side whose scalars the two share: the host's where it has rows. */
static int authority(const hybrid_work *w)
{
    return w->method == KRYL_HYBRID_SPLIT && w->side[HOST].rows == 0 ? DEVICE : HOST;
}

/* Both sides' scalar blocks <- w->sc. */
static kryl_status push_scalars(hybrid_work *w)
{
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        KRYL_TRY(e->ops->upload(e->ctx, e->scalars, w->sc, sizeof w->sc));
    }
    return KRYL_SUCCESS;
}

/* w->sc <- gamma, delta, rr summed over the sides with rows, gamma_old
 * and alpha_old from the authority; waits for the device's work so far. */
static kryl_status gather_scalars(hybrid_work *w)
{
    double part[SIDES][KRYL_PIPECG_SCALARS];
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        KRYL_TRY(e->ops->download(e->ctx, part[k], e->scalars, sizeof part[k]));
    }
    const int a = authority(w);
    memcpy(w->sc, part[a], sizeof w->sc);
    for (int i = KRYL_PIPECG_GAMMA; i <= KRYL_PIPECG_RR; i++) {
        w->sc[i] = 0.0;
        for (int k = 0; k < SIDES; k++)
            if (w->side[k].rows > 0) w->sc[i] += part[k][i];
    }
    return KRYL_SUCCESS;
}

/* SPLIT's vector pair (one part a side) at a member of the step's vectors. */
typedef kryl_vector (*pick_fn)(hybrid_side *e);
static kryl_vector pick_r(hybrid_side *e) { return e->v.r; }
static kryl_vector pick_u(hybrid_side *e) { return e->v.u ? e->v.u : e->v.r; }
static kryl_vector pick_w(hybrid_side *e) { return e->v.w; }
static kryl_vector pick_m(hybrid_side *e) { return e->v.m ? e->v.m : e->v.w; }
static kryl_vector pick_n(hybrid_side *e) { return e->v.n; }
static kryl_vector pick_x(hybrid_side *e) { return e->v.x; }
static kryl_vector pick_b(hybrid_side *e) { return e->b; }
static kryl_vector pick_p(hybrid_side *e) { return e->v.p; }
static kryl_vector pick_s(hybrid_side *e) { return e->v.s; }
static kryl_vector pick_q(hybrid_side *e) { return e->v.q ? e->v.q : e->v.s; }
static kryl_vector pick_z(hybrid_side *e) { return e->v.z; }

/* SpMV over the split, first half: each side's part of x starts across the
 * link to the other's halo, and y = alpha A_own x + beta z on each side. */
static kryl_status split_spmv_begin(hybrid_work *w, double alpha, pick_fn x, double beta, pick_fn z,
                                    pick_fn y)
{
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    if (d->rows > 0 && h->rows > 0) {
        /* host halo <- the device's x;  device halo <- the host's x */
        KRYL_TRY(d->ops->copy_to_host_async(d->ctx, h->halo->data, x(d)->data,
                                            (size_t)d->rows * sizeof(double)));
        KRYL_TRY(d->ops->copy_from_host_async(d->ctx, d->halo->data, x(h)->data,
                                              (size_t)h->rows * sizeof(double)));
    }
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        if (e->rows == 0) continue;
        /* y = alpha A_own x + beta z */
        KRYL_TRY(
            e->ops->spmv(e->ctx, e->own, alpha, x(e), beta, z ? z(e) : NULL, y(e), e->monitor));
    }
    return KRYL_SUCCESS;
}

/* Second half: once the halos have arrived, y += alpha A_coupling halo. */
static kryl_status split_spmv_end(hybrid_work *w, double alpha, pick_fn y)
{
    hybrid_side *d = &w->side[DEVICE];
    KRYL_TRY(d->ops->copy_wait(d->ctx));
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        if (e->rows == 0 || e->coupling == NULL) continue;
        /* y += alpha A_coupling halo */
        KRYL_TRY(e->ops->spmv(e->ctx, e->coupling, alpha, e->halo, 1.0, y(e), y(e), e->monitor));
    }
    return KRYL_SUCCESS;
}

static kryl_status split_spmv(hybrid_work *w, double alpha, pick_fn x, double beta, pick_fn z,
                              pick_fn y)
{
    KRYL_TRY(split_spmv_begin(w, alpha, x, beta, z, y));
    return split_spmv_end(w, alpha, y);
}

/* y = M^-1 x on each side (Jacobi: dinv .* x); nothing without M. */
static kryl_status split_precond(kryl_solver s, hybrid_work *w, pick_fn x, pick_fn y)
{
    if (s->pc == NULL) return KRYL_SUCCESS;
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        if (e->rows > 0) KRYL_TRY(e->ops->pointwise_mult(e->ctx, y(e), e->dinv, x(e)));
    }
    return KRYL_SUCCESS;
}

/* From r: u = M^-1 r;  w = A u;  m = M^-1 w;  gamma = r'u;  delta = w'u;
 * rr = r'r, summed over the sides into both (pipecg.c's rebuild, split). */
static kryl_status split_rebuild(kryl_solver s, hybrid_work *w)
{
    KRYL_TRY(split_precond(s, w, pick_r, pick_u));
    KRYL_TRY(split_spmv(w, 1.0, pick_u, 0.0, NULL, pick_w));
    KRYL_TRY(split_precond(s, w, pick_w, pick_m));
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        if (e->rows == 0) continue;
        KRYL_TRY(e->ops->dot2(e->ctx, e->v.r, e->v.w, pick_u(e),
                              kryl_scalar_at(e->scalars, KRYL_PIPECG_GAMMA)));
        KRYL_TRY(e->ops->dot(e->ctx, e->v.r, e->v.r, kryl_scalar_at(e->scalars, KRYL_PIPECG_RR)));
    }
    KRYL_TRY(gather_scalars(w));
    return push_scalars(w);
}

/* Residual replacement over the split: r = b - A x, the rest from it;
 * s = A p;  q = M^-1 s;  z = A q. */
static kryl_status split_replace(kryl_solver s, hybrid_work *w)
{
    KRYL_TRY(split_spmv(w, -1.0, pick_x, 1.0, pick_b, pick_r));
    KRYL_TRY(split_rebuild(s, w));
    KRYL_TRY(split_spmv(w, 1.0, pick_p, 0.0, NULL, pick_s));
    KRYL_TRY(split_precond(s, w, pick_s, pick_q));
    return split_spmv(w, 1.0, pick_q, 0.0, NULL, pick_z);
}

/* ---- the methods' steps ---- */

/* ||r|| recorded on both monitors (advance 1, or 0 at a start). */
static kryl_status record(hybrid_work *w, int advance)
{
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        KRYL_TRY(e->ops->monitor_update(e->ctx, e->monitor,
                                        kryl_scalar_at(e->scalars, KRYL_PIPECG_RR), advance));
    }
    return KRYL_SUCCESS;
}

/* The device's scalars to the host's block (after the device computed them). */
static kryl_status device_scalars_to_host(hybrid_work *w)
{
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    KRYL_TRY(d->ops->download(d->ctx, w->sc, d->scalars, sizeof w->sc));
    return h->ops->upload(h->ctx, h->scalars, w->sc, sizeof w->sc);
}

/* MIRROR: the host's copies <- the device's vectors and scalars. */
static kryl_status refresh_mirror(hybrid_work *w)
{
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    const kryl_vector from[] = {d->v.x, d->v.r, d->v.u, d->v.w, d->v.m,
                                d->v.n, d->v.p, d->v.s, d->v.q, d->v.z};
    const kryl_vector to[] = {h->v.x, h->v.r, h->v.u, h->v.w, h->v.m,
                              h->v.n, h->v.p, h->v.s, h->v.q, h->v.z};
    for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
        if (from[i] == NULL) continue;
        KRYL_TRY(d->ops->download(d->ctx, to[i]->data, from[i]->data,
                                  (size_t)from[i]->n * sizeof(double)));
    }
    return device_scalars_to_host(w);
}

/* Whether this step recomputes the vectors (every PIPECG_REPLACE_INTERVAL-th,
 * between the update and the SpMV, as in pipecg.c). */
static bool replacing(hybrid_work *w)
{
    if (++w->since_replacement < PIPECG_REPLACE_INTERVAL) return false;
    w->since_replacement = 0;
    return true;
}

/* The device's update of DOTS and MIRROR (its own sums are replaced by the
 * host's), and where due the recomputation of its vectors. */
static kryl_status device_update(kryl_solver s, hybrid_side *d, bool replace)
{
    kryl_vector dinv = s->pc ? s->pc->dinv : NULL;
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    /* alpha, beta;  z q s p x r u w updates;  m = dinv .* w */
    KRYL_TRY(d->ops->pipecg_update(d->ctx, kryl_scalar_at(d->scalars, 0), 0, &d->v, dinv,
                                   s->cg_coefficients, d->monitor, false));
    return replace ? kryl_pipecg_replace(s, &d->v, d->scalars) : KRYL_SUCCESS;
}

/* The device's m = M^-1 w (M other than Jacobi) and n = A m. */
static kryl_status device_spmv(kryl_solver s, hybrid_side *d)
{
    kryl_vector m = s->pc ? d->v.m : d->v.w;
    if (s->pc && !s->pc->dinv) {
        KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_PRECOND));
        /* m = M^-1 w */
        KRYL_TRY(s->pc->apply(s->pc, d->v.w, m));
    }
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    /* n = A m */
    return d->ops->spmv(d->ctx, s->Aw, 1.0, m, 0.0, NULL, d->v.n, d->monitor);
}

/* gamma, delta, rr <- the host's sums (DOTS, MIRROR), to the device. */
static kryl_status host_sums_to_device(hybrid_work *w)
{
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    KRYL_TRY(h->ops->download(h->ctx, w->sc, h->scalars, 3 * sizeof(double)));
    return d->ops->upload(d->ctx, d->scalars, w->sc, 3 * sizeof(double));
}

static kryl_status dots_step(kryl_solver s, hybrid_work *w, bool replace)
{
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    KRYL_TRY(device_update(s, d, replace));
    if (replace) {
        KRYL_TRY(device_spmv(s, d));
        return device_scalars_to_host(w);
    }
    /* r, u, w to the host while the device applies M and multiplies */
    size_t bytes = (size_t)d->v.r->n * sizeof(double);
    KRYL_TRY(d->ops->copy_to_host_async(d->ctx, h->v.r->data, d->v.r->data, bytes));
    KRYL_TRY(d->ops->copy_to_host_async(d->ctx, h->v.w->data, d->v.w->data, bytes));
    if (s->pc) KRYL_TRY(d->ops->copy_to_host_async(d->ctx, h->v.u->data, d->v.u->data, bytes));
    KRYL_TRY(device_spmv(s, d));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    KRYL_TRY(d->ops->copy_wait(d->ctx));
    kryl_vector u = s->pc ? h->v.u : h->v.r;
    /* gamma = r'u;  delta = w'u;  rr = r'r on the host */
    KRYL_TRY(h->ops->dot2(h->ctx, h->v.r, h->v.w, u, kryl_scalar_at(h->scalars, 0)));
    KRYL_TRY(h->ops->dot(h->ctx, h->v.r, h->v.r, kryl_scalar_at(h->scalars, KRYL_PIPECG_RR)));
    return host_sums_to_device(w);
}

static kryl_status mirror_step(kryl_solver s, hybrid_work *w, bool replace)
{
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    KRYL_TRY(device_update(s, d, replace));
    KRYL_TRY(device_spmv(s, d));
    if (replace) return refresh_mirror(w);
    /* the new n to the host while it repeats the update with the last one */
    KRYL_TRY(d->ops->copy_to_host_async(d->ctx, h->n_next->data, d->v.n->data,
                                        (size_t)d->v.n->n * sizeof(double)));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    /* the same update on the host's copies: gamma, delta, rr */
    KRYL_TRY(h->ops->pipecg_update(h->ctx, kryl_scalar_at(h->scalars, 0), 0, &h->v, h->dinv, NULL,
                                   h->monitor, false));
    KRYL_TRY(d->ops->copy_wait(d->ctx));
    kryl_vector t = h->v.n;
    h->v.n = h->n_next;
    h->n_next = t;
    return host_sums_to_device(w);
}

static kryl_status split_step(kryl_solver s, hybrid_work *w, bool replace)
{
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_VECTOR));
    const int a = authority(w);
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        if (e->rows == 0) continue;
        double *coef = k != a ? NULL : k == HOST ? w->coef : s->cg_coefficients;
        /* alpha, beta;  z q s p x r u w updates of its rows;  m = dinv .* w;
         * its parts of gamma, delta, rr */
        KRYL_TRY(e->ops->pipecg_update(e->ctx, kryl_scalar_at(e->scalars, 0), 0, &e->v, e->dinv,
                                       coef, e->monitor, false));
    }
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    if (replace) {
        /* the vectors and the sums anew;  n = A m */
        KRYL_TRY(split_replace(s, w));
        return split_spmv(w, 1.0, pick_m, 0.0, NULL, pick_n);
    }
    /* n = A m: the own parts while m's parts cross the link */
    KRYL_TRY(split_spmv_begin(w, 1.0, pick_m, 0.0, NULL, pick_n));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_REDUCTION));
    KRYL_TRY(gather_scalars(w));
    KRYL_TRY(kryl_solver_mark(s, KRYL_PHASE_SPMV));
    KRYL_TRY(split_spmv_end(w, 1.0, pick_n));
    return push_scalars(w);
}

/* ---- the method table ---- */

static kryl_status refuse(kryl_solver s, const char *why)
{
    return KRYL_ERROR(KRYL_ERR_UNSUPPORTED, "hybrid %s: %s", kryl_hybrid_name(s->options.hybrid),
                      why);
}

/* Whether the method can run the solver's options and preconditioner. */
static kryl_status check_hybrid(kryl_solver s, kryl_hybrid method)
{
    if (s->Aw != s->A)
        return refuse(s, "runs in double precision on CSR in the given row order (no --format, "
                         "--order or --precision)");
    if (method != KRYL_HYBRID_DOTS && s->pc && !s->pc->dinv)
        return refuse(s, "takes Jacobi or no preconditioner (hybrid 1 takes any)");
    if (s->options.hybrid_host_rows > s->A->host->csr.nrows)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT, "hybrid: %lld host rows of a matrix of %lld",
                          (long long)s->options.hybrid_host_rows, (long long)s->A->host->csr.nrows);
    return KRYL_SUCCESS;
}

/* What the device may still allocate for its part of the split (its free
 * memory, or its cap less what it holds), less the caller's b and x, which
 * it may create after the solver (kryl solve does), a 32nd kept for what
 * the estimate leaves out (past an H200's memory the part's estimate was
 * 0.4-2% above what it held; a tenth left 11% of the card idle:
 * docs/BENCHMARKS.md); INT64_MAX where nothing limits it. */
static int64_t device_budget(kryl_solver s)
{
    kryl_device_memory mem;
    if (kryl_context_device_memory(s->ctx, &mem) != KRYL_SUCCESS ||
        (mem.total == 0 && mem.limit == 0))
        return INT64_MAX;
    const int64_t left = mem.available - 16 * s->A->host->csr.nrows;
    return left > 0 ? left - left / 32 : 0;
}

/* What runs and the host's rows: as asked, or by the measured model (SPLIT
 * without host rows; AUTO where A does not fit the device), with at least
 * `fit` host rows (the device's part must fit its memory); too_big: A is
 * not on the device and would not fit there whole, so only the split can
 * run.  Sets s->hybrid. */
static kryl_status choose(kryl_solver s, kryl_context host, int64_t fit, bool too_big)
{
    kryl_hybrid_info *info = &s->hybrid;
    const kryl_solver_options *o = &s->options;
    const kryl_csr *A = &s->A->host->csr;
    info->model_host_share = -1.0;
    info->method = o->hybrid;
    info->device_rows = A->nrows;
    if (o->hybrid == KRYL_HYBRID_DOTS || o->hybrid == KRYL_HYBRID_MIRROR) {
        snprintf(info->reason, sizeof info->reason, "requested: every row on the device");
        return KRYL_SUCCESS;
    }
    info->method = KRYL_HYBRID_SPLIT;
    if (o->hybrid_host_rows >= 0 && o->hybrid_host_rows < fit)
        return KRYL_ERROR(KRYL_ERR_DEVICE_OUT_OF_MEMORY,
                          "hybrid 3: %lld host rows leave the device a part larger than the "
                          "%lld bytes it may allocate; give at least %lld host rows, or leave "
                          "the split to the model",
                          (long long)o->hybrid_host_rows, (long long)device_budget(s),
                          (long long)fit);
    if (o->hybrid_host_rows >= 0) {
        info->host_rows = o->hybrid_host_rows;
        snprintf(info->reason, sizeof info->reason, "requested: %lld host rows",
                 (long long)o->hybrid_host_rows);
        return KRYL_SUCCESS;
    }
    const long long budget = (long long)device_budget(s);
    if (too_big && kryl_context_deterministic(s->ctx)) {
        /* no timing: the device's memory alone sizes the split */
        info->host_rows = fit;
        snprintf(info->reason, sizeof info->reason,
                 "the matrix does not fit the device's %lld free bytes: it holds the last rows "
                 "that fit, the host the rest (deterministic: no model)",
                 budget);
        return KRYL_SUCCESS;
    }
    kryl_hybrid_model model;
    KRYL_TRY(kryl_hybrid_measure(s, host, &model, info));
    const double r = info->model_host_share;
    const double device_s = (double)kryl_csr_nnz(A) / model.device_rate;
    /* both sides finish their shares together; the exchange costs a fetch and
     * at most a vector each way */
    const double split_s = (1.0 - r) * device_s + model.sync_s + model.link_s;
    info->host_rows = kryl_hybrid_rows_for_share(A, r);
    if (too_big) {
        snprintf(info->reason, sizeof info->reason,
                 "the matrix does not fit the device's %lld free bytes: %s (the model: host "
                 "%.3g, device %.3g nonzeros/s, r_cpu = %.3f)",
                 budget,
                 fit >= info->host_rows ? "it holds the last rows that fit, the host the rest"
                                        : "the model gives the host more rows than that needs",
                 model.host_rate, model.device_rate, r);
        if (fit > info->host_rows) info->host_rows = fit;
        return KRYL_SUCCESS;
    }
    int written = snprintf(info->reason, sizeof info->reason,
                           "the model: host %.3g, device %.3g nonzeros/s, r_cpu = %.3f; "
                           "predicted SpMV %.3g s against %.3g s on the device alone",
                           model.host_rate, model.device_rate, r, split_s, device_s);
    if (fit > info->host_rows && written > 0 && (size_t)written < sizeof info->reason)
        snprintf(info->reason + written, sizeof info->reason - (size_t)written,
                 "; %lld more rows on the host: the device's part must fit its %lld free bytes",
                 (long long)(fit - info->host_rows), budget);
    if (fit > info->host_rows) info->host_rows = fit;
    return KRYL_SUCCESS;
}

static void hybrid_destroy(kryl_solver s);

/* One backend after all (AUTO without a GPU, or where the host does not
 * pay): the method as asked, set up in place of this one, with the whole A
 * in the backend's memory. */
static kryl_status one_backend(kryl_solver s)
{
    KRYL_TRY(kryl_matrix_need_storage(s->A, "hybrid auto's choice of one backend"));
    s->method = s->options.method == KRYL_METHOD_PCG ? &kryl_method_cg : &kryl_method_pipecg;
    s->period = s->method->period;
    return s->method->setup(s);
}

/* AUTO on a matrix the device can hold whole, decided before anything of
 * the host side is built: one backend (*split false; the caller sets it
 * up), or the split the bandwidth model predicts pays, with its host rows
 * in s->hybrid.  Nothing is timed but the host's copy loop, once per
 * context. */
static kryl_status auto_predict(kryl_solver s, bool *split)
{
    kryl_hybrid_info *info = &s->hybrid;
    const kryl_csr *A = &s->A->host->csr;
    *split = false;
    info->method = KRYL_HYBRID_NONE;
    info->device_rows = A->nrows;
    /* a context without a device stands in for one only under a cap */
    if (s->ctx->kind != KRYL_BACKEND_CUDA && s->ctx->emulated_gpu_memory <= 0) {
        snprintf(info->reason, sizeof info->reason, "no GPU: one backend (%s)", s->ops->name);
        return KRYL_SUCCESS;
    }
    if (s->Aw != s->A || (s->pc && !s->pc->dinv)) {
        snprintf(info->reason, sizeof info->reason,
                 "the split takes double CSR in the given order with Jacobi or no "
                 "preconditioner: one backend");
        return KRYL_SUCCESS;
    }
    if (kryl_context_deterministic(s->ctx)) {
        snprintf(info->reason, sizeof info->reason,
                 "deterministic: no split by timing, one backend");
        return KRYL_SUCCESS;
    }
    kryl_device_model device;
    KRYL_TRY(kryl_context_device_model(s->ctx, &device));
    kryl_hybrid_prediction p;
    /* the host's copy loop (tens of ms, the first time) only where a host
     * streaming at its threads' most could take rows */
    double host_bandwidth = kryl_hybrid_host_bandwidth_bound(s->ctx);
    kryl_hybrid_predict(A->nrows, A->ncols, kryl_csr_nnz(A), device.bandwidth, host_bandwidth, &p);
    if (p.split) {
        KRYL_TRY(kryl_hybrid_host_bandwidth(s->ctx, &host_bandwidth));
        kryl_hybrid_predict(A->nrows, A->ncols, kryl_csr_nnz(A), device.bandwidth, host_bandwidth,
                            &p);
    }
    const double nnz = (double)kryl_csr_nnz(A);
    info->model_predicted = true;
    info->model_host_share = p.share;
    info->device_nnz_per_s = nnz / p.device_s;
    info->host_nnz_per_s = nnz / p.host_s;
    const int64_t rows = kryl_hybrid_rows_for_share(A, p.share);
    const int written =
        snprintf(info->reason, sizeof info->reason,
                 "the bandwidth model (device %.3g, host %s%.3g GB/s): r_cpu = %.3f (%lld host "
                 "rows), an SpMV %.3g s split against %.3g s on the device alone",
                 1e-9 * p.device_bandwidth, p.split ? "" : "at most ", 1e-9 * p.host_bandwidth,
                 p.share, (long long)rows, p.split_s, p.device_s);
    if (!p.split) {
        if (written > 0 && (size_t)written < sizeof info->reason)
            snprintf(info->reason + written, sizeof info->reason - (size_t)written,
                     ": the saving does not beat the exchange by the margin; one backend");
        return KRYL_SUCCESS;
    }
    info->method = KRYL_HYBRID_SPLIT;
    info->host_rows = rows;
    *split = true;
    return KRYL_SUCCESS;
}

static kryl_status hybrid_setup(kryl_solver s)
{
    KRYL_REQUIRE_OP(s, "hybrid pipecg", pipecg_update);
    KRYL_REQUIRE_OP(s, "hybrid pipecg", dot2);
    KRYL_REQUIRE_OP(s, "hybrid pipecg", copy_to_host_async);
    /* the split and the model read A's rows on the host */
    KRYL_TRY(kryl_matrix_need_host(s->A, "the hybrid split of pipecg"));
    kryl_hybrid_info *info = &s->hybrid;
    memset(info, 0, sizeof *info);
    info->model_host_share = -1.0;
    /* the fewest host rows that leave the device a part it can hold; where A
     * is not on the device and would not fit there whole, only the split runs
     * (also where a backend without a GPU stands in for it under a cap) */
    const int64_t fit = kryl_hybrid_rows_to_fit(&s->A->host->csr, 0, device_budget(s));
    const bool too_big = s->A->storage_deferred && fit > 0;
    bool predicted_split = false;
    if (s->options.hybrid == KRYL_HYBRID_AUTO && !too_big) {
        KRYL_TRY(auto_predict(s, &predicted_split));
        if (!predicted_split) return one_backend(s);
        if (fit > info->host_rows) info->host_rows = fit;
    }
    /* a split by timing differs from run to run (one by memory alone does not) */
    if (s->options.hybrid == KRYL_HYBRID_SPLIT && s->options.hybrid_host_rows < 0 && !too_big &&
        kryl_context_deterministic(s->ctx))
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "hybrid 3 on a deterministic context: give the host's rows "
                          "(hybrid_host_rows); the model's split is timed");
    KRYL_TRY(check_hybrid(s, s->options.hybrid));
    hybrid_work *w = calloc(1, sizeof *w);
    if (w == NULL) return KRYL_ERROR(KRYL_ERR_OUT_OF_MEMORY, "hybrid: cannot allocate workspace");
    s->work = w;
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    d->ctx = s->ctx;
    d->ops = s->ops;
    d->monitor = s->monitor;
    KRYL_TRY(host_context(s, &h->ctx));
    h->ops = h->ctx->ops;
    if (!predicted_split) KRYL_TRY(choose(s, h->ctx, fit, too_big));
    w->method = info->method;
    if (w->method == KRYL_HYBRID_NONE) {
        hybrid_destroy(s);
        return one_backend(s);
    }
    if (w->method != KRYL_HYBRID_SPLIT)
        KRYL_TRY(kryl_matrix_need_storage(s->A, "hybrid 1 and 2 (every row on the device)"));
    info->device_rows = s->A->host->csr.nrows - info->host_rows;
    for (int k = 0; k < SIDES; k++) {
        hybrid_side *e = &w->side[k];
        KRYL_TRY(e->ops->alloc(e->ctx, (void **)&e->scalars, KRYL_PIPECG_SCALARS * sizeof(double)));
    }
    KRYL_TRY(h->ops->alloc(h->ctx, (void **)&h->monitor, sizeof *h->monitor));
    if (s->options.record_history) {
        size_t entries = 2 * (size_t)(s->options.max_iterations + 1);
        KRYL_TRY(s->ops->alloc(s->ctx, (void **)&s->cg_coefficients, entries * sizeof(double)));
    }
    if (w->method == KRYL_HYBRID_SPLIT) return split_setup(s, w);
    const int64_t n = s->A->host->csr.nrows;
    d->rows = n;
    KRYL_TRY(device_vectors(s, d));
    KRYL_TRY(host_vectors(s, h, n, w->method == KRYL_HYBRID_MIRROR));
    if (w->method == KRYL_HYBRID_DOTS) {
        KRYL_TRY(pin(s, w, h->v.r));
        KRYL_TRY(pin(s, w, h->v.w));
        return pin(s, w, h->v.u);
    }
    KRYL_TRY(side_vector(h, n, &h->n_next));
    KRYL_TRY(pin(s, w, h->n_next));
    if (s->pc) {
        KRYL_TRY(side_vector(h, n, &h->dinv));
        KRYL_TRY(
            s->ops->download(s->ctx, h->dinv->data, s->pc->dinv->data, (size_t)n * sizeof(double)));
    }
    return pin(s, w, h->v.n);
}

static kryl_status hybrid_start(kryl_solver s, kryl_vector r0)
{
    hybrid_work *w = s->work;
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    /* the host's monitor starts as the driver's, without a history */
    KRYL_TRY(d->ops->download(d->ctx, h->monitor, d->monitor, sizeof *h->monitor));
    h->monitor->history = NULL;
    h->monitor->history_capacity = 0;
    w->since_replacement = 0;
    if (w->method == KRYL_HYBRID_SPLIT) {
        size_t bytes = (size_t)h->rows * sizeof(double);
        /* the host's rows of r, x and b; the device's r from its rows of r0 */
        KRYL_TRY(d->ops->download(d->ctx, h->v.r->data, r0->data, bytes));
        KRYL_TRY(d->ops->download(d->ctx, h->v.x->data, s->x_work->data, bytes));
        KRYL_TRY(d->ops->download(d->ctx, h->b->data, s->b_work->data, bytes));
        struct kryl_vector_s r0_rows;
        rows_of(&r0_rows, r0, d->begin, d->rows);
        if (d->rows > 0)
            KRYL_TRY(d->ops->permute_copy(d->ctx, d->v.r, &r0_rows, NULL, KRYL_GATHER, NULL));
        /* u, w, m and the sums from r;  n = A m */
        KRYL_TRY(split_rebuild(s, w));
        KRYL_TRY(split_spmv(w, 1.0, pick_m, 0.0, NULL, pick_n));
        for (int k = 0; k < SIDES; k++)
            if (w->side[k].rows > 0)
                KRYL_TRY(w->side[k].ops->fill(w->side[k].ctx, w->side[k].v.p, 0.0));
    } else {
        KRYL_TRY(d->ops->permute_copy(d->ctx, d->v.r, r0, NULL, KRYL_GATHER, NULL));
        KRYL_TRY(kryl_pipecg_rebuild(s, &d->v, d->scalars));
        KRYL_TRY(d->ops->spmv(d->ctx, s->Aw, 1.0, s->pc ? d->v.m : d->v.w, 0.0, NULL, d->v.n,
                              d->monitor));
        KRYL_TRY(d->ops->fill(d->ctx, d->v.p, 0.0));
        KRYL_TRY(d->ops->download(d->ctx, w->sc, d->scalars, sizeof w->sc));
    }
    /* p = 0, gamma_old = alpha_old = 0: the first step is a fresh start */
    w->sc[KRYL_PIPECG_GAMMA_OLD] = w->sc[KRYL_PIPECG_ALPHA_OLD] = 0.0;
    KRYL_TRY(push_scalars(w));
    if (w->method == KRYL_HYBRID_MIRROR) KRYL_TRY(refresh_mirror(w));
    return record(w, 0);
}

static kryl_status hybrid_step(kryl_solver s)
{
    hybrid_work *w = s->work;
    /* stopped (the host's monitor is the driver's): queue nothing */
    if (w->side[HOST].monitor->stop != KRYL_STOP_RUNNING) return KRYL_SUCCESS;
    bool replace = replacing(w);
    KRYL_TRY(w->method == KRYL_HYBRID_SPLIT    ? split_step(s, w, replace)
             : w->method == KRYL_HYBRID_MIRROR ? mirror_step(s, w, replace)
                                               : dots_step(s, w, replace));
    return record(w, 1);
}

/* SPLIT: the host's rows of x (and the coefficients it recorded) back
 * into the driver's. */
static kryl_status hybrid_finish(kryl_solver s)
{
    hybrid_work *w = s->work;
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    if (w->method != KRYL_HYBRID_SPLIT) return KRYL_SUCCESS;
    KRYL_TRY(
        d->ops->upload(d->ctx, s->x_work->data, h->v.x->data, (size_t)h->rows * sizeof(double)));
    if (w->coef == NULL || authority(w) != HOST) return KRYL_SUCCESS;
    size_t used = 2 * (size_t)(h->monitor->iteration + 1);
    return d->ops->upload(d->ctx, s->cg_coefficients, w->coef, used * sizeof(double));
}

/* r = b - A x over the split (the driver's true residual and r0): the
 * device's rows there, with the host's rows of x (on the device as part of
 * x) for its coupling; the host's rows on the host, from copies of its rows
 * of x and b and of the device's rows of x.  The host's p, s, z and halo
 * serve as scratch: a start sets them anew. */
static kryl_status hybrid_residual(kryl_solver s, kryl_vector x, kryl_vector b, kryl_vector r)
{
    hybrid_work *w = s->work;
    if (w == NULL)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "hybrid pipecg: the solver's setup failed; create it again");
    if (w->method != KRYL_HYBRID_SPLIT) /* every row on the device: r = b - A x */
        return s->ops->spmv(s->ctx, s->A, -1.0, x, 1.0, b, r, NULL);
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    const size_t host_bytes = (size_t)h->rows * sizeof(double);
    struct kryl_vector_s xd, bd, rd, xh, bh;
    rows_of(&xd, x, d->begin, d->rows);
    rows_of(&bd, b, d->begin, d->rows);
    rows_of(&rd, r, d->begin, d->rows);
    rows_of(&xh, x, h->begin, h->rows);
    rows_of(&bh, b, h->begin, h->rows);
    if (h->rows > 0) {
        KRYL_TRY(d->ops->download(d->ctx, h->v.p->data, xh.data, host_bytes));
        KRYL_TRY(d->ops->download(d->ctx, h->v.s->data, bh.data, host_bytes));
        if (d->rows > 0)
            KRYL_TRY(
                d->ops->download(d->ctx, h->halo->data, xd.data, (size_t)d->rows * sizeof(double)));
    }
    if (d->rows > 0) {
        /* r_d = b_d - A_own x_d - A_coupling x_h */
        KRYL_TRY(d->ops->spmv(d->ctx, d->own, -1.0, &xd, 1.0, &bd, &rd, NULL));
        if (d->coupling)
            KRYL_TRY(d->ops->spmv(d->ctx, d->coupling, -1.0, &xh, 1.0, &rd, &rd, NULL));
    }
    if (h->rows == 0) return KRYL_SUCCESS;
    /* r_h = b_h - A_own x_h - A_coupling x_d, then to the device's r */
    KRYL_TRY(h->ops->spmv(h->ctx, h->own, -1.0, h->v.p, 1.0, h->v.s, h->v.z, NULL));
    if (h->coupling)
        KRYL_TRY(h->ops->spmv(h->ctx, h->coupling, -1.0, h->halo, 1.0, h->v.z, h->v.z, NULL));
    return d->ops->upload(d->ctx, r->data, h->v.z->data, host_bytes);
}

static void side_release(hybrid_side *e)
{
    kryl_vector *own[] = {&e->v.r, &e->v.w, &e->v.n, &e->v.p,  &e->v.s,   &e->v.z,
                          &e->v.u, &e->v.m, &e->v.q, &e->halo, &e->n_next};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) kryl_vector_destroy(own[i]);
    kryl_matrix_destroy(&e->own);
    kryl_matrix_destroy(&e->coupling);
}

static void hybrid_destroy(kryl_solver s)
{
    hybrid_work *w = s->work;
    if (w == NULL) return;
    hybrid_side *d = &w->side[DEVICE], *h = &w->side[HOST];
    if (d->ops) d->ops->synchronize(d->ctx);
    for (int i = 0; i < w->npinned; i++) s->ops->host_unpin(s->ctx, w->pinned[i]);
    side_release(d);
    if (h->ctx) {
        side_release(h);
        kryl_vector_destroy(&h->v.x);
        kryl_vector_destroy(&h->b);
        kryl_vector_destroy(&h->dinv);
        if (h->scalars) h->ops->release(h->ctx, h->scalars);
        if (h->monitor) h->ops->release(h->ctx, h->monitor);
        kryl_context_destroy(&h->ctx);
    }
    if (d->scalars) s->ops->release(s->ctx, d->scalars);
    if (s->cg_coefficients) s->ops->release(s->ctx, s->cg_coefficients);
    s->cg_coefficients = NULL;
    free(w->coef);
    free(w);
    s->work = NULL;
}

const kryl_method_ops kryl_method_hybrid_pipecg = {
    .name = "hybrid pipecg",
    .needs_symmetric = true,
    .period = 0, /* each step waits for the device's sums: never a graph */
    .setup = hybrid_setup,
    .start = hybrid_start,
    .step = hybrid_step,
    .finish = hybrid_finish,
    .residual = hybrid_residual,
    .destroy = hybrid_destroy,
};

kryl_status kryl_solver_hybrid_info(kryl_solver solver, kryl_hybrid_info *info)
{
    KRYL_REQUIRE_ARG(solver);
    KRYL_REQUIRE_ARG(info);
    if (solver->options.hybrid == KRYL_HYBRID_NONE)
        return KRYL_ERROR(KRYL_ERR_INVALID_ARGUMENT,
                          "kryl_solver_hybrid_info: the solver was not asked for a hybrid method");
    *info = solver->hybrid;
    return KRYL_SUCCESS;
}
