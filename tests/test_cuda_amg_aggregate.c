/* The cuda backend's AMG aggregation (amg_aggregate: strength graph and
 * parallel aggregates in kernels, cuda_aggregate.cu) against the host's
 * code exactly, on awkward patterns, disconnected and isolated rows, grids,
 * the real matrices and a 7-point grid of 2M rows; then AMG-PCG with the
 * parallel coarsening in the same iterations as on ref (the same
 * aggregates).  Skipped (77) without a usable device. */
#include "aggregate_support.h"
#include "core/objects.h"
#include "test_amg_iterations.h"

int main(void)
{
    if (!test_cuda_device("test_cuda_amg_aggregate")) return TEST_SKIP_CODE;
    kryl_context ctx = test_context(KRYL_BACKEND_CUDA);
    printf("test_cuda_amg_aggregate on %s\n", kryl_context_device_name(ctx));
    test_aggregate_cases(ctx);
    kryl_matrix big = kt_generate(ctx, KRYL_GEN_POISSON3D7, 128);
    test_check_aggregate(ctx, &big->host->csr, 0.0, true, "7-point grid of 128^3 rows");
    kryl_matrix_destroy(&big);
    kryl_context_destroy(&ctx);
    const test_amg_grid grids[] = {{KRYL_GEN_POISSON2D5, 120, "5-point 120^2"},
                                   {KRYL_GEN_POISSON3D7, 24, "7-point 24^3"}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        int64_t host =
            test_amg_iterations(KRYL_BACKEND_REF, grids[g].kind, grids[g].n, KRYL_AMG_PARALLEL);
        int64_t dev =
            test_amg_iterations(KRYL_BACKEND_CUDA, grids[g].kind, grids[g].n, KRYL_AMG_PARALLEL);
        printf("%s: AMG-PCG (parallel coarsening) %lld iterations on cuda, %lld on ref\n",
               grids[g].label, (long long)dev, (long long)host);
        CHECK(dev >= host - 1 && dev <= host + 1,
              "%s: %lld iterations on cuda, %lld on ref (the same aggregates)", grids[g].label,
              (long long)dev, (long long)host);
    }
    return test_summary("test_cuda_amg_aggregate");
}
