/* BiCGSTAB on every backend: nonsymmetric generated and real matrices
 * judged by the true residual, iteration counts agreeing across backends,
 * and each breakdown and NaN reported with x left finite. */
#include "test_krylov_support.h"

/* Generated problems on every backend; on the nonsymmetric ones the
 * iteration counts must agree across backends.  On the symmetric Poisson
 * matrix BiCGSTAB's residual is erratic (omega ~ 0 steps), so rounding
 * differences between backends' reductions move its count by a few. */
static void test_generated(void)
{
    const kt_problem problems[] = {{KRYL_GEN_CONVDIFF2D, 30, 0, 1},
                                   {KRYL_GEN_CONVDIFF3D, 10, 0, 1},
                                   {KRYL_GEN_POISSON2D5, 25, 0, -1}};
    kt_check_generated(KRYL_METHOD_BICGSTAB, problems, sizeof problems / sizeof problems[0], 1e-10,
                       2000, 11);
}

/* Real nonsymmetric matrices BiCGSTAB solves (with Jacobi where it helps).
 * sherman3 with Jacobi meets a (r^, r) at rounding level after about 220
 * steps whatever the order of the sums: it converges through the restart
 * with a new shadow residual that follows. */
static void test_real(void)
{
    const kryl_method M = KRYL_METHOD_BICGSTAB;
    const kt_case cases[] = {
        {"sherman1.mtx", M, KRYL_PRECOND_JACOBI}, {"sherman4.mtx", M, KRYL_PRECOND_NONE},
        {"sherman4.mtx", M, KRYL_PRECOND_JACOBI}, {"sherman5.mtx", M, KRYL_PRECOND_JACOBI},
        {"pores_1.mtx", M, KRYL_PRECOND_JACOBI},  {"cage4.mtx", M, KRYL_PRECOND_NONE},
        {"rdb2048.mtx", M, KRYL_PRECOND_NONE},    {"rajat11.mtx", M, KRYL_PRECOND_NONE},
        {"sherman3.mtx", M, KRYL_PRECOND_JACOBI}};
    kt_check_real(cases, sizeof cases / sizeof cases[0], 1e-8, 4000, 5, 1, NULL);
}

/* Solve a small dense system on ref; x returned. */
static kt_solve small_solve(const double *dense, int64_t n, const double *b, double *x)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_dense(ctx, n, dense);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_NONE, 1e-12, 50);
    kt_solve s = kt_run(A, &o, b, NULL, x);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return s;
}

