/* The operations of the Krylov methods beyond CG (backend.h, "operations
 * of the other Krylov methods") on every available backend against the
 * ref backend, their specification: awkward sizes in double and single
 * precision; vectors, scalars and monitors after each call; every
 * breakdown and NaN rule (a refused step writes nothing: vectors bit for
 * bit as they were); the stop guard; the same bits from a second run.
 * The rule of every comparison: what ref leaves untouched the backend
 * leaves untouched bit for bit, what ref changes it matches within a
 * tolerance.  A backend that leaves an operation NULL is skipped for it;
 * omp also runs with 3 threads (blocks of uneven size). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "test_support.h"

#define MAX_VECS 12
#define MAX_SC   2400

/* Vector sizes: below, at and across the blocks, chunks and warps of the backends. */
static const int64_t sizes[] = {1, 31, 33, 257, 4099};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* ---- one call of one operation, described once and run on two backends ---- */

typedef struct kcase kcase;

/* Calls the operation on ctx's backend; returns KRYL_ERR_UNSUPPORTED,
 * calling nothing, when the backend leaves the operation NULL. */
typedef kryl_status (*op_fn)(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                             kryl_monitor *outer, const kcase *c);

struct kcase {
    const char *op; /* the operation's name in backend.h */
    char what[128]; /* the case, for messages */
    op_fn run;
    kryl_precision precision;
    int64_t n;                /* entries of a vector */
    int nvec;                 /* vectors the call may use */
    int columns[MAX_VECS];    /* vector i holds columns[i] vectors of n (0: 1) */
    unsigned positive;        /* bit i: vector i gets values in [0.5, 1.5] (dinv) */
    int nan_column;           /* column of vector 0 filled with NaN, or -1 */
    uint64_t seed;            /* of the vectors' values */
    int nsc;                  /* scalars in backend memory */
    double sc[MAX_SC];        /* their values before the call */
    int exact_tail;           /* the last scalars, compared bit for bit (integers) */
    int32_t stop, outer_stop; /* the monitors' stop before the call */
    int64_t iteration;        /* the monitor's iteration before the call */
    int32_t expect_stop;      /* the monitor's stop after the call (-1: not checked) */
    bool guarded;             /* pass the monitor (else NULL) */
    int restart, pc, form, k; /* the operation's own parameters */
    double alpha;
};

/* A case with the defaults: guarded, running monitor, no NaN column. */
static void case_init(kcase *c, const char *op, op_fn run, kryl_precision p, int64_t n, int nvec)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    c->run = run;
    c->precision = p;
    c->n = n;
    c->nvec = nvec;
    c->nan_column = -1;
    c->seed = (uint64_t)n * 31 + (uint64_t)nvec;
    c->expect_stop = -1;
    c->guarded = true;
}

static int64_t entries(const kcase *c, int i)
{
    return c->n * (c->columns[i] > 0 ? c->columns[i] : 1);
}

/* The state of one side in backend memory. */
typedef struct state {
    kryl_layout layout[MAX_VECS];
    kryl_vector v[MAX_VECS];
    double *sc;
    kryl_monitor *mon, *outer;
} state;

/* What a call left: host copies. */
typedef struct outcome {
    kryl_status status;
    double *vec[MAX_VECS];
    double sc[MAX_SC];
    kryl_monitor mon, outer;
} outcome;

static void read_vector(kryl_vector v, double *out)
{
    kryl_context ctx = v->ctx;
    size_t n = (size_t)v->n;
    if (v->precision == KRYL_DOUBLE) {
        CHECK_OK(ctx->ops->download(ctx, out, v->data, n * sizeof(double)));
        return;
    }
    float *tmp = malloc(n * sizeof *tmp);
    CHECK_OK(ctx->ops->download(ctx, tmp, v->data, n * sizeof(float)));
    for (size_t i = 0; i < n; i++) out[i] = tmp[i];
    free(tmp);
}

static void write_vector(kryl_vector v, const double *values)
{
    kryl_context ctx = v->ctx;
    size_t n = (size_t)v->n;
    if (v->precision == KRYL_DOUBLE) {
        CHECK_OK(ctx->ops->upload(ctx, v->data, values, n * sizeof(double)));
        return;
    }
    float *tmp = malloc(n * sizeof *tmp);
    for (size_t i = 0; i < n; i++) tmp[i] = (float)values[i];
    CHECK_OK(ctx->ops->upload(ctx, v->data, tmp, n * sizeof(float)));
    free(tmp);
}

static kryl_monitor *monitor_new(kryl_context ctx, int32_t stop, int64_t iteration)
{
    kryl_monitor host, *dev = NULL;
    memset(&host, 0, sizeof host);
    host.tol2 = 1e-20;
    host.rr = 7.0;
    host.stop = stop;
    host.iteration = iteration;
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&dev, sizeof host));
    CHECK_OK(ctx->ops->upload(ctx, dev, &host, sizeof host));
    return dev;
}

