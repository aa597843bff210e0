/* The omp backend's level-scheduled triangular solves (omp_trsv.c); release is ref's. */
#ifndef KRYL_BACKENDS_OMP_OMP_TRSV_H
#define KRYL_BACKENDS_OMP_OMP_TRSV_H

#include "backends/backend.h"

kryl_status kryl_omp_trsv_setup(kryl_context ctx, const kryl_csr *T, kryl_precision precision,
                                bool lower, bool unit_diagonal, const int32_t *level_rows,
                                const int64_t *level_ptr, int64_t nlevels, void **handle);
kryl_status kryl_omp_trsv(kryl_context ctx, void *handle, kryl_vector b, kryl_vector x);
/* "levels" or "serial", as setup chose. */
const char *kryl_omp_trsv_path(kryl_context ctx, const void *handle);

/* The numeric IC(0)/ILU(0) by levels and max |x_i| (omp_factor.c). */
kryl_status kryl_omp_factor_numeric(kryl_context ctx, void *handle, kryl_matrix A, double shift,
                                    struct kryl_factor_pivots *pivots);
kryl_status kryl_omp_amax(kryl_context ctx, kryl_vector x, kryl_scalar out);

#endif
