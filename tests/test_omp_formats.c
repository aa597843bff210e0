/* The omp backend's SpMV in every storage format, each from its own
 * arrays, against the reference backend: y = alpha*A*x + beta*z (z absent,
 * distinct, the very y, or NaN under beta = 0) in double and single
 * precision on 1, 2 and 3 threads, on random matrices of awkward shapes and
 * sizes, generated stencils, dense blocks, power-law and real matrices.
 * Also: the same bits on every thread count, a stopped monitor leaves y
 * alone, units balanced by stored entries, float values only where they
 * lose nothing, refusals alike on both backends, clear errors on bad
 * input, and PCG in each format reaching the true residual within one
 * iteration of CSR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/omp/omp_backend.h"
#include "test_formats_util.h"

#define NTHREADS 3
static const int thread_counts[NTHREADS] = {1, 2, 3};

/* The contexts every check runs on: ref, and omp on each thread count. */
typedef struct contexts {
    kryl_context ref;
    kryl_context omp[NTHREADS];
} contexts;

/* One product y = alpha*A*x + beta*z; z: 0 none, 1 distinct, 2 the very y,
 * 3 NaN with beta = 0 (must not be read). */
typedef struct product {
    double alpha, beta;
    int z;
} product;

static const product products[] = {{1.0, 0.0, 0}, {-0.75, 0.5, 1}, {1.25, -2.0, 2}, {0.5, 0.0, 3}};
#define NPRODUCTS ((int)(sizeof products / sizeof products[0]))

static kryl_context make_context(kryl_backend_kind kind, int threads)
{
    kryl_context_options o;
    kryl_context_options_init(&o);
    o.backend = kind;
    o.threads = threads;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &o));
    return ctx;
}

/* A matrix on ctx holding a copy of A. */
static kryl_matrix matrix_on(kryl_context ctx, const kryl_csr *A)
{
    const int64_t nnz = kryl_csr_nnz(A);
    kryl_csr copy;
    if (kryl_csr_alloc(&copy, A->nrows, A->ncols, nnz) != KRYL_SUCCESS) abort();
    memcpy(copy.row_ptr, A->row_ptr, (size_t)(A->nrows + 1) * sizeof *A->row_ptr);
    memcpy(copy.col_idx, A->col_idx, (size_t)nnz * sizeof *A->col_idx);
    memcpy(copy.values, A->values, (size_t)nnz * sizeof *A->values);
    kryl_matrix M = NULL;
    CHECK_OK(kryl_matrix_from_csr(&M, ctx, &copy));
    return M;
}

/* Units of the omp kernels and what each costs (slots read plus one per
 * row written; a sorted SELL/pJDS slice reads its entries, at least a
 * cache line per slot), worked out here from the format's arrays. */
static int64_t units_of(const kryl_fmt *f, int64_t *cost, int64_t *max_cost)
{
    int64_t units = f->nrows;
    if (f->kind == KRYL_FORMAT_SELL || f->kind == KRYL_FORMAT_PJDS) units = f->u.sell.nslices;
    if (f->kind == KRYL_FORMAT_BCSR2 || f->kind == KRYL_FORMAT_BCSR4) units = f->u.bcsr.nbrows;
    *max_cost = 0;
    for (int64_t u = 0; u < units; u++) {
        int64_t c;
        switch (f->kind) {
        case KRYL_FORMAT_ELL: c = f->u.ell.width + 1; break;
        case KRYL_FORMAT_ELLR: c = f->u.ell.row_len[u] + 1; break;
        case KRYL_FORMAT_JDS: c = f->u.jds.row_len[u] + 1; break;
        case KRYL_FORMAT_SELL:
        case KRYL_FORMAT_PJDS: {
            /* each slot: the rows reaching it, at least a cache line of 16 columns */
            const int32_t *len = f->u.sell.row_len + u * f->u.sell.C;
            c = f->u.sell.C;
            for (int64_t j = 0; j < f->u.sell.slice_width[u]; j++) {
                int64_t reach = 0;
                for (int64_t r = 0; r < f->u.sell.C; r++) reach += len[r] > j;
                c += reach > 16 ? reach : 16;
            }
            break;
        }
        case KRYL_FORMAT_BCSR2:
        case KRYL_FORMAT_BCSR4:
            c = (f->u.bcsr.brow_ptr[u + 1] - f->u.bcsr.brow_ptr[u]) * f->u.bcsr.b * f->u.bcsr.b +
                f->u.bcsr.b;
            break;
        default: c = f->u.dia.ndiag + 1; break;
        }
        if (cost) cost[u] = c;
        *max_cost = c > *max_cost ? c : *max_cost;
    }
    return units;
}

