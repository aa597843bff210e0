/* The solve driver's guarantees: systems of any finite magnitude are solved
 * (b and x scaled by a power of two), the x returned is never worse than
 * x0 nor than any iterate whose true residual was computed, and a solve
 * that cannot converge says why (dtol, stagnation) instead of running on. */
#include "test_krylov_support.h"

/* ||b - A x|| / ||b|| on the host with every term scaled by 2^e first,
 * so magnitudes near under- or overflow do not spoil it. */
static double scaled_relres(kryl_matrix A, const double *x, const double *b, int e)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < kt_rows(A); i++) {
        double s = ldexp(b[i], e);
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) s -= v[k] * ldexp(x[ci[k]], e);
        rr += s * s;
        bb += ldexp(b[i], e) * ldexp(b[i], e);
    }
    return sqrt(rr / bb);
}

/* The tridiagonal n x n matrix (off, diag, off), scaled by `scale`. */
static kryl_matrix tridiagonal(kryl_context ctx, int64_t n, double off, double diag, double scale)
{
    double *dense = calloc((size_t)(n * n), sizeof *dense);
    for (int64_t i = 0; i < n; i++) {
        dense[i * n + i] = diag * scale;
        if (i > 0) dense[i * n + i - 1] = off * scale;
        if (i + 1 < n) dense[i * n + i + 1] = off * scale;
    }
    kryl_matrix A = kt_dense(ctx, n, dense);
    free(dense);
    return A;
}

/* b = A 1 for A = diag(1e-300): b'b underflows, yet x = 1 is found. */
static void test_tiny_diagonal(kryl_backend_kind backend)
{
    kryl_context ctx = kt_context(backend);
    const double dense[] = {1e-300, 0, 0, 1e-300}, b[] = {1e-300, 1e-300};
    kryl_matrix A = kt_dense(ctx, 2, dense);
    const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_GMRES, KRYL_METHOD_BICGSTAB,
                                   KRYL_METHOD_PIPECG};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        kryl_solver_options o;
        kt_options(&o, methods[m], KRYL_PRECOND_NONE, 1e-10, 20);
        double x[2];
        kt_solve s = kt_run(A, &o, b, NULL, x);
        if (!kt_supported(ctx, &s, kryl_method_name(methods[m]))) continue;
        CHECK(s.r.converged && s.r.reason == KRYL_CONVERGED_RTOL && fabs(x[0] - 1.0) < 1e-10 &&
                  fabs(x[1] - 1.0) < 1e-10,
              "diag(1e-300) by %s on %s: %s, x = (%g, %g)", kryl_method_name(methods[m]),
              kryl_backend_name(backend), kryl_reason_name(s.r.reason), x[0], x[1]);
        CHECK(fabs(s.r.bnorm / (sqrt(2.0) * 1e-300) - 1.0) < 1e-12, "||b|| reported as %g",
              s.r.bnorm);
    }
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* b = f A 1 for f from 1e-300 to 1e300 (|b_i| up to ~1e300, whose squares
 * overflow): each solve converges to x = f 1 and its residual history is
 * in the caller's units. */
