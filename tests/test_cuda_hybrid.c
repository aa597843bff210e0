/* Hybrid pipelined CG with cuda as the device side (test_hybrid_support.h:
 * the same iterates as pipecg on cuda alone on awkward splits, converged,
 * never worse than x0, refusals, new values), and auto on a GPU: converged
 * on the GPU alone by the bandwidth model, saying why.  Skipped (77) without a
 * usable CUDA device. */
#include "solvers/hybrid.h"
#include "test_hybrid_support.h"

static void test_auto(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_CUDA);
    const int64_t sizes[] = {20, 300};
    for (int k = 0; k < 2; k++) {
        kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, sizes[k]);
        double *b = kt_rhs(A, 17);
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 20000);
        o.hybrid = KRYL_HYBRID_AUTO;
        run r = solve(A, &o, b);
        CHECK(r.r.converged, "auto on poisson2d %lld: not converged", (long long)sizes[k]);
        /* the matrix fits: the bandwidth model decides, nothing timed; a
         * GPU an order of magnitude faster than the host gets every row */
        CHECK(r.info.method == KRYL_HYBRID_NONE && r.info.model_predicted && r.info.model_rows == 0,
              "auto ran %s (predicted %d)", kryl_hybrid_name(r.info.method),
              r.info.model_predicted);
        CHECK(r.info.model_host_share >= 0.0 && r.info.model_host_share <= 1.0,
              "auto: model share %g", r.info.model_host_share);
        printf("auto on poisson2d %lld: %s, %lld host rows: %s\n", (long long)sizes[k],
               kryl_hybrid_name(r.info.method), (long long)r.info.host_rows, r.info.reason);
        run_free(&r);
        free(b);
        kryl_matrix_destroy(&A);
    }
    kryl_context_destroy(&ctx);
}

/* Under a device memory cap that leaves room for only part of the split's
 * device rows, the host takes the rest and the solve converges. */
static void test_capped(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_CUDA);
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 300);
    const int64_t n = kt_rows(A);
    int64_t nnz = 0;
    CHECK_OK(kryl_matrix_size(A, NULL, NULL, &nnz));
    double *b = kt_rhs(A, 19);
    kryl_device_memory mem;
    CHECK_OK(kryl_context_device_memory(ctx, &mem));
    /* the driver's vectors and workspace, and 40% of the split's device part
     * with every row (12 bytes an entry, 96 a row) */
    CHECK_OK(kryl_context_set_gpu_memory(
        ctx, mem.in_use + 7 * 8 * n + (1 << 20) +
                 (int64_t)(0.4 * (12.0 * (double)nnz + 96.0 * (double)n))));
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 20000);
    o.hybrid = KRYL_HYBRID_SPLIT;
    run r = solve(A, &o, b);
    CHECK(r.r.converged && r.info.host_rows > n / 2 && strstr(r.info.reason, "must fit"),
          "capped: converged %d, %lld host rows of %lld: %s", r.r.converged,
          (long long)r.info.host_rows, (long long)n, r.info.reason);
    run_free(&r);
    CHECK_OK(kryl_context_set_gpu_memory(ctx, 0));
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

/* A matrix whose storage waits (kryl_context_defer_matrix_storage) under a
 * cap that leaves no room for it whole besides the solve's vectors: hybrid
 * 3 and auto converge by the true residual with the device holding only
 * its rows, A's storage never built, and pipecg on the device alone is
 * refused. */
static void test_larger_than_cap(void)
{
    kryl_context ctx = kt_context(KRYL_BACKEND_CUDA);
    CHECK_OK(kryl_context_defer_matrix_storage(ctx, true));
    kryl_matrix A = kt_generate(ctx, KRYL_GEN_POISSON2D5, 300);
    const int64_t n = kt_rows(A);
    int64_t nnz = 0;
    CHECK_OK(kryl_matrix_size(A, NULL, NULL, &nnz));
    double *b = kt_rhs(A, 31);
    kryl_device_memory mem;
    CHECK_OK(kryl_context_device_memory(ctx, &mem));
    /* the driver's vectors and the caller's b and x (nine of n), workspace,
     * and a quarter of what the device would need for all of A: less than
     * A's own CSR (12 bytes an entry, 12 a row) */
    const int64_t cap = mem.in_use + 9 * 8 * n + (1 << 20) +
                        (int64_t)(0.25 * (12.0 * (double)nnz + 96.0 * (double)n));
    CHECK_OK(kryl_context_set_gpu_memory(ctx, cap));
    const kryl_hybrid asked[] = {KRYL_HYBRID_SPLIT, KRYL_HYBRID_AUTO};
    for (int k = 0; k < 2; k++) {
        kryl_solver_options o;
        kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 20000);
        o.hybrid = asked[k];
        kt_solve r = kt_run(A, &o, b, NULL, NULL);
        CHECK(r.create == KRYL_SUCCESS, "hybrid %s past the cap: %s", kryl_hybrid_name(asked[k]),
              kryl_last_error());
        if (r.create == KRYL_SUCCESS) kt_check_converged(&r, "hybrid past the cap");
        CHECK(A->storage_deferred, "hybrid %s past the cap built the whole matrix",
              kryl_hybrid_name(asked[k]));
    }
    CHECK_OK(kryl_context_device_memory(ctx, &mem));
    CHECK(mem.peak <= cap, "peak %lld past the cap %lld", (long long)mem.peak, (long long)cap);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PIPECG, KRYL_PRECOND_JACOBI, 1e-8, 20000);
    kryl_solver s = NULL;
    /* refused where the whole matrix goes up, or where its workspace follows it */
    CHECK(kryl_solver_create(&s, A, &o) == KRYL_ERR_DEVICE_OUT_OF_MEMORY,
          "pipecg alone past the cap: %s", kryl_last_error());
    printf("pipecg alone past the cap: %s\n", kryl_last_error());
    CHECK_OK(kryl_context_set_gpu_memory(ctx, 0));
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
}

int main(void)
{
    if (!kryl_backend_available(KRYL_BACKEND_CUDA)) {
        printf("test_cuda_hybrid: skipped, no usable CUDA device\n");
        return 77;
    }
    hybrid_same_iterates(KRYL_BACKEND_CUDA);
    hybrid_converged(KRYL_BACKEND_CUDA);
    hybrid_never_worse(KRYL_BACKEND_CUDA);
    hybrid_options(KRYL_BACKEND_CUDA);
    hybrid_update(KRYL_BACKEND_CUDA);
    hybrid_preconditioners(KRYL_BACKEND_CUDA);
    test_auto();
    test_capped();
    test_larger_than_cap();
    return test_summary("test_cuda_hybrid");
}
