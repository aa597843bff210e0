/* The single-precision inner solver of the mixed-precision schemes
 * (mixed_ir.c, fcg.c, gmres.c's FGMRES): options.method run in single
 * precision on the same matrix, driven step by step through its method
 * table, so every method serves as an inner solver unchanged. */
#ifndef KRYL_SOLVERS_MIXED_H
#define KRYL_SOLVERS_MIXED_H

#include "solvers/solver_impl.h"

/* s->inner = options.method in single precision on s->A (its matrix
 * converted once, its own preconditioner of options.precond). */
kryl_status kryl_inner_create(kryl_solver s);

/* z = B(r): the inner solver run from x = 0 on A z = r for at most
 * options.inner_iterations steps, stopping early when its residual falls
 * below sqrt(factor * rr) (rr a backend scalar; rr.ptr NULL stands for 1).
 * r and z are double vectors of the working layout.  Waits for the
 * inner monitor between batches of steps (kryl_solver_iterate_to): when
 * s->monitor has stopped, the inner solve does nothing and z = 0. */
kryl_status kryl_inner_solve(kryl_solver s, kryl_vector r, kryl_scalar rr, double factor,
                             kryl_vector z);

/* *count = the inner iterations run since the solver was created; one fetch. */
kryl_status kryl_inner_count(kryl_solver s, int64_t *count);

/* Stop the outer iteration with `why` (KRYL_STOP_*) unless it has stopped. */
kryl_status kryl_inner_pass_stop(kryl_solver s, int32_t why);

#endif
