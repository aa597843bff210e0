/* The cuda backend's operations of pipelined CG (also fused with its
 * SpMV), BiCGSTAB, GMRES and flexible CG against the ref backend (their
 * specification), in float and double on awkward sizes: every output
 * compared, breakdowns and NaNs leaving everything unchanged, the monitor
 * guard; a captured graph replayed twice against the same operations run
 * twice; and solves through the public API with every method on cuda,
 * judged by the true residual, their iteration counts compared with ref's.
 * Skipped (77) without a usable CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "test_krylov_support.h"

enum { REF = 0, GPU = 1 };

/* A backend under test: REF is the oracle. */
typedef struct side {
    kryl_context ctx;
    const kryl_backend_ops *ops;
} side;

static side sides[2];

static const int64_t sizes[] = {1, 31, 33, 257, 4099};
#define SIZE_COUNT ((int)(sizeof sizes / sizeof sizes[0]))

/* Largest relative difference between the sides that rounding explains. */
static double tolerance(kryl_precision p) { return p == KRYL_DOUBLE ? 1e-12 : 2e-6; }

/* ... and for a sum of n products. */
static double sum_tolerance(kryl_precision p, int64_t n)
{
    return p == KRYL_DOUBLE ? 1e-13 * (double)(n + 1) : 1e-5;
}

/* ---- backend memory on both sides ---- */

static void *dev_alloc(int b, size_t bytes)
{
    void *ptr = NULL;
    if (sides[b].ops->alloc(sides[b].ctx, &ptr, bytes) != KRYL_SUCCESS) {
        fprintf(stderr, "alloc of %zu bytes on %s failed: %s\n", bytes, sides[b].ops->name,
                kryl_last_error());
        exit(1);
    }
    return ptr;
}

static void dev_put(int b, void *dst, const void *src, size_t bytes)
{
    CHECK_OK(sides[b].ops->upload(sides[b].ctx, dst, src, bytes));
    CHECK_OK(sides[b].ops->synchronize(sides[b].ctx));
}

static void dev_get(int b, void *dst, const void *src, size_t bytes)
{
    CHECK_OK(sides[b].ops->download(sides[b].ctx, dst, src, bytes));
}

/* The same vector (or `cols` consecutive columns of n entries) on both sides. */
typedef struct vpair {
    struct kryl_vector_s v[2];
    int64_t total; /* entries allocated: n * cols */
} vpair;

static void vp_set(vpair *v, const double *values)
{
    kryl_precision p = v->v[0].precision;
    size_t bytes = (size_t)v->total * kryl_precision_size(p);
    void *tmp = malloc(bytes ? bytes : 1);
    for (int64_t i = 0; i < v->total; i++) {
        if (p == KRYL_DOUBLE)
            ((double *)tmp)[i] = values[i];
        else
            ((float *)tmp)[i] = (float)values[i];
    }
    for (int b = 0; b < 2; b++) dev_put(b, v->v[b].data, tmp, bytes);
    free(tmp);
}

static vpair vp_cols(kryl_precision p, int64_t n, int cols, uint64_t seed)
{
    vpair v;
    v.total = n * cols;
    for (int b = 0; b < 2; b++) {
        struct kryl_vector_s w = {sides[b].ctx, NULL, n, p, NULL, false};
        w.data = dev_alloc(b, (size_t)(v.total ? v.total : 1) * kryl_precision_size(p));
        v.v[b] = w;
    }
    double *values = malloc((size_t)(v.total ? v.total : 1) * sizeof *values);
    test_random_values(values, v.total, seed);
    vp_set(&v, values);
    free(values);
    return v;
}

static vpair vp_new(kryl_precision p, int64_t n, uint64_t seed) { return vp_cols(p, n, 1, seed); }

/* The values of side b as doubles (malloc'ed), all `total` entries. */
static double *vp_values(const vpair *v, int b)
{
    kryl_precision p = v->v[b].precision;
    size_t bytes = (size_t)v->total * kryl_precision_size(p);
    void *raw = malloc(bytes ? bytes : 1);
    double *out = malloc((size_t)(v->total ? v->total : 1) * sizeof *out);
    dev_get(b, raw, v->v[b].data, bytes);
    for (int64_t i = 0; i < v->total; i++)
        out[i] = p == KRYL_DOUBLE ? ((double *)raw)[i] : (double)((float *)raw)[i];
    free(raw);
    return out;
}

/* max relative difference between the cuda and ref copies */
static double vp_diff(const vpair *v)
{
    double *r = vp_values(v, REF), *g = vp_values(v, GPU);
    double d = test_rel_diff(g, r, v->total);
    free(r);
    free(g);
    return d;
}

/* Whether side b still holds `before` exactly. */
static bool vp_same(const vpair *v, int b, const double *before)
{
    double *now = vp_values(v, b);
    bool same = memcmp(now, before, (size_t)v->total * sizeof *now) == 0;
    free(now);
    return same;
}

static void vp_free(vpair *v)
{
    for (int b = 0; b < 2; b++) sides[b].ops->release(sides[b].ctx, v->v[b].data);
}

/* `count` doubles in backend memory on both sides. */
typedef struct spair {
    double *ptr[2];
    int count;
} spair;

static void sp_set(spair *s, const double *values)
{
    for (int b = 0; b < 2; b++) dev_put(b, s->ptr[b], values, (size_t)s->count * sizeof(double));
}

static spair sp_new(int count, const double *values)
{
    spair s;
    s.count = count;
    for (int b = 0; b < 2; b++) s.ptr[b] = dev_alloc(b, (size_t)count * sizeof(double));
    if (values) sp_set(&s, values);
    return s;
}

static void sp_get(const spair *s, int b, double *out)
{
    dev_get(b, out, s->ptr[b], (size_t)s->count * sizeof(double));
}

static kryl_scalar sp_at(const spair *s, int b, int k)
{
    kryl_scalar out = {s->ptr[b] + k};
    return out;
}

/* Every entry of the two sides close (NaN equal to NaN). */
static void sp_check(const spair *s, double tol, const char *what)
{
    double *r = malloc((size_t)s->count * sizeof *r), *g = malloc((size_t)s->count * sizeof *g);
    sp_get(s, REF, r);
    sp_get(s, GPU, g);
    for (int k = 0; k < s->count; k++) {
        bool both_nan = isnan(r[k]) && isnan(g[k]);
        CHECK(both_nan || test_close(g[k], r[k], tol), "%s: scalar %d cuda %.17g ref %.17g", what,
              k, g[k], r[k]);
    }
    free(r);
    free(g);
}

static void sp_free(spair *s)
{
    for (int b = 0; b < 2; b++) sides[b].ops->release(sides[b].ctx, s->ptr[b]);
}

/* A monitor on both sides. */
typedef struct mpair {
    kryl_monitor *mon[2];
} mpair;

static void mp_set(mpair *m, int32_t stop, int64_t iteration, double tol2)
{
    kryl_monitor host;
    memset(&host, 0, sizeof host);
    host.stop = stop;
    host.iteration = iteration;
    host.tol2 = tol2;
    for (int b = 0; b < 2; b++) dev_put(b, m->mon[b], &host, sizeof host);
}

static mpair mp_new(int32_t stop)
{
    mpair m;
    for (int b = 0; b < 2; b++) m.mon[b] = dev_alloc(b, sizeof(kryl_monitor));
    mp_set(&m, stop, 0, 0.0);
    return m;
}

static kryl_monitor mp_get(const mpair *m, int b)
{
    kryl_monitor host;
    dev_get(b, &host, m->mon[b], sizeof host);
    return host;
}

static void mp_free(mpair *m)
{
    for (int b = 0; b < 2; b++) sides[b].ops->release(sides[b].ctx, m->mon[b]);
}

/* Both sides' monitors stopped for `why` (or both running: why 0). */
static void mp_check_stop(const mpair *m, int32_t why, const char *what)
{
    for (int b = 0; b < 2; b++)
        CHECK(mp_get(m, b).stop == why, "%s on %s: stop %d, expected %d", what, sides[b].ops->name,
              mp_get(m, b).stop, why);
}

/* ---- pipelined CG ---- */

/* The vectors of one pipelined CG step on both sides. */
typedef struct pipe_set {
    vpair x, r, u, w, m, n, p, s, q, z, dinv;
    kryl_pipecg_vectors v[2];
} pipe_set;

static void pipe_new(pipe_set *ps, kryl_precision p, int64_t n, int pc)
{
    vpair *all[] = {&ps->x, &ps->r, &ps->u, &ps->w, &ps->m,   &ps->n,
                    &ps->p, &ps->s, &ps->q, &ps->z, &ps->dinv};
    for (int i = 0; i < 11; i++) *all[i] = vp_new(p, n, 300 + (uint64_t)i);
    for (int b = 0; b < 2; b++) {
        kryl_pipecg_vectors v = {&ps->x.v[b],
                                 &ps->r.v[b],
                                 pc ? &ps->u.v[b] : NULL,
                                 &ps->w.v[b],
                                 pc ? &ps->m.v[b] : NULL,
                                 &ps->n.v[b],
                                 &ps->p.v[b],
                                 &ps->s.v[b],
                                 pc ? &ps->q.v[b] : NULL,
                                 &ps->z.v[b]};
        ps->v[b] = v;
    }
}

static void pipe_free(pipe_set *ps)
{
    vpair *all[] = {&ps->x, &ps->r, &ps->u, &ps->w, &ps->m,   &ps->n,
                    &ps->p, &ps->s, &ps->q, &ps->z, &ps->dinv};
    for (int i = 0; i < 11; i++) vp_free(all[i]);
}

