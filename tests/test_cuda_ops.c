/* Every operation of the cuda backend against the ref backend, in float and
 * double, on random matrices of awkward shapes and sizes (every SpMV kernel
 * variant on each), plus CG solves through the public API checked by the
 * true residual.  Skipped (77) without a usable CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#ifdef KRYL_HAVE_CUDA
#include "backends/cuda/cuda_hooks.h"
#endif
#include "test_support.h"

/* A backend under test: index 0 is ref (the oracle), 1 is cuda. */
typedef struct side {
    kryl_context ctx;
    const kryl_backend_ops *ops;
} side;

static side sides[2];

static double tolerance(kryl_precision p) { return p == KRYL_DOUBLE ? 1e-12 : 2e-6; }

/* ---- backend memory on both sides ---- */

/* The same vector on both sides. */
typedef struct pair {
    struct kryl_vector_s v[2];
} pair;

static void *alloc_or_die(int b, size_t bytes)
{
    void *ptr = NULL;
    kryl_status st = sides[b].ops->alloc(sides[b].ctx, &ptr, bytes);
    if (st != KRYL_SUCCESS) {
        fprintf(stderr, "alloc of %zu bytes failed: %s\n", bytes, kryl_last_error());
        exit(1);
    }
    return ptr;
}

/* Upload n doubles (rounded to p) into backend memory dst. */
static void upload_as(int b, void *dst, const double *values, int64_t n, kryl_precision p)
{
    size_t bytes = (size_t)n * kryl_precision_size(p);
    void *tmp = malloc(bytes ? bytes : 1);
    for (int64_t i = 0; i < n; i++) {
        if (p == KRYL_DOUBLE)
            ((double *)tmp)[i] = values[i];
        else
            ((float *)tmp)[i] = (float)values[i];
    }
    CHECK_OK(sides[b].ops->upload(sides[b].ctx, dst, tmp, bytes));
    CHECK_OK(sides[b].ops->synchronize(sides[b].ctx));
    free(tmp);
}

static pair pair_new(kryl_precision p, int64_t n, const double *values)
{
    pair v;
    for (int b = 0; b < 2; b++) {
        struct kryl_vector_s w = {sides[b].ctx, NULL, n, p, NULL, false};
        w.data = alloc_or_die(b, (size_t)n * kryl_precision_size(p));
        if (values) upload_as(b, w.data, values, n, p);
        v.v[b] = w;
    }
    return v;
}

static pair pair_random(kryl_precision p, int64_t n, uint64_t seed)
{
    double *values = malloc((size_t)(n ? n : 1) * sizeof *values);
    test_random_values(values, n, seed);
    pair v = pair_new(p, n, values);
    free(values);
    return v;
}

static void pair_free(pair *v)
{
    for (int b = 0; b < 2; b++) sides[b].ops->release(sides[b].ctx, v->v[b].data);
}

/* The values of side b's vector as doubles (malloc'ed). */
static double *values_of(int b, kryl_vector v)
{
    size_t bytes = (size_t)v->n * kryl_precision_size(v->precision);
    void *raw = malloc(bytes ? bytes : 1);
    double *out = malloc((size_t)(v->n ? v->n : 1) * sizeof *out);
    CHECK_OK(sides[b].ops->download(sides[b].ctx, raw, v->data, bytes));
    for (int64_t i = 0; i < v->n; i++)
        out[i] = v->precision == KRYL_DOUBLE ? ((double *)raw)[i] : (double)((float *)raw)[i];
    free(raw);
    return out;
}

/* max relative difference between the cuda and ref copies of v */
static double pair_diff(pair *v)
{
    double *r = values_of(0, &v->v[0]), *g = values_of(1, &v->v[1]);
    double d = test_rel_diff(g, r, v->v[0].n);
    free(r);
    free(g);
    return d;
}

/* One double scalar on both sides. */
typedef struct scalar_pair {
    double *ptr[2];
} scalar_pair;

static scalar_pair scalar_new(double value)
{
    scalar_pair s;
    for (int b = 0; b < 2; b++) {
        s.ptr[b] = alloc_or_die(b, sizeof(double));
        upload_as(b, s.ptr[b], &value, 1, KRYL_DOUBLE);
    }
    return s;
}

