/* CG and Jacobi-PCG through the public API on every backend, judged by the
 * true residual they report (and recomputed here on the host). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_krylov_support.h"

/* The 2-D 5-point Laplacian on an m x m grid, assembled entry by entry in
 * a scrambled order with every diagonal entry split in two (summed). */
static kryl_matrix laplacian_2d(kryl_context ctx, int64_t m, double shift)
{
    int64_t n = m * m;
    kryl_assembly a;
    CHECK_OK(kryl_assembly_create(&a, ctx, n, n, 0, n));
    for (int64_t t = 0; t < n; t++) {
        int64_t row = (t * 7919) % n; /* 7919 is prime and does not divide n here */
        int64_t i = row / m, j = row % m;
        CHECK_OK(kryl_assembly_add_value(a, row, row, 2.0 + shift / 2));
        CHECK_OK(kryl_assembly_add_value(a, row, row, 2.0 + shift / 2));
        if (i > 0) CHECK_OK(kryl_assembly_add_value(a, row, row - m, -1.0));
        if (i < m - 1) CHECK_OK(kryl_assembly_add_value(a, row, row + m, -1.0));
        if (j > 0) CHECK_OK(kryl_assembly_add_value(a, row, row - 1, -1.0));
        if (j < m - 1) CHECK_OK(kryl_assembly_add_value(a, row, row + 1, -1.0));
    }
    kryl_matrix A = NULL;
    CHECK_OK(kryl_assembly_finish(a, &A));
    kryl_assembly_destroy(&a);
    return A;
}

/* ||b - A x|| / ||b|| on the host from the matrix's CSR view. */
static double host_relres(kryl_matrix A, const double *x, const double *b)
{
    int64_t n;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_size(A, &n, NULL, NULL);
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    double rr = 0, bb = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = b[i];
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) s -= v[k] * x[ci[k]];
        rr += s * s;
        bb += b[i] * b[i];
    }
    return sqrt(rr / bb);
}

typedef struct solve_case {
    kryl_precond_kind precond;
    kryl_precision precision;
    double rtol;
} solve_case;

/* Solve A x = b with b random, check converged and the true residual. */
static int64_t solve_and_check(kryl_context ctx, kryl_matrix A, const solve_case *c,
                               const char *label)
{
    int64_t n;
    kryl_matrix_size(A, &n, NULL, NULL);
    double *bh = malloc((size_t)n * sizeof *bh), *xh = calloc((size_t)n, sizeof *xh);
    test_random_values(bh, n, 42);
    kryl_vector b, x;
    CHECK_OK(kryl_vector_create(&b, A, c->precision));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(b, bh, n));
    if (c->precision == KRYL_SINGLE) CHECK_OK(kryl_vector_get(b, bh, n)); /* b as rounded */
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.precond = c->precond;
    o.precision = c->precision;
    o.rtol = c->rtol;
    o.max_iterations = 5000;
    kryl_solver s;
    kryl_result r;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_OK(kryl_solver_solve(s, b, x, &r));
    CHECK_OK(kryl_vector_get(x, xh, n));
    double relres = host_relres(A, xh, bh);
    CHECK(r.converged, "%s: not converged (%s, relres %g)", label, kryl_reason_name(r.reason),
          r.relres);
    CHECK(r.reason == KRYL_CONVERGED_RTOL, "%s: reason %s", label, kryl_reason_name(r.reason));
    CHECK(r.relres <= c->rtol, "%s: relres %g > rtol %g", label, r.relres, c->rtol);
    CHECK(fabs(relres - r.relres) <= 1e-3 * c->rtol + 1e-14,
          "%s: reported relres %g, host recomputes %g", label, r.relres, relres);
    const double *hist;
    int64_t len;
    CHECK_OK(kryl_solver_history(s, &hist, &len));
    CHECK(len == r.iterations + 1, "%s: history has %lld entries for %lld iterations", label,
          (long long)len, (long long)r.iterations);
    CHECK(len > 0 && fabs(hist[0] - r.bnorm) <= 1e-6 * r.bnorm, "%s: history[0] %g != ||b|| %g",
          label, len > 0 ? hist[0] : -1.0, r.bnorm);
    int64_t its = r.iterations;
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    free(bh);
    free(xh);
    return its;
}

