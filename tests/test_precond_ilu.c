/* Incomplete factorization preconditioners (IC(0), MIC(0), ILU(0), ILU(k),
 * ILUT) with level-scheduled triangular solves: the backend apply matches
 * the host substitution, Krylov methods need fewer iterations than with
 * Jacobi, and bad matrices are refused with a message naming the cause. */
#include "factor/factor.h"
#include "precond/precond.h"
#include "test_krylov_support.h"

static const kryl_precond_kind all_kinds[] = {
    KRYL_PRECOND_IC0, KRYL_PRECOND_MIC0, KRYL_PRECOND_ILU0, KRYL_PRECOND_ILUK, KRYL_PRECOND_ILUT};

/* The host factorization the preconditioner of `kind` builds (default options). */
static kryl_status host_factor(kryl_precond_kind kind, const kryl_csr *A, kryl_factor *F)
{
    switch (kind) {
    case KRYL_PRECOND_IC0: return kryl_factor_ic0(A, F);
    case KRYL_PRECOND_MIC0: return kryl_factor_mic0(A, F);
    case KRYL_PRECOND_ILU0: return kryl_factor_ilu0(A, F);
    case KRYL_PRECOND_ILUK: return kryl_factor_iluk(A, 1, F);
    default: return kryl_factor_ilut(A, 1e-3, 20, F);
    }
}

/* z = M^{-1} r on the backend against kryl_factor_solve_host. */
static void check_apply(kryl_context ctx, kryl_matrix A, kryl_precond_kind kind, const char *what)
{
    int64_t n = kt_rows(A);
    double *r = malloc((size_t)n * sizeof *r), *z = malloc((size_t)n * sizeof *z);
    double *zref = malloc((size_t)n * sizeof *zref);
    test_random_values(r, n, 17);
    kryl_factor F = {0};
    CHECK_OK(host_factor(kind, &A->host->csr, &F));
    CHECK_OK(kryl_factor_solve_host(&F, r, zref));
    kryl_precond *pc = NULL;
    kryl_vector rv = NULL, zv = NULL;
    CHECK_OK(kryl_precond_create(&pc, kind, NULL, A, NULL));
    CHECK_OK(kryl_vector_create(&rv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&zv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(rv, r, n));
    if (pc) CHECK_OK(pc->apply(pc, rv, zv));
    CHECK_OK(kryl_vector_get(zv, z, n));
    double diff = test_rel_diff(z, zref, n);
    CHECK(diff <= 1e-12, "%s %s on %s: apply differs from the host solve by %.3e",
          kryl_precond_name(kind), what, kryl_backend_name(kryl_context_backend(ctx)), diff);
    kryl_precond_destroy(&pc);
    kryl_vector_destroy(&rv);
    kryl_vector_destroy(&zv);
    kryl_factor_free(&F);
    free(r);
    free(z);
    free(zref);
}

static void test_apply(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    kryl_matrix P = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    kryl_matrix C = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 40);
    for (size_t k = 0; k < sizeof all_kinds / sizeof all_kinds[0]; k++) {
        check_apply(ctx, P, all_kinds[k], "poisson2d");
        if (k >= 2) check_apply(ctx, C, all_kinds[k], "convdiff2d");
    }
    kryl_matrix_destroy(&P);
    kryl_matrix_destroy(&C);
    kryl_context_destroy(&ctx);
}

/* The preconditioner converges and beats Jacobi in iterations. */
static void check_beats_jacobi(kryl_matrix A, kryl_method method, kryl_precond_kind kind,
                               const char *what)
{
    char label[160];
    snprintf(label, sizeof label, "%s + %s on %s (%s)", kryl_method_name(method),
             kryl_precond_name(kind), what, kryl_backend_name(kryl_context_backend(A->ctx)));
    double *b = kt_rhs(A, 5);
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 5000);
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    if (kt_supported(A->ctx, &s, label)) {
        kt_check_converged(&s, label);
        kt_options(&o, method, KRYL_PRECOND_JACOBI, 1e-8, 5000);
        kt_solve j = kt_run(A, &o, b, NULL, NULL);
        CHECK(s.r.iterations < j.r.iterations, "%s: %lld iterations, Jacobi %lld", label,
              (long long)s.r.iterations, (long long)j.r.iterations);
    }
    free(b);
}

