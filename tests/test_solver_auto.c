/* --method auto: its choice on symmetric and nonsymmetric matrices, each
 * fallback (a preconditioner that refuses A, a solve that does not
 * converge, zero diagonal entries), a preconditioner given by the caller,
 * the trial of AMG for a large nonsymmetric matrix on a device, and what
 * kryl_solver_choice reports; every solve checked by its true residual. */
#include "test_krylov_support.h"

/* Solve by auto; the choice must be (method, precond) and its explanation hold `words`. */
static void check_auto(kryl_matrix A, kryl_precond_kind given, int64_t maxit, kryl_method method,
                       kryl_precond_kind precond, const char *words, const char *what)
{
    if (A == NULL) return;
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_AUTO, given, 1e-8, maxit);
    const int64_t n = kt_rows(A);
    double *b = kt_rhs(A, 3);
    kryl_vector bv = NULL, xv = NULL;
    kryl_solver s = NULL;
    CHECK_OK(kryl_vector_create(&bv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&xv, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(bv, b, n));
    CHECK_OK(kryl_solver_create(&s, A, &o));
    if (s != NULL) {
        kt_solve r;
        memset(&r, 0, sizeof r);
        r.o = o;
        CHECK_OK(kryl_solver_solve(s, bv, xv, &r.r));
        double *x = calloc((size_t)n, sizeof *x);
        CHECK_OK(kryl_vector_get(xv, x, n));
        r.host_relres = kt_host_relres(A, x, b, &r.rounding);
        kt_check_converged(&r, what);
        kryl_method m;
        kryl_precond_kind p;
        const char *why = NULL;
        CHECK_OK(kryl_solver_choice(s, &m, &p, &why));
        printf("%s: %s\n", what, why);
        CHECK(m == method && p == precond, "%s: chose %s + %s, expected %s + %s", what,
              kryl_method_name(m), kryl_precond_name(p), kryl_method_name(method),
              kryl_precond_name(precond));
        /* every word of `words` (separated by '|') in the explanation */
        char copy[256];
        snprintf(copy, sizeof copy, "%s", words);
        for (char *w = strtok(copy, "|"); w; w = strtok(NULL, "|"))
            CHECK(why && strstr(why, w), "%s: '%s' not in the explanation: %s", what, w, why);
        const double *history;
        int64_t length = -1;
        CHECK_OK(kryl_solver_history(s, &history, &length));
        CHECK(length >= 0, "%s: history of the chosen solver", what);
        free(x);
    }
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&bv);
    kryl_vector_destroy(&xv);
    free(b);
}

/* check_auto on a generated matrix of size n, 1000 iterations at most. */
static void check_generated(kryl_context ctx, kryl_generator_kind kind, int64_t n,
                            kryl_precond_kind given, kryl_method method, kryl_precond_kind precond,
                            const char *words, const char *what)
{
    kryl_matrix A = kt_generate(ctx, kind, n);
    check_auto(A, given, 1000, method, precond, words, what);
    kryl_matrix_destroy(&A);
}

/* tridiag(-1, d, -1) of order n, and with rows shifted cyclically by `shift`. */
static kryl_matrix tridiagonal(kryl_context ctx, int64_t n, double d, double up, int64_t shift)
{
    double *dense = calloc((size_t)(n * n), sizeof *dense);
    for (int64_t i = 0; i < n; i++) {
        /* row (i + shift) mod n holds row i of the tridiagonal matrix */
        double *row = dense + ((i + shift) % n) * n;
        row[i] = d;
        if (i > 0) row[i - 1] = -1.0;
        if (i + 1 < n) row[i + 1] = up;
    }
    kryl_matrix A = kt_dense(ctx, n, dense);
    free(dense);
    return A;
}

