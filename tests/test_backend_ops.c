/* Every backend operation of every available backend against the ref
 * backend: random matrices of every test shape at the awkward sizes, in
 * double and single precision; then the guarded-iteration rules
 * (breakdown, NaN, stop guard), the convergence monitor and permuted
 * copies between precisions.  The omp backend is also run with a thread
 * count that divides nothing evenly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "test_support.h"

/* Relative tolerances against ref: double results differ only by
 * summation order; single results by a rounding of each entry (SpMV and
 * dots also by float accumulation on some backends). */
static double tolerance(kryl_precision p) { return p == KRYL_DOUBLE ? 1e-12 : 1e-4; }

/* ---- raw access to backend memory, independent of the ops under test ---- */

/* v's entries as doubles (a plain download, converted on the host). */
static void read_vector(kryl_vector v, double *out)
{
    kryl_context ctx = v->ctx;
    if (v->n == 0) return;
    if (v->precision == KRYL_DOUBLE) {
        CHECK_OK(ctx->ops->download(ctx, out, v->data, (size_t)v->n * sizeof(double)));
        return;
    }
    float *tmp = malloc((size_t)v->n * sizeof *tmp);
    CHECK_OK(ctx->ops->download(ctx, tmp, v->data, (size_t)v->n * sizeof(float)));
    for (int64_t i = 0; i < v->n; i++) out[i] = tmp[i];
    free(tmp);
}

/* v = values (rounded to v's precision on the host, then uploaded). */
static void write_vector(kryl_vector v, const double *values)
{
    kryl_context ctx = v->ctx;
    if (v->n == 0) return;
    if (v->precision == KRYL_DOUBLE) {
        CHECK_OK(ctx->ops->upload(ctx, v->data, values, (size_t)v->n * sizeof(double)));
        return;
    }
    float *tmp = malloc((size_t)v->n * sizeof *tmp);
    for (int64_t i = 0; i < v->n; i++) tmp[i] = (float)values[i];
    CHECK_OK(ctx->ops->upload(ctx, v->data, tmp, (size_t)v->n * sizeof(float)));
    free(tmp);
}

/* `count` doubles of backend memory set to `values`. */
static double *scalars_new(kryl_context ctx, int count, const double *values)
{
    double *p = NULL;
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&p, (size_t)count * sizeof(double)));
    if (values) CHECK_OK(ctx->ops->upload(ctx, p, values, (size_t)count * sizeof(double)));
    return p;
}

static double scalar_get(kryl_context ctx, const double *p)
{
    double v = NAN;
    CHECK_OK(ctx->ops->download(ctx, &v, p, sizeof v));
    return v;
}

static kryl_scalar scalar_at(double *base, int i) { return (kryl_scalar){base + i}; }

/* A monitor in backend memory with a history of `capacity` entries (plus
 * one sentinel entry after them that must never be written). */
typedef struct test_monitor {
    kryl_monitor host; /* the last uploaded or downloaded copy */
    kryl_monitor *dev;
    double *history;
} test_monitor;

#define HISTORY_SENTINEL (-12345.0)

static void monitor_new(kryl_context ctx, test_monitor *m, double tol2, int64_t capacity,
                        int32_t stop)
{
    memset(m, 0, sizeof *m);
    double *init = malloc((size_t)(capacity + 1) * sizeof *init);
    for (int64_t i = 0; i <= capacity; i++) init[i] = HISTORY_SENTINEL;
    m->history = scalars_new(ctx, (int)capacity + 1, init);
    free(init);
    m->host.tol2 = tol2;
    m->host.history = m->history;
    m->host.history_capacity = capacity;
    m->host.stop = stop;
    m->host.step_ran = stop == KRYL_STOP_RUNNING; /* as cg_update_xr leaves it */
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&m->dev, sizeof(kryl_monitor)));
    CHECK_OK(ctx->ops->upload(ctx, m->dev, &m->host, sizeof(kryl_monitor)));
}

static void monitor_read(kryl_context ctx, test_monitor *m, double *history, int64_t count)
{
    CHECK_OK(ctx->ops->download(ctx, &m->host, m->dev, sizeof(kryl_monitor)));
    if (history) CHECK_OK(ctx->ops->download(ctx, history, m->history, (size_t)count * 8));
}

static void monitor_free(kryl_context ctx, test_monitor *m)
{
    ctx->ops->release(ctx, m->dev);
    ctx->ops->release(ctx, m->history);
}

/* ---- one problem on two contexts: the oracle and the backend under test ---- */

typedef struct side {
    kryl_context ctx;
    kryl_matrix A; /* in the precision under test */
} side;

typedef struct problem {
    side ref, dut;
    const char *label; /* "omp(3) double random n=257" for messages */
    kryl_precision precision;
    int64_t n;
} problem;

/* A pair of vectors with the same contents on both sides. */
typedef struct pair {
    kryl_vector ref, dut;
} pair;