static double pipe_diff(const pipe_set *ps)
{
    const vpair *all[] = {&ps->x, &ps->r, &ps->u, &ps->w, &ps->m,
                          &ps->n, &ps->p, &ps->s, &ps->q, &ps->z};
    double d = 0.0;
    for (int i = 0; i < 10; i++) d = fmax(d, vp_diff(all[i]));
    return d;
}

/* The fused step (cuda) against ref's SpMV n = A in, then its step in
 * place: every vector alike, the updated input in `next` on cuda and the
 * old one left in place; on matrices of every shape (a dense row takes the
 * stream kernel, hence the unfused path). */
static void test_pipecg_spmv(kryl_precision p, test_shape shape, int64_t n, int mode)
{
    pipe_set ps;
    pipe_new(&ps, p, n, mode > 0);
    vpair next = vp_new(p, n, 400);
    const vpair *in = mode > 0 ? &ps.m : &ps.w;
    kryl_matrix A[2];
    for (int b = 0; b < 2; b++)
        A[b] = test_random_matrix(sides[b].ctx, shape, n, 77 + (uint64_t)n, p, false);
    spair sc =
        sp_new(KRYL_PIPECG_SCALARS, (const double[KRYL_PIPECG_SCALARS]){1.5, 4.0, 1.0, 2.0, 0.5});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    kryl_vector dinv[2] = {mode == 2 ? &ps.dinv.v[REF] : NULL, mode == 2 ? &ps.dinv.v[GPU] : NULL};
    double *in_before = vp_values(in, GPU);
    /* ref: n = A in;  the step in place */
    CHECK_OK(sides[REF].ops->spmv(sides[REF].ctx, A[REF], 1.0, (kryl_vector)&in->v[REF], 0.0, NULL,
                                  &ps.n.v[REF], NULL));
    CHECK_OK(sides[REF].ops->pipecg_update(sides[REF].ctx, sp_at(&sc, REF, 0), 0, &ps.v[REF],
                                           dinv[REF], NULL, mon.mon[REF], true));
    /* cuda: both in one operation, the new input to next */
    CHECK_OK(sides[GPU].ops->pipecg_spmv_update(sides[GPU].ctx, A[GPU], sp_at(&sc, GPU, 0),
                                                &ps.v[GPU], dinv[GPU], &next.v[GPU], NULL,
                                                mon.mon[GPU], true));
    char what[96];
    snprintf(what, sizeof what, "pipecg_spmv_update %s n=%lld %s mode %d", test_shape_name(shape),
             (long long)n, kryl_precision_name(p), mode);
    const vpair *same[] = {&ps.x, &ps.r, &ps.u, &ps.w, &ps.m, &ps.p, &ps.s, &ps.q, &ps.z};
    double d = 0.0;
    for (int i = 0; i < 9; i++)
        if (same[i] != in || mode == 1) d = fmax(d, vp_diff(same[i]));
    if (mode != 1) {
        /* next on cuda holds what ref wrote to in; cuda's in is unchanged */
        double *r = vp_values(in, REF), *g = vp_values(&next, GPU);
        d = fmax(d, test_rel_diff(g, r, n));
        CHECK(vp_same(in, GPU, in_before), "%s: the SpMV's input changed", what);
        free(r);
        free(g);
    }
    CHECK(d <= 10 * tolerance(p), "%s: vectors differ by %.3g", what, d);
    sp_check(&sc, sum_tolerance(p, n), what);
    CHECK(mp_get(&mon, GPU).iteration == 1 && mp_get(&mon, REF).iteration == 1,
          "%s: the step must record ||r|| once", what);
    free(in_before);
    mp_free(&mon);
    sp_free(&sc);
    for (int b = 0; b < 2; b++) kryl_matrix_destroy(&A[b]);
    vp_free(&next);
    pipe_free(&ps);
}

/* A consistent start of pipelined CG on A (SPD) with M = diag(dinv) (mode
 * 2) or I (mode 0), set alike on both sides: x = p = s = q = z = 0, r
 * random, u = M r, w = A u, m = M w, and (gamma, delta, rr) = (r'u, w'u,
 * r'r) with gamma_old = alpha_old = 0, so the first step is a fresh one. */
static void pipe_start(pipe_set *ps, kryl_matrix A[2], int mode, spair *sc)
{
    const int64_t n = ps->x.total;
    double *zero = calloc((size_t)n + 1, sizeof *zero), *r = malloc((size_t)(n + 1) * sizeof *r);
    test_random_values(r, n, 501);
    vp_set(&ps->r, r);
    free(r);
    vpair *zeroed[] = {&ps->x, &ps->p, &ps->s, &ps->q, &ps->z};
    for (int i = 0; i < 5; i++) vp_set(zeroed[i], zero);
    double *dinv = malloc((size_t)(n + 1) * sizeof *dinv);
    test_random_values(dinv, n, 500);
    for (int64_t i = 0; i < n; i++) dinv[i] = mode == 2 ? 1.0 + 0.5 * dinv[i] : 1.0;
    vp_set(&ps->dinv, dinv);
    r = vp_values(&ps->r, REF); /* rounded to the working precision */
    double *u = malloc((size_t)(n + 1) * sizeof *u);
    for (int64_t i = 0; i < n; i++) u[i] = dinv[i] * r[i];
    vpair *uw = mode ? &ps->u : &ps->r;
    vp_set(uw, u);
    free(u);
    u = vp_values(uw, REF); /* rounded to the working precision */
    /* w = A u on ref, copied to both sides */
    vpair *w_pair = &ps->w;
    CHECK_OK(sides[REF].ops->spmv(sides[REF].ctx, A[REF], 1.0, &uw->v[REF], 0.0, NULL,
                                  &w_pair->v[REF], NULL));
    double *w = vp_values(w_pair, REF);
    vp_set(w_pair, w);
    if (mode) {
        double *m = malloc((size_t)(n + 1) * sizeof *m);
        for (int64_t i = 0; i < n; i++) m[i] = dinv[i] * w[i];
        vp_set(&ps->m, m);
        free(m);
    }
    double start[KRYL_PIPECG_SCALARS] = {0.0};
    for (int64_t i = 0; i < n; i++) {
        start[KRYL_PIPECG_GAMMA] += r[i] * u[i];
        start[KRYL_PIPECG_DELTA] += w[i] * u[i];
        start[KRYL_PIPECG_RR] += r[i] * r[i];
    }
    sp_set(sc, start);
    free(zero);
    free(dinv);
    free(r);
    free(u);
    free(w);
}

/* Whether a batch of steps in one launch was queued (checked), or skipped
 * on a large grid that does not fit this device with a group for every row. */
static bool resident_queued(bool queued, int64_t size, const char *what)
{
    if (!queued && size >= 300) {
        printf("%s: not resident here, skipped\n", what);
        return false;
    }
    CHECK(queued, "%s: not queued", what);
    return queued;
}

/* `count` fused steps in one launch (cuda) against ref's SpMV and step
 * `count` times, from a consistent start on an SPD matrix: every vector,
 * scalar and recorded coefficient alike, the updated input in `next` after
 * an odd count; then a tolerance met by the first step ends the batch
 * there, a stopped monitor leaves everything unchanged, and a matrix that
 * the fused kernel cannot take (a dense row) is refused with nothing
 * queued. */