/* The omp storage of B: CSR's own arrays (its compression is checked by
 * test_backend_omp), or for another format that format, blocks covering
 * the units in order with none costing more than its share plus one unit,
 * and float values exactly when single or when every value is a float. */
static void check_storage(kryl_matrix B, const char *label)
{
    const kryl_omp_matrix *M = B->storage;
    const kryl_fmt *f = &B->fmt;
    if (f->kind == KRYL_FORMAT_CSR) {
        CHECK(M != NULL && M->fmt == NULL && M->row_ptr == f->u.csr.row_ptr,
              "%s: the omp storage does not use the format's CSR", label);
        return;
    }
    CHECK(M != NULL && M->fmt == f, "%s: the omp storage does not use its own format", label);
    if (M == NULL || M->fmt != f) return;
    int64_t max_cost, units = units_of(f, NULL, &max_cost);
    int64_t *cost = malloc((size_t)(units + 1) * sizeof *cost);
    units_of(f, cost, &max_cost);
    double total = 0.0;
    for (int64_t u = 0; u < units; u++) total += (double)cost[u];
    CHECK(M->part[0] == 0 && M->part[M->nparts] == units, "%s: blocks cover [%lld, %lld) of %lld",
          label, (long long)M->part[0], (long long)M->part[M->nparts], (long long)units);
    for (int b = 0; b < M->nparts; b++) {
        CHECK(M->part[b] <= M->part[b + 1], "%s: block %d runs backwards", label, b);
        double c = 0.0;
        for (int64_t u = M->part[b]; u < M->part[b + 1] && u < units; u++) c += (double)cost[u];
        CHECK(c <= total / M->nparts + (double)max_cost, "%s: block %d costs %.0f of %.0f", label,
              b, c, total);
    }
    free(cost);
    double *values;
    int64_t count;
    kryl_fmt_values(f, &values, &count);
    bool exact = true;
    for (int64_t k = 0; k < count; k++) exact = exact && (double)(float)values[k] == values[k];
    const bool want = count > 0 && (B->precision == KRYL_SINGLE || exact);
    CHECK((M->values_single != NULL) == want, "%s: float values %s", label,
          M->values_single ? "kept" : "absent");
}

/* y = alpha*B*x + beta*z on B's context for product p; returns y in the
 * caller's order.  x and z are in the caller's order too. */
static void multiply(kryl_matrix B, const product *p, const double *x, const double *z, double *y,
                     bool omit_nan_z)
{
    kryl_context ctx = B->ctx;
    const int64_t n = B->fmt.nrows;
    kryl_vector xv = NULL, zv = NULL, yv = NULL;
    CHECK_OK(kryl_vector_create(&xv, B, B->precision));
    CHECK_OK(kryl_vector_create(&zv, B, B->precision));
    CHECK_OK(kryl_vector_create(&yv, B, B->precision));
    CHECK_OK(kryl_vector_set(xv, x, n));
    CHECK_OK(kryl_vector_set(zv, z, n));
    CHECK_OK(kryl_vector_set(yv, z, n)); /* y = z for p->z == 2; otherwise overwritten */
    if (p->z == 3) CHECK_OK(ctx->ops->fill(ctx, zv, NAN));
    kryl_vector zarg = p->z == 1 ? zv : p->z == 2 ? yv : p->z == 3 && !omit_nan_z ? zv : NULL;
    CHECK_OK(ctx->ops->spmv(ctx, B, p->alpha, xv, p->beta, zarg, yv, NULL));
    CHECK_OK(ctx->ops->synchronize(ctx));
    CHECK_OK(kryl_vector_get(yv, y, n));
    kryl_vector_destroy(&xv);
    kryl_vector_destroy(&zv);
    kryl_vector_destroy(&yv);
}

/* A stopped monitor: the product leaves y as it was. */
static void check_guard(kryl_matrix B, const double *x, const double *z, const char *label)
{
    kryl_context ctx = B->ctx;
    const int64_t n = B->fmt.nrows;
    kryl_vector xv = NULL, yv = NULL;
    CHECK_OK(kryl_vector_create(&xv, B, B->precision));
    CHECK_OK(kryl_vector_create(&yv, B, B->precision));
    CHECK_OK(kryl_vector_set(xv, x, n));
    CHECK_OK(kryl_vector_set(yv, z, n));
    kryl_monitor mon;
    memset(&mon, 0, sizeof mon);
    mon.stop = KRYL_STOP_CONVERGED;
    CHECK_OK(ctx->ops->spmv(ctx, B, 2.0, xv, 0.0, NULL, yv, &mon));
    double *y = malloc((size_t)(n > 0 ? n : 1) * sizeof *y);
    CHECK_OK(kryl_vector_get(yv, y, n));
    bool same = true;
    for (int64_t i = 0; i < n; i++)
        same = same && (B->precision == KRYL_DOUBLE ? y[i] == z[i] : y[i] == (float)z[i]);
    CHECK(same, "%s: a stopped monitor's spmv changed y", label);
    free(y);
    kryl_vector_destroy(&xv);
    kryl_vector_destroy(&yv);
}