static double scalar_get(const scalar_pair *s, int b)
{
    double value = NAN;
    CHECK_OK(sides[b].ops->download(sides[b].ctx, &value, s->ptr[b], sizeof value));
    return value;
}

static void scalar_free(scalar_pair *s)
{
    for (int b = 0; b < 2; b++) sides[b].ops->release(sides[b].ctx, s->ptr[b]);
}

/* A monitor on both sides with a history of `capacity` entries. */
typedef struct monitor_pair {
    kryl_monitor *mon[2];
    double *history[2];
    int64_t capacity;
} monitor_pair;

static void monitor_set(monitor_pair *m, double tol2, int32_t stop)
{
    for (int b = 0; b < 2; b++) {
        kryl_monitor host = {0};
        host.tol2 = tol2;
        host.history = m->history[b];
        host.history_capacity = m->capacity;
        host.stop = stop;
        host.step_ran = stop == KRYL_STOP_RUNNING; /* as cg_update_xr leaves it */
        CHECK_OK(sides[b].ops->upload(sides[b].ctx, m->mon[b], &host, sizeof host));
    }
}

static monitor_pair monitor_new(int64_t capacity, double tol2, int32_t stop)
{
    monitor_pair m;
    m.capacity = capacity;
    for (int b = 0; b < 2; b++) {
        m.mon[b] = alloc_or_die(b, sizeof(kryl_monitor));
        m.history[b] = alloc_or_die(b, (size_t)capacity * sizeof(double));
    }
    monitor_set(&m, tol2, stop);
    return m;
}

static kryl_monitor monitor_get(const monitor_pair *m, int b)
{
    kryl_monitor host;
    memset(&host, 0, sizeof host);
    CHECK_OK(sides[b].ops->download(sides[b].ctx, &host, m->mon[b], sizeof host));
    return host;
}

static void monitor_free(monitor_pair *m)
{
    for (int b = 0; b < 2; b++) {
        sides[b].ops->release(sides[b].ctx, m->mon[b]);
        sides[b].ops->release(sides[b].ctx, m->history[b]);
    }
}

/* ---- SpMV ---- */

/* The matrices of one host CSR on both sides. */
typedef struct matrix_pair {
    kryl_host_matrix host;
    kryl_layout layout;
    struct kryl_matrix_s m[2];
} matrix_pair;

static int matrix_setup(matrix_pair *A, kryl_precision p)
{
    A->host.refs = 1;
    A->host.asymmetry = -1.0;
    memset(&A->layout, 0, sizeof A->layout);
    A->layout.refs = 1;
    A->layout.n = A->layout.n_global = A->host.csr.nrows;
    for (int b = 0; b < 2; b++) {
        struct kryl_matrix_s m = {
            .ctx = sides[b].ctx, .host = &A->host, .layout = &A->layout, .precision = p};
        kryl_fmt_borrow_csr(&A->host.csr, &m.fmt);
        A->m[b] = m;
        kryl_status st = sides[b].ops->matrix_setup(sides[b].ctx, &A->m[b]);
        CHECK(st == KRYL_SUCCESS, "matrix_setup on %s: %s", sides[b].ops->name, kryl_last_error());
        if (st != KRYL_SUCCESS) return 0;
    }
    return 1;
}

static void matrix_release(matrix_pair *A)
{
    for (int b = 0; b < 2; b++) sides[b].ops->matrix_release(sides[b].ctx, &A->m[b]);
}

#ifdef KRYL_HAVE_CUDA
/* The SpMV kernels checked on every matrix: the automatic choice first. */
static const struct {
    int select; /* 0: keep the automatic choice */
    kryl_cuda_spmv_kernel kernel;
    int lanes;
} variants[] = {{0, KRYL_CUDA_SPMV_STREAM, 0},  {1, KRYL_CUDA_SPMV_STREAM, 0},
                {1, KRYL_CUDA_SPMV_VECTOR, 1},  {1, KRYL_CUDA_SPMV_VECTOR, 2},
                {1, KRYL_CUDA_SPMV_VECTOR, 4},  {1, KRYL_CUDA_SPMV_VECTOR, 8},
                {1, KRYL_CUDA_SPMV_VECTOR, 16}, {1, KRYL_CUDA_SPMV_VECTOR, 32}};
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))
#else
#define VARIANT_COUNT 1
#endif

