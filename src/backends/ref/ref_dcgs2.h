/* The ref backend's operations of GMRES by low-synchronisation CGS2 with
 * delayed reorthogonalisation (DCGS2, semantics in backend.h): the
 * specification the other backends follow.  gmres_dcgs2_column works on a
 * handful of scalars and serves the omp backend as well. */
#ifndef KRYL_REF_DCGS2_H
#define KRYL_REF_DCGS2_H

#include "backends/backend.h"

kryl_status kryl_ref_gmres_dcgs2_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                     kryl_scalar d, kryl_monitor *monitor);
kryl_status kryl_ref_gmres_dcgs2_update(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                        kryl_scalar d, kryl_scalar f, kryl_monitor *monitor);
kryl_status kryl_ref_gmres_dcgs2_column(kryl_context ctx, const kryl_gmres_ls *ls, int k,
                                        kryl_monitor *monitor);

#endif
