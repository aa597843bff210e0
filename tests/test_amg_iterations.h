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
    kryl_context ctx = kt_context(backend);
    kryl_matrix A = kt_generate(ctx, kind, n);
    double *b = kt_rhs(A, 3);
    kryl_solver_options o;
    kt_options(&o, KRYL_METHOD_PCG, KRYL_PRECOND_AMG, 1e-8, 500);
    o.amg.coarsening = coarsening;
    kt_solve s = kt_run(A, &o, b, NULL, NULL);
    kt_check_converged(&s, kryl_amg_coarsening_name(coarsening));
    free(b);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return s.r.iterations;
}

#endif