/* One format and precision of A on every context. */
static void check_format(const contexts *c, kryl_matrix Aref, kryl_matrix *Aomp, kryl_format format,
                         kryl_precision precision, const char *what)
{
    char label[256];
    snprintf(label, sizeof label, "%s %s %s", what, kryl_format_name(format),
             kryl_precision_name(precision));
    kryl_matrix Bref = NULL, Bomp[NTHREADS] = {NULL};
    kryl_status st = kryl_matrix_convert(&Bref, Aref, precision, format, NULL, KRYL_ORDER_NONE);
    for (int t = 0; t < NTHREADS; t++) {
        kryl_status so =
            kryl_matrix_convert(&Bomp[t], Aomp[t], precision, format, NULL, KRYL_ORDER_NONE);
        CHECK(so == st, "%s on %d threads: omp says %s (%s), ref %s", label, thread_counts[t],
              kryl_strerror(so), so ? kryl_last_error() : "", kryl_strerror(st));
    }
    if (st != KRYL_SUCCESS) {
        CHECK(st == KRYL_ERR_FORMAT_UNSUITABLE, "%s: %s (%s)", label, kryl_strerror(st),
              kryl_last_error());
        CHECK(strlen(kryl_last_error()) > 20, "%s: refused without a reason", label);
    }
    bool all = st == KRYL_SUCCESS;
    for (int t = 0; t < NTHREADS; t++) all = all && Bomp[t] != NULL;
    if (!all) {
        for (int t = 0; t < NTHREADS; t++) kryl_matrix_destroy(&Bomp[t]);
        kryl_matrix_destroy(&Bref);
        return;
    }
    const int64_t n = Bref->fmt.nrows;
    const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
    double *x = malloc(bytes), *z = malloc(bytes), *yr = malloc(bytes), *y1 = malloc(bytes),
           *y = malloc(bytes);
    test_random_values(x, n, (uint64_t)n + 101);
    test_random_values(z, n, (uint64_t)n + 202);
    const double tol = precision == KRYL_DOUBLE ? 1e-12 : 1e-5;
    for (int t = 0; t < NTHREADS; t++) {
        char tl[300];
        snprintf(tl, sizeof tl, "%s, %d threads", label, thread_counts[t]);
        check_storage(Bomp[t], tl);
        check_guard(Bomp[t], x, z, tl);
    }
    for (int k = 0; k < NPRODUCTS; k++) {
        const product *p = &products[k];
        multiply(Bref, p, x, z, yr, true);
        for (int t = 0; t < NTHREADS; t++) {
            multiply(Bomp[t], p, x, z, t == 0 ? y1 : y, false);
            const double *yt = t == 0 ? y1 : y;
            double err = test_rel_diff(yt, yr, n);
            CHECK(err <= tol, "%s, %d threads, alpha %g beta %g z %d: differs from ref by %g",
                  label, thread_counts[t], p->alpha, p->beta, p->z, err);
            CHECK(t == 0 || memcmp(y, y1, (size_t)n * sizeof *y) == 0,
                  "%s, alpha %g beta %g z %d: %d threads differ from 1 thread", label, p->alpha,
                  p->beta, p->z, thread_counts[t]);
        }
    }
    free(x);
    free(z);
    free(yr);
    free(y1);
    free(y);
    for (int t = 0; t < NTHREADS; t++) kryl_matrix_destroy(&Bomp[t]);
    kryl_matrix_destroy(&Bref);
}

/* Every format and precision of A (taken over: freed here). */
static void check_matrix(const contexts *c, kryl_csr *A, const char *what)
{
    kryl_matrix Aref = matrix_on(c->ref, A), Aomp[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) Aomp[t] = matrix_on(c->omp[t], A);
    kryl_csr_free(A);
    for (int f = 0; f < TF_NFORMATS; f++)
        for (int p = 0; p < 2; p++)
            check_format(c, Aref, Aomp, tf_formats[f], p ? KRYL_SINGLE : KRYL_DOUBLE, what);
    kryl_matrix_destroy(&Aref);
    for (int t = 0; t < NTHREADS; t++) kryl_matrix_destroy(&Aomp[t]);
}