/* y = alpha*A*x + beta*z three ways (z absent, z separate, z = y) with every kernel. */
static void check_spmv(kryl_csr *csr, kryl_precision p, const char *what)
{
    matrix_pair A;
    A.host.csr = *csr;
    if (!matrix_setup(&A, p)) return;
    pair x = pair_random(p, csr->ncols, 11), z = pair_random(p, csr->nrows, 12);
    for (int k = 0; k < VARIANT_COUNT; k++) {
        char name[32] = "auto";
#ifdef KRYL_HAVE_CUDA
        if (variants[k].select)
            CHECK_OK(kryl_cuda_spmv_select(&A.m[1], variants[k].kernel, variants[k].lanes));
        kryl_cuda_spmv_describe(&A.m[1], name, sizeof name);
#endif
        pair y = pair_random(p, csr->nrows, 13);
        for (int b = 0; b < 2; b++) {
            const kryl_backend_ops *ops = sides[b].ops;
            kryl_context c = sides[b].ctx;
            CHECK_OK(ops->spmv(c, &A.m[b], 1.5, &x.v[b], 0.0, NULL, &y.v[b], NULL));
        }
        double d1 = pair_diff(&y);
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->spmv(sides[b].ctx, &A.m[b], -0.5, &x.v[b], 2.0, &z.v[b], &y.v[b],
                                        NULL));
        double d2 = pair_diff(&y);
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->spmv(sides[b].ctx, &A.m[b], 0.75, &x.v[b], 0.25, &y.v[b],
                                        &y.v[b], NULL));
        double d3 = pair_diff(&y);
        CHECK(d1 <= tolerance(p) && d2 <= tolerance(p) && d3 <= tolerance(p),
              "spmv %s %s kernel %s: differences %.3g %.3g %.3g", what, kryl_precision_name(p),
              name, d1, d2, d3);
        if (csr->nrows == csr->ncols) {
            /* the fused y = A x, x'y against ref's spmv and dot */
            scalar_pair dot = scalar_new(0.0);
            CHECK_OK(
                sides[0].ops->spmv(sides[0].ctx, &A.m[0], 1.0, &x.v[0], 0.0, NULL, &y.v[0], NULL));
            CHECK_OK(sides[0].ops->dot(sides[0].ctx, &x.v[0], &y.v[0], (kryl_scalar){dot.ptr[0]}));
            CHECK_OK(sides[1].ops->spmv_dot(sides[1].ctx, &A.m[1], &x.v[1], &y.v[1],
                                            (kryl_scalar){dot.ptr[1]}, NULL));
            double dy = pair_diff(&y), d0 = scalar_get(&dot, 0), dd = scalar_get(&dot, 1) - d0;
            CHECK(dy <= tolerance(p) && fabs(dd) <= tolerance(p) * (fabs(d0) + (double)csr->nrows),
                  "spmv_dot %s %s kernel %s: y differs by %.3g, x'y by %.3g", what,
                  kryl_precision_name(p), name, dy, dd);
            scalar_free(&dot);
        }
        pair_free(&y);
    }
    /* a stopped monitor leaves y alone */
    monitor_pair mon = monitor_new(1, 0.0, KRYL_STOP_CONVERGED);
    pair y = pair_random(p, csr->nrows, 14);
    CHECK_OK(
        sides[1].ops->spmv(sides[1].ctx, &A.m[1], 1.0, &x.v[1], 0.0, NULL, &y.v[1], mon.mon[1]));
    CHECK(pair_diff(&y) == 0.0, "spmv %s: a stopped monitor must leave y unchanged", what);
    pair_free(&y);
    monitor_free(&mon);
    pair_free(&x);
    pair_free(&z);
    matrix_release(&A);
}

static void test_spmv(void)
{
    for (int pi = 0; pi < 2; pi++) {
        kryl_precision p = pi ? KRYL_SINGLE : KRYL_DOUBLE;
        for (int shape = 0; shape < TEST_SHAPE_COUNT; shape++) {
            for (int s = 0; s < test_awkward_size_count; s++) {
                int64_t n = test_awkward_sizes[s];
                if (shape == TEST_SHAPE_SINGLE && s > 0) break;
                kryl_csr csr;
                test_random_csr(&csr, (test_shape)shape, n, n, (uint64_t)(100 * shape + s));
                char what[64];
                snprintf(what, sizeof what, "%s n=%lld", test_shape_name((test_shape)shape),
                         (long long)csr.nrows);
                check_spmv(&csr, p, what);
                kryl_csr_free(&csr);
            }
        }
        /* rectangular, both ways */
        const int64_t shapes[2][2] = {{100, 257}, {1000, 33}};
        for (int r = 0; r < 2; r++) {
            kryl_csr csr;
            test_random_csr(&csr, TEST_SHAPE_RANDOM, shapes[r][0], shapes[r][1], 77 + r);
            check_spmv(&csr, p, r ? "tall" : "wide");
            kryl_csr_free(&csr);
        }
    }
}