static pair pair_new(const problem *pb, const double *values)
{
    pair v = {NULL, NULL};
    CHECK_OK(kryl_vector_create(&v.ref, pb->ref.A, pb->precision));
    CHECK_OK(kryl_vector_create(&v.dut, pb->dut.A, pb->precision));
    if (values) {
        write_vector(v.ref, values);
        write_vector(v.dut, values);
    }
    return v;
}

static void pair_set(pair v, const double *values)
{
    write_vector(v.ref, values);
    write_vector(v.dut, values);
}

static void pair_free(pair *v)
{
    kryl_vector_destroy(&v->ref);
    kryl_vector_destroy(&v->dut);
}

/* max |dut - ref| / max(1, max |ref|) over the pair's entries. */
static double pair_diff(const problem *pb, pair v)
{
    double *a = malloc((size_t)pb->n * sizeof *a), *b = malloc((size_t)pb->n * sizeof *b);
    read_vector(v.dut, a);
    read_vector(v.ref, b);
    double d = test_rel_diff(a, b, pb->n);
    free(a);
    free(b);
    return d;
}

/* Whether every entry of the pair's tested side is finite. */
static bool pair_finite(const problem *pb, pair v)
{
    double *a = malloc((size_t)pb->n * sizeof *a);
    read_vector(v.dut, a);
    bool finite = true;
    for (int64_t i = 0; i < pb->n; i++) finite = finite && isfinite(a[i]);
    free(a);
    return finite;
}

#define CHECK_PAIR(pb, v, what)                                                                    \
    do {                                                                                           \
        double pd_ = pair_diff((pb), (v));                                                         \
        CHECK(pd_ <= tolerance((pb)->precision), "%s: %s differs from ref by %.3g", (pb)->label,   \
              (what), pd_);                                                                        \
    } while (0)

/* ---- comparisons with ref ---- */

static void compare_spmv(const problem *pb, const double *x0, const double *y0, const double *z0)
{
    const double coeffs[][2] = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0}, {0.0, 2.0}};
    pair x = pair_new(pb, x0), y = pair_new(pb, y0), z = pair_new(pb, z0);
    for (int c = 0; c < 4; c++) {
        double alpha = coeffs[c][0], beta = coeffs[c][1];
        /* three forms: z NULL, z == y, z distinct */
        for (int form = 0; form < 3; form++) {
            pair_set(y, y0);
            for (int s = 0; s < 2; s++) {
                const side *sd = s == 0 ? &pb->ref : &pb->dut;
                kryl_vector xv = s == 0 ? x.ref : x.dut, yv = s == 0 ? y.ref : y.dut;
                kryl_vector zv = form == 0 ? NULL : form == 1 ? yv : (s == 0 ? z.ref : z.dut);
                CHECK_OK(sd->ctx->ops->spmv(sd->ctx, sd->A, alpha, xv, beta, zv, yv, NULL));
            }
            char what[96];
            snprintf(what, sizeof what, "spmv alpha=%g beta=%g z=%s", alpha, beta,
                     form == 0   ? "NULL"
                     : form == 1 ? "y"
                                 : "z");
            CHECK_PAIR(pb, y, what);
        }
    }
    pair_free(&x);
    pair_free(&y);
    pair_free(&z);
}