static void test_magnitudes(kryl_backend_kind backend)
{
    kryl_context ctx = kt_context(backend);
    const int64_t n = 40;
    kryl_matrix A = tridiagonal(ctx, n, -1.0, 2.5, 1.0);
    const double factors[] = {1e-300, 1e-160, 1e-20, 1.0, 1e154, 1e300};
    const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_GMRES, KRYL_METHOD_BICGSTAB,
                                   KRYL_METHOD_PIPECG};
    const kryl_precision precisions[] = {KRYL_DOUBLE, KRYL_SINGLE};
    double b[40], x[40];
    for (size_t f = 0; f < sizeof factors / sizeof *factors; f++)
        for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
            for (int p = 0; p < 2; p++) {
                for (int64_t i = 0; i < n; i++)
                    b[i] = factors[f] * (i == 0 || i == n - 1 ? 1.5 : 0.5);
                kryl_solver_options o;
                kt_options(&o, methods[m], KRYL_PRECOND_JACOBI, p == 0 ? 1e-10 : 1e-5, 400);
                o.precision = precisions[p];
                char label[160];
                snprintf(label, sizeof label, "b = %g A 1 by %s in %s on %s", factors[f],
                         kryl_method_name(methods[m]), kryl_precision_name(precisions[p]),
                         kryl_backend_name(backend));
                kt_solve s = kt_run(A, &o, b, NULL, x);
                if (!kt_supported(ctx, &s, label)) continue;
                const int e = -ilogb(factors[f]);
                double relres = scaled_relres(A, x, b, e);
                CHECK(s.r.converged && relres <= o.rtol * 1.01, "%s: %s, relres %.3e, host %.3e",
                      label, kryl_reason_name(s.r.reason), s.r.relres, relres);
                CHECK(fabs(x[n / 2] / factors[f] - 1.0) < (p == 0 ? 1e-8 : 1e-3), "%s: x[n/2] = %g",
                      label, x[n / 2]);
                CHECK(fabs(s.r.bnorm / (factors[f] * sqrt(2 * 2.25 + (n - 2) * 0.25)) - 1.0) <
                          1e-12,
                      "%s: ||b|| reported as %g", label, s.r.bnorm);
            }
    /* the history is of the caller's system: ||r_0|| = ||b|| */
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_NONE, 1e-10, 400);
    for (int64_t i = 0; i < n; i++) b[i] = 1e-200 * (i == 0 || i == n - 1 ? 1.5 : 0.5);
    kryl_solver s = NULL;
    kryl_vector bv = NULL, xv = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    CHECK_OK(kryl_vector_create(&bv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&xv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(bv, b, n));
    CHECK_OK(kryl_vector_fill(xv, 0.0));
    kryl_result r;
    CHECK_OK(kryl_solver_solve(s, bv, xv, &r));
    const double *history;
    int64_t length;
    CHECK_OK(kryl_solver_history(s, &history, &length));
    CHECK(length > 1 && fabs(history[0] / r.bnorm - 1.0) < 1e-12,
          "history[0] = %g, ||b|| = %g (x0 = 0)", length > 0 ? history[0] : 0.0, r.bnorm);
    kryl_vector_destroy(&bv);
    kryl_vector_destroy(&xv);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* A symmetric indefinite matrix with a positive diagonal (tridiag(1, 1, 1):
 * eigenvalues 1 + 2 cos(k pi/(n+1))), where the CG methods cannot work:
 * whatever they do, x is no worse than x0, from zero and from a guess. */
static void test_never_worse(kryl_backend_kind backend)
{
    kryl_context ctx = kt_context(backend);
    const int64_t n = 60;
    kryl_matrix A = tridiagonal(ctx, n, 1.0, 1.0, 1.0);
    double *b = kt_rhs(A, 7), *x0 = kt_rhs(A, 8), x[60];
    const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_PIPECG, KRYL_METHOD_BICGSTAB};
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
        for (int guess = 0; guess < 2; guess++) {
            kryl_solver_options o;
            kt_options(&o, methods[m], KRYL_PRECOND_NONE, 1e-10, 2000);
            char label[128];
            snprintf(label, sizeof label, "indefinite by %s from %s on %s",
                     kryl_method_name(methods[m]), guess ? "a guess" : "zero",
                     kryl_backend_name(backend));
            kt_solve s = kt_run(A, &o, b, guess ? x0 : NULL, x);
            if (!kt_supported(ctx, &s, label)) continue;
            double rounding;
            double start = guess ? kt_host_relres(A, x0, b, &rounding) : 1.0;
            CHECK(s.x_finite && s.host_relres <= start * (1.0 + 1e-12),
                  "%s: x's relres %.3e > x0's %.3e (%s)", label, s.host_relres, start,
                  kryl_reason_name(s.r.reason));
            CHECK(s.r.relres <= s.r.relres_last && fabs(s.r.relres - s.host_relres) <= 1e-10,
                  "%s: reported %.3e (last %.3e), host %.3e", label, s.r.relres, s.r.relres_last,
                  s.host_relres);
            CHECK(s.r.converged || s.r.reason != KRYL_DIVERGED_MAX_ITERATIONS ||
                      s.r.iterations == o.max_iterations,
                  "%s: %s after %lld", label, kryl_reason_name(s.r.reason),
                  (long long)s.r.iterations);
            printf("%s: %s after %lld iterations, x of iteration %lld, relres %.2e\n", label,
                   kryl_reason_name(s.r.reason), (long long)s.r.iterations,
                   (long long)s.r.best_iteration, s.r.relres);
        }
    free(b);
    free(x0);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* dtol: a bound below 1 is refused; a tight one stops a growing residual
 * as diverged, returning x0; INFINITY disables it. */
static void test_dtol(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 30);
    double *b = kt_rhs(A, 3);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_NONE, 1e-8, 2000);
    o.dtol = 0.5;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    CHECK(s.create == KRYL_ERR_INVALID_ARGUMENT && strstr(kryl_last_error(), "dtol"),
          "dtol 0.5: %s", kryl_strerror(s.create));
    o.dtol = 1.0;
    s = kt_run(A, &o, b, NULL, NULL);
    CHECK(s.r.reason == KRYL_DIVERGED_DTOL && s.r.relres <= 1.0 && s.r.best_iteration == 0,
          "dtol 1: %s, relres %.3e, x of iteration %lld", kryl_reason_name(s.r.reason), s.r.relres,
          (long long)s.r.best_iteration);
    o.dtol = INFINITY;
    s = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&s, "bicgstab convdiff2d with dtol inf");
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Single-precision CG asked for more than it can give: its recursive
 * residual meets the tolerance, the true one does not, residual
 * replacements stop gaining and the solve ends as stagnated long before
 * maxit, with the best x. */