/* ---- vector operations ---- */

static void test_vectors(kryl_precision p, int64_t n)
{
    const double tol = tolerance(p);
    pair x = pair_random(p, n, 1), y = pair_random(p, n, 2), d = pair_random(p, n, 3);
    for (int b = 0; b < 2; b++) {
        const kryl_backend_ops *ops = sides[b].ops;
        kryl_context c = sides[b].ctx;
        CHECK_OK(ops->axpby(c, 0.5, &x.v[b], -2.0, &y.v[b]));
        CHECK_OK(ops->pointwise_mult(c, &d.v[b], &d.v[b], &x.v[b]));
    }
    CHECK(pair_diff(&y) <= tol, "axpby n=%lld %s", (long long)n, kryl_precision_name(p));
    CHECK(pair_diff(&d) <= tol, "pointwise_mult n=%lld", (long long)n);

    /* dot: against ref, and bit-identical when repeated */
    scalar_pair dot = scalar_new(NAN);
    for (int b = 0; b < 2; b++)
        CHECK_OK(sides[b].ops->dot(sides[b].ctx, &x.v[b], &y.v[b], (kryl_scalar){dot.ptr[b]}));
    double first = scalar_get(&dot, 1);
    CHECK_CLOSE(first, scalar_get(&dot, 0), 1e-12 * (double)(n > 0 ? n : 1));
    CHECK_OK(sides[1].ops->dot(sides[1].ctx, &x.v[1], &y.v[1], (kryl_scalar){dot.ptr[1]}));
    CHECK(scalar_get(&dot, 1) == first, "dot n=%lld is not deterministic", (long long)n);
    scalar_free(&dot);

    /* fill, then copies: converting, gathered and scattered through a permutation */
    for (int b = 0; b < 2; b++) CHECK_OK(sides[b].ops->fill(sides[b].ctx, &y.v[b], -3.25));
    CHECK(pair_diff(&y) == 0.0, "fill n=%lld", (long long)n);
    kryl_precision other = p == KRYL_DOUBLE ? KRYL_SINGLE : KRYL_DOUBLE;
    pair w = pair_new(other, n, NULL);
    int32_t *perm = malloc((size_t)(n ? n : 1) * sizeof *perm);
    for (int64_t i = 0; i < n; i++) perm[i] = (int32_t)i;
    for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed LCG */
        int64_t j = (int64_t)((uint64_t)(i * 2654435761u + 12345u) % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int dir = -1; dir < 2; dir++) {
        for (int b = 0; b < 2; b++) {
            int32_t *bperm = NULL;
            if (dir >= 0) {
                bperm = alloc_or_die(b, (size_t)n * sizeof *perm);
                CHECK_OK(sides[b].ops->upload(sides[b].ctx, bperm, perm, (size_t)n * sizeof *perm));
            }
            CHECK_OK(sides[b].ops->permute_copy(sides[b].ctx, &w.v[b], &x.v[b], bperm,
                                                dir > 0 ? KRYL_SCATTER : KRYL_GATHER, NULL));
            CHECK_OK(sides[b].ops->synchronize(sides[b].ctx));
            sides[b].ops->release(sides[b].ctx, bperm);
        }
        CHECK(pair_diff(&w) == 0.0, "permute_copy n=%lld dir %d %s -> %s", (long long)n, dir,
              kryl_precision_name(p), kryl_precision_name(other));
    }
    free(perm);
    pair_free(&w);
    pair_free(&x);
    pair_free(&y);
    pair_free(&d);
}

/* ---- fused CG steps and the monitor ---- */