static void test_pipecg_spmv_steps(kryl_precision p, kryl_generator_kind kind, int64_t size,
                                   int mode, int count)
{
    kryl_matrix A[2];
    for (int b = 0; b < 2; b++) {
        kryl_matrix G = kt_generate(sides[b].ctx, kind, size);
        A[b] = G;
        if (p == KRYL_SINGLE) {
            CHECK_OK(kryl_matrix_convert(&A[b], G, p, KRYL_FORMAT_CSR, NULL, KRYL_ORDER_NONE));
            kryl_matrix_destroy(&G);
        }
    }
    const int64_t n = kt_rows(A[REF]);
    char what[112];
    snprintf(what, sizeof what, "pipecg_spmv_steps %s n=%lld %s mode %d x%d",
             kryl_generator_name(kind), (long long)n, kryl_precision_name(p), mode, count);
    pipe_set ps;
    pipe_new(&ps, p, n, mode);
    vpair next = vp_new(p, n, 400);
    vpair *in = mode ? &ps.m : &ps.w;
    spair sc = sp_new(KRYL_PIPECG_SCALARS, NULL), coef = sp_new(2 * count, NULL);
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    kryl_vector dinv[2] = {mode ? &ps.dinv.v[REF] : NULL, mode ? &ps.dinv.v[GPU] : NULL};
    bool resident = true;
    for (int stop_early = 0; stop_early < 2; stop_early++) {
        pipe_start(&ps, A, mode, &sc);
        /* stop_early: every rr meets the tolerance; else none does */
        mp_set(&mon, KRYL_STOP_RUNNING, 0, stop_early ? INFINITY : -1.0);
        for (int k = 0; k < count; k++) {
            /* ref: n = A in;  the step, in updated in place */
            CHECK_OK(sides[REF].ops->spmv(sides[REF].ctx, A[REF], 1.0, &in->v[REF], 0.0, NULL,
                                          &ps.n.v[REF], mon.mon[REF]));
            CHECK_OK(sides[REF].ops->pipecg_update(sides[REF].ctx, sp_at(&sc, REF, 0), 0,
                                                   &ps.v[REF], dinv[REF], coef.ptr[REF] + 0,
                                                   mon.mon[REF], true));
        }
        bool queued = false;
        CHECK_OK(sides[GPU].ops->pipecg_spmv_steps(sides[GPU].ctx, A[GPU], sp_at(&sc, GPU, 0),
                                                   &ps.v[GPU], dinv[GPU], &next.v[GPU],
                                                   coef.ptr[GPU], mon.mon[GPU], count, &queued));
        resident = resident_queued(queued, size, what);
        if (!resident) break;
        const int done = stop_early ? 1 : count;
        const vpair *same[] = {&ps.x, &ps.r, &ps.u, &ps.w, &ps.p, &ps.s, &ps.q, &ps.z};
        double d = 0.0;
        for (int i = 0; i < 8; i++)
            if (same[i] != in) d = fmax(d, vp_diff(same[i]));
        if (!stop_early) {
            /* the updated input: in place after an even count, in next after an odd one */
            double *r = vp_values(in, REF), *g = vp_values(count % 2 ? &next : in, GPU);
            d = fmax(d, test_rel_diff(g, r, n));
            free(r);
            free(g);
        }
        CHECK(d <= 10 * done * tolerance(p), "%s stop_early %d: vectors differ by %.3g", what,
              stop_early, d);
        sp_check(&sc, 10 * done * sum_tolerance(p, n), what);
        double c[2][2];
        for (int b = 0; b < 2; b++) dev_get(b, c[b], coef.ptr[b] + 2 * (done - 1), sizeof c[b]);
        for (int j = 0; j < 2; j++)
            CHECK(test_close(c[GPU][j], c[REF][j], 10 * done * sum_tolerance(p, n)),
                  "%s: coefficient %d of the last step: cuda %.17g ref %.17g", what, j, c[GPU][j],
                  c[REF][j]);
        for (int b = 0; b < 2; b++)
            CHECK(mp_get(&mon, b).iteration == done, "%s on %s: %lld steps recorded, expected %d",
                  what, sides[b].ops->name, (long long)mp_get(&mon, b).iteration, done);
        mp_check_stop(&mon, stop_early ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING, what);
    }
    /* the guard: a stopped monitor, nothing changes */
    double *x_before = vp_values(&ps.x, GPU);
    bool queued = false;
    if (resident)
        CHECK_OK(sides[GPU].ops->pipecg_spmv_steps(sides[GPU].ctx, A[GPU], sp_at(&sc, GPU, 0),
                                                   &ps.v[GPU], dinv[GPU], &next.v[GPU], NULL,
                                                   mon.mon[GPU], count, &queued));
    CHECK(!resident || (queued && vp_same(&ps.x, GPU, x_before)),
          "%s: a stopped monitor must change nothing", what);
    free(x_before);
    mp_free(&mon);
    sp_free(&coef);
    sp_free(&sc);
    vp_free(&next);
    pipe_free(&ps);
    for (int b = 0; b < 2; b++) kryl_matrix_destroy(&A[b]);
}

/* ---- CG with one reduction, many steps in one launch ---- */

/* A CG start on both sides: x = 0, r random, p = dinv .* r (jacobi) or r. */
static void cg1_start(vpair *x, vpair *r, vpair *p, vpair *dinv, bool jacobi)
{
    const int64_t n = x->total;
    double *v = malloc((size_t)(n + 1) * sizeof *v), *d = malloc((size_t)(n + 1) * sizeof *d);
    test_random_values(d, n, 600);
    for (int64_t i = 0; i < n; i++) d[i] = jacobi ? 1.0 + 0.5 * d[i] : 1.0;
    vp_set(dinv, d);
    for (int64_t i = 0; i < n; i++) v[i] = 0.0;
    vp_set(x, v);
    test_random_values(v, n, 601);
    vp_set(r, v);
    for (int64_t i = 0; i < n; i++) v[i] *= d[i];
    vp_set(p, v);
    free(v);
    free(d);
}

/* `count` steps of cg1_steps (cuda, one launch) against ref's SpMV,
 * cg1_terms and cg1_update `count` times from a CG start on an SPD matrix:
 * x, r, p and the monitor alike; with a tolerance that the first step's
 * expanded ||r|| meets, both stop after it; a stopped monitor changes
 * nothing. */
static void test_cg1_steps(kryl_generator_kind kind, int64_t size, bool jacobi, int count)
{
    kryl_matrix A[2];
    for (int b = 0; b < 2; b++) A[b] = kt_generate(sides[b].ctx, kind, size);
    const int64_t n = kt_rows(A[REF]);
    char what[112];
    snprintf(what, sizeof what, "cg1_steps %s n=%lld %s x%d", kryl_generator_name(kind),
             (long long)n, jacobi ? "jacobi" : "none", count);
    vpair x = vp_new(KRYL_DOUBLE, n, 1), r = vp_new(KRYL_DOUBLE, n, 2);
    vpair p = vp_new(KRYL_DOUBLE, n, 3), q = vp_new(KRYL_DOUBLE, n, 4);
    vpair dinv = vp_new(KRYL_DOUBLE, n, 5);
    spair t = sp_new(KRYL_CG1_TERMS, NULL);
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    void *scratch = dev_alloc(GPU, 6 * (size_t)n * sizeof(double));
    kryl_vector d[2] = {jacobi ? &dinv.v[REF] : NULL, jacobi ? &dinv.v[GPU] : NULL};
    double tol_one = -1.0; /* the first step's expanded r'r, from ref */
    bool resident = true;
    vpair *state[] = {&x, &r, &p};
    double *whole[3] = {NULL, NULL, NULL}; /* x, r, p after `count` steps in one launch */
    for (int stop_early = 0; stop_early < 2 && resident; stop_early++) {
        cg1_start(&x, &r, &p, &dinv, jacobi);
        /* (a margin over rounding: the sums differ in order, and n = 1
         * leaves only rounding, about eps r0'r0, after one step) */
        double *r0 = vp_values(&r, REF), rr0 = 0.0;
        for (int64_t i = 0; i < n; i++) rr0 += r0[i] * r0[i];
        free(r0);
        double tol2 = tol_one * (1.0 + 1e-8) + 1e-10 * rr0;
        mp_set(&mon, KRYL_STOP_RUNNING, 0, stop_early ? tol2 : -1.0);
        for (int k = 0; k < count; k++) {
            /* ref: q = A p;  t;  the update */
            CHECK_OK(sides[REF].ops->spmv(sides[REF].ctx, A[REF], 1.0, &p.v[REF], 0.0, NULL,
                                          &q.v[REF], mon.mon[REF]));
            CHECK_OK(sides[REF].ops->cg1_terms(sides[REF].ctx, &p.v[REF], &q.v[REF], &r.v[REF],
                                               d[REF], sp_at(&t, REF, 0), mon.mon[REF]));
            CHECK_OK(sides[REF].ops->cg1_update(sides[REF].ctx, sp_at(&t, REF, 0), &p.v[REF],
                                                &q.v[REF], &x.v[REF], &r.v[REF], d[REF],
                                                mon.mon[REF]));
            if (k == 0 && !stop_early) tol_one = mp_get(&mon, REF).rr;
        }
        bool queued = false;
        CHECK_OK(sides[GPU].ops->cg1_steps(sides[GPU].ctx, A[GPU], &p.v[GPU], &x.v[GPU], &r.v[GPU],
                                           d[GPU], scratch, mon.mon[GPU], count, &queued));
        resident = resident_queued(queued, size, what);
        if (!resident) break;
        const int done = stop_early ? 1 : count;
        double diff = fmax(vp_diff(&x), fmax(vp_diff(&r), vp_diff(&p)));
        CHECK(diff <= 1e3 * done * tolerance(KRYL_DOUBLE),
              "%s stop_early %d: x, r, p differ by %.3g", what, stop_early, diff);
        for (int b = 0; b < 2; b++)
            CHECK(mp_get(&mon, b).iteration == done, "%s on %s: %lld steps recorded, expected %d",
                  what, sides[b].ops->name, (long long)mp_get(&mon, b).iteration, done);
        double rr[2] = {mp_get(&mon, REF).rr, mp_get(&mon, GPU).rr};
        CHECK(test_close(rr[GPU], rr[REF], 1e3 * done * sum_tolerance(KRYL_DOUBLE, n)),
              "%s: recorded r'r cuda %.17g ref %.17g", what, rr[GPU], rr[REF]);
        mp_check_stop(&mon, stop_early ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING, what);
        for (int v = 0; v < 3 && !stop_early; v++) whole[v] = vp_values(state[v], GPU);
    }
    /* where a launch begins changes no bit: one step, then the rest */
    if (whole[0] != NULL && count > 1) {
        cg1_start(&x, &r, &p, &dinv, jacobi);
        mp_set(&mon, KRYL_STOP_RUNNING, 0, -1.0);
        bool queued = false;
        for (int launch = 0; launch < 2; launch++)
            CHECK_OK(sides[GPU].ops->cg1_steps(sides[GPU].ctx, A[GPU], &p.v[GPU], &x.v[GPU],
                                               &r.v[GPU], d[GPU], scratch, mon.mon[GPU],
                                               launch ? count - 1 : 1, &queued));
        for (int v = 0; v < 3; v++)
            CHECK(vp_same(state[v], GPU, whole[v]),
                  "%s: vector %d of 1 + %d steps differs from %d steps in one launch", what, v,
                  count - 1, count);
    }
    for (int v = 0; v < 3; v++) free(whole[v]);
    /* the guard: a stopped monitor, nothing changes */
    double *x_before = vp_values(&x, GPU);
    bool queued = false;
    if (resident) {
        mp_set(&mon, KRYL_STOP_CONVERGED, 0, -1.0);
        CHECK_OK(sides[GPU].ops->cg1_steps(sides[GPU].ctx, A[GPU], &p.v[GPU], &x.v[GPU], &r.v[GPU],
                                           d[GPU], scratch, mon.mon[GPU], count, &queued));
    }
    CHECK(!resident || (queued && vp_same(&x, GPU, x_before)),
          "%s: a stopped monitor must change nothing", what);
    free(x_before);
    sides[GPU].ops->release(sides[GPU].ctx, scratch);
    mp_free(&mon);
    sp_free(&t);
    vpair *all[] = {&x, &r, &p, &q, &dinv};
    for (int i = 0; i < 5; i++) vp_free(all[i]);
    for (int b = 0; b < 2; b++) kryl_matrix_destroy(&A[b]);
}

