/* The least-squares polynomial preconditioner: its apply against a dense
 * host evaluation of s(A) r, the least-squares property of s checked by
 * Gauss-Chebyshev quadrature, CG + lspoly against CG alone on generated
 * and real SPD matrices, the other methods, sell storage, and refusals. */
#include "precond/lspoly.h"
#include "test_krylov_support.h"

#define PI 3.14159265358979323846

/* s(t) = sum gamma_j Q_j(t) by the recurrence of lspoly.h, on the host. */
static double host_s(const kryl_lspoly *p, double t)
{
    double q_prev = 0.0, q = 1.0 / p->beta[1], s = p->gamma[1] * q;
    for (int j = 1; j <= p->degree; j++) {
        /* Q_{j+1} = ((t - alpha_j) Q_j - beta_j Q_{j-1}) / beta_{j+1} */
        double q_next = ((t - p->alpha[j]) * q - p->beta[j] * q_prev) / p->beta[j + 1];
        q_prev = q;
        q = q_next;
        s += p->gamma[j + 1] * q;
    }
    return s;
}

/* z = s(A) r with the dense n x n A: the same recurrence on vectors. */
static void dense_s_apply(const kryl_lspoly *p, const double *A, int64_t n, const double *r,
                          double *z)
{
    double *prev = calloc((size_t)n, sizeof *prev), *cur = malloc((size_t)n * sizeof *cur);
    double *next = malloc((size_t)n * sizeof *next);
    /* v_1 = r/beta_1;  z = gamma_1 v_1 */
    for (int64_t i = 0; i < n; i++) {
        cur[i] = r[i] / p->beta[1];
        z[i] = p->gamma[1] * cur[i];
    }
    for (int j = 1; j <= p->degree; j++) {
        /* v_{j+1} = (A v_j - alpha_j v_j - beta_j v_{j-1}) / beta_{j+1};  z += gamma_{j+1} v_{j+1}
         */
        for (int64_t i = 0; i < n; i++) {
            double av = 0.0;
            for (int64_t k = 0; k < n; k++) av += A[i * n + k] * cur[k];
            next[i] = (av - p->alpha[j] * cur[i] - p->beta[j] * prev[i]) / p->beta[j + 1];
        }
        for (int64_t i = 0; i < n; i++) {
            prev[i] = cur[i];
            cur[i] = next[i];
            z[i] += p->gamma[j + 1] * cur[i];
        }
    }
    free(prev);
    free(cur);
    free(next);
}

/* 1 - t s(t) is w-orthogonal to t^m, m = 1..d+1 (the normal equations of the
 * least-squares problem), by N-point Gauss-Chebyshev quadrature (exact here);
 * and s > 0 on (0, b], so M^-1 = s(A) is positive definite. */
static void check_least_squares(const kryl_lspoly *p, const char *label)
{
    enum { N = 200 };
    double half = 0.5 * (p->upper - p->lower), mid = 0.5 * (p->upper + p->lower);
    for (int m = 1; m <= p->degree + 1; m++) {
        double sum = 0.0, scale = 0.0;
        for (int i = 1; i <= N; i++) {
            double t = mid + half * cos((2.0 * i - 1.0) * PI / (2.0 * N));
            /* <1 - t s, t^m> = (1/N) sum (1 - t_i s(t_i)) t_i^m */
            double tm = pow(t / p->upper, m);
            sum += (1.0 - t * host_s(p, t)) * tm / N;
            scale += tm / N;
        }
        CHECK(fabs(sum) <= 1e-10 * scale, "%s: <1 - t s, t^%d> = %g (scale %g)", label, m, sum,
              scale);
    }
    for (int i = 1; i <= 1000; i++) {
        double t = p->upper * i / 1000.0;
        CHECK(host_s(p, t) > 0.0, "%s: s(%g) = %g <= 0", label, t, host_s(p, t));
    }
}

/* A small SPD matrix: the 2-D Laplacian on 6 x 6 plus a random symmetric
 * diagonally dominant perturbation, dense row-major. */
static double *small_spd(int64_t n)
{
    double *A = calloc((size_t)(n * n), sizeof *A), *r = malloc((size_t)(n * n) * sizeof *r);
    test_random_values(r, n * n, 5);
    for (int64_t i = 0; i < n; i++) {
        A[i * n + i] = 4.0 + (double)i / (double)n;
        if (i + 1 < n) A[i * n + i + 1] = A[(i + 1) * n + i] = -1.0;
        if (i + 6 < n) A[i * n + i + 6] = A[(i + 6) * n + i] = -1.0 + 0.3 * r[i];
    }
    free(r);
    return A;
}

