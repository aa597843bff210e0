/* The omp backend's passes of GMRES by DCGS2 (semantics in backend.h,
 * specification in ref_dcgs2.c); the least-squares step is the ref
 * backend's gmres_dcgs2_column. */
#ifndef KRYL_BACKENDS_OMP_OMP_DCGS2_H
#define KRYL_BACKENDS_OMP_OMP_DCGS2_H

#include "backends/omp/omp_backend.h"
#include "backends/ref/ref_dcgs2.h"

kryl_status kryl_omp_gmres_dcgs2_dot(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                     kryl_scalar d, kryl_monitor *monitor);
kryl_status kryl_omp_gmres_dcgs2_update(kryl_context ctx, kryl_vector V, int k, kryl_vector w,
                                        kryl_scalar d, kryl_scalar f, kryl_monitor *monitor);

#endif
