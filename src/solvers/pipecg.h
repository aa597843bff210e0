/* What pipelined CG (pipecg.c) shares with its hybrid CPU+GPU variants
 * (hybrid_pipecg.c) when the device holds every row. */
#ifndef KRYL_SOLVERS_PIPECG_H
#define KRYL_SOLVERS_PIPECG_H

#include "solvers/solver_impl.h"

/* Steps between recomputations of the recurrence vectors. */
enum { PIPECG_REPLACE_INTERVAL = 50 };

/* From r on the solver's backend: u = M^-1 r;  w = A u;  m = M^-1 w;
 * gamma = r'u;  delta = w'u;  rr = r'r (rank-local) into scalars. */
kryl_status kryl_pipecg_rebuild(kryl_solver s, const kryl_pipecg_vectors *v, double *scalars);

/* Residual replacement (Cools et al. 2018, p-CG-rr): r = b - A x, u, w, m
 * and the scalars from it;  s = A p;  q = M^-1 s;  z = A q. */
kryl_status kryl_pipecg_replace(kryl_solver s, const kryl_pipecg_vectors *v, double *scalars);

#endif
