/* Lanczos extreme-eigenvalue estimates: of A and of the Jacobi-
 * preconditioned operator, on every backend, against known spectra; the
 * same estimate from a pipelined CG solve's coefficients, and from CG
 * steps run for it (kryl_cg_extremes) against Lanczos's, with its refusal
 * of an indefinite matrix. */
#include "solvers/lanczos.h"
#include "test_krylov_support.h"

#define PI 3.14159265358979323846

/* 2-D 5-point Laplacian on an m x m grid: 4 - 2cos(i pi/(m+1)) - 2cos(j pi/(m+1)). */
static void laplacian_extremes(int64_t m, double *lmin, double *lmax)
{
    double s = sin(PI / (2.0 * (double)(m + 1)));
    *lmin = 8.0 * s * s;
    *lmax = 8.0 - *lmin;
}

static void test_known_spectra(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    double ref_min = 0.0, ref_max = 0.0;
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        const char *be = kryl_backend_name(kinds[k]);
        /* diag(1, ..., 100): n steps find both ends exactly */
        double dense[100 * 100] = {0};
        for (int i = 0; i < 100; i++) dense[i * 101] = i + 1;
        kryl_matrix A = kt_dense(ctx, 100, dense);
        double lo = 0, hi = 0;
        CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, 100, &lo, &hi));
        CHECK(fabs(lo - 1.0) < 1e-8 && fabs(hi - 100.0) < 1e-8, "%s diag: [%.10g, %.10g]", be, lo,
              hi);
        /* Jacobi makes D^-1 A = I: invariant after one step */
        CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_JACOBI, 10, &lo, &hi));
        CHECK(fabs(lo - 1.0) < 1e-12 && fabs(hi - 1.0) < 1e-12, "%s D^-1 A = I: [%.15g, %.15g]", be,
              lo, hi);
        kryl_matrix_destroy(&A);

        /* Laplacian 30 x 30: Ritz values inside the spectrum, lambda_max first */
        double tmin, tmax;
        laplacian_extremes(30, &tmin, &tmax);
        A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
        CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, 80, &lo, &hi));
        CHECK(lo >= tmin * (1 - 1e-10) && hi <= tmax * (1 + 1e-10),
              "%s laplacian: [%g, %g] outside [%g, %g]", be, lo, hi, tmin, tmax);
        CHECK(fabs(hi - tmax) < 1e-4 * tmax && fabs(lo - tmin) < 0.02 * tmin,
              "%s laplacian: [%.8g, %.8g], exact [%.8g, %.8g]", be, lo, hi, tmin, tmax);
        if (k == 0) {
            ref_min = lo;
            ref_max = hi;
        }
        CHECK(fabs(lo - ref_min) <= 1e-8 * ref_min && fabs(hi - ref_max) <= 1e-8 * ref_max,
              "%s laplacian: [%.12g, %.12g], ref [%.12g, %.12g]", be, lo, hi, ref_min, ref_max);
        /* D = 4 I: the Jacobi-preconditioned spectrum is a quarter */
        double plo, phi;
        CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_JACOBI, 80, &plo, &phi));
        CHECK_CLOSE(plo, lo / 4, 1e-10);
        CHECK_CLOSE(phi, hi / 4, 1e-10);
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
}

/* Preconditioned Lanczos on A equals plain Lanczos on D^-1/2 A D^-1/2. */
static void test_jacobi_scaling(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_read(ctx, "bcsstk06.mtx");
    if (A == NULL) {
        kryl_context_destroy(&ctx);
        return;
    }
    int64_t n = kt_rows(A), nnz;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    kryl_matrix_size(A, NULL, NULL, &nnz);
    kryl_matrix_csr_view(A, &rp, &ci, &v);
    double *d = malloc((size_t)n * sizeof *d), *sv = malloc((size_t)nnz * sizeof *sv);
    int64_t *rp64 = malloc((size_t)(n + 1) * sizeof *rp64),
            *ci64 = malloc((size_t)nnz * sizeof *ci64);
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) d[i] = v[k];
    for (int64_t i = 0; i <= n; i++) rp64[i] = rp[i];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            ci64[k] = ci[k];
            /* s_ij = a_ij / sqrt(d_i d_j) */
            sv[k] = v[k] / sqrt(d[i] * d[ci[k]]);
        }
    kryl_matrix S = NULL;
    CHECK_OK(kryl_matrix_create_csr(&S, ctx, n, n, 0, n, rp64, ci64, sv));
    double lo, hi, slo, shi;
    CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_JACOBI, (int)n, &lo, &hi));
    CHECK_OK(kryl_matrix_spectrum(S, KRYL_PRECOND_NONE, (int)n, &slo, &shi));
    CHECK_CLOSE(hi, shi, 1e-8);
    CHECK(fabs(lo - slo) <= 1e-3 * slo, "bcsstk06: D^-1 A min %.10g, scaled %.10g", lo, slo);
    free(d);
    free(sv);
    free(rp64);
    free(ci64);
    kryl_matrix_destroy(&S);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* The CG-Lanczos relation: a pipecg solve's (alpha, beta) give the same
 * extremes as Lanczos on the same operator. */
