/* The eigenvalue step shared by the Lanczos estimates (lanczos.c) and the
 * multigrid setup's host Lanczos (src/amg/amg_spectrum.c). */
#ifndef KRYL_SOLVERS_LANCZOS_H
#define KRYL_SOLVERS_LANCZOS_H

#include "kryl.h"

/* Smallest and largest eigenvalue of the symmetric tridiagonal T with
 * diagonal a (k entries) and off-diagonal b (k-1 entries), by
 * Sturm-sequence bisection. */
kryl_status kryl_tridiagonal_extremes(const double *a, const double *b, int k, double *lmin,
                                      double *lmax);

#endif
