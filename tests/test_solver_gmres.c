/* GMRES(m) on every backend: nonsymmetric generated and real matrices
 * judged by the true residual, counts agreeing across backends, x formed
 * correctly wherever the loop stops within a cycle, happy breakdown, NaN. */
#include "test_krylov_support.h"

/* Generated problems on every backend, iteration counts within 2. */
static void test_generated(void)
{
    const kt_problem problems[] = {{KRYL_GEN_CONVDIFF2D, 30, 0, 2},
                                   {KRYL_GEN_CONVDIFF2D, 30, 10, 2},
                                   {KRYL_GEN_CONVDIFF3D, 10, 0, 2},
                                   {KRYL_GEN_POISSON2D5, 25, 25, 2}};
    kt_check_generated(KRYL_METHOD_GMRES, problems, sizeof problems / sizeof problems[0], 1e-10,
                       3000, 13);
}

static void test_real(void)
{
    const kryl_method M = KRYL_METHOD_GMRES;
    const kt_case cases[] = {
        {"sherman1.mtx", M, KRYL_PRECOND_JACOBI}, {"sherman4.mtx", M, KRYL_PRECOND_NONE},
        {"sherman4.mtx", M, KRYL_PRECOND_JACOBI}, {"sherman5.mtx", M, KRYL_PRECOND_JACOBI},
        {"pores_1.mtx", M, KRYL_PRECOND_NONE},    {"pores_1.mtx", M, KRYL_PRECOND_JACOBI},
        {"cage4.mtx", M, KRYL_PRECOND_NONE},      {"rdb2048.mtx", M, KRYL_PRECOND_NONE}};
    kt_check_real(cases, sizeof cases / sizeof cases[0], 1e-8, 4000, 5, 1, NULL);
}

/* Stopped by the iteration limit anywhere in a cycle, x is the GMRES
 * iterate: its true residual matches the estimate and never increases. */
static void test_stop_within_cycle(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 20);
    double *b = kt_rhs(A, 17);
    const int64_t limits[] = {1, 7, 8, 9, 16, 17, 30};
    double previous = INFINITY;
    for (int i = 0; i < 7; i++) {
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, 1e-14, limits[i]);
        o.restart = 8;
        kt_solve s = kt_run(A, &o, b, NULL, NULL);
        CHECK(s.r.reason == KRYL_DIVERGED_MAX_ITERATIONS && s.r.iterations == limits[i],
              "limit %lld: %s after %lld", (long long)limits[i], kryl_reason_name(s.r.reason),
              (long long)s.r.iterations);
        CHECK(fabs(s.r.relres - s.r.relres_recursive) <= 1e-6 * s.r.relres,
              "limit %lld: true relres %.6e, GMRES estimate %.6e", (long long)limits[i], s.r.relres,
              s.r.relres_recursive);
        CHECK(fabs(s.host_relres - s.r.relres) <= 1e-9 * s.r.relres, "limit %lld: host %.6e",
              (long long)limits[i], s.host_relres);
        CHECK(s.r.relres <= previous * (1 + 1e-12), "limit %lld: relres %.6e rose from %.6e",
              (long long)limits[i], s.r.relres, previous);
        previous = s.r.relres;
    }
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Happy breakdown: the Krylov space is invariant after as many steps as b
 * has distinct eigencomponents; h_{k+1,k} = 0 ends the solve converged. */
static void test_happy_breakdown(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    double dense[25] = {0}, b[5] = {1, -2, 3, 0.5, 4}, x[5];
    for (int i = 0; i < 5; i++) dense[i * 6] = 2.0;
    kryl_matrix A = kt_dense(ctx, 5, dense); /* A = 2 I: one step */
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, 1e-12, 50);
    kt_solve s = kt_run(A, &o, b, NULL, x);
    CHECK(s.r.converged && s.r.iterations == 1, "A = 2I: %s after %lld",
          kryl_reason_name(s.r.reason), (long long)s.r.iterations);
    for (int i = 0; i < 5; i++) CHECK_CLOSE(x[i], b[i] / 2, 1e-14);
    kryl_matrix_destroy(&A);
    /* diag(1, 1, 3, 3, 3): two distinct eigenvalues, two steps */
    const double d[5] = {1, 1, 3, 3, 3};
    for (int i = 0; i < 5; i++) dense[i * 6] = d[i];
    A = kt_dense(ctx, 5, dense);
    s = kt_run(A, &o, b, NULL, x);
    CHECK(s.r.converged && s.r.iterations == 2, "two eigenvalues: %s after %lld",
          kryl_reason_name(s.r.reason), (long long)s.r.iterations);
    for (int i = 0; i < 5; i++) CHECK_CLOSE(x[i], b[i] / d[i], 1e-12);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

static void test_nan_and_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    /* overflow in A v: NaN, x unchanged */
    const double huge[] = {1e300, 1e300, 0, 1e300};
    double b[2] = {1e10, 1e10}, x[2];
    kryl_matrix A = kt_dense(ctx, 2, huge);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, 1e-10, 20);
    kt_solve s = kt_run(A, &o, b, NULL, x);
    CHECK(s.r.reason == KRYL_DIVERGED_NAN, "overflow: %s", kryl_reason_name(s.r.reason));
    CHECK(x[0] == 0.0 && x[1] == 0.0, "overflow changed x to (%g, %g)", x[0], x[1]);
    kryl_matrix_destroy(&A);
    /* a singular matrix whose Krylov space does not reach b: R_kk = 0 */
    const double singular[] = {0, 0, 0, 1};
    A = kt_dense(ctx, 2, singular);
    double e1[2] = {1, 0};
    s = kt_run(A, &o, e1, NULL, x);
    CHECK(s.r.reason == KRYL_DIVERGED_BREAKDOWN && s.x_finite, "singular: %s",
          kryl_reason_name(s.r.reason));
    /* restart must be positive */
    o.restart = -3;
    s = kt_run(A, &o, e1, NULL, x);
    CHECK(s.create == KRYL_ERR_INVALID_ARGUMENT, "restart -3: %s", kryl_strerror(s.create));
    kryl_matrix_destroy(&A);
    /* west0479 has zero diagonal entries: no Jacobi; without it x stays finite */
    A = kt_read(ctx, "west0479.mtx");
    if (A != NULL) {
        double *bw = kt_rhs(A, 3);
        kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_JACOBI, 1e-8, 200);
        s = kt_run(A, &o, bw, NULL, NULL);
        CHECK(s.create == KRYL_ERR_ZERO_DIAGONAL, "west0479 with Jacobi: %s",
              kryl_strerror(s.create));
        o.precond = KRYL_PRECOND_NONE;
        s = kt_run(A, &o, bw, NULL, NULL);
        CHECK(s.create == KRYL_SUCCESS && s.x_finite && s.r.relres <= 1.0,
              "west0479: relres %g (GMRES never increases the residual)", s.r.relres);
        free(bw);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* Row-reordering storage formats (on ref, which has them all). */
static void test_formats(void)
{
    kt_check_formats_generated(KRYL_METHOD_GMRES, 20, KRYL_GEN_CONVDIFF2D, 30,
                               "gmres(20) convdiff2d");
}

int main(void)
{
    test_generated();
    test_real();
    test_formats();
    test_stop_within_cycle();
    test_happy_breakdown();
    test_nan_and_refusals();
    return test_summary("test_solver_gmres");
}