static void test_solvers(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    kryl_matrix P2 = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    kryl_matrix P3 = kt_generate(ctx, KRYL_GEN_POISSON3D7, 12);
    kryl_matrix C = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 40);
    check_beats_jacobi(P2, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, "poisson2d");
    check_beats_jacobi(P2, KRYL_METHOD_PCG, KRYL_PRECOND_MIC0, "poisson2d");
    check_beats_jacobi(P3, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, "poisson3d");
    kryl_precond_kind ilus[] = {KRYL_PRECOND_ILU0, KRYL_PRECOND_ILUK, KRYL_PRECOND_ILUT};
    for (int k = 0; k < 3; k++) {
        check_beats_jacobi(C, KRYL_METHOD_GMRES, ilus[k], "convdiff2d");
        check_beats_jacobi(C, KRYL_METHOD_BICGSTAB, ilus[k], "convdiff2d");
    }
    kryl_matrix_destroy(&P2);
    kryl_matrix_destroy(&P3);
    kryl_matrix_destroy(&C);
    struct {
        const char *file;
        kryl_method method;
        kryl_precond_kind kind;
    } real[] = {
        {"bcsstk06.mtx", KRYL_METHOD_PCG, KRYL_PRECOND_MIC0},
        {"nos4.mtx", KRYL_METHOD_PCG, KRYL_PRECOND_IC0},
        {"494_bus.mtx", KRYL_METHOD_PCG, KRYL_PRECOND_IC0},
        {"sherman1.mtx", KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0},
        {"sherman1.mtx", KRYL_METHOD_BICGSTAB, KRYL_PRECOND_ILUK},
        {"pores_1.mtx", KRYL_METHOD_GMRES, KRYL_PRECOND_ILUT},
    };
    for (size_t k = 0; k < sizeof real / sizeof real[0]; k++) {
        kryl_matrix A = kt_read(ctx, real[k].file);
        if (A == NULL) continue;
        check_beats_jacobi(A, real[k].method, real[k].kind, real[k].file);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

static void test_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_read(ctx, "bcsstk06.mtx");
    kt_check_refusal(A, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, KRYL_ERR_NOT_POSITIVE_DEFINITE, "mic0",
                     "bcsstk06");
    kryl_matrix_destroy(&A);
    A = kt_read(ctx, "west0067.mtx");
    kt_check_refusal(A, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, KRYL_ERR_ZERO_DIAGONAL, "row",
                     "west0067");
    kryl_matrix_destroy(&A);
    A = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 10);
    kt_check_refusal(A, KRYL_METHOD_GMRES, KRYL_PRECOND_IC0, KRYL_ERR_NOT_SYMMETRIC, "ilu0",
                     "convdiff2d");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* kryl_solver_precond_info: the factor's levels, solve paths and stability
 * estimate (condest), else the name. */
static void test_precond_info(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 10);
    const struct {
        kryl_method method;
        kryl_precond_kind kind;
        const char *expected;
    } cases[] = {{KRYL_METHOD_PCG, KRYL_PRECOND_IC0,
                  "ic0: L 19 levels (serial), U 19 levels (serial), condest 1.3e+01"},
                 {KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, "jacobi"},
                 {KRYL_METHOD_GMRES, KRYL_PRECOND_NONE, "none"}};
    for (int c = 0; c < 3 && A; c++) {
        kryl_solver_options o;
        kt_options(&o, cases[c].method, cases[c].kind, 1e-8, 100);
        kryl_solver s = NULL;
        char info[128] = "";
        CHECK_OK(kryl_solver_create(&s, A, &o));
        if (s) CHECK_OK(kryl_solver_precond_info(s, info, sizeof info));
        CHECK(strcmp(info, cases[c].expected) == 0, "precond info \"%s\", expected \"%s\"", info,
              cases[c].expected);
        kryl_solver_destroy(&s);
    }
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) {
        test_apply(kinds[k]);
        test_solvers(kinds[k]);
    }
    test_refusals();
    test_precond_info();
    return test_summary("test_precond_ilu");
}
