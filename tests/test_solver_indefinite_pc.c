/* CG methods need a symmetric positive definite preconditioner M.
 *  - The step rule: alpha = rz/pq stops with INDEFINITE_PC for rz = r'M^-1 r
 *    <= 0, BREAKDOWN for pq <= 0, NAN for a non-finite operand.
 *  - A preconditioner that turns indefinite part-way (z = -M^-1 r after a
 *    few applies) stops PCG, pipelined CG and the inner-outer scheme (flexible
 *    CG) with reason indefinite_pc, x no worse than x0.
 *  - Setup refuses ILUT, ILUTP, block Jacobi with ILUT blocks and a row
 *    matching by name for every CG method, saying what to use instead.
 *  - On the real matrices where PCG with ILU(0), ILU(k) or block Jacobi used
 *    to stall or break down silently (lund_a, bcsstk15, bcsstk21): refused
 *    at setup with the alternatives named, or converged. */
#include "backends/step_rules.h"
#include "precond/precond.h"
#include "solvers/solver_impl.h"
#include "test_krylov_support.h"

static void test_alpha_rule(void)
{
    CHECK(kryl_cg_alpha_stop(1.0, 2.0) == KRYL_STOP_RUNNING, "rz > 0, pq > 0 must run");
    CHECK(kryl_cg_alpha_stop(-1.0, 2.0) == KRYL_STOP_INDEFINITE_PC, "rz < 0: indefinite M");
    CHECK(kryl_cg_alpha_stop(0.0, 2.0) == KRYL_STOP_INDEFINITE_PC, "rz = 0: indefinite M");
    CHECK(kryl_cg_alpha_stop(1.0, -2.0) == KRYL_STOP_BREAKDOWN, "pq < 0: indefinite A");
    CHECK(kryl_cg_alpha_stop(0.0, 0.0) == KRYL_STOP_BREAKDOWN, "a zero direction breaks down");
    CHECK(kryl_cg_alpha_stop(NAN, 2.0) == KRYL_STOP_NAN, "a NaN rz is NAN");
}

/* The preconditioner's own apply, then z = -z once `good` applies are spent. */
static kryl_status (*own_apply)(kryl_precond *, kryl_vector, kryl_vector);
static int good;

static kryl_status flipping_apply(kryl_precond *pc, kryl_vector r, kryl_vector z)
{
    KRYL_TRY(own_apply(pc, r, z));
    if (good-- > 0) return KRYL_SUCCESS;
    /* z = -z: M^-1 negative definite from here on */
    return pc->ctx->ops->axpby(pc->ctx, 0.0, z, -1.0, z);
}

/* A PCG-like solve whose M turns negative definite after `applies`
 * applies stops with indefinite_pc, x finite and no worse than x0 = 0. */