static void state_new(kryl_context ctx, const kcase *c, state *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < c->nvec; i++) {
        int64_t len = entries(c, i);
        s->layout[i] = (kryl_layout){1, len, len, 0, NULL, NULL};
        CHECK_OK(kryl_vector_create_like(&s->v[i], ctx, &s->layout[i], c->precision));
        double *x = malloc((size_t)len * sizeof *x);
        test_random_values(x, len, c->seed * 16 + (uint64_t)i);
        if ((c->positive >> i) & 1u)
            for (int64_t j = 0; j < len; j++) x[j] = 1.0 + 0.5 * x[j];
        if (i == 0 && c->nan_column >= 0)
            for (int64_t j = 0; j < c->n; j++) x[c->nan_column * c->n + j] = NAN;
        write_vector(s->v[i], x);
        free(x);
    }
    CHECK_OK(ctx->ops->alloc(ctx, (void **)&s->sc, (size_t)c->nsc * sizeof(double)));
    CHECK_OK(ctx->ops->upload(ctx, s->sc, c->sc, (size_t)c->nsc * sizeof(double)));
    s->mon = monitor_new(ctx, c->stop, c->iteration);
    s->outer = monitor_new(ctx, c->outer_stop, 0);
}

static void state_read(kryl_context ctx, const kcase *c, state *s, outcome *o)
{
    for (int i = 0; i < c->nvec; i++) {
        o->vec[i] = malloc((size_t)entries(c, i) * sizeof(double));
        read_vector(s->v[i], o->vec[i]);
    }
    CHECK_OK(ctx->ops->download(ctx, o->sc, s->sc, (size_t)c->nsc * sizeof(double)));
    CHECK_OK(ctx->ops->download(ctx, &o->mon, s->mon, sizeof o->mon));
    CHECK_OK(ctx->ops->download(ctx, &o->outer, s->outer, sizeof o->outer));
}

static void state_free(kryl_context ctx, state *s)
{
    for (int i = 0; i < MAX_VECS; i++) kryl_vector_destroy(&s->v[i]);
    ctx->ops->release(ctx, s->sc);
    ctx->ops->release(ctx, s->mon);
    ctx->ops->release(ctx, s->outer);
}

static void outcome_free(const kcase *c, outcome *o)
{
    for (int i = 0; i < c->nvec; i++) free(o->vec[i]);
}

/* Run c on ctx: *before = the state as stored (optional), *after = after the call. */
static void run_side(kryl_context ctx, const kcase *c, outcome *before, outcome *after)
{
    state s;
    state_new(ctx, c, &s);
    if (before) state_read(ctx, c, &s, before);
    after->status = c->run(ctx, s.v, s.sc, c->guarded ? s.mon : NULL, s.outer, c);
    if (after->status == KRYL_SUCCESS) CHECK_OK(ctx->ops->synchronize(ctx));
    state_read(ctx, c, &s, after);
    state_free(ctx, &s);
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Tolerances against ref: vectors are computed entry by entry as ref does
 * (in double, rounded once); scalars differ by the order of their sums. */
static double vector_tolerance(kryl_precision p) { return p == KRYL_DOUBLE ? 1e-12 : 1e-6; }
#define SCALAR_TOLERANCE 1e-10

/* Values ref left as they were must be the same bits; those it changed
 * must match it within tol, relative to max(1, max |ref|).  Returns the
 * number of offending entries (the first is reported). */
static int compare_values(const char *label, const char *name, const double *init,
                          const double *ref, const double *dut, int64_t n, double tol)
{
    double scale = 1.0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(ref[i]) && fabs(ref[i]) > scale) scale = fabs(ref[i]);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        bool ok;
        if (same_bits(ref[i], init[i]))
            ok = same_bits(dut[i], init[i]);
        else if (isnan(ref[i]) || isinf(ref[i]))
            ok = same_bits(dut[i], ref[i]) || (isnan(ref[i]) && isnan(dut[i]));
        else
            ok = fabs(dut[i] - ref[i]) <= tol * scale;
        if (!ok && bad++ == 0)
            CHECK(ok, "%s: %s[%lld] = %.17g, ref %.17g (before %.17g)", label, name, (long long)i,
                  dut[i], ref[i], init[i]);
    }
    return bad;
}