static void test_cg_steps(kryl_precision p, int64_t n)
{
    const double tol = tolerance(p);
    pair pv = pair_random(p, n, 21), q = pair_random(p, n, 22), x = pair_random(p, n, 23);
    pair r = pair_random(p, n, 24), dinv = pair_random(p, n, 25), z = pair_new(p, n, NULL);
    scalar_pair num = scalar_new(0.75), den = scalar_new(1.25), rz = scalar_new(NAN),
                rr = scalar_new(NAN);
    monitor_pair mon = monitor_new(8, 1e-300, KRYL_STOP_RUNNING);
    for (int jacobi = 0; jacobi < 2; jacobi++) {
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->cg_update_xr(
                sides[b].ctx, (kryl_scalar){num.ptr[b]}, (kryl_scalar){den.ptr[b]}, &pv.v[b],
                &q.v[b], &x.v[b], &r.v[b], jacobi ? &dinv.v[b] : NULL, jacobi ? &z.v[b] : NULL,
                (kryl_scalar){rz.ptr[b]}, (kryl_scalar){rr.ptr[b]}, mon.mon[b]));
        CHECK(pair_diff(&x) <= tol && pair_diff(&r) <= tol, "cg_update_xr x/r n=%lld jacobi %d",
              (long long)n, jacobi);
        if (jacobi) CHECK(pair_diff(&z) <= tol, "cg_update_xr z n=%lld", (long long)n);
        CHECK_CLOSE(scalar_get(&rz, 1), scalar_get(&rz, 0), 1e-12 * (double)(n + 1));
        CHECK_CLOSE(scalar_get(&rr, 1), scalar_get(&rr, 0), 1e-12 * (double)(n + 1));
        /* with jacobi the p update itself records rr */
        for (int b = 0; b < 2; b++)
            CHECK_OK(sides[b].ops->cg_update_p(
                sides[b].ctx, (kryl_scalar){rr.ptr[b]}, (kryl_scalar){den.ptr[b]}, &r.v[b],
                &pv.v[b], (kryl_scalar){jacobi ? rr.ptr[b] : NULL}, mon.mon[b]));
        CHECK(pair_diff(&pv) <= tol, "cg_update_p n=%lld", (long long)n);
        for (int b = 0; b < 2 && !jacobi; b++)
            CHECK_OK(sides[b].ops->monitor_update(sides[b].ctx, mon.mon[b],
                                                  (kryl_scalar){rr.ptr[b]}, 0));
    }
    kryl_monitor m0 = monitor_get(&mon, 0), m1 = monitor_get(&mon, 1);
    CHECK(m1.iteration == m0.iteration && m1.stop == m0.stop, "monitor: iteration %lld/%lld",
          (long long)m1.iteration, (long long)m0.iteration);
    CHECK_CLOSE(m1.rr, m0.rr, 1e-12 * (double)(n + 1));

    /* den <= 0 is a breakdown; a NaN, or a ratio that overflows (the
     * smallest subnormal den), stops with NAN; none changes anything */
    const double bad_den[3] = {-1.0, NAN, 4.9e-324};
    const int32_t expect[3] = {KRYL_STOP_BREAKDOWN, KRYL_STOP_NAN, KRYL_STOP_NAN};
    for (int t = 0; t < 3; t++) {
        monitor_set(&mon, 0.0, KRYL_STOP_RUNNING);
        upload_as(1, den.ptr[1], &bad_den[t], 1, KRYL_DOUBLE);
        double *before = values_of(1, &x.v[1]);
        CHECK_OK(sides[1].ops->cg_update_xr(sides[1].ctx, (kryl_scalar){num.ptr[1]},
                                            (kryl_scalar){den.ptr[1]}, &pv.v[1], &q.v[1], &x.v[1],
                                            &r.v[1], NULL, NULL, (kryl_scalar){rz.ptr[1]},
                                            (kryl_scalar){rr.ptr[1]}, mon.mon[1]));
        double *after = values_of(1, &x.v[1]);
        CHECK(test_rel_diff(after, before, n) == 0.0, "a breakdown must leave x unchanged");
        CHECK(monitor_get(&mon, 1).stop == expect[t], "stop %d, expected %d",
              monitor_get(&mon, 1).stop, expect[t]);
        monitor_set(&mon, 0.0, KRYL_STOP_RUNNING);
        CHECK_OK(sides[1].ops->cg_update_p(sides[1].ctx, (kryl_scalar){num.ptr[1]},
                                           (kryl_scalar){den.ptr[1]}, &r.v[1], &pv.v[1],
                                           (kryl_scalar){rr.ptr[1]}, mon.mon[1]));
        CHECK(monitor_get(&mon, 1).stop == expect[t], "cg_update_p stop %d, expected %d",
              monitor_get(&mon, 1).stop, expect[t]);
        free(before);
        free(after);
    }
    /* convergence: rr <= tol2 stops and records the history */
    monitor_set(&mon, 1e300, KRYL_STOP_RUNNING);
    for (int b = 0; b < 2; b++)
        CHECK_OK(
            sides[b].ops->monitor_update(sides[b].ctx, mon.mon[b], (kryl_scalar){rr.ptr[b]}, 3));
    m1 = monitor_get(&mon, 1);
    CHECK(m1.stop == KRYL_STOP_CONVERGED && m1.iteration == 3, "monitor: stop %d iteration %lld",
          m1.stop, (long long)m1.iteration);
    double hist[2];
    for (int b = 0; b < 2; b++)
        CHECK_OK(
            sides[b].ops->download(sides[b].ctx, &hist[b], mon.history[b] + 3, sizeof(double)));
    CHECK_CLOSE(hist[1], hist[0], 1e-12);

    /* a p update whose record stops the monitor updates every row, those of
     * blocks that start after the record too; the next step does nothing */
    const double den_value = 1.25;
    upload_as(1, den.ptr[1], &den_value, 1, KRYL_DOUBLE);
    monitor_set(&mon, 1e300, KRYL_STOP_RUNNING);
    for (int b = 0; b < 2; b++)
        CHECK_OK(sides[b].ops->cg_update_p(sides[b].ctx, (kryl_scalar){num.ptr[b]},
                                           (kryl_scalar){den.ptr[b]}, &r.v[b], &pv.v[b],
                                           (kryl_scalar){rr.ptr[b]}, mon.mon[b]));
    CHECK(pair_diff(&pv) <= tol, "cg_update_p that stops the monitor n=%lld", (long long)n);
    for (int b = 0; b < 2; b++)
        CHECK(monitor_get(&mon, b).stop == KRYL_STOP_CONVERGED,
              "cg_update_p's record: stop %d on side %d", monitor_get(&mon, b).stop, b);
    double *p_stopped = values_of(1, &pv.v[1]), *x_stopped = values_of(1, &x.v[1]);
    CHECK_OK(sides[1].ops->cg_update_xr(sides[1].ctx, (kryl_scalar){num.ptr[1]},
                                        (kryl_scalar){den.ptr[1]}, &pv.v[1], &q.v[1], &x.v[1],
                                        &r.v[1], NULL, NULL, (kryl_scalar){rz.ptr[1]},
                                        (kryl_scalar){rr.ptr[1]}, mon.mon[1]));
    CHECK_OK(sides[1].ops->cg_update_p(sides[1].ctx, (kryl_scalar){num.ptr[1]},
                                       (kryl_scalar){den.ptr[1]}, &r.v[1], &pv.v[1],
                                       (kryl_scalar){rr.ptr[1]}, mon.mon[1]));
    double *p_after = values_of(1, &pv.v[1]), *x_after = values_of(1, &x.v[1]);
    CHECK(test_rel_diff(p_after, p_stopped, n) == 0.0 &&
              test_rel_diff(x_after, x_stopped, n) == 0.0,
          "a step after the stop changed x or p (n=%lld)", (long long)n);
    CHECK(monitor_get(&mon, 1).iteration == 1, "a step after the stop advanced the monitor to %lld",
          (long long)monitor_get(&mon, 1).iteration);
    free(p_stopped);
    free(x_stopped);
    free(p_after);
    free(x_after);

    monitor_free(&mon);
    scalar_free(&num);
    scalar_free(&den);
    scalar_free(&rz);
    scalar_free(&rr);
    pair_free(&pv);
    pair_free(&q);
    pair_free(&x);
    pair_free(&r);
    pair_free(&dinv);
    pair_free(&z);
}