static void check_turning(kryl_matrix A, kryl_method method, kryl_precision precision, int applies,
                          const char *what)
{
    const int64_t n = kt_rows(A);
    double *bh = kt_rhs(A, 3), *xh = calloc((size_t)n, sizeof *xh);
    kryl_solver_options o;
    kt_options(&o, method, KRYL_PRECOND_IC0, 1e-12, 500);
    o.precision = precision;
    kryl_solver s = NULL;
    kryl_vector b = NULL, x = NULL;
    CHECK_OK(kryl_solver_create(&s, A, &o));
    kryl_precond *pc = s->inner ? s->inner->pc : s->pc;
    own_apply = pc->apply;
    pc->apply = flipping_apply;
    good = applies;
    CHECK_OK(kryl_vector_create(&b, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_create(&x, A, KRYL_DOUBLE));
    CHECK_OK(kryl_vector_set(b, bh, n));
    CHECK_OK(kryl_vector_set(x, xh, n));
    kryl_result r;
    CHECK_OK(kryl_solver_solve(s, b, x, &r));
    CHECK_OK(kryl_vector_get(x, xh, n));
    double rounding;
    const double relres = kt_host_relres(A, xh, bh, &rounding);
    printf("%-28s %-8s %s: %s after %lld iterations, relres %.3e\n", what,
           kryl_backend_name(kryl_context_backend(A->ctx)), kryl_precision_name(precision),
           kryl_reason_name(r.reason), (long long)r.iterations, relres);
    CHECK(r.reason == KRYL_DIVERGED_INDEFINITE_PC && !r.converged,
          "%s: expected indefinite_pc, got %s", what, kryl_reason_name(r.reason));
    CHECK(relres <= 1.0 + 1e-12 && fabs(relres - r.relres) <= 1e-6 * fmax(relres, 1e-300),
          "%s: x has relres %.3e (reported %.3e), worse than x0's 1", what, relres, r.relres);
    CHECK(applies == 0 || r.iterations > 0, "%s: stopped before the M turned", what);
    CHECK(strcmp(kryl_reason_name(r.reason), "indefinite_pc") == 0, "reason name %s",
          kryl_reason_name(r.reason));
    kryl_solver_destroy(&s);
    kryl_vector_destroy(&b);
    kryl_vector_destroy(&x);
    free(bh);
    free(xh);
}

/* On cuda a captured graph replays the applies the host queued once, so
 * there M is negative definite from the start (later: only on the host
 * backends). */
static void test_turning(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 24);
    const kryl_method methods[] = {KRYL_METHOD_PCG, KRYL_METHOD_PIPECG};
    const int later = kind == KRYL_BACKEND_CUDA ? 0 : 6;
    for (size_t m = 0; m < 2; m++) {
        char what[64];
        snprintf(what, sizeof what, "%s turning", kryl_method_name(methods[m]));
        check_turning(A, methods[m], KRYL_DOUBLE, 0, what);
        check_turning(A, methods[m], KRYL_DOUBLE, later, what);
        check_turning(A, methods[m], KRYL_SINGLE, later, what);
    }
    /* inner-outer: the inner PCG meets it at once and returns z = 0, so the
     * flexible CG outside sees r'z = 0 */
    check_turning(A, KRYL_METHOD_PCG, KRYL_MIXED, 0, "inner-outer pcg turning");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* Every CG method refuses the nonsymmetric factorizations by name. */
static void test_refusals(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 10);
    const kryl_method methods[] = {KRYL_METHOD_CG, KRYL_METHOD_PCG, KRYL_METHOD_PIPECG};
    for (size_t m = 0; m < 3; m++) {
        kt_check_refusal(A, methods[m], KRYL_PRECOND_ILUT, KRYL_ERR_NOT_SYMMETRIC, "mic0",
                         kryl_method_name(methods[m]));
        kt_check_refusal(A, methods[m], KRYL_PRECOND_ILUTP, KRYL_ERR_NOT_SYMMETRIC,
                         "--method gmres", kryl_method_name(methods[m]));
    }
    kryl_solver_options o;
    kryl_solver s = NULL;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_BJACOBI, 1e-8, 100);
    o.block_factor = KRYL_PRECOND_ILUT;
    kryl_status st = kryl_solver_create(&s, A, &o);
    CHECK(st == KRYL_ERR_NOT_SYMMETRIC && strstr(kryl_last_error(), "--block-factor mic0"),
          "pcg + bjacobi(ilut): %s", kryl_last_error());
    /* the mixed schemes around pcg too */
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_ILUT, 1e-8, 100);
    o.precision = KRYL_MIXED;
    st = kryl_solver_create(&s, A, &o);
    CHECK(st == KRYL_ERR_NOT_SYMMETRIC && strstr(kryl_last_error(), "ilut is not symmetric"),
          "mixed pcg + ilut: %s", kryl_last_error());
    if (kryl_match_available()) {
        kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_ILU0, 1e-8, 100);
        o.match = true;
        st = kryl_solver_create(&s, A, &o);
        CHECK(st == KRYL_ERR_NOT_SYMMETRIC && strstr(kryl_last_error(), "--match"),
              "pcg + ilu0 --match: %s", kryl_last_error());
    }
    /* gmres takes them all */
    kt_options(&o, KRYL_METHOD_GMRES, KRYL_PRECOND_ILUT, 1e-8, 100);
    CHECK_OK(kryl_solver_create(&s, A, &o));
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* PCG with the LU factorizations on the matrices that stalled or broke
 * down: refused naming mic0 (a non-positive pivot, or not symmetric),
 * or converged. */
static void test_real(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_OMP);
    const char *files[] = {"lund_a.mtx", "bcsstk15.mtx", "bcsstk21.mtx"};
    const kryl_precond_kind kinds[] = {KRYL_PRECOND_ILU0, KRYL_PRECOND_ILUK, KRYL_PRECOND_ILUT,
                                       KRYL_PRECOND_BJACOBI, KRYL_PRECOND_BJACOBI};
    const kryl_precond_kind blocks[] = {KRYL_PRECOND_NONE, KRYL_PRECOND_NONE, KRYL_PRECOND_NONE,
                                        KRYL_PRECOND_ILU0, KRYL_PRECOND_ILUT};
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        kryl_matrix A = kt_read(ctx, files[f]);
        if (A == NULL) continue;
        found++;
        double *b = kt_rhs(A, 11);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            kryl_solver_options o;
            kt_options(&o, KRYL_METHOD_PCG, kinds[k], 1e-8, 3000);
            o.block_factor = blocks[k];
            kt_solve s = kt_run(A, &o, b, NULL, NULL);
            char label[96];
            snprintf(label, sizeof label, "%s pcg + %s%s%s", files[f], kryl_precond_name(kinds[k]),
                     blocks[k] ? " of " : "", blocks[k] ? kryl_precond_name(blocks[k]) : "");
            if (s.create != KRYL_SUCCESS) {
                printf("%-40s refused: %s\n", label, kryl_last_error());
                CHECK((s.create == KRYL_ERR_NOT_POSITIVE_DEFINITE ||
                       s.create == KRYL_ERR_NOT_SYMMETRIC) &&
                          strstr(kryl_last_error(), "mic0") != NULL,
                      "%s: refused with %s: %s", label, kryl_strerror(s.create), kryl_last_error());
                continue;
            }
            printf("%-40s %s in %lld iterations\n", label, kryl_reason_name(s.r.reason),
                   (long long)s.r.iterations);
            kt_check_converged(&s, label);
        }
        free(b);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
    if (found == 0) printf("real matrices absent: that part skipped\n");
}

int main(void)
{
    test_alpha_rule();
    test_turning(KRYL_BACKEND_REF);
    test_turning(KRYL_BACKEND_OMP);
    if (kryl_backend_available(KRYL_BACKEND_CUDA)) test_turning(KRYL_BACKEND_CUDA);
    test_refusals();
    test_real();
    return test_summary("test_solver_indefinite_pc");
}
