/* Every method x precision x preconditioner combination that
 * kryl_solver_create accepts, on real and generated matrices, from x0 = 0
 * and from a random guess: the x returned is finite, its true residual is
 * no larger than x0's, and a solve reported as converged meets the
 * tolerance by the true residual recomputed here.  A combination that is
 * refused must say why (a status and a message), never crash.  Sized to
 * run in CI under the sanitizers: small matrices, short iteration limits. */
#include "test_krylov_support.h"

static const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_PCG, KRYL_METHOD_PIPECG,
                                      KRYL_METHOD_GMRES, KRYL_METHOD_BICGSTAB};

/* The arithmetic: one precision, or a mixed scheme around single inner solves. */
typedef struct arithmetic {
    const char *name;
    kryl_precision precision;
    kryl_mixed_scheme mixed;
} arithmetic;

static const arithmetic arithmetics[] = {
    {"double", KRYL_DOUBLE, KRYL_MIXED_NONE},
    {"single", KRYL_SINGLE, KRYL_MIXED_NONE},
    {"mixed ir", KRYL_MIXED, KRYL_MIXED_IR},
    {"mixed inner-outer", KRYL_MIXED, KRYL_MIXED_INNER_OUTER},
    {"mixed reliable", KRYL_MIXED, KRYL_MIXED_RELIABLE},
};

static const kryl_precond_kind preconds[] = {
    KRYL_PRECOND_NONE,    KRYL_PRECOND_JACOBI, KRYL_PRECOND_LSPOLY, KRYL_PRECOND_IC0,
    KRYL_PRECOND_MIC0,    KRYL_PRECOND_ILU0,   KRYL_PRECOND_ILUK,   KRYL_PRECOND_ILUT,
    KRYL_PRECOND_BJACOBI, KRYL_PRECOND_MCSSOR, KRYL_PRECOND_MCILU0, KRYL_PRECOND_AMG};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct tally {
    int accepted, refused, converged;
} tally;

/* One accepted combination from x0 (NULL: 0): x finite, no worse than x0,
 * converged only when the recomputed true residual meets rtol. */
static void check_solve(kryl_matrix A, const kryl_solver_options *o, const double *b,
                        const double *x0, const char *label, tally *t)
{
    kt_solve s = kt_run(A, o, b, x0, NULL);
    if (s.create != KRYL_SUCCESS) {
        /* refused: a named status with a message (not an internal error) */
        CHECK(s.create != KRYL_ERR_INTERNAL && kryl_last_error()[0] != '\0',
              "%s: refused with %s and no message", label, kryl_strerror(s.create));
        t->refused++;
        return;
    }
    t->accepted++;
    double rounding = 0.0;
    const double start = x0 ? kt_host_relres(A, x0, b, &rounding) : 1.0;
    const double noise = fmax(1e-13, 2.0 * fmax(rounding, s.rounding));
    CHECK(s.x_finite, "%s: x is not finite (%s)", label, kryl_reason_name(s.r.reason));
    CHECK(s.host_relres <= start * (1.0 + 1e-12) + noise,
          "%s: x's true relres %.3e > x0's %.3e (%s after %lld iterations)", label, s.host_relres,
          start, kryl_reason_name(s.r.reason), (long long)s.r.iterations);
    CHECK(!(s.r.relres > s.r.relres_last * (1.0 + 1e-12)),
          "%s: relres %.3e above the last iterate's %.3e", label, s.r.relres, s.r.relres_last);
    if (s.r.converged) {
        t->converged++;
        CHECK(s.host_relres <= o->rtol * (1.0 + 1e-6) + noise,
              "%s: reported converged, true relres %.3e > rtol %.1e", label, s.host_relres,
              o->rtol);
    }
}

/* Every combination on A, from zero and from a guess. */
static void check_matrix(kryl_matrix A, const char *name, tally *t)
{
    if (A == NULL) {
        printf("%s: absent, skipped\n", name);
        return;
    }
    double *b = kt_rhs(A, 21), *x0 = kt_rhs(A, 22);
    for (size_t m = 0; m < COUNT(methods); m++)
        for (size_t a = 0; a < COUNT(arithmetics); a++)
            for (size_t p = 0; p < COUNT(preconds); p++) {
                kryl_solver_options o;
                kt_options(&o, methods[m], preconds[p], 1e-8, 150);
                o.precision = arithmetics[a].precision;
                o.mixed = arithmetics[a].mixed;
                o.inner_iterations = 50;
                o.restart = 20;
                char label[200];
                snprintf(label, sizeof label, "%s: %s, %s, %s", name, kryl_method_name(methods[m]),
                         arithmetics[a].name, kryl_precond_name(preconds[p]));
                check_solve(A, &o, b, NULL, label, t);
                strncat(label, ", from a guess", sizeof label - strlen(label) - 1);
                check_solve(A, &o, b, x0, label, t);
            }
    free(b);
    free(x0);
}

/* tridiag(off, diag, off), n x n. */
static kryl_matrix tridiagonal(kryl_context ctx, int64_t n, double off, double diag)
{
    double *dense = calloc((size_t)(n * n), sizeof *dense);
    for (int64_t i = 0; i < n; i++) {
        dense[i * n + i] = diag;
        if (i > 0) dense[i * n + i - 1] = off;
        if (i + 1 < n) dense[i * n + i + 1] = off;
    }
    kryl_matrix A = kt_dense(ctx, n, dense);
    free(dense);
    return A;
}

int main(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    tally t = {0, 0, 0};
    struct {
        const char *name;
        kryl_matrix A;
    } cases[] = {
        {"poisson2d 10^2", kt_generate(ctx, KRYL_GEN_POISSON2D5, 10)},
        {"convdiff2d 10^2", kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 10)},
        /* symmetric indefinite with a positive diagonal: every CG must fail safely */
        {"tridiag(1, 1, 1)", tridiagonal(ctx, 40, 1.0, 1.0)},
        {"nos4.mtx", kt_read(ctx, "nos4.mtx")},
        {"lund_a.mtx", kt_read(ctx, "lund_a.mtx")},
        {"pores_1.mtx", kt_read(ctx, "pores_1.mtx")},
        {"west0067.mtx", kt_read(ctx, "west0067.mtx")},
        {"cage4.mtx", kt_read(ctx, "cage4.mtx")},
    };
    for (size_t k = 0; k < COUNT(cases); k++) {
        check_matrix(cases[k].A, cases[k].name, &t);
        kryl_matrix_destroy(&cases[k].A);
    }
    printf("%d solves accepted (%d converged), %d refused\n", t.accepted, t.converged, t.refused);
    CHECK(t.accepted > 0 && t.converged > 0, "nothing ran");
    kryl_context_destroy(&ctx);
    return test_summary("test_solver_acceptance");
}
