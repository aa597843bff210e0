/* The ref backend's permuted copy and multicolor SSOR sweep (ref_mcsweep.c; backend.h). */
#ifndef KRYL_BACKENDS_REF_MCSWEEP_H
#define KRYL_BACKENDS_REF_MCSWEEP_H

#include "backends/backend.h"

kryl_status kryl_ref_csr_permute(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, const double *values, const int32_t *perm,
                                 int64_t *b_row_ptr, int32_t *b_col_idx, double *b_values);
kryl_status kryl_ref_mcsweep_setup(kryl_context ctx, int64_t n, const int64_t *row_ptr,
                                   const int32_t *col_idx, const double *values,
                                   const int64_t *color_ptr, int32_t ncolors, double omega,
                                   void **handle);
kryl_status kryl_ref_mcsweep(kryl_context ctx, void *handle, kryl_vector r, kryl_vector z);

#endif