/* The case on ref and on ctx (twice: the same bits both times). */
static void run_case(kryl_context ref_ctx, kryl_context ctx, const char *backend, const kcase *c)
{
    char label[256];
    snprintf(label, sizeof label, "%s %s %s n=%lld %s", backend, c->op,
             kryl_precision_name(c->precision), (long long)c->n, c->what);
    outcome init, ref, dut, again;
    run_side(ctx, c, NULL, &dut);
    if (dut.status == KRYL_ERR_UNSUPPORTED) {
        outcome_free(c, &dut);
        return;
    }
    run_side(ref_ctx, c, &init, &ref);
    run_side(ctx, c, NULL, &again);
    CHECK(ref.status == KRYL_SUCCESS && dut.status == KRYL_SUCCESS, "%s: status %s, ref %s: %s",
          label, kryl_strerror(dut.status), kryl_strerror(ref.status), kryl_last_error());
    /* the monitors */
    if (c->expect_stop >= 0)
        CHECK(ref.mon.stop == c->expect_stop, "%s: ref stop = %d, expected %d (test case wrong)",
              label, (int)ref.mon.stop, (int)c->expect_stop);
    CHECK(dut.mon.stop == ref.mon.stop && dut.mon.iteration == ref.mon.iteration,
          "%s: stop %d iteration %lld, ref %d %lld", label, (int)dut.mon.stop,
          (long long)dut.mon.iteration, (int)ref.mon.stop, (long long)ref.mon.iteration);
    CHECK(dut.outer.stop == ref.outer.stop && same_bits(dut.mon.tol2, ref.mon.tol2) &&
              same_bits(dut.mon.rr, ref.mon.rr),
          "%s: monitor fields differ: tol2 %.17g (ref %.17g) outer stop %d (ref %d)", label,
          dut.mon.tol2, ref.mon.tol2, (int)dut.outer.stop, (int)ref.outer.stop);
    /* a refused or guarded call wrote nothing */
    bool refused = c->stop != KRYL_STOP_RUNNING ||
                   (c->expect_stop > KRYL_STOP_RUNNING && c->expect_stop != KRYL_STOP_CONVERGED);
    for (int i = 0; i < c->nvec; i++) {
        char name[32];
        snprintf(name, sizeof name, "vector %d", i);
        int64_t len = entries(c, i);
        compare_values(label, name, init.vec[i], ref.vec[i], dut.vec[i], len,
                       vector_tolerance(c->precision));
        bool kept = true, repeat = true;
        for (int64_t j = 0; j < len; j++) {
            kept = kept && same_bits(dut.vec[i][j], init.vec[i][j]);
            repeat = repeat && same_bits(dut.vec[i][j], again.vec[i][j]);
        }
        CHECK(!refused || kept, "%s: %s changed by a refused or guarded call", label, name);
        CHECK(repeat, "%s: %s differs between two identical calls", label, name);
    }
    compare_values(label, "scalar", init.sc, ref.sc, dut.sc, c->nsc,
                   fmax(SCALAR_TOLERANCE, vector_tolerance(c->precision)));
    for (int i = c->nsc - c->exact_tail; i < c->nsc; i++)
        CHECK(same_bits(dut.sc[i], ref.sc[i]), "%s: scalar %d differs from ref's bits", label, i);
    for (int i = 0; i < c->nsc; i++)
        CHECK(same_bits(dut.sc[i], again.sc[i]), "%s: scalar %d not deterministic: %.17g, %.17g",
              label, i, dut.sc[i], again.sc[i]);
    outcome_free(c, &init);
    outcome_free(c, &ref);
    outcome_free(c, &dut);
    outcome_free(c, &again);
}

/* ---- pipelined CG ---- */

/* vectors: x r u w m n p s q z dinv; scalars: the 5 of pipecg, then coef */
static kryl_status run_pipecg(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                              kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->pipecg_update == NULL) return KRYL_ERR_UNSUPPORTED;
    bool pc = c->pc > 0;
    kryl_pipecg_vectors pv = {v[0], v[1], pc ? v[2] : NULL, v[3], pc ? v[4] : NULL, v[5],
                              v[6], v[7], pc ? v[8] : NULL, v[9]};
    return ctx->ops->pipecg_update(ctx, (kryl_scalar){sc}, c->restart, &pv,
                                   c->pc == 2 ? v[10] : NULL, sc + KRYL_PIPECG_SCALARS, mon, false);
}

static void pipecg_case(kcase *c, kryl_precision p, int64_t n, int pc, int restart,
                        const double scalars[5], const char *what, int32_t expect)
{
    case_init(c, "pipecg_update", run_pipecg, p, n, 11);
    c->positive = 1u << 10;
    c->pc = pc;
    c->restart = restart;
    c->iteration = 3;
    c->nsc = KRYL_PIPECG_SCALARS + 8; /* coef[6], coef[7] written at iteration 3 */
    for (int i = 0; i < c->nsc; i++) c->sc[i] = i < 5 ? scalars[i] : -1.0;
    c->expect_stop = expect;
    snprintf(c->what, sizeof c->what, "pc=%d restart=%d %s", pc, restart, what);
}