static void test_from_solver(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        const char *be = kryl_backend_name(kinds[k]);
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
        int64_t n = kt_rows(A);
        for (int pc = 0; pc < 2; pc++) {
            kryl_solver_options o;
            kt_options(&o, KRYL_METHOD_PIPECG, (kryl_precond_kind)pc, 1e-10, 1000);
            kryl_solver s = NULL;
            kryl_status st = kryl_solver_create(&s, A, &o);
            if (st == KRYL_ERR_UNSUPPORTED && kinds[k] != KRYL_BACKEND_REF) continue;
            CHECK_OK(st);
            double lo, hi, llo, lhi;
            CHECK_STATUS(kryl_solver_spectrum(s, &lo, &hi), KRYL_ERR_INVALID_ARGUMENT);
            double *bh = kt_rhs(A, 6);
            kryl_vector b, x;
            kryl_result r;
            CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
            CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
            CHECK_OK(kryl_vector_set(b, bh, n));
            CHECK_OK(kryl_solver_solve(s, b, x, &r));
            CHECK_OK(kryl_solver_spectrum(s, &lo, &hi));
            CHECK_OK(kryl_matrix_spectrum(A, (kryl_precond_kind)pc, 80, &llo, &lhi));
            CHECK(fabs(hi - lhi) <= 1e-6 * lhi && fabs(lo - llo) <= 0.02 * llo,
                  "%s pc=%d: from pipecg [%.8g, %.8g], lanczos [%.8g, %.8g]", be, pc, lo, hi, llo,
                  lhi);
            kryl_vector_destroy(&b);
            kryl_vector_destroy(&x);
            kryl_solver_destroy(&s);
            free(bh);
        }
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
}

static void test_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    double lo, hi;
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 6);
    CHECK_STATUS(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, 10, &lo, &hi), KRYL_ERR_NOT_SYMMETRIC);
    kryl_matrix_destroy(&A);
    A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 6);
    CHECK_STATUS(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, -1, &lo, &hi),
                 KRYL_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, 10, NULL, &hi),
                 KRYL_ERR_INVALID_ARGUMENT);
    /* more steps than rows: n steps */
    CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, 1000, &lo, &hi));
    double tmin, tmax;
    laplacian_extremes(6, &tmin, &tmax);
    CHECK_CLOSE(lo, tmin, 1e-8);
    CHECK_CLOSE(hi, tmax, 1e-8);
    /* CG does not record its coefficients */
    kryl_solver s = NULL;
    CHECK_OK(kryl_solver_create(&s, A, NULL));
    CHECK_STATUS(kryl_solver_spectrum(s, &lo, &hi), KRYL_ERR_UNSUPPORTED);
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    /* Jacobi needs a nonzero, and for Lanczos positive, diagonal */
    const double zero_diag[] = {0, 1, 1, 0}, negative[] = {-2, 1, 1, -3};
    A = kt_dense(ctx, 2, zero_diag);
    CHECK_STATUS(kryl_matrix_spectrum(A, KRYL_PRECOND_JACOBI, 2, &lo, &hi), KRYL_ERR_ZERO_DIAGONAL);
    /* symmetric indefinite without a preconditioner is fine: eigenvalues -1 and 1 */
    CHECK_OK(kryl_matrix_spectrum(A, KRYL_PRECOND_NONE, 2, &lo, &hi));
    CHECK_CLOSE(lo, -1.0, 1e-12);
    CHECK_CLOSE(hi, 1.0, 1e-12);
    kryl_matrix_destroy(&A);
    A = kt_dense(ctx, 2, negative);
    CHECK_STATUS(kryl_matrix_spectrum(A, KRYL_PRECOND_JACOBI, 2, &lo, &hi),
                 KRYL_ERR_NOT_POSITIVE_DEFINITE);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* k CG steps give Lanczos's k-step estimate (the same Krylov space); CG
 * breaks down on a negative definite matrix and says so. */
static void test_cg_form(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        kryl_context ctx = kt_context(kinds[k]);
        const char *be = kryl_backend_name(kinds[k]);
        const struct {
            kryl_generator_kind kind;
            int64_t n;
        } cases[] = {
            {KRYL_GEN_POISSON2D5, 30}, {KRYL_GEN_POISSON3D7, 12}, {KRYL_GEN_RANDOM_SPD, 500}};
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            kryl_matrix A = kt_generate(ctx, cases[c].kind, cases[c].n);
            for (int pc = KRYL_PRECOND_NONE; pc <= KRYL_PRECOND_JACOBI; pc++) {
                double lo = 0, hi = 0, llo = 0, lhi = 0;
                bool done = false;
                CHECK_OK(kryl_cg_extremes(A, (kryl_precond_kind)pc, 12, &done, &lo, &hi));
                CHECK_OK(kryl_lanczos_extremes(A, (kryl_precond_kind)pc, 12, &llo, &lhi));
                CHECK(done && fabs(hi - lhi) <= 1e-9 * lhi && fabs(lo - llo) <= 1e-6 * llo,
                      "%s case %zu pc=%d: CG [%.12g, %.12g], Lanczos [%.12g, %.12g]", be, c, pc, lo,
                      hi, llo, lhi);
            }
            kryl_matrix_destroy(&A);
        }
        double dense[8 * 8] = {0};
        for (int i = 0; i < 8; i++) dense[i * 9] = -1.0 - i;
        kryl_matrix N = kt_dense(ctx, 8, dense);
        double lo = 0, hi = 0;
        bool done = true;
        CHECK_OK(kryl_cg_extremes(N, KRYL_PRECOND_NONE, 4, &done, &lo, &hi));
        CHECK(!done, "%s: CG's estimate of a negative definite matrix taken", be);
        kryl_matrix_destroy(&N);
        kryl_context_destroy(&ctx);
    }
}

int main(void)
{
    test_known_spectra();
    test_jacobi_scaling();
    test_from_solver();
    test_refusals();
    test_cg_form();
    return test_summary("test_lanczos");
}
