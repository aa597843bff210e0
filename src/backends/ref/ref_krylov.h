/* What the ref backend's GMRES operations share (ref_krylov.c, ref_dcgs2.c);
 * the operations themselves are declared in ref_ops.h. */
#ifndef KRYL_REF_KRYLOV_H
#define KRYL_REF_KRYLOV_H

#include "backends/ref/ref_ops.h"

/* R's column k (already holding H's column k): the rotations 0..k-1, then
 * rotation k that zeroes its subdiagonal, applied to gk = g[k] before it:
 * g[k] = cs gk, g[k+1] = -sn gk, rr = g[k+1]^2, count = k+1.  Returns
 * KRYL_STOP_NAN or _BREAKDOWN (zero pivot) having changed no rotation, g,
 * rr or count, else KRYL_STOP_RUNNING.  Shared by gmres_givens and the
 * DCGS2 column (ref_dcgs2.c). */
int kryl_ref_givens_column(const kryl_gmres_ls *ls, int k, double gk);

#endif