/* cuda's cg1_step (one cooperative launch, this rank's terms) against
 * ref's cg1_terms and cg1_update: t, x, r, p and the monitor's records
 * alike; a stopped monitor changes nothing. */
static void test_cg1_step(kryl_precision prec, int64_t n, bool jacobi)
{
    char what[96];
    snprintf(what, sizeof what, "cg1_step %s n=%lld %s", kryl_precision_name(prec), (long long)n,
             jacobi ? "jacobi" : "none");
    vpair x = vp_new(prec, n, 1), r = vp_new(prec, n, 2), p = vp_new(prec, n, 3);
    vpair q = vp_new(prec, n, 4), dinv = vp_new(prec, n, 5);
    cg1_start(&x, &r, &p, &dinv, jacobi);
    /* q = p .* (1.5 + u), u in [-0.5, 0.5): p'q > 0, as q = A p of an SPD A */
    double *pv = vp_values(&p, REF), *u = malloc((size_t)(n + 1) * sizeof *u);
    test_random_values(u, n, 602);
    for (int64_t i = 0; i < n; i++) u[i] = pv[i] * (1.5 + 0.5 * u[i]);
    vp_set(&q, u);
    free(pv);
    free(u);
    kryl_vector d[2] = {jacobi ? &dinv.v[REF] : NULL, jacobi ? &dinv.v[GPU] : NULL};
    spair t = sp_new(KRYL_CG1_TERMS, NULL);
    sp_set(&t, (double[KRYL_CG1_TERMS]){0});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    mp_set(&mon, KRYL_STOP_RUNNING, 0, -1.0);
    /* ref: t;  the update */
    CHECK_OK(sides[REF].ops->cg1_terms(sides[REF].ctx, &p.v[REF], &q.v[REF], &r.v[REF], d[REF],
                                       sp_at(&t, REF, 0), mon.mon[REF]));
    CHECK_OK(sides[REF].ops->cg1_update(sides[REF].ctx, sp_at(&t, REF, 0), &p.v[REF], &q.v[REF],
                                        &x.v[REF], &r.v[REF], d[REF], mon.mon[REF]));
    CHECK_OK(sides[GPU].ops->cg1_step(sides[GPU].ctx, &p.v[GPU], &q.v[GPU], &x.v[GPU], &r.v[GPU],
                                      d[GPU], sp_at(&t, GPU, 0), mon.mon[GPU]));
    sp_check(&t, 10 * sum_tolerance(prec, n), what);
    double diff = fmax(vp_diff(&x), fmax(vp_diff(&r), vp_diff(&p)));
    CHECK(diff <= 1e3 * tolerance(prec), "%s: x, r, p differ by %.3g", what, diff);
    for (int b = 0; b < 2; b++)
        CHECK(mp_get(&mon, b).iteration == 1, "%s on %s: %lld steps recorded, expected 1", what,
              sides[b].ops->name, (long long)mp_get(&mon, b).iteration);
    double rr[2] = {mp_get(&mon, REF).rr, mp_get(&mon, GPU).rr};
    CHECK(test_close(rr[GPU], rr[REF], 1e3 * sum_tolerance(prec, n)),
          "%s: recorded r'r cuda %.17g ref %.17g", what, rr[GPU], rr[REF]);
    /* the guard: a stopped monitor, nothing changes */
    double *x_before = vp_values(&x, GPU);
    mp_set(&mon, KRYL_STOP_CONVERGED, 0, -1.0);
    CHECK_OK(sides[GPU].ops->cg1_step(sides[GPU].ctx, &p.v[GPU], &q.v[GPU], &x.v[GPU], &r.v[GPU],
                                      d[GPU], sp_at(&t, GPU, 0), mon.mon[GPU]));
    CHECK(vp_same(&x, GPU, x_before) && mp_get(&mon, GPU).iteration == 0,
          "%s: a stopped monitor must change nothing", what);
    free(x_before);
    mp_free(&mon);
    sp_free(&t);
    vpair *all[] = {&x, &r, &p, &q, &dinv};
    for (int i = 0; i < 5; i++) vp_free(all[i]);
}

/* Matrices cg1_steps cannot take (a dense row: the stream kernel; single
 * precision) are refused with nothing queued. */
static void test_cg1_steps_refused(void)
{
    const int64_t n = 257;
    for (int single = 0; single < 2; single++) {
        kryl_precision prec = single ? KRYL_SINGLE : KRYL_DOUBLE;
        kryl_matrix A = test_random_matrix(
            sides[GPU].ctx, single ? TEST_SHAPE_RANDOM : TEST_SHAPE_DENSE_ROW, n, 5, prec, false);
        vpair x = vp_new(prec, n, 1), r = vp_new(prec, n, 2), p = vp_new(prec, n, 3);
        mpair mon = mp_new(KRYL_STOP_RUNNING);
        void *scratch = dev_alloc(GPU, 6 * (size_t)n * sizeof(double));
        double *x_before = vp_values(&x, GPU);
        bool queued = true;
        CHECK_OK(sides[GPU].ops->cg1_steps(sides[GPU].ctx, A, &p.v[GPU], &x.v[GPU], &r.v[GPU], NULL,
                                           scratch, mon.mon[GPU], 3, &queued));
        CHECK(!queued && vp_same(&x, GPU, x_before) && mp_get(&mon, GPU).iteration == 0,
              "cg1_steps on %s: must be refused with nothing queued",
              single ? "a single-precision matrix" : "a dense row");
        free(x_before);
        sides[GPU].ops->release(sides[GPU].ctx, scratch);
        mp_free(&mon);
        vp_free(&x);
        vp_free(&r);
        vp_free(&p);
        kryl_matrix_destroy(&A);
    }
}

/* A dense row takes the stream kernel, which the fused steps cannot use:
 * refused, nothing queued. */
static void test_pipecg_spmv_steps_refused(void)
{
    const int64_t n = 257;
    kryl_matrix A =
        test_random_matrix(sides[GPU].ctx, TEST_SHAPE_DENSE_ROW, n, 5, KRYL_DOUBLE, false);
    pipe_set ps;
    pipe_new(&ps, KRYL_DOUBLE, n, 0);
    vpair next = vp_new(KRYL_DOUBLE, n, 400);
    spair sc =
        sp_new(KRYL_PIPECG_SCALARS, (const double[KRYL_PIPECG_SCALARS]){1.0, 1.0, 1.0, 0.0, 0.0});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    double *x_before = vp_values(&ps.x, GPU);
    bool queued = true;
    CHECK_OK(sides[GPU].ops->pipecg_spmv_steps(sides[GPU].ctx, A, sp_at(&sc, GPU, 0), &ps.v[GPU],
                                               NULL, &next.v[GPU], NULL, mon.mon[GPU], 3, &queued));
    CHECK(!queued && vp_same(&ps.x, GPU, x_before) && mp_get(&mon, GPU).iteration == 0,
          "pipecg_spmv_steps on a dense row: must be refused with nothing queued");
    free(x_before);
    mp_free(&mon);
    sp_free(&sc);
    vp_free(&next);
    pipe_free(&ps);
    kryl_matrix_destroy(&A);
}

/* Steps from chosen scalars: a restart, a continued recurrence, a spoilt
 * denominator (done as a restart), then breakdown, NaN and the guard. */