/* ---- errors ---- */

/* Uploads past the pinned ring's threshold (32 MiB, chunks of 8 MiB: a
 * partial last chunk, several rounds of the slots) and below it arrive
 * byte for byte, back to back on the stream. */
static void test_large_uploads(void)
{
    kryl_context g = sides[1].ctx;
    const size_t sizes[] = {(size_t)5 * (8u << 20) + 4099, (size_t)32 << 20, 1000};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        const size_t bytes = sizes[c];
        unsigned char *host = malloc(bytes), *back = malloc(bytes);
        for (size_t i = 0; i < bytes; i++) host[i] = (unsigned char)(i * 2654435761u >> 24);
        void *dev = NULL, *dev2 = NULL;
        CHECK_OK(g->ops->alloc(g, &dev, bytes));
        CHECK_OK(g->ops->alloc(g, &dev2, bytes));
        CHECK_OK(g->ops->upload(g, dev, host, bytes));
        /* the source may be reused at once: the second copy sends other bytes */
        memset(host, 0x5a, bytes);
        CHECK_OK(g->ops->upload(g, dev2, host, bytes));
        CHECK_OK(g->ops->download(g, back, dev, bytes));
        size_t wrong = 0;
        for (size_t i = 0; i < bytes; i++)
            wrong += back[i] != (unsigned char)(i * 2654435761u >> 24);
        CHECK(wrong == 0, "upload of %zu bytes: %zu bytes differ", bytes, wrong);
        CHECK_OK(g->ops->download(g, back, dev2, bytes));
        CHECK(memcmp(back, host, bytes) == 0, "second upload of %zu bytes differs", bytes);
        g->ops->release(g, dev);
        g->ops->release(g, dev2);
        free(host);
        free(back);
    }
}

