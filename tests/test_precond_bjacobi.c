/* Block Jacobi preconditioner: one block is IC(0) / ILU(0) itself, one row
 * per block is Jacobi, and the block counts between converge (by the true
 * residual) in a number of iterations between the two; on generated and
 * real matrices, with a reordering, with the shifted IC(0) fallback, and
 * with bad block counts refused. */
#include "precond/precond.h"
#include "test_krylov_support.h"

/* Iterations of method + precond (blocks for bjacobi, order) on A x = b,
 * checked to converge; -1 when the backend refuses (see kt_supported). */
static int64_t iterations(kryl_matrix A, const double *b, kryl_method method,
                          kryl_precond_kind kind, int blocks, kryl_order_kind order,
                          const char *what)
{
    char label[160];
    snprintf(label, sizeof label, "%s + %s(blocks %d) on %s (%s)", kryl_method_name(method),
             kryl_precond_name(kind), blocks, what,
             kryl_backend_name(kryl_context_backend(A->ctx)));
    kryl_solver_options o;
    kt_options(&o, method, kind, 1e-8, 5000);
    o.blocks = blocks;
    o.order = order;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    if (!kt_supported(A->ctx, &s, label)) return -1;
    kt_check_converged(&s, label);
    return s.r.iterations;
}

/* bjacobi(1 block) = factor, factor <= bjacobi(k blocks) <= Jacobi + 2
 * for k = 2, 7, default, and bjacobi(n blocks) = Jacobi within 1. */
static void check_blocks(kryl_matrix A, kryl_method method, kryl_precond_kind factor,
                         const char *what)
{
    double *b = kt_rhs(A, 11);
    int64_t n = kt_rows(A);
    int64_t it_factor = iterations(A, b, method, factor, 0, KRYL_ORDER_NONE, what);
    int64_t it_jacobi = iterations(A, b, method, KRYL_PRECOND_JACOBI, 0, KRYL_ORDER_NONE, what);
    int64_t it_one = iterations(A, b, method, KRYL_PRECOND_BJACOBI, 1, KRYL_ORDER_NONE, what);
    if (it_one >= 0) {
        printf("%-12s %-8s %s: %lld, jacobi %lld, bjacobi(1) %lld", what, kryl_method_name(method),
               kryl_precond_name(factor), (long long)it_factor, (long long)it_jacobi,
               (long long)it_one);
        CHECK(it_one == it_factor, "%s: bjacobi with 1 block took %lld iterations, %s %lld", what,
              (long long)it_one, kryl_precond_name(factor), (long long)it_factor);
        const int counts[] = {2, 7, 0};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int64_t it =
                iterations(A, b, method, KRYL_PRECOND_BJACOBI, counts[k], KRYL_ORDER_NONE, what);
            printf(", bjacobi(%d) %lld", counts[k], (long long)it);
            CHECK(it_one <= it && it <= it_jacobi + 2,
                  "%s: bjacobi with %d blocks took %lld iterations, expected %lld..%lld", what,
                  counts[k], (long long)it, (long long)it_one, (long long)(it_jacobi + 2));
        }
        int64_t it_n =
            iterations(A, b, method, KRYL_PRECOND_BJACOBI, (int)n, KRYL_ORDER_NONE, what);
        printf(", bjacobi(n = %lld) %lld\n", (long long)n, (long long)it_n);
        CHECK(llabs(it_n - it_jacobi) <= 1,
              "%s: bjacobi with %lld 1x1 blocks took %lld iterations, Jacobi %lld", what,
              (long long)n, (long long)it_n, (long long)it_jacobi);
    }
    free(b);
}

/* The blocks are taken in the reordered matrix's rows: still converges. */
static void check_reordered(kryl_matrix A, kryl_method method, const char *what)
{
    double *b = kt_rhs(A, 3);
    iterations(A, b, method, KRYL_PRECOND_BJACOBI, 7, KRYL_ORDER_RCM, what);
    free(b);
}

static void test_backend(kryl_backend_kind kind)
{
    kryl_context ctx = kt_context(kind);
    kryl_matrix P2 = kt_generate(ctx, KRYL_GEN_POISSON2D5, 40);
    kryl_matrix P3 = kt_generate(ctx, KRYL_GEN_POISSON3D7, 12);
    kryl_matrix C = kt_generate(ctx, KRYL_GEN_CONVDIFF2D, 40);
    check_blocks(P2, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, "poisson2d");
    check_blocks(P3, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, "poisson3d");
    check_blocks(C, KRYL_METHOD_GMRES, KRYL_PRECOND_ILU0, "convdiff2d");
    check_reordered(P2, KRYL_METHOD_PCG, "poisson2d, rcm");
    check_reordered(C, KRYL_METHOD_BICGSTAB, "convdiff2d, rcm");
    kryl_matrix_destroy(&P2);
    kryl_matrix_destroy(&P3);
    kryl_matrix_destroy(&C);
    const char *real[] = {"nos4.mtx", "494_bus.mtx"};
    for (size_t k = 0; k < sizeof real / sizeof real[0]; k++) {
        kryl_matrix A = kt_read(ctx, real[k]);
        if (A == NULL) continue;
        check_blocks(A, KRYL_METHOD_PCG, KRYL_PRECOND_IC0, real[k]);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* Counts the warnings that mention a shifted IC(0). */
static void count_shift_warnings(kryl_log_level level, const char *message, void *user)
{
    if (level == KRYL_LOG_WARNING && strstr(message, "shifted IC(0)") != NULL) ++*(int *)user;
}

/* bcsstk06 has no IC(0): every block is factored shifted, with a warning. */
static void test_shift_fallback(void)
{
    int warnings = 0;
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_REF;
    co.log = count_shift_warnings;
    co.log_user = &warnings;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &co));
    kryl_matrix A = kt_read(ctx, "bcsstk06.mtx");
    if (A != NULL) {
        double *b = kt_rhs(A, 5);
        int64_t it =
            iterations(A, b, KRYL_METHOD_PCG, KRYL_PRECOND_BJACOBI, 7, KRYL_ORDER_NONE, "bcsstk06");
        printf("bcsstk06     pcg      bjacobi(7), shifted IC(0): %lld\n", (long long)it);
        CHECK(warnings == 1, "bcsstk06: %d warnings about the shifted IC(0), expected 1", warnings);
        free(b);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* A negative block count is refused naming the option. */
static void test_refusal(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 10);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_BJACOBI, 1e-8, 100);
    o.blocks = -3;
    kryl_solver s = NULL;
    kryl_status st = kryl_solver_create(&s, A, &o);
    CHECK(st == KRYL_ERR_INVALID_ARGUMENT && strstr(kryl_last_error(), "blocks") != NULL,
          "blocks -3: expected invalid_argument naming blocks, got %s: %s", kryl_strerror(st),
          kryl_last_error());
    kryl_solver_destroy(&s);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    kryl_backend_kind kinds[3];
    int nk = test_backends(kinds, 3);
    for (int k = 0; k < nk; k++) test_backend(kinds[k]);
    test_shift_fallback();
    test_refusal();
    return test_summary("test_precond_bjacobi");
}