static void test_pipecg(kryl_precision p, int64_t n, int mode)
{
    /* mode 0: M = I;  1: M applied by the caller;  2: Jacobi fused */
    pipe_set ps;
    pipe_new(&ps, p, n, mode > 0);
    spair coef = sp_new(8, (const double[8]){0}), sc = sp_new(KRYL_PIPECG_SCALARS, NULL);
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    const double steps[3][KRYL_PIPECG_SCALARS] = {
        {2.0, 3.0, 1.0, NAN, NAN}, /* restart: old scalars not read */
        {1.5, 4.0, 1.0, 2.0, 0.5}, /* beta 0.75, den 1.75 */
        {1.5, 1.0, 1.0, 2.0, 0.5}  /* den < 0: restarted, beta 0 */
    };
    char what[96];
    for (int k = 0; k < 3; k++) {
        snprintf(what, sizeof what, "pipecg_update n=%lld %s mode %d step %d", (long long)n,
                 kryl_precision_name(p), mode, k);
        sp_set(&sc, steps[k]);
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->pipecg_update(sides[b].ctx, sp_at(&sc, b, 0), k == 0, &ps.v[b],
                                                 mode == 2 ? &ps.dinv.v[b] : NULL, coef.ptr[b],
                                                 mon.mon[b], false));
        mp_check_stop(&mon, KRYL_STOP_RUNNING, what);
        CHECK(pipe_diff(&ps) <= tolerance(p), "%s: vectors differ by %.3g", what, pipe_diff(&ps));
        sp_check(&sc, sum_tolerance(p, n), what);
        /* the coefficients of iteration k */
        mp_set(&mon, KRYL_STOP_RUNNING, k + 1, 0.0);
    }
    sp_check(&coef, 1e-15, "pipecg_update coefficients");
    /* breakdown (delta <= 0 in a restart), NaN, a stopped monitor: nothing changes */
    const double bad[3][KRYL_PIPECG_SCALARS] = {
        {2.0, -1.0, 1.0, 0.0, 0.0}, {NAN, 3.0, 1.0, 0.0, 0.0}, {2.0, 3.0, 1.0, 0.0, 0.0}};
    const int32_t start[3] = {KRYL_STOP_RUNNING, KRYL_STOP_RUNNING, KRYL_STOP_CONVERGED};
    const int32_t expect[3] = {KRYL_STOP_BREAKDOWN, KRYL_STOP_NAN, KRYL_STOP_CONVERGED};
    for (int t = 0; t < 3; t++) {
        sp_set(&sc, bad[t]);
        mp_set(&mon, start[t], 0, 0.0);
        double *x0 = vp_values(&ps.x, GPU), *w0 = vp_values(&ps.w, GPU);
        CHECK_OK(sides[GPU].ops->pipecg_update(sides[GPU].ctx, sp_at(&sc, GPU, 0), 1, &ps.v[GPU],
                                               mode == 2 ? &ps.dinv.v[GPU] : NULL, NULL,
                                               mon.mon[GPU], false));
        double after[KRYL_PIPECG_SCALARS];
        sp_get(&sc, GPU, after);
        CHECK(vp_same(&ps.x, GPU, x0) && vp_same(&ps.w, GPU, w0) &&
                  memcmp(after, bad[t], sizeof after) == 0,
              "pipecg_update case %d changed its vectors or scalars", t);
        CHECK(mp_get(&mon, GPU).stop == expect[t], "pipecg_update case %d: stop %d, expected %d", t,
              mp_get(&mon, GPU).stop, expect[t]);
        free(x0);
        free(w0);
    }
    mp_free(&mon);
    sp_free(&coef);
    sp_free(&sc);
    pipe_free(&ps);
}

static void test_dot2(kryl_precision p, int64_t n)
{
    vpair x = vp_new(p, n, 41), y = vp_new(p, n, 42), z = vp_new(p, n, 43);
    spair out = sp_new(2, NULL);
    for (int b = 0; b < 2; b++)
        CHECK_OK(sides[b].ops->dot2(sides[b].ctx, &x.v[b], &y.v[b], &z.v[b], sp_at(&out, b, 0)));
    sp_check(&out, sum_tolerance(p, n), "dot2");
    double first[2], again[2];
    sp_get(&out, GPU, first);
    CHECK_OK(
        sides[GPU].ops->dot2(sides[GPU].ctx, &x.v[GPU], &y.v[GPU], &z.v[GPU], sp_at(&out, GPU, 0)));
    sp_get(&out, GPU, again);
    CHECK(memcmp(first, again, sizeof first) == 0, "dot2 n=%lld is not deterministic",
          (long long)n);
    sp_free(&out);
    vp_free(&x);
    vp_free(&y);
    vp_free(&z);
}

/* ---- BiCGSTAB ---- */

static void test_bicgstab(kryl_precision p, int64_t n, int jacobi)
{
    const double tol = tolerance(p);
    vpair x = vp_new(p, n, 51), r = vp_new(p, n, 52), v = vp_new(p, n, 53), t = vp_new(p, n, 54),
          rh = vp_new(p, n, 55), ph = vp_new(p, n, 56), sh = vp_new(p, n, 57),
          pv = vp_new(p, n, 58), dinv = vp_new(p, n, 59);
    spair sc = sp_new(KRYL_BICG_SCALARS,
                      (const double[KRYL_BICG_SCALARS]){1.5, -0.5, 0, 0, 0.8, 2.0, 0, 0});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    char what[96];
    snprintf(what, sizeof what, "bicgstab n=%lld %s jacobi %d", (long long)n,
             kryl_precision_name(p), jacobi);
    /* without a preconditioner p_hat is p and s_hat is r (aliases) */
    for (int b = 0; b < 2; b++) {
        kryl_context c = sides[b].ctx;
        const kryl_backend_ops *ops = sides[b].ops;
        kryl_vector d = jacobi ? &dinv.v[b] : NULL;
        kryl_vector p_hat = jacobi ? &ph.v[b] : &pv.v[b], s_hat = jacobi ? &sh.v[b] : &r.v[b];
        CHECK_OK(
            ops->bicgstab_update_s(c, sp_at(&sc, b, 0), &r.v[b], &v.v[b], d, s_hat, mon.mon[b]));
        CHECK_OK(ops->bicgstab_update_xr(c, sp_at(&sc, b, 0), &x.v[b], &r.v[b], p_hat, s_hat,
                                         &t.v[b], &rh.v[b], mon.mon[b]));
    }
    mp_check_stop(&mon, KRYL_STOP_RUNNING, what);
    CHECK(vp_diff(&x) <= tol && vp_diff(&r) <= tol && vp_diff(&sh) <= tol,
          "%s: x/r/s_hat differ by %.3g %.3g %.3g", what, vp_diff(&x), vp_diff(&r), vp_diff(&sh));
    sp_check(&sc, sum_tolerance(p, n), what);
    /* rho_new from the kernel may be anything: set it so the update is regular */
    double c8[KRYL_BICG_SCALARS];
    sp_get(&sc, REF, c8);
    c8[KRYL_BICG_RHO_NEW] = 0.7;
    sp_set(&sc, c8);
    for (int b = 0; b < 2; b++)
        CHECK_OK(sides[b].ops->bicgstab_update_p(sides[b].ctx, sp_at(&sc, b, 0), &pv.v[b], &r.v[b],
                                                 &v.v[b], jacobi ? &dinv.v[b] : NULL,
                                                 jacobi ? &ph.v[b] : &pv.v[b], mon.mon[b]));
    CHECK(vp_diff(&pv) <= tol && vp_diff(&ph) <= tol, "%s: p/p_hat differ by %.3g %.3g", what,
          vp_diff(&pv), vp_diff(&ph));
    sp_check(&sc, sum_tolerance(p, n), what);

    /* breakdowns and NaN on the gpu: nothing changes */
    const struct {
        int op; /* 0: update_s, 1: update_xr, 2: update_p */
        int slot;
        double value;
        int32_t expect;
    } bad[] = {{0, KRYL_BICG_RV, 0.0, KRYL_STOP_BREAKDOWN},
               {0, KRYL_BICG_RHO, NAN, KRYL_STOP_NAN},
               {1, KRYL_BICG_TS, INFINITY, KRYL_STOP_NAN},
               {2, KRYL_BICG_OMEGA, 0.0, KRYL_STOP_BREAKDOWN},
               {2, KRYL_BICG_RHO_NEW, 0.0, KRYL_STOP_BREAKDOWN},
               {2, KRYL_BICG_ALPHA, NAN, KRYL_STOP_NAN}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        double cb[KRYL_BICG_SCALARS] = {1.5, -0.5, 0.25, 0.5, 0.8, 2.0, 1.0, 0.7}, after[8];
        cb[bad[k].slot] = bad[k].value;
        sp_set(&sc, cb);
        mp_set(&mon, KRYL_STOP_RUNNING, 0, 0.0);
        double *x0 = vp_values(&x, GPU), *r0 = vp_values(&r, GPU), *p0 = vp_values(&pv, GPU);
        kryl_context c = sides[GPU].ctx;
        const kryl_backend_ops *ops = sides[GPU].ops;
        kryl_vector d = jacobi ? &dinv.v[GPU] : NULL;
        kryl_vector p_hat = jacobi ? &ph.v[GPU] : &pv.v[GPU];
        kryl_vector s_hat = jacobi ? &sh.v[GPU] : &r.v[GPU];
        if (bad[k].op == 0)
            CHECK_OK(ops->bicgstab_update_s(c, sp_at(&sc, GPU, 0), &r.v[GPU], &v.v[GPU], d, s_hat,
                                            mon.mon[GPU]));
        else if (bad[k].op == 1)
            CHECK_OK(ops->bicgstab_update_xr(c, sp_at(&sc, GPU, 0), &x.v[GPU], &r.v[GPU], p_hat,
                                             s_hat, &t.v[GPU], &rh.v[GPU], mon.mon[GPU]));
        else
            CHECK_OK(ops->bicgstab_update_p(c, sp_at(&sc, GPU, 0), &pv.v[GPU], &r.v[GPU], &v.v[GPU],
                                            d, p_hat, mon.mon[GPU]));
        sp_get(&sc, GPU, after);
        CHECK(vp_same(&x, GPU, x0) && vp_same(&r, GPU, r0) && vp_same(&pv, GPU, p0) &&
                  memcmp(after, cb, sizeof after) == 0,
              "%s: case %zu changed its vectors or scalars", what, k);
        CHECK(mp_get(&mon, GPU).stop == bad[k].expect, "%s: case %zu stop %d, expected %d", what, k,
              mp_get(&mon, GPU).stop, bad[k].expect);
        free(x0);
        free(r0);
        free(p0);
    }
    mp_free(&mon);
    sp_free(&sc);
    vpair *all[] = {&x, &r, &v, &t, &rh, &ph, &sh, &pv, &dinv};
    for (int i = 0; i < 9; i++) vp_free(all[i]);
}

/* ---- GMRES's block operations ---- */