static void check_random(const contexts *c)
{
    static const int64_t sizes[] = {1, 31, 33, 257, 4099};
    for (int s = 0; s < TEST_SHAPE_COUNT; s++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            if (s == TEST_SHAPE_SINGLE && k > 0) continue; /* always 1 x 1 */
            kryl_csr A;
            test_random_csr(&A, (test_shape)s, sizes[k], sizes[k], (uint64_t)(7 * s + k));
            char what[64];
            snprintf(what, sizeof what, "%s %lld", test_shape_name((test_shape)s),
                     (long long)sizes[k]);
            check_matrix(c, &A, what);
        }
}

static void check_generated(const contexts *c)
{
    const struct {
        kryl_generator_kind kind;
        int64_t n;
        const char *what;
    } gens[] = {{KRYL_GEN_POISSON2D5, 37, "poisson2d 37^2"},
                {KRYL_GEN_POISSON3D7, 13, "poisson3d 13^3"},
                {KRYL_GEN_POISSON3D27, 11, "27-point 11^3"},
                {KRYL_GEN_POWERLAW, 5000, "powerlaw 5000"}};
    for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
        kryl_csr A;
        if (tf_generate(&A, gens[g].kind, gens[g].n)) check_matrix(c, &A, gens[g].what);
    }
    kryl_csr A;
    tf_dense_blocks(&A, 201, 5, 9); /* 1005 rows: 5x5 blocks straddle the 2x2 and 4x4 grid */
    check_matrix(c, &A, "5x5 blocks");
    tf_dense_blocks(&A, 75, 4, 10); /* 300 rows: exact 4x4 (and 2x2) blocks */
    check_matrix(c, &A, "4x4 blocks");
}

static void check_real(const contexts *c)
{
    static const char *files[] = {"bcsstk06.mtx", "1138_bus.mtx", "sherman3.mtx", "cage4.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        kryl_csr A;
        if (tf_read(&A, files[f])) check_matrix(c, &A, files[f]);
    }
}

/* Bad input is refused with a reason, never a crash: values beyond the
 * float range in single precision, vectors of another length. */
static void check_errors(kryl_context ctx)
{
    kryl_csr A;
    test_random_csr(&A, TEST_SHAPE_RANDOM, 100, 100, 3);
    A.values[5] = 1e300;
    kryl_matrix M = matrix_on(ctx, &A), B = NULL, C = NULL;
    kryl_csr_free(&A);
    for (int f = 1; f < TF_NFORMATS; f++) {
        kryl_status st =
            kryl_matrix_convert(&B, M, KRYL_SINGLE, tf_formats[f], NULL, KRYL_ORDER_NONE);
        CHECK(st == KRYL_ERR_INVALID_VALUE || st == KRYL_ERR_FORMAT_UNSUITABLE,
              "%s single with 1e300: %s (%s)", kryl_format_name(tf_formats[f]), kryl_strerror(st),
              kryl_last_error());
        CHECK(st != KRYL_ERR_INVALID_VALUE || strstr(kryl_last_error(), "single") != NULL,
              "%s: unclear message '%s'", kryl_format_name(tf_formats[f]), kryl_last_error());
        kryl_matrix_destroy(&B);
    }
    test_random_csr(&A, TEST_SHAPE_RANDOM, 64, 64, 4);
    kryl_matrix M64 = matrix_on(ctx, &A);
    kryl_csr_free(&A);
    CHECK_OK(kryl_matrix_convert(&B, M, KRYL_DOUBLE, KRYL_FORMAT_SELL, NULL, KRYL_ORDER_NONE));
    CHECK_OK(kryl_matrix_convert(&C, M64, KRYL_DOUBLE, KRYL_FORMAT_SELL, NULL, KRYL_ORDER_NONE));
    kryl_vector x = NULL, y = NULL;
    CHECK_OK(kryl_vector_create(&x, C, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&y, B, KRYL_DOUBLE));
    if (B != NULL && x != NULL && y != NULL)
        CHECK_STATUS(ctx->ops->spmv(ctx, B, 1.0, x, 0.0, NULL, y, NULL),
                     KRYL_ERR_DIMENSION_MISMATCH);
    kryl_vector_destroy(&x);
    kryl_vector_destroy(&y);
    kryl_matrix_destroy(&B);
    kryl_matrix_destroy(&C);
    kryl_matrix_destroy(&M);
    kryl_matrix_destroy(&M64);
}

