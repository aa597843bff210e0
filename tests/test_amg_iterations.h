/* AMG-PCG iterations by coarsening, for the aggregation tests
 * (test_amg_aggregate.c, test_cuda_amg_aggregate.c). */
#ifndef KRYL_TEST_AMG_ITERATIONS_H
#define KRYL_TEST_AMG_ITERATIONS_H

#include "test_krylov_support.h"

/* AMG-PCG iterations to 1e-8 (checked converged) on `kind` of size n with
 * `coarsening`, on a context of `backend`. */
static inline int64_t test_amg_iterations(kryl_backend_kind backend, kryl_generator_kind kind,
                                          int64_t n, kryl_amg_coarsening coarsening)
{
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_AMG, 1e-8, 500);
    o.amg.coarsening = coarsening;
    /* one Chebyshev degree on every backend (a device's default is 1): the
     * counts compare the aggregates */
    o.amg.sweeps = 2;
    return kt_generated_iterations(backend, kind, n, &o, 3, kryl_amg_coarsening_name(coarsening));
}

/* A grid the aggregation tests solve on. */
typedef struct test_amg_grid {
    kryl_generator_kind kind;
    int64_t n;
    const char *label;
} test_amg_grid;

#endif