static void test_multi(kryl_precision p, int64_t n)
{
    const int ks[] = {0, 1, 7, 8, 9, 41, 70};
    for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++) {
        int k = ks[kk];
        char what[96];
        snprintf(what, sizeof what, "multi n=%lld k=%d %s", (long long)n, k,
                 kryl_precision_name(p));
        vpair V = vp_cols(p, n, k + 1, 61 + kk), w = vp_new(p, n, 62);
        double *hv = calloc((size_t)k + 1, sizeof *hv);
        spair h = sp_new(k + 1, hv), ww = sp_new(1, (const double[1]){NAN});
        mpair mon = mp_new(KRYL_STOP_RUNNING);
        /* h = V'w */
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->multi_dot(sides[b].ctx, &V.v[b], k, &w.v[b], sp_at(&h, b, 0),
                                             mon.mon[b]));
        sp_check(&h, sum_tolerance(p, n), what);
        double *first = malloc((size_t)(k + 1) * sizeof *first);
        double *again = malloc((size_t)(k + 1) * sizeof *again);
        sp_get(&h, GPU, first);
        CHECK_OK(sides[GPU].ops->multi_dot(sides[GPU].ctx, &V.v[GPU], k, &w.v[GPU],
                                           sp_at(&h, GPU, 0), mon.mon[GPU]));
        sp_get(&h, GPU, again);
        CHECK(memcmp(first, again, (size_t)(k + 1) * sizeof *first) == 0,
              "%s: multi_dot is not deterministic", what);
        /* w -= V h (one h entry zero: its column, poisoned with NaN, must not count);  ww = w'w */
        if (k > 2) {
            double *all = vp_values(&V, REF);
            for (int64_t i = 0; i < n; i++) all[(int64_t)2 * n + i] = NAN;
            vp_set(&V, all);
            free(all);
            sp_get(&h, REF, hv);
            hv[2] = 0.0;
            sp_set(&h, hv);
        }
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->multi_axpy(sides[b].ctx, &V.v[b], k, -0.75, sp_at(&h, b, 0),
                                              &w.v[b], sp_at(&ww, b, 0), mon.mon[b]));
        CHECK(vp_diff(&w) <= tolerance(p), "%s: multi_axpy w differs by %.3g", what, vp_diff(&w));
        sp_check(&ww, sum_tolerance(p, n), what);
        /* without ww */
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->multi_axpy(sides[b].ctx, &V.v[b], k, 0.5, sp_at(&h, b, 0),
                                              &w.v[b], (kryl_scalar){NULL}, NULL));
        CHECK(vp_diff(&w) <= tolerance(p), "%s: multi_axpy (no ww) differs by %.3g", what,
              vp_diff(&w));
        /* a stopped monitor: neither touches anything */
        mp_set(&mon, KRYL_STOP_CONVERGED, 0, 0.0);
        double *w0 = vp_values(&w, GPU), ww0, ww1;
        sp_get(&ww, GPU, &ww0);
        sp_get(&h, GPU, first);
        CHECK_OK(sides[GPU].ops->multi_dot(sides[GPU].ctx, &V.v[GPU], k, &w.v[GPU],
                                           sp_at(&h, GPU, 0), mon.mon[GPU]));
        CHECK_OK(sides[GPU].ops->multi_axpy(sides[GPU].ctx, &V.v[GPU], k, 1.0, sp_at(&h, GPU, 0),
                                            &w.v[GPU], sp_at(&ww, GPU, 0), mon.mon[GPU]));
        sp_get(&h, GPU, again);
        sp_get(&ww, GPU, &ww1);
        CHECK(vp_same(&w, GPU, w0) && memcmp(first, again, (size_t)(k + 1) * sizeof *first) == 0 &&
                  memcmp(&ww0, &ww1, sizeof ww0) == 0,
              "%s: a stopped monitor must leave h, w and ww alone", what);
        free(w0);
        free(first);
        free(again);
        free(hv);
        mp_free(&mon);
        sp_free(&h);
        sp_free(&ww);
        vp_free(&V);
        vp_free(&w);
    }
}

static void test_normalize(kryl_precision p, int64_t n)
{
    vpair v = vp_new(p, n, 71);
    spair vv = sp_new(1, (const double[1]){2.5});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    for (int b = 0; b < 2; b++)
        CHECK_OK(sides[b].ops->normalize(sides[b].ctx, &v.v[b], sp_at(&vv, b, 0), mon.mon[b]));
    CHECK(vp_diff(&v) <= tolerance(p), "normalize n=%lld differs by %.3g", (long long)n,
          vp_diff(&v));
    /* vv = 0, vv NaN, a stopped monitor: v unchanged */
    const double bad[3] = {0.0, NAN, 4.0};
    for (int t = 0; t < 3; t++) {
        sp_set(&vv, &bad[t]);
        mp_set(&mon, t == 2 ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING, 0, 0.0);
        double *v0 = vp_values(&v, GPU);
        CHECK_OK(
            sides[GPU].ops->normalize(sides[GPU].ctx, &v.v[GPU], sp_at(&vv, GPU, 0), mon.mon[GPU]));
        CHECK(vp_same(&v, GPU, v0), "normalize case %d changed v", t);
        free(v0);
    }
    mp_free(&mon);
    sp_free(&vv);
    vp_free(&v);
}

/* The least-squares block of restart length m on both sides. */
typedef struct ls_pair {
    int m;
    size_t doubles;
    double *block[2];
    kryl_gmres_ls ls[2];
} ls_pair;

static ls_pair ls_new(int m)
{
    ls_pair l;
    l.m = m;
    size_t mm = (size_t)m;
    l.doubles = (mm + 1) * mm + 2 * mm + (mm + 1) + mm + (mm + 1) + 3;
    for (int b = 0; b < 2; b++) {
        double *p = l.block[b] = dev_alloc(b, l.doubles * sizeof(double));
        kryl_gmres_ls ls;
        ls.m = m;
        ls.R = p;
        p += (mm + 1) * mm;
        ls.cs = p;
        p += mm;
        ls.sn = p;
        p += mm;
        ls.g = p;
        p += mm + 1;
        ls.y = p;
        p += mm;
        ls.h2 = p;
        p += mm + 1;
        ls.ww = p++;
        ls.rr = p++;
        ls.count = (int64_t *)p;
        l.ls[b] = ls;
    }
    return l;
}

static void ls_free(ls_pair *l)
{
    for (int b = 0; b < 2; b++) sides[b].ops->release(sides[b].ctx, l->block[b]);
}

/* The whole block of side b (count as its bits). */
static double *ls_values(const ls_pair *l, int b)
{
    double *out = malloc(l->doubles * sizeof *out);
    dev_get(b, out, l->block[b], l->doubles * sizeof *out);
    return out;
}

/* Column k's inputs on both sides: R[0..k][k] (V'w), h2[0..k] and ww. */
static void ls_column(ls_pair *l, int k, uint64_t seed, double ww)
{
    double *vals = malloc((size_t)(2 * k + 2) * sizeof *vals);
    test_random_values(vals, 2 * k + 2, seed);
    for (int i = 0; i <= k; i++) vals[k + 1 + i] *= 1e-3; /* the second pass is small */
    for (int b = 0; b < 2; b++) {
        dev_put(b, l->ls[b].R + (size_t)k * (size_t)(l->m + 1), vals, (size_t)(k + 1) * 8);
        dev_put(b, l->ls[b].h2, vals + k + 1, (size_t)(k + 1) * 8);
        dev_put(b, l->ls[b].ww, &ww, sizeof ww);
    }
    free(vals);
}

static void test_least_squares(int m)
{
    ls_pair l = ls_new(m);
    spair rr = sp_new(1, (const double[1]){-6.25}); /* |rr| is used */
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    for (int b = 0; b < 2; b++) {
        double *zero = calloc(l.doubles, sizeof *zero);
        dev_put(b, l.block[b], zero, l.doubles * sizeof *zero);
        free(zero);
        CHECK_OK(
            sides[b].ops->gmres_cycle_start(sides[b].ctx, &l.ls[b], sp_at(&rr, b, 0), mon.mon[b]));
    }
    int built = m > 3 ? m - 2 : m; /* stop within the cycle: y's tail must be zeroed */
    for (int k = 0; k < built; k++) {
        ls_column(&l, k, 900 + (uint64_t)k, 9.0 + k);
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->gmres_givens(sides[b].ctx, &l.ls[b], k, mon.mon[b]));
    }
    mp_check_stop(&mon, KRYL_STOP_RUNNING, "gmres_givens");
    double *r = ls_values(&l, REF), *g = ls_values(&l, GPU);
    CHECK(test_rel_diff(g, r, (int64_t)l.doubles - 1) <= 1e-12 &&
              memcmp(&g[l.doubles - 1], &r[l.doubles - 1], 8) == 0,
          "gmres_givens m=%d: blocks differ by %.3g", m,
          test_rel_diff(g, r, (int64_t)l.doubles - 1));
    free(r);
    free(g);
    /* y = R^-1 g */
    for (int b = 0; b < 2; b++) CHECK_OK(sides[b].ops->gmres_solve(sides[b].ctx, &l.ls[b]));
    r = ls_values(&l, REF);
    g = ls_values(&l, GPU);
    CHECK(test_rel_diff(g, r, (int64_t)l.doubles) <= 1e-10, "gmres_solve m=%d: differs by %.3g", m,
          test_rel_diff(g, r, (int64_t)l.doubles));
    free(r);
    free(g);

    /* a zero pivot (BREAKDOWN), a NaN (NAN) and a stopped monitor: count, g and
     * the rotations stay as they were */
    for (int t = 0; t < 3; t++) {
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->gmres_cycle_start(sides[b].ctx, &l.ls[b], sp_at(&rr, b, 0),
                                                     mon.mon[b]));
        ls_column(&l, 0, 77, 4.0);
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->gmres_givens(sides[b].ctx, &l.ls[b], 0, mon.mon[b]));
        const int k = m > 1 ? 1 : 0;
        double zeros[3] = {0.0, 0.0, 0.0};
        for (int b = 0; b < 2; b++) {
            dev_put(b, l.ls[b].R + (size_t)k * (size_t)(m + 1), zeros, (size_t)(k + 1) * 8);
            dev_put(b, l.ls[b].h2, zeros, (size_t)(k + 1) * 8);
            double ww = t == 1 ? NAN : 0.0;
            dev_put(b, l.ls[b].ww, &ww, 8);
        }
        /* with k = 1 a zero column keeps R_kk = -sn_0 * 0 + ... = 0 */
        mp_set(&mon, t == 2 ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING, 0, 0.0);
        double *before = ls_values(&l, GPU);
        CHECK_OK(sides[GPU].ops->gmres_givens(sides[GPU].ctx, &l.ls[GPU], k, mon.mon[GPU]));
        double *after = ls_values(&l, GPU);
        const kryl_gmres_ls *ls = &l.ls[GPU];
        size_t kept[] = {(size_t)(ls->cs - l.block[GPU]), (size_t)(ls->sn - l.block[GPU]),
                         (size_t)(ls->g - l.block[GPU]), (size_t)(ls->rr - l.block[GPU]),
                         (size_t)((double *)ls->count - l.block[GPU])};
        size_t lengths[] = {(size_t)m, (size_t)m, (size_t)m + 1, 1, 1};
        bool same = true;
        for (int s = 0; s < 5; s++)
            same = same && memcmp(before + kept[s], after + kept[s], lengths[s] * 8) == 0;
        if (t == 2) same = same && memcmp(before, after, l.doubles * 8) == 0;
        const int32_t expect[3] = {KRYL_STOP_BREAKDOWN, KRYL_STOP_NAN, KRYL_STOP_CONVERGED};
        CHECK(same, "gmres_givens m=%d case %d changed count, g or the rotations", m, t);
        CHECK(mp_get(&mon, GPU).stop == expect[t], "gmres_givens m=%d case %d: stop %d", m, t,
              mp_get(&mon, GPU).stop);
        mp_set(&mon, KRYL_STOP_RUNNING, 0, 0.0);
        free(before);
        free(after);
    }
    mp_free(&mon);
    sp_free(&rr);
    ls_free(&l);
}