static void test_apply_dense(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    const int64_t n = 36;
    double *dense = small_spd(n);
    double *r = malloc((size_t)n * sizeof *r), *z = malloc((size_t)n * sizeof *z);
    double *zref = malloc((size_t)n * sizeof *zref);
    test_random_values(r, n, 9);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        kryl_matrix A = kt_dense(ctx, n, dense);
        for (int d = 1; d <= 10; d++) {
            char label[96];
            snprintf(label, sizeof label, "lspoly degree %d on %s", d, kryl_backend_name(kinds[k]));
            kryl_precond *pc = NULL;
            kryl_solver_options opts;
            kryl_solver_options_init(&opts);
            opts.degree = d;
            CHECK_OK(kryl_precond_create(&pc, KRYL_PRECOND_LSPOLY, &opts, A, NULL));
            if (pc == NULL) continue;
            const kryl_lspoly *poly = pc->data;
            CHECK(poly->degree == d && poly->lower == 0.0 && poly->upper > 0.0,
                  "%s: degree %d on [%g, %g]", label, poly->degree, poly->lower, poly->upper);
            check_least_squares(poly, label);
            kryl_vector rv = NULL, zv = NULL;
            CHECK_OK(kryl_vector_create(&rv, A, KRYL_DOUBLE));
            CHECK_OK(kryl_vector_create(&zv, A, KRYL_DOUBLE));
            CHECK_OK(kryl_vector_set(rv, r, n));
            CHECK_OK(pc->apply(pc, rv, zv));
            CHECK_OK(kryl_vector_get(zv, z, n));
            dense_s_apply(poly, dense, n, r, zref);
            CHECK(test_rel_diff(z, zref, n) < 1e-12, "%s: s(A) r differs from the dense one by %g",
                  label, test_rel_diff(z, zref, n));
            /* r is input only: a second apply gives the same z */
            CHECK_OK(pc->apply(pc, rv, zv));
            CHECK_OK(kryl_vector_get(zv, zref, n));
            CHECK(test_rel_diff(z, zref, n) == 0.0, "%s: the apply is not repeatable", label);
            kryl_vector_destroy(&rv);
            kryl_vector_destroy(&zv);
            kryl_precond_destroy(&pc);
        }
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
    free(dense);
    free(r);
    free(z);
    free(zref);
}

/* [a, b] covers the known spectrum of the 2-D Laplacian: 8 sin^2 of the top mode below b. */
static void test_bounds(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
    kryl_precond *pc = NULL;
    CHECK_OK(kryl_precond_create(&pc, KRYL_PRECOND_LSPOLY, NULL, A, NULL));
    if (pc) {
        const kryl_lspoly *poly = pc->data;
        double c = cos(PI / 31.0), lmax = 4.0 + 4.0 * c;
        CHECK(poly->degree == KRYL_LSPOLY_DEFAULT_DEGREE, "degree 0 gave %d", poly->degree);
        CHECK(poly->upper >= lmax && poly->upper <= 1.1 * lmax, "upper bound %g, lambda_max %g",
              poly->upper, lmax);
    }
    kryl_precond_destroy(&pc);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* CG + lspoly converges by the true residual in fewer iterations than CG
 * for degree >= 3, and more degree never costs more than a few iterations. */
static void compare_with_cg(kryl_context ctx, kryl_matrix A, const char *name)
{
    const char *be = kryl_backend_name(kryl_context_backend(ctx));
    double *b = kt_rhs(A, 21);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_NONE, 1e-8, 20000);
    char label[160];
    snprintf(label, sizeof label, "cg on %s (%s)", name, be);
    kt_solve cg = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&cg, label);
    printf("%-14s %-4s cg %5lld | lspoly degree:", name, be, (long long)cg.r.iterations);
    int64_t last = cg.r.iterations;
    for (int d = 1; d <= 10; d++) {
        o.precond = KRYL_PRECOND_LSPOLY;
        o.degree = d;
        snprintf(label, sizeof label, "cg + lspoly(%d) on %s (%s)", d, name, be);
        kt_solve s = kt_run(A, &o, b, NULL, NULL);
        CHECK(s.create == KRYL_SUCCESS, "%s: %s", label, kryl_last_error());
        if (s.create != KRYL_SUCCESS) continue;
        kt_check_converged(&s, label);
        printf(" %d:%lld", d, (long long)s.r.iterations);
        if (d >= 3)
            CHECK(s.r.iterations < cg.r.iterations, "%s: %lld iterations, cg alone %lld", label,
                  (long long)s.r.iterations, (long long)cg.r.iterations);
        CHECK(s.r.iterations <= last + 3, "%s: %lld iterations, degree %d took %lld", label,
              (long long)s.r.iterations, d - 1, (long long)last);
        last = s.r.iterations;
    }
    printf("\n");
    free(b);
}