static void check_pipecg(kryl_context ref_ctx, kryl_context ctx, const char *backend)
{
    static kcase c;
    /* gamma, delta, rr, gamma_old, alpha_old: delta - beta gamma/alpha_old > 0 */
    const double good[5] = {0.8, 1.7, 0.0, 1.1, 0.6};
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < NSIZES; s++)
            for (int pc = 0; pc < 3; pc++)
                for (int restart = 0; restart < 2; restart++) {
                    pipecg_case(&c, (kryl_precision)p, sizes[s], pc, restart, good, "step",
                                KRYL_STOP_RUNNING);
                    run_case(ref_ctx, ctx, backend, &c);
                }
    const struct {
        int restart;
        double sc[5];
        int32_t stop;
        const char *what;
    } rules[] = {
        {1, {0.8, 0.0, 0, 1, 1}, KRYL_STOP_BREAKDOWN, "delta = 0"},
        {1, {0.8, -1.0, 0, 1, 1}, KRYL_STOP_BREAKDOWN, "delta < 0"},
        {1, {NAN, 1.7, 0, 1, 1}, KRYL_STOP_NAN, "gamma NaN"},
        {0, {0.8, INFINITY, 0, 1.1, 0.6}, KRYL_STOP_NAN, "delta Inf"},
        {1, {0.8, 1.7, 0, NAN, NAN}, KRYL_STOP_RUNNING, "restart ignores the old scalars"},
        {0, {0.8, 1.7, 0, NAN, 0.6}, KRYL_STOP_NAN, "gamma_old NaN"},
        {0, {0.8, 1.7, 0, 0.0, 0.6}, KRYL_STOP_RUNNING, "gamma_old = 0: a restart"},
        {0, {0.8, 1.7, 0, 1.1, -1.0}, KRYL_STOP_RUNNING, "alpha_old < 0: a restart"},
        {0, {0.8, 0.5, 0, 1.1, 0.6}, KRYL_STOP_RUNNING, "spoilt denominator: a restart"},
        {0, {0.8, -0.5, 0, 1.1, 0.6}, KRYL_STOP_BREAKDOWN, "spoilt, then delta < 0"},
        {1, {1e300, 1e-300, 0, 1, 1}, KRYL_STOP_NAN, "alpha overflows"},
        {0, {1e300, 1.7, 0, 1e-300, 0.6}, KRYL_STOP_NAN, "beta overflows"},
    };
    for (int p = 0; p < 2; p++)
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
            for (int pc = 0; pc < 3; pc++)
                for (int guarded = 0; guarded < 2; guarded++) {
                    pipecg_case(&c, (kryl_precision)p, 257, pc, rules[r].restart, rules[r].sc,
                                rules[r].what, guarded ? rules[r].stop : KRYL_STOP_RUNNING);
                    c.guarded = guarded;
                    if (!guarded) strcat(c.what, " (no monitor)");
                    run_case(ref_ctx, ctx, backend, &c);
                }
    for (int p = 0; p < 2; p++) {
        pipecg_case(&c, (kryl_precision)p, 4099, 2, 0, good, "stopped monitor",
                    KRYL_STOP_CONVERGED);
        c.stop = KRYL_STOP_CONVERGED;
        run_case(ref_ctx, ctx, backend, &c);
    }
}

/* ---- dot2 ---- */

/* out = (x'z, y'z) with form 0: x y z distinct, 1: y = z, 2: x = z */
static kryl_status run_dot2(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                            kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->dot2 == NULL) return KRYL_ERR_UNSUPPORTED;
    kryl_vector x = c->form == 2 ? v[2] : v[0], y = c->form == 1 ? v[2] : v[1];
    return ctx->ops->dot2(ctx, x, y, v[2], (kryl_scalar){sc});
}

static void check_dot2(kryl_context ref_ctx, kryl_context ctx, const char *backend)
{
    static kcase c;
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < NSIZES; s++)
            for (int form = 0; form < 3; form++) {
                case_init(&c, "dot2", run_dot2, (kryl_precision)p, sizes[s], 3);
                c.form = form;
                c.nsc = 3;
                c.sc[0] = 42.0;
                c.sc[1] = 43.0;
                c.sc[2] = 44.0; /* never written */
                snprintf(c.what, sizeof c.what, "form %d", form);
                run_case(ref_ctx, ctx, backend, &c);
            }
}

/* ---- BiCGSTAB ---- */

/* vectors: r v dinv s_hat */
static kryl_status run_bicg_s(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                              kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->bicgstab_update_s == NULL) return KRYL_ERR_UNSUPPORTED;
    return ctx->ops->bicgstab_update_s(ctx, (kryl_scalar){sc}, v[0], v[1], c->pc ? v[2] : NULL,
                                       c->pc ? v[3] : NULL, mon);
}

/* vectors: x r p_hat s_hat t r_hat; form 1: s_hat = r */
static kryl_status run_bicg_xr(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                               kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->bicgstab_update_xr == NULL) return KRYL_ERR_UNSUPPORTED;
    return ctx->ops->bicgstab_update_xr(ctx, (kryl_scalar){sc}, v[0], v[1], v[2],
                                        c->form ? v[1] : v[3], v[4], v[5], mon);
}

/* vectors: p r v dinv p_hat */
static kryl_status run_bicg_p(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                              kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->bicgstab_update_p == NULL) return KRYL_ERR_UNSUPPORTED;
    return ctx->ops->bicgstab_update_p(ctx, (kryl_scalar){sc}, v[0], v[1], v[2],
                                       c->pc ? v[3] : NULL, c->pc ? v[4] : NULL, mon);
}