static void test_backends_agree(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    const solve_case cases[] = {{KRYL_PRECOND_NONE, KRYL_DOUBLE, 1e-8},
                                {KRYL_PRECOND_JACOBI, KRYL_DOUBLE, 1e-10},
                                {KRYL_PRECOND_JACOBI, KRYL_SINGLE, 1e-5}};
    for (int c = 0; c < 3; c++) {
        int64_t ref_its = -1;
        for (int k = 0; k < nk; k++) {
            kryl_context_options co;
            kryl_context_options_init(&co);
            co.backend = kinds[k];
            kryl_context ctx;
            CHECK_OK(kryl_context_create(&ctx, &co));
            /* shift 0.5: well conditioned, so iteration counts must agree */
            kryl_matrix A = laplacian_2d(ctx, 37, 0.5);
            char label[96];
            snprintf(label, sizeof label, "%s case %d", kryl_backend_name(kinds[k]), c);
            int64_t its = solve_and_check(ctx, A, &cases[c], label);
            if (ref_its < 0) ref_its = its;
            CHECK(llabs(its - ref_its) <= 1, "%s: %lld iterations, ref took %lld", label,
                  (long long)its, (long long)ref_its);
            kryl_matrix_destroy(&A);
            kryl_context_destroy(&ctx);
        }
    }
}

static kryl_result solve_small(kryl_matrix A, const double *bh, double *xh, int64_t n,
                               int64_t maxit)
{
    kryl_vector b, x;
    kryl_result r;
    memset(&r, 0, sizeof r);
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(b, bh, n));
    CHECK_OK(kryl_vector_set(x, xh, n));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.max_iterations = maxit;
    kryl_solver s;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_OK(kryl_solver_solve(s, b, x, &r));
    CHECK_OK(kryl_vector_get(x, xh, n));
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    return r;
}