static void compare_vector_ops(const problem *pb, const double *x0, const double *y0,
                               const double *d0)
{
    pair x = pair_new(pb, x0), y = pair_new(pb, y0), d = pair_new(pb, d0);
    const side *sides[2] = {&pb->ref, &pb->dut};

    for (int s = 0; s < 2; s++)
        CHECK_OK(sides[s]->ctx->ops->fill(sides[s]->ctx, s ? y.dut : y.ref, -3.25));
    CHECK_PAIR(pb, y, "fill");
    /* every backend makes the same pseudo-random entries, from any first index */
    for (int64_t first = 0; first <= 7; first += 7) {
        for (int s = 0; s < 2; s++)
            CHECK_OK(sides[s]->ctx->ops->fill_random(sides[s]->ctx, s ? y.dut : y.ref, 99, first));
        CHECK_PAIR(pb, y, first ? "fill_random from entry 7" : "fill_random");
    }

    const double coeffs[][2] = {{1.0, 1.0}, {2.5, -0.5}, {-1.0, 0.0}, {0.0, 3.0}};
    for (int c = 0; c < 4; c++) {
        pair_set(y, y0);
        for (int s = 0; s < 2; s++)
            CHECK_OK(sides[s]->ctx->ops->axpby(sides[s]->ctx, coeffs[c][0], s ? x.dut : x.ref,
                                               coeffs[c][1], s ? y.dut : y.ref));
        CHECK_PAIR(pb, y, "axpby");
    }
    /* y = 2 y - 0.5 y: x and y the same vector */
    for (int s = 0; s < 2; s++)
        CHECK_OK(sides[s]->ctx->ops->axpby(sides[s]->ctx, 2.0, s ? y.dut : y.ref, -0.5,
                                           s ? y.dut : y.ref));
    CHECK_PAIR(pb, y, "axpby in place");

    for (int s = 0; s < 2; s++)
        CHECK_OK(sides[s]->ctx->ops->pointwise_mult(sides[s]->ctx, s ? y.dut : y.ref,
                                                    s ? d.dut : d.ref, s ? x.dut : x.ref));
    CHECK_PAIR(pb, y, "pointwise_mult");
    for (int s = 0; s < 2; s++)
        CHECK_OK(sides[s]->ctx->ops->pointwise_mult(sides[s]->ctx, s ? y.dut : y.ref,
                                                    s ? d.dut : d.ref, s ? y.dut : y.ref));
    CHECK_PAIR(pb, y, "pointwise_mult in place");

    /* the Chebyshev step d = alpha dinv .* r + beta d;  x += d (r = x0, dinv = d0, d = y),
     * then from zero: NaN in the old d and x must not reach them */
    pair w = pair_new(pb, d0);
    pair_set(y, y0);
    for (int s = 0; s < 2; s++)
        CHECK_OK(sides[s]->ctx->ops->chebyshev_step(sides[s]->ctx, 0.75, s ? x.dut : x.ref,
                                                    s ? d.dut : d.ref, -0.5, s ? y.dut : y.ref,
                                                    s ? w.dut : w.ref, false));
    CHECK_PAIR(pb, y, "chebyshev_step d");
    CHECK_PAIR(pb, w, "chebyshev_step x");
    for (int s = 0; s < 2; s++) {
        kryl_context ctx = sides[s]->ctx;
        CHECK_OK(ctx->ops->fill(ctx, s ? y.dut : y.ref, NAN));
        CHECK_OK(ctx->ops->fill(ctx, s ? w.dut : w.ref, NAN));
        CHECK_OK(ctx->ops->chebyshev_step(ctx, 1.5, s ? x.dut : x.ref, s ? d.dut : d.ref, 0.0,
                                          s ? y.dut : y.ref, s ? w.dut : w.ref, true));
    }
    CHECK_PAIR(pb, y, "chebyshev_step d from zero");
    CHECK_PAIR(pb, w, "chebyshev_step x from zero");
    CHECK(pair_finite(pb, y) && pair_finite(pb, w), "%s: chebyshev_step from zero read NaN",
          pb->label);
    /* and with the step not kept (d NULL): x += alpha dinv .* r only */
    for (int s = 0; s < 2; s++)
        CHECK_OK(sides[s]->ctx->ops->chebyshev_step(sides[s]->ctx, 0.75, s ? x.dut : x.ref,
                                                    s ? d.dut : d.ref, 0.0, NULL, s ? w.dut : w.ref,
                                                    false));
    CHECK_PAIR(pb, w, "chebyshev_step x, the step not kept");
    pair_free(&w);

    /* dots x'y and x'x, and the same dot twice gives the same bits */
    pair_set(y, y0);
    double *sc[2] = {scalars_new(pb->ref.ctx, 3, NULL), scalars_new(pb->dut.ctx, 3, NULL)};
    for (int s = 0; s < 2; s++) {
        kryl_context ctx = sides[s]->ctx;
        kryl_vector xv = s ? x.dut : x.ref, yv = s ? y.dut : y.ref;
        CHECK_OK(ctx->ops->dot(ctx, xv, yv, scalar_at(sc[s], 0)));
        CHECK_OK(ctx->ops->dot(ctx, xv, xv, scalar_at(sc[s], 1)));
        CHECK_OK(ctx->ops->dot(ctx, xv, yv, scalar_at(sc[s], 2)));
    }
    double ref_xy = scalar_get(pb->ref.ctx, sc[0]), ref_xx = scalar_get(pb->ref.ctx, sc[0] + 1);
    double xy = scalar_get(pb->dut.ctx, sc[1]), xx = scalar_get(pb->dut.ctx, sc[1] + 1);
    double xy_again = scalar_get(pb->dut.ctx, sc[1] + 2);
    double tol = pb->precision == KRYL_DOUBLE ? 1e-11 : 1e-6;
    CHECK(test_close(xy, ref_xy, tol), "%s: x'y = %.17g, ref %.17g", pb->label, xy, ref_xy);
    CHECK(test_close(xx, ref_xx, tol), "%s: x'x = %.17g, ref %.17g", pb->label, xx, ref_xx);
    CHECK(xy == xy_again, "%s: dot not deterministic: %.17g then %.17g", pb->label, xy, xy_again);
    pb->ref.ctx->ops->release(pb->ref.ctx, sc[0]);
    pb->dut.ctx->ops->release(pb->dut.ctx, sc[1]);
    pair_free(&x);
    pair_free(&y);
    pair_free(&d);
}