typedef struct bicg_rule {
    double rho, rv, alpha, omega, ts, tt, rho_new;
    int32_t stop;
    const char *what;
} bicg_rule;

static void bicg_case(kcase *c, const char *op, op_fn run, int nvec, unsigned positive,
                      kryl_precision p, int64_t n, int variant, const bicg_rule *r)
{
    case_init(c, op, run, p, n, nvec);
    c->positive = positive;
    c->pc = variant;
    c->form = variant;
    c->nsc = KRYL_BICG_SCALARS;
    c->sc[KRYL_BICG_RHO] = r->rho;
    c->sc[KRYL_BICG_RV] = r->rv;
    c->sc[KRYL_BICG_ALPHA] = r->alpha;
    c->sc[KRYL_BICG_OMEGA] = r->omega;
    c->sc[KRYL_BICG_TS] = r->ts;
    c->sc[KRYL_BICG_TT] = r->tt;
    c->sc[KRYL_BICG_RR] = 42.0;
    c->sc[KRYL_BICG_RHO_NEW] = r->rho_new;
    c->expect_stop = r->stop;
    snprintf(c->what, sizeof c->what, "variant %d %s", variant, r->what);
}

static void check_bicgstab(kryl_context ref_ctx, kryl_context ctx, const char *backend)
{
    static kcase c;
    const int32_t RUNNING = KRYL_STOP_RUNNING, BREAKDOWN = KRYL_STOP_BREAKDOWN;
    const int32_t NONFINITE = KRYL_STOP_NAN;
    /* rho rv alpha omega ts tt rho_new */
    const bicg_rule good = {0.9, 1.3, 0.7, 0.3, 0.4, 1.2, 0.5, RUNNING, "step"};
    const bicg_rule s_rules[] = {{0.9, 0.0, 0, 0, 0, 0, 0, BREAKDOWN, "rv = 0"},
                                 {0.9, NAN, 0, 0, 0, 0, 0, NONFINITE, "rv NaN"},
                                 {INFINITY, 1.3, 0, 0, 0, 0, 0, NONFINITE, "rho Inf"},
                                 {1e300, 1e-300, 0, 0, 0, 0, 0, NONFINITE, "alpha overflows"},
                                 {-0.9, -1.3, 0, 0, 0, 0, 0, RUNNING, "negative rho and rv"}};
    const bicg_rule xr_rules[] = {{0, 0, 0.7, 0, 0.4, 0.0, 0, RUNNING, "tt = 0: omega = 0"},
                                  {0, 0, 0.7, 0, 0.4, -1.0, 0, RUNNING, "tt < 0: omega = 0"},
                                  {0, 0, 0.7, 0, NAN, 1.2, 0, NONFINITE, "ts NaN"},
                                  {0, 0, INFINITY, 0, 0.4, 1.2, 0, NONFINITE, "alpha Inf"},
                                  {0, 0, 0.7, 0, 1e300, 1e-300, 0, NONFINITE, "omega overflows"}};
    const bicg_rule p_rules[] = {{0.9, 0, 0.7, 0.3, 0, 0, 0.0, BREAKDOWN, "rho_new = 0"},
                                 {0.9, 0, 0.7, 0.0, 0, 0, 0.5, BREAKDOWN, "omega = 0"},
                                 {0.0, 0, 0.7, 0.3, 0, 0, 0.5, BREAKDOWN, "rho = 0"},
                                 {0.9, 0, NAN, 0.3, 0, 0, 0.5, NONFINITE, "alpha NaN"},
                                 {1e-300, 0, 0.7, 0.3, 0, 0, 1e300, NONFINITE, "beta overflows"}};
    const struct {
        const char *op;
        op_fn run;
        int nvec;
        unsigned positive;
        const bicg_rule *rules;
        int nrules;
    } ops[] = {{"bicgstab_update_s", run_bicg_s, 4, 1u << 2, s_rules, 5},
               {"bicgstab_update_xr", run_bicg_xr, 6, 0, xr_rules, 5},
               {"bicgstab_update_p", run_bicg_p, 5, 1u << 3, p_rules, 5}};
    for (int o = 0; o < 3; o++)
        for (int p = 0; p < 2; p++) {
            for (int s = 0; s < NSIZES; s++)
                for (int variant = 0; variant < 2; variant++) {
                    bicg_case(&c, ops[o].op, ops[o].run, ops[o].nvec, ops[o].positive,
                              (kryl_precision)p, sizes[s], variant, &good);
                    run_case(ref_ctx, ctx, backend, &c);
                }
            for (int r = 0; r <= ops[o].nrules; r++)
                for (int variant = 0; variant < 2; variant++) {
                    bicg_case(&c, ops[o].op, ops[o].run, ops[o].nvec, ops[o].positive,
                              (kryl_precision)p, 257, variant,
                              r < ops[o].nrules ? &ops[o].rules[r] : &good);
                    if (r == ops[o].nrules) {
                        /* a stopped monitor: nothing happens */
                        c.stop = KRYL_STOP_NAN;
                        c.expect_stop = KRYL_STOP_NAN;
                        strcat(c.what, " (stopped monitor)");
                    }
                    run_case(ref_ctx, ctx, backend, &c);
                }
        }
}