static void test_outcomes(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    /* indefinite with a positive diagonal: p'Ap = -2 < 0 at the first step */
    const double indefinite[] = {1, 2, 2, 1};
    kryl_matrix A = kt_dense(ctx, 2, indefinite);
    double b[2] = {1, -1}, x[2] = {0, 0};
    kryl_result r = solve_small(A, b, x, 2, 10);
    CHECK(r.reason == KRYL_DIVERGED_BREAKDOWN && !r.converged, "indefinite: reason %s",
          kryl_reason_name(r.reason));
    CHECK(x[0] == 0.0 && x[1] == 0.0, "breakdown changed x to (%g, %g)", x[0], x[1]);
    kryl_matrix_destroy(&A);

    /* overflow to Inf in q = A p: reported as NaN, x stays finite */
    const double huge[] = {1e300, 0, 0, 1e300};
    A = kt_dense(ctx, 2, huge);
    double bh[2] = {1e10, 1e10}, xh[2] = {0, 0};
    r = solve_small(A, bh, xh, 2, 10);
    CHECK(r.reason == KRYL_DIVERGED_NAN && !r.converged, "overflow: reason %s",
          kryl_reason_name(r.reason));
    CHECK(isfinite(xh[0]) && isfinite(xh[1]), "overflow left x = (%g, %g)", xh[0], xh[1]);
    kryl_matrix_destroy(&A);

    A = laplacian_2d(ctx, 20, 0.0);
    int64_t n = 400;
    double *b2 = malloc(n * sizeof *b2), *x2 = calloc(n, sizeof *x2);
    test_random_values(b2, n, 3);
    /* iteration limit */
    r = solve_small(A, b2, x2, n, 3);
    CHECK(r.reason == KRYL_DIVERGED_MAX_ITERATIONS && !r.converged && r.iterations == 3,
          "maxit: reason %s after %lld", kryl_reason_name(r.reason), (long long)r.iterations);
    /* starting from the solution: no iteration needed */
    memset(x2, 0, n * sizeof *x2);
    r = solve_small(A, b2, x2, n, 1000);
    CHECK(r.converged, "solve for x*: %s", kryl_reason_name(r.reason));
    r = solve_small(A, b2, x2, n, 1000);
    CHECK(r.converged && r.iterations == 0, "restart from x*: %lld iterations",
          (long long)r.iterations);
    /* b = 0 gives x = 0 */
    memset(b2, 0, n * sizeof *b2);
    r = solve_small(A, b2, x2, n, 1000);
    CHECK(r.reason == KRYL_CONVERGED_ZERO_RHS && x2[7] == 0.0, "zero rhs: %s",
          kryl_reason_name(r.reason));
    free(b2);
    free(x2);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

static void test_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_solver s = NULL;
    const double nonsym[] = {2, 1, 0, 2};
    kryl_matrix A = kt_dense(ctx, 2, nonsym);
    CHECK_STATUS(kryl_solver_create(&s, A, NULL), KRYL_ERR_NOT_SYMMETRIC);
    CHECK(strstr(kryl_last_error_location(), "solver.c:") != NULL, "error raised at '%s'",
          kryl_last_error_location());
    CHECK(s == NULL, "failed create left a solver");
    kryl_matrix_destroy(&A);

    const double zero_diag[] = {0, 1, 1, 2};
    A = kt_dense(ctx, 2, zero_diag);
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.precond = KRYL_PRECOND_JACOBI;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_ZERO_DIAGONAL);
    CHECK(strstr(kryl_last_error(), "row 0") != NULL, "message: %s", kryl_last_error());
    CHECK_STATUS(kryl_solver_create(&s, A, NULL), KRYL_ERR_NOT_POSITIVE_DEFINITE);
    kryl_matrix_destroy(&A);

    int64_t rp[] = {0, 1, 2}, ci[] = {0, 2};
    double v[] = {1, 1};
    CHECK_OK(kryl_matrix_create_csr(&A, ctx, 2, 3, 0, 2, rp, ci, v));
    CHECK_STATUS(kryl_solver_create(&s, A, NULL), KRYL_ERR_NOT_SQUARE);
    CHECK(strstr(kryl_last_error(), "2 x 3") != NULL, "message: %s", kryl_last_error());
    kryl_matrix_destroy(&A);

    /* b of the wrong length */
    A = laplacian_2d(ctx, 4, 0.0);
    kryl_matrix B = laplacian_2d(ctx, 5, 0.0);
    kryl_vector b, x;
    kryl_result r;
    CHECK_OK(kryl_vector_create(&b, B, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_solver_create(&s, A, NULL));
    CHECK_STATUS(kryl_solver_solve(s, b, x, &r), KRYL_ERR_DIMENSION_MISMATCH);
    o.rtol = -1;
    kryl_solver s2;
    CHECK_STATUS(kryl_solver_create(&s2, A, &o), KRYL_ERR_INVALID_ARGUMENT);
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_matrix_destroy(&A);
    kryl_matrix_destroy(&B);
    kryl_context_destroy(&ctx);
}

/* Single precision cannot reach 1e-10: the true residual says so. */
static void test_single_precision_limit(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = laplacian_2d(ctx, 30, 0.0);
    kryl_vector b, x;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_fill(b, 1.0));
    kryl_solver_options o;
    kryl_solver_options_init(&o);
    o.precision = KRYL_SINGLE;
    o.rtol = 1e-12;
    o.max_iterations = 600;
    kryl_solver s;
    kryl_result r;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_OK(kryl_solver_solve(s, b, x, &r));
    CHECK(!r.converged && r.relres > 1e-12, "single reached %g (%s)", r.relres,
          kryl_reason_name(r.reason));
    CHECK(r.relres < 1e-4, "single precision relres %g is too poor", r.relres);
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    test_backends_agree();
    test_outcomes();
    test_refusals();
    test_single_precision_limit();
    return test_summary("test_solver_cg");
}
