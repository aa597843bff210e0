/* kryl solve's near-nullspace for AMG: --nullspace FILE or --coordinates FILE. */
#ifndef KRYL_TOOL_AMG_NULLSPACE_H
#define KRYL_TOOL_AMG_NULLSPACE_H

#include "kryl.h"

/* The near-nullspace of an n-row matrix into *B (n x *k, column by column,
 * malloc'ed; NULL when neither file is given): the columns of the array
 * file `nullspace` (n x k, 1 <= k <= KRYL_AMG_MAX_NULLSPACE), or the six
 * rigid-body modes of the node coordinates in `coordinates` (an array of
 * n/3 rows x 3, a row per node, or of n rows x 3, a row per unknown, the
 * unknowns numbered node by node).  Errors are printed. */
kryl_status cli_amg_nullspace(const char *nullspace, const char *coordinates, int64_t n, double **B,
                              int *k);

#endif