/* ---- GMRES's basis operations ---- */

/* A view of the first k columns of a basis vector holding several. */
static struct kryl_vector_s column_view(kryl_vector basis, int64_t n, int j)
{
    struct kryl_vector_s view = *basis;
    view.n = n;
    view.data = (char *)basis->data + (size_t)j * (size_t)n * kryl_precision_size(basis->precision);
    return view;
}

/* vector 0: k+1 columns, the last w (as GMRES builds v_{k+1}); form 1: w separate (vector 1) */
static kryl_status run_multi_dot(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                                 kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->multi_dot == NULL) return KRYL_ERR_UNSUPPORTED;
    struct kryl_vector_s V = column_view(v[0], c->n, 0), last = column_view(v[0], c->n, c->k);
    return ctx->ops->multi_dot(ctx, &V, c->k, c->form ? v[1] : &last, (kryl_scalar){sc}, mon);
}

/* vector 0: k columns (one maybe NaN, with h = 0), vector 1: w; sc: h (k), then ww;
 * form 1: ww not asked for */
static kryl_status run_multi_axpy(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                                  kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->multi_axpy == NULL) return KRYL_ERR_UNSUPPORTED;
    struct kryl_vector_s V = column_view(v[0], c->n, 0);
    kryl_scalar ww = {c->form ? NULL : sc + c->k};
    return ctx->ops->multi_axpy(ctx, &V, c->k, c->alpha, (kryl_scalar){sc}, v[1], ww, mon);
}

static kryl_status run_normalize(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                                 kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->normalize == NULL) return KRYL_ERR_UNSUPPORTED;
    return ctx->ops->normalize(ctx, v[0], (kryl_scalar){sc}, mon);
}

static void check_basis(kryl_context ref_ctx, kryl_context ctx, const char *backend)
{
    static kcase c;
    const int ks[] = {0, 1, 2, 7, 40};
    for (int p = 0; p < 2; p++) {
        kryl_precision prec = (kryl_precision)p;
        for (int s = 0; s < NSIZES; s++)
            for (int ki = 0; ki < 5; ki++)
                for (int form = 0; form < 2; form++) {
                    int k = ks[ki];
                    case_init(&c, "multi_dot", run_multi_dot, prec, sizes[s], 2);
                    c.columns[0] = k + 1;
                    c.k = k;
                    c.form = form;
                    c.nsc = k + 2; /* the 2 past k never written */
                    for (int j = 0; j < c.nsc; j++) c.sc[j] = 100.0 + j;
                    snprintf(c.what, sizeof c.what, "k=%d form %d", k, form);
                    run_case(ref_ctx, ctx, backend, &c);

                    case_init(&c, "multi_axpy", run_multi_axpy, prec, sizes[s], 2);
                    c.columns[0] = k;
                    c.k = k;
                    c.form = form;
                    c.alpha = form ? 0.5 : -1.0;
                    c.nsc = k + 2;
                    test_random_values(c.sc, k, (uint64_t)k + 5);
                    if (k > 2) {
                        /* a stale column: h = 0 skips its NaN */
                        c.nan_column = 1;
                        c.sc[1] = 0.0;
                    }
                    c.sc[k] = 42.0;
                    c.sc[k + 1] = 43.0;
                    snprintf(c.what, sizeof c.what, "k=%d alpha=%g%s", k, c.alpha,
                             form ? " no ww" : "");
                    run_case(ref_ctx, ctx, backend, &c);
                }
        /* more vectors than a thread's group of partial sums */
        const int64_t wide_n[] = {33, 4099};
        for (int w = 0; w < 2; w++) {
            case_init(&c, "multi_dot", run_multi_dot, prec, wide_n[w], 2);
            c.columns[0] = 1101;
            c.k = 1100;
            c.nsc = 1102;
            snprintf(c.what, sizeof c.what, "k=1100");
            run_case(ref_ctx, ctx, backend, &c);
            case_init(&c, "multi_axpy", run_multi_axpy, prec, wide_n[w], 2);
            c.columns[0] = 1100;
            c.k = 1100;
            c.alpha = -1.0;
            c.nsc = 1102;
            test_random_values(c.sc, 1100, 9);
            snprintf(c.what, sizeof c.what, "k=1100");
            run_case(ref_ctx, ctx, backend, &c);
        }
        /* stopped monitors: nothing happens */
        case_init(&c, "multi_dot", run_multi_dot, prec, 4099, 2);
        c.columns[0] = 4;
        c.k = 3;
        c.nsc = 3;
        c.stop = c.expect_stop = KRYL_STOP_BREAKDOWN;
        snprintf(c.what, sizeof c.what, "stopped monitor");
        run_case(ref_ctx, ctx, backend, &c);
        case_init(&c, "multi_axpy", run_multi_axpy, prec, 4099, 2);
        c.columns[0] = 3;
        c.k = 3;
        c.alpha = 1.0;
        c.nsc = 4;
        c.sc[0] = c.sc[1] = c.sc[2] = 0.5;
        c.stop = c.expect_stop = KRYL_STOP_NAN;
        snprintf(c.what, sizeof c.what, "stopped monitor");
        run_case(ref_ctx, ctx, backend, &c);

        /* normalize: vv > 0 scales; 0, < 0, NaN, Inf leave v; a stopped monitor too */
        const double vvs[] = {2.5, 1e-200, 0.0, -1.0, NAN, INFINITY, 4.0};
        for (int s = 0; s < NSIZES; s++)
            for (int i = 0; i < 7; i++) {
                case_init(&c, "normalize", run_normalize, prec, sizes[s], 1);
                c.nsc = 1;
                c.sc[0] = vvs[i];
                if (i == 6) c.stop = c.expect_stop = KRYL_STOP_CONVERGED;
                snprintf(c.what, sizeof c.what, "vv=%g%s", vvs[i], i == 6 ? " stopped" : "");
                run_case(ref_ctx, ctx, backend, &c);
            }
    }
}