/* ---- flexible CG, inner monitors ---- */

static void test_fcg(kryl_precision p, int64_t n)
{
    vpair z = vp_new(p, n, 81), pv = vp_new(p, n, 82);
    spair nd = sp_new(2, (const double[2]){-0.3, 1.7});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    for (int b = 0; b < 2; b++)
        CHECK_OK(sides[b].ops->fcg_update_p(sides[b].ctx, sp_at(&nd, b, 0), sp_at(&nd, b, 1),
                                            &z.v[b], &pv.v[b], mon.mon[b]));
    CHECK(vp_diff(&pv) <= tolerance(p), "fcg_update_p n=%lld differs by %.3g", (long long)n,
          vp_diff(&pv));
    const double bad[3][2] = {{1.0, 0.0}, {NAN, 1.0}, {1.0, 2.0}};
    const int32_t expect[3] = {KRYL_STOP_BREAKDOWN, KRYL_STOP_NAN, KRYL_STOP_CONVERGED};
    for (int t = 0; t < 3; t++) {
        sp_set(&nd, bad[t]);
        mp_set(&mon, t == 2 ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING, 0, 0.0);
        double *p0 = vp_values(&pv, GPU);
        CHECK_OK(sides[GPU].ops->fcg_update_p(sides[GPU].ctx, sp_at(&nd, GPU, 0),
                                              sp_at(&nd, GPU, 1), &z.v[GPU], &pv.v[GPU],
                                              mon.mon[GPU]));
        CHECK(vp_same(&pv, GPU, p0), "fcg_update_p case %d changed p", t);
        CHECK(mp_get(&mon, GPU).stop == expect[t], "fcg_update_p case %d: stop %d", t,
              mp_get(&mon, GPU).stop);
        free(p0);
    }
    mp_free(&mon);
    sp_free(&nd);
    vp_free(&z);
    vp_free(&pv);
}

static void test_monitor_restart(void)
{
    mpair inner = mp_new(KRYL_STOP_NAN), outer = mp_new(KRYL_STOP_RUNNING);
    spair rr = sp_new(1, (const double[1]){8.0});
    for (int t = 0; t < 3; t++) {
        mp_set(&inner, KRYL_STOP_NAN, 17, 5.0);
        mp_set(&outer, t == 2 ? KRYL_STOP_BREAKDOWN : KRYL_STOP_RUNNING, 3, 1.0);
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->monitor_restart(sides[b].ctx, inner.mon[b], outer.mon[b],
                                                   t == 1 ? (kryl_scalar){NULL} : sp_at(&rr, b, 0),
                                                   0.25));
        kryl_monitor r = mp_get(&inner, REF), g = mp_get(&inner, GPU);
        CHECK(g.stop == r.stop && g.tol2 == r.tol2 && g.iteration == 17,
              "monitor_restart case %d: stop %d/%d tol2 %g/%g iteration %lld", t, g.stop, r.stop,
              g.tol2, r.tol2, (long long)g.iteration);
    }
    mp_free(&inner);
    mp_free(&outer);
    sp_free(&rr);
}

/* ---- graphs ---- */

/* A short sequence of operations with device-scalar dependencies. */
static void graph_sequence(kryl_vector V, kryl_vector w, kryl_vector z, double *sc,
                           kryl_monitor *mon)
{
    kryl_context c = sides[GPU].ctx;
    const kryl_backend_ops *ops = sides[GPU].ops;
    kryl_scalar h = {sc}, ww = {sc + 4}, num = {sc + 5}, den = {sc + 6};
    /* h = V'w;  w -= V h;  ww = w'w;  w /= ||w||;  (num, den) = (z'w, w'w) after
     * that;  z = w - (num/den) z */
    CHECK_OK(ops->multi_dot(c, V, 3, w, h, mon));
    CHECK_OK(ops->multi_axpy(c, V, 3, -1.0, h, w, ww, mon));
    CHECK_OK(ops->normalize(c, w, ww, mon));
    CHECK_OK(ops->dot2(c, z, w, w, num));
    CHECK_OK(ops->fcg_update_p(c, num, den, w, z, mon));
    CHECK_OK(ops->monitor_update(c, mon, ww, 1));
}

static void test_graph(kryl_precision p, int64_t n)
{
    const kryl_backend_ops *ops = sides[GPU].ops;
    kryl_context c = sides[GPU].ctx;
    CHECK(ops->capture_begin && ops->capture_end && ops->graph_launch && ops->graph_release,
          "cuda has no graph operations");
    if (!ops->capture_begin) return;
    vpair V = vp_cols(p, n, 3, 91), w = vp_new(p, n, 92), z = vp_new(p, n, 93);
    double *w0 = vp_values(&w, REF), *z0 = vp_values(&z, REF);
    spair sc = sp_new(8, (const double[8]){0});
    mpair mon = mp_new(KRYL_STOP_RUNNING);
    /* run directly twice */
    for (int k = 0; k < 2; k++)
        graph_sequence(&V.v[GPU], &w.v[GPU], &z.v[GPU], sc.ptr[GPU], mon.mon[GPU]);
    double *w_direct = vp_values(&w, GPU), *z_direct = vp_values(&z, GPU), s_direct[8];
    sp_get(&sc, GPU, s_direct);
    kryl_monitor m_direct = mp_get(&mon, GPU);
    /* same start, captured once (nothing runs), replayed twice */
    vp_set(&w, w0);
    vp_set(&z, z0);
    sp_set(&sc, (const double[8]){0});
    mp_set(&mon, KRYL_STOP_RUNNING, 0, 0.0);
    void *graph = NULL;
    CHECK_OK(ops->capture_begin(c));
    graph_sequence(&V.v[GPU], &w.v[GPU], &z.v[GPU], sc.ptr[GPU], mon.mon[GPU]);
    CHECK_OK(ops->capture_end(c, &graph));
    CHECK(graph != NULL, "capture_end returned no graph");
    CHECK_OK(ops->synchronize(c));
    CHECK(vp_same(&w, GPU, w0), "capturing ran the operations");
    if (graph) {
        for (int k = 0; k < 2; k++) CHECK_OK(ops->graph_launch(c, graph));
        ops->graph_release(c, graph);
    }
    double *w_graph = vp_values(&w, GPU), *z_graph = vp_values(&z, GPU), s_graph[8];
    sp_get(&sc, GPU, s_graph);
    kryl_monitor m_graph = mp_get(&mon, GPU);
    CHECK(memcmp(w_direct, w_graph, (size_t)n * sizeof *w_graph) == 0 &&
              memcmp(z_direct, z_graph, (size_t)n * sizeof *z_graph) == 0 &&
              memcmp(s_direct, s_graph, sizeof s_graph) == 0,
          "graph n=%lld %s: two replays differ from two direct runs", (long long)n,
          kryl_precision_name(p));
    CHECK(m_graph.iteration == 2 && m_direct.iteration == 2, "graph: monitor iteration %lld",
          (long long)m_graph.iteration);
    /* an operation refused inside a capture: the capture still ends, with the
     * operations before it, and the stream works afterwards */
    CHECK_OK(ops->capture_begin(c));
    CHECK_OK(ops->multi_dot(c, &V.v[GPU], 3, &w.v[GPU], (kryl_scalar){sc.ptr[GPU]}, NULL));
    CHECK_STATUS(ops->multi_dot(c, &V.v[GPU], -1, &w.v[GPU], (kryl_scalar){sc.ptr[GPU]}, NULL),
                 KRYL_ERR_INVALID_ARGUMENT);
    graph = NULL;
    CHECK_OK(ops->capture_end(c, &graph));
    if (graph) ops->graph_release(c, graph);
    CHECK_OK(ops->fill(c, &w.v[GPU], 1.0));
    CHECK_OK(ops->synchronize(c));
    free(w0);
    free(z0);
    free(w_direct);
    free(z_direct);
    free(w_graph);
    free(z_graph);
    mp_free(&mon);
    sp_free(&sc);
    vp_free(&V);
    vp_free(&w);
    vp_free(&z);
}