static void compare_cg_updates(const problem *pb, double *const *vals)
{
    /* vals: p, q, x, r, dinv (positive), z */
    pair p = pair_new(pb, vals[0]), q = pair_new(pb, vals[1]), x = pair_new(pb, vals[2]);
    pair r = pair_new(pb, vals[3]), dinv = pair_new(pb, vals[4]), z = pair_new(pb, vals[5]);
    const side *sides[2] = {&pb->ref, &pb->dut};
    const double init[4] = {0.7, 1.3, 0.0, 0.0}; /* num, den, rz, rr */
    double *sc[2] = {scalars_new(pb->ref.ctx, 4, init), scalars_new(pb->dut.ctx, 4, init)};
    double tol = pb->precision == KRYL_DOUBLE ? 1e-11 : 1e-5;

    for (int with_dinv = 0; with_dinv < 2; with_dinv++) {
        for (int s = 0; s < 2; s++) {
            kryl_context ctx = sides[s]->ctx;
            CHECK_OK(ctx->ops->cg_update_xr(
                ctx, scalar_at(sc[s], 0), scalar_at(sc[s], 1), s ? p.dut : p.ref, s ? q.dut : q.ref,
                s ? x.dut : x.ref, s ? r.dut : r.ref, with_dinv ? (s ? dinv.dut : dinv.ref) : NULL,
                with_dinv ? (s ? z.dut : z.ref) : NULL, scalar_at(sc[s], 2), scalar_at(sc[s], 3),
                NULL));
        }
        const char *form = with_dinv ? "cg_update_xr with dinv" : "cg_update_xr";
        CHECK_PAIR(pb, x, form);
        CHECK_PAIR(pb, r, form);
        if (with_dinv) CHECK_PAIR(pb, z, form);
        for (int k = 2; k < 4; k++) {
            double a = scalar_get(pb->dut.ctx, sc[1] + k), b = scalar_get(pb->ref.ctx, sc[0] + k);
            CHECK(test_close(a, b, tol), "%s: %s %s = %.17g, ref %.17g", pb->label, form,
                  k == 2 ? "rz" : "rr", a, b);
        }
    }
    /* p = z + beta p, then the monitor records rr */
    test_monitor mon[2];
    for (int s = 0; s < 2; s++) {
        kryl_context ctx = sides[s]->ctx;
        monitor_new(ctx, &mon[s], 0.0, 4, KRYL_STOP_RUNNING);
        CHECK_OK(ctx->ops->cg_update_p(ctx, scalar_at(sc[s], 0), scalar_at(sc[s], 1),
                                       s ? z.dut : z.ref, s ? p.dut : p.ref, scalar_at(sc[s], 3),
                                       mon[s].dev));
        monitor_read(ctx, &mon[s], NULL, 0);
    }
    CHECK_PAIR(pb, p, "cg_update_p");
    CHECK(mon[1].host.iteration == 1 && mon[0].host.iteration == 1,
          "%s: cg_update_p recorded iteration %lld, ref %lld", pb->label,
          (long long)mon[1].host.iteration, (long long)mon[0].host.iteration);
    CHECK(test_close(mon[1].host.rr, mon[0].host.rr, tol),
          "%s: cg_update_p recorded rr %.17g, ref %.17g", pb->label, mon[1].host.rr,
          mon[0].host.rr);
    for (int s = 0; s < 2; s++) monitor_free(sides[s]->ctx, &mon[s]);
    pb->ref.ctx->ops->release(pb->ref.ctx, sc[0]);
    pb->dut.ctx->ops->release(pb->dut.ctx, sc[1]);
    pair_free(&p);
    pair_free(&q);
    pair_free(&x);
    pair_free(&r);
    pair_free(&dinv);
    pair_free(&z);
}

/* cg1_terms and cg1_update (single-reduction CG) against ref, with and
 * without dinv, and what they record in a monitor: q_i = p_i (1.5 + c_i)
 * with |c_i| <= 0.5 keeps p'q > 0, so the update runs. */
