/* The backends' AMG aggregation (backend.h: amg_aggregate; the parallel
 * coarsening of src/amg/amg_aggregate.c): ref and omp (its default team and
 * 3 threads) give the host code's aggregates exactly on awkward patterns,
 * disconnected and isolated rows, grids and the real matrices; and the
 * parallel coarsening's AMG-PCG iterations stay near greedy's and below
 * mis2's on small grids. */
#include "aggregate_support.h"
#include "test_amg_iterations.h"

static void check_backend(kryl_context ref, kryl_context ctx, kryl_backend_kind kind,
                          const char *name)
{
    (void)ref;
    (void)kind;
    printf("aggregation on %s\n", name);
    test_aggregate_cases(ctx);
}

/* Parallel within 1.5 x greedy's iterations and no more than mis2's
 * (measured: 5-point 200^2 11 against 8 and 16, 7-point 30^3 8 against 8
 * and 10). */
static void check_quality(void)
{
    const test_amg_grid grids[] = {{KRYL_GEN_POISSON2D5, 200, "5-point 200^2"},
                                   {KRYL_GEN_POISSON3D7, 30, "7-point 30^3"}};
    for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
        int64_t greedy =
            test_amg_iterations(KRYL_BACKEND_OMP, grids[g].kind, grids[g].n, KRYL_AMG_GREEDY);
        int64_t mis2 =
            test_amg_iterations(KRYL_BACKEND_OMP, grids[g].kind, grids[g].n, KRYL_AMG_MIS2);
        int64_t parallel =
            test_amg_iterations(KRYL_BACKEND_OMP, grids[g].kind, grids[g].n, KRYL_AMG_PARALLEL);
        printf("%s: AMG-PCG iterations greedy %lld, mis2 %lld, parallel %lld\n", grids[g].label,
               (long long)greedy, (long long)mis2, (long long)parallel);
        CHECK(2 * parallel <= 3 * greedy && parallel <= mis2,
              "%s: parallel coarsening %lld iterations, greedy %lld, mis2 %lld", grids[g].label,
              (long long)parallel, (long long)greedy, (long long)mis2);
    }
}

int main(void)
{
    test_each_config(true, check_backend);
    check_quality();
    return test_summary("test_amg_aggregate");
}