/* ---- flexible CG ---- */

static kryl_status run_fcg(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                           kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->fcg_update_p == NULL) return KRYL_ERR_UNSUPPORTED;
    return ctx->ops->fcg_update_p(ctx, (kryl_scalar){sc}, (kryl_scalar){sc + 1}, v[0], v[1], mon);
}

static void check_fcg(kryl_context ref_ctx, kryl_context ctx, const char *backend)
{
    static kcase c;
    const struct {
        double num, den;
        int32_t stop;
        const char *what;
    } rules[] = {
        {0.7, 1.3, KRYL_STOP_RUNNING, "step"},      {-0.7, 1.3, KRYL_STOP_RUNNING, "num < 0"},
        {0.7, 0.0, KRYL_STOP_BREAKDOWN, "den = 0"}, {0.7, -1.0, KRYL_STOP_BREAKDOWN, "den < 0"},
        {NAN, 1.3, KRYL_STOP_NAN, "num NaN"},       {0.7, INFINITY, KRYL_STOP_NAN, "den Inf"}};
    for (int p = 0; p < 2; p++)
        for (int s = 0; s < NSIZES; s++)
            for (int r = 0; r <= 6; r++) {
                case_init(&c, "fcg_update_p", run_fcg, (kryl_precision)p, sizes[s], 2);
                c.nsc = 2;
                c.sc[0] = r < 6 ? rules[r].num : 0.7;
                c.sc[1] = r < 6 ? rules[r].den : 1.3;
                c.expect_stop = r < 6 ? rules[r].stop : KRYL_STOP_CONVERGED;
                if (r == 6) c.stop = KRYL_STOP_CONVERGED;
                snprintf(c.what, sizeof c.what, "%s", r < 6 ? rules[r].what : "stopped monitor");
                run_case(ref_ctx, ctx, backend, &c);
            }
}

/* ---- GMRES's least-squares problem and inner-solve monitors ---- */

enum { LS_M = 6 };

/* kryl_gmres_ls over sc laid out as the GMRES solver lays its block out */
static kryl_gmres_ls ls_view(double *sc)
{
    kryl_gmres_ls ls = {0};
    size_t m = LS_M;
    double *p = sc;
    ls.m = LS_M;
    ls.R = p;
    p += (m + 1) * m;
    ls.cs = p;
    p += m;
    ls.sn = p;
    p += m;
    ls.g = p;
    p += m + 1;
    ls.y = p;
    p += m;
    ls.h2 = p;
    p += m + 1;
    ls.ww = p++;
    ls.rr = p++;
    ls.count = (int64_t *)p;
    return ls;
}

/* R, cs, sn, g, y, h2, ww, rr, count */
static int ls_scalars(void)
{
    return (LS_M + 1) * LS_M + 2 * LS_M + (LS_M + 1) + LS_M + (LS_M + 1) + 3;
}

/* form 0: cycle start, then Givens on columns 0..k-1, then solve;
 * form 1: cycle start only; form 2: one Givens on column k (stopping ones) */