static void compare_cg1(const problem *pb, double *const *vals)
{
    double *qv = malloc((size_t)pb->n * sizeof *qv);
    for (int64_t i = 0; i < pb->n; i++) qv[i] = vals[0][i] * (1.5 + 0.5 * vals[1][i]);
    pair p = pair_new(pb, vals[0]), q = pair_new(pb, qv), x = pair_new(pb, vals[2]);
    pair r = pair_new(pb, vals[3]), dinv = pair_new(pb, vals[4]);
    const side *sides[2] = {&pb->ref, &pb->dut};
    double tol = pb->precision == KRYL_DOUBLE ? 1e-11 : 1e-5;
    for (int with_dinv = 0; with_dinv < 2; with_dinv++) {
        const char *form = with_dinv ? "cg1 with dinv" : "cg1";
        const int count = with_dinv ? KRYL_CG1_TERMS : KRYL_CG1_RDR;
        double *t[2];
        test_monitor m[2];
        for (int s = 0; s < 2; s++) {
            kryl_context ctx = sides[s]->ctx;
            t[s] = scalars_new(ctx, KRYL_CG1_TERMS, NULL);
            monitor_new(ctx, &m[s], 0.0, 4, KRYL_STOP_RUNNING);
            kryl_vector d = with_dinv ? (s ? dinv.dut : dinv.ref) : NULL;
            /* t = p'q, r'r, r'q, q'q [, r'Dr, r'Dq, q'Dq] */
            CHECK_OK(ctx->ops->cg1_terms(ctx, s ? p.dut : p.ref, s ? q.dut : q.ref,
                                         s ? r.dut : r.ref, d, scalar_at(t[s], 0), m[s].dev));
            /* x += alpha p;  r -= alpha q;  p = dinv.*r + beta p */
            CHECK_OK(ctx->ops->cg1_update(ctx, scalar_at(t[s], 0), s ? p.dut : p.ref,
                                          s ? q.dut : q.ref, s ? x.dut : x.ref, s ? r.dut : r.ref,
                                          d, m[s].dev));
            monitor_read(ctx, &m[s], NULL, 0);
        }
        for (int k = 0; k < count; k++) {
            double a = scalar_get(pb->dut.ctx, t[1] + k), b = scalar_get(pb->ref.ctx, t[0] + k);
            CHECK(test_close(a, b, tol), "%s: %s term %d = %.17g, ref %.17g", pb->label, form, k, a,
                  b);
        }
        CHECK_PAIR(pb, x, form);
        CHECK_PAIR(pb, r, form);
        CHECK_PAIR(pb, p, form);
        CHECK(m[1].host.stop == m[0].host.stop && m[1].host.iteration == m[0].host.iteration &&
                  test_close(m[1].host.rr, m[0].host.rr, tol),
              "%s: %s monitor: stop %d iteration %lld rr %.17g, ref %d %lld %.17g", pb->label, form,
              (int)m[1].host.stop, (long long)m[1].host.iteration, m[1].host.rr,
              (int)m[0].host.stop, (long long)m[0].host.iteration, m[0].host.rr);
        for (int s = 0; s < 2; s++) {
            sides[s]->ctx->ops->release(sides[s]->ctx, t[s]);
            monitor_free(sides[s]->ctx, &m[s]);
        }
    }
    free(qv);
    pair_free(&p);
    pair_free(&q);
    pair_free(&x);
    pair_free(&r);
    pair_free(&dinv);
}

static bool same_bits(const double *a, const double *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* csr_row_sums of a double CSR in both forms: ref's bits (each row added
 * in its order on every backend) and ref's first zero row. */
static void compare_row_sums(const problem *pb)
{
    const kryl_backend_ops *dut_ops = pb->dut.ctx->ops;
    if (dut_ops->csr_row_sums == NULL || !kryl_matrix_natural_csr(pb->dut.A) ||
        !kryl_matrix_natural_csr(pb->ref.A))
        return;
    double *a = malloc((size_t)pb->n * sizeof *a), *b = malloc((size_t)pb->n * sizeof *b);
    const kryl_row_sums forms[] = {KRYL_ROW_SUMS_INVERSE, KRYL_ROW_SUMS_BY_DIAGONAL};
    for (int f = 0; f < 2; f++) {
        pair d = pair_new(pb, NULL);
        int64_t zero_ref = -2, zero_dut = -2;
        CHECK_OK(
            pb->ref.ctx->ops->csr_row_sums(pb->ref.ctx, pb->ref.A, forms[f], d.ref, &zero_ref));
        CHECK_OK(dut_ops->csr_row_sums(pb->dut.ctx, pb->dut.A, forms[f], d.dut, &zero_dut));
        read_vector(d.ref, b);
        read_vector(d.dut, a);
        const char *form = forms[f] == KRYL_ROW_SUMS_INVERSE ? "inverse" : "by diagonal";
        CHECK(same_bits(a, b, pb->n), "%s: csr_row_sums (%s) differs from ref", pb->label, form);
        CHECK(zero_dut == zero_ref, "%s: csr_row_sums (%s) zero row %lld, ref %lld", pb->label,
              form, (long long)zero_dut, (long long)zero_ref);
        pair_free(&d);
    }
    free(a);
    free(b);
}

static void compare_all(kryl_context ref_ctx, kryl_context dut_ctx, const char *backend,
                        test_shape shape, int64_t n, kryl_precision precision, bool float_values)
{
    uint64_t seed = (uint64_t)(shape * 1000 + n);
    problem pb = {{ref_ctx, test_random_matrix(ref_ctx, shape, n, seed, precision, float_values)},
                  {dut_ctx, test_random_matrix(dut_ctx, shape, n, seed, precision, float_values)},
                  NULL,
                  precision,
                  0};
    if (pb.ref.A == NULL || pb.dut.A == NULL) goto done;
    int64_t ncols = 0, nnz = 0;
    kryl_matrix_size(pb.ref.A, &pb.n, &ncols, &nnz);
    char label[128];
    snprintf(label, sizeof label, "%s %s %s%s n=%lld", backend, kryl_precision_name(precision),
             test_shape_name(shape), float_values ? " (float values)" : "", (long long)pb.n);
    pb.label = label;

    double *vals[6];
    for (int k = 0; k < 6; k++) {
        vals[k] = malloc((size_t)pb.n * sizeof(double));
        test_random_values(vals[k], pb.n, seed * 10 + (uint64_t)k);
    }
    for (int64_t i = 0; i < pb.n; i++) vals[4][i] = 0.5 + fabs(vals[4][i]); /* dinv > 0 */
    compare_spmv(&pb, vals[0], vals[1], vals[2]);
    compare_vector_ops(&pb, vals[0], vals[1], vals[4]);
    compare_cg_updates(&pb, vals);
    if (dut_ctx->ops->cg1_terms) compare_cg1(&pb, vals);
    if (precision == KRYL_DOUBLE) compare_row_sums(&pb);
    for (int k = 0; k < 6; k++) free(vals[k]);
done:
    kryl_matrix_destroy(&pb.ref.A);
    kryl_matrix_destroy(&pb.dut.A);
}

