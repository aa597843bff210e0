/* Hybrid pipelined CG with cuda as the device side (test_hybrid_support.h:
 * the same iterates as pipecg on cuda alone on awkward splits, converged,
 * never worse than x0, refusals, new values), and auto on a GPU: converged,
 * on the split or on the GPU alone, saying why.  Skipped (77) without a
 * usable CUDA device. */
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
        CHECK(r.info.method == KRYL_HYBRID_NONE || r.info.method == KRYL_HYBRID_SPLIT,
              "auto ran %s", kryl_hybrid_name(r.info.method));
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
    test_auto();
    return test_summary("test_cuda_hybrid");
}