static void test_errors(void)
{
    void *ptr = (void *)1;
    kryl_status st = sides[1].ops->alloc(sides[1].ctx, &ptr, (size_t)1 << 52);
    CHECK(st == KRYL_ERR_DEVICE_OUT_OF_MEMORY && ptr == NULL, "4 PiB alloc -> %s: %s",
          kryl_strerror(st), kryl_last_error());
    CHECK(strstr(kryl_last_error(), "bytes") != NULL, "message: %s", kryl_last_error());
    pair a = pair_new(KRYL_DOUBLE, 10, NULL), b = pair_new(KRYL_DOUBLE, 11, NULL),
         f = pair_new(KRYL_SINGLE, 10, NULL);
    CHECK_STATUS(sides[1].ops->axpby(sides[1].ctx, 1.0, &a.v[1], 1.0, &b.v[1]),
                 KRYL_ERR_DIMENSION_MISMATCH);
    CHECK_STATUS(sides[1].ops->axpby(sides[1].ctx, 1.0, &a.v[1], 1.0, &f.v[1]),
                 KRYL_ERR_INVALID_ARGUMENT);
    /* the context still works after the errors */
    CHECK_OK(sides[1].ops->fill(sides[1].ctx, &a.v[1], 1.0));
    CHECK_OK(sides[1].ops->synchronize(sides[1].ctx));
    pair_free(&a);
    pair_free(&b);
    pair_free(&f);
}

/* ---- CG through the public API ---- */

/* ||b - A x|| / ||b|| in double on the host */
static double true_relres(kryl_matrix A, const double *b, const double *x)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    int64_t n;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, NULL));
    CHECK_OK(kryl_matrix_csr_view(A, &rp, &ci, &va));
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double ax = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) ax += va[k] * x[ci[k]];
        rr += (b[i] - ax) * (b[i] - ax);
        bb += b[i] * b[i];
    }
    return sqrt(rr) / sqrt(bb);
}

