/* The Lanczos estimates' shared steps (lanczos.c), used by the multigrid
 * setup's lambda_max (src/amg/amg_spectrum.c). */
#ifndef KRYL_SOLVERS_LANCZOS_H
#define KRYL_SOLVERS_LANCZOS_H

#include <stdbool.h>

#include "kryl.h"

/* Smallest and largest eigenvalue of the symmetric tridiagonal T with
 * diagonal a (k entries) and off-diagonal b (k-1 entries), by
 * Sturm-sequence bisection. */
kryl_status kryl_tridiagonal_extremes(const double *a, const double *b, int k, double *lmin,
                                      double *lmax);

/* k >= 1 steps of Lanczos on the backend (kryl_matrix_spectrum without its
 * checks): the extreme Ritz values of A (precond NONE) or of D^-1 A
 * (JACOBI), for a symmetric A of at least k rows (with JACOBI, a positive
 * diagonal). */
kryl_status kryl_lanczos_extremes(kryl_matrix A, kryl_precond_kind precond, int k,
                                  double *lambda_min, double *lambda_max);

/* The same estimate from k >= 1 steps of CG (precond NONE or JACOBI) by
 * the CG-Lanczos relation, with no fetch before the last step: *done =
 * false, and nothing set, where CG broke down before k steps (A not
 * positive definite): then take kryl_lanczos_extremes. */
kryl_status kryl_cg_extremes(kryl_matrix A, kryl_precond_kind precond, int k, bool *done,
                             double *lambda_min, double *lambda_max);

#endif