static void test_cg(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    const char *files[] = {"bcsstk06.mtx", "nos4.mtx", "494_bus.mtx"};
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
        compare_with_cg(ctx, A, "poisson2d 40");
        kryl_matrix_destroy(&A);
        A = kt_generate(ctx, KRYL_GEN_POISSON3D7, 14);
        compare_with_cg(ctx, A, "poisson3d 14");
        kryl_matrix_destroy(&A);
        for (int f = 0; f < 3; f++) {
            A = kt_read(ctx, files[f]);
            if (A == NULL) {
                printf("skip: %s is absent\n", files[f]);
                continue;
            }
            compare_with_cg(ctx, A, files[f]);
            kryl_matrix_destroy(&A);
        }
        kryl_context_destroy(&ctx);
    }
}

/* PCG, pipelined CG, GMRES and BiCGSTAB take the same preconditioner (on
 * symmetric matrices); single precision and inner-outer mixed precision too. */
static void test_methods(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    const kryl_method methods[] = {KRYL_METHOD_PCG, KRYL_METHOD_PIPECG, KRYL_METHOD_GMRES,
                                   KRYL_METHOD_BICGSTAB};
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
        double *b = kt_rhs(A, 3);
        char label[128];
        for (int m = 0; m < 4; m++) {
            kryl_solver_options o;
            kt_options(&o, methods[m], KRYL_PRECOND_LSPOLY, 1e-10, 5000);
            o.degree = 5;
            snprintf(label, sizeof label, "%s + lspoly(5) on %s", kryl_method_name(methods[m]),
                     kryl_backend_name(kinds[k]));
            kt_solve s = kt_run(A, &o, b, NULL, NULL);
            if (kt_supported(ctx, &s, label)) kt_check_converged(&s, label);
        }
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_LSPOLY, 1e-5, 5000);
        o.precision = KRYL_SINGLE;
        snprintf(label, sizeof label, "single cg + lspoly on %s", kryl_backend_name(kinds[k]));
        kt_solve s = kt_run(A, &o, b, NULL, NULL);
        if (kt_supported(ctx, &s, label)) kt_check_converged(&s, label);
        kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_LSPOLY, 1e-10, 5000);
        o.precision = KRYL_MIXED;
        snprintf(label, sizeof label, "mixed cg + lspoly on %s", kryl_backend_name(kinds[k]));
        s = kt_run(A, &o, b, NULL, NULL);
        if (kt_supported(ctx, &s, label)) kt_check_converged(&s, label);
        free(b);
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
}

/* The same iterations in csr, jds and sell storage (the row-reordering ones). */
static void test_formats(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON3D7, 10);
        double *b = kt_rhs(A, 4);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_LSPOLY, 1e-10, 5000);
        o.degree = 6;
        char label[96];
        snprintf(label, sizeof label, "cg + lspoly(6) on %s", kryl_backend_name(kinds[k]));
        kt_check_formats(A, &o, b, label);
        free(b);
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
}

/* Nonsymmetric and indefinite matrices and bad degrees are refused at setup. */
static void test_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 10);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_LSPOLY, 1e-8, 100);
    kryl_solver s = NULL;
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_NOT_SYMMETRIC);
    CHECK(strstr(kryl_last_error(), "least-squares polynomial preconditioner needs a symmetric "
                                    "positive definite matrix; use jacobi or ilu0 with gmres"),
          "convdiff2d: %s", kryl_last_error());
    CHECK(s == NULL, "a refused create left a solver");
    kryl_matrix_destroy(&A);

    /* diag(1, -1, 2, ...): symmetric, indefinite */
    double dense[8 * 8] = {0};
    for (int i = 0; i < 8; i++) dense[i * 9] = i == 1 ? -1.0 : 1.0 + i;
    A = kt_dense(ctx, 8, dense);
    CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_NOT_POSITIVE_DEFINITE);
    CHECK(strstr(kryl_last_error(), "positive definite"), "indefinite: %s", kryl_last_error());
    kryl_matrix_destroy(&A);

    A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 8);
    const int bad[] = {-1, KRYL_LSPOLY_MAX_DEGREE + 1};
    for (int i = 0; i < 2; i++) {
        o.degree = bad[i];
        CHECK_STATUS(kryl_solver_create(&s, A, &o), KRYL_ERR_INVALID_ARGUMENT);
        CHECK(strstr(kryl_last_error(), "degree"), "degree %d: %s", bad[i], kryl_last_error());
    }
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    test_apply_dense();
    test_bounds();
    test_cg();
    test_methods();
    test_formats();
    test_refusals();
    return test_summary("test_precond_lspoly");
}