/* Every shape at every awkward size, with arbitrary and with float-exact
 * values; and wide matrices whose columns lie more than 2^15 from the
 * diagonal (compressed column offsets cannot hold them). */
static void compare_shapes(kryl_context ref_ctx, kryl_context ctx, const char *name,
                           kryl_precision precision)
{
    for (int exact = 0; exact < 2; exact++) {
        for (int s = 0; s < TEST_SHAPE_COUNT; s++)
            for (int k = 0; k < test_awkward_size_count; k++) {
                if (s == TEST_SHAPE_SINGLE && k > 0) break;
                compare_all(ref_ctx, ctx, name, (test_shape)s, test_awkward_sizes[k], precision,
                            exact);
            }
        compare_all(ref_ctx, ctx, name, TEST_SHAPE_RANDOM, 40000, precision, exact);
        compare_all(ref_ctx, ctx, name, TEST_SHAPE_DENSE_ROW, 40000, precision, exact);
    }
}

/* ---- rules every backend follows on its own ---- */

/* A stopped or refused step changes no vector and no output scalar. */
static void check_refused_steps(kryl_context ctx, const char *backend, kryl_precision precision)
{
    const int64_t n = 257;
    kryl_matrix A = test_random_matrix(ctx, TEST_SHAPE_RANDOM, n, 5, precision, false);
    if (A == NULL) return;
    kryl_vector v[6]; /* p, q, x, r, dinv, z */
    double *before[6], *after = malloc((size_t)n * sizeof *after);
    for (int k = 0; k < 6; k++) {
        CHECK_OK(kryl_vector_create(&v[k], A, precision));
        before[k] = malloc((size_t)n * sizeof(double));
        test_random_values(before[k], n, 77 + (uint64_t)k);
        if (k == 4)
            for (int64_t i = 0; i < n; i++) before[k][i] = 1.0 + fabs(before[k][i]);
        write_vector(v[k], before[k]);
        read_vector(v[k], before[k]); /* as stored, in the vector's precision */
    }
    /* {num, den, expected stop}: den = 0, den < 0, NaN den, NaN and Inf num */
    const struct {
        double num, den;
        int32_t stop;
        const char *what;
    } cases[] = {{1.0, 0.0, KRYL_STOP_BREAKDOWN, "den = 0"},
                 {1.0, -2.0, KRYL_STOP_BREAKDOWN, "den < 0"},
                 {1.0, NAN, KRYL_STOP_NAN, "den = NaN"},
                 {NAN, 1.0, KRYL_STOP_NAN, "num = NaN"},
                 {INFINITY, 1.0, KRYL_STOP_NAN, "num = Inf"},
                 {1.0, INFINITY, KRYL_STOP_NAN, "den = Inf"},
                 /* a monitor already stopped: every guarded op does nothing */
                 {1.0, 2.0, KRYL_STOP_CONVERGED, "stopped monitor"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        bool guard = cases[c].stop == KRYL_STOP_CONVERGED;
        for (int op = 0; op < 4; op++) {
            const double sentinel[4] = {cases[c].num, cases[c].den, 42.0, 43.0};
            double *sc = scalars_new(ctx, 4, sentinel);
            /* cg1_update's terms without dinv: alpha = r'r/p'q = num/den */
            const double terms[KRYL_CG1_RDR] = {cases[c].den, cases[c].num, 0.5, 1.0};
            double *t =
                op == 3 && ctx->ops->cg1_update ? scalars_new(ctx, KRYL_CG1_RDR, terms) : NULL;
            test_monitor m;
            monitor_new(ctx, &m, 0.0, 4, guard ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING);
            if (op == 0)
                CHECK_OK(ctx->ops->cg_update_xr(ctx, scalar_at(sc, 0), scalar_at(sc, 1), v[0], v[1],
                                                v[2], v[3], v[4], v[5], scalar_at(sc, 2),
                                                scalar_at(sc, 3), m.dev));
            else if (op == 1)
                CHECK_OK(ctx->ops->cg_update_p(ctx, scalar_at(sc, 0), scalar_at(sc, 1), v[5], v[0],
                                               scalar_at(sc, 3), m.dev));
            else if (op == 2 && guard)
                CHECK_OK(ctx->ops->spmv(ctx, A, 1.0, v[0], 0.5, v[3], v[1], m.dev));
            else if (t != NULL)
                CHECK_OK(ctx->ops->cg1_update(ctx, scalar_at(t, 0), v[0], v[1], v[2], v[3], NULL,
                                              m.dev));
            else {
                ctx->ops->release(ctx, sc);
                monitor_free(ctx, &m);
                continue;
            }
            monitor_read(ctx, &m, NULL, 0);
            const char *names[] = {"cg_update_xr", "cg_update_p", "spmv", "cg1_update"};
            const char *opname = names[op];
            CHECK(m.host.stop == cases[c].stop, "%s %s %s %s: stop = %d, expected %d", backend,
                  kryl_precision_name(precision), opname, cases[c].what, (int)m.host.stop,
                  (int)cases[c].stop);
            CHECK(m.host.iteration == 0, "%s %s: iteration changed", backend, opname);
            for (int k = 0; k < 6; k++) {
                read_vector(v[k], after);
                CHECK(same_bits(after, before[k], n), "%s %s %s %s: vector %d changed", backend,
                      kryl_precision_name(precision), opname, cases[c].what, k);
            }
            CHECK(scalar_get(ctx, sc + 2) == 42.0 && scalar_get(ctx, sc + 3) == 43.0,
                  "%s %s %s: rz or rr written", backend, opname, cases[c].what);
            ctx->ops->release(ctx, sc);
            if (t) ctx->ops->release(ctx, t);
            monitor_free(ctx, &m);
        }
    }
    for (int k = 0; k < 6; k++) {
        kryl_vector_destroy(&v[k]);
        free(before[k]);
    }
    free(after);
    kryl_matrix_destroy(&A);
}

/* monitor_update: history, iteration counting, convergence, NaN, guard. */
static void check_monitor(kryl_context ctx, const char *backend)
{
    double *rr = scalars_new(ctx, 1, NULL);
    test_monitor m;
    double hist[5];
    monitor_new(ctx, &m, 1e-4, 4, KRYL_STOP_RUNNING);
    /* rr values fed in turn with their advance; ||r|| = sqrt(rr) */
    const double feed[] = {4.0, 1.0, 0.25, 1e-6, 9.0};
    const int advance[] = {0, 1, 1, 1, 1};
    for (int k = 0; k < 5; k++) {
        CHECK_OK(ctx->ops->upload(ctx, rr, &feed[k], sizeof(double)));
        CHECK_OK(ctx->ops->monitor_update(ctx, m.dev, scalar_at(rr, 0), advance[k]));
    }
    monitor_read(ctx, &m, hist, 5);
    /* converged at the fourth value (1e-6 <= 1e-4): the fifth changed nothing */
    CHECK(m.host.stop == KRYL_STOP_CONVERGED, "%s monitor: stop = %d, expected converged", backend,
          (int)m.host.stop);
    CHECK(m.host.iteration == 3, "%s monitor: iteration = %lld, expected 3", backend,
          (long long)m.host.iteration);
    CHECK(m.host.rr == 1e-6, "%s monitor: rr = %g, expected 1e-6", backend, m.host.rr);
    const double expect[5] = {2.0, 1.0, 0.5, 1e-3, HISTORY_SENTINEL};
    for (int k = 0; k < 5; k++)
        CHECK(test_close(hist[k], expect[k], 1e-15), "%s monitor: history[%d] = %g, expected %g",
              backend, k, hist[k], expect[k]);
    monitor_free(ctx, &m);

    /* past the history's capacity: counts on, writes nothing */
    monitor_new(ctx, &m, 0.0, 2, KRYL_STOP_RUNNING);
    const double one = 1.0;
    CHECK_OK(ctx->ops->upload(ctx, rr, &one, sizeof(double)));
    for (int k = 0; k < 4; k++) CHECK_OK(ctx->ops->monitor_update(ctx, m.dev, scalar_at(rr, 0), 1));
    monitor_read(ctx, &m, hist, 3);
    CHECK(m.host.iteration == 4 && m.host.stop == KRYL_STOP_RUNNING,
          "%s monitor: iteration %lld stop %d, expected 4 running", backend,
          (long long)m.host.iteration, (int)m.host.stop);
    CHECK(hist[1] == 1.0 && hist[2] == HISTORY_SENTINEL,
          "%s monitor: history beyond capacity written", backend);
    monitor_free(ctx, &m);

    /* NaN and Inf stop with NAN, and count the iteration */
    const double bad[2] = {NAN, INFINITY};
    for (int k = 0; k < 2; k++) {
        monitor_new(ctx, &m, 1e-4, 4, KRYL_STOP_RUNNING);
        CHECK_OK(ctx->ops->upload(ctx, rr, &bad[k], sizeof(double)));
        CHECK_OK(ctx->ops->monitor_update(ctx, m.dev, scalar_at(rr, 0), 1));
        monitor_read(ctx, &m, NULL, 0);
        CHECK(m.host.stop == KRYL_STOP_NAN && m.host.iteration == 1,
              "%s monitor: rr = %g gives stop %d iteration %lld, expected NAN at 1", backend,
              bad[k], (int)m.host.stop, (long long)m.host.iteration);
        monitor_free(ctx, &m);
    }
    /* a monitor stopped by breakdown is not changed */
    monitor_new(ctx, &m, 1e-4, 4, KRYL_STOP_BREAKDOWN);
    CHECK_OK(ctx->ops->upload(ctx, rr, &feed[3], sizeof(double)));
    CHECK_OK(ctx->ops->monitor_update(ctx, m.dev, scalar_at(rr, 0), 1));
    monitor_read(ctx, &m, hist, 1);
    CHECK(m.host.stop == KRYL_STOP_BREAKDOWN && m.host.iteration == 0 &&
              hist[0] == HISTORY_SENTINEL,
          "%s monitor: a stopped monitor was updated", backend);
    monitor_free(ctx, &m);
    ctx->ops->release(ctx, rr);
}

/* permute_copy between and within precisions, plain, gather, scatter and
 * scatter-add, and guarded by a stopped monitor. */
static void check_permute(kryl_context ctx, const char *backend, int64_t n)
{
    kryl_layout layout = {1, n, n, 0, NULL, NULL};
    double *x0 = malloc((size_t)n * sizeof *x0), *out = malloc((size_t)n * sizeof *out);
    double *expect = malloc((size_t)n * sizeof *expect);
    int32_t *perm = malloc((size_t)n * sizeof *perm);
    test_random_values(x0, n, 99);
    /* a random permutation (Fisher-Yates driven by test_random_values) */
    for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) {
        double u;
        test_random_values(&u, 1, 1000 + (uint64_t)i);
        int64_t j = (int64_t)((u + 1.0) * 0.5 * (double)(i + 1));
        if (j > i) j = i;
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int32_t *perm_dev = NULL;
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&perm_dev, (size_t)n * sizeof *perm));
    CHECK_OK(ctx->ops->upload(ctx, perm_dev, perm, (size_t)n * sizeof *perm));
    for (int yp = 0; yp < 2; yp++) {
        for (int xp = 0; xp < 2; xp++) {
            kryl_vector x = NULL, y = NULL;
            CHECK_OK(kryl_vector_create_like(&x, ctx, &layout, (kryl_precision)xp));
            CHECK_OK(kryl_vector_create_like(&y, ctx, &layout, (kryl_precision)yp));
            if (x == NULL || y == NULL) continue;
            write_vector(x, x0);
            double *xs = malloc((size_t)n * sizeof *xs);
            read_vector(x, xs); /* x as stored */
            static const kryl_permute_dir dirs[] = {KRYL_GATHER, KRYL_GATHER, KRYL_SCATTER,
                                                    KRYL_SCATTER_ADD};
            for (int mode = 0; mode < 4; mode++) {
                const int32_t *pp = mode == 0 ? NULL : perm_dev;
                read_vector(y, expect); /* what scatter-add adds to */
                CHECK_OK(ctx->ops->permute_copy(ctx, y, x, pp, dirs[mode], NULL));
                for (int64_t i = 0; i < n; i++) {
                    /* x_i in y's precision, then the sum rounded to it */
                    double xi = yp == KRYL_SINGLE ? (float)xs[i] : xs[i];
                    if (mode == 3)
                        expect[perm[i]] += xi;
                    else if (mode == 2)
                        expect[perm[i]] = xi;
                    else
                        expect[i] = mode == 0 ? xs[i] : xs[perm[i]];
                }
                if (yp == KRYL_SINGLE)
                    for (int64_t i = 0; i < n; i++) expect[i] = (float)expect[i];
                read_vector(y, out);
                CHECK(same_bits(out, expect, n), "%s permute_copy %s <- %s %s n=%lld wrong",
                      backend, kryl_precision_name((kryl_precision)yp),
                      kryl_precision_name((kryl_precision)xp),
                      mode == 0   ? "copy"
                      : mode == 1 ? "gather"
                      : mode == 2 ? "scatter"
                                  : "scatter-add",
                      (long long)n);
            }
            /* a stopped monitor guards the copy: y stays */
            test_monitor m;
            monitor_new(ctx, &m, 0.0, 4, KRYL_STOP_CONVERGED);
            read_vector(y, expect);
            CHECK_OK(ctx->ops->permute_copy(ctx, y, x, perm_dev, KRYL_SCATTER_ADD, m.dev));
            read_vector(y, out);
            CHECK(same_bits(out, expect, n), "%s permute_copy with a stopped monitor wrote y",
                  backend);
            monitor_free(ctx, &m);
            free(xs);
            kryl_vector_destroy(&x);
            kryl_vector_destroy(&y);
        }
    }
    ctx->ops->release(ctx, perm_dev);
    free(x0);
    free(out);
    free(expect);
    free(perm);
}

/* Every operation of one backend configuration. */
static void check_config(kryl_context ref_ctx, kryl_context ctx, kryl_backend_kind kind,
                         const char *name)
{
    for (int p = 0; p < 2; p++) {
        kryl_precision precision = (kryl_precision)p;
        if (kind != KRYL_BACKEND_REF) compare_shapes(ref_ctx, ctx, name, precision);
        check_refused_steps(ctx, name, precision);
    }
    check_monitor(ctx, name);
    for (int k = 0; k < test_awkward_size_count; k++)
        check_permute(ctx, name, test_awkward_sizes[k]);
}

int main(void)
{
    test_each_config(true, check_config);
    return test_summary("test_backend_ops");
}