/* ---- solves through the public API ---- */

typedef struct solve_case {
    const char *file;         /* a real matrix, or NULL: generated */
    kryl_generator_kind kind; /* generated */
    int64_t size;
    kryl_method method;
    kryl_precond_kind pc;
    kryl_mixed_scheme mixed;
    double rtol;
} solve_case;

/* The matrix of a case on ctx, NULL when a real one is absent. */
static kryl_matrix case_matrix(kryl_context ctx, const solve_case *c)
{
    return c->file ? kt_read(ctx, c->file) : kt_generate(ctx, c->kind, c->size);
}

static void solve_on_both(const solve_case *c)
{
    kryl_context ref = kt_context(KRYL_BACKEND_REF), gpu = kt_context(KRYL_BACKEND_CUDA);
    kryl_matrix Ar = case_matrix(ref, c), Ag = case_matrix(gpu, c);
    if (Ar && Ag) {
        double *b = kt_rhs(Ar, 7);
        kryl_solver_options o;
        kt_options(&o, c->method, c->pc, c->rtol, 4000);
        if (c->mixed != KRYL_MIXED_NONE) {
            o.precision = KRYL_MIXED;
            o.mixed = c->mixed;
            o.max_iterations = 400;
        }
        char label[160];
        snprintf(label, sizeof label, "%s %s pc=%d %s", kryl_method_name(c->method),
                 c->file ? c->file : kryl_generator_name(c->kind), (int)c->pc,
                 c->mixed ? kryl_mixed_scheme_name(c->mixed) : "plain");
        kt_solve r = kt_run(Ar, &o, b, NULL, NULL);
        kt_solve g = kt_run(Ag, &o, b, NULL, NULL);
        /* every check between convergence checks, so no graph is replayed */
        kryl_solver_options o1 = o;
        o1.check_interval = 1;
        kt_solve g1 = kt_run(Ag, &o1, b, NULL, NULL);
        CHECK(g.create == KRYL_SUCCESS, "%s on cuda: %s", label, kryl_last_error());
        if (g.create == KRYL_SUCCESS && r.create == KRYL_SUCCESS) {
            kt_check_converged(&g, label);
            kt_check_converged(&g1, label);
            int64_t slack = c->file ? 2 + r.r.iterations / 20 : 2;
            printf("  %-48s cuda %5lld its (every-iteration checks %5lld), ref %5lld, relres "
                   "%.2e\n",
                   label, (long long)g.r.iterations, (long long)g1.r.iterations,
                   (long long)r.r.iterations, g.r.relres);
            CHECK(llabs(g.r.iterations - r.r.iterations) <= slack,
                  "%s: cuda %lld iterations, ref %lld", label, (long long)g.r.iterations,
                  (long long)r.r.iterations);
            CHECK(g1.r.iterations == g.r.iterations,
                  "%s: %lld iterations checking every iteration, %lld batched", label,
                  (long long)g1.r.iterations, (long long)g.r.iterations);
        }
        free(b);
    }
    kryl_matrix_destroy(&Ar);
    kryl_matrix_destroy(&Ag);
    kryl_context_destroy(&ref);
    kryl_context_destroy(&gpu);
}

static void test_solves(void)
{
    const kryl_generator_kind P2 = KRYL_GEN_POISSON2D5, CD = KRYL_GEN_CONVDIFF2D;
    const kryl_method CG = KRYL_METHOD_CG, PCG = KRYL_METHOD_PCG, PIPE = KRYL_METHOD_PIPECG,
                      GM = KRYL_METHOD_GMRES, BI = KRYL_METHOD_BICGSTAB;
    const kryl_precond_kind NO = KRYL_PRECOND_NONE, JA = KRYL_PRECOND_JACOBI;
    const kryl_mixed_scheme PLAIN = KRYL_MIXED_NONE, IR = KRYL_MIXED_IR,
                            IO = KRYL_MIXED_INNER_OUTER;
    const solve_case cases[] = {
        {NULL, P2, 40, CG, NO, PLAIN, 1e-8},
        {NULL, P2, 40, PCG, JA, PLAIN, 1e-8},
        {NULL, P2, 40, PIPE, NO, PLAIN, 1e-8},
        {NULL, P2, 40, PIPE, JA, PLAIN, 1e-8},
        {NULL, KRYL_GEN_RANDOM_SPD, 3000, PIPE, JA, PLAIN, 1e-10},
        {NULL, CD, 30, GM, NO, PLAIN, 1e-10},
        {NULL, CD, 30, GM, JA, PLAIN, 1e-10},
        {NULL, CD, 30, BI, NO, PLAIN, 1e-10},
        {NULL, CD, 30, BI, JA, PLAIN, 1e-10},
        {NULL, P2, 40, CG, NO, IR, 1e-12},
        {NULL, P2, 40, PCG, JA, IO, 1e-12},
        {NULL, P2, 40, PIPE, JA, IO, 1e-12},
        {NULL, CD, 30, GM, NO, IR, 1e-12},
        {NULL, CD, 30, GM, JA, IO, 1e-12},
        {NULL, CD, 30, BI, JA, IR, 1e-12},
        {"bcsstk09.mtx", 0, 0, PIPE, JA, PLAIN, 1e-8},
        {"bcsstk09.mtx", 0, 0, PCG, JA, IO, 1e-12},
        {"sherman4.mtx", 0, 0, GM, NO, PLAIN, 1e-8},
        {"sherman4.mtx", 0, 0, BI, JA, PLAIN, 1e-8},
        {"sherman5.mtx", 0, 0, GM, JA, IO, 1e-12},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) solve_on_both(&cases[k]);
}

int main(void)
{
    if (!test_cuda_device("test_cuda_krylov_ops")) return TEST_SKIP_CODE;
    sides[REF].ctx = test_context(KRYL_BACKEND_REF);
    sides[GPU].ctx = test_context(KRYL_BACKEND_CUDA);
    for (int b = 0; b < 2; b++) sides[b].ops = sides[b].ctx->ops;
    printf("test_cuda_krylov_ops on %s\n", kryl_context_device_name(sides[GPU].ctx));
    for (int pi = 0; pi < 2; pi++) {
        kryl_precision p = pi ? KRYL_SINGLE : KRYL_DOUBLE;
        for (int s = 0; s < SIZE_COUNT; s++) {
            int64_t n = sizes[s];
            for (int mode = 0; mode < 3; mode++) test_pipecg(p, n, mode);
            test_dot2(p, n);
            for (int jacobi = 0; jacobi < 2; jacobi++) test_bicgstab(p, n, jacobi);
            test_multi(p, n);
            test_normalize(p, n);
            test_fcg(p, n);
            test_graph(p, n);
        }
        for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++)
            for (int mode = 0; mode < 3; mode++) {
                const int64_t n = shape == TEST_SHAPE_SINGLE ? 1 : 4099;
                test_pipecg_spmv(p, (test_shape)shape, n, mode);
                if (shape == TEST_SHAPE_RANDOM) test_pipecg_spmv(p, (test_shape)shape, 33, mode);
            }
        const int64_t spd_sizes[] = {1, 33, 4099};
        for (int mode = 0; mode <= 2; mode += 2) {
            /* (n = 1 converges in one step) */
            for (int k = 0; k < 3; k++)
                test_pipecg_spmv_steps(p, KRYL_GEN_RANDOM_SPD, spd_sizes[k], mode, k ? 5 : 1);
            /* hundreds of blocks; an even count */
            test_pipecg_spmv_steps(p, KRYL_GEN_POISSON2D5, 300, mode, 6);
        }
        /* more blocks than one reduction grid */
        test_pipecg(p, 3000001, 2);
        test_pipecg_spmv(p, TEST_SHAPE_RANDOM, 3000001, 2);
        test_multi(p, 300001);
    }
    test_pipecg_spmv_steps_refused();
    const int64_t cg1_sizes[] = {1, 33, 4099};
    for (int jacobi = 0; jacobi < 2; jacobi++) {
        for (int k = 0; k < 3; k++)
            test_cg1_steps(KRYL_GEN_RANDOM_SPD, cg1_sizes[k], jacobi, k ? 5 : 1);
        /* hundreds of blocks; an even count */
        test_cg1_steps(KRYL_GEN_POISSON2D5, 300, jacobi, 6);
    }
    test_cg1_steps_refused();
    /* one block; a part-filled block; more rows than the resident grid holds at once */
    const int64_t step_sizes[] = {1, 4099, 3000001};
    for (int pi = 0; pi < 2; pi++)
        for (int k = 0; k < 3; k++)
            for (int jacobi = 0; jacobi < 2; jacobi++)
                test_cg1_step(pi ? KRYL_SINGLE : KRYL_DOUBLE, step_sizes[k], jacobi);
    const int ms[] = {1, 2, 5, 40, 150}; /* 150: rotations staged in two chunks */
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) test_least_squares(ms[k]);
    test_monitor_restart();
    for (int b = 0; b < 2; b++) kryl_context_destroy(&sides[b].ctx);
    test_solves();
    return test_summary("test_cuda_krylov_ops");
}