static void test_stagnation(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    double *b = kt_rhs(A, 5);
    const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_PCG};
    for (size_t m = 0; m < 2; m++) {
        kryl_solver_options o;
        kt_options(&o, methods[m], KRYL_PRECOND_NONE, 1e-13, 20000);
        o.precision = KRYL_SINGLE;
        kt_solve s = kt_run(A, &o, b, NULL, NULL);
        CHECK(s.r.reason == KRYL_DIVERGED_STAGNATION && s.r.iterations < 5000 &&
                  s.r.relres <= s.r.relres_last && s.r.relres < 1e-5,
              "single %s to 1e-13: %s after %lld iterations (%lld replacements), relres %.3e",
              kryl_method_name(methods[m]), kryl_reason_name(s.r.reason), (long long)s.r.iterations,
              (long long)s.r.residual_replacements, s.r.relres);
    }
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* A real matrix on omp and b = A 1 (as kryl solve makes it), or NULL
 * with a note when the file is absent. */
static double *real_system(kryl_context ctx, const char *file, kryl_matrix *A)
{
    *A = kt_read(ctx, file);
    if (*A == NULL) {
        printf("%s: absent, skipped\n", file);
        return NULL;
    }
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_csr_view(*A, &rp, &ci, &v);
    double *b = calloc((size_t)kt_rows(*A), sizeof *b);
    for (int64_t i = 0; i < kt_rows(*A); i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) b[i] += v[k];
    return b;
}

/* Restarted GMRES whose DCGS2 loses orthogonality (qh1484, m = 200): the
 * true residual exposes it at the first replacement, the solve goes on
 * with CGS2 and ends far below x0's residual instead of above it. */
static void test_dcgs2_fallback(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    kryl_matrix A;
    double *b = real_system(ctx, "qh1484.mtx", &A);
    if (b == NULL) {
        kryl_context_destroy(&ctx);
        return;
    }
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, 1e-8, 1500);
    o.restart = 200;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    CHECK(s.r.orthog_fallback && s.r.relres < 1e-2 && s.host_relres <= s.r.relres * 1.001,
          "qh1484 gmres(200): fallback %d, %s, relres %.3e (host %.3e)", (int)s.r.orthog_fallback,
          kryl_reason_name(s.r.reason), s.r.relres, s.host_relres);
    printf("qh1484 gmres(200): %s after %lld iterations, relres %.2e, CGS2 fallback %d\n",
           kryl_reason_name(s.r.reason), (long long)s.r.iterations, s.r.relres,
           (int)s.r.orthog_fallback);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* BiCGSTAB on sherman3 with Jacobi in SELL meets an exact rho = 0 at
 * iteration 246; started again from x with a new shadow residual it
 * converges, as it does in CSR. */
static void test_bicgstab_restart(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    kryl_matrix A;
    double *b = real_system(ctx, "sherman3.mtx", &A);
    if (b == NULL) {
        kryl_context_destroy(&ctx);
        return;
    }
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_BICGSTAB, KRYL_PRECOND_JACOBI, 1e-8, 3000);
    o.format = KRYL_FORMAT_SELL;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&s, "sherman3 bicgstab jacobi sell");
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    const kryl_backend_kind backends[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP};
    for (int k = 0; k < 2; k++) {
        test_tiny_diagonal(backends[k]);
        test_magnitudes(backends[k]);
        test_never_worse(backends[k]);
    }
    test_dtol();
    test_stagnation();
    test_dcgs2_fallback();
    test_bicgstab_restart();
    return test_summary("test_solver_safety");
}