static void test_breakdowns(void)
{
    double x[3];
    /* (r^, v) = 0: A is a rotation, v = A r0 is orthogonal to r^ = r0 */
    const double rotation[] = {0, 1, -1, 0}, e1[] = {1, 0};
    kt_solve s = small_solve(rotation, 2, e1, x);
    CHECK(s.r.reason == KRYL_DIVERGED_BREAKDOWN && s.r.iterations == 0, "(r^,v) = 0: %s after %lld",
          kryl_reason_name(s.r.reason), (long long)s.r.iterations);
    CHECK(x[0] == 0.0 && x[1] == 0.0, "(r^,v) = 0 changed x to (%g, %g)", x[0], x[1]);

    /* omega = (t, s)/(t, t) = 0 at the first step: s = (2,-2), t = A s = (-2,-2) */
    const double skew[] = {-1, 0, 1, 2}, ones[] = {1, 1};
    s = small_solve(skew, 2, ones, x);
    CHECK(s.r.reason == KRYL_DIVERGED_BREAKDOWN && s.r.iterations == 1, "omega = 0: %s after %lld",
          kryl_reason_name(s.r.reason), (long long)s.r.iterations);
    /* the half step x = alpha p = (1, 1) was taken, nothing after it (a
     * start from it breaks down at once: no progress, no more starts); its
     * residual (2, -2) is larger than x0's (1, 1), so x0 is returned */
    CHECK(x[0] == 0.0 && x[1] == 0.0, "omega = 0: x = (%g, %g), expected x0 = (0, 0)", x[0], x[1]);
    CHECK(s.r.best_iteration == 0 && s.r.relres == 1.0 && s.r.relres_last == 2.0,
          "omega = 0: best iteration %lld, relres %g, last %g", (long long)s.r.best_iteration,
          s.r.relres, s.r.relres_last);

    /* rho' = (r^, r_1) = 0 with r_1 != 0: the breakdown after a step of
     * progress starts BiCGSTAB again from x_1 with r^ = r_1, which converges */
    const double rho0[] = {-1, -1, -1, -1, -1, 0, -1, 1, -1}, b3[] = {1, 0, 1};
    s = small_solve(rho0, 3, b3, x);
    CHECK(s.r.converged && s.r.iterations == 3, "rho = 0: %s after %lld, expected a restart",
          kryl_reason_name(s.r.reason), (long long)s.r.iterations);
    CHECK(s.x_finite, "rho = 0 left x non-finite");

    /* overflow in v = A p: NaN, x unchanged */
    const double huge[] = {1e300, 1e300, 0, 1e300}, big[] = {1e10, 1e10};
    s = small_solve(huge, 2, big, x);
    CHECK(s.r.reason == KRYL_DIVERGED_NAN && !s.r.converged, "overflow: %s",
          kryl_reason_name(s.r.reason));
    CHECK(x[0] == 0.0 && x[1] == 0.0, "overflow changed x to (%g, %g)", x[0], x[1]);
}

/* A zero diagonal refuses Jacobi (west0479), and without it BiCGSTAB runs
 * to a reason with x finite. */
static void test_zero_diagonal(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_read(ctx, "west0479.mtx");
    if (A != NULL) {
        double *b = kt_rhs(A, 3);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_JACOBI, 1e-8, 300);
        kt_solve s = kt_run(A, &o, b, NULL, NULL);
        CHECK(s.create == KRYL_ERR_ZERO_DIAGONAL, "west0479 with Jacobi: %s",
              kryl_strerror(s.create));
        o.precond = KRYL_PRECOND_NONE;
        s = kt_run(A, &o, b, NULL, NULL);
        CHECK(s.create == KRYL_SUCCESS && s.x_finite && s.r.reason != KRYL_REASON_NONE,
              "west0479 without a preconditioner: %s, x finite %d", kryl_reason_name(s.r.reason),
              (int)s.x_finite);
        free(b);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* sherman3 without a preconditioner, which BiCGSTAB does not solve (nor
 * SciPy's): restarts on a (r^, r) at rounding level keep it going, and the
 * x returned is never worse than x0, on every backend. */
static void test_unsolved(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        kryl_matrix A = kt_read(ctx, "sherman3.mtx");
        if (A != NULL) {
            double *b = kt_rhs(A, 5);
            kryl_solver_options o;
            kt_options(&o, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_NONE, 1e-8, 3000);
            kt_solve s = kt_run(A, &o, b, NULL, NULL);
            CHECK(s.x_finite && s.r.relres <= 1.0 && s.host_relres <= 1.0 + s.rounding,
                  "sherman3 unpreconditioned on %s: relres %g (recomputed %g), worse than x0",
                  kryl_backend_name(kinds[k]), s.r.relres, s.host_relres);
            free(b);
            kryl_matrix_destroy(&A);
        }
        kryl_context_destroy(&ctx);
    }
}

/* Row-reordering storage formats (on ref, which has them all). */
static void test_formats(void)
{
    kt_check_formats_generated(KRYL_METHOD_BICGSTAB, 0, KRYL_GEN_CONVDIFF2D, 30,
                               "bicgstab convdiff2d");
}

int main(void)
{
    test_generated();
    test_real();
    test_formats();
    test_breakdowns();
    test_zero_diagonal();
    test_unsolved();
    return test_summary("test_solver_bicgstab");
}