int main(void)
{
    const kryl_backend_kind backends[] = {KRYL_BACKEND_REF, KRYL_BACKEND_OMP};
    for (int k = 0; k < 2; k++) {
        if (!kryl_backend_available(backends[k])) continue;
        kryl_context ctx = kt_context(backends[k]);
        kryl_matrix A;
        /* symmetric up to rounding, positive diagonal: pcg + ic0 */
        check_generated(ctx, KRYL_GEN_FEM_P1_2D, 20, KRYL_PRECOND_NONE, KRYL_METHOD_PCG,
                        KRYL_PRECOND_IC0, "symmetric up to|positive diagonal|pcg + ic0",
                        "fem-p1-2d");
        /* from 500 000 rows on the host (once, on omp): pcg + amg */
        if (backends[k] == KRYL_BACKEND_OMP) {
            check_generated(
                ctx, KRYL_GEN_POISSON2D5, 710, KRYL_PRECOND_NONE, KRYL_METHOD_PCG, KRYL_PRECOND_AMG,
                "positive diagonal: pcg, amg first from 500000 rows|pcg + amg", "poisson2d 710^2");
        }
        /* the caller's preconditioner is kept */
        check_generated(ctx, KRYL_GEN_FEM_P1_3D, 8, KRYL_PRECOND_JACOBI, KRYL_METHOD_PCG,
                        KRYL_PRECOND_JACOBI, "pcg + jacobi", "fem-p1-3d, jacobi given");
        /* nonsymmetric: gmres + ilu0 */
        check_generated(ctx, KRYL_GEN_CONVDIFF2D, 20, KRYL_PRECOND_NONE, KRYL_METHOD_GMRES,
                        KRYL_PRECOND_ILU0, "nonsymmetric|gmres + ilu0", "convdiff2d");
        /* symmetric, positive diagonal, indefinite: ic0 refuses (zero pivot), pcg + mic0
         * does not converge, ilu0 and ilut meet the zero pivot, ilutp pivots */
        A = tridiagonal(ctx, 40, 1.0, -1.0, 0);
        check_auto(A, KRYL_PRECOND_NONE, 200, KRYL_METHOD_GMRES, KRYL_PRECOND_ILUTP,
                   "ic0 refused|pcg + mic0 stopped|ilu0 refused|ilut refused|gmres + ilutp",
                   "indefinite tridiagonal");
        kryl_matrix_destroy(&A);
        /* zero diagonal entries: rows matched before ILU(0) where BTF is built in,
         * else ILUTP's pivoting */
        A = tridiagonal(ctx, 60, 4.0, -2.0, 7);
        if (kryl_match_available())
            check_auto(A, KRYL_PRECOND_NONE, 1000, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0,
                       "zero diagonal entries|gmres + ilu0 (rows matched)", "rows shifted");
        else
            check_auto(A, KRYL_PRECOND_NONE, 1000, KRYL_METHOD_GMRES, KRYL_PRECOND_ILUTP,
                       "zero diagonal entries|gmres + ilutp", "rows shifted");
        kryl_matrix_destroy(&A);
        /* a solver created with a method of its own: "requested" */
        A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 8);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_CG, KRYL_PRECOND_NONE, 1e-8, 100);
        kryl_solver s = NULL;
        CHECK_OK(kryl_solver_create(&s, A, &o));
        kryl_method m = KRYL_METHOD_AUTO;
        const char *why = NULL;
        CHECK_OK(kryl_solver_choice(s, &m, NULL, &why));
        CHECK(m == KRYL_METHOD_CG && why && strcmp(why, "requested") == 0, "cg: %s",
              why ? why : "(null)");
        kryl_solver_destroy(&s);
        /* a rectangular matrix is refused by name */
        kryl_matrix_destroy(&A);
        kryl_context_destroy(&ctx);
    }
    /* on a device, a nonsymmetric matrix of 65536 rows or more with a positive
     * diagonal: a trial of gmres + amg first (below: gmres + ilu0 on the host) */
    if (kryl_backend_available(KRYL_BACKEND_CUDA) && test_cuda_device("test_solver_auto (cuda)")) {
        kryl_context ctx = kt_context(KRYL_BACKEND_CUDA);
        check_generated(ctx, KRYL_GEN_CONVDIFF2D, 260, KRYL_PRECOND_NONE, KRYL_METHOD_GMRES,
                        KRYL_PRECOND_AMG,
                        "nonsymmetric|amg first on a device (at most 500 iterations)|gmres + amg",
                        "convdiff2d 260^2 on cuda");
        check_generated(ctx, KRYL_GEN_CONVDIFF2D, 20, KRYL_PRECOND_NONE, KRYL_METHOD_GMRES,
                        KRYL_PRECOND_ILU0, "nonsymmetric|gmres + ilu0", "convdiff2d 20^2 on cuda");
        kryl_context_destroy(&ctx);
    }
    kryl_method m;
    CHECK_OK(kryl_method_from_name("auto", &m));
    CHECK(m == KRYL_METHOD_AUTO && strcmp(kryl_method_name(m), "auto") == 0, "the name auto");
    return test_summary("test_solver_auto");
}
