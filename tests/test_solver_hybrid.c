/* Hybrid pipelined CG with the ref backend standing in for the device and
 * the host's cores (omp, else ref) as the host side (test_hybrid_support.h);
 * and auto without a GPU: one backend, saying so. */
#include "solvers/hybrid.h"
#include "test_hybrid_support.h"

static void test_auto_without_gpu(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 16);
    double *b = kt_rhs(A, 11);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_JACOBI, 1e-8, 1000);
    o.hybrid = KRYL_HYBRID_AUTO;
    run r = solve(A, &o, b);
    CHECK(r.r.converged && r.info.method == KRYL_HYBRID_NONE &&
              strstr(r.info.reason, "no GPU") != NULL,
          "auto without a GPU: %s, %s", kryl_hybrid_name(r.info.method), r.info.reason);
    run_free(&r);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* A deterministic context: no split by timing (auto runs on one backend,
 * 3 wants its rows given); a given split runs. */
static void test_deterministic(void)
{
    kryl_context_options co;
    kryl_context_options_init(&co);
    co.backend = KRYL_BACKEND_REF;
    co.deterministic = true;
    kryl_context ctx = NULL;
    CHECK_OK(kryl_context_create(&ctx, &co));
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 16);
    double *b = kt_rhs(A, 23);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 1000);
    o.hybrid = KRYL_HYBRID_SPLIT;
    kryl_solver s = NULL;
    CHECK(kryl_solver_create(&s, A, &o) == KRYL_ERR_INVALID_ARGUMENT &&
              strstr(kryl_last_error(), "hybrid_host_rows") != NULL,
          "hybrid 3 by the model on a deterministic context: %s", kryl_last_error());
    o.hybrid_host_rows = 100;
    run r = solve(A, &o, b);
    CHECK(r.r.converged && r.info.host_rows == 100, "a given split, deterministic");
    run_free(&r);
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* The device's rows shrink until its part fits the bytes it has. */
static void test_rows_to_fit(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_REF);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 30);
    const kryl_csr *csr = &A->host->csr;
    const int64_t n = csr->nrows;
    CHECK(kryl_hybrid_rows_to_fit(csr, 10, INT64_MAX) == 10, "no limit: the rows asked");
    CHECK(kryl_hybrid_rows_to_fit(csr, 0, 0) == n, "no memory: every row on the host");
    /* about half of A's bytes: about half of the rows stay on the device */
    int64_t half = kryl_hybrid_rows_to_fit(csr, 0, 6 * kryl_csr_nnz(csr) + 48 * n);
    CHECK(half > n / 3 && half < 2 * n / 3, "half the bytes: %lld host rows of %lld",
          (long long)half, (long long)n);
    CHECK(kryl_hybrid_rows_to_fit(csr, half + 5, 6 * kryl_csr_nnz(csr) + 48 * n) == half + 5,
          "more host rows than needed are kept");
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    hybrid_same_iterates(KRYL_BACKEND_REF);
    hybrid_converged(KRYL_BACKEND_REF);
    hybrid_never_worse(KRYL_BACKEND_REF);
    hybrid_options(KRYL_BACKEND_REF);
    hybrid_update(KRYL_BACKEND_REF);
    test_auto_without_gpu();
    test_rows_to_fit();
    test_deterministic();
    return test_summary("test_solver_hybrid");
}