/* Solve A x = b (b random, x0 = 0) on cuda; check convergence by the true residual. */
static void solve_and_check(kryl_matrix A, const char *what, kryl_method method,
                            kryl_precision precision, double rtol)
{
    int64_t n;
    CHECK_OK(kryl_matrix_size(A, &n, NULL, NULL));
    double *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, sizeof *x);
    test_random_values(b, n, 5);
    kryl_solver_options opt;
    kryl_solver_options_init(&opt);
    opt.method = method;
    opt.precision = precision;
    opt.rtol = rtol;
    opt.max_iterations = 20000;
    kryl_solver solver = NULL;
    kryl_vector vb = NULL, vx = NULL;
    kryl_result res;
    memset(&res, 0, sizeof res);
    CHECK_OK(kryl_solver_create(&solver, A, &opt));
    CHECK_OK(kryl_vector_create(&vb, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&vx, A, KRYL_DOUBLE));
    if (solver && vb && vx) {
        CHECK_OK(kryl_vector_set(vb, b, n));
        CHECK_OK(kryl_solver_solve(solver, vb, vx, &res));
        CHECK_OK(kryl_vector_get(vx, x, n));
        double relres = true_relres(A, b, x);
        printf("  cg %-18s %-6s %-6s: %lld iterations, %s, relres %.3g (reported %.3g)\n", what,
               kryl_method_name(method), kryl_precision_name(precision), (long long)res.iterations,
               kryl_reason_name(res.reason), relres, res.relres);
        CHECK(res.converged, "%s: not converged (%s)", what, kryl_reason_name(res.reason));
        CHECK(relres <= 1.01 * rtol, "%s: true relres %.3g > rtol %.3g", what, relres, rtol);
        CHECK_CLOSE(res.relres, relres, 1e-3 * rtol);
    }
    kryl_vector_destroy(&vb);
    kryl_vector_destroy(&vx);
    kryl_solver_destroy(&solver);
    free(b);
    free(x);
}

/* The 2-D 5-point Laplacian on an m x m grid. */
static kryl_status poisson2d(kryl_matrix *A, kryl_context ctx, int64_t m)
{
    int64_t n = m * m, k = 0;
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp), *ci = malloc((size_t)(5 * n) * sizeof *ci);
    double *va = malloc((size_t)(5 * n) * sizeof *va);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < m; j++) {
            rp[i * m + j] = k;
            /* row (i,j): 4 on the diagonal, -1 to each grid neighbour */
            const int64_t di[5] = {-1, 0, 0, 0, 1}, dj[5] = {0, -1, 0, 1, 0};
            for (int t = 0; t < 5; t++) {
                int64_t ii = i + di[t], jj = j + dj[t];
                if (ii < 0 || jj < 0 || ii >= m || jj >= m) continue;
                ci[k] = ii * m + jj;
                va[k++] = t == 2 ? 4.0 : -1.0;
            }
        }
    }
    rp[n] = k;
    kryl_status st = kryl_matrix_create_csr(A, ctx, n, n, 0, n, rp, ci, va);
    free(rp);
    free(ci);
    free(va);
    return st;
}

static void test_solves(void)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = KRYL_BACKEND_CUDA;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &o));
    if (ctx == NULL) return;
    kryl_matrix A = NULL;
    CHECK_OK(poisson2d(&A, ctx, 67));
    if (A) {
        solve_and_check(A, "poisson2d 67^2", KRYL_METHOD_CG, KRYL_DOUBLE, 1e-8);
        solve_and_check(A, "poisson2d 67^2", KRYL_METHOD_PCG, KRYL_DOUBLE, 1e-8);
        solve_and_check(A, "poisson2d 67^2", KRYL_METHOD_CG, KRYL_SINGLE, 1e-5);
        kryl_matrix_destroy(&A);
    }
    const char *path = test_matrix_path("bcsstk06.mtx");
    if (path && kryl_matrix_read_mtx(&A, ctx, path) == KRYL_SUCCESS) {
        solve_and_check(A, "bcsstk06", KRYL_METHOD_PCG, KRYL_DOUBLE, 1e-8);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

int main(void)
{
    if (!test_cuda_device("test_cuda_ops")) return TEST_SKIP_CODE;
    sides[0].ctx = test_context(KRYL_BACKEND_REF);
    sides[1].ctx = test_context(KRYL_BACKEND_CUDA);
    for (int b = 0; b < 2; b++) sides[b].ops = sides[b].ctx->ops;
    printf("test_cuda_ops on %s\n", kryl_context_device_name(sides[1].ctx));

    test_spmv();
    for (int pi = 0; pi < 2; pi++) {
        kryl_precision p = pi ? KRYL_SINGLE : KRYL_DOUBLE;
        test_vectors(p, 0);
        for (int s = 0; s < test_awkward_size_count; s++) {
            test_vectors(p, test_awkward_sizes[s]);
            test_cg_steps(p, test_awkward_sizes[s]);
        }
        test_vectors(p, 3000001); /* more blocks than one reduction grid */
        test_cg_steps(p, 3000001);
    }
    test_large_uploads();
    test_errors();
    for (int b = 0; b < 2; b++) kryl_context_destroy(&sides[b].ctx);
    test_solves();
    return test_summary("test_cuda_ops");
}