/* PCG in `format` on ctx, b = A*(1, 2, ..., n)/n: the true residual
 * ||b - A x|| / ||b||, worked out here from the CSR, meets rtol; returns the
 * iterations (-1 when the format is refused). */
static int64_t pcg_in(kryl_context ctx, const kryl_csr *A, kryl_format format,
                      kryl_precision precision, const char *what)
{
    const int64_t n = A->nrows;
    const size_t bytes = (size_t)n * sizeof(double);
    double *xs = malloc(bytes), *b = malloc(bytes), *x = malloc(bytes), *r = malloc(bytes);
    for (int64_t i = 0; i < n; i++) xs[i] = (double)(i + 1) / (double)n;
    tf_csr_spmv(A, 1.0, xs, 0.0, NULL, b);
    kryl_matrix M = matrix_on(ctx, A);
    kryl_vector bv = NULL, xv = NULL;
    CHECK_OK(kryl_vector_create(&bv, M, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&xv, M, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(bv, b, n));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.method = KRYL_METHOD_PCG;
    o.format = format;
    o.precision = precision;
    o.rtol = precision == KRYL_DOUBLE ? 1e-10 : 1e-5;
    o.max_iterations = 5000;
    kryl_solver s = NULL;
    int64_t its = -1;
    kryl_status st = kryl_solver_create(&s, M, &o);
    if (st == KRYL_SUCCESS) {
        kryl_result res;
        CHECK_OK(kryl_solver_solve(s, bv, xv, &res));
        CHECK_OK(kryl_vector_get(xv, x, n));
        /* r = b - A x */
        tf_csr_spmv(A, -1.0, x, 1.0, b, r);
        double rr = 0.0, bb = 0.0;
        for (int64_t i = 0; i < n; i++) {
            rr += r[i] * r[i];
            bb += b[i] * b[i];
        }
        CHECK(res.converged && sqrt(rr / bb) <= o.rtol, "%s pcg %s %s: %s, true relres %g", what,
              kryl_format_name(format), kryl_precision_name(precision),
              kryl_reason_name(res.reason), sqrt(rr / bb));
        CHECK(res.format == format, "%s pcg: ran in %s, asked for %s", what,
              kryl_format_name(res.format), kryl_format_name(format));
        its = res.iterations;
        kryl_solver_destroy(&s);
    } else {
        CHECK(st == KRYL_ERR_FORMAT_UNSUITABLE, "%s pcg %s: %s (%s)", what,
              kryl_format_name(format), kryl_strerror(st), kryl_last_error());
    }
    kryl_vector_destroy(&bv);
    kryl_vector_destroy(&xv);
    kryl_matrix_destroy(&M);
    free(xs);
    free(b);
    free(x);
    free(r);
    return its;
}

/* PCG in every format on 3 threads: iterations within one of CSR's. */
static void check_pcg(kryl_context ctx, kryl_csr *A, const char *what)
{
    for (int p = 0; p < 2; p++) {
        const kryl_precision precision = p ? KRYL_SINGLE : KRYL_DOUBLE;
        const int64_t csr = pcg_in(ctx, A, KRYL_FORMAT_CSR, precision, what);
        for (int f = 0; f < TF_NFORMATS; f++) {
            const int64_t its = pcg_in(ctx, A, tf_formats[f], precision, what);
            CHECK(its < 0 || precision == KRYL_SINGLE || llabs(its - csr) <= 1,
                  "%s pcg %s: %lld iterations, csr %lld", what, kryl_format_name(tf_formats[f]),
                  (long long)its, (long long)csr);
        }
    }
    kryl_csr_free(A);
}

int main(void)
{
    contexts c;
    c.ref = make_context(KRYL_BACKEND_REF, 0);
    for (int t = 0; t < NTHREADS; t++) c.omp[t] = make_context(KRYL_BACKEND_OMP, thread_counts[t]);
    check_random(&c);
    check_generated(&c);
    check_real(&c);
    check_errors(c.omp[1]);
    kryl_csr A;
    if (tf_generate(&A, KRYL_GEN_POISSON2D5, 30)) check_pcg(c.omp[2], &A, "poisson2d 30^2");
    if (tf_generate(&A, KRYL_GEN_POISSON3D27, 10)) check_pcg(c.omp[2], &A, "27-point 10^3");
    if (tf_read(&A, "bcsstk06.mtx")) check_pcg(c.omp[2], &A, "bcsstk06");
    kryl_context_destroy(&c.ref);
    for (int t = 0; t < NTHREADS; t++) kryl_context_destroy(&c.omp[t]);
    return test_summary("test_omp_formats");
}