static kryl_status run_ls(kryl_context ctx, kryl_vector *v, double *sc, kryl_monitor *mon,
                          kryl_monitor *outer, const kcase *c)
{
    const kryl_backend_ops *ops = ctx->ops;
    if (!ops->gmres_cycle_start || !ops->gmres_givens || !ops->gmres_solve)
        return KRYL_ERR_UNSUPPORTED;
    kryl_gmres_ls ls = ls_view(sc);
    if (c->form == 2) return ops->gmres_givens(ctx, &ls, c->k, mon);
    /* rr = ||r||^2 lives in ww's slot */
    KRYL_TRY(ops->gmres_cycle_start(ctx, &ls, (kryl_scalar){ls.ww}, mon));
    if (c->form == 1) return KRYL_SUCCESS;
    for (int k = 0; k < c->k; k++) KRYL_TRY(ops->gmres_givens(ctx, &ls, k, mon));
    return ops->gmres_solve(ctx, &ls);
}

static void ls_case(kcase *c, int form, int k, const char *what)
{
    case_init(c, "gmres least squares", run_ls, KRYL_DOUBLE, 1, 0);
    c->form = form;
    c->k = k;
    c->nsc = ls_scalars();
    c->exact_tail = 1; /* count */
    test_random_values(c->sc, c->nsc, (uint64_t)(form * 10 + k));
    kryl_gmres_ls ls = ls_view(c->sc);
    /* ||w||^2 > 0, earlier rotations genuine, count = k */
    *ls.ww = 2.25;
    for (int i = 0; i < LS_M; i++) {
        double angle = 0.3 + i;
        ls.cs[i] = cos(angle);
        ls.sn[i] = sin(angle);
    }
    int64_t count = k;
    memcpy(ls.count, &count, sizeof count);
    snprintf(c->what, sizeof c->what, "%s", what);
}

static kryl_status run_monitor_restart(kryl_context ctx, kryl_vector *v, double *sc,
                                       kryl_monitor *mon, kryl_monitor *outer, const kcase *c)
{
    if (ctx->ops->monitor_restart == NULL) return KRYL_ERR_UNSUPPORTED;
    return ctx->ops->monitor_restart(ctx, mon, outer, (kryl_scalar){c->form ? NULL : sc}, c->alpha);
}

static void check_least_squares(kryl_context ref_ctx, kryl_context ctx, const char *backend)
{
    static kcase c;
    for (int k = 0; k <= LS_M; k++) {
        ls_case(&c, 0, k, "cycle, Givens, solve");
        run_case(ref_ctx, ctx, backend, &c);
    }
    ls_case(&c, 1, 0, "cycle start");
    run_case(ref_ctx, ctx, backend, &c);
    ls_case(&c, 1, 0, "cycle start, stopped");
    c.stop = c.expect_stop = KRYL_STOP_BREAKDOWN;
    run_case(ref_ctx, ctx, backend, &c);
    /* a zero pivot: R_00 + h2_0 = 0 and ||w|| = 0 */
    ls_case(&c, 2, 0, "zero pivot");
    kryl_gmres_ls ls = ls_view(c.sc);
    ls.R[0] = 0.5;
    ls.h2[0] = -0.5;
    *ls.ww = 0.0;
    c.expect_stop = KRYL_STOP_BREAKDOWN;
    run_case(ref_ctx, ctx, backend, &c);
    ls_case(&c, 2, 2, "NaN in the column");
    ls = ls_view(c.sc);
    ls.h2[1] = NAN;
    c.expect_stop = KRYL_STOP_NAN;
    run_case(ref_ctx, ctx, backend, &c);
    ls_case(&c, 2, 3, "Givens, stopped");
    c.stop = c.expect_stop = KRYL_STOP_CONVERGED;
    run_case(ref_ctx, ctx, backend, &c);

    /* monitor_restart: outer running (with rr, without) or stopped */
    for (int outer = 0; outer < 2; outer++)
        for (int form = 0; form < 2; form++) {
            case_init(&c, "monitor_restart", run_monitor_restart, KRYL_DOUBLE, 1, 0);
            c.form = form;
            c.alpha = 1e-4;
            c.nsc = 1;
            c.sc[0] = 9.0;
            c.stop = KRYL_STOP_CONVERGED; /* the inner solve's last stop */
            c.outer_stop = outer ? KRYL_STOP_BREAKDOWN : KRYL_STOP_RUNNING;
            c.expect_stop = outer ? KRYL_STOP_CONVERGED : KRYL_STOP_RUNNING;
            c.iteration = 17;
            snprintf(c.what, sizeof c.what, "outer %s, rr %s", outer ? "stopped" : "running",
                     form ? "NULL" : "given");
            run_case(ref_ctx, ctx, backend, &c);
        }
}

/* The Krylov operations of one backend configuration against ref. */
static void check_config(kryl_context ref_ctx, kryl_context ctx, kryl_backend_kind kind,
                         const char *name)
{
    (void)kind;
    check_pipecg(ref_ctx, ctx, name);
    check_dot2(ref_ctx, ctx, name);
    check_bicgstab(ref_ctx, ctx, name);
    check_basis(ref_ctx, ctx, name);
    check_fcg(ref_ctx, ctx, name);
    check_least_squares(ref_ctx, ctx, name);
}

int main(void)
{
    test_each_config(false, check_config);
    return test_summary("test_backend_krylov_ops");
}
